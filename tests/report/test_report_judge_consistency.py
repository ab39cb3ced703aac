"""The report's section "Does the judge agree with itself?" from a trial column: its numbers
are those of judge_consistency on the same data, from Python and from the command line."""

from __future__ import annotations

import html as html_module
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord.cli import app
from accord.report._blocks import fmt, fmt_ci, fmt_pct

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")


def _runs(seed: int = 3, n_items: int = 40) -> pd.DataFrame:
    """Three humans label each item once; the judge ("llm") labels each three times, one
    label in five redrawn at random per run."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(list("abc"), size=n_items)
    rows = []
    for h in ("h1", "h2", "h3"):
        for i, t in enumerate(truth):
            label = t if rng.random() < 0.8 else rng.choice(list("abc"))
            rows.append({"item": i, "rater": h, "run": 1, "label": label})
    for run in (1, 2, 3):
        for i, t in enumerate(truth):
            label = t if rng.random() < 0.8 else rng.choice(list("abc"))
            rows.append({"item": i, "rater": "llm", "run": run, "label": label})
    return pd.DataFrame(rows)


def _section(page_html: str) -> str:
    text = page_html.split('id="judge-consistency"', 1)[1].split("<section", 1)[0]
    return html_module.unescape(text)


def _check_numbers(section: str, frame: pd.DataFrame) -> None:
    result = accord.judge_consistency(frame, "llm", trial="run")
    table = result.table.set_index("rater")
    for who in ("llm", "humans"):
        row = table.loc[who]
        for name in ("alpha", "kappa"):
            assert fmt(row[name]) in section
            assert fmt_ci(row[f"{name}_ci_low"], row[f"{name}_ci_high"]) in section
    judge = table.loc["llm"]
    # The flip rate, counted by hand: items whose three runs do not all give one label.
    runs = frame[frame["rater"] == "llm"]
    by_hand = float((runs.groupby("item")["label"].nunique() > 1).mean())
    assert judge["flip_rate"] == pytest.approx(by_hand)
    assert fmt_pct(by_hand) in section and fmt(by_hand) in section
    assert f"{int(judge['n_fragile'])} fragile" in section
    fragile = result.fragile()
    assert len(fragile) > 0 and f"({min(10, len(fragile))} of {len(fragile)})" in section
    assert fmt(fragile["flip_rate"].iloc[0]) in section
    assert result._headline() in section


def test_the_section_shows_the_library_numbers() -> None:
    frame = _runs()
    page = accord.report(
        frame,
        item="item",
        rater="rater",
        label="label",
        judge=accord.Judge("llm", epsilon=0.2),
        trial="run",
        duplicates="first",
        progress=False,
        inference=accord.Inference(n_boot=100),
    )
    assert "judge-consistency" in page.sections
    # Asked about a judge, the page answers about it first.
    assert page.sections.index("judge-consistency") < page.sections.index("coefficients")
    _check_numbers(_section(page.html), frame)
    methods = page.html.split('id="methods"', 1)[1]
    assert "McGraw, K. O., &amp; Wong" in methods or "McGraw, K. O., & Wong" in methods


def test_no_trial_no_section_and_the_options_that_go_with_it() -> None:
    frame = _runs()
    first = frame[frame["run"] == 1]
    page = accord.report(
        first,
        item="item",
        rater="rater",
        label="label",
        judge=accord.Judge("llm", epsilon=0.2),
        progress=False,
        inference=accord.Inference(n_boot=100),
    )
    assert "judge-consistency" not in page.sections
    with pytest.raises(accord.InvalidInputError, match="give the judge too"):
        accord.report(frame, item="item", rater="rater", label="label", trial="run",
                      duplicates="first", progress=False)  # fmt: skip
    with pytest.raises(accord.InvalidInputError, match="give the label column"):
        accord.report(
            frame,
            item="item",
            rater="rater",
            score="label",
            judge=accord.Judge("llm", epsilon=0.2),
            trial="run",
            progress=False,
        )


def test_without_duplicates_the_page_reads_the_judge_majority_over_runs() -> None:
    frame = _runs()
    page = accord.report(
        frame,
        item="item",
        rater="rater",
        label="label",
        judge=accord.Judge("llm", epsilon=0.2),
        trial="run",
        progress=False,
        inference=accord.Inference(n_boot=100),
    )
    section = _section(page.html)
    _check_numbers(section, frame)
    assert "for llm, its majority label over the runs" in section
    # epsilon reaches the alt-test of the majority over runs...
    consistency = accord.judge_consistency(frame, "llm", trial="run", epsilon=0.2)
    assert consistency.alt_test is not None
    assert consistency.alt_test._headline() in section
    # ...and the judge section's alt-test reads the same labels: the majority of each item's
    # three runs, counted here by hand (three runs, so a tie needs three different labels,
    # which goes to the label of run 1).
    runs = frame[frame["rater"] == "llm"].sort_values(["item", "run"])
    by_hand = {}
    for item, part in runs.groupby("item"):
        labels = part["label"].tolist()
        counts = {lab: labels.count(lab) for lab in labels}
        top = max(counts.values())
        by_hand[item] = next(lab for lab in labels if counts[lab] == top)
    humans = frame[frame["rater"] != "llm"]
    majority = pd.DataFrame(
        {"item": list(by_hand), "rater": "llm", "label": list(by_hand.values())}
    )
    ratings = accord.Ratings.from_long(pd.concat([humans, majority]), item="item",
                                       rater="rater", label="label")  # fmt: skip
    expected = accord.alt_test(ratings, "llm", epsilon=0.2)
    assert expected.advantage_probability == consistency.alt_test.advantage_probability
    judge_section = html_module.unescape(
        page.html.split('id="judge"', 1)[1].split("<section", 1)[0]
    )
    # (the first run's alt-test shows another number: the check can tell them apart)
    first_run = accord.Ratings.from_long(pd.concat([humans, runs[runs["run"] == 1]]),
                                         item="item", rater="rater", label="label")  # fmt: skip
    other = accord.alt_test(first_run, "llm", epsilon=0.2)
    assert fmt(other.advantage_probability) != fmt(expected.advantage_probability)
    assert fmt(expected.advantage_probability) in judge_section
    # What was read: one label per item and rater, 40 items by three humans and the judge.
    read = html_module.unescape(page.html.split('id="read"', 1)[1].split("<section", 1)[0])
    assert "160" in read


def test_with_duplicates_first_the_page_says_the_first_row_is_read() -> None:
    frame = _runs()
    page = accord.report(
        frame,
        item="item",
        rater="rater",
        label="label",
        judge=accord.Judge("llm", epsilon=0.2),
        trial="run",
        duplicates="first",
        progress=False,
        inference=accord.Inference(n_boot=100),
    )
    assert "for llm, the first row of each item" in _section(page.html)


def test_report_command_takes_trial(tmp_path: Path) -> None:
    frame = _runs()
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "runs.html"
    args = ["report", str(path), "--item", "item", "--rater", "rater", "--label", "label",
            "--judge", "llm", "--epsilon", "0.2", "--trial", "run", "-o", str(out),
            "--quiet"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    _check_numbers(_section(out.read_text()), pd.read_csv(path))
    no_judge = ["report", str(path), "--item", "item", "--rater", "rater", "--label", "label",
                "--trial", "run", "-o", str(out)]  # fmt: skip
    bad = CliRunner().invoke(app, no_judge)
    assert bad.exit_code == 2 and "--trial names the runs of a --judge" in bad.output


ROOT = Path(__file__).resolve().parents[2]


def _docs_command(name: str) -> list[str]:
    """The ``accord report`` command of docs/judge-bias.md on the bundled ``name``."""
    import shlex

    text = (ROOT / "docs" / "judge-bias.md").read_text(encoding="utf-8")
    lines = [line.removeprefix("$ ") for line in text.splitlines()
             if line.startswith(f"$ accord report examples/{name} ")]  # fmt: skip
    assert len(lines) == 1, lines
    return shlex.split(lines[0])[1:]


def test_the_docs_command_on_the_bundled_runs(tmp_path: Path, monkeypatch: Any) -> None:
    args = _docs_command("judge-runs.csv")
    out = tmp_path / "judge-runs.html"
    args[args.index("-o") + 1] = str(out)
    monkeypatch.chdir(ROOT)
    res = CliRunner().invoke(app, [*args, "--quiet"])
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    frame = pd.read_csv(accord.datasets.path("judge-runs.csv"))
    section = _section(page)
    expected = accord.judge_consistency(frame, "judge", label="verdict", trial="run",
                                        epsilon=0.15)  # fmt: skip
    table = expected.table.set_index("rater")
    for who in ("judge", "humans"):
        assert fmt(table.loc[who, "alpha"]) in section
    assert expected.alt_test is not None and expected.alt_test._headline() in section
    assert "for judge, its majority label over the runs" in section
    # The drift section reads the judge's majority over runs, dated by its first run.
    assert 'id="judge-drift"' in page
    from accord.judges.consistency import majority_over_runs

    folded = majority_over_runs(frame, "judge", label="verdict", trial="run")
    drift = accord.agreement_drift(folded, "judge", label="verdict", time="time", window="14d")
    drift_section = html_module.unescape(
        page.split('id="judge-drift"', 1)[1].split("<section", 1)[0]
    )
    for value in drift.windows["statistic"]:
        assert fmt(value) in drift_section
