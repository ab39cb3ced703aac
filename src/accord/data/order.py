"""Orders of code vectors: the stable sort of integer codes by one sort of unique keys.

A stable ``argsort`` of integers is a merge sort; a plain ``np.sort`` of int64 is several
times faster (vectorised where the processor allows). Codes below a known bound packed
above their position are unique keys, so their plain sort is the stable order. Any sortable
values become such codes by their dense ranks (one plain sort), so a stable sort on several
keys (``np.lexsort``) is a few plain sorts.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .._types import IntArray

__all__ = ["dense_ranks", "lexsort_head", "lexsort_order", "stable_order"]

#: Bits of a packed key (code above position), kept below the sign bit of int64.
_KEY_BITS = 63
#: Positions per chunk where they are written into the keys.
_CHUNK = 1 << 20


def stable_order(codes: npt.ArrayLike, n_codes: int) -> IntArray:
    """``np.argsort(codes, kind="stable")`` of integer codes in ``0 .. n_codes - 1``.

    One sort of the keys ``code << bits | position`` where they fit 63 bits, else the
    stable argsort itself (the same order either way).

    Parameters
    ----------
    codes : array_like of int, shape (n,)
        Non-negative codes below ``n_codes``.
    n_codes : int
        A bound on the codes.

    Returns
    -------
    ndarray of int64, shape (n,)
        The positions of the codes in increasing order, ties in the order given.

    Examples
    --------
    >>> stable_order([2, 0, 2, 1, 0], 3).tolist()
    [1, 4, 3, 0, 2]
    """
    values = np.asarray(codes)
    n = int(values.size)
    shift = max(n - 1, 1).bit_length()
    if max(n_codes - 1, 1).bit_length() + shift > _KEY_BITS:
        wide: IntArray = np.argsort(values, kind="stable").astype(np.int64, copy=False)
        return wide
    keys = values.astype(np.int64)
    keys <<= shift
    for lo in range(0, n, _CHUNK):  # the positions a chunk at a time: no array of all
        keys[lo : lo + _CHUNK] |= np.arange(lo, min(lo + _CHUNK, n), dtype=np.int64)
    keys.sort()
    keys &= (1 << shift) - 1
    return keys


def dense_ranks(values: npt.ArrayLike) -> tuple[IntArray, int]:
    """Each value's rank among the distinct values (0 for the smallest; equal values share
    one, NaNs last and equal to each other, as numpy sorts them), and how many there are.

    Examples
    --------
    >>> ranks, n = dense_ranks([0.5, 0.1, 0.5, float("nan"), 0.2, float("nan")])
    >>> ranks.tolist(), n
    ([2, 0, 2, 3, 1, 3], 4)
    """
    array = np.asarray(values)
    n = int(array.size)
    order = np.argsort(array)  # not stable: equal values get one rank whatever their order
    ordered = array[order]
    new = np.ones(n, dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    if array.dtype.kind in "fc":  # NaN != NaN, yet one rank for all of them
        nan = np.isnan(ordered)
        new[1:] &= ~(nan[1:] & nan[:-1])
        del nan
    del ordered
    run = np.cumsum(new, dtype=np.int64)
    run -= 1
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = run
    return ranks, int(run[-1]) + 1 if n else 0


def lexsort_order(keys: tuple[npt.ArrayLike, ...]) -> IntArray:
    """``np.lexsort(keys)``: the stable order by the last key, ties by the one before, and
    so on (NaNs last), from the keys' dense ranks and one :func:`stable_order`.

    Examples
    --------
    >>> lexsort_order(([3.0, 1.0, 2.0, 1.0], [1, 0, 1, 0])).tolist()
    [1, 3, 2, 0]
    """
    combined, size = dense_ranks(keys[-1])
    for key in keys[-2::-1]:
        ranks, n_ranks = dense_ranks(key)
        combined *= n_ranks
        combined += ranks
        combined, size = dense_ranks(combined)  # ranks again: below the number of values
        del ranks
    return stable_order(combined, size)


def lexsort_head(keys: tuple[npt.ArrayLike, ...], n: int) -> IntArray:
    """The first ``n`` of :func:`lexsort_order` ``(keys)``, sorting only the values whose
    last key is within the ``n`` smallest (ties included): any other follows at least ``n``
    values, so the first ``n`` are the same.

    Examples
    --------
    >>> lexsort_head(([3.0, 1.0, 2.0, 1.0, 0.0], [1, 0, 1, 0, 2]), 3).tolist()
    [1, 3, 2]
    """
    last = np.asarray(keys[-1])
    if not 0 < n < last.size:
        return lexsort_order(keys)[: max(n, 0)]
    cut = np.partition(last, n - 1)[n - 1]  # NaNs last, as in the sort
    kept = np.flatnonzero(last <= cut) if cut == cut else np.arange(last.size)
    head = lexsort_order(tuple(np.asarray(key)[kept] for key in keys))[:n]
    out: IntArray = kept[head]
    return out
