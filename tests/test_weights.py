"""Agreement weights: Gwet (2014) ch. 3 schemes, checked by hand against irrCAC's
R/weights.gen.r definitions (kgwet/irrCAC), plus validation of explicit matrices."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from accord import InvalidInputError
from accord.agreement.weights import WEIGHT_SCHEMES, agreement_weights, category_scale

# Hand computations from the irrCAC formulas (weights.gen.r) on categories 1..3 or 1..4:
HAND = {
    # 1 - (k - l)^2 / (xmax - xmin)^2
    ("quadratic", 3): [[1, 0.75, 0], [0.75, 1, 0.75], [0, 0.75, 1]],
    # 1 - |k - l| / |xmax - xmin|
    ("linear", 3): [[1, 0.5, 0], [0.5, 1, 0.5], [0, 0.5, 1]],
    # 1 - sqrt|k - l| / sqrt|xmax - xmin|: 1 - 1/sqrt(2) = 0.2928932
    ("radical", 3): [[1, 1 - 2**-0.5, 0], [1 - 2**-0.5, 1, 1 - 2**-0.5], [0, 1 - 2**-0.5, 1]],
    # 1 - ((k-l)/(k+l))^2 / ((xmax-xmin)/(xmax+xmin))^2: (1/9)/(1/4), (1/4)/(1/4), (1/25)/(1/4)
    ("ratio", 3): [[1, 5 / 9, 0], [5 / 9, 1, 21 / 25], [0, 21 / 25, 1]],
    # n_kl = |k-l| + 1, n(n-1)/2 = 0, 1, 3, 6 -> 1 - x/6
    ("ordinal", 4): [
        [1, 5 / 6, 0.5, 0],
        [5 / 6, 1, 5 / 6, 0.5],
        [0.5, 5 / 6, 1, 5 / 6],
        [0, 0.5, 5 / 6, 1],
    ],
    # sin^2(pi (k - l) / U), U = xmax - xmin + 1 = 4: 0.5, 1, 0.5 -> 1 - x / 1
    ("circular", 4): [[1, 0.5, 0, 0.5], [0.5, 1, 0.5, 0], [0, 0.5, 1, 0.5], [0.5, 0, 0.5, 1]],
    # (k-l)^2 / ((k+l-2 xmin)(2 xmax-k-l)): (1,2) 1/3, (1,3) 1, (2,3) 1/3 -> 1 - x / 1
    ("bipolar", 3): [[1, 2 / 3, 0], [2 / 3, 1, 2 / 3], [0, 2 / 3, 1]],
}


@pytest.mark.parametrize(("scheme", "q"), list(HAND))
def test_schemes_by_hand(scheme: str, q: int) -> None:
    got = agreement_weights(scheme, list(range(1, q + 1)))  # type: ignore[arg-type]
    assert_allclose(got, HAND[(scheme, q)], atol=1e-12)


@pytest.mark.parametrize("scheme", WEIGHT_SCHEMES)
def test_every_scheme_is_a_valid_agreement_matrix(scheme: str) -> None:
    w = agreement_weights(scheme, [1, 2, 4, 7, 8])  # type: ignore[arg-type]
    assert_allclose(np.diag(w), 1.0)
    assert_allclose(w, w.T)
    assert w.min() >= -1e-12 and w.max() <= 1 + 1e-12


def test_text_categories_use_positions() -> None:
    assert category_scale(["low", "mid", "high"]).tolist() == [1.0, 2.0, 3.0]
    assert_allclose(agreement_weights("linear", ["a", "b", "c"]), HAND[("linear", 3)])
    # numeric values are used as values: 1, 2, 5 -> linear spacing by value
    assert_allclose(agreement_weights("linear", [1, 2, 5])[0], [1, 0.75, 0])


def test_explicit_matrix_is_validated() -> None:
    w = [[1, 0.3], [0.3, 1]]
    assert_allclose(agreement_weights(w, ["a", "b"]), w)
    with pytest.raises(InvalidInputError, match="2 x 2"):
        agreement_weights([[1.0]], ["a", "b"])
    with pytest.raises(InvalidInputError, match="diagonal"):
        agreement_weights([[0, 1], [1, 0]], ["a", "b"])
    with pytest.raises(InvalidInputError, match=r"\[0, 1\]"):
        agreement_weights([[1, 2], [2, 1]], ["a", "b"])
    with pytest.raises(InvalidInputError, match="'weights' parameter of agreement_weights"):
        agreement_weights("quadatic", ["a", "b"])  # type: ignore[arg-type]
