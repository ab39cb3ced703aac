"""Gamma: the best alignment against pygamma-agreement (recorded and side by side), hand
computations, the expected disorder's sampler, and bad input."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import accord

#: pygamma-agreement's tests/data/AlexPaulSuzan.csv (bootphon/pygamma-agreement)
ALEX_PAUL_SUZAN = [
    ("Alex", "1", 2, 9), ("Alex", "2", 11, 17), ("Alex", "5", 24, 30), ("Alex", "6", 32, 36),
    ("Alex", "6", 36, 44), ("Alex", "7", 44, 60), ("Paul", "1", 2, 9), ("Paul", "3", 11, 17),
    ("Paul", "5", 19, 25), ("Paul", "6", 32, 44), ("Suzan", "1", 2, 9), ("Suzan", "4", 11, 17),
    ("Suzan", "5", 21, 27), ("Suzan", "6", 32, 36), ("Suzan", "6", 36, 40),
    ("Suzan", "6", 40, 44),
]  # fmt: skip


def frame(rows: list[tuple[str, str, int, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["annotator", "label", "start", "end"]).assign(document="d")


def gamma(df: pd.DataFrame, **kw: object) -> accord.Gamma:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return accord.gamma_agreement(df, **kw)  # type: ignore[arg-type]


def test_alex_paul_suzan_best_disorder() -> None:
    # pygamma-agreement 0.5.9: Continuum.from_csv("AlexPaulSuzan.csv").get_best_alignment(
    #   CombinedCategoricalDissimilarity(delta_empty=1, alpha=3, beta=1)).disorder
    #   = 0.96062493 (float32); its tests/test_gammas.py asserts 0.96 within 1 %
    res = gamma(frame(ALEX_PAUL_SUZAN), alpha=3, n_samples=5)
    assert res.observed == pytest.approx(0.96062493, rel=1e-6)


def test_alex_paul_suzan_gamma_with_the_shuffling_sampler() -> None:
    # pygamma-agreement tests/test_gammas.py::test_gamma_alexpaulsuzan, with its
    # ShuffleContinuumSampler (the paper's section 5.2), asserts 0.44 <= gamma <= 0.47
    res = gamma(frame(ALEX_PAUL_SUZAN), alpha=3, n_samples=100, rng=1)
    assert 0.44 <= res.statistic <= 0.47


def test_by_hand() -> None:
    # one unit each, same place, other label: together d = beta * delta = 1 (one pair of
    # annotators), apart 1 + 1; best disorder 1 / (mean units 1) = 1
    res = gamma(frame([("a", "x", 0, 4), ("b", "y", 0, 4)]), n_samples=3)
    assert res.observed == pytest.approx(1.0)
    assert res.alignment["alignment"].nunique() == 1
    # positions [0,4) and [1,4), same label: d = ((1 + 0) / 7)^2 = 1/49
    res = gamma(frame([("a", "x", 0, 4), ("b", "x", 1, 4)]), n_samples=3)
    assert res.observed == pytest.approx(1 / 49)
    # identical annotators: no disorder, gamma 1
    rows = [("a", "x", 0, 4), ("a", "y", 6, 9), ("b", "x", 0, 4), ("b", "y", 6, 9)]
    res = gamma(frame(rows), n_samples=10)
    assert res.observed == 0 and res.statistic == pytest.approx(1.0)


def test_seeded_and_documents_are_apart() -> None:
    one = gamma(frame(ALEX_PAUL_SUZAN), n_samples=8, rng=3)
    two = gamma(frame(ALEX_PAUL_SUZAN), n_samples=8, rng=3)
    assert one.statistic == two.statistic and one.seed == 3 and one.n_samples == 8
    a = frame([("a", "x", 0, 4), ("b", "x", 0, 4)]).assign(document="d1")
    b = frame([("a", "x", 0, 4), ("b", "y", 0, 4)]).assign(document="d2")
    res = gamma(pd.concat([a, b]), n_samples=3)
    # units of d1 and d2 never align: 0 + 1 over a mean of 2 units per annotator
    assert res.observed == pytest.approx(0.5)


def random_continuum(rng: np.random.Generator, m: int, n: int) -> pd.DataFrame:
    rows = []
    for a in range(m):
        starts = np.sort(rng.choice(200, n, replace=False))
        for s in starts:
            rows.append(
                (f"r{a}", str(rng.choice(["A", "B"])), int(s), int(s + rng.integers(1, 15)))
            )
    return frame(rows)


@pytest.mark.slow  # the first call of pygamma compiles its numba code (about 40 s)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_best_disorder_side_by_side_with_pygamma(seed: int) -> None:
    pg = pytest.importorskip("pygamma_agreement")
    from pyannote.core import Segment

    df = random_continuum(np.random.default_rng(seed), m=2 + seed % 2, n=6)
    continuum = pg.Continuum()
    for a, lab, s, e in df[["annotator", "label", "start", "end"]].itertuples(index=False):
        continuum.add(a, Segment(s, e), lab)
    dissim = pg.CombinedCategoricalDissimilarity(delta_empty=1, alpha=2, beta=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = continuum.get_best_alignment(dissim).disorder
    assert gamma(df, alpha=2, n_samples=2).observed == pytest.approx(theirs, rel=1e-5)


def test_bad_input() -> None:
    with pytest.raises(accord.InvalidInputError, match="n_samples"):
        accord.gamma_agreement(frame(ALEX_PAUL_SUZAN), n_samples=0)
    with pytest.raises(accord.InvalidInputError, match="at least two annotators"):
        accord.gamma_agreement(frame([("a", "x", 0, 4)]))
    assert math.isfinite(gamma(frame(ALEX_PAUL_SUZAN), n_samples=2).expected_sd)
