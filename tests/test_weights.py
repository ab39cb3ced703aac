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


# irrCAC data cont3x3abstractors (100 items, 2 raters), categories 1..3.
ABSTRACTORS = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]


def _kappa_by_hand(table: list[list[int]], w: np.ndarray) -> float:
    p = np.asarray(table, dtype=float) / np.sum(table)
    pa = float(np.sum(w * p))
    pe = float(p.sum(1) @ w @ p.sum(0))
    return (pa - pe) / (1 - pe)


def test_ratio_weights_on_a_bare_table_ask_for_the_categories() -> None:
    # A bare q x q array has no category values: its default 0..q-1 would put the ratio
    # metric's origin on the first category (0.95319 instead of 0.92655).
    import accord

    for fn in (accord.cohen_kappa, accord.scott_pi):
        with pytest.raises(InvalidInputError, match=r"categories=, e\.g\. categories=\[1, 2, 3\]"):
            fn(ABSTRACTORS, weights="ratio")
    counts = [[2, 0, 0], [0, 1, 1], [0, 0, 2]]
    for fn2 in (accord.fleiss_kappa, accord.gwet_ac2, accord.brennan_prediger,
                accord.percent_agreement):  # fmt: skip
        with pytest.raises(InvalidInputError, match="ratio weights depend on where 0 is"):
            fn2(counts, weights="ratio")
    with pytest.raises(InvalidInputError, match="ratio weights depend on where 0 is"):
        accord.krippendorff_alpha(counts, weights="ratio")


def test_ratio_weights_with_declared_categories_match_irrcac() -> None:
    # irrCAC (R 1.4): kappa2.table(cont3x3abstractors, weights = ratio.weights(1:3))
    # = 0.92655; by hand below with the ratio weights of weights.gen.r on 1..3.
    import accord

    w = np.asarray(HAND[("ratio", 3)], dtype=float)
    res = accord.cohen_kappa(ABSTRACTORS, categories=[1, 2, 3], weights="ratio")
    assert_allclose(res.statistic, _kappa_by_hand(ABSTRACTORS, w), rtol=1e-12)
    assert_allclose(res.statistic, 0.92655, atol=5e-6)
    # A table that carries its categories, and label vectors, are declared.
    t = accord.ContingencyTable(ABSTRACTORS, categories=[1, 2, 3])
    assert_allclose(accord.cohen_kappa(t, weights="ratio").statistic, res.statistic)
    counts = [[2, 0, 0], [0, 1, 1], [0, 0, 2]]
    assert np.isfinite(accord.fleiss_kappa(counts, categories=[1, 2, 3], weights="ratio").statistic)


@pytest.mark.parametrize("scheme", ["linear", "quadratic", "radical", "circular", "bipolar"])
def test_shift_invariant_schemes_need_no_declared_origin(scheme: str) -> None:
    # These weights depend only on differences and on the ends of the scale: 0..q-1 and
    # 1..q give the same matrix, so a bare table is no error for them.
    assert_allclose(
        agreement_weights(scheme, [0, 1, 2, 3]), agreement_weights(scheme, [1, 2, 3, 4])
    )
    assert_allclose(
        agreement_weights(scheme, [0, 1, 2, 3], declared=False),
        agreement_weights(scheme, [10, 11, 12, 13]),
    )


def test_weights_none_means_unweighted_everywhere() -> None:
    import accord

    counts = [[3, 0], [1, 2], [0, 3], [2, 1]]
    r = accord.Ratings.from_wide([[1, 1, 2], [2, 2, 2], [1, 2, 1], [1, 1, 1]])
    for fn in (accord.fleiss_kappa, accord.brennan_prediger, accord.percent_agreement):
        assert_allclose(fn(counts, weights=None).statistic, fn(counts).statistic)
        assert fn(counts, weights=None).weights == "identity"
    assert_allclose(
        accord.conger_kappa(r, weights=None).statistic, accord.conger_kappa(r).statistic
    )
    # AC2 unweighted is AC1.
    assert_allclose(accord.gwet_ac2(counts, weights=None).statistic,
                    accord.gwet_ac1(counts).statistic)  # fmt: skip
    t = [[10, 2], [3, 5]]
    assert_allclose(accord.cohen_kappa(t, weights=None).statistic, accord.cohen_kappa(t).statistic)
