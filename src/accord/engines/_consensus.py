"""Consensus diagnostics with the stream and dask engines: by count pattern, no ratings kept.

Every per-rating quantity of :func:`accord.consensus` (surprisal, deviation, class, the
leave-one-out modal label, the ordinal surprisal and deviation) is a function of the rating's
label and of its item's *count row*, the item's counts per category; the comparison with a
gold label adds the item's gold label. So the work is done per distinct count row, a
*pattern* (with 10 raters and 5 categories there are at most 3,003 of them, however many
items there are):

1. Pass 1 is the engine's item x category counts, as distinct rows and each item's row:
   :class:`~accord.engines._blocks.ItemPatterns` from the stream engine, or derived from
   the item counts (the dask engine; the stream engine when it could not form them, e.g.
   with many categories). The per-item statistics (ratings, modal counts, modes, entropy,
   ordinal entropy) and the distinct deviations are computed once per pattern.
2. Pass 2 counts the ratings by (rater, group, label), the group being the item's pattern
   (with a gold label, the pair (pattern, gold label)): the stream engine counts this table
   from its code matrix, otherwise the ratings are read again. Every per-rater sum (ratings,
   ratings with a defined deviation, deviations, surprisals, class counts, the counts per
   distinct deviation behind the median, the rater x label x leave-one-out consensus and
   rater x label x gold tables, ordinal deviations) is a weighted sum over the cells of this
   table, each (group, label) cell scored once by the formulas the memory engine applies to
   each rating: the memory engine's numbers up to the order of float sums. When the table
   would be large (very many patterns), pass 2 scores each rating's (group, label) cell
   instead, batch by batch, and sums the same quantities; the sums merge.
3. The items table gathers each item's columns from its pattern's values.

The per-rating table is not produced.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError
from .._types import IntArray
from ..consensus import (
    CHUNK_CELLS,
    CLASSES,
    Consensus,
    _as_cells,
    _assemble,
    _cell_scores,
    _Cells,
    _check_bands,
    _count,
    _dense_rows,
    _gather,
    _gold_codes,
    _item_columns,
    _median_from_counts,
    _merge_counts,
    _ordinal,
    _pattern_stats,
    pair_agreement_from_cells,
)
from ..stats.counts import SPARSE_CELLS, ItemCategoryCounts
from ._blocks import ItemPatterns
from ._patterns import RowPatterns as _Patterns
from ._patterns import count_patterns as _patterns_from_counts
from ._patterns import index_dtype as _index_dtype
from ._run import index_label_counts, scan_ratings

__all__ = ["consensus_from_engine"]

NOTE = (
    "; computed by the {engine} engine in two passes over the ratings: the per-rating "
    "table is not produced (use the memory engine for it)"
)


#: Cells (or ratings) scored per call in pass 2 (longer runs are split).
RATINGS_PER_CALL = 200_000


#: Largest (rater, group, label) table pass 2 counts; beyond, each rating is scored.
GROUP_CELLS = 4_000_000


def _cell_counts(counts: Any, row: IntArray, label: IntArray) -> IntArray:
    """``counts[row, label]`` of each entry (dense or sparse counts)."""
    if isinstance(counts, np.ndarray):
        return counts[row, label].astype(np.int64, copy=False)
    return np.asarray(counts[row, label], dtype=np.int64).reshape(-1)


def _group_index(
    item_pattern: npt.NDArray[np.signedinteger[Any]], gold_code: IntArray, n_patterns: int, q: int
) -> tuple[npt.NDArray[np.signedinteger[Any]], IntArray, IntArray]:
    """Groups of the items by (pattern, gold label): each item's group (-1 for an item
    without a rating) and each group's pattern and gold code (-1: no gold label)."""
    width = q + 1
    space = n_patterns * width  # the key ``space`` stands for the items without a rating
    n = item_pattern.size
    key = np.empty(n, dtype=np.int64)
    step = max(1, CHUNK_CELLS)
    for lo in range(0, n, step):
        p = item_pattern[lo : lo + step].astype(np.int64)
        k = p * width + gold_code[lo : lo + step] + 1
        k[p < 0] = space
        key[lo : lo + step] = k
    if space <= max(1 << 22, 4 * n):
        used = np.flatnonzero(np.bincount(key, minlength=space + 1)[:space])
        lookup = np.full(space + 1, -1, dtype=_index_dtype(used.size))
        lookup[used] = np.arange(used.size, dtype=lookup.dtype)
        index = lookup.take(key)
    else:
        used, inverse = np.unique(key, return_inverse=True)
        inverse = inverse.reshape(-1)
        if used.size and used[-1] == space:
            used = used[:-1]
            inverse[inverse == used.size] = -1
        index = inverse.astype(_index_dtype(used.size))
    used = used.astype(np.int64)
    return index, used // width, used % width - 1


