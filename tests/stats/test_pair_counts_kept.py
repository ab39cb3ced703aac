"""The rater-pair tables are counted once per Ratings: Light's kappa and the pairwise tables
read the same counts, and what a caller does to its arrays leaves the kept ones alone."""

from __future__ import annotations

import numpy as np
import pandas as pd

import accord
from accord.stats import pairs
from accord.stats.pairs import ItemGroups, PairTables, pair_agreement


def _ratings(seed: int) -> accord.Ratings:
    rng = np.random.default_rng(seed)
    wide = pd.DataFrame(rng.choice(list("xyz"), size=(60, 5)))
    return accord.Ratings.from_wide(wide.where(rng.random((60, 5)) > 0.25))


def test_tables_are_counted_once_and_equal_a_fresh_count(monkeypatch) -> None:
    r = _ratings(1)
    fresh = ItemGroups.from_ratings(r).pair_tables(r.n_raters, r.n_categories)
    assert fresh is not None
    first = pair_agreement(r)
    counted = []
    real = ItemGroups.from_ratings
    monkeypatch.setattr(
        ItemGroups, "from_ratings", lambda ratings: counted.append(1) or real(ratings)
    )
    tables = PairTables._from_pair_expansion(r)
    again = pair_agreement(r)
    assert counted == []  # both read the kept tables
    np.testing.assert_array_equal(tables.tables, fresh[1])
    np.testing.assert_array_equal(tables.pairs[:, 0] * r.n_raters + tables.pairs[:, 1], fresh[0])
    for field in ("pairs", "n", "agree", "chance"):
        np.testing.assert_array_equal(getattr(again, field), getattr(first, field))


def test_a_callers_changes_do_not_reach_the_kept_tables() -> None:
    r = _ratings(2)
    tables = PairTables._from_pair_expansion(r)
    expected = tables.tables.copy()
    tables.tables[:] = -1
    np.testing.assert_array_equal(PairTables._from_pair_expansion(r).tables, expected)


def test_large_tables_are_not_kept(monkeypatch) -> None:
    monkeypatch.setattr(pairs, "KEPT_CELLS", 0)
    r = _ratings(3)
    PairTables._from_pair_expansion(r)
    assert "rater_pair_tables" not in r.derived
