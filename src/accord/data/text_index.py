"""A hash index of text values kept from batch to batch, in numpy arrays.

The stream engine numbers a batch's distinct text ids among the ids seen before. Arrow's
``index_in`` hashes every id seen on each call, and a Python dict makes a string object of
each distinct id of every batch; a :class:`TextIndex` hashes each distinct value of a batch
once, from the bytes of the Arrow array (a few vectorised passes, no Python object per
value), and finds it in an open-addressing table of the hashes seen. A hash found is checked
against the value it stands for (the bytes are kept), so the codes are exact: two different
values that share a hash raise :class:`HashCollision` and the caller numbers the values
another way.

pyarrow is imported inside the functions that need it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt

from .._types import IntArray

__all__ = ["HashCollision", "TextIndex", "TextWords", "text_hashes", "text_words", "words_at"]

U64 = npt.NDArray[np.uint64]

_WORD_SALT = np.uint64(0x9E3779B97F4A7C15)
_LENGTH_SALT = np.uint64(0xD6E8FEB86659FD93)


class HashCollision(Exception):
    """Two different values share a hash (or the index is full): the index cannot number
    them, and nothing was changed."""


@dataclasses.dataclass(frozen=True, slots=True)
class TextWords:
    """Texts as 64-bit words: the UTF-8 bytes of each text padded with zeros to a multiple
    of 8 bytes (one word at least), the texts' words one after the other.

    Attributes
    ----------
    words : ndarray of uint64, shape (w,)
    first : ndarray of int64, shape (n,)
        Position in ``words`` of each text's first word.
    count : ndarray of int64, shape (n,)
        Number of words of each text.
    lengths : ndarray of int64, shape (n,)
        Length of each text in bytes.
    """

    words: U64
    first: IntArray
    count: IntArray
    lengths: IntArray

    @property
    def fixed(self) -> int | None:
        """The length every text has (None: lengths differ, or no text)."""
        if self.lengths.size == 0 or int(self.lengths.min()) != int(self.lengths.max()):
            return None
        return int(self.lengths[0])

    def positions(self, which: IntArray) -> IntArray:
        """Positions in ``words`` of the words of the texts ``which``, text after text."""
        return words_at(self.first[which], self.count[which])

    def take(self, which: IntArray) -> TextWords:
        """The texts ``which``, their words one after the other."""
        count = self.count[which]
        first = np.cumsum(count) - count
        return TextWords(self.words[self.positions(which)], first, count, self.lengths[which])


def _equal(words: TextWords, a: IntArray, b: IntArray) -> bool:
    """Whether text ``a[i]`` of ``words`` is text ``b[i]``, for every ``i``."""
    if not np.array_equal(words.lengths[a], words.lengths[b]):
        return False
    return bool(np.array_equal(words.words[words.positions(a)], words.words[words.positions(b)]))


def words_at(first: IntArray, count: IntArray) -> IntArray:
    """``first[i], first[i] + 1, ..., first[i] + count[i] - 1`` for each ``i``, one after the
    other.

    >>> words_at(np.array([5, 0]), np.array([2, 3])).tolist()
    [5, 6, 0, 1, 2]
    """
    if count.size and int(count.min()) == int(count.max()):  # texts of one length
        out: IntArray = (first[:, None] + np.arange(int(count[0]), dtype=np.int64)).ravel()
        return out
    ramp = np.arange(int(count.sum()), dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    out = np.repeat(first, count) + ramp
    return out


def text_words(array: Any) -> TextWords:
    """The texts of a pyarrow string (or large string) array without nulls as words.

    >>> import pyarrow as pa
    >>> got = text_words(pa.array(["ab", "", "abcdefghi"]))
    >>> got.first.tolist(), got.count.tolist(), got.lengths.tolist()
    ([0, 1, 2], [1, 1, 2], [2, 0, 9])
    """
    import pyarrow as pa

    n = len(array)
    buffers = array.buffers()
    wide = pa.types.is_large_string(array.type)
    offsets = np.frombuffer(buffers[1], dtype=np.int64 if wide else np.int32)
    offsets = offsets[array.offset : array.offset + n + 1].astype(np.int64)
    data = np.zeros(0, np.uint8) if buffers[2] is None else np.frombuffer(buffers[2], np.uint8)
    lengths = np.diff(offsets)
    count = np.maximum((lengths + 7) // 8, 1)
    first = np.cumsum(count) - count
    if n and int(lengths.min()) == int(lengths.max()):
        # One length (ids of a fixed pattern): the bytes are a matrix, no gather.
        size = int(lengths[0])
        padded = np.zeros((n, int(count[0]) * 8), dtype=np.uint8)
        padded[:, :size] = data[offsets[0] : offsets[0] + n * size].reshape(n, size)
        return TextWords(padded.view(np.uint64).ravel(), first, count, lengths)
    total = int(count.sum())
    owner = np.repeat(np.arange(n, dtype=np.int64), count)
    at = (offsets[:-1][owner] + 8 * (np.arange(total, dtype=np.int64) - first[owner]))[:, None]
    at = at + np.arange(8, dtype=np.int64)
    inside = at < offsets[1:][owner][:, None]
    cells = np.zeros(at.shape, dtype=np.uint8)
    cells[inside] = data[at[inside]]
    return TextWords(cells.view(np.uint64).ravel(), first, count, lengths)


def _mix(x: U64) -> U64:
    """The finaliser of splitmix64, in place (uint64 arithmetic wraps)."""
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


def text_hashes(words: TextWords) -> U64:
    """A 64-bit hash of each text: the sum of its words each mixed with its position, mixed
    with the length. Never 0 (the index's empty slot).

    >>> import pyarrow as pa
    >>> h = text_hashes(text_words(pa.array(["item-1", "item-22", "item-1"])))
    >>> bool(h[0] == h[2]), bool(h[0] == h[1])
    (True, False)
    """
    n = words.first.size
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    width = int(words.count[0])
    if int(words.count.min()) == int(words.count.max()):  # a matrix, one salt per column
        salts = np.arange(1, width + 1, dtype=np.uint64) * _WORD_SALT
        out = _mix(words.words.reshape(n, width) ^ salts).sum(axis=1, dtype=np.uint64)
    else:
        salt = words_at(np.ones(n, dtype=np.int64), words.count).astype(np.uint64)
        salt *= _WORD_SALT
        out = np.add.reduceat(_mix(words.words ^ salt), words.first)
    out ^= words.lengths.astype(np.uint64) * _LENGTH_SALT
    out = _mix(out)
    out[out == 0] = 1
    return out


class _Buffer:
    """A numpy array that grows at its end, with room to spare (amortised appends)."""

    def __init__(self, dtype: Any) -> None:
        self.data: npt.NDArray[Any] = np.zeros(1024, dtype=dtype)
        self.size = 0

    def append(self, values: npt.NDArray[Any]) -> None:
        end = self.size + values.size
        if end > self.data.size:
            grown = np.zeros(max(end, 2 * self.data.size), dtype=self.data.dtype)
            grown[: self.size] = self.data[: self.size]
            self.data = grown
        self.data[self.size : end] = values
        self.size = end

    def view(self) -> npt.NDArray[Any]:
        return self.data[: self.size]


#: The most a table is filled, in tenths, before it grows to twice the values (linear
#: probing at 0.7 full still finds a value in two probes on average; at 10M values the
#: table of 2**24 slots, 256 MB, where a fill of at most half took 512 MB).
_MAX_LOAD = 7


class TextIndex:
    """Distinct text values numbered ``0, 1, ...`` in the order they are added, found again
    by hash.

    Examples
    --------
    >>> import pyarrow as pa
    >>> index = TextIndex()
    >>> index.add(pa.array(["b", "a"]))
    >>> index.lookup(pa.array(["a", "c", "b"])).tolist()
    [1, -1, 0]
    """

    def __init__(self) -> None:
        self.size = 0
        # Slot -> (hash, code), side by side (one cache line read per probe); hash 0: empty.
        self._table = np.zeros((1 << 10, 2), dtype=np.uint64)
        self._words = _Buffer(np.uint64)
        # Where each value's words start and its length in bytes: kept only once two
        # lengths differ (until then value c is words c * width ... of ``_words``, which
        # saves 16 bytes a value: 160 MB for 10M ids of one pattern).
        self._first = _Buffer(np.int64)
        self._lengths = _Buffer(np.int64)
        # Every value added has this length in bytes (None: lengths differ), so value c
        # is words c * count ... of ``_words``: compared without reading ``_first``.
        self._length: int | None = None

    def _slots(self, hashes: U64) -> IntArray:
        shift = np.uint64(64 - (len(self._table).bit_length() - 1))
        out: IntArray = (hashes >> shift).astype(np.int64)
        return out

    def _find(self, hashes: U64) -> IntArray:
        """The code whose hash is each of ``hashes`` (-1: none), by linear probing."""
        out = np.full(hashes.size, -1, dtype=np.int64)
        pending = np.arange(hashes.size, dtype=np.int64)
        slot, wanted = self._slots(hashes), hashes
        mask = len(self._table) - 1
        while pending.size:
            held = self._table.take(slot, axis=0)  # rows: ten times a 2-D fancy index
            hit = held[:, 0] == wanted
            out[pending[hit]] = held[hit, 1]
            on = np.flatnonzero(~hit & (held[:, 0] != 0))
            pending, wanted, slot = pending[on], wanted[on], (slot[on] + 1) & mask
        return out

    def _place(self, hashes: U64, codes: IntArray) -> None:
        """Put hashes absent from the table (distinct) with their codes, by linear probing."""
        slot = self._slots(hashes)
        mask = len(self._table) - 1
        flat = self._table.reshape(-1)  # hash of slot s at 2 s, its code at 2 s + 1
        while hashes.size:
            free = np.flatnonzero(flat[2 * slot] == 0)
            # Hashes aiming at one free slot: the code written last holds it.
            at = 2 * slot[free]
            flat[at + 1] = codes[free]
            won = free[flat[at + 1] == codes[free].astype(np.uint64)]
            flat[2 * slot[won]] = hashes[won]
            rest = np.ones(hashes.size, dtype=bool)
            rest[won] = False
            hashes, codes, slot = hashes[rest], codes[rest], (slot[rest] + 1) & mask

    def lookup(self, array: Any) -> IntArray:
        """The code of each value of a pyarrow string array without nulls (-1: not added).

        Raises
        ------
        HashCollision
            A value shares its hash with a different value added before.
        """
        words = text_words(array)
        found = self._find(text_hashes(words))
        hit = np.flatnonzero(found >= 0)
        if hit.size and not self._same(words, hit, found[hit]):
            raise HashCollision("two values share a hash")
        return found

    def _same(self, words: TextWords, hit: IntArray, codes: IntArray) -> bool:
        """Whether the texts ``hit`` of ``words`` are the values numbered ``codes``."""
        length = self._length
        if length is not None and words.fixed == length:
            # Values and texts of one length: rows of two word matrices.
            width = int(words.count[0])
            known = self._words.view().reshape(-1, width)
            ours = words.words.reshape(-1, width).take(hit, axis=0)
            return bool(np.array_equal(known.take(codes, axis=0), ours))
        if length is not None:  # values of one length, texts of several
            if bool((words.lengths[hit] != length).any()):
                return False
            first = codes * max((length + 7) // 8, 1)
        else:
            if not np.array_equal(self._lengths.view()[codes], words.lengths[hit]):
                return False
            first = self._first.view()[codes]
        # Equal lengths, so as many words: compare them word by word.
        mine = words.positions(hit)
        theirs = words_at(first, words.count[hit])
        return bool(np.array_equal(self._words.view()[theirs], words.words[mine]))

    def add(self, array: Any) -> None:
        """Number the values of a pyarrow string array (distinct, none added before, no
        nulls) ``size, size + 1, ...`` in their order.

        Raises
        ------
        HashCollision
            Two of the values share a hash, or the codes would pass int32 (nothing added).
        """
        words = text_words(array)
        hashes = text_hashes(words)
        ordered = np.sort(hashes)
        if bool((ordered[1:] == ordered[:-1]).any()):
            raise HashCollision("two values share a hash")
        self._append(words, hashes)

    def _append(self, words: TextWords, hashes: U64) -> None:
        """Number texts of distinct hashes, none in the table, ``size, size + 1, ...``."""
        n = hashes.size
        if n == 0:
            return
        if self.size + n >= 1 << 31:
            raise HashCollision("more values than int32 codes")
        if 10 * (self.size + n) > _MAX_LOAD * len(self._table):
            self._grow(2 * (self.size + n))
        self._place(hashes, np.arange(self.size, self.size + n, dtype=np.int64))
        if self.size == 0:
            self._length = words.fixed
        elif self._length is not None and words.fixed != self._length:
            self._spell_out()
        if self._length is None:
            self._first.append(words.first + self._words.size)
            self._lengths.append(words.lengths)
        self._words.append(words.words)
        self.size += n

    def _spell_out(self) -> None:
        """Start and length of every value held (all of one length until now), from here on
        kept value by value."""
        assert self._length is not None
        width = max((self._length + 7) // 8, 1)
        self._first.append(np.arange(self.size, dtype=np.int64) * width)
        self._lengths.append(np.full(self.size, self._length, dtype=np.int64))
        self._length = None

    def encode_rows(self, array: Any) -> tuple[IntArray, IntArray]:
        """Codes of every row of a pyarrow string array (-1 where null), the values not seen
        before numbered next in order of first appearance (and added), and the row where
        each new value first appears: one hash per row, no dictionary of the rows first.

        Raises
        ------
        HashCollision
            Two different values share a hash (nothing added).

        Examples
        --------
        >>> import pyarrow as pa
        >>> index = TextIndex()
        >>> index.add(pa.array(["b"]))
        >>> codes, first = index.encode_rows(pa.array(["c", "b", None, "a", "c"]))
        >>> codes.tolist(), first.tolist()
        ([1, 0, -1, 2, 1], [0, 3])
        """
        words = text_words(array)
        hashes = text_hashes(words)
        codes = self._find(hashes)
        if array.null_count:
            codes[np.asarray(array.is_null())] = -1
        hit = np.flatnonzero(codes >= 0)
        if hit.size and not self._same(words, hit, codes[hit]):
            raise HashCollision("two values share a hash")
        new = np.flatnonzero(codes < 0)
        if array.null_count:
            new = new[np.asarray(array.is_valid())[new]]
        if new.size == 0:
            return codes, new
        # Rows of one hash in groups (a stable sort: each group's first row leads it).
        order = np.argsort(hashes[new], kind="stable")
        grouped = hashes[new][order]
        head = np.r_[True, grouped[1:] != grouped[:-1]]
        group = np.cumsum(head) - 1
        leads = new[order[head]]
        rows = new[order]
        if not _equal(words, rows, leads[group]):
            raise HashCollision("two values share a hash")
        rank = np.argsort(leads, kind="stable")  # groups by first appearance
        number = np.empty(rank.size, dtype=np.int64)
        number[rank] = np.arange(self.size, self.size + rank.size, dtype=np.int64)
        first = leads[rank]
        self._append(words.take(first), hashes[first])
        codes[rows] = number[group]
        return codes, first

    def _grow(self, needed: int) -> None:
        """A table of at least ``needed`` slots (a power of two), every hash placed again."""
        held = self._table[self._table[:, 0] != 0]
        size = 1 << max(needed - 1, 1).bit_length()
        self._table = np.zeros((size, 2), dtype=np.uint64)
        self._place(held[:, 0].copy(), held[:, 1].astype(np.int64))
