"""Benchmark scales and the probability that a coefficient lies in each band.

One place for the benchmark bands that accord reads coefficients against: Landis & Koch
(1977), Fleiss (1981), Altman (1991) for kappa-type coefficients, Koo & Li (2016) for the ICC
and Krippendorff's (2004) smallest acceptable alphas. The verdict words
(:mod:`accord._verdict`) and :meth:`accord.Coefficient.benchmark` both read them from here.

Benchmarking with uncertainty follows Gwet (2014, ch. 6): the true coefficient is taken to
follow a normal distribution centred on the estimate with its standard error, truncated to
``[-1, 1]``; each band's membership probability is the mass it receives, the cumulative
probability of a band is the mass of that band and every band above it, and the benchmark
retained is the highest band whose cumulative probability reaches the level (0.95). With
bootstrap replicates, the membership probabilities are the shares of replicates in each band
(Hayes & Krippendorff 2007: ``q = P(alpha < alpha_min)`` is the share below the smallest
acceptable alpha).

Only the standard library at import (the t distribution is fetched from
:mod:`accord._interval` when asked for), so that the verdict module stays light.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import Literal, NamedTuple, TypeAlias

from ._errors import InvalidInputError, bad_parameter
from ._interval import check_level, t_sf

__all__ = [
    "ALTMAN",
    "FLEISS",
    "KOO_LI",
    "KRIPPENDORFF",
    "LANDIS_KOCH",
    "SCALES",
    "Band",
    "Distribution",
    "Scale",
    "ScaleLike",
    "band_name",
    "check_scale",
    "membership",
    "pick",
]

Distribution: TypeAlias = Literal["normal", "t", "bootstrap"]
"""The distribution of the true coefficient: normal or Student's t (``n_items - 1`` df) with
the standard error, or the bootstrap replicates."""


class Scale(NamedTuple):
    """A benchmark scale: its bands from the bottom up.

    Attributes
    ----------
    key : str
        The name ``benchmark(scale=...)`` takes, e.g. ``"landis-koch"``.
    source : str
        Who proposed it, e.g. ``"Landis & Koch"``.
    below : str
        The name of the lowest band (under the first edge).
    edges : tuple of (float, str)
        Each higher band's lower edge (inclusive) and name, ascending.
    """

    key: str
    source: str
    below: str
    edges: tuple[tuple[float, str], ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The band names from the bottom up."""
        return (self.below, *(name for _, name in self.edges))


class Band(NamedTuple):
    """One band of a benchmark table: ``[low, high)`` (the top band includes ``high``), the
    probability that the true coefficient lies in it, and the cumulative probability of the
    band and every band above it."""

    name: str
    low: float
    high: float
    probability: float
    cumulative: float


#: Landis & Koch (1977), p. 165: below 0 poor, 0-0.20 slight, 0.21-0.40 fair, 0.41-0.60
#: moderate, 0.61-0.80 substantial, 0.81-1 almost perfect (lower edges inclusive here, as in
#: Gwet 2014, ch. 6).
LANDIS_KOCH = Scale(
    "landis-koch",
    "Landis & Koch",
    "poor",
    ((0.0, "slight"), (0.2, "fair"), (0.4, "moderate"), (0.6, "substantial"),
     (0.8, "almost perfect")),
)  # fmt: skip

#: Fleiss (1981), p. 218: below 0.40 poor, 0.40-0.75 intermediate to good, above 0.75
#: excellent.
FLEISS = Scale("fleiss", "Fleiss", "poor", ((0.4, "intermediate to good"), (0.75, "excellent")))

#: Altman (1991), p. 404: below 0.20 poor, 0.21-0.40 fair, 0.41-0.60 moderate, 0.61-0.80
#: good, 0.81-1.00 very good.
ALTMAN = Scale(
    "altman",
    "Altman",
    "poor",
    ((0.2, "fair"), (0.4, "moderate"), (0.6, "good"), (0.8, "very good")),
)

#: Koo & Li (2016), p. 161: below 0.5 poor, 0.5-0.75 moderate, 0.75-0.9 good, above 0.9
#: excellent (for the ICC).
KOO_LI = Scale(
    "koo-li", "Koo & Li", "poor", ((0.5, "moderate"), (0.75, "good"), (0.9, "excellent"))
)

#: Krippendorff (2004), p. 241: rely on alpha of at least 0.800; between 0.667 and 0.800 only
#: for tentative conclusions; below 0.667 not at all.
KRIPPENDORFF = Scale(
    "krippendorff", "Krippendorff", "unacceptable", ((0.667, "tentative"), (0.8, "reliable"))
)

#: The scales by the name ``benchmark(scale=...)`` takes.
SCALES: dict[str, Scale] = {s.key: s for s in (LANDIS_KOCH, FLEISS, ALTMAN, KOO_LI, KRIPPENDORFF)}

ScaleLike: TypeAlias = str | Scale | Sequence[tuple[float, str]]
"""A scale's name (a key of :data:`SCALES`), a :class:`Scale`, or ascending
``(lower edge, name)`` pairs of the bands above the lowest one."""

#: Where the true value of a chance-corrected coefficient is taken to lie (Gwet 2014, ch. 6).
RANGE = (-1.0, 1.0)


