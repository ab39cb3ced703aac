"""Gold labels: one per item, given as a mapping, a Series, a sequence or a column."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError
from .._types import IntArray

__all__ = ["gold_codes", "gold_labels", "gold_values"]


def gold_labels(frame: pd.DataFrame, item: str, gold: str) -> pd.Series:
    """The gold label of each item that has one, indexed by item id, from a long table.

    The ``gold`` column holds one label per item (repeated on the item's rows, or given on
    some of them); an item with two different gold labels, or no gold label at all, is an
    error naming the column (and the item).
    """
    given = frame[[item, gold]].dropna(subset=[gold])
    if given.empty:
        raise InvalidInputError(f"column {gold!r}: no row has a gold label")
    n_labels = given.groupby(item, sort=False)[gold].nunique()
    conflicting = n_labels[n_labels > 1]
    if len(conflicting):
        first = conflicting.index[0]
        values = sorted(map(str, given.loc[given[item] == first, gold].unique()))
        name = first.item() if hasattr(first, "item") else first
        raise InvalidInputError(
            f"column {gold!r}: item {name!r} has {len(values)} different gold labels "
            f"({', '.join(values)}); items with more than one: {len(conflicting)}"
        )
    labels: pd.Series = given.drop_duplicates(subset=[item]).set_index(item)[gold]
    return labels


def gold_values(mapping: Mapping[Any, Any], items: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The gold label of each item id (None where there is none): the id itself as a key,
    else a key equal to it as text (gold read from a file keyed by ``"17"`` for item 17).
    Matched by hashing both sides at once, not one lookup per item."""
    keys = list(mapping)
    labels = np.empty(len(keys), dtype=object)
    labels[:] = list(mapping.values())
    values = np.full(items.size, None, dtype=object)
    if not keys or not items.size:
        return values
    # tupleize_cols=False: tuple ids stay ids (not the levels of a MultiIndex)
    at = np.asarray(
        pd.Index(keys, tupleize_cols=False).get_indexer(pd.Index(items, tupleize_cols=False)),
        dtype=np.int64,
    )
    found = at >= 0
    values[found] = labels[at[found]]
    missing = np.flatnonzero(~found)
    kinds = {
        pd.api.types.infer_dtype(keys, skipna=True),
        pd.api.types.infer_dtype(items, skipna=True),
    }
    if len(kinds) == 1 and not next(iter(kinds)).startswith("mixed"):
        # Ids and keys of one type: equal as text only when equal, so no second look.
        return values
    if missing.size:
        text = pd.Index([str(k) for k in keys], dtype=object)
        if text.has_duplicates:  # later keys win, as in a dict built from them
            keep = ~text.duplicated(keep="last")
            text, labels = text[keep], labels[keep]
        wanted = pd.Index([str(i) for i in items[missing].tolist()])
        again = np.asarray(text.get_indexer(wanted), dtype=np.int64)
        hit = again >= 0
        values[missing[hit]] = labels[again[hit]]
    return values


def gold_codes(gold: Any, items: npt.NDArray[Any], categories: tuple[Any, ...]) -> IntArray:
    """Gold category code per item of ``items`` (the item ids in code order; -1 where
    none), shape (n_items,)."""
    n_items = int(items.size)
    if isinstance(gold, pd.Series):
        mapping: Mapping[Any, Any] = gold.to_dict()
    elif isinstance(gold, Mapping):
        mapping = gold
    else:
        arr = np.asarray(gold, dtype=object)
        if arr.ndim != 1 or arr.size != n_items:
            raise InvalidInputError(
                f"gold must be a mapping item -> label, a pandas Series indexed by item, or a "
                f"sequence with one label per item in Ratings.items ({n_items}); got "
                f"shape {arr.shape}"
            )
        mapping = dict(zip(items.tolist(), arr.tolist(), strict=True))
    values = gold_values(mapping, items)
    present = ~np.asarray(pd.isna(values), dtype=bool)
    if not present.any():
        raise InvalidInputError(
            "gold: no item of the ratings has a gold label (compare the item ids: e.g. "
            f"{items[:3].tolist()!r} in the ratings, {list(mapping)[:3]!r} in gold)"
        )
    index = pd.Index(list(categories), dtype=object)
    given = values[present]
    codes = np.asarray(index.get_indexer(pd.Index(given, dtype=object)), dtype=np.int64)
    if np.any(codes < 0):
        as_text = pd.Index([str(c) for c in categories], dtype=object)
        retry = np.asarray(
            as_text.get_indexer(pd.Index([str(v) for v in given], dtype=object)), dtype=np.int64
        )
        codes = np.where(codes < 0, retry, codes)
    if np.any(codes < 0):
        bad = int(np.flatnonzero(codes < 0)[0])
        item = items[np.flatnonzero(present)[bad]]
        raise InvalidInputError(
            f"gold: label {given[bad]!r} of item {item!r} is not among the categories "
            f"{list(categories)!r}; declare the categories when building the Ratings"
        )
    out = np.full(n_items, -1, dtype=np.int64)
    out[present] = codes
    return out
