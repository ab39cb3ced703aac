"""Generate panels from the calibration model, to see what calibration buys on a design."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pandas as pd

from .._errors import InvalidInputError
from .._results import Result, to_plain
from .._types import FloatArray, IntArray, RngLike, as_generator

__all__ = ["SimulatedPanel", "simulate_panel"]


@dataclasses.dataclass(frozen=True, slots=True)
class SimulatedPanel(Result):
    """Result of :func:`simulate_panel`.

    Attributes
    ----------
    assessments : pandas.DataFrame
        One row per assessment: ``item`` and ``rater`` (integer ids), ``score``, ``sigma`` (the
        declared noise standard deviation: the true one divided by the rater's
        ``rater_noise``), ``confidence`` (``1 / sigma^2``),
        ``level`` (``"H"``, ``"M"`` or ``"L"``: ``sigma`` below, within or above a factor
        ``sqrt(level_factor)`` of ``noise_sd``).
    values : ndarray, shape (n_items,)
        True item values ``v``.
    biases : ndarray, shape (n_raters,)
        True rater biases ``b`` (centred: they sum to 0, the default gauge).
    rater_noise : ndarray, shape (n_raters,)
        Each rater's noise multiplier (1 unless ``rater_noise_spread`` > 0).
    n_groups, bridges : int
        The design's communities and the cross-community assessments that link them.
    """

    assessments: pd.DataFrame
    values: FloatArray
    biases: FloatArray
    rater_noise: FloatArray
    n_groups: int
    bridges: int

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of every field."""
        return {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _distinct_draws(n: int, pool: int, k: int, rng: np.random.Generator) -> IntArray:
    """``n`` rows of ``k`` distinct integers in ``[0, pool)``."""
    if pool <= 64:
        return np.argsort(rng.random((n, pool)), axis=1)[:, :k].astype(np.int64)
    out = rng.integers(0, pool, size=(n, k))
    while True:
        s = np.sort(out, axis=1)
        dup = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1)) if k > 1 else np.array([])
        if dup.size == 0:
            return out.astype(np.int64)
        out[dup] = rng.integers(0, pool, size=(dup.size, k))


