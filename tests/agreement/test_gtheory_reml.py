"""The analytic gradient of the G-study REML deviance against finite differences, and the
REML estimates against statsmodels MixedLM."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from accord.agreement.gtheory import g_study
from accord.agreement.gtheory_design import code_scores, parse_design
from accord.agreement.gtheory_reml import (
    PatternSums,
    deviance,
    deviance_gradient,
    deviance_in_variances,
    gradient_in_variances,
    pattern_sums,
)

HERE = Path(__file__).parents[1] / "reference" / "gtheory"
FACETS = {"p": "person", "r": "rater", "o": "occasion", "s": "site"}


def _sums(name: str, design: str) -> PatternSums:
    d = parse_design(design)
    frame = pd.read_csv(HERE / f"{name}.csv")
    scores = code_scores(frame, d, {f: FACETS[f] for f in d.facets}, "score")
    return pattern_sums(scores, d.effects[:-1])


def _central(f: object, x: np.ndarray, step: float) -> np.ndarray:
    """Central differences of ``f`` at ``x``, the same absolute step in each coordinate."""
    out = np.zeros(x.size)
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = step
        out[i] = (f(x + e) - f(x - e)) / (2 * step)  # type: ignore[operator]
    return out


@pytest.mark.parametrize(
    ("name", "design"),
    [("prxo_missing", "p x r x o"), ("p_ro_missing", "p x (r:o)"), ("pr_missing", "p x r")],
)
def test_deviance_gradient_matches_central_differences(name: str, design: str) -> None:
    sums = _sums(name, design)
    k = sums.block_effect.max(initial=-1) + 1
    k = max(int(k), int(sums.w_effect.max()) + 1)
    rng = np.random.default_rng(5)
    for theta in (rng.uniform(0.2, 1.5, k), np.r_[rng.uniform(0.2, 1.5, k - 1), 1e-3]):
        dev, grad = deviance_gradient(sums, theta)
        assert dev == deviance(sums, theta)[0]
        fd = _central(lambda t: deviance(sums, t)[0], theta, 1e-6)
        assert_allclose(grad, fd, rtol=1e-6, atol=1e-6)
    # the deviance is even in a relative sd at 0: its gradient there is 0
    theta = np.r_[rng.uniform(0.2, 1.5, k - 1), 0.0]
    assert deviance_gradient(sums, theta)[1][-1] == 0.0


def test_gradient_in_the_variances_matches_central_differences() -> None:
    sums = _sums("prxo_missing", "p x r x o")
    v = np.array([0.5, 0.3, 0.1, 0.25, 0.08, 0.05, 0.4])
    fd = _central(lambda x: deviance_in_variances(sums, x), v, 1e-6)
    assert_allclose(gradient_in_variances(sums, v), fd, rtol=1e-6)


def test_reml_components_match_statsmodels_mixedlm() -> None:
    import statsmodels.formula.api as smf

    frame = pd.read_csv(HERE / "pr_missing.csv")
    vc = {"person": "0 + C(person)", "rater": "0 + C(rater)"}
    # statsmodels 0.14: MixedLM with crossed effects as variance components of one group
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = smf.mixedlm(
            "score ~ 1", frame.assign(g=1), groups="g", re_formula="0", vc_formula=vc
        ).fit(reml=True)
    theirs = dict(zip(fit.model.exog_vc.names, fit.vcomp, strict=True))
    g = g_study(frame, design="p x r", facets={"p": "person", "r": "rater"})
    ours = np.array([g.variance("p"), g.variance("r"), g.variance("pr")])
    peer = np.array([theirs["person"], theirs["rater"], fit.scale])
    assert_allclose(ours, peer, rtol=1e-4)
    # the same optimum: the REML deviances at the two estimates within 1e-7
    sums = _sums("pr_missing", "p x r")
    ours_dev = deviance_in_variances(sums, ours / sums.scale)
    assert ours_dev == pytest.approx(deviance_in_variances(sums, peer / sums.scale), abs=1e-7)
