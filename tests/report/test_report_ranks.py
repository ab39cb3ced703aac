"""The report's section "Do the raters rank the items alike?": Kendall's W of complete
ordinal rankings, equal to accord.kendall_w on the same ratings."""

from __future__ import annotations

import html as html_module
import re

import numpy as np
import pandas as pd
import pytest

import accord
from accord.report._blocks import fmt, fmt_int
from accord.report._context import Context
from accord.report.sections.ranks import build_ranks

pytest.importorskip("jinja2")


def _grades(seed: int = 2, n_items: int = 25, n_raters: int = 4) -> pd.DataFrame:
    """Four raters grade each item 1 to 5 around a shared quality."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(0, 1, n_items)
    rows = [
        {"item": i, "rater": f"r{j}",
         "grade": int(np.clip(np.round(3 + quality[i] + rng.normal(0, 0.7)), 1, 5))}
        for i in range(n_items) for j in range(n_raters)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def _text(page_html: str, anchor: str) -> str:
    text = html_module.unescape(page_html.split(f'id="{anchor}"', 1)[1].split("<section", 1)[0])
    return re.sub(r"\s+", " ", re.sub(r"<[a-z/][^>]*>", " ", text))


def test_complete_ordinal_rankings_show_the_library_w() -> None:
    frame = _grades()
    page = accord.report(
        frame,
        item="item",
        rater="rater",
        label="grade",
        level="ordinal",
        progress=False,
        inference=accord.Inference(n_boot=100),
    )
    assert "ranks" in page.sections
    section = _text(page.html, "ranks")
    ratings = accord.Ratings.from_long(frame, item="item", rater="rater", label="grade",
                                       level="ordinal")  # fmt: skip
    w = accord.kendall_w(ratings)
    assert f"Kendall's W = {fmt(w.statistic)} over {fmt_int(w.n_items)} items" in section
    assert f"chi-square({w.df}) = {fmt(w.chi_square)}" in section
    assert f"mean Spearman {fmt(w.mean_spearman)}" in section
    assert f"F = {fmt(w.f_statistic)}" in section
    ctx = Context(ratings=ratings, frame=None, item="item", rater="rater", label="grade")
    assert build_ranks(ctx) is not None
    assert ctx._cache["kendall_w"].statistic == pytest.approx(w.statistic, rel=1e-12)
    assert ctx._cache["kendall_w"].chi_square == pytest.approx(w.chi_square, rel=1e-12)
    # the same W as the matrix of scores: an independent path (the items x raters array)
    wide = frame.pivot(index="item", columns="rater", values="grade").to_numpy(dtype=float)
    assert accord.kendall_w(wide).statistic == pytest.approx(w.statistic, rel=1e-12)
    methods = html_module.unescape(page.html.split('id="methods"', 1)[1])
    assert "Kendall, M. G., & Babington Smith, B. (1939)" in methods


def test_incomplete_or_nominal_ratings_have_no_rank_section() -> None:
    frame = _grades()
    gaps = frame.drop(index=[3]).reset_index(drop=True)
    fast = accord.Inference(n_boot=100)
    kw = {"item": "item", "rater": "rater", "label": "grade", "inference": fast, "progress": False}
    assert "ranks" not in accord.report(gaps, level="ordinal", **kw).sections  # type: ignore[arg-type]
    assert "ranks" not in accord.report(frame, level="nominal", **kw).sections  # type: ignore[arg-type]


def test_two_raters_have_no_rank_section() -> None:
    # two raters: W = (1 + Spearman) / 2, already in the two-rater section's terms
    frame = _grades(n_raters=2)
    page = accord.report(
        frame,
        item="item",
        rater="rater",
        label="grade",
        level="ordinal",
        progress=False,
        inference=accord.Inference(n_boot=100),
    )
    assert "ranks" not in page.sections