# ------------------------------------------------------------------ counts that merge


# ------------------------------------------------------------------------- pass 2


def _sums(
    ctx: dict[str, Any],
    rater: IntArray,
    group: IntArray,
    label: IntArray,
    weight: IntArray | None,
) -> dict[str, Any]:
    """Per-rater sums over (rater, group, label) entries, each standing for ``weight``
    ratings (one when None). Each entry's surprisal, deviation, class and leave-one-out mode
    are those of its (pattern, category) cell, computed from the per-pattern statistics of
    pass 1 by the formulas the memory engine applies to each rating (the same numbers)."""
    if rater.size > RATINGS_PER_CALL:  # bound the per-entry temporaries
        out_all: dict[str, Any] | None = None
        for lo in range(0, rater.size, RATINGS_PER_CALL):
            s = slice(lo, lo + RATINGS_PER_CALL)
            part = _sums(ctx, rater[s], group[s], label[s], None if weight is None else weight[s])
            out_all = part if out_all is None else _merge(out_all, part)
        assert out_all is not None
        return out_all
    q = ctx["q"]
    n_r = ctx["n_raters"]
    rater = rater.astype(np.int64, copy=False)
    label = label.astype(np.int64, copy=False)
    group = group.astype(np.int64, copy=False)
    pattern = group if ctx["group_pattern"] is None else ctx["group_pattern"][group]
    w = None if weight is None else weight.astype(np.float64)
    cells = _Cells(pattern * q + label, _cell_counts(ctx["counts"], pattern, label), None)
    _, sur, dev, cls, loo = _cell_scores(
        cells, ctx["st"], q, ctx["reference"], ctx["lb"], ctx["bands"]
    )
    defined = cls >= 0
    r_def = rater[defined]
    w_def = None if w is None else w[defined]
    out: dict[str, Any] = {
        "n": _count(rater, n_r, w),
        "n_def": _count(r_def, n_r, w_def),
        "dev": np.bincount(
            r_def, weights=dev[defined] if w_def is None else dev[defined] * w_def, minlength=n_r
        ),
        "sur": np.bincount(
            r_def, weights=sur[defined] if w_def is None else sur[defined] * w_def, minlength=n_r
        ),
        "cls": _count(r_def * 4 + cls[defined], n_r * 4, w_def),
        "median": _count(
            r_def * ctx["n_values"] + np.searchsorted(ctx["d_values"], dev[defined]),
            n_r * ctx["n_values"],
            w_def,
        ),
    }
    has = loo >= 0
    out["cons"] = _count(
        (rater[has] * q + label[has]) * q + loo[has], n_r * q * q, None if w is None else w[has]
    )
    if ctx["ordinal"]:
        rows, local = np.unique(pattern, return_inverse=True)
        res = _ordinal(
            _dense_rows(ctx["counts"], rows), local.reshape(-1), label, ctx["reference"], ctx["lb"]
        )
        od = res.surprisal - res.entropy
        ok = ~np.isnan(od)
        w_ok = None if w is None else w[ok]
        out["od"] = np.bincount(
            rater[ok], weights=od[ok] if w_ok is None else od[ok] * w_ok, minlength=n_r
        )
        out["od_n"] = _count(rater[ok], n_r, w_ok)
    if ctx["group_gold"] is not None:
        g = ctx["group_gold"][group]
        has_g = g >= 0
        out["gold"] = _count(
            (rater[has_g] * q + label[has_g]) * q + g[has_g],
            n_r * q * q,
            None if w is None else w[has_g],
        )
    return out


def _rater_pass(ctx: dict[str, Any], item: IntArray, rater: IntArray, label: IntArray) -> Any:
    """Per-rater sums of one batch of ratings, each scored by its item's group."""
    return _sums(ctx, rater, ctx["index"][item], label, None)


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in a.items():
        if key in ("median", "cons", "gold"):
            out[key] = _merge_counts(value, b[key])
        else:
            out[key] = value + b[key]
    return out


def _table_sums(ctx: dict[str, Any], table: IntArray) -> dict[str, Any]:
    """Per-rater sums from the (n_raters, n_groups, q) counts of the ratings."""
    _, n_groups, q = table.shape
    flat = table.reshape(-1)
    nz = np.flatnonzero(flat)
    weight = flat[nz]
    rater, rest = np.divmod(nz, n_groups * q)
    group, label = np.divmod(rest, q)
    return _sums(ctx, rater, group, label, weight)