def check_scale(scale: ScaleLike, owner: str = "benchmark") -> Scale:
    """The :class:`Scale` that ``scale`` names or lists.

    Raises
    ------
    InvalidInputError
        An unknown name, or edges that are not ascending numbers inside ``(-1, 1]``.

    >>> check_scale("fleiss").names
    ('poor', 'intermediate to good', 'excellent')
    >>> check_scale([(0.667, "acceptable")]).names
    ('below 0.667', 'acceptable')
    """
    if isinstance(scale, Scale):
        return scale
    if isinstance(scale, str):
        if scale not in SCALES:
            names = ", ".join(repr(k) for k in SCALES)
            requirement = f"one of {{{names}}} or a list of (lower edge, name) pairs"
            raise InvalidInputError(bad_parameter(owner, "scale", requirement, scale))
        return SCALES[scale]
    try:
        edges = tuple((float(edge), str(name)) for edge, name in scale)
    except (TypeError, ValueError):
        requirement = "a scale's name or a list of (lower edge, name) pairs"
        raise InvalidInputError(bad_parameter(owner, "scale", requirement, scale)) from None
    values = [e for e, _ in edges]
    if (
        not edges
        or any(not (RANGE[0] < e <= RANGE[1]) for e in values)
        or any(b <= a for a, b in pairwise(values))
    ):
        raise InvalidInputError(
            f"The 'scale' parameter of {owner} needs ascending lower edges inside (-1, 1]. "
            f"Got {values!r} instead."
        )
    return Scale("custom", "custom", f"below {edges[0][0]:g}", edges)


def band_name(value: float, scale: Scale) -> str:
    """The name of the band of ``scale`` that ``value`` falls in ("undefined" for NaN).

    >>> band_name(0.43, LANDIS_KOCH), band_name(-0.1, LANDIS_KOCH), band_name(0.95, KOO_LI)
    ('moderate', 'poor', 'excellent')
    """
    if not math.isfinite(value):
        return "undefined"
    name = scale.below
    for edge, label in scale.edges:
        if value >= edge:
            name = label
    return name


def _limits(scale: Scale) -> list[tuple[str, float, float]]:
    """(name, low, high) of each band from the top down."""
    lows = [RANGE[0], *(e for e, _ in scale.edges)]
    highs = [*(e for e, _ in scale.edges), RANGE[1]]
    rows = list(zip(scale.names, lows, highs, strict=True))
    return rows[::-1]


def _cdf(x: float, statistic: float, se: float, df: float) -> float:
    """P(true <= x) under the normal (``df`` infinite) or t reference; a point mass when the
    standard error is 0."""
    if se == 0.0:
        return 1.0 if x >= statistic else 0.0
    if math.isinf(df):
        return 0.5 * math.erfc(-(x - statistic) / (se * math.sqrt(2.0)))
    return 1.0 - t_sf((x - statistic) / se, df)


def membership(
    scale: Scale,
    statistic: float,
    standard_error: float,
    *,
    df: float = math.inf,
    replicates: Sequence[float] | None = None,
) -> tuple[Band, ...]:
    """The bands of ``scale`` from the top down, each with the probability that the true
    coefficient lies in it and the cumulative probability from the top.

    With ``replicates`` the probabilities are the shares of (finite) replicates in each band;
    otherwise a normal (``df`` infinite) or t distribution centred on ``statistic`` with
    ``standard_error``, truncated to ``[-1, 1]`` (Gwet 2014, ch. 6). NaN probabilities when the
    statistic or its standard error is NaN (or no replicate is finite).

    >>> [round(b.cumulative, 5) for b in membership(FLEISS, 0.77544, 0.14295)]
    [0.54414, 0.99542, 1.0]
    """
    limits = _limits(scale)
    if replicates is not None:
        values = [float(v) for v in replicates if math.isfinite(v)]
        masses = [
            float(sum(1 for v in values if low <= v < high or (i == 0 and v >= high)))
            for i, (_, low, high) in enumerate(limits)
        ]
        # the lowest band also holds any replicate below -1
        masses[-1] += sum(1 for v in values if v < RANGE[0])
        total = float(len(values))
    elif math.isfinite(statistic) and math.isfinite(standard_error) and standard_error >= 0:
        if standard_error == 0.0:  # a point mass: the band the estimate is in
            masses = [0.0] * len(limits)
            masses[[n for n, _, _ in limits].index(band_name(statistic, scale))] = 1.0
        else:
            masses = [
                _cdf(high, statistic, standard_error, df) - _cdf(low, statistic, standard_error, df)
                for _, low, high in limits
            ]
        total = sum(masses)
    else:
        total = 0.0
        masses = [math.nan] * len(limits)
    probs = [m / total if total > 0 else math.nan for m in masses]
    out: list[Band] = []
    cumulative = 0.0
    for (name, low, high), p in zip(limits, probs, strict=True):
        cumulative += p
        out.append(Band(name, low, high, p, min(cumulative, 1.0)))
    return tuple(out)


def pick(bands: Sequence[Band], level: float) -> Band | None:
    """The highest band (``bands`` from the top down) whose cumulative probability reaches
    ``level``; None when the probabilities are NaN.

    >>> pick(membership(LANDIS_KOCH, 0.77544, 0.14295), 0.95).name
    'moderate'
    """
    check_level(level)
    for band in bands:
        if math.isnan(band.cumulative):
            return None
        # the comparison allows for rounding in the sum of the probabilities
        if band.cumulative >= level - 1e-12:
            return band
    return bands[-1] if bands else None
