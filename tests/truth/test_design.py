"""The design of the rater models: the sums it reads off its count matrix are those of the
triples it stands for, to the last bit."""

from __future__ import annotations

import numpy as np
import pytest

from accord.truth._design import design_from_codes


def _codes(seed: int, n: int = 3_000, n_items: int = 400, n_raters: int = 7, q: int = 4):
    rng = np.random.default_rng(seed)
    cells = rng.choice(n_items * n_raters * q, size=n, replace=False)  # each triple once
    item, rest = np.divmod(cells, n_raters * q)
    rater, label = np.divmod(rest, q)
    weight = rng.random(n) * 3  # fractional counts: the order of the sums shows
    return item, rater, label, weight, n_items, n_raters, q


@pytest.mark.parametrize("weighted", [False, True])
def test_design_sums_are_the_bincounts_of_its_triples(weighted: bool) -> None:
    item, rater, label, weight, n_items, n_raters, q = _codes(1)
    d = design_from_codes(item, rater, label, n_items=n_items, n_raters=n_raters, q=q,
                          weight=weight if weighted else None)  # fmt: skip
    order = np.argsort(item, kind="stable")  # the triples sorted by item, ties as given
    np.testing.assert_array_equal(d.item, item[order])
    np.testing.assert_array_equal(d.rater, rater[order])
    np.testing.assert_array_equal(d.label, label[order])
    w = weight[order] if weighted else np.ones(item.size)
    np.testing.assert_array_equal(d.weight, w)
    votes = np.bincount(d.item * q + d.label, weights=w, minlength=n_items * q)
    assert np.array_equal(d.votes(), votes.reshape(n_items, q))  # bit for bit
    assert np.array_equal(
        d.ratings_per_rater(), np.bincount(d.rater, weights=w, minlength=n_raters)
    )
    assert d.unit_weights is not weighted
    resample = d.take(np.array([3, 3, 0, 7]))  # a bootstrap resample keeps unit weights unit
    assert resample.unit_weights is not weighted
    expected = np.bincount(resample.rater, weights=resample.weight, minlength=n_raters)
    assert np.array_equal(resample.ratings_per_rater(), expected)


def test_votes_without_the_indicator_table() -> None:
    item, rater, label, weight, n_items, n_raters, q = _codes(2)
    d = design_from_codes(item, rater, label, n_items=n_items, n_raters=n_raters, q=q,
                          weight=weight)  # fmt: skip
    small = d.votes()
    # raters x q x q above the ratings and 2**20: the bincount itself, no indicator table
    many = n_raters * 20_000
    assert many * q * q > max(item.size, 1 << 20)
    big = design_from_codes(item, rater, label, n_items=n_items, n_raters=many, q=q,
                            weight=weight)  # fmt: skip
    assert np.array_equal(big.votes(), small)
