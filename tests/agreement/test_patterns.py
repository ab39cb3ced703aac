"""Many-raters coefficients on compressed item counts (count patterns with multiplicities).

Every coefficient that is a function of the item x category counts must give on the distinct
count rows, weighted by how many items share each, what it gives on one row per item.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import accord
from accord import DegenerateDataWarning, InvalidInputError
from accord.agreement import _counts
from accord.agreement import many_raters as mr
from accord.stats.patterns import CountPatterns

from ..strategies import long_ratings

TOL = dict(rel_tol=1e-12, abs_tol=1e-12)

#: Coefficient fields compared between compressed and expanded data.
FIELDS = (
    "statistic",
    "standard_error",
    "standard_error_null",
    "observed_agreement",
    "chance_agreement",
    "population_size",
)
EXACT = ("name", "n_items", "n_items_unpairable", "n_raters", "categories", "weights", "reason")

#: (label, function, options) of every coefficient computed from item counts.
COUNT_COEFFICIENTS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    ("percent identity", mr.percent_agreement, {}),
    ("percent quadratic", mr.percent_agreement, {"weights": "quadratic"}),
    ("fleiss identity", mr.fleiss_kappa, {}),
    ("fleiss quadratic", mr.fleiss_kappa, {"weights": "quadratic"}),
    ("gwet_ac1", mr.gwet_ac1, {}),
    ("gwet_ac2 linear", mr.gwet_ac2, {"weights": "linear"}),
    ("gwet_ac2 quadratic", mr.gwet_ac2, {"weights": "quadratic"}),
    ("brennan_prediger", mr.brennan_prediger, {}),
    ("brennan_prediger quadratic", mr.brennan_prediger, {"weights": "quadratic"}),
    ("alpha nominal", mr.krippendorff_alpha, {"level": "nominal"}),
    ("alpha ordinal", mr.krippendorff_alpha, {"level": "ordinal"}),
    ("alpha interval", mr.krippendorff_alpha, {"level": "interval"}),
    ("alpha ratio", mr.krippendorff_alpha, {"level": "ratio"}),
    ("alpha quadratic weights", mr.krippendorff_alpha, {"weights": "quadratic"}),
    (
        "alpha distance",
        mr.krippendorff_alpha,
        {"distance": lambda x, y: np.abs(x - y) ** 1.5},
    ),
]


def _quiet(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return fn(*args, **kwargs)


def _close(a: float, b: float, scale: float = 1.0) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=TOL["rel_tol"] * scale, abs_tol=TOL["abs_tol"] * scale)


def _conditioning(pe: float) -> float:
    """How much ``(p_a - p_e) / (1 - p_e)`` amplifies rounding in its inputs, beyond 100.

    A change ``e`` in ``p_e`` moves the statistic by about ``e (1 - p_a) / (1 - p_e)^2``: the
    two summation orders (patterns, items) agree to 1e-12 while ``(1 - p_e)^-2 <= 100``, and
    to 1e-12 times the excess past that (weights close to 1 make ``1 - p_e`` tiny).
    """
    if not math.isfinite(pe) or pe >= 1.0:
        return 1.0
    return max(1.0, (1.0 - pe) ** -2 / 100.0)


def _assert_same(got: Any, want: Any, label: str) -> None:
    """Compressed result ``got`` equals expanded result ``want`` (1e-12)."""
    for name in EXACT:
        assert getattr(got, name) == getattr(want, name), (label, name)
    scale = _conditioning(float(want.chance_agreement))
    for name in FIELDS:
        a, b = float(getattr(got, name)), float(getattr(want, name))
        tol = scale if name in ("statistic", "standard_error", "standard_error_null") else 1.0
        assert _close(a, b, tol), (label, name, a, b)
    for level in (0.9, 0.95):
        ci_got, ci_want = got.confidence_interval(level), want.confidence_interval(level)
        assert _close(ci_got.low, ci_want.low, scale), (label, "ci low", ci_got, ci_want)
        assert _close(ci_got.high, ci_want.high, scale), (label, "ci high", ci_got, ci_want)
    if hasattr(want, "per_category"):
        pg, pw = got.per_category, want.per_category
        assert list(pg["category"]) == list(pw["category"]), label
        for col in ("proportion", "kappa"):
            for a, b in zip(pg[col], pw[col], strict=True):
                assert _close(float(a), float(b)), (label, col, a, b)


@st.composite
def item_counts(draw: st.DrawFn) -> tuple[np.ndarray, list[float]]:
    """Item x category counts with repeated rows (few distinct patterns), items with one
    rating, unequal totals and unused categories; numeric category values (>= 0)."""
    q = draw(st.integers(2, 6))
    n_patterns = draw(st.integers(1, 6))
    patterns = []
    for _ in range(n_patterns):
        total = draw(st.integers(1, 6))
        labels = draw(
            st.lists(st.integers(0, q - 1), min_size=total, max_size=total)
            if draw(st.booleans())
            else st.lists(st.integers(0, max(0, q - 2)), min_size=total, max_size=total)
        )
        patterns.append(np.bincount(labels, minlength=q))
    picks = draw(st.lists(st.integers(0, n_patterns - 1), min_size=1, max_size=25))
    counts = np.array([patterns[i] for i in picks], dtype=np.int64)
    values = draw(st.lists(st.integers(0, 30), min_size=q, max_size=q, unique=True).map(sorted))
    return counts, [float(v) for v in values]


def _packed(counts: Any, values: Any = None) -> _counts.CountsView:
    """The count patterns of one row per item, with their multiplicities."""
    return _counts.prepare(CountPatterns.from_counts(np.asarray(counts, dtype=np.int64)), values)


def _packed_view(d: _counts.CountsView) -> _counts.CountsView:
    """The count patterns of a view of ratings (the raters, level and scale carried over;
    the rater ids do not survive the compression)."""
    c = _packed(d.counts, d.categories)
    return dataclasses.replace(
        c, n_raters=d.n_raters, level=d.level, category_values=d.category_values, ordered=d.ordered
    )


def _both(counts: np.ndarray, values: list[float]) -> tuple[_counts.CountsView, _counts.CountsView]:
    return _packed(counts, values), _counts.prepare(counts, values)


@given(item_counts(), st.sampled_from([None, 1.0, 3.5]))
def test_compressed_counts_give_the_expanded_results(
    data: tuple[np.ndarray, list[float]], population: float | None
) -> None:
    counts, values = data
    for label, fn, opts in COUNT_COEFFICIENTS:
        packed, full = _both(counts, values)
        assert packed.multiplicity is not None
        assert packed.counts.shape[0] <= full.counts.shape[0]
        size = None if population is None else population * counts.shape[0] + 0.5
        got = _quiet(fn, packed, population_size=size, **opts)
        want = _quiet(fn, full, population_size=size, **opts)
        _assert_same(got, want, label)


@given(item_counts())
def test_compressed_data_shared_across_coefficients(data: tuple[np.ndarray, list[float]]) -> None:
    """One compressed data set (its cache shared, as :func:`accord.agreement` does) gives
    every coefficient as its own expanded data does."""
    counts, values = data
    packed, full = _both(counts, values)
    for label, fn, opts in COUNT_COEFFICIENTS:
        _assert_same(_quiet(fn, packed, **opts), _quiet(fn, full, **opts), label)


def test_pattern_view_fields() -> None:
    counts = np.array([[2, 1, 0], [0, 3, 0], [2, 1, 0], [1, 0, 1], [1, 0, 1], [0, 3, 0]])
    d = _counts.prepare(counts)
    c = _packed(counts)
    assert c.counts.dtype == d.counts.dtype
    assert c.multiplicity is not None and c.multiplicity.dtype == np.float64
    assert c.item_pattern is not None and c.item_pattern.dtype == np.int64
    assert c.counts.shape == (3, 3)
    assert c.multiplicity.sum() == 6
    np.testing.assert_array_equal(c.counts[c.item_pattern], counts)
    assert c.ratings is None and c.item_row is None
    assert (c.categories, c.n_raters, c.level) == (d.categories, d.n_raters, d.level)
    assert _counts.prepare(c) is c
    # Without compression every row is one item: multiplicity 1, rows in item order.
    assert d.mult.is_unit and d.items.n == 6
    np.testing.assert_array_equal(d.item_rows, np.arange(6))


def test_hand_made_patterns_equal_their_rows() -> None:
    """Three patterns with multiplicities 2, 1 and 3 against the six rows they stand for."""
    patterns = np.array([[2, 1, 0], [0, 3, 0], [1, 0, 1]], dtype=np.int64)
    mult = np.array([2.0, 1.0, 3.0])
    rows = np.repeat(patterns, [2, 1, 3], axis=0)
    full = _counts.prepare(rows)
    packed = _counts.CountsView(
        patterns,
        full.categories,
        full.n_raters,
        "nominal",
        full.category_values,
        None,
        None,
        multiplicity=mult,
        item_pattern=np.array([0, 0, 1, 2, 2, 2], dtype=np.int64),
    )
    # p_a by hand: (2 * 1/3 + 1 * 1 + 3 * 0) / 6 items, all pairable.
    res = mr.percent_agreement(packed)
    assert math.isclose(res.statistic, 5.0 / 18.0, rel_tol=1e-14)
    assert (res.n_items, res.n_items_unpairable) == (6, 0)
    for label, fn, opts in COUNT_COEFFICIENTS:
        _assert_same(_quiet(fn, packed, **opts), _quiet(fn, rows, **opts), label)


def test_unpairable_patterns_count_their_items() -> None:
    """Items with one rating count once per item in n_items_unpairable (and in n)."""
    rows = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [2, 0], [1, 1], [1, 1]])
    packed = _packed(rows)
    for label, fn, opts in COUNT_COEFFICIENTS:
        got, want = _quiet(fn, packed, **opts), _quiet(fn, rows, **opts)
        _assert_same(got, want, label)
        assert got.n_items_unpairable == 4 and got.n_items == (3 if "alpha" in label else 7)


def test_many_categories_interval_alpha() -> None:
    """More than 64 categories: the per-item sums come from the counts, not the ratings."""
    rng = np.random.default_rng(3)
    n_items, n_raters = 40, 4
    labels = rng.integers(0, 70, size=(n_items, n_raters)).astype(float)
    labels[rng.random(labels.shape) < 0.2] = np.nan
    labels[:10] = labels[10:20]  # repeated patterns
    r = accord.Ratings.from_wide(labels, level="interval", categories=[float(v) for v in range(70)])
    d = _counts.prepare(r)
    assert d.counts.shape[1] > 64
    packed = _packed_view(d)
    for level in ("interval", "ordinal", "nominal"):
        _assert_same(
            mr.krippendorff_alpha(packed, level=level),
            mr.krippendorff_alpha(d, level=level),
            level,
        )


# ------------------------------------------------------------------ Conger's kappa


def _conger_compressed(d: _counts.CountsView) -> _counts.CountsView:
    """Compressed data whose Conger terms come from an 'engine' (as _engine.py sets them):
    per-item ``pe_i`` in item-code order, computed on the ratings-backed data."""

    def conger(w: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        pe_i, p, pe, _ = mr._conger_parts(d, w)
        return pe_i, p, pe

    return dataclasses.replace(_packed_view(d), conger=conger)


@given(long_ratings(max_items=14, max_raters=5, max_categories=4))
def test_conger_on_compressed_counts(frame: pd.DataFrame) -> None:
    # The labels c0 < c1 < ... declared as an ordered scale: quadratic weights need one.
    order = sorted(frame["label"].unique())
    ratings = accord.Ratings.from_long(
        frame, item="item", rater="rater", label="label", level="ordinal", categories=order
    )
    d = _counts.prepare(ratings)
    packed = _conger_compressed(d)
    for w in ("identity", "quadratic"):
        got = _quiet(mr.conger_kappa, packed, weights=w)
        want = _quiet(mr.conger_kappa, d, weights=w)
        _assert_same(got, want, f"conger {w}")
        size = 2.0 * want.n_items
        got = _quiet(mr.conger_kappa, packed, weights=w, population_size=size)
        want = _quiet(mr.conger_kappa, d, weights=w, population_size=size)
        _assert_same(got, want, f"conger {w} finite population")


def test_conger_needs_item_patterns_and_terms() -> None:
    frame = pd.DataFrame(
        {
            "item": ["a", "a", "b", "b", "c", "c", "d"],
            "rater": ["x", "y", "x", "y", "x", "y", "x"],
            "label": [1, 1, 1, 2, 1, 1, 2],
        }
    )
    d = _counts.prepare(accord.Ratings.from_long(frame, item="item", rater="rater", label="label"))
    packed = _conger_compressed(d)
    assert math.isfinite(mr.conger_kappa(packed).statistic)
    no_pattern = _counts.CountsView(
        packed.counts,
        packed.categories,
        packed.n_raters,
        packed.level,
        packed.category_values,
        None,
        None,
        packed.conger,
        multiplicity=packed.multiplicity,
    )
    with pytest.raises(ValueError, match="item_pattern"):
        mr.conger_kappa(no_pattern)
    # Compressed counts with no engine terms: Conger needs rater ids.
    with pytest.raises(InvalidInputError, match="rater ids"):
        mr.conger_kappa(_packed_view(d))


# ------------------------------------------------------------------ bootstrap, bad weights


@pytest.mark.parametrize(
    ("label", "fn", "opts"), [pytest.param(*case, id=case[0]) for case in COUNT_COEFFICIENTS]
)
def test_bootstrap_on_compressed_counts_is_refused(
    label: str, fn: Callable[..., Any], opts: dict[str, Any]
) -> None:
    rows = np.array([[2, 1, 0], [0, 3, 0], [2, 1, 0], [1, 0, 1]])
    packed = _packed(rows, [1.0, 2.0, 3.0])
    with pytest.raises(InvalidInputError, match="uncompressed"):
        fn(packed, ci="bootstrap", n_boot=10, rng=0, **opts)
    assert _quiet(fn, packed, **opts).name == fn.__name__  # ci="analytic" still works


def test_conger_bootstrap_on_compressed_counts_is_refused() -> None:
    frame = pd.DataFrame(
        {"item": ["a", "a", "b", "b"], "rater": ["x", "y", "x", "y"], "label": [1, 2, 1, 1]}
    )
    d = _counts.prepare(accord.Ratings.from_long(frame, item="item", rater="rater", label="label"))
    with pytest.raises(InvalidInputError, match="uncompressed"):
        mr.conger_kappa(_conger_compressed(d), ci="bootstrap", n_boot=10, rng=0)


@pytest.mark.parametrize(
    "weights", [np.array([1.0, 2.0]), np.array([1.0, 0.0, 2.0]), np.array([1.0, 1.5, 2.0])]
)
def test_malformed_weights_are_an_internal_error(weights: np.ndarray) -> None:
    patterns = np.array([[2, 1, 0], [0, 3, 0], [1, 0, 1]], dtype=np.int64)
    d = _counts.CountsView(
        patterns, ("a", "b", "c"), 3, "nominal", np.arange(3.0), None, None, multiplicity=weights
    )
    with pytest.raises(ValueError, match="internal error"):
        mr.fleiss_kappa(d)


def test_large_counts_are_summarised_for_the_analytic_estimators(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Counts of many items (here: above a lowered threshold) are summarised by their
    # distinct rows before the analytic estimators run: same numbers to 1e-12; the
    # bootstrap keeps one row per item.
    rng = np.random.default_rng(5)
    counts = rng.multinomial(6, [0.5, 0.3, 0.2], size=400)
    counts[::7] = rng.multinomial(3, [0.2, 0.3, 0.5], size=counts[::7].shape[0])
    plain = {
        name: getattr(mr, name)(counts)
        for name in ("percent_agreement", "fleiss_kappa", "gwet_ac1", "brennan_prediger")
    }
    plain["krippendorff_alpha"] = mr.krippendorff_alpha(counts)
    monkeypatch.setattr(_counts, "COMPRESS_ITEMS", 50)
    d = _counts.prepare(counts)
    view = _counts.analytic_view(d, "analytic")
    assert view.multiplicity is not None and view.counts.shape[0] < 100
    assert _counts.analytic_view(d, "bootstrap") is d
    assert _counts.analytic_view(d, "analytic") is view  # summarised once per data
    for name, expected in plain.items():
        got = getattr(mr, name)(counts)
        assert got.n_items == expected.n_items == 400, name
        assert math.isclose(got.statistic, expected.statistic, rel_tol=1e-12), name
        assert math.isclose(got.standard_error, expected.standard_error, rel_tol=1e-12), name
    boot = mr.fleiss_kappa(counts, ci="bootstrap", n_boot=50, rng=0)
    assert math.isclose(boot.statistic, plain["fleiss_kappa"].statistic, rel_tol=1e-12)
