"""The REML ICC reaches the maximum: lme4 side by side on designs where a single search
stopped short, and a property test that no point of a grid of variance components has a
lower REML deviance (an independent dense formula, written out here)."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from accord import DegenerateDataWarning, icc
from accord.agreement.icc_mixed import CrossedDesign, fit_reml

REF = json.loads((Path(__file__).parents[1] / "reference" / "icc_lme4.json").read_text())


def _reml_crit(frame: pd.DataFrame, s_a: float, s_b: float, s_e: float) -> float:
    """-2 log restricted likelihood of ``y = mu + a_item + b_rater + e`` (Harville 1977):
    ``log|V| + log|X'V^-1 X| + r'V^-1 r + (N - 1) log(2 pi)``, ``V = s_a Za Za' +
    s_b Zb Zb' + s_e I``, ``r = y - X beta-hat``; lme4's ``REMLcrit``."""
    y = frame.score.to_numpy(float)
    za = np.eye(int(frame.item.max()) + 1)[frame.item]
    zb = np.eye(int(frame.rater.max()) + 1)[frame.rater]
    v = s_a * za @ za.T + s_b * zb @ zb.T + s_e * np.eye(y.size)
    sign, logdet = np.linalg.slogdet(v)
    if sign <= 0:
        return math.inf
    x = np.ones((y.size, 1))
    vi = np.linalg.inv(v)
    xvx = x.T @ vi @ x
    r = y - x @ np.linalg.solve(xvx, x.T @ vi @ y)
    return float(
        logdet + np.linalg.slogdet(xvx)[1] + r @ vi @ r + (y.size - 1) * math.log(2 * math.pi)
    )


def _fit(frame: pd.DataFrame) -> tuple[float, float, float]:
    design = CrossedDesign.from_codes(frame.item.to_numpy(), frame.rater.to_numpy(),
                                      frame.score.to_numpy())  # fmt: skip
    fit = fit_reml(design, "random")
    return fit.items_variance, fit.raters_variance, fit.residual_variance


@pytest.mark.parametrize("case", REF["designs"], ids=lambda c: c["name"])
def test_matches_lme4_where_one_search_stopped_short(case: dict) -> None:
    # R: lmer(score ~ 1 + (1|item) + (1|rater), data=d, REML=TRUE) (lme4 1.1.31); the
    # values and REMLcrit(f) are in tests/reference/icc_lme4.json, with what accord returned
    # before ("before": the item variance at 0, a REML deviance above lme4's)
    frame = pd.DataFrame({k: case[k] for k in ("item", "rater", "score")})
    ours = _fit(frame)
    theirs = case["lme4_variances"]
    assert_allclose(_reml_crit(frame, *theirs), case["lme4_remlcrit"], rtol=1e-9)  # the formula
    assert _reml_crit(frame, *ours) <= case["lme4_remlcrit"] + 1e-6
    assert_allclose(ours, theirs, rtol=2e-3, atol=2e-5)
    res = icc(np.asarray(pd.pivot(frame, index="item", columns="rater", values="score"), float))
    a, b, e = theirs
    assert_allclose(res["ICC(A,1)"].statistic, a / (a + b + e), atol=2e-4)


_GRID = [0.0, 0.02, 0.1, 0.3, 1.0, 3.0]


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(3, 7),
    m=st.integers(2, 4),
    seed=st.integers(0, 2**32 - 1),
    fill=st.floats(0.5, 0.9),
    scales=st.tuples(
        *[st.sampled_from([0.0, 0.1, 1.0, 3.0])] * 2, st.sampled_from([1e-3, 0.1, 1.0])
    ),
)
def test_no_grid_point_has_a_lower_reml_deviance(
    n: int, m: int, seed: int, fill: float, scales: tuple[float, float, float]
) -> None:
    gen = np.random.default_rng(seed)
    a, b = gen.normal(0, math.sqrt(scales[0]), n), gen.normal(0, math.sqrt(scales[1]), m)
    keep = gen.uniform(size=(n, m)) < fill
    keep[np.arange(n), gen.integers(0, m, n)] = True  # every item has a score
    keep[gen.integers(0, n, m), np.arange(m)] = True  # and every rater
    items, raters = np.nonzero(keep)
    y = a[items] + b[raters] + gen.normal(0, math.sqrt(scales[2]), items.size)
    frame = pd.DataFrame({"item": items, "rater": raters, "score": y})
    assume(np.bincount(items).max() >= 2 and items.size > m + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        ours = _fit(frame)
    best = _reml_crit(frame, *ours)
    assume(math.isfinite(best))
    total = float(np.var(y))
    grid = min(
        _reml_crit(frame, total * g_a, total * g_b, total * g_e)
        for g_a in _GRID
        for g_b in _GRID
        for g_e in _GRID[1:]
    )
    assert best <= grid + 1e-6
