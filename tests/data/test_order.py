"""The stable order of integer codes: numpy's stable argsort, by one sort of packed keys."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.data.order import stable_order


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
