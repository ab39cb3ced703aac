"""A notebook shows a result with the words the terminal prints: ``_repr_html_`` and
``_repr_markdown_`` start with the sentence of ``accord._verdict``, the one place that writes
the verdicts of the command line and the report."""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

import accord
from accord.cli import app

runner = CliRunner()


def _lead(args: list[str]) -> str:
    """The verdict line the command prints first, on a terminal wide enough for one line."""
    res = runner.invoke(app, args, env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    return res.stdout.splitlines()[0].strip()


def test_an_agreement_table_shows_the_verdict_of_accord_agree(examples: Path) -> None:
    path = str(examples / "diagnoses.csv")
    lead = _lead(["agree", path, "--item", "patient", "--rater", "rater", "--label", "diagnosis"])
    # Fleiss (1971): kappa 0.43 on 30 patients and 6 psychiatrists, the headline
    assert lead.startswith("Fleiss' kappa 0.43")
    table = accord.agreement(path, item="patient", rater="rater", label="diagnosis")
    assert html.escape(lead) in table._repr_html_()
    assert lead in table._repr_markdown_()


def test_a_two_rater_table_headlines_cohen_as_the_terminal_and_the_page(examples: Path) -> None:
    from tests.report.test_report import section_of
    from tests.report.test_report_levels import text_of

    path = str(examples / "birads.csv")
    columns = {"item": "finding", "rater": "modality", "label": "birads"}
    for level, name in (("nominal", "Cohen's kappa 0.82"),
                        ("ordinal", "Cohen's kappa (quadratic weights) 0.90")):  # fmt: skip
        args = ["agree", path, *(f"--{k}={v}" for k, v in columns.items()), f"--level={level}"]
        lead = _lead(args)
        # Sickles et al. (1990) BI-RADS data: Cohen's kappa 0.82, quadratic-weighted 0.90
        # (hand-checked in tests/report/test_report.py); the headline of two raters is Cohen's
        assert lead.startswith(name), lead
        table = accord.agreement(path, level=level, **columns)
        assert table.coefficients[0].name == "cohen_kappa"  # a row of the table shown alone
        assert lead in table._repr_markdown_()
        page = accord.report(path, level=level, progress=False, **columns)
        words = " ".join(text_of(section_of(page.html, "summary")).split())
        label, value = name.rsplit(" ", 1)
        shown = words.split(label + " ", 1)[1].split(" ", 1)[0]  # the page's 3 decimals
        assert f"{float(shown):.2f}" == value, words


def test_a_panel_calibration_shows_the_verdict_of_accord_calibrate(examples: Path) -> None:
    path = examples / "panel.csv"
    lead = _lead(["calibrate", str(path), "--item", "proposal", "--rater", "reviewer",
                  "--score", "score", "--confidence", "confidence"])  # fmt: skip
    result = accord.calibrate_panel(
        pd.read_csv(path), item="proposal", rater="reviewer", score="score",
        confidence="confidence",
    )  # fmt: skip
    assert lead.startswith("40 items scored by 12 raters on score")
    assert html.escape(lead) in result._repr_html_()
    assert lead in result._repr_markdown_()


def test_a_coefficient_shows_its_verdict_and_its_fields(examples: Path) -> None:
    ratings = accord.read_ratings(
        examples / "diagnoses.csv", item="patient", rater="rater", label="diagnosis"
    )
    kappa = accord.fleiss_kappa(ratings)
    text = kappa._repr_markdown_()
    assert "Fleiss' kappa 0.43 (95% CI 0.32 to 0.54)" in text
    assert "| standard_error |" in text and "| n_items | 30 |" in text


def test_a_result_without_words_shows_its_fields_only() -> None:
    ba = accord.bland_altman([1.0, 2.0, 3.0, 4.0], [1.1, 1.9, 3.2, 4.1])
    assert "accord-words" not in ba._repr_html_()
    assert ba._repr_markdown_().startswith("**BlandAltman**")


def test_ratings_show_the_read_report_the_terminal_prints(examples: Path) -> None:
    path = str(examples / "diagnoses.csv")
    printed = runner.invoke(
        app, ["agree", path, "--item", "patient", "--rater", "rater", "--label", "diagnosis"],
        env={"COLUMNS": "400"},
    ).stdout.splitlines()[1]  # fmt: skip
    assert printed == "read 180 rows: 180 ratings of 30 items by 6 raters; nothing dropped"
    ratings = accord.read_ratings(path, item="patient", rater="rater", label="diagnosis")
    assert printed in ratings._repr_html_() and printed in ratings._repr_markdown_()
    assert "| item | rater | label |" in ratings._repr_markdown_()
