"""``accord agree``: the full coefficient table, options, formats and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from numpy.testing import assert_allclose
from typer.testing import CliRunner

from accord.cli import app

from .._cli import cli_json

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BASE = ["agree", str(EXAMPLES / "diagnoses.csv"), "--item", "patient", "--rater", "rater",
        "--label", "diagnosis"]  # fmt: skip
runner = CliRunner()


def test_table_lists_every_nominal_coefficient() -> None:
    res = runner.invoke(app, BASE)
    assert res.exit_code == 0, res.output
    for name in ("percent_agreement", "fleiss_kappa", "conger_kappa", "light_kappa",
                 "brennan_prediger", "gwet_ac1", "krippendorff_alpha"):  # fmt: skip
        assert name in res.output


def test_json_values_and_options() -> None:
    res = runner.invoke(app, [*BASE, "--format", "json", "--coefficients", "fleiss_kappa"])
    assert res.exit_code == 0, res.output
    out = cli_json(res.output)
    (row,) = out["coefficients"]
    # Fleiss (1971) diagnoses: kappa = 0.4302445 (R irr kappam.fleiss)
    assert_allclose(row["statistic"], 0.4302445, atol=5e-8)
    assert row["ci_low"] < row["statistic"] < row["ci_high"]
    assert "t interval" in row["ci_method"]
    fpc = runner.invoke(
        app, [*BASE, "-f", "json", "--coefficients", "fleiss_kappa", "--population-size", "60"]
    )
    row2 = cli_json(fpc.output)["coefficients"][0]
    assert_allclose(row2["standard_error"], row["standard_error"] * (1 - 30 / 60) ** 0.5)


def test_bootstrap_is_reproducible_with_seed() -> None:
    args = [*BASE, "-f", "json", "--coefficients", "gwet_ac1", "--ci", "bootstrap",
            "--n-boot", "200", "--seed", "3"]  # fmt: skip
    a = cli_json(runner.invoke(app, args).stdout)["coefficients"][0]
    b = cli_json(runner.invoke(app, args).stdout)["coefficients"][0]
    assert a["ci_low"] == b["ci_low"] and "BCa" in a["ci_method"]


def test_weights_and_csv(tmp_path: Path) -> None:
    out = tmp_path / "agree.csv"
    res = runner.invoke(
        app,
        ["agree", str(EXAMPLES / "birads.csv"), "--item", "finding", "--rater", "modality",
         "--label", "birads", "--level", "ordinal", "--weights", "linear", "-f", "csv",
         "-o", str(out)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "gwet_ac2,linear" in text and "krippendorff_alpha,ordinal" in text


def test_errors_are_one_line() -> None:
    res = runner.invoke(app, [*BASE, "--coefficients", "kapa"])
    assert res.exit_code == 2 and "coefficients" in res.output
    res = runner.invoke(app, [*BASE, "--weights", "quadatic"])
    assert res.exit_code == 2 and "'weights' parameter" in res.output
    res = runner.invoke(app, [*BASE, "--ci", "jackknife"])
    assert res.exit_code == 2 and "--ci must be one of analytic, bootstrap; got " in res.output


def test_demo_still_renders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the demo writes its reports under ./out
    res = runner.invoke(app, ["demo", "--examples-dir", str(EXAMPLES)])
    assert res.exit_code == 0, res.output
    assert "krippendorff_alpha (ordinal)" in res.output


def test_demo_prints_what_the_commands_it_shows_print(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: the demo's BI-RADS section (two raters, ordinal) was headlined by Conger's
    # kappa and had no Cohen's kappa rows, unlike the `accord agree` command it shows.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")
    res = runner.invoke(app, ["demo", "--examples-dir", str(EXAMPLES)])
    assert res.exit_code == 0, res.output
    sections = [s for s in res.stdout.split("\n== ")[1:] if "\n$ accord agree " in s]
    assert len(sections) == 2
    for section in sections:
        command, shown = section.split("\n", 2)[1:]
        direct = runner.invoke(app, command.removeprefix("$ accord ").split())
        assert direct.exit_code == 0, direct.output
        assert shown.startswith(direct.stdout), command


def test_degenerate_data_warns_in_one_line_each(tmp_path: Path) -> None:
    path = tmp_path / "one.csv"
    path.write_text("item,rater,label\n1,a,x\n2,b,y\n", encoding="utf-8")
    res = runner.invoke(
        app, ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "label"]
    )
    assert res.exit_code == 0, res.output
    warned = [line for line in res.stderr.splitlines() if line.startswith("accord: warning:")]
    assert warned and len(warned) == len(set(warned))
    assert "DegenerateDataWarning" not in res.stderr


def test_interval_scores_show_all_six_iccs_labelled_by_form(tmp_path: Path) -> None:
    # Shrout & Fleiss (1979) Table 1 data (6 targets x 4 judges); Table 2 values (to 8
    # decimals as R psych::ICC prints them), in tests/reference/many_raters.json.
    ref = json.loads((Path(__file__).parents[1] / "reference" / "many_raters.json").read_text())[
        "icc"
    ]
    path = tmp_path / "sf.csv"
    lines = ["item,rater,score"] + [
        f"t{i},j{j},{v}" for i, row in enumerate(ref["scores"]) for j, v in enumerate(row)
    ]
    path.write_text("\n".join(lines) + "\n")
    args = ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "score",
            "--level", "interval"]  # fmt: skip
    out = cli_json(runner.invoke(app, [*args, "-f", "json"]).output)["coefficients"]
    iccs = {r["form"]: r for r in out if r["name"] == "icc"}
    assert list(iccs) == ["ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)"]
    for form, value in ref["expected"].items():
        assert_allclose(iccs[form]["statistic"], value, atol=ref["atol"], err_msg=form)
        # No SE is published for the ICC: the NaN says why (the F interval is its inference).
        assert iccs[form]["standard_error"] is None and "F interval" in iccs[form]["reason"]
    res = runner.invoke(app, [*args], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    rows = [line for line in res.output.splitlines() if "│" in line]  # the verdict names one
    labels = [line.split("│")[1].strip() for line in rows if "ICC(" in line]
    assert labels == ["ICC(1,1)", "ICC(A,1)", "ICC(C,1)", "ICC(1,k)", "ICC(A,k)", "ICC(C,k)"]
    assert "icc (" not in res.output


PEFR = ["agree", str(EXAMPLES / "pefr.csv"), "--item", "subject", "--rater", "meter",
        "--label", "pefr", "--level", "interval"]  # fmt: skip


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_measurements_show_alpha_and_the_iccs_unless_asked(engine: str) -> None:
    # Two meters' readings of 17 subjects (Bland & Altman 1986): no two readings match
    # exactly, so percent agreement is 0 and Fleiss' kappa -0.03 beside an ICC of 0.95; the
    # table shows what reads measurements, as the report does, and says what it left out.
    args = [*PEFR, "--engine", engine]
    rows = cli_json(runner.invoke(app, [*args, "-f", "json"]).output)["coefficients"]
    assert [(r["name"], r["weights"]) for r in rows][:1] == [("krippendorff_alpha", "interval")]
    assert {r["name"] for r in rows} == {"krippendorff_alpha", "icc"} and len(rows) == 7
    res = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "percent_agreement" not in res.output and "fleiss_kappa" not in res.output
    caption = " ".join(res.output.split())
    assert "count exact matches of values" in caption and "--coefficients names them" in caption
    asked = runner.invoke(app, [*args, "-f", "json", "--coefficients", "percent_agreement"])
    own = runner.invoke(app, [*args, "--coefficients", "icc"], env={"COLUMNS": "200"})
    assert "left out" not in " ".join(own.output.split())  # nothing left out of what was asked
    named = {r["weights"]: r for r in cli_json(asked.output)["coefficients"]}
    assert set(named) == {"identity", "quadratic"} and named["identity"]["statistic"] == 0.0


def test_one_item_rows_say_why_se_and_p_are_nan(tmp_path: Path) -> None:
    path = tmp_path / "one.csv"
    path.write_text("item,rater,label\n1,a,x\n1,b,x\n1,c,y\n")
    res = runner.invoke(app, ["agree", str(path), "--item", "item", "--rater", "rater",
                              "--label", "label", "-f", "json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    for row in cli_json(res.stdout)["coefficients"]:
        assert row["standard_error"] is None and row["reason"], row["name"]
        if row["name"] != "light_kappa":
            assert "df = 0" in row["reason"]
        else:  # every pair shares one item: no kappa, the pairs counted (on stderr too)
            assert row["statistic"] is None and "3 co-rated fewer than 2 items" in row["reason"]
    assert "warning: no rater pair has a defined Cohen's kappa" in res.stderr


def test_a_table_without_columns_is_told_the_options_to_pass() -> None:
    res = runner.invoke(app, ["agree", str(EXAMPLES / "pefr.csv")])
    assert res.exit_code == 2 and "Traceback" not in res.output
    said = " ".join(res.output.split())
    assert "pass --item, --rater and --label (the columns to read)" in said
    assert "item=" not in said


def test_caption_names_the_tested_value_as_given() -> None:
    # "two-sided test of 0." by default (not 0.0), the value and side given otherwise
    res = runner.invoke(app, BASE, env={"COLUMNS": "300"})
    assert "p: two-sided test of 0." in " ".join(res.output.split())
    res = runner.invoke(app, [*BASE, "--test-value", "0.6", "--alternative", "greater"],
                        env={"COLUMNS": "300"})  # fmt: skip
    assert "p: one-sided test (H1: greater) of 0.6." in " ".join(res.output.split())