def simulate_panel(
    n_items: int,
    n_raters: int,
    *,
    raters_per_item: int = 3,
    n_groups: int = 1,
    bridges: int = 0,
    value_mean: float = 0.0,
    value_sd: float = 1.0,
    bias_sd: float = 0.5,
    noise_sd: float = 0.5,
    confidence_spread: float = 0.0,
    rater_noise_spread: float = 0.0,
    level_factor: float = 1.75,
    rng: RngLike = None,
) -> SimulatedPanel:
    """Simulate a panel from ``s = v + b + sigma * eps`` on a chosen design.

    .. math::

        v_o \\sim N(\\mu, \\text{value\\_sd}^2), \\quad
        b_a \\sim N(0, \\text{bias\\_sd}^2), \\quad
        \\sigma_{ao} = \\text{noise\\_sd}\\, m_a\\,
        e^{\\text{confidence\\_spread}\\, z_{ao}}, \\quad
        s_{ao} = v_o + b_a + \\sigma_{ao} \\varepsilon_{ao},

    with ``z, eps ~ N(0, 1)`` and rater multipliers ``m_a = exp(rater_noise_spread * N(0, 1))``.

    Design: raters and items are split into ``n_groups`` communities (round robin); each item
    is scored by ``raters_per_item`` distinct raters of its community, and ``bridges`` extra
    assessments pair a random item with a random rater from another community (the first
    ``n_groups - 1`` of them chain community ``g`` to ``g + 1``, so ``bridges >= n_groups - 1``
    gives a connected design). One group gives
    a random (expander-like) design; several groups with few bridges give a weakly connected
    design, and ``bridges=0`` a disconnected one.

    Parameters
    ----------
    n_items, n_raters : int
        Panel size.
    raters_per_item : int, default 3
        Assessments per item before bridges.
    n_groups : int, default 1
        Communities of raters and items.
    bridges : int, default 0
        Extra cross-community assessments (with one group: extra random assessments).
    value_mean, value_sd : float
        Distribution of true values.
    bias_sd : float, default 0.5
        Spread of rater biases.
    noise_sd : float, default 0.5
        Typical noise standard deviation.
    confidence_spread : float, default 0
        Log-scale spread of the noise sd across assessments (0: all equal).
    rater_noise_spread : float, default 0
        Log-scale spread of per-rater noise multipliers that the declared confidences do
        *not* know about (to try ``reliability="estimate"``).
    level_factor : float, default 1.75
        Width of the H/M/L bands of the ``level`` column.
    rng : numpy.random.Generator, int or None

    Returns
    -------
    SimulatedPanel

    References
    ----------
    .. [1] MacKay, R. S., Kenna, R., Low, R. J. and Parker, S. (2017). Calibration with
       confidence: a principled method for panel assessment. Royal Society Open Science 4,
       160760. doi:10.1098/rsos.160760

    Examples
    --------
    >>> import accord
    >>> sim = accord.simulate_panel(200, 20, raters_per_item=3, bias_sd=1.0, rng=7)
    >>> fit = accord.calibrate_panel(sim.assessments, item="item", rater="rater",
    ...                              score="score", confidence="confidence")
    >>> import numpy as np
    >>> err_cal = np.sqrt(np.mean((fit.values.value - fit.values.value.mean()
    ...                            - (sim.values - sim.values.mean())) ** 2))
    >>> err_avg = np.sqrt(np.mean((fit.values.plain_mean - fit.values.plain_mean.mean()
    ...                            - (sim.values - sim.values.mean())) ** 2))
    >>> bool(err_cal < err_avg)
    True
    """
    gen = as_generator(rng)
    for name, val, low in (
        ("n_items", n_items, 1),
        ("n_raters", n_raters, 1),
        ("raters_per_item", raters_per_item, 1),
        ("n_groups", n_groups, 1),
        ("bridges", bridges, 0),
    ):
        if int(val) != val or val < low:
            raise InvalidInputError(f"{name} must be an integer >= {low}, got {val!r}")
    for name, fval in (
        ("value_sd", value_sd),
        ("bias_sd", bias_sd),
        ("noise_sd", noise_sd),
        ("confidence_spread", confidence_spread),
        ("rater_noise_spread", rater_noise_spread),
    ):
        if not (math.isfinite(fval) and fval >= 0):
            raise InvalidInputError(f"{name} must be finite and >= 0, got {fval!r}")
    if noise_sd <= 0:
        raise InvalidInputError(f"noise_sd must be positive, got {noise_sd!r}")
    if n_groups > min(n_items, n_raters):
        raise InvalidInputError("n_groups cannot exceed the number of items or raters")
    item_codes, rater_codes = _design(n_items, n_raters, raters_per_item, n_groups, bridges, gen)
    values = value_mean + value_sd * gen.standard_normal(n_items)
    biases = bias_sd * gen.standard_normal(n_raters)
    biases -= biases.mean()
    mult = np.exp(rater_noise_spread * gen.standard_normal(n_raters))
    e = item_codes.size
    sigma = noise_sd * np.exp(confidence_spread * gen.standard_normal(e))
    true_sigma = sigma * mult[rater_codes]
    score = values[item_codes] + biases[rater_codes] + true_sigma * gen.standard_normal(e)
    half = math.log(level_factor) / 2.0
    ratio = np.log(sigma / noise_sd)
    level = np.where(ratio < -half, "H", np.where(ratio > half, "L", "M"))
    frame = pd.DataFrame(
        {
            "item": item_codes,
            "rater": rater_codes,
            "score": score,
            "sigma": sigma,
            "confidence": 1.0 / sigma**2,
            "level": level,
        }
    )
    return SimulatedPanel(
        assessments=frame,
        values=values,
        biases=biases,
        rater_noise=mult,
        n_groups=int(n_groups),
        bridges=int(bridges),
    )


def _design(
    n_items: int,
    n_raters: int,
    raters_per_item: int,
    n_groups: int,
    bridges: int,
    gen: np.random.Generator,
) -> tuple[IntArray, IntArray]:
    """Item and rater codes of every assessment: ``raters_per_item`` distinct raters of each
    item's community, then the ``bridges`` (see :func:`simulate_panel`)."""
    group_raters = [np.arange(g, n_raters, n_groups) for g in range(n_groups)]
    smallest = min(r.size for r in group_raters)
    if raters_per_item > smallest:
        raise InvalidInputError(
            f"raters_per_item={raters_per_item} exceeds the {smallest} raters of the smallest group"
        )
    item_group = np.arange(n_items) % n_groups
    items_l: list[IntArray] = []
    raters_l: list[IntArray] = []
    for g in range(n_groups):
        its = np.flatnonzero(item_group == g)
        picks = _distinct_draws(its.size, group_raters[g].size, raters_per_item, gen)
        items_l.append(np.repeat(its, raters_per_item))
        raters_l.append(group_raters[g][picks].ravel())
    if bridges:
        its = gen.integers(0, n_items, size=bridges)
        if n_groups > 1:
            other = (item_group[its] + gen.integers(1, n_groups, size=bridges)) % n_groups
            # the first n_groups - 1 bridges chain the communities g -> g + 1
            chain = min(bridges, n_groups - 1)
            for g in range(chain):
                its[g] = g + n_groups * gen.integers(0, (n_items - g - 1) // n_groups + 1)
                other[g] = g + 1
            rs = np.array([gen.choice(group_raters[g]) for g in other], dtype=np.int64)
        else:
            rs = gen.integers(0, n_raters, size=bridges)
        items_l.append(its.astype(np.int64))
        raters_l.append(rs.astype(np.int64))
    return np.concatenate(items_l), np.concatenate(raters_l)