def consensus_from_engine(
    data: Any,
    engine: str,
    *,
    reference: Any,
    missing: Any,
    bands: Sequence[float],
    base: float,
    gold: Mapping[Any, Any] | pd.Series | Sequence[Any] | Any | None,
    ordinal: bool,
    item: str | None,
    rater: str | None,
    label: str | None,
    level: Any,
    categories: Sequence[Any] | None,
    scheduler: Any,
    progress: Callable[[int, int | None], None] | None,
    batch_size: int,
    na_values: Sequence[str] | None = None,
    labels_as: Any = "auto",
) -> Consensus:
    """:func:`accord.consensus` with the stream or dask engine (see the module notes).

    Parameters
    ----------
    data : paths, a glob, a folder, a DuckDB relation or a dask DataFrame
        Where the ratings are.
    engine : {"stream", "dask"}
    reference, missing, bands, base, gold, ordinal
        As :func:`accord.consensus`.
    item, rater, label : str
        Column names.
    level, categories, scheduler, progress, batch_size, na_values, labels_as
        As :func:`accord.consensus`.

    Returns
    -------
    Consensus
        The memory engine's tables (to 1e-12), except the per-rating table, which is empty.

    Raises
    ------
    InvalidInputError
        ``missing="category"``, a base not above 1, ``ordinal=True`` on nominal labels, bad
        bands, or repeated (item, rater) ratings dropped by the engine.
    """
    if missing == "category":
        raise InvalidInputError(
            f"missing='category' scores the assignments without a label, which "
            f"engine={engine!r} leaves out when it counts; use missing='omit' or the memory "
            "engine"
        )
    band_edges = _check_bands(bands)
    try:
        lb = math.log2(float(base))
    except (TypeError, ValueError):
        lb = math.nan
    if not (math.isfinite(lb) and lb > 0):
        raise InvalidInputError(f"base must be a number greater than 1; got {base!r}")
    if ordinal and level == "nominal":
        raise InvalidInputError(
            "ordinal=True needs ordered categories: pass level='ordinal' (or interval/ratio); "
            "the level is 'nominal'"
        )
    stats, rescan = scan_ratings(
        data,
        engine,
        owner="consensus",
        item=item,
        rater=rater,
        label=label,
        level=level,
        categories=categories,
        # The stream engine's patterns are all pass 1 needs; the item counts of the result
        # are then built once, from the patterns, and shared with the items table.
        statistics=("patterns", "raters") if engine == "stream" else ("items", "raters"),
        scheduler=scheduler,
        progress=progress,
        batch_size=batch_size,
        na_values=na_values,
        labels_as=labels_as,
    )
    assert stats.item_counts is not None or stats.item_patterns is not None
    cats: tuple[Any, ...] = tuple(stats.categories)
    q = len(cats)
    n_items, n_raters = stats.n_items, stats.n_raters

    # ---- pass 1: the distinct count rows, and their statistics
    if stats.item_patterns is not None:
        given = stats.item_patterns
        patterns = _Patterns(given.rows, given.item_pattern, given.weights)
        # The result's item counts when the table does not hold them (sparse counts).
        engine_patterns: ItemPatterns | None = given
        del given
    else:
        assert stats.item_counts is not None
        patterns = _patterns_from_counts(stats.item_counts.counts)
        engine_patterns = None
    # Only these are kept from the engine's statistics (not its copy of the item patterns).
    items_decode, raters_decode, report, item_counts = (
        stats.items,
        stats.raters,
        stats.report,
        stats.item_counts,
    )
    del stats
    n_patterns = int(patterns.counts.shape[0])
    ps = _pattern_stats(
        patterns.counts,
        n_raters,
        reference=reference,
        lb=lb,
        bands=band_edges,
        ordinal=ordinal,
    )
    gold_code = None
    if gold is not None:
        holder: Any = types.SimpleNamespace(items=items_decode, n_items=n_items)
        gold_code = _gold_codes(gold, holder, cats)

    # ---- pass 2: the ratings by (rater, group, label), or rating by rating
    if gold_code is not None:
        index, group_pattern, group_gold = _group_index(
            patterns.item_pattern, gold_code, n_patterns, q
        )
        n_groups = int(group_pattern.size)
    else:
        index, group_pattern, group_gold = patterns.item_pattern, None, None
        n_groups = n_patterns
    ctx: dict[str, Any] = {
        "q": q,
        "n_raters": n_raters,
        "counts": patterns.counts,
        "st": ps.st,
        "reference": reference,
        "lb": lb,
        "bands": band_edges,
        "n_values": max(ps.d_values.size, 1),
        "d_values": ps.d_values,
        "ordinal": ordinal,
        "group_pattern": group_pattern,
        "group_gold": group_gold,
    }
    if n_raters * n_groups * q <= GROUP_CELLS:
        table = index_label_counts(rescan, index, n_groups, n_raters=n_raters, q=q)
        sums = _table_sums(ctx, table)
        del table
    else:
        sums = rescan.map_reduce(_rater_pass, ctx | {"index": index}, _merge)
        if sums is None:  # no rating read
            empty_codes = np.zeros(0, dtype=np.int64)
            sums = _sums(ctx, empty_codes, empty_codes, empty_codes, None)
    # Free the stream engine's code matrix (held by the rescan) and the group index.
    del rescan, ctx, index

    # ---- the items' columns, gathered from their patterns
    item_pattern = patterns.item_pattern
    st, item_entropy, contested_rank = _item_columns(ps, patterns.weights, item_pattern)
    ordinal_item_entropy = (
        _gather(ps.ordinal_entropy, item_pattern) if ps.ordinal_entropy is not None else None
    )
    # The count columns, gathered into the columns of an items x categories array in
    # column-major order: the table's columns are views of it, not copies (the item counts
    # of the result are the engine's, apart).
    count_columns = None
    if n_items * q <= SPARSE_CELLS:
        by_category = np.ascontiguousarray(
            np.vstack(
                [_dense_rows(patterns.counts, np.arange(n_patterns)), np.zeros((1, q), np.int64)]
            ).T,
            dtype=np.int64,
        )
        count_columns = np.empty((n_items, q), dtype=np.int64, order="F")
        for c in range(q):
            _gather(by_category[c], item_pattern, out=count_columns[:, c])
    del patterns, item_pattern
    if item_counts is None and count_columns is not None:
        # The items table's count columns are the result's item counts (one array; read-only,
        # so that a change to the table copies rather than changes the counts).
        count_columns.flags.writeable = False
        item_counts = ItemCategoryCounts(count_columns, cats)
    elif item_counts is None:
        assert engine_patterns is not None
        item_counts = ItemCategoryCounts(engine_patterns.item_counts(sparse=True), cats)
    del engine_patterns

    # ---- raters
    n_def = sums["n_def"].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_dev = sums["dev"] / n_def
        mean_sur = sums["sur"] / n_def
        class_counts = sums["cls"].reshape(n_raters, 4)
        shares = class_counts / n_def[:, None]
    median_keys, median_counts = _as_cells(sums["median"])
    median_dev = _median_from_counts(median_keys, median_counts, n_raters, ps.d_values)
    cons_keys, cons_counts = _as_cells(sums["cons"])
    cons = pair_agreement_from_cells(_Cells(cons_keys, cons_counts, None), n_raters, q)
    rater_cols: dict[str, Any] = {
        "rater": raters_decode,
        "n_ratings": sums["n"],
        "mean_deviation": mean_dev,
        "median_deviation": median_dev,
    }
    for k, name in enumerate(CLASSES):
        rater_cols[f"share_{name.replace(' ', '_')}"] = shares[:, k]
    rater_cols.update(
        mean_surprisal=mean_sur,
        consensus_n=cons.n,
        consensus_agreement=cons.agreement,
        consensus_kappa=cons.kappa,
        consensus_ia=cons.ia,
    )
    if ordinal:
        with np.errstate(divide="ignore", invalid="ignore"):
            rater_cols["mean_ordinal_deviation"] = sums["od"] / sums["od_n"]
    if gold_code is not None:
        gold_keys, gold_counts = _as_cells(sums["gold"])
        vs_gold = pair_agreement_from_cells(_Cells(gold_keys, gold_counts, None), n_raters, q)
        rater_cols.update(
            gold_n=vs_gold.n, gold_accuracy=vs_gold.agreement, gold_kappa=vs_gold.kappa
        )
    class_total = class_counts.sum(axis=0)
    n_defined = int(class_total.sum())
    empty = pd.DataFrame(
        {name: pd.Series(dtype=float) for name in ("item", "rater", "label", "p", "surprisal")}
        | {"deviation": pd.Series(dtype=float), "class": pd.Series(dtype=float)}
    )
    return _assemble(
        rater_cols,
        mean_dev=mean_dev,
        median_dev=median_dev,
        n_items=n_items,
        n_raters=n_raters,
        categories=cats,
        items=items_decode,
        copy_items=False,  # the engine's decode table: the result's own
        # Two-dimensional: _assemble's reshape to (n_items, q) keeps the column-major view.
        cells=_Cells(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), count_columns),
        st=st,
        item_entropy=item_entropy,
        lb=lb,
        ordinal_item_entropy=ordinal_item_entropy,
        gold_code=gold_code,
        ratings_table=empty,
        n_scored=int(sums["n"].sum()),
        n_missing=0,
        n_defined=n_defined,
        class_total=class_total,
        counts=item_counts,
        reference=reference,
        missing=missing,
        band_edges=band_edges,
        base=base,
        ordinal=ordinal,
        note=NOTE.format(engine=engine),
        report=report,
        contested_rank=contested_rank,
    )
