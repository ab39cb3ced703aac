"""The public :func:`agreement`: picks the engine, gets the statistics, calls the estimators
of :mod:`accord.agreement.summary`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from .._deprecated import moved_keywords
from .._errors import InvalidInputError, option
from .._types import FloatArray, IntArray, RngLike
from .._validate import announce, check_choice
from ..agreement._statistics import ItemSums
from ..agreement.icc import ICCMethod
from ..agreement.inference import CIKind, Inference, inference_keywords
from ..agreement.many_raters import WeightsLike, krippendorff_alpha
from ..agreement.multi_valued import multi_valued_alpha
from ..agreement.set_distances import SetDistance
from ..agreement.summary import (
    AgreementTable,
    agreement_from_statistics,
    agreement_table,
    check_coefficients,
    default_coefficients,
)
from ..data.ratings import Ratings
from ..data.source import Source, as_source
from ..engines._pages import engine_pages
from ..engines._run import (
    COUNTS,
    Plan,
    Rescan,
    check_engine,
    ratings_in_memory,
    scan_ratings,
)
from ..stats.pairs import PairTables
from ..stats.patterns import patterns_from_counts
from ..stats.scores import ScoreCells, numeric_scale

__all__ = ["agreement"]


@engine_pages
def agreement(
    data: Source | Ratings | Any,
    *,
    coefficients: Sequence[str] | None = None,
    weights: WeightsLike | None = None,
    distance: SetDistance | None = None,
    icc_method: ICCMethod = "auto",
    inference: Inference | None = None,
    **read_options: Any,
) -> AgreementTable:
    """Every agreement coefficient that applies to the data's level, in one table.

    Parameters
    ----------
    data : Source, Ratings, ItemCategoryCounts, array_like of shape (n_items, q), or a path
        A :class:`~accord.Source` (:func:`accord.source`), or what it holds: Ratings (all
        coefficients), or item x category counts (those computable from counts:
        not Conger, Light or the ICC). With ``engine="stream"``: a Parquet/CSV path, glob,
        folder or list of paths; with ``engine="dask"`` also a dask DataFrame (then pass
        ``item``, ``rater`` and ``label``). With the memory engine a path is read with
        :func:`accord.read_ratings`, and a long data frame (pandas, polars, pyarrow, DuckDB)
        with one row per rating is read from its ``item``, ``rater`` and ``label`` columns.
    coefficients : sequence of str, optional
        A subset of :data:`~accord.agreement.summary.COEFFICIENTS`. Default: all that apply
        to categories; for interval and ratio scores Krippendorff's alpha at the data's level
        and the ICCs, the others (they count exact matches of values) named in the table's
        ``left_out`` (:func:`~accord.agreement.summary.default_coefficients`).
    weights : str or array_like of shape (q, q), optional
        Weights of the weighted rows. Default: none for nominal data, ``"quadratic"`` for
        ordinal, interval and ratio data.
    distance : {"masi", "jaccard"}, optional
        With ``multi_label=True``: the distance between two sets (default ``"masi"``).
    icc_method : {"auto", "anova", "reml"}, default "auto"
        The ICCs' fit and interval, as ``method`` of :func:`accord.icc`: ``"auto"`` the
        ANOVA with F intervals on a complete design and REML with profile-likelihood
        intervals otherwise; ``"reml"`` the REML intervals on a complete design too.
    inference : Inference, optional
        The interval and test options (:class:`accord.Inference`): ``ci``
        ({"analytic", "bootstrap"}: ``"bootstrap"`` resamples items ``n_boot`` times for
        every coefficient and the table's intervals become BCa intervals), ``n_boot``,
        ``seed`` (the bootstrap's random generator), ``population_size`` (items in the
        population), ``se`` ({"raters", "items", "unconditional"}: the standard error of
        the chance-corrected coefficients, kappaetc's ``se()``; the last two need the
        ratings with rater ids in memory and three or more raters; Light's kappa and the
        ICCs keep their own inference), ``rater_population_size`` (kappaetc's
        ``nraters()``), ``test_value`` and ``alternative`` of the p-values. The table's
        intervals are at 95%: ``confidence_level`` is the report's. Default:
        ``Inference()``. The old keywords (``ci=``, ``n_boot=``, ``rng=``,
        ``population_size=``, ``se=``, ``rater_population_size=``, ``test_value=``,
        ``alternative=``) still work, with a :class:`DeprecationWarning`.

    **read_options
        The fields of :class:`~accord.Source`, as :func:`accord.source` takes them:
        ``agreement(x, item="i", ...)`` is ``agreement(source(x, item="i", ...))``. Among
        them: ``engine`` ({"memory", "stream", "dask"}, default "memory": where the
        sufficient statistics are computed, from data in memory, from files read in
        batches, or per dask partition and tree-reduced; the numbers are the same, see the
        engines page of the docs); ``item``, ``rater``, ``label`` (the columns of a path or
        a frame); ``level`` (default "nominal"); ``categories`` (the declared domain, or the
        category names of an array of counts); ``missing``, ``duplicates`` (with every
        engine; ``"mean"``, at interval and ratio level, with the memory engine only),
        ``na_values``, ``labels_as``, ``sep``, ``encoding`` (as in
        :func:`accord.read_ratings`); ``scheduler`` (dask), ``progress`` and
        ``batch_size`` (stream); ``multi_label``: set-valued ratings (a set of labels per
        item and rater), with the memory or the stream engine (the same numbers): the
        table then holds Krippendorff's alpha with the set ``distance`` and the
        multi-valued alpha (:func:`accord.multi_valued_alpha`); ``coefficients`` and
        ``weights`` do not apply, and each label's agreement is
        :func:`accord.per_label_agreement` (in memory).

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
    ICC(A,1), ICC(C,1), ICC(1,k), ICC(A,k), ICC(C,k) (two-way ANOVA on a complete design,
    REML when some rater did not score some item; see :func:`accord.icc`). The item counts
    are computed once and shared.

    With ``engine="stream"`` or ``"dask"`` the coefficients come from the engine's statistics:
    the item counts (and the rater counts), the rater-pair tables only when Light's kappa is
    asked for, one more pass over the ratings for the standard error of Conger's kappa, and
    at interval and ratio level one for the scored cells of the ICC (the memory engine's
    forms, ANOVA or REML). The ICC alone (``coefficients=["icc"]``) takes no counts by
    category: one pass reads the ratings, the other their scored cells. Bootstrap intervals
    of Conger's and Light's kappa need the ratings in memory: they are left out of the
    default set there, and asking for them is an error.

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
    >>> r = accord.datasets.load_diagnoses()
    >>> table = agreement(r, coefficients=["fleiss_kappa", "percent_agreement"])
    >>> [(c.name, round(c.statistic, 3)) for c in table.coefficients]
    [('percent_agreement', 0.556), ('fleiss_kappa', 0.43)]
    """
    with inference_keywords():  # advice names them as agreement takes them
        inference = inference_option(inference, read_options)
        src = as_source(data, "agreement", **read_options)
        data, engine, level, multi_label = src.data, src.engine, src.level, src.multi_label
        ci = inference.ci
        wanted = check_coefficients(coefficients)
        check_engine(engine, "agreement")
        _check_sets_options(multi_label, distance, coefficients, weights)
        check_choice("icc_method", icc_method, ("auto", "anova", "reml"), "agreement")
        estimates: dict[str, Any] = dict(
            coefficients=coefficients,
            weights=weights,
            population_size=inference.population_size,
            ci=inference.ci,
            n_boot=inference.n_boot,
            rng=inference.seed,
            icc_method=icc_method,
            se=inference.se,
            rater_population_size=inference.rater_population_size,
            test_value=inference.test_value,
            alternative=inference.alternative,
        )
        columns: Any = src.read_options()
        categories = src.categories
        scheduler, batch_size = src.scheduler, src.batch_size
        progress: Any = src.progress  # a callable, checked by the engine
        if multi_label:
            del estimates["coefficients"], estimates["weights"], estimates["icc_method"]
            if engine == "memory":
                sets = ratings_in_memory(data, owner="agreement", **columns)
                return _sets_table(sets, distance or "masi", report=sets.report, **estimates)
            stats, _ = scan_ratings(data, engine, owner="agreement", plan=COUNTS,
                                    scheduler=scheduler, progress=progress, batch_size=batch_size,
                                    **columns)  # fmt: skip
            assert stats.rater_counts is not None
            table = _sets_table(
                stats.item_counts, distance or "masi", report=stats.report, **estimates
            )
            # The counts know the most ratings of one item; the raters are those who rated, as
            # on ratings in memory.
            n_raters = int(np.count_nonzero(stats.rater_counts.dense().sum(axis=1)))
            rows = tuple(dataclasses.replace(c, n_raters=n_raters) for c in table.coefficients)
            return dataclasses.replace(table, coefficients=rows)
        if engine == "memory":
            ratings = ratings_in_memory(data, owner="agreement", **columns)
            if ratings is not data:  # the categories went into the Ratings
                categories = None
            return agreement_table(ratings, categories=categories, **estimates)
        if coefficients is None:  # measurements: only what the table will show is counted
            wanted &= set(default_coefficients(level))
        _check_statistics_suffice(engine, wanted, explicit=coefficients is not None, ci=ci)
        stats, rescan = scan_ratings(
            data,
            engine,
            owner="agreement",
            plan=_plan_for(wanted, engine=engine, ci=ci, level=level),
            scheduler=scheduler,
            progress=progress,
            batch_size=batch_size,
            **columns,
        )
        announce(progress, "computing agreement")
        patterns = None
        if stats.item_patterns is None and ci == "analytic" and stats.item_counts is not None:
            patterns = patterns_from_counts(stats.item_counts.counts)
        scores = None
        if "icc" in wanted and stats.level in ("interval", "ratio"):
            scores = score_cells(rescan, stats.categories, stats.n_items, stats.n_raters)
        return agreement_from_statistics(
            stats,
            item_sums(rescan),
            patterns=patterns,
            report=stats.report,
            scores=scores,
            **estimates,
        )


#: The keywords of :func:`agreement` that moved into :class:`~accord.Inference`.
MOVED_TO_INFERENCE = {
    "ci": "ci",
    "n_boot": "n_boot",
    "rng": "seed",
    "population_size": "population_size",
    "se": "se",
    "rater_population_size": "rater_population_size",
    "test_value": "test_value",
    "alternative": "alternative",
}


def inference_option(inference: Inference | None, read_options: dict[str, Any]) -> Inference:
    """:func:`agreement`'s ``inference``, from the deprecated keywords of ``read_options``
    when they are given (taken out of it), checked; its confidence level must be 95%."""
    if inference is not None and not isinstance(inference, Inference):
        raise InvalidInputError(
            f"agreement: inference must be an accord.Inference, not {type(inference).__name__}"
        )
    out = moved_keywords("agreement", read_options, inference, MOVED_TO_INFERENCE, Inference,
                         "inference=accord.Inference", stacklevel=5)  # fmt: skip
    out = Inference() if out is None else out
    out.check("agreement")
    if out.confidence_level != 0.95:
        raise InvalidInputError(
            f"agreement: the table's intervals are at 95%, not confidence_level="
            f"{out.confidence_level!r}; the level is an option of accord.report"
        )
    return out


def rater_pair_tables(data: Any, *, max_cells: int = 50_000_000) -> PairTables | None:
    """The contingency table of every rater pair, read where the ratings are: from
    :class:`~accord.Ratings` in memory, or by the stream and dask engines from a
    :class:`~accord.data.source.Source` (pair tables are sums over items, merged batch by
    batch: bounded by raters x raters x categories, not by the ratings). None when the
    tables would hold more than ``max_cells`` counts (very many categories).
    """
    from ..stats.pairs import PairCells

    src = as_source(data, "pairwise_agreement")
    columns: Any = src.read_options()
    if src.engine == "memory":
        return PairTables.from_ratings(
            ratings_in_memory(src.data, owner="pairwise_agreement", **columns)
        )
    progress: Any = src.progress  # a callable, checked by the engine
    stats, _ = scan_ratings(src.data, src.engine, owner="pairwise_agreement",
                            plan=Plan(raters=True, pairs=True), scheduler=src.scheduler,
                            progress=progress, batch_size=src.batch_size,
                            **columns)  # fmt: skip
    pairs = stats.pair_tables
    if isinstance(pairs, PairTables) or pairs is None:
        return pairs
    q = len(pairs.categories)
    if pairs.n_pairs * q * q > max_cells:
        return None
    tables = np.zeros((pairs.n_pairs, q, q), dtype=np.int64)
    np.add.at(tables, (pairs.pair, pairs.x, pairs.y), pairs.count)
    assert isinstance(pairs, PairCells)
    return PairTables(pairs.pairs, tables, pairs.raters, pairs.categories)


def _plan_for(wanted: set[str], *, engine: str, ci: str, level: str) -> Plan:
    """What the ``wanted`` coefficients need the stream or dask engine to count.

    The ICC alone at interval or ratio level needs nothing (its scored cells come from a
    second pass, :func:`score_cells`): continuous scores make a category of every value, and
    no count by category is taken. Else the item counts and the rater counts; the analytic
    estimators need only the distinct item count rows and how many items have each (the
    stream engine counts them directly; the dask engine's item counts are summarised after),
    the bootstrap resamples items, so it keeps one row per item. The rater-pair tables only
    for Light's kappa.

    >>> _plan_for({"icc"}, engine="stream", ci="analytic", level="interval")
    Plan(items=False, raters=False, pairs=False, patterns=False)
    >>> _plan_for({"icc", "fleiss_kappa"}, engine="stream", ci="analytic", level="ratio")
    Plan(items=False, raters=True, pairs=False, patterns=True)
    """
    if wanted == {"icc"} and level in ("interval", "ratio"):
        return Plan()
    by_pattern = engine == "stream" and ci == "analytic"
    return Plan(items=not by_pattern, raters=True, pairs="light_kappa" in wanted,
                patterns=by_pattern)  # fmt: skip


def _check_statistics_suffice(engine: str, wanted: set[str], *, explicit: bool, ci: str) -> None:
    """What the stream and dask engines' statistics cannot give, when asked for by name."""
    if not explicit:
        return
    if ci == "bootstrap" and wanted & {"conger_kappa", "light_kappa"}:
        raise InvalidInputError(
            f"{option('ci', 'bootstrap')} with {option('engine', engine)} resamples items "
            "from their counts, which Conger's and Light's kappa cannot use; leave them out "
            f"of {option('coefficients').strip()} or use {option('ci', 'analytic')}"
        )


def score_cells(
    rescan: Rescan, categories: Sequence[Any], n_items: int, n_raters: int
) -> ScoreCells:
    """One more pass of the engine over the ratings: the scored cells of the ICC, each
    label code read as its numeric category."""
    scale = numeric_scale(categories, "icc")
    cells: ScoreCells | None = rescan.map_reduce(_score_cells, scale, ScoreCells.merge)
    spaces = ScoreCells((), n_items, n_raters)  # items and raters without a kept score
    return spaces if cells is None else spaces.merge(cells)


def _score_cells(scale: FloatArray, item: IntArray, rater: IntArray, label: IntArray) -> ScoreCells:
    """One batch's scored cells."""
    return ScoreCells.from_codes(item, rater, scale[label])


def _check_sets_options(
    multi_label: bool, distance: str | None, coefficients: Any, weights: Any
) -> None:
    """``distance`` goes with ``multi_label``, ``coefficients`` and ``weights`` without it."""
    if not multi_label:
        if distance is not None:
            raise InvalidInputError(
                "distance= applies with multi_label=True (a set of labels per item and rater)"
            )
        return
    given = [name for name, v in (("coefficients", coefficients), ("weights", weights)) if v]
    if given:
        raise InvalidInputError(
            f"{'= and '.join(given)}= do not apply with multi_label=True: sets of labels are "
            "compared by distance= ('masi' or 'jaccard') and the multi-valued alpha"
        )


def _sets_table(
    data: Any,
    distance: SetDistance,
    *,
    report: Any,
    population_size: float | None,
    ci: CIKind,
    n_boot: int,
    rng: RngLike,
    **sampling: Any,
) -> AgreementTable:
    """Krippendorff's alpha with the set ``distance`` and the multi-valued alpha of
    set-valued ratings (a multi-label :class:`~accord.Ratings` or its item counts);
    ``sampling``: the standard error and test of alpha."""
    alpha = krippendorff_alpha(data, distance=distance, population_size=population_size,
                               ci=ci, n_boot=n_boot, rng=rng, **sampling)  # fmt: skip
    return AgreementTable((alpha, multi_valued_alpha(data)), "nominal", ci=ci, report=report)


@runtime_checkable
class _RatingSums(Protocol):
    """An engine's rescan that sums a (rater, label) table over each item's ratings itself
    (the stream engine's code matrix); None when it cannot (then :meth:`Rescan.map_reduce`)."""

    def rating_sums(self, table: npt.NDArray[np.float64]) -> npt.NDArray[np.float64] | None: ...


#: Sums over a range of item codes: (first code, sums of codes first, first + 1, ...).
_Segments = list[tuple[int, FloatArray]]


def item_sums(rescan: Rescan) -> ItemSums:
    """One more pass of the engine over the ratings: per item code, the sum over its
    ratings of ``table[rater, label]`` (:class:`accord.agreement._statistics.ItemSums`)."""

    def sums(table: FloatArray) -> FloatArray:
        if isinstance(rescan, _RatingSums):
            by_code = rescan.rating_sums(table)
            if by_code is not None:
                return by_code
        segments: _Segments = rescan.map_reduce(_table_sums, table, _add) or []
        n = max((start + part.size for start, part in segments), default=0)
        out = np.zeros(n, dtype=np.float64)
        for start, part in segments:
            out[start : start + part.size] += part
        return out

    return sums


def _table_sums(table: FloatArray, item: IntArray, rater: IntArray, label: IntArray) -> _Segments:
    """Per item of one batch, the sum over its ratings of ``table[rater, label]``, over the
    range of item codes the batch touches only (no array as long as all the items per
    batch)."""
    if item.size == 0:
        return []
    lo = int(item.min())
    hi = int(item.max()) + 1
    sums = np.bincount(item - lo, weights=table[rater, label], minlength=hi - lo)
    return [(lo, np.asarray(sums, dtype=np.float64))]


def _add(a: _Segments, b: _Segments) -> _Segments:
    """Both lists of segments; summed into one segment once they overlap much (batches
    whose items are spread over the whole range, as the dask engine's partitions are)."""
    parts = a + b
    if not parts:
        return parts
    lo = min(p[0] for p in parts)
    hi = max(p[0] + p[1].size for p in parts)
    if sum(p[1].size for p in parts) <= 2 * (hi - lo):
        return parts
    out = np.zeros(hi - lo, dtype=np.float64)
    for start, sums in parts:
        out[start - lo : start - lo + sums.size] += sums
    return [(lo, out)]
