"""The command line says its verdict first, in the words of the HTML report's headline."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord.cli import app

from .._cli import cli_json

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
runner = CliRunner()

DIAGNOSES = [str(EXAMPLES / "diagnoses.csv"), "--item", "patient", "--rater", "rater",
             "--label", "diagnosis"]  # fmt: skip
PANEL = ["calibrate", str(EXAMPLES / "panel.csv"), "--item", "proposal", "--rater", "reviewer",
         "--score", "score", "--confidence", "confidence"]  # fmt: skip


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("command", ["agree", "consensus"])
@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_agreement_verdict_is_the_first_line(
    command: str, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = runner.invoke(app, [command, *DIAGNOSES, "--engine", engine])
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    # Fleiss (1971): kappa 0.430 on these 30 patients, "moderate" in Landis & Koch's (1977)
    # bands (0.41-0.60) on its face; with its standard error only "fair" is reached with
    # probability 0.95 (Gwet 2014, ch. 6: P(kappa >= 0.4) is about 0.7, P(kappa >= 0.2) above
    # 0.99; tests/test_benchmark_bands.py checks the probabilities). The interval is the t
    # interval of the coefficient table.
    assert words(out).startswith(
        "Fleiss' kappa 0.43 (95% CI 0.32 to 0.54): fair agreement beyond chance "
        "(Landis & Koch; probability above 0.99 that the true value is at least 0.20; the "
        "estimate alone reads moderate) read 180 rows"
    )
    assert max(len(line) for line in out.splitlines()) <= 80


def test_agree_verdict_is_the_reports_headline() -> None:
    ratings = accord.read_ratings(
        EXAMPLES / "diagnoses.csv", item="patient", rater="rater", label="diagnosis"
    )
    page = accord.report(ratings, progress=False)
    result = runner.invoke(app, ["agree", *DIAGNOSES])
    first = words(result.stdout).split(" read 180 rows")[0]
    # the report prints three decimals, the terminal two: the same sentence otherwise
    reading = (
        "fair agreement beyond chance (Landis &amp; Koch; probability above 0.99 that the true "
        "value is at least 0.20; the estimate alone reads moderate)"
    )
    assert f"Fleiss&#39; kappa 0.430 (95% CI 0.319 to 0.541): {reading}" in page.html
    assert first.endswith(": " + reading.replace("&amp;", "&"))


def test_ordinal_verdict_is_weighted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = runner.invoke(
        app,
        [
            "agree",
            str(EXAMPLES / "birads.csv"),
            "--item",
            "finding",
            "--rater",
            "modality",
            "--label",
            "birads",
            "--level",
            "ordinal",
        ],
    )
    assert result.exit_code == 0, result.stderr
    # two raters on an ordinal scale: quadratic-weighted Cohen's kappa, as the report
    # headlines it; the value side by side with scikit-learn
    from sklearn.metrics import cohen_kappa_score

    wide = pd.read_csv(EXAMPLES / "birads.csv").pivot(
        index="finding", columns="modality", values="birads"
    )
    peer = cohen_kappa_score(wide["ABVS"], wide["US"], weights="quadratic")
    assert words(result.stdout).startswith(f"Cohen's kappa (quadratic weights) {peer:.2f} (95% CI ")
    assert "agreement beyond chance (Landis & Koch; probability " in words(result.stdout)


def test_calibrate_verdict_is_the_first_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = runner.invoke(app, PANEL)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert words(out).startswith("40 items scored by 12 raters on score: their biases spread by ")
    assert max(len(line) for line in out.splitlines()) <= 80
    # the SD of the printed biases, computed here from the library's table
    frame = pd.read_csv(EXAMPLES / "panel.csv")
    panel = accord.calibrate_panel(
        frame, item="proposal", rater="reviewer", score="score", confidence="confidence"
    )
    spread = float(panel.biases["bias"].std(ddof=1))
    assert f"spread by {spread:.2f} (SD)" in words(out)


@pytest.mark.parametrize(
    "args",
    [["agree", *DIAGNOSES], ["consensus", *DIAGNOSES], PANEL],
    ids=["agree", "consensus", "calibrate"],
)
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_machine_formats_have_no_verdict(args: list[str], fmt: str) -> None:
    result = runner.invoke(app, [*args, "--format", fmt])
    assert result.exit_code == 0, result.stderr
    assert "beyond chance" not in result.stdout and "spread by" not in result.stdout
    if fmt == "json":
        cli_json(result.stdout)
