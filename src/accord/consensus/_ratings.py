"""Consensus of ratings in memory: every rating scored, the per-rating table included.

Pass 1 counts the items by category and forms the distinct count rows (patterns); every
(pattern, category) cell is scored once. Pass 2 writes each rating's scores (its cell's)
into the columns of the ratings table, a chunk of ratings at a time, and sums the per-rater
counts (deviation values, leave-one-out agreement) chunk by chunk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, bad_parameter, option
from .._types import FloatArray, IntArray
from ..data.ratings import Ratings, item_column
from ..stats.counts import ItemCategoryCounts
from ..stats.patterns import count_patterns
from ._assemble import ItemColumns, RaterSums, assemble, empty_ratings_table, object_array
from ._cells import (
    DENSE_CELLS,
    Cells,
    as_cells,
    count_cells,
    count_keys,
    merge_counts,
    unshift,
)
from ._items import PatternStats, item_columns, pattern_stats
from ._options import Options, check_choices
from ._ordinal import Ordinal, ordinal_scores
from ._pairs import pair_agreement, pair_agreement_from_cells
from ._scores import cell_tables, deviation_classes
from .gold import gold_codes
from .results import (
    CLASSES,
    MISSING_CATEGORY,
    Consensus,
    ConsensusMissing,
    ConsensusReference,
)

__all__ = ["RATING_CHUNK", "consensus_from_ratings"]

#: Ratings per chunk of the per-rating pass (longer when a per-rater accumulator is larger,
#: so that adding it once per chunk costs less than the chunk).
RATING_CHUNK = 1 << 20


class _Scored(NamedTuple):
    """The ratings to score: codes (n,), with missing assignments as category ``q - 1``
    under ``missing="category"``."""

    item: IntArray
    rater: IntArray
    label: IntArray
    categories: tuple[Any, ...]
    n_missing: int


class _FirstPass(NamedTuple):
    """Item counts (the result's, and as columns when dense), their patterns, each
    pattern's statistics."""

    counts: ItemCategoryCounts
    columns: IntArray | None
    item_pattern: npt.NDArray[np.signedinteger[Any]]
    weights: IntArray
    rows: Any
    ps: PatternStats


class _RatingScores(NamedTuple):
    """Pass 2: the ratings' columns (n,) and the per-rater counts (see :class:`RaterSums`)."""

    p: FloatArray
    surprisal: FloatArray
    deviation: FloatArray
    cls: npt.NDArray[np.int8]
    median_counts: Any
    cons_counts: Any


def _check(ratings: Ratings, options: Options) -> None:
    if options.ordinal and ratings.level == "nominal":
        raise InvalidInputError(
            f"{option('ordinal', True)} needs ordered categories: read the ratings with "
            f"{option('level', 'ordinal', 'interval', 'ratio')}; the level is nominal"
        )
    if options.ordinal and options.missing == "category" and ratings.missing_item_codes.size:
        raise InvalidInputError(
            f"{option('ordinal', True)} cannot place the category '(no label)' on the "
            f"ordered scale; use {option('missing', 'omit')} with {option('ordinal', True)}"
        )


def _scored(ratings: Ratings, options: Options) -> _Scored:
    categories: tuple[Any, ...] = tuple(ratings.categories)
    item, rater, label = ratings.item_codes, ratings.rater_codes, ratings.label_codes
    if options.missing != "category" or not ratings.missing_item_codes.size:
        return _Scored(item, rater, label, categories, 0)
    if any(isinstance(c, str) and c == MISSING_CATEGORY for c in categories):
        raise InvalidInputError(
            f"missing='category' names the category {MISSING_CATEGORY!r}, but the labels "
            "already use that name"
        )
    n_missing = int(ratings.missing_item_codes.size)
    return _Scored(
        np.concatenate([item, ratings.missing_item_codes]),
        np.concatenate([rater, ratings.missing_rater_codes]),
        np.concatenate([label, np.full(n_missing, len(categories), dtype=np.int64)]),
        (*categories, MISSING_CATEGORY),
        n_missing,
    )


def _first_pass(scored: _Scored, n_items: int, n_raters: int, options: Options) -> _FirstPass:
    """Item x category counts, and their distinct rows (count patterns) scored."""
    q = len(scored.categories)
    cells = count_cells(scored.item * q + scored.label, n_items * q)
    columns: IntArray | None = None
    if cells.dense is not None:
        # Column-major, and read-only: the items table's count columns are views of the
        # result's item counts, not copies (a change to the table copies them).
        columns = np.asfortranarray(cells.dense.reshape(n_items, q))
        columns.flags.writeable = False
        counts_any: Any = columns
    else:
        from scipy import sparse as sp

        counts_any = sp.csr_array(
            (cells.counts, (cells.keys // q, cells.keys % q)), shape=(n_items, q), dtype=np.int64
        )
    # Every per-item and per-rating score is a function of the item's row of counts: scored
    # once per distinct row (with 10 raters and 5 categories, at most 1,001 of them).
    patterns = count_patterns(counts_any)
    largest = int(cells.counts.max()) if cells.counts.size else 0
    ps = pattern_stats(patterns.counts, max(n_raters, largest), options, ordinal=False)
    counts = ItemCategoryCounts(counts_any, scored.categories)
    return _FirstPass(counts, columns, patterns.item_pattern, patterns.weights, patterns.counts, ps)


def _second_pass(
    scored: _Scored, first: _FirstPass, n_raters: int, options: Options, rows: bool = True
) -> _RatingScores:
    """Each rating's scores are its (pattern, category) cell's, written into the columns of
    the ratings table a chunk at a time; the per-rater counts (deviation values,
    leave-one-out agreement) are summed chunk by chunk. Without ``rows`` (no ratings
    table), the ratings' ``p`` is not kept: the per-rater sums do not read it."""
    item, rater, label = scored.item, scored.rater, scored.label
    q = len(scored.categories)
    ps = first.ps
    tables = cell_tables(
        first.rows, ps.st, ps.d_values, q, options.reference, options.lb, options.bands
    )
    n = int(item.size)
    p = np.empty(n if rows else 0)
    surprisal = np.empty(n)
    deviation = np.empty(n)
    cls = np.empty(n, dtype=np.int8)
    n_values = max(ps.d_values.size, 1)
    median_size = n_raters * (n_values + 1)
    cons_size = n_raters * q * (q + 1)
    # Dense accumulators are added once per chunk: a chunk is at least as long as them.
    dense = [s for s in (median_size, cons_size) if s <= DENSE_CELLS]
    step = max(RATING_CHUNK, min(n, max(dense, default=0)))
    no_codes = np.zeros(0, dtype=np.int64)
    median_counts = count_keys(no_codes, median_size)
    cons_counts = count_keys(no_codes, cons_size)
    item_pattern = first.item_pattern
    for lo in range(0, n, step):
        part = slice(lo, lo + step)
        at = tables.locate(item_pattern.take(item[part]).astype(np.int64) * q + label[part])
        # mode="clip" (every slot is valid): with the default, numpy buffers ``out``
        if rows:
            np.take(tables.p, at, out=p[part], mode="clip")
        np.take(tables.surprisal, at, out=surprisal[part], mode="clip")
        np.take(tables.deviation, at, out=deviation[part], mode="clip")
        np.take(tables.cls, at, out=cls[part], mode="clip")
        r = rater[part]
        keys = r * (n_values + 1)
        keys += tables.d_code1.take(at)
        median_counts = merge_counts(median_counts, count_keys(keys, median_size))
        keys = r * q
        keys += label[part]
        keys *= q + 1
        keys += tables.loo1.take(at)
        cons_counts = merge_counts(cons_counts, count_keys(keys, cons_size))
        del at, keys
    return _RatingScores(p, surprisal, deviation, cls, median_counts, cons_counts)


def _rater_sums(
    scored: _Scored,
    scores: _RatingScores,
    d_values: FloatArray,
    options: Options,
    n_raters: int,
    ordinal: Ordinal | None,
    gold_code: IntArray | None,
) -> RaterSums:
    """Sums over the ratings in their order (the undefined ones add 0)."""
    item, rater, label = scored.item, scored.rater, scored.label
    q = len(scored.categories)
    n_values = max(d_values.size, 1)
    median_keys, median_n = unshift(*as_cells(scores.median_counts), n_values)
    value_class = deviation_classes(d_values, options.bands).astype(np.int64)
    class_counts = (
        np.bincount(
            (median_keys // n_values) * 4 + value_class[median_keys % n_values],
            weights=median_n,
            minlength=n_raters * 4,
        )
        .astype(np.int64)
        .reshape(n_raters, 4)
    )
    n_def = class_counts.sum(axis=1).astype(np.float64)
    deviation, surprisal = scores.deviation, scores.surprisal
    if n_def.sum() != item.size:
        undefined = scores.cls < 0
        deviation = np.where(undefined, 0.0, deviation)
        surprisal = np.where(undefined, 0.0, surprisal)
        del undefined
    cons_keys, cons_n = unshift(*as_cells(scores.cons_counts), q)
    od = od_n = None
    if ordinal is not None:
        deviations = ordinal.surprisal - ordinal.entropy
        ok = ~np.isnan(deviations)
        od = np.bincount(rater[ok], weights=deviations[ok], minlength=n_raters)
        od_n = np.bincount(rater[ok], minlength=n_raters)
    vs_gold = None
    if gold_code is not None:
        g = gold_code[item]
        has = g >= 0
        vs_gold = pair_agreement(rater[has], label[has], g[has], n_raters, q)
    return RaterSums(
        n=np.bincount(rater, minlength=n_raters),
        n_def=n_def,
        dev=np.bincount(rater, weights=deviation, minlength=n_raters),
        sur=np.bincount(rater, weights=surprisal, minlength=n_raters),
        classes=class_counts,
        median_keys=median_keys,
        median_counts=median_n,
        consensus=pair_agreement_from_cells(Cells(cons_keys, cons_n, None), n_raters, q),
        gold=vs_gold,
        od=od,
        od_n=od_n,
    )


def _ratings_table(
    ratings: Ratings, scored: _Scored, scores: _RatingScores, ordinal: Ordinal | None
) -> pd.DataFrame:
    """One row per scored rating (categoricals: codes, not copies of the ids; the codes are
    valid by construction, so pandas need not check them)."""
    cat_array = object_array(scored.categories)
    cols: dict[str, Any] = {
        "item": _categorical(scored.item, ratings.items),
        "rater": _categorical(scored.rater, ratings.raters),
        "label": _categorical(scored.label, cat_array),
        "p": scores.p,
        "surprisal": scores.surprisal,
        "deviation": scores.deviation,
        "class": pd.Categorical.from_codes(
            scores.cls, dtype=pd.CategoricalDtype(list(CLASSES), ordered=True), validate=False
        ),
    }
    if ordinal is not None:
        cols["ordinal_surprisal"] = ordinal.surprisal
        cols["ordinal_deviation"] = ordinal.surprisal - ordinal.entropy
    return pd.DataFrame(cols, copy=False)


def _categorical(codes: IntArray, values: npt.NDArray[Any]) -> pd.Categorical:
    """Codes into decode-table values kept with their types (ints stay ints): an object
    array stays one (a copy, without a round trip through a list)."""
    index = pd.Index(values, dtype=object if values.dtype == object else None, copy=True)
    return pd.Categorical.from_codes(codes, categories=index, validate=False)


def consensus_from_ratings(
    ratings: Ratings,
    *,
    reference: ConsensusReference = "all",
    missing: ConsensusMissing = "omit",
    bands: Sequence[float] = (0.0, 1.0, 2.0),
    base: float = 2.0,
    gold: Mapping[Any, Any] | pd.Series | Sequence[Any] | npt.ArrayLike | None = None,
    ordinal: bool = False,
    rows: bool = True,
) -> Consensus:
    """:func:`accord.consensus` of ratings in memory (see the module notes).

    Parameters
    ----------
    ratings : Ratings
    reference, missing, bands, base, gold, ordinal
        As :func:`accord.consensus` takes them.
    rows : bool, default True
        ``False`` leaves the per-rating ``ratings`` table empty, as the stream and dask
        engines do (one row a rating is not built); every other table is the same.

    Returns
    -------
    Consensus
        The per-item, per-rating and per-rater tables, with the ratings' read report
        (``report``: what was read, kept and dropped).

    Raises
    ------
    InvalidInputError
        Not a Ratings, an option outside its domain (``rows`` not a bool), bad bands or
        base, ``ordinal=True`` on nominal ratings or with ``missing="category"``, a gold
        label outside the categories.

    Examples
    --------
    >>> import accord
    >>> from accord.consensus import consensus_from_ratings
    >>> r = accord.Ratings.from_wide([list("AAAABBCD")])
    >>> float(consensus_from_ratings(r).items["entropy"].iloc[0])
    1.75
    >>> len(consensus_from_ratings(r, rows=False).ratings)
    0
    """
    check_choices(reference, missing)
    if not isinstance(ratings, Ratings):
        raise InvalidInputError(
            f"consensus needs a Ratings (see Ratings.from_long, Ratings.from_wide, "
            f"read_ratings), or a data frame or path with item=, rater= and label=; got a "
            f"{type(ratings).__name__}"
        )
    options = Options.checked(
        reference=reference, missing=missing, bands=bands, base=base, ordinal=ordinal
    )
    _check(ratings, options)
    if not isinstance(rows, bool | np.bool_):
        raise InvalidInputError(
            bad_parameter("consensus_from_ratings", "rows", "True or False", rows)
        )
    scored = _scored(ratings, options)
    n_raters = ratings.n_raters
    first = _first_pass(scored, ratings.n_items, n_raters, options)
    scores = _second_pass(scored, first, n_raters, options, rows)
    ordinal_result = None
    if options.ordinal:
        ordinal_result = ordinal_scores(
            first.counts.dense(), scored.item, scored.label, options.reference, options.lb
        )
    gold_code = None if gold is None else gold_codes(gold, ratings.items, scored.categories)
    ps = first.ps
    sums = _rater_sums(scored, scores, ps.d_values, options, n_raters, ordinal_result, gold_code)
    ratings_table = (
        _ratings_table(ratings, scored, scores, ordinal_result) if rows else empty_ratings_table()
    )
    del scores
    st, entropy, contested_rank = item_columns(ps, first.weights, first.item_pattern)
    cols = ItemColumns(
        st,
        entropy,
        contested_rank,
        None if ordinal_result is None else ordinal_result.item_entropy,
        first.columns,
        gold_code,
    )
    return assemble(
        sums,
        cols,
        raters=ratings.raters,
        items=item_column(ratings),
        categories=scored.categories,
        d_values=ps.d_values,
        counts=first.counts,
        ratings_table=ratings_table,
        options=options,
        n_missing=scored.n_missing,
        report=ratings.report,
    )
