"""The stable order of integer codes: numpy's stable argsort, by one sort of packed keys."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.data.order import dense_ranks, lexsort_head, lexsort_order, stable_order


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=200), st.integers(0, 3))
def test_stable_order_is_numpys_stable_argsort(codes: list[int], extra: int) -> None:
    values = np.asarray(codes, dtype=np.int64)
    bound = (max(codes) + 1 if codes else 1) + extra
    got = stable_order(values, bound)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.argsort(values, kind="stable"))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16])
def test_stable_order_of_any_integer_type(dtype: type) -> None:
    values = np.random.default_rng(3).integers(0, 100, size=5_000).astype(dtype)
    np.testing.assert_array_equal(stable_order(values, 100), np.argsort(values, kind="stable"))


def test_stable_order_beyond_63_bits_falls_back_to_the_stable_argsort() -> None:
    # codes up to 2**60 and 16 positions need 65 bits: numpy's own stable argsort
    values = np.array([2**60, 5, 2**60, 0, 5] + [7] * 11, dtype=np.int64)
    np.testing.assert_array_equal(
        stable_order(values, 2**60 + 1), np.argsort(values, kind="stable")
    )


def test_stable_order_of_nothing() -> None:
    assert stable_order(np.zeros(0, dtype=np.int64), 10).tolist() == []


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([0.0, -0.0, 0.5, 1.5, float("nan"), float("inf")]),
            st.integers(0, 3),
        ),
        max_size=120,
    )
)
def test_lexsort_order_is_numpys_lexsort(rows: list[tuple[float, int]]) -> None:
    floats = np.asarray([r[0] for r in rows], dtype=np.float64)
    ints = np.asarray([r[1] for r in rows], dtype=np.int64)
    for keys in ((floats, ints), (ints, floats), (floats,), (floats, ints, floats)):
        np.testing.assert_array_equal(lexsort_order(keys), np.lexsort(keys))


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([0.0, -0.0, 0.25, 1.0, float("nan"), -3.0]),
            st.sampled_from([0.5, 0.0, -0.0, float("nan"), 2.0]),
        ),
        max_size=60,
    ),
    st.integers(-1, 70),
)
def test_lexsort_head_is_the_head_of_numpys_lexsort(
    rows: list[tuple[float, float]], n: int
) -> None:
    # ties, NaNs (last) and signed zeros in both keys, any n: the first n of the full sort
    first = np.array([r[0] for r in rows])
    last = np.array([r[1] for r in rows])
    want = np.lexsort((first, last))[: max(n, 0)]
    assert lexsort_head((first, last), n).tolist() == want.tolist()


def test_dense_ranks_share_a_rank_among_equal_values() -> None:
    ranks, n = dense_ranks(np.array([2.0, np.nan, -0.0, 0.0, 2.0, np.nan]))
    assert ranks.tolist() == [1, 2, 0, 0, 1, 2] and n == 3
