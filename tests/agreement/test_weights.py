"""Agreement weights: Gwet (2014) ch. 3 schemes, checked by hand against irrCAC's
R/weights.gen.r definitions (kgwet/irrCAC), plus validation of explicit matrices."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from typer.testing import CliRunner

import accord
from accord import InvalidInputError
from accord.agreement.weights import WEIGHT_SCHEMES, agreement_weights, category_scale
from accord.cli import app

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


def test_ratio_weights_follow_one_rule_on_every_path() -> None:
    # Ratio weights need category values with a true zero. A ContingencyTable built without
    # categories= has the same 0..q-1 positions as a bare array, and is refused the same way
    # (it gave 0.95319, irrCAC's ratio weights on 0..2, where irrCAC's
    # kappa2.table(cont3x3abstractors, weights = ratio.weights(1:3)) gives 0.92655).
    import accord

    bare = accord.ContingencyTable(ABSTRACTORS)
    assert not bare.categories_declared
    for data in (bare, ABSTRACTORS):
        with pytest.raises(InvalidInputError, match=r"categories=, e\.g\. categories=\[1, 2, 3\]"):
            accord.cohen_kappa(data, weights="ratio")
    assert_allclose(
        accord.cohen_kappa(bare, categories=[1, 2, 3], weights="ratio").statistic,
        0.92655,
        atol=5e-6,
    )
    # Text categories have positions, not values with a zero: refused too, on a table and
    # on label vectors; the shift-invariant schemes still take their positions.
    text = accord.ContingencyTable(ABSTRACTORS, categories=["low", "mid", "high"])
    with pytest.raises(InvalidInputError, match="ratio weights need category values that are"):
        accord.cohen_kappa(text, weights="ratio")
    with pytest.raises(InvalidInputError, match=r"not \('a', 'b'\): code the labels"):
        accord.cohen_kappa(["a", "b", "a"], ["a", "b", "b"], weights="ratio")
    assert_allclose(
        accord.cohen_kappa(text, weights="quadratic").statistic, 0.8921569, atol=5e-8
    )  # irrCAC: kappa2.table(cont3x3abstractors, weights = "quadratic")


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


# --- weights need an order: text labels of nominal ratings are only sorted alphabetically ---

_TEXT = pd.DataFrame(
    {"item": [1, 1, 2, 2, 3, 3, 4, 4], "rater": list("abababab"), "label": list("xyxzzzyy")}
)
_COLS = {"item": "item", "rater": "rater", "label": "label"}
_JUDGED = pd.DataFrame(
    {"item": [1, 1, 1, 2, 2, 2], "rater": list("abjabj"), "label": list("xyzzzy")}
)


@pytest.mark.parametrize(
    "call",
    [
        lambda r: accord.cohen_kappa(r, weights="quadratic"),
        lambda r: accord.fleiss_kappa(r, weights="linear"),
        lambda r: accord.gwet_ac2(r),  # quadratic by default
        lambda r: accord.krippendorff_alpha(r, level="ordinal"),
        lambda r: accord.agreement(r, weights="quadratic"),
        lambda r: accord.judge_agreement(
            accord.Ratings.from_long(_JUDGED, **_COLS), "j", weights="quadratic", n_boot=0
        ),
        lambda r: accord.cohen_kappa(
            r.label_codes[::2].astype(str), r.label_codes[1::2].astype(str), weights="ordinal"
        ),
    ],
)
def test_weights_on_nominal_text_labels_are_refused(call: Any) -> None:
    # On x, y, z read as nominal text the order x < y < z is the alphabet's: quadratic
    # weights would call x-z the worst disagreement (cohen_kappa 0.167 here, against 0.333
    # unweighted) for no reason the user gave. The weighted call asks for the order.
    r = accord.Ratings.from_long(_TEXT, **_COLS)
    with pytest.raises(InvalidInputError, match=r"order of the categories.* only alphabetically"):
        call(r)


def test_weights_with_an_order_someone_gave_are_computed() -> None:
    unweighted = accord.cohen_kappa(accord.Ratings.from_long(_TEXT, **_COLS)).statistic
    declared = accord.Ratings.from_long(_TEXT, **_COLS, level="ordinal", categories=list("zyx"))
    # Declared z < y < x: the table by hand (rows a, columns b): (x, y), (x, z), (z, z),
    # (y, y); quadratic weights on positions 3, 2, 1 give agreement 1 - 1/4 to (x, y), 0 to
    # (x, z): po = (0.75 + 0 + 1 + 1) / 4 = 0.6875; margins a: x 2, z 1, y 1; b: y 2, z 2.
    kappa = accord.cohen_kappa(declared, weights="quadratic")
    pa = {"z": 0.25, "y": 0.25, "x": 0.5}
    pb = {"z": 0.5, "y": 0.5, "x": 0.0}
    pos = {"z": 1, "y": 2, "x": 3}
    pe = sum(pa[i] * pb[j] * (1 - (pos[i] - pos[j]) ** 2 / 4) for i in pa for j in pb)
    assert_allclose(kappa.statistic, (0.6875 - pe) / (1 - pe), rtol=1e-12)
    numbers = _TEXT.assign(label=_TEXT["label"].map({"x": 1, "y": 2, "z": 3}))
    assert math.isfinite(accord.cohen_kappa(
        accord.Ratings.from_long(numbers, **_COLS), weights="quadratic").statistic)  # fmt: skip
    # An explicit matrix is taken as given; two categories need no order (every scheme is
    # the identity there); unweighted is unweighted.
    r = accord.Ratings.from_long(_TEXT, **_COLS)
    assert accord.cohen_kappa(r, agreement_weights=np.eye(3)).statistic == unweighted
    two = accord.Ratings.from_long(_TEXT[_TEXT["label"] != "z"], **_COLS)
    assert (
        accord.cohen_kappa(two, weights="quadratic").statistic == accord.cohen_kappa(two).statistic
    )


def test_engines_refuse_weights_on_nominal_text_alike(tmp_path: Path) -> None:
    path = tmp_path / "text.csv"
    _TEXT.to_csv(path, index=False)
    for engine in ("memory", "stream", "dask"):
        with pytest.raises(InvalidInputError, match="only alphabetically"):
            accord.agreement(str(path), engine=engine, **_COLS, weights="quadratic")
    res = CliRunner().invoke(
        app, ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "label",
              "--weights", "quadratic"],
    )  # fmt: skip
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "only alphabetically" in res.output


@pytest.mark.parametrize("scale", [1e200, 1e-300])
def test_quadratic_and_bipolar_weights_of_huge_and_tiny_values(scale: float) -> None:
    # By hand on the scale 1, 2, 4 (span 3): quadratic w = 1 - (d / 3)^2, so 8/9 for 1-2,
    # 5/9 for 2-4 and 0 for 1-4; the weights are scale free, whatever the unit.
    values = [1 * scale, 2 * scale, 4 * scale]
    quadratic = agreement_weights("quadratic", values)
    expected = np.array([[1, 8 / 9, 0], [8 / 9, 1, 5 / 9], [0, 5 / 9, 1]])
    assert_allclose(quadratic, expected, rtol=1e-12)
    assert_allclose(
        agreement_weights("bipolar", values), agreement_weights("bipolar", [1, 2, 4]), rtol=1e-12
    )
