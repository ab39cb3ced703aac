"""``agreement``: every coefficient that applies to the data, in one table."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._errors import InvalidInputError
from .._results import Coefficient, Result
from .._types import Level, Missing, RngLike
from ..data.encoder import LabelsAs
from ..data.ratings import Ratings, ReadReport
from ..engines._pages import engine_pages
from ..engines._run import Engine, Progress, check_engine, ratings_in_memory
from . import many_raters as mr
from ._engine import light_from_statistics
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
class AgreementTable(Result):
    """Every applicable coefficient for one data set.

    Attributes
    ----------
    coefficients : tuple of Coefficient
        In display order; weighted variants follow the unweighted ones.
    level : str
        The level of measurement of the data.
    ci : {"analytic", "bootstrap"}
        How the intervals of :meth:`to_frame` are computed (bootstrap: BCa).
    report : ReadReport or None
        What the stream or dask engine read (rows, ratings, missing labels); None when the
        data were given in memory (their report is on the :class:`~accord.Ratings`).
    """

    coefficients: tuple[Coefficient, ...]
    level: str
    ci: str = "analytic"
    report: ReadReport | None = None

    def interval(self, coef: Coefficient, level: float = 0.95) -> tuple[float, float, str]:
        """The interval of one coefficient under this table's ``ci`` choice, and its name."""
        if self.ci == "bootstrap" and coef.replicates is not None:
            ci = coef.confidence_interval(level, method="bca")
            return ci.low, ci.high, f"BCa bootstrap over items ({coef.replicates.size} replicates)"
        ci = coef.confidence_interval(level)
        return ci.low, ci.high, coef.ci_description

    def rows(self, level: float = 0.95) -> list[dict[str, Any]]:
        """One plain dict per coefficient (:meth:`Coefficient.to_dict`), with the interval of
        this table's ``ci`` choice."""
        rows = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for c in self.coefficients:
                d = c.to_dict(level)
                if self.ci == "bootstrap" and c.replicates is not None:
                    low, high, how = self.interval(c, level)
                    d.update(ci_low=low, ci_high=high, ci_method=how)
                rows.append(d)
        return rows

    def to_frame(self, level: float = 0.95) -> pd.DataFrame:
        """One row per coefficient: name, weights, statistic, SE, interval, p-value, sizes."""
        return pd.DataFrame(self.rows(level))

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Plain dict: the level and one dict per coefficient."""
        from .._results import to_plain

        return {"level": self.level, "ci": self.ci, "coefficients": to_plain(self.to_frame(level))}


@engine_pages
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
    engine: Engine = "memory",
    item: str | None = None,
    rater: str | None = None,
    label: str | None = None,
    level: Level = "nominal",
    missing: Missing = "omit",
    scheduler: Any = None,
    progress: Progress | None = None,
    batch_size: int = 1_000_000,
    na_values: Sequence[str] | None = None,
    labels_as: LabelsAs = "auto",
) -> AgreementTable:
    """Every agreement coefficient that applies to the data's level, in one table.

    Parameters
    ----------
    data : Ratings, ItemCategoryCounts, array_like of shape (n_items, q), or where the ratings are
        Ratings (all coefficients), or item x category counts (those computable from counts:
        not Conger, Light or the ICC). With ``engine="stream"``: a Parquet/CSV path, glob,
        folder or list of paths; with ``engine="dask"`` also a dask DataFrame (then pass
        ``item``, ``rater`` and ``label``). With the memory engine a path is read with
        :func:`accord.read_ratings`, and a long data frame (pandas, polars, pyarrow, DuckDB)
        with one row per rating is read from its ``item``, ``rater`` and ``label`` columns.
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
    engine : {"memory", "stream", "dask"}, default "memory"
        Where the sufficient statistics are computed: from data in memory, from files read
        in batches (memory bounded by the statistics), or per dask partition and
        tree-reduced. The numbers are the same (see the engines page of the docs).
    item, rater, label : str, optional
        Column names, for data that is not yet a :class:`~accord.Ratings` (a path or a frame).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement of data given as a path or a frame (``categories`` declares the
        domain).
    missing : {"omit", "raise"}, default "omit"
        Rows without a label, for data given as a path or a frame.
    na_values, labels_as
        For data read from files or frames: what counts as a missing label and how a text
        file's labels are typed, as in :meth:`accord.Ratings.from_long`.
    scheduler : str or distributed.Client, optional
        ``engine="dask"``: a scheduler name, a client or an address (``"tcp://host:8786"``).
    progress : callable, optional
        ``engine="stream"``: ``progress(rows_read, total_rows_or_None)`` after each batch.
    batch_size : int, default 1_000_000
        ``engine="stream"``: rows per batch.

    Returns
    -------
    AgreementTable
        ``coefficients`` and :meth:`AgreementTable.to_frame`.

    Notes
    -----
    Nominal: percent agreement, Fleiss, Conger, Light, Brennan-Prediger, AC1 and
    Krippendorff's alpha (nominal). Ordinal, interval and ratio add the weighted percent
    agreement, Fleiss, Conger and Brennan-Prediger, AC2 and alpha at the data's level;
    interval and ratio add the six ICCs, single rater and mean of k raters: ICC(1,1),
    ICC(A,1), ICC(C,1), ICC(1,k), ICC(A,k), ICC(C,k) (complete items only). The item counts are
    computed once and shared.

    With ``engine="stream"`` or ``"dask"`` the coefficients come from the engine's statistics:
    the item counts (and the rater counts), the rater-pair tables only when Light's kappa is
    asked for, and one more pass over the ratings for the standard error of Conger's kappa.
    The ICC (two-way ANOVA on complete items) and bootstrap intervals of Conger's and
    Light's kappa need the ratings in memory: they are left out of the default set there, and
    asking for them is an error.

    References
    ----------
    .. [1] Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
       Psychological Bulletin, 76(5), 378-382. https://doi.org/10.1037/h0031619
    .. [2] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed. Advanced
       Analytics.

    Examples
    --------
    Fleiss' (1971) psychiatric diagnoses (30 patients, 6 raters each): kappa = 0.430, as
    published there.

    >>> import accord
    >>> r = accord.read_ratings("examples/diagnoses.csv", item="patient", rater="rater",
    ...                         label="diagnosis")
    >>> table = agreement(r, coefficients=["fleiss_kappa", "percent_agreement"])
    >>> [(c.name, round(c.statistic, 3)) for c in table.coefficients]
    [('percent_agreement', 0.556), ('fleiss_kappa', 0.43)]
    """
    check_ci(ci, n_boot, "agreement")
    wanted = set(COEFFICIENTS if coefficients is None else coefficients)
    unknown = wanted - set(COEFFICIENTS)
    if unknown:
        raise InvalidInputError(
            f"The 'coefficients' parameter of agreement must name some of "
            f"{{{', '.join(repr(c) for c in COEFFICIENTS)}}}. Got {sorted(unknown)!r} instead."
        )
    check_engine(engine, "agreement")
    stats = None
    if engine != "memory":
        stats, d = _from_engine(
            data,
            engine,
            wanted=wanted,
            explicit=coefficients is not None,
            ci=ci,
            item=item,
            rater=rater,
            label=label,
            level=level,
            categories=categories,
            missing=missing,
            scheduler=scheduler,
            progress=progress,
            batch_size=batch_size,
            na_values=na_values,
            labels_as=labels_as,
        )
        if ci == "bootstrap":
            wanted -= {"conger_kappa", "light_kappa"}
        wanted.discard("icc")
    else:
        given = data
        data = ratings_in_memory(
            data,
            owner="agreement",
            item=item,
            rater=rater,
            label=label,
            level=level,
            categories=categories,
            missing=missing,
            na_values=na_values,
            labels_as=labels_as,
        )
        if data is not given:  # the categories went into the Ratings
            categories = None
    is_ratings = isinstance(data, Ratings) or stats is not None
    if stats is None:
        d = mr._prepare(data, categories, "agreement")
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
            if stats is not None:
                out.append(light_from_statistics(stats))
            else:
                out.append(light_kappa(d, ci=ci, n_boot=n_boot, rng=gen))  # shared stats
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
        out.extend(icc(data).forms)  # single and average measures, six forms
    return AgreementTable(tuple(out), level, ci, stats.report if stats is not None else None)


def _from_engine(
    data: Any,
    engine: str,
    *,
    wanted: set[str],
    explicit: bool,
    ci: str,
    **options: Any,
) -> tuple[Any, Any]:
    """Statistics from the stream or dask engine, and the estimators' view of them."""
    from ..engines._run import scan_ratings
    from ._engine import data_from_statistics

    if explicit:
        if "icc" in wanted:
            raise InvalidInputError(
                f"the ICC needs the ratings in memory (a two-way ANOVA over complete items); "
                f"leave 'icc' out of coefficients= with engine={engine!r}, or use the memory "
                "engine"
            )
        if ci == "bootstrap" and wanted & {"conger_kappa", "light_kappa"}:
            raise InvalidInputError(
                f"ci='bootstrap' with engine={engine!r} resamples items from their counts, "
                "which Conger's and Light's kappa cannot use; leave them out of "
                "coefficients= or use ci='analytic'"
            )
    # The analytic estimators need only the distinct item count rows and how many items
    # have each (the stream engine counts them directly; the dask engine's item counts are
    # summarised after); the bootstrap resamples items, so it keeps one row per item.
    by_pattern = engine == "stream" and ci == "analytic"
    statistics: tuple[str, ...] = (("patterns",) if by_pattern else ("items",)) + ("raters",)
    statistics += ("pairs",) if "light_kappa" in wanted else ()
    stats, rescan = scan_ratings(data, engine, owner="agreement", statistics=statistics, **options)
    return stats, data_from_statistics(stats, rescan, compress=ci == "analytic")
