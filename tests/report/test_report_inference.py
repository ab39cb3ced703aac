"""The agreement coefficients' inference options on the HTML report, with the names
``accord.agreement`` and ``accord agree`` give them: ``weights`` (power and circular among
them), ``se``, ``rater_population_size``, ``test_value`` and ``alternative``."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import accord
from accord import InvalidInputError
from accord.cli import app
from accord.report._blocks import fmt, fmt_p

from .test_report import esc, row_values

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DIAGNOSES = {"item": "patient", "rater": "rater", "label": "diagnosis"}
OPTIONS = {"se": "unconditional", "rater_population_size": 60, "test_value": 0.4,
           "alternative": "greater"}  # fmt: skip


@pytest.fixture(scope="module")
def page() -> accord.HtmlReport:
    return accord.report(EXAMPLES / "diagnoses.csv", progress=False,
                         inference=accord.Inference(**OPTIONS), **DIAGNOSES)  # fmt: skip


def test_table_holds_the_standard_error_and_test_asked_for(page: accord.HtmlReport) -> None:
    r = accord.datasets.load_diagnoses()
    # the same numbers as the estimator called with the same keywords (the values of these
    # options are checked against kappaetc, irrCAC and hand computations in
    # tests/agreement/test_inference_options.py)
    want = accord.fleiss_kappa(r, **OPTIONS)
    values = row_values(page.html, "Fleiss' kappa")
    assert values[0] == fmt(want.statistic) and values[1] == fmt(want.standard_error)
    assert values[3] == fmt_p(want.pvalue)
    default = accord.fleiss_kappa(r)
    assert fmt(default.standard_error) != fmt(want.standard_error)  # the option changed it
    assert esc("p (H0: ≤ 0.4)") in page.html
    assert "SE: unconditional standard error" in page.html
    assert "finite-population correction for 60 raters" in page.html
    assert "test of the coefficient against 0.4 (one-sided, H1: greater)" in page.html
    assert "z(1 - alpha/2), the normal quantile" in page.html


def test_methods_paragraph_says_which_inference(page: accord.HtmlReport) -> None:
    html = page.html
    assert "Standard errors are unconditional" in html
    assert "population of 60 raters" in html
    assert "p-values are one-sided (alternative: greater than 0.4)." in html


def test_default_page_has_no_test_column() -> None:
    plain = accord.report(EXAMPLES / "diagnoses.csv", progress=False, **DIAGNOSES)
    assert "p (H0:" not in plain.html
    assert "SE: general (non-null) standard error, conditional on the raters" in plain.html


def test_power_and_circular_weights_reach_the_weighted_rows() -> None:
    birads = {"item": "finding", "rater": "modality", "label": "birads", "level": "ordinal"}
    for scheme in ("power:1.5", "circular:0.5"):
        got = accord.report(EXAMPLES / "birads.csv", progress=False, weights=scheme, **birads)
        table = accord.agreement(accord.read_ratings(EXAMPLES / "birads.csv", **birads),
                                 weights=scheme)  # fmt: skip
        for name, label in (("fleiss_kappa", "Fleiss' kappa"), ("gwet_ac2", "Gwet's AC2")):
            want = next(c for c in table.coefficients if c.weights == scheme and c.name == name)
            values = row_values(got.html, f"{label} ({scheme} weights)")
            assert values[:2] == [fmt(want.statistic), fmt(want.standard_error)]


def test_two_raters_cohen_row_takes_the_test() -> None:
    # kappaetc's rate2 (Altman 1991, p. 403), as tests/agreement/test_inference_options.py builds it
    from ..agreement.test_inference_options import _rate2

    r = _rate2()
    test = accord.Inference(test_value=0.3, alternative="greater")
    got = accord.report(r, progress=False, inference=test)
    cohen = accord.cohen_kappa(r, test_value=0.3, alternative="greater")
    values = row_values(got.html, "Cohen's kappa")
    assert values[0] == fmt(cohen.statistic) and values[3] == fmt_p(cohen.pvalue)
    # the SE is Cohen's own (0.0727; kappaetc's 0.0731 is Conger's, which a two-rater page
    # does not repeat: tests/agreement/test_inference_options.py checks it)
    assert values[1] == fmt(cohen.standard_error) == "0.073"


def test_bad_options_are_refused_in_one_line() -> None:
    with pytest.raises(InvalidInputError, match="'se' parameter of report must be one of"):
        accord.report(EXAMPLES / "diagnoses.csv", progress=False,
                      inference=accord.Inference(se="subjects"), **DIAGNOSES)  # fmt: skip
    with pytest.raises(InvalidInputError, match="'alternative' parameter of report"):
        accord.report(EXAMPLES / "diagnoses.csv", progress=False,
                      inference=accord.Inference(alternative="up"), **DIAGNOSES)  # fmt: skip
    with pytest.raises(InvalidInputError, match="se, test_value: options of the agreement"):
        accord.report(EXAMPLES / "panel.csv", item="proposal", rater="reviewer",
                      score="score", inference=accord.Inference(se="items", test_value=0.5),
                      progress=False)  # fmt: skip


runner = CliRunner()


def test_cli_report_takes_the_flags_of_agree(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    args = ["report", str(EXAMPLES / "diagnoses.csv"), "--item", "patient", "--rater", "rater",
            "--label", "diagnosis", "-o", str(out), "--quiet", "--se", "unconditional",
            "--rater-population-size", "60", "--test-value", "0.4",
            "--alternative", "greater"]  # fmt: skip
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    html = out.read_text(encoding="utf-8")
    want = accord.fleiss_kappa(accord.datasets.load_diagnoses(), **OPTIONS)
    assert row_values(html, "Fleiss' kappa")[1] == fmt(want.standard_error)
    assert "p-values are one-sided (alternative: greater than 0.4)." in html
    bad = runner.invoke(app, [*args[:-2], "--alternative", "up"])
    assert bad.exit_code == 2 and "--alternative must be one of" in bad.output
    bad = runner.invoke(app, ["report", str(EXAMPLES / "panel.csv"), "--item", "proposal",
                              "--rater", "reviewer", "--score", "score", "--se", "items",
                              "-o", str(out)])  # fmt: skip
    assert bad.exit_code == 2 and "--se: options of the agreement coefficients" in bad.output
