"""``agreement``: every coefficient that applies to the data, in one table."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._errors import InvalidInputError
from .._results import Coefficient
from .._types import RngLike
from ..ratings import Ratings
from . import many_raters as mr
from .icc import icc
from .inference import CIKind, check_ci
from .pairwise import light_kappa

__all__ = ["COEFFICIENTS", "AgreementTable", "agreement"]

#: Names ``agreement(coefficients=...)`` accepts.
COEFFICIENTS: tuple[str, ...] = (
    "percent_agreement",
    "fleiss_kappa",
    "conger_kappa",
    "light_kappa",
    "brennan_prediger",
    "gwet_ac1",
    "gwet_ac2",
    "krippendorff_alpha",
    "icc",
)


@dataclasses.dataclass(frozen=True, slots=True)
class AgreementTable:
    """Every applicable coefficient for one data set.

    Attributes
    ----------
    coefficients : tuple of Coefficient
        In display order; weighted variants follow the unweighted ones.
    level : str
        The level of measurement of the data.
    ci : {"analytic", "bootstrap"}
        How the intervals of :meth:`to_frame` are computed (bootstrap: BCa).
    """

    coefficients: tuple[Coefficient, ...]
    level: str
    ci: str = "analytic"

    def interval(self, coef: Coefficient, level: float = 0.95) -> tuple[float, float, str]:
        """The interval of one coefficient under this table's ``ci`` choice, and its name."""
        if self.ci == "bootstrap" and coef.replicates is not None:
            ci = coef.confidence_interval(level, method="bca")
            return ci.low, ci.high, f"BCa bootstrap over items ({coef.replicates.size} replicates)"
        ci = coef.confidence_interval(level)
        d = coef.to_dict(level)
        return ci.low, ci.high, str(d["ci_method"])

    def to_frame(self, level: float = 0.95) -> pd.DataFrame:
        """One row per coefficient: name, weights, statistic, SE, interval, p-value, sizes."""
        rows = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for c in self.coefficients:
                d = c.to_dict(level)
                low, high, how = self.interval(c, level)
                d.update(ci_low=low, ci_high=high, ci_method=how)
                rows.append(d)
        return pd.DataFrame(rows)

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Plain dict: the level and one dict per coefficient."""
        from .._results import to_plain

        return {"level": self.level, "ci": self.ci, "coefficients": to_plain(self.to_frame(level))}


def agreement(
    data: Ratings | Any,
    *,
    coefficients: Sequence[str] | None = None,
    weights: mr.WeightsLike | None = None,
    categories: Any = None,
    population_size: float | None = None,
    ci: CIKind = "analytic",
    n_boot: int = 2000,
    rng: RngLike = None,
) -> AgreementTable:
    """Every agreement coefficient that applies to the data's level, in one table.

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts or array_like of shape (n_items, q)
        Ratings (all coefficients), or item x category counts (those computable from counts:
        not Conger, Light or the ICC).
    coefficients : sequence of str, optional
        A subset of :data:`COEFFICIENTS`; default all that apply.
    weights : str or array_like of shape (q, q), optional
        Weights of the weighted rows. Default: none for nominal data, ``"quadratic"`` for
        ordinal, interval and ratio data.
    categories : sequence, optional
        Category names for an array of counts.
    population_size : float, optional
        Items in the population (finite-population correction).
    ci : {"analytic", "bootstrap"}, default "analytic"
        ``"bootstrap"`` resamples items ``n_boot`` times for every coefficient and the
        table's intervals become BCa intervals.
    n_boot : int, default 2000
    rng : Generator, int or None

    Returns
    -------
    AgreementTable
        ``coefficients`` and :meth:`AgreementTable.to_frame`.

    Notes
    -----
    Nominal: percent agreement, Fleiss, Conger, Light, Brennan-Prediger, AC1 and
    Krippendorff's alpha (nominal). Ordinal, interval and ratio add the weighted percent
    agreement, Fleiss, Conger and Brennan-Prediger, AC2 and alpha at the data's level;
    interval and ratio add the single-rater ICCs (complete items only). The item counts are
    computed once and shared.

    Examples
    --------
    >>> import accord
    >>> r = accord.read_ratings("examples/diagnoses.csv", item="patient", rater="rater",
    ...                         label="diagnosis")  # doctest: +SKIP
    >>> agreement(r).to_frame()[["name", "statistic"]]  # doctest: +SKIP
    """
    check_ci(ci, n_boot, "agreement")
    wanted = set(COEFFICIENTS if coefficients is None else coefficients)
    unknown = wanted - set(COEFFICIENTS)
    if unknown:
        raise InvalidInputError(
            f"The 'coefficients' parameter of agreement must name some of "
            f"{{{', '.join(repr(c) for c in COEFFICIENTS)}}}. Got {sorted(unknown)!r} instead."
        )
    is_ratings = isinstance(data, Ratings)
    d: Any = mr._prepare(data, categories, "agreement")
    level = d.level
    if weights is None and level != "nominal":
        weights = "quadratic"
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    opts: dict[str, Any] = dict(population_size=population_size, ci=ci, n_boot=n_boot, rng=gen)
    out: list[Coefficient] = []
    variants: list[Any] = ["identity"] + ([weights] if weights is not None else [])
    for w in variants:
        weighted = not (isinstance(w, str) and w == "identity")
        if "percent_agreement" in wanted:
            out.append(mr.percent_agreement(d, weights=w, **opts))
        if "fleiss_kappa" in wanted:
            out.append(mr.fleiss_kappa(d, weights=w, **opts))
        if "conger_kappa" in wanted and is_ratings:
            out.append(mr.conger_kappa(d, weights=w, **opts))
        if "light_kappa" in wanted and is_ratings and not weighted:
            out.append(light_kappa(data, ci=ci, n_boot=n_boot, rng=gen))
        if "brennan_prediger" in wanted:
            out.append(mr.brennan_prediger(d, weights=w, **opts))
        if "gwet_ac1" in wanted and not weighted:
            out.append(mr.gwet_ac1(d, **opts))
        if "gwet_ac2" in wanted and weighted:
            out.append(mr.gwet_ac2(d, weights=w, **opts))
    if "krippendorff_alpha" in wanted:
        out.append(mr.krippendorff_alpha(d, level="nominal", **opts))
        if level != "nominal":
            out.append(mr.krippendorff_alpha(d, level=level, **opts))
    if "icc" in wanted and is_ratings and level in ("interval", "ratio"):
        res = icc(data)
        out.extend(res.forms[:3])
    return AgreementTable(tuple(out), level, ci)
