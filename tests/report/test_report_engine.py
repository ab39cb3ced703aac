"""The report with the stream engine: the sections it can compute equal the memory engine's,
the sections that need per-rating data say so, on the page and from the command line."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord.cli import app
from accord.report import HtmlReport
from tests.report.test_report import row_values, section_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DIAGNOSES: dict[str, Any] = {"item": "patient", "rater": "rater", "label": "diagnosis"}
UNAVAILABLE = "Not available with the stream engine: needs per-rating data"
#: The sections computed from the engine's statistics (the rater model: from the codes the
#: engine hands over), the same as in memory.
SHARED = ("summary", "read", "items", "rater-model")
#: The sections built from sums merged batch by batch (pair tables, per-rater sums against
#: the consensus): on the stream page too, without the permutation tests that need the
#: ratings in memory.
MERGED = ("pairwise", "raters")


def bootstrap_note(html: str) -> str:
    """The page with the coefficient notes that name how to get a bootstrap interval (which
    differ by engine: the stream engine has none) made equal."""
    return re.sub(r"no analytic SE: [^<]*", "no analytic SE", html)


@pytest.fixture(scope="module")
def pages() -> tuple[HtmlReport, HtmlReport]:
    path = EXAMPLES / "diagnoses.csv"
    memory = accord.report(path, **DIAGNOSES, progress=False)
    stream = accord.report(path, **DIAGNOSES, engine="stream", progress=False)
    return memory, stream


def test_stream_report_equals_memory_in_the_sections_both_compute(
    pages: tuple[HtmlReport, HtmlReport],
) -> None:
    memory, stream = pages
    assert stream.sections == memory.sections
    for section in SHARED:
        assert section_of(stream.html, section) == section_of(memory.html, section), section
    assert bootstrap_note(section_of(stream.html, "coefficients")) == bootstrap_note(
        section_of(memory.html, "coefficients")
    )
    # Fleiss (1971), Table 1 data: kappa = 0.430 (examples/README.md), read in batches
    assert row_values(stream.html, "Fleiss' kappa")[0] == "0.430"
    assert row_values(stream.html, "ratings kept") == ["180"]
    assert stream.skipped == {}


def test_stream_report_shows_the_sections_of_merged_sums(
    pages: tuple[HtmlReport, HtmlReport],
) -> None:
    memory, stream = pages
    for section in MERGED:
        assert UNAVAILABLE not in section_of(stream.html, section), section
        assert UNAVAILABLE not in section_of(memory.html, section), section
    assert stream.html.count(UNAVAILABLE) == 0


def test_stream_report_reads_the_files_once(
    pages: tuple[HtmlReport, HtmlReport], monkeypatch: pytest.MonkeyPatch
) -> None:
    # every section that reads the files (the agreement table, the consensus, the pair
    # tables, the rater model) gets the statistics of one scan, and the page is the page of
    # one scan each
    from accord.engines import stream
    from accord.front import reading

    reads: list[tuple[str, ...]] = []
    scan = stream.stream_scan

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(tuple(kwargs["statistics"]))
        return scan(*args, **kwargs)

    monkeypatch.setattr(stream, "stream_scan", counted)
    path = EXAMPLES / "diagnoses.csv"
    once = accord.report(path, **DIAGNOSES, engine="stream", progress=False)
    assert len(reads) == 1 and {"raters", "pairs", "patterns"} <= set(reads[0])
    # the same page as when each section reads the files itself (four reads)
    monkeypatch.setattr(reading, "read_once", contextlib.nullcontext)
    apart = accord.report(path, **DIAGNOSES, engine="stream", progress=False)
    assert len(reads) == 5
    assert once.html == apart.html == pages[1].html


def two_rater_file(tmp_path: Path) -> Path:
    """Two raters, 40 items on an ordinal 1-4 scale, as a Parquet file."""
    rng = np.random.default_rng(5)
    truth = rng.integers(1, 5, 40)
    rows = [
        (f"item-{i}", rater, int(np.clip(t + rng.integers(-1, 2) * (rater == "B"), 1, 4)))
        for i, t in enumerate(truth)
        for rater in ("A", "B")
    ]
    path = tmp_path / "two.parquet"
    pd.DataFrame(rows, columns=["item", "rater", "grade"]).to_parquet(path)
    return path


def test_stream_report_of_two_raters_leaves_the_two_rater_view_to_memory(
    tmp_path: Path,
) -> None:
    path = two_rater_file(tmp_path)
    cols: dict[str, Any] = {"item": "item", "rater": "rater", "label": "grade", "level": "ordinal"}
    memory = accord.report(path, **cols, progress=False)
    stream = accord.report(path, **cols, engine="stream", progress=False)
    assert "two-raters" in memory.sections and "two-raters" in stream.sections
    assert UNAVAILABLE in section_of(stream.html, "two-raters")
    assert section_of(stream.html, "read") == section_of(memory.html, "read")
    assert section_of(stream.html, "items") == section_of(memory.html, "items")
    alpha = "Krippendorff's alpha (ordinal)"
    assert row_values(stream.html, alpha) == row_values(memory.html, alpha)
    # both engines' tables open with Cohen's kappa: the same headline, named and valued
    # alike, and Conger's and Light's kappa (Cohen's for two raters) are not listed again
    lead = re.compile(r"Cohen&#39;s kappa \(quadratic weights\) (0\.\d+)")
    memory_lead = lead.search(section_of(memory.html, "summary"))
    stream_lead = lead.search(section_of(stream.html, "summary"))
    assert memory_lead and stream_lead and memory_lead.group(1) == stream_lead.group(1)
    for name in ("Conger&#39;s kappa", "Light&#39;s kappa"):
        assert name not in section_of(stream.html, "coefficients"), name


def test_stream_report_of_scores_says_the_calibration_needs_the_rows(tmp_path: Path) -> None:
    page = accord.report(
        EXAMPLES / "panel.csv",
        item="proposal",
        rater="reviewer",
        label="level",
        scores="score",
        engine="stream",
        progress=False,
    )
    assert UNAVAILABLE in section_of(page.html, "scores")
    assert "Krippendorff" in section_of(page.html, "coefficients")


def test_stream_report_needs_a_path_and_a_known_engine() -> None:
    frame = pd.read_csv(EXAMPLES / "diagnoses.csv")
    with pytest.raises(accord.InvalidInputError, match="pass a path"):
        accord.report(frame, **DIAGNOSES, engine="stream", progress=False)
    with pytest.raises(accord.InvalidInputError, match="'spark'"):
        accord.report(frame, **DIAGNOSES, engine="spark", progress=False)  # type: ignore[arg-type]
    with pytest.raises(accord.InvalidInputError, match="duplicates='mean' applies to the memory"):
        accord.report(
            EXAMPLES / "diagnoses.csv",
            **DIAGNOSES,
            engine="stream",
            duplicates="mean",
            progress=False,
        )


def test_cli_report_engine_stream_equals_memory_in_shared_sections(tmp_path: Path) -> None:
    runner = CliRunner()
    base = ["report", str(EXAMPLES / "diagnoses.csv"), "--item", "patient", "--rater", "rater"]
    base += ["--label", "diagnosis"]
    written = {}
    for engine in ("memory", "stream"):
        target = tmp_path / f"{engine}.html"
        result = runner.invoke(app, [*base, "--engine", engine, "-o", str(target)])
        assert result.exit_code == 0, result.output
        assert f"wrote {target}" in result.output
        written[engine] = target.read_text(encoding="utf-8")
    for section in SHARED:
        assert section_of(written["stream"], section) == section_of(written["memory"], section)
    for section in MERGED:
        assert UNAVAILABLE not in section_of(written["stream"], section)


def test_cli_report_engine_stream_refuses_memory_only_options(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "report",
            str(EXAMPLES / "diagnoses.csv"),
            *("--item", "patient", "--rater", "rater", "--label", "diagnosis"),
            *("--engine", "stream", "--sep", ";", "-o", str(tmp_path / "x.html")),
        ],
    )
    assert result.exit_code == 2
    assert "--sep and --encoding apply to --engine memory" in result.output
    assert "Traceback" not in result.output


def test_stream_report_fits_the_rater_model_in_passes_beyond_its_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Beyond PASSES_BEYOND ratings (here 0) the section, on the stream engine, fits
    # Dawid-Skene in passes over the ratings and shows no interval: the numbers are those of
    # rater_model without a bootstrap in memory.
    from accord.report.sections import rater_model as section

    monkeypatch.setattr(section, "PASSES_BEYOND", 0)
    path = EXAMPLES / "diagnoses.csv"
    html = accord.report(path, **DIAGNOSES, engine="stream", progress=False).html
    part = section_of(html, "rater-model")
    assert "fitted in passes of the stream engine over the 180 ratings" in part
    fit = accord.rater_model(accord.read_ratings(path, **DIAGNOSES), n_bootstrap=0)
    best = fit.raters.sort_values("accuracy", ascending=False).iloc[0]
    assert row_values(part, str(best["rater"]))[:2] == [
        str(int(best["n_ratings"])),
        f"{best['accuracy']:.3f}",
    ]
