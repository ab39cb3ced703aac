"""Information primitives."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from accord import InvalidInputError, conditional_entropy, entropy, mutual_information, surprisal


def test_entropy_by_hand() -> None:
    assert entropy([1, 1, 1, 1]) == 2.0
    assert entropy([0, 5]) == 0.0  # 0 log 0 = 0
    assert_allclose(entropy([1, 2, 1], base=math.e), -(0.5 * math.log(0.5) + 0.5 * math.log(0.25)))
    assert_allclose(entropy([1, 1, 1], base=3), 1.0)
    assert math.isnan(float(entropy([0, 0])))


def test_entropy_rows_and_whole() -> None:
    assert_allclose(entropy([[2, 2], [4, 0]]), [1.0, 0.0])
    assert_allclose(entropy([[1, 1], [1, 1]], axis=None), 2.0)


def test_surprisal_and_mi() -> None:
    assert surprisal(0.125) == 3.0
    assert surprisal(0.0) == math.inf
    with pytest.raises(InvalidInputError):
        surprisal(1.5)
    # Independent table: MI = 0; identity: MI = H.
    assert_allclose(mutual_information([[2, 4], [3, 6]]), 0.0, atol=1e-15)
    assert_allclose(mutual_information(np.eye(4)), 2.0)
    # By hand: H(X,Y) = H(1/4, 1/4, 1/2) = 1.5 bits, H(X) = H(1/2, 1/2) = 1 bit.
    assert_allclose(conditional_entropy([[1, 1], [0, 2]]), 0.5)


def test_bad_inputs() -> None:
    with pytest.raises(InvalidInputError, match="non-negative"):
        entropy([1, -1])
    with pytest.raises(InvalidInputError, match="log base"):
        entropy([1, 1], base=1)
    with pytest.raises(InvalidInputError, match="must be numbers"):
        entropy(["a", "b"])
    with pytest.raises(InvalidInputError, match="axis 2"):
        entropy([[1, 1]], axis=2)
    with pytest.raises(InvalidInputError, match="2-D"):
        conditional_entropy([1, 2])
    with pytest.raises(InvalidInputError, match="got nan"):
        surprisal(math.nan)


tables = st.lists(
    st.lists(st.integers(0, 20), min_size=2, max_size=4), min_size=2, max_size=4
).filter(lambda t: len({len(r) for r in t}) == 1 and sum(map(sum, t)) > 0)


@given(tables)
def test_mi_bounds_and_symmetry(table: list[list[int]]) -> None:
    arr = np.array(table)
    mi = mutual_information(arr)
    hx = float(entropy(arr.sum(axis=1)))
    hy = float(entropy(arr.sum(axis=0)))
    assert -1e-12 <= mi <= min(hx, hy) + 1e-12
    assert_allclose(mi, mutual_information(arr.T), atol=1e-12)
    # chain rule: H(Y|X) = H(Y) - I(X;Y)
    assert_allclose(conditional_entropy(arr), hy - mi, atol=1e-12)


@given(st.lists(st.integers(0, 50), min_size=1, max_size=8).filter(lambda v: sum(v) > 0))
def test_entropy_bounds_and_permutation(counts: list[int]) -> None:
    h = float(entropy(counts))
    assert -1e-12 <= h <= math.log2(len(counts)) + 1e-12
    assert_allclose(h, float(entropy(counts[::-1])), atol=1e-12)
