"""The result's tables from the per-rater sums and the per-item columns.

Shared by the memory and the stream/dask paths: both sum the same per-rater quantities
(:class:`RaterSums`) and gather the same per-item columns (:class:`ItemColumns`), in
memory rating by rating or from the ratings counted by (rater, group, label).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._types import FloatArray, IntArray
from ..data.ratings import ReadReport
from ..stats.counts import ItemCategoryCounts
from ._cells import median_from_counts
from ._options import Options, method_text
from ._pairs import PairAgreement
from ._scores import ItemStats
from .results import CLASSES, Consensus, ConsensusSummary

__all__ = ["ItemColumns", "RaterSums", "assemble", "empty_ratings_table", "object_array"]


class RaterSums(NamedTuple):
    """Per-rater sums over the scored ratings, shapes (n_raters,) unless said.

    n : ratings; n_def : ratings with a defined deviation; dev, sur : sums of their
    deviations and surprisals; classes : (n_raters, 4) counts per class; median_keys,
    median_counts : counts of ``rater * n_values + code`` (``code``: index among the sorted
    distinct deviations); consensus, gold : the rater against the leave-one-out modal label
    and the gold label; od, od_n : sum and count of the ordinal deviations (with
    ``ordinal=True``).
    """

    n: IntArray
    n_def: FloatArray
    dev: npt.NDArray[Any]
    sur: npt.NDArray[Any]
    classes: IntArray
    median_keys: IntArray
    median_counts: IntArray
    consensus: PairAgreement
    gold: PairAgreement | None
    od: npt.NDArray[Any] | None
    od_n: IntArray | None


class ItemColumns(NamedTuple):
    """Per-item columns, shapes (n_items,): ``st`` (n, m1, t1, k1), ``entropy``,
    ``contested_rank`` (Int64), ``ordinal_entropy`` (or None), ``counts`` (the dense
    (n_items, q) counts whose columns become the table's, or None) and ``gold_code``."""

    st: ItemStats
    entropy: FloatArray
    contested_rank: Any
    ordinal_entropy: FloatArray | None
    counts: IntArray | None
    gold_code: IntArray | None


def object_array(values: Any) -> npt.NDArray[Any]:
    """``values`` in a one-dimensional object array (tuples stay entries)."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _rater_table(raters: npt.NDArray[Any], sums: RaterSums, d_values: FloatArray) -> pd.DataFrame:
    """One row per rater, those who stray most first (mean, then median deviation)."""
    n_raters = int(sums.n.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_dev = sums.dev / sums.n_def
        mean_sur = sums.sur / sums.n_def
        shares = sums.classes / sums.n_def[:, None]
    median_dev = median_from_counts(sums.median_keys, sums.median_counts, n_raters, d_values)
    cons = sums.consensus
    cols: dict[str, Any] = {
        "rater": raters,
        "n_ratings": sums.n,
        "mean_deviation": mean_dev,
        "median_deviation": median_dev,
    }
    for k, name in enumerate(CLASSES):
        cols[f"share_{name.replace(' ', '_')}"] = shares[:, k]
    cols.update(
        mean_surprisal=mean_sur,
        consensus_n=cons.n,
        consensus_agreement=cons.agreement,
        consensus_kappa=cons.kappa,
        consensus_ia=cons.ia,
    )
    if sums.od is not None and sums.od_n is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            cols["mean_ordinal_deviation"] = sums.od / sums.od_n
    if sums.gold is not None:
        g = sums.gold
        cols.update(gold_n=g.n, gold_accuracy=g.agreement, gold_kappa=g.kappa)
    table = pd.DataFrame(cols)
    order = np.lexsort(
        (
            np.arange(n_raters),
            -np.nan_to_num(median_dev, nan=-np.inf),
            -np.nan_to_num(mean_dev, nan=-np.inf, posinf=np.inf),
        )
    )
    table = table.iloc[order].reset_index(drop=True)
    table.insert(0, "rank", np.arange(1, n_raters + 1))
    return table


def _items_table(
    cols: ItemColumns,
    items: npt.NDArray[Any] | pd.api.extensions.ExtensionArray,
    categories: tuple[Any, ...],
    normalized: FloatArray,
    copy_items: bool,
) -> pd.DataFrame:
    """One row per item (see :class:`~accord.consensus.Consensus`)."""
    st, n_items, q = cols.st, int(cols.entropy.size), len(categories)
    cat_array = object_array(categories)
    rated = st.n > 0
    item_cols: dict[str, Any] = {"item": items, "n_ratings": st.n.astype(np.int64, copy=False)}
    if cols.counts is not None:
        dense_counts = cols.counts.reshape(n_items, q)
        for c in range(q):
            item_cols[f"count_{categories[c]}"] = np.ascontiguousarray(dense_counts[:, c])
    mode = cat_array.take(np.maximum(st.k1, 0))
    mode[~rated] = None
    modal_share = np.full(n_items, np.nan)
    np.divide(st.m1, st.n, out=modal_share, where=rated)
    item_cols.update(
        mode=mode,
        n_modes=st.t1,
        modal_share=modal_share,
        entropy=cols.entropy,
        normalized_entropy=normalized,
    )
    item_cols["contested_rank"] = cols.contested_rank
    if cols.ordinal_entropy is not None:
        item_cols["ordinal_entropy"] = cols.ordinal_entropy
    if cols.gold_code is not None:
        gold = cols.gold_code
        gold_labels = np.empty(n_items, dtype=object)
        gold_labels[gold >= 0] = cat_array[gold[gold >= 0]]
        item_cols["gold"] = gold_labels
    # Every column is a fresh array (the item ids copied): no second, consolidated copy of
    # the table while it is built (millions of items with the stream and dask engines).
    if copy_items and isinstance(items, np.ndarray):
        item_cols["item"] = items.copy()
    return pd.DataFrame(item_cols, copy=False)


def _summary(
    cols: ItemColumns,
    normalized: FloatArray,
    sums: RaterSums,
    categories: tuple[Any, ...],
    n_missing: int,
) -> ConsensusSummary:
    """The whole-data figures."""
    q = len(categories)
    rated = cols.st.n > 0
    class_total = sums.classes.sum(axis=0)
    n_defined = int(class_total.sum())
    n_scored = int(sums.n.sum())
    return ConsensusSummary(
        reason=(
            f"one category ({categories[0]!s}): the normalised entropy, entropy / log q, is 0/0"
            if q == 1
            else None
        ),
        n_items=int(cols.entropy.size),
        n_raters=int(sums.n.size),
        n_ratings=n_scored,
        n_missing_as_category=n_missing,
        n_undefined=n_scored - n_defined,
        mean_entropy=float(np.nanmean(cols.entropy)) if rated.any() else math.nan,
        mean_normalized_entropy=(
            float(np.nanmean(normalized)) if rated.any() and q > 1 else math.nan
        ),
        class_shares={
            name: (float(class_total[k]) / n_defined if n_defined else math.nan)
            for k, name in enumerate(CLASSES)
        },
        mean_ordinal_entropy=(
            float(np.nanmean(cols.ordinal_entropy))
            if cols.ordinal_entropy is not None
            else math.nan
        ),
    )


def empty_ratings_table() -> pd.DataFrame:
    """The per-rating table without a row, where it is not built (the stream and dask
    engines, ``rows=False``)."""
    names = ("item", "rater", "label", "p", "surprisal", "deviation", "class")
    return pd.DataFrame({name: pd.Series(dtype=float) for name in names})


def assemble(
    sums: RaterSums,
    cols: ItemColumns,
    *,
    raters: npt.NDArray[Any],
    items: npt.NDArray[Any] | pd.api.extensions.ExtensionArray,
    categories: tuple[Any, ...],
    d_values: FloatArray,
    counts: ItemCategoryCounts,
    ratings_table: pd.DataFrame,
    options: Options,
    n_missing: int = 0,
    note: str = "",
    report: ReadReport | None = None,
    copy_items: bool = True,
) -> Consensus:
    """The rater and item tables, the summary and the method. ``copy_items=False`` puts
    ``items`` in the table as it is (a caller's own array)."""
    raters_table = _rater_table(raters, sums, d_values)
    q = len(categories)
    with np.errstate(divide="ignore", invalid="ignore"):
        if q > 1:
            normalized = cols.entropy * options.lb
            normalized /= math.log2(q)  # in place: (entropy * lb) / log2(q)
        else:
            normalized = np.full(cols.entropy.size, np.nan)
    # The means first, while the table's columns are not there yet (nanmean copies).
    summary = _summary(cols, normalized, sums, categories, n_missing)
    return Consensus(
        items=_items_table(cols, items, categories, normalized, copy_items),
        ratings=ratings_table,
        raters=raters_table,
        summary=summary,
        counts=counts,
        categories=categories,
        reference=options.reference,
        missing=options.missing,
        bands=options.bands,
        base=float(options.base),
        ordinal=bool(options.ordinal),
        method=method_text(options, note),
        report=report,
    )
