"""The Dawid-Skene bootstrap in blocks of resamples (accord.truth._batched) against the
one-resample-at-a-time loop it replaces: the same draws, the same refits, the same
replicates to floating-point rounding (the loop is the independent computation: each
resample's own design, refitted by the EM of accord.truth._em)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from accord.truth import _batched
from accord.truth._design import design_from_codes
from accord.truth._em import Options, fit_em
from accord.truth._quality import bootstrap, bootstrap_loop

from .test_rater_models import draw


def _design(n_items: int, n_raters: int, q: int, seed: int, density: float, gold: int = 0):
    ratings, _, truth = draw("dawid-skene", n_items, n_raters, q, seed, density)
    known = np.full(ratings.n_items, -1, dtype=np.int64)
    known[:gold] = truth[ratings.items[:gold].astype(np.int64)] if gold else known[:0]
    # a rater with two ratings only: absent from many resamples (NaN there)
    item = np.concatenate([ratings.item_codes, [0, 1]])
    rater = np.concatenate([ratings.rater_codes, [ratings.n_raters, ratings.n_raters]])
    label = np.concatenate([ratings.label_codes, [0, 1]])
    return design_from_codes(item, rater, label, n_items=ratings.n_items,
                             n_raters=ratings.n_raters + 1, q=q, gold=known)  # fmt: skip


CASES = [
    pytest.param(dict(n_items=40, n_raters=4, q=2, seed=1, density=0.8), Options(), id="q2"),
    pytest.param(
        dict(n_items=30, n_raters=5, q=4, seed=2, density=0.5, gold=6), Options(), id="gold"
    ),
    pytest.param(
        dict(n_items=25, n_raters=3, q=3, seed=3, density=0.9),
        Options(smoothing=0.5, tol=1e-6),
        id="smoothing",
    ),
    pytest.param(
        dict(n_items=30, n_raters=4, q=3, seed=6, density=0.8),
        Options(max_iter=3),
        id="iteration-limit",
    ),
]


@pytest.mark.parametrize(("shape", "options"), CASES)
def test_blocks_give_the_replicates_of_the_loop(shape, options, monkeypatch) -> None:
    design = _design(**shape)
    fit = fit_em(design, "dawid-skene", options, warn=False)
    monkeypatch.setattr(_batched, "BLOCK_CELLS", 7 * design.n_items * design.q)  # 7 a block
    blocks = bootstrap(design, fit, "dawid-skene", options, 30, np.random.default_rng(5))
    loop = bootstrap_loop(design, fit, "dawid-skene", options, 30, np.random.default_rng(5))
    assert blocks.raters.keys() == loop.raters.keys()
    for key, value in loop.raters.items():
        assert_allclose(blocks.raters[key], value, rtol=0, atol=1e-10, err_msg=key)
    for key, value in loop.agreement.items():
        assert_allclose(blocks.agreement[key], value, rtol=0, atol=1e-10, err_msg=key)
    assert_allclose(blocks.items, loop.items, rtol=0, atol=1e-10)
    assert np.isnan(loop.raters["accuracy"][:, -1]).any()  # the sparse rater was missed
