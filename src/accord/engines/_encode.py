"""Codes of Arrow dictionary columns (Parquet columns read as dictionaries): each batch's
distinct values, in order of first appearance, go through the column's growing dictionary,
and the rows take the codes of their dictionary entries (one gather).

Parquet stores a text column of few distinct values (raters, labels) as a dictionary and
indices: read as such (``ParquetFile(read_dictionary=...)``), a batch's strings are neither
materialised nor hashed row by row; only its distinct values are looked up.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .._types import IntArray
from ..data.dictionary import GrowingDictionary

__all__ = ["dictionary_codes", "new_value_positions"]


def dictionary_codes(
    ids: GrowingDictionary, array: Any, *, wide: bool = True
) -> tuple[npt.NDArray[Any], IntArray, IntArray]:
    """Codes of a pyarrow ``DictionaryArray`` in ``ids`` (-1 where null), the positions of
    the nulls, and the position of the first appearance of each value new to ``ids``.

    The same codes as ``ids.encode(array.dictionary_decode(), ...)``: the batch's distinct
    values are encoded in order of first appearance (entries of the dictionary no row uses
    are left out), so new values are numbered as they first appear in the rows. ``ids``
    records the positions of new values among the distinct values (``row0`` 0): the third
    array gives their positions among the rows instead.

    Examples
    --------
    >>> import pyarrow as pa
    >>> ids = GrowingDictionary()
    >>> batch = pa.DictionaryArray.from_arrays([2, 0, None, 2, 1], ["x", "y", "z"])
    >>> codes, nulls, first = dictionary_codes(ids, batch)
    >>> codes.tolist(), nulls.tolist(), first.tolist(), ids.values().tolist()
    ([0, 1, -1, 0, 2], [2], [0, 1, 4], ['z', 'x', 'y'])
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    n, k = len(array), len(array.dictionary)
    index = array.indices
    if index.null_count:
        index = pc.fill_null(index, k)  # a null reads the entry past the dictionary
    at = np.asarray(index.to_numpy(), dtype=np.int64)
    first = np.full(k + 1, n, dtype=np.int64)
    first[at[::-1]] = np.arange(n - 1, -1, -1, dtype=np.int64)  # the earliest row wins
    used = np.flatnonzero(first[:k] < n)
    order = used[np.argsort(first[used], kind="stable")]
    known = ids.size
    codes_of = ids.encode(array.dictionary.take(pa.array(order, type=pa.int64())), 0)
    small = not wide and ids.size < 1 << 31
    lut = np.full(k + 1, -1, dtype=np.int32 if small else np.int64)
    lut[order] = codes_of
    codes: npt.NDArray[Any] = lut[at]
    # New values were numbered in the order given: their first positions among the rows.
    fresh = np.flatnonzero(codes_of >= known)
    new_first = np.zeros(0, dtype=np.int64)
    if fresh.size:
        firsts = codes_of[fresh]
        _, where = np.unique(firsts, return_index=True)
        new_first = first[order[fresh[where]]]
    gaps = array.null_count or (codes_of.size and int(codes_of.min()) < 0)
    nulls = np.flatnonzero(codes < 0) if gaps else np.zeros(0, dtype=np.int64)
    return codes, nulls, new_first


def new_value_positions(codes: npt.NDArray[Any], known: int) -> IntArray:
    """Positions where the codes of a batch first reach each value new to its dictionary
    (codes ``known`` and up, numbered in order of first appearance; -1 is a null): where a
    code passes every code before it and ``known - 1``.

    >>> new_value_positions(np.array([1, 2, 0, -1, 3, 2, 4]), 2).tolist()
    [1, 4, 6]
    """
    if codes.size == 0:
        return np.zeros(0, dtype=np.int64)
    before = np.maximum.accumulate(codes)
    before[1:] = before[:-1]
    before[0] = known - 1
    np.maximum(before, known - 1, out=before)
    return np.flatnonzero(codes > before).astype(np.int64)
