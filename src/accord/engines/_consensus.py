"""Consensus diagnostics with the stream and dask engines: two passes, no ratings collected.

Pass 1 is the engine's item x category counts: every item's entropy, mode and leave-one-out
mode follow, and every rating's surprisal, deviation and class depend only on its (item,
category) cell. Pass 2 reads the ratings again (batches or partitions, same codes) and sums
per rater: ratings, deviations, surprisals, class counts, counts per distinct deviation (for
the median), and the rater x label x reference tables behind the agreement with the
leave-one-out consensus and with a gold label. Those sums merge, so the rater table equals
the memory engine's; the per-rating table is not produced.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._errors import InvalidInputError
from .._types import FloatArray, IntArray
from ..consensus import (
    CLASSES,
    Consensus,
    _assemble,
    _cell_scores,
    _Cells,
    _check_bands,
    _gold_codes,
    _item_stats,
    _ItemStats,
    _ordinal,
    pair_agreement_from_cells,
)
from ..stats.counts import SPARSE_CELLS
from ._run import scan_ratings

__all__ = ["consensus_from_engine"]

#: Dense accumulators per rater up to this many cells; beyond, sorted (key, count) pairs.
DENSE_CELLS = 20_000_000

NOTE = (
    "; computed by the {engine} engine in two passes over the ratings: the per-rating "
    "table is not produced (use the memory engine for it)"
)


#: (item, category) cells per chunk of items in pass 1: per-cell temporaries stay at a few
#: tens of MB however many items there are.
CHUNK_CELLS = 500_000


#: Ratings scored per call in pass 2 (longer batches are split).
RATINGS_PER_CALL = 200_000


def _chunk_cells(counts: Any, lo: int, hi: int, q: int) -> _Cells:
    """The non-empty (item, category) cells of item rows ``lo:hi`` (keys local to the chunk)."""
    if isinstance(counts, np.ndarray):
        flat = counts[lo:hi].reshape(-1)
        nz = np.flatnonzero(flat).astype(np.int64, copy=False)
        return _Cells(nz, flat[nz].astype(np.int64, copy=False), None)
    coo = counts[lo:hi].tocoo()
    keys = coo.row.astype(np.int64) * q + coo.col.astype(np.int64)
    order = np.argsort(keys, kind="stable")
    vals = np.asarray(coo.data, dtype=np.int64)[order]
    keys = keys[order]
    present = vals > 0
    return _Cells(keys[present], vals[present], None)


def _cell_counts(counts: Any, item: IntArray, label: IntArray) -> IntArray:
    """``counts[item, label]`` of each rating (dense or sparse item counts)."""
    if isinstance(counts, np.ndarray):
        return counts[item, label].astype(np.int64, copy=False)
    return np.asarray(counts[item, label], dtype=np.int64).reshape(-1)


def _dense_rows(counts: Any, rows: IntArray) -> IntArray:
    """Rows of the item counts as a dense int64 array."""
    if isinstance(counts, np.ndarray) and rows.size == counts.shape[0]:
        return counts.astype(np.int64, copy=False)  # every row, in order: no copy
    out = counts[rows]
    return np.asarray(out if isinstance(out, np.ndarray) else out.toarray(), dtype=np.int64)


# ------------------------------------------------------------------ counts that merge


def _count(keys: IntArray, size: int) -> Any:
    """Counts of ``keys`` in ``[0, size)``: dense, or sorted (keys, counts) when large."""
    if size <= DENSE_CELLS:
        return np.bincount(keys, minlength=size).astype(np.int64, copy=False)
    uniq, counts = np.unique(keys, return_counts=True)
    return uniq.astype(np.int64), counts.astype(np.int64)


def _merge_counts(a: Any, b: Any) -> Any:
    if isinstance(a, np.ndarray):
        return a + b
    keys = np.concatenate([a[0], b[0]])
    counts = np.concatenate([a[1], b[1]])
    uniq, inverse = np.unique(keys, return_inverse=True)
    return uniq, np.bincount(inverse, weights=counts, minlength=uniq.size).astype(np.int64)


def _as_cells(counts: Any) -> tuple[IntArray, IntArray]:
    """Sorted non-empty (keys, counts)."""
    if isinstance(counts, np.ndarray):
        nz = np.flatnonzero(counts).astype(np.int64)
        return nz, counts[nz]
    keys, vals = counts
    return keys, vals


# ------------------------------------------------------------------------- pass 2


def _rater_pass(ctx: dict[str, Any], item: IntArray, rater: IntArray, label: IntArray) -> Any:
    """Per-rater sums of one batch. Each rating's surprisal, deviation, class and
    leave-one-out mode are those of its (item, category) cell, computed from the per-item
    statistics of pass 1 by the formulas pass 1 would apply to the cell (elementwise: the
    same numbers)."""
    if item.size > RATINGS_PER_CALL:  # bound the per-rating temporaries
        parts = [
            _rater_pass(ctx, item[s], rater[s], label[s])
            for s in (
                slice(lo, lo + RATINGS_PER_CALL) for lo in range(0, item.size, RATINGS_PER_CALL)
            )
        ]
        out_all = parts[0]
        for part in parts[1:]:
            out_all = _merge(out_all, part)
        return out_all
    q = ctx["q"]
    n_r = ctx["n_raters"]
    cells = _Cells(item * q + label, _cell_counts(ctx["counts"], item, label), None)
    _, sur, dev, cls, loo = _cell_scores(
        cells, ctx["st"], q, ctx["reference"], ctx["lb"], ctx["bands"]
    )
    defined = cls >= 0
    r_def = rater[defined]
    out: dict[str, Any] = {
        "n": np.bincount(rater, minlength=n_r).astype(np.int64),
        "n_def": np.bincount(r_def, minlength=n_r).astype(np.int64),
        "dev": np.bincount(r_def, weights=dev[defined], minlength=n_r),
        "sur": np.bincount(r_def, weights=sur[defined], minlength=n_r),
        "cls": np.bincount(r_def * 4 + cls[defined], minlength=n_r * 4).astype(np.int64),
        "median": _count(
            r_def * ctx["n_values"] + np.searchsorted(ctx["d_values"], dev[defined]),
            n_r * ctx["n_values"],
        ),
    }
    has = loo >= 0
    out["cons"] = _count((rater[has] * q + label[has]) * q + loo[has], n_r * q * q)
    if ctx["ordinal"]:
        rows, local = np.unique(item, return_inverse=True)
        res = _ordinal(_dense_rows(ctx["counts"], rows), local, label, ctx["reference"], ctx["lb"])
        od = res.surprisal - res.entropy
        ok = ~np.isnan(od)
        out["od"] = np.bincount(rater[ok], weights=od[ok], minlength=n_r)
        out["od_n"] = np.bincount(rater[ok], minlength=n_r).astype(np.int64)
    if ctx["gold"] is not None:
        g = ctx["gold"][item]
        has_g = g >= 0
        out["gold"] = _count((rater[has_g] * q + label[has_g]) * q + g[has_g], n_r * q * q)
    return out


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in a.items():
        if key in ("median", "cons", "gold"):
            out[key] = _merge_counts(value, b[key])
        else:
            out[key] = value + b[key]
    return out


def _median_from_counts(
    keys: IntArray, counts: IntArray, n_groups: int, values: FloatArray
) -> FloatArray:
    """Median per group from counts of sorted ``group * n_values + code`` keys (as
    ``consensus._group_median`` computes it from the values themselves)."""
    n_values = max(values.size, 1)
    group = keys // n_values
    code = keys % n_values
    total = np.bincount(group, weights=counts, minlength=n_groups).astype(np.int64)
    has = total > 0
    lo = (total - 1) // 2
    hi = total // 2
    before = np.cumsum(total) - total
    cum = np.cumsum(counts)
    out = np.full(n_groups, np.nan)
    at_lo = np.searchsorted(cum, (before + lo)[has], side="right")
    at_hi = np.searchsorted(cum, (before + hi)[has], side="right")
    out[has] = (values[code[at_lo]] + values[code[at_hi]]) / 2.0
    return out


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
) -> Consensus:
    """:func:`accord.consensus` with the stream or dask engine (see the module notes)."""
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
        statistics=("items", "raters"),
        scheduler=scheduler,
        progress=progress,
        batch_size=batch_size,
    )
    assert stats.item_counts is not None
    cats: tuple[Any, ...] = tuple(stats.categories)
    q = len(cats)
    n_items, n_raters = stats.n_items, stats.n_raters

    # ---- pass 1, from the engine's counts, a chunk of items at a time: per-item statistics,
    # entropies and the distinct deviations (no per-cell table is kept)
    counts = stats.item_counts.counts
    nf = np.zeros(n_items)
    slog = np.zeros(n_items)
    # Modal counts (at most one rating per item and rater) and category codes in the
    # smallest integers that hold them.
    small_n = np.int16 if n_raters < np.iinfo(np.int16).max else np.int64
    small_q = np.int8 if q < np.iinfo(np.int8).max else np.int64
    ints = [np.zeros(n_items, dtype=small_n) for _ in range(3)] + [
        np.full(n_items, -1, dtype=small_q) for _ in range(2)
    ]
    item_entropy = np.full(n_items, np.nan)
    ordinal_item_entropy = np.full(n_items, np.nan) if ordinal else None
    distinct: list[FloatArray] = []
    step = max(1, CHUNK_CELLS // max(q, 1))
    for lo in range(0, n_items, step):
        hi = min(n_items, lo + step)
        part = _chunk_cells(counts, lo, hi, q)
        sc = _item_stats(part, q, hi - lo)
        nf[lo:hi], slog[lo:hi] = sc.n, sc.slog
        for target, value in zip(ints, (sc.m1, sc.t1, sc.m2, sc.k1, sc.k1b), strict=True):
            target[lo:hi] = value
        with np.errstate(divide="ignore", invalid="ignore"):
            h = np.log2(sc.n) - sc.slog / sc.n
        h = np.where(sc.m1 == sc.n, 0.0, np.maximum(h, 0.0)) / lb
        h[sc.n == 0] = np.nan
        item_entropy[lo:hi] = h
        _, _, d_part, cls_part, _ = _cell_scores(part, sc, q, reference, lb, band_edges)
        distinct.append(np.asarray(pd.unique(d_part[cls_part >= 0]), dtype=np.float64))
        if ordinal_item_entropy is not None:
            res = _ordinal(
                _dense_rows(counts, np.arange(lo, hi)), part.keys // q, part.keys % q, reference, lb
            )
            ordinal_item_entropy[lo:hi] = res.item_entropy
    m1, t1, m2, k1, k1b = ints
    st = _ItemStats(nf, slog, m1, t1, k1, k1b, m2)  # type: ignore[arg-type]
    d_values = np.unique(np.concatenate(distinct)) if distinct else np.zeros(0)
    gold_code = None
    if gold is not None:
        holder: Any = types.SimpleNamespace(items=stats.items, n_items=n_items)
        gold_code = _gold_codes(gold, holder, cats)
    ctx = {
        "q": q,
        "n_raters": n_raters,
        "counts": counts,
        "st": st,
        "reference": reference,
        "lb": lb,
        "bands": band_edges,
        "n_values": max(d_values.size, 1),
        "d_values": d_values,
        "ordinal": ordinal,
        "gold": gold_code,
    }

    # ---- pass 2: per-rater sums
    sums = rescan.map_reduce(_rater_pass, ctx, _merge)
    # Free what the tables do not need: the stream engine's code matrix (held by the
    # rescan), pass 1's last chunk and the per-item statistics only pass 2 used.
    del rescan, ctx, distinct, ints, slog, k1b, m2
    if n_items:
        del part, sc, h, d_part, cls_part
    unused = np.zeros(0, dtype=np.int64)
    st = st._replace(slog=np.zeros(0), k1b=unused, m2=unused)
    # Ratings per item as integers (the table's n_ratings, not copied), then n_modes
    st = st._replace(n=st.n.astype(np.int64))
    st = st._replace(t1=st.t1.astype(np.int64))
    del nf
    n_def = sums["n_def"].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_dev = sums["dev"] / n_def
        mean_sur = sums["sur"] / n_def
        class_counts = sums["cls"].reshape(n_raters, 4)
        shares = class_counts / n_def[:, None]
    median_keys, median_counts = _as_cells(sums["median"])
    median_dev = _median_from_counts(median_keys, median_counts, n_raters, d_values)
    cons_keys, cons_counts = _as_cells(sums["cons"])
    cons = pair_agreement_from_cells(_Cells(cons_keys, cons_counts, None), n_raters, q)
    rater_cols: dict[str, Any] = {
        "rater": stats.raters,
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
        items=stats.items,
        copy_items=False,  # the engine's decode table: the result's own
        cells=_Cells(
            np.zeros(0, dtype=np.int64),
            np.zeros(0, dtype=np.int64),
            _dense_rows(counts, np.arange(n_items)).reshape(-1)
            if n_items * q <= SPARSE_CELLS
            else None,
        ),
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
        counts=stats.item_counts,
        reference=reference,
        missing=missing,
        band_edges=band_edges,
        base=base,
        ordinal=ordinal,
        note=NOTE.format(engine=engine),
        report=stats.report,
    )
