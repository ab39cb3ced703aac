"""The public :func:`consensus`: picks the engine, gets the statistics, calls the estimators.

With ``engine="memory"`` the ratings (a :class:`~accord.Ratings`, a data frame or a path)
are scored one by one (:func:`accord.consensus.consensus_from_ratings`). With ``"stream"``
or ``"dask"`` the engine counts the items (as count patterns when it can), the estimator
scores each pattern (:class:`accord.consensus.PatternConsensus`), and the ratings are
counted by (rater, group, label), or read again rating by rating, for the raters' sums.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, option
from .._validate import announce
from ..consensus import (
    Consensus,
    ConsensusMissing,
    ConsensusReference,
    Options,
    PatternConsensus,
    RaterSums,
    check_choices,
    consensus_from_ratings,
)
from ..data.ratings import Ratings
from ..data.source import Source, as_source
from ..engines._pages import engine_pages, small_pages
from ..engines._run import (
    COUNTS,
    Plan,
    Rescan,
    check_engine,
    index_label_counts,
    ratings_in_memory,
    scan_ratings,
)

__all__ = ["STREAM_PLAN", "consensus"]

#: What the stream engine counts for the consensus: the item counts as patterns (all pass 1
#: needs; the items table is built from them) and the rater counts.
STREAM_PLAN = Plan(raters=True, patterns=True)

NOTE = (
    "; computed by the {engine} engine in two passes over the ratings: the per-rating "
    "table is not produced (use the memory engine for it)"
)


@engine_pages
def consensus(
    ratings: Source | Ratings | Any,
    *,
    reference: ConsensusReference = "all",
    missing: ConsensusMissing = "omit",
    bands: Sequence[float] = (0.0, 1.0, 2.0),
    base: float = 2.0,
    gold: Mapping[Any, Any] | pd.Series | Sequence[Any] | npt.ArrayLike | None = None,
    ordinal: bool = False,
    **read_options: Any,
) -> Consensus:
    r"""Which items are contested, which ratings and raters stray from the consensus.

    For item :math:`i` rated :math:`n_i` times, :math:`n_{ic}` of them in category :math:`c`:

    .. math::

        p_{ic} = \frac{n_{ic}}{n_i}, \qquad
        e_i = -\sum_c p_{ic} \log_b p_{ic}, \qquad
        s = -\log_b p_{ic}, \qquad d = s - e_i

    for a rating in category :math:`c` (entropy :math:`e_i`, surprisal :math:`s`, deviation
    :math:`d`). The entropy is the mean surprisal of the item's ratings, so the deviations of an
    item sum to zero. With ``reference="others"`` the rating is left out:
    :math:`p = (n_{ic} - 1) / (n_i - 1)` and :math:`e` is the entropy of the other ratings.

    Parameters
    ----------
    ratings : Source, Ratings, or where the ratings are
        A :class:`~accord.Source` (:func:`accord.source`), or what it holds: the ratings (any level;
        the labels are treated as categories); with the memory engine also a long data frame
        (pandas, polars, pyarrow, DuckDB) or a file path, with ``item``, ``rater`` and ``label``.
        With ``engine="stream"``: Parquet/CSV paths, a glob or a folder; with ``engine="dask"`` also
        a dask DataFrame (pass ``item``, ``rater``, ``label``).
    reference : {"all", "others"}, default "all"
        ``"all"``: the rating being scored counts in ``p`` (Simon 2010). ``"others"``:
        leave-one-out, ``p`` is the share of the *other* raters of the item who chose the same
        category; undefined (NaN) for the only rating of an item, and infinite surprisal for a
        rating no other rater shares.
    missing : {"omit", "category"}, default "omit"
        ``"omit"``: an assignment without a label is not a rating. ``"category"``: it is a
        rating in a category of its own, ``"(no label)"`` (Simon 2010, sperm morphology
        example). Needs the assignments to be known: rows with an empty label, kept by
        :class:`Ratings` as ``missing_item_codes`` / ``missing_rater_codes``.
    bands : three increasing numbers, default (0, 1, 2)
        Upper edges of the classes good, acceptable and poor, on the deviation in units of
        ``base``: good :math:`d \le b_0`, acceptable :math:`b_0 < d \le b_1`, poor
        :math:`b_1 < d \le b_2`, very poor :math:`d > b_2`.
    base : float, default 2
        Logarithm base (2: bits).
    gold : mapping, Series or sequence, optional
        A gold label per item: a mapping or Series from item id to label, or a sequence aligned
        with ``ratings.items``. Items without one (missing) are left out of the gold columns.
    ordinal : bool, default False
        Also compute Simon's ordinal entropy and ordinal surprisal (the categories in their
        order; needs level ordinal, interval or ratio and ``missing="omit"``).
    **read_options
        The fields of :class:`~accord.Source`, as :func:`accord.source` takes them
        (``consensus(x, item="i", ...)`` is ``consensus(source(x, item="i", ...))``), of
        which:

    engine : {"memory", "stream", "dask"}, default "memory"
        ``"stream"`` and ``"dask"`` count the items from files (or partitions), then read the
        ratings a second time to sum each rater's surprisals and deviations, without
        collecting them: the ``ratings`` table is then empty (it has one row per rating; use
        the memory engine to get it), every other table is the memory engine's.
    item, rater, label : str, optional
        Column names (stream and dask engines).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of the labels read from files (stream and dask engines).
    categories : sequence, optional
        The declared category domain of labels read from files.
    duplicates : {"raise", "first", "last"}, default "raise"
        A rater who rated an item more than once, for ratings read from files or frames: as
        in :meth:`accord.Ratings.from_long`, with every engine.
    scheduler, progress, batch_size
        The dask engine's scheduler, the stream engine's progress callback and rows per
        batch, as in :func:`accord.agreement`.
    na_values, labels_as
        For ratings read from files or frames: what counts as a missing label and how a text
        file's labels are typed, as in :meth:`accord.Ratings.from_long`.
    sep, encoding : str, optional
        Field separator and text encoding of CSV files, with every engine (default: the
        separator sniffed, UTF-8), as in :func:`accord.read_ratings`.

    Returns
    -------
    Consensus
        ``items``, ``ratings`` and ``raters`` tables, a ``summary``, the item x category
        ``counts``, and the options used. See :class:`Consensus` for every column.

    Raises
    ------
    InvalidInputError
        An option outside its domain, bands not increasing, a gold label outside the
        categories, ``ordinal=True`` on nominal data or with ``missing="category"``.

    Notes
    -----
    *Classes.* The bands are accord's documented choice; Simon (2010) gives examples, not
    thresholds. With the default bands they reproduce every example of Simon (2010): agreeing
    with 80% of the raters (:math:`d = -0.40`) is good; a category chosen by 35% while 55% chose
    the mode (:math:`d \approx 0.18`) acceptable; 20% against 80% (:math:`d = 1.60`) poor;
    10% against 90% (:math:`d = 2.85`) and the 1-of-8 dissenter (:math:`d = 2.46`) very poor.
    A deviation within :math:`10^{-12}` of a band edge counts as on the edge (``s - e`` of a
    rating exactly as surprising as average is 0 only up to rounding).

    *Raters.* ``mean_deviation`` averages a rater's deviations: above 0, the rater's choices
    are more surprising than the panel's average choice on the same items. Raters are sorted by
    it (then by ``median_deviation``), so the raters who stray most come first. Beside it, each
    rating is compared with the **leave-one-out consensus label**, the unique modal category of
    the other ratings of the item (ratings whose others tie, or have no other rating, are left
    out and not counted in ``consensus_n``): percent agreement, Cohen's (1960) kappa and the
    informational agreement of Casagrande, Fabris & Girometti (2020), with the authors'
    continuity extension where a marginal entropy is 0. A model judge is one more rater; its
    row sits beside the humans'. Per-rater values that are undefined (no compared rating,
    kappa with a single category on both sides) are NaN.

    *Agreement with the consensus is not correctness* (Simon 2010): the lone dissenter may be
    the only one who is right. Where a gold label is known, pass ``gold`` and read
    ``gold_accuracy`` and ``gold_kappa``.

    *Ordinal scales* (Simon 2010, "ordinal surprisals"): with :math:`F_j = P(X \le j)`, the
    ordinal entropy is :math:`\sum_{j<q} H_2(F_j)` and the ordinal surprisal of category
    :math:`i` is :math:`\sum_{j<i} -\log(1 - F_j) + \sum_{i \le j < q} -\log F_j`; its
    p-weighted mean is the ordinal entropy, and ``ordinal_deviation`` is the difference. A
    rating one category off the mode is then less surprising than one three categories off.

    References
    ----------
    Simon, S. (2010). Using entropy and the surprisal value to measure the degree of agreement
    with the consensus finding. *P.Mean* (blog), 2010-04-11.

    Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational and
    Psychological Measurement*, 20(1), 37-46. https://doi.org/10.1177/001316446002000104

    Casagrande, A., Fabris, F., & Girometti, R. (2020). Beyond kappa: an informational index
    for diagnostic agreement in dichotomous and multivalue ordered-categorical ratings.
    *Medical & Biological Engineering & Computing*, 58, 3089-3099.
    https://doi.org/10.1007/s11517-020-02261-2

    Examples
    --------
    Simon's panel: three items, four raters; ``W4`` dissents on the first and third item.

    >>> import accord
    >>> r = accord.Ratings.from_wide(
    ...     [["A", "A", "A", "B"], ["B", "B", "C", "C"], ["C", "C", "C", "A"]])
    >>> c = accord.consensus(r)
    >>> c.items["entropy"].round(6).tolist()
    [0.811278, 1.0, 0.811278]
    >>> c.raters[["rater", "mean_deviation"]].round(4).values.tolist()
    [[3, 0.7925], [0, -0.2642], [1, -0.2642], [2, -0.2642]]

    Simon (2010)'s eight raters, four A, two B, one C and one D: entropy 1.75 bits, surprisals
    1, 2, 3, 3, deviations -0.75, 0.25, 1.25, 1.25.

    >>> r = accord.Ratings.from_wide([list("AAAABBCD")])
    >>> c = accord.consensus(r)
    >>> float(c.items["entropy"].iloc[0])
    1.75
    >>> c.ratings.drop_duplicates("label")[["label", "surprisal", "deviation", "class"]]
      label  surprisal  deviation       class
    0     A        1.0      -0.75        good
    4     B        2.0       0.25  acceptable
    6     C        3.0       1.25        poor
    7     D        3.0       1.25        poor
    """
    src = as_source(ratings, "consensus", **read_options)
    ratings, engine, level = src.data, src.engine, src.level
    check_choices(reference, missing)
    check_engine(engine, "consensus")
    # ``missing`` here is how consensus scores a row without a label; the source's
    # ``missing`` how such a row reads (by default omitted, and kept as an assignment).
    columns = src.read_options()
    if engine != "memory":
        options = _engine_options(
            engine,
            reference=reference,
            missing=missing,
            bands=bands,
            base=base,
            ordinal=ordinal,
            level=level,
        )
        read = dict(columns, **src.engine_options())
        return _from_engine(ratings, engine, options=options, gold=gold, **read)
    ratings = ratings_in_memory(ratings, owner="consensus", **columns)
    # Its large arrays (the ratings table's columns) are written once, a chunk at a time:
    # without numpy's huge-page advice, as with the other engines.
    with small_pages():
        return consensus_from_ratings(
            ratings,
            reference=reference,
            missing=missing,
            bands=bands,
            base=base,
            gold=gold,
            ordinal=ordinal,
        )


def _engine_options(
    engine: str,
    *,
    reference: ConsensusReference,
    missing: ConsensusMissing,
    bands: Sequence[float],
    base: float,
    ordinal: bool,
    level: Any,
) -> Options:
    """The options the stream and dask engines can honour, checked before any reading."""
    if missing == "category":
        raise InvalidInputError(
            f"{option('missing', 'category')} scores the assignments without a label, which "
            f"{option('engine', engine)} leaves out when it counts; use "
            f"{option('missing', 'omit')} or {option('engine', 'memory')}"
        )
    options = Options.checked(
        reference=reference, missing=missing, bands=bands, base=base, ordinal=ordinal
    )
    if ordinal and level == "nominal":
        raise InvalidInputError(
            f"{option('ordinal', True)} needs ordered categories: pass "
            f"{option('level', 'ordinal', 'interval', 'ratio')}; the level is nominal"
        )
    return options


def _from_engine(
    data: Any,
    engine: str,
    *,
    options: Options,
    gold: Any,
    **read: Any,
) -> Consensus:
    """:func:`consensus` with the stream or dask engine: pass 1 from the engine's statistics
    (its count patterns, or the item counts), pass 2 from the ratings counted by (rater,
    group, label), or read again rating by rating when that table would be large."""
    stats, rescan = scan_ratings(
        data,
        engine,
        owner="consensus",
        # The stream engine's patterns are all pass 1 needs; the item counts of the result
        # are then built once, from the patterns, and shared with the items table.
        plan=STREAM_PLAN if engine == "stream" else COUNTS,
        **read,
    )
    announce(read.get("progress"), "computing the consensus")
    plan = PatternConsensus.from_statistics(
        stats.item_counts,
        stats.item_patterns,
        n_raters=stats.n_raters,
        items=stats.items,
        categories=stats.categories,
        options=options,
        gold=gold,
    )
    # Only these are kept from the engine's statistics (not its copy of the item patterns).
    raters, report = stats.raters, stats.report
    del stats
    sums = _rater_sums(plan, rescan)
    del rescan  # frees the stream engine's code matrix
    return plan.result(sums, raters=raters, report=report, note=NOTE.format(engine=engine))


def _rater_sums(plan: PatternConsensus, rescan: Rescan) -> RaterSums:
    """Pass 2: the ratings counted by (rater, group, label) (from the stream engine's code
    matrix, else read again), or scored rating by rating."""
    if not plan.counts_by_group:
        return plan.sums_from_pass(rescan)
    groups = plan.groups
    assert groups is not None
    table = index_label_counts(
        rescan, groups.item_group, groups.n_groups, n_raters=plan.n_raters, q=len(plan.categories)
    )
    return plan.sums_from_table(table)
