"""The report's section on the judge's corrected rates: present with a judge that labelled
items no human did, and showing the numbers ``accord.judge_rates`` returns (whose estimators
tests/judges/test_judge_rates.py checks against judgy, ppi-python and the published formulas)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

import accord

COLUMNS = {"item": "item", "rater": "rater", "label": "preference"}


@pytest.mark.slow
def test_section_shows_the_library_numbers(examples: Path) -> None:
    path = examples / "pandalm-judged.csv"
    page = accord.report(
        path,
        judge=accord.Judge("gpt-3.5-turbo", epsilon=0.15),
        inference=accord.Inference(seed=0),
        **COLUMNS,
    )
    assert page.sections[:2] == ("judge", "judge-rates")
    ratings = accord.read_ratings(path, **COLUMNS)
    ours = accord.judge_rates(ratings, "gpt-3.5-turbo", rng=0)
    text = html.unescape(page.html)
    assert "What is the judge's rate worth?" in text
    assert f"labelled {ours.n_unlabelled:,} items no human labelled" in text
    for row in ours.table.itertuples(index=False):
        assert f"{row.ppi_low:.3f} to {row.ppi_high:.3f}" in text
        assert f"{int(row.ppi_labels_to_halve):,}" in text
    assert "Prediction-powered inference" in text  # the reference, in the methods


@pytest.mark.slow
def test_no_section_when_humans_labelled_every_item(examples: Path) -> None:
    page = accord.report(
        examples / "pandalm.csv",
        judge=accord.Judge("gpt-3.5-turbo", epsilon=0.15),
        inference=accord.Inference(seed=0),
        **COLUMNS,
    )
    assert "judge-rates" not in page.sections
    from accord.judges.rates import judge_only_items

    ratings = accord.read_ratings(examples / "pandalm.csv", **COLUMNS)
    humans = ["annotator1", "annotator2", "annotator3"]
    assert judge_only_items(ratings, "gpt-3.5-turbo", humans) == 0
    assert judge_only_items(ratings, "annotator1", ["annotator2"]) == 0
