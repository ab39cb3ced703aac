"""Consistent codes across batches and partitions: the encoder of the stream and dask engines.

A :class:`GrowingDictionary` turns each batch of a column into integer codes that stay valid
for the whole input: values are numbered in order of first appearance, exactly as
``pandas.factorize`` numbers them over the whole column (which is how :class:`accord.Ratings`
numbers items and raters). Labels are first numbered the same way ("raw" codes); once every
batch has been seen, :func:`raw_label_domain` orders the distinct labels as :class:`accord.Ratings`
orders them (numeric sort for numbers, the declared categories when given) and returns the
relabelling from raw codes to domain codes.

pyarrow is imported inside the functions that need it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError
from .._types import BoolArray, IntArray, Level
from .._validate import at_rows, rows_that
from .encoder import (
    LabelsAs,
    arrow_of,
    dictionary_of,
    distinct_values,
    label_domain,
    missing_of,
    typed_ids,
    typed_text,
)
from .text_index import HashCollision, TextIndex

__all__ = [
    "GrowingDictionary",
    "as_numpy",
    "dictionary_codes",
    "encode_ids",
    "new_value_positions",
    "raw_label_domain",
]

#: A direct lookup table (value - min -> code) is used for integer ids while the range of the
#: values seen is at most this many entries, or at most :data:`DIRECT_SPREAD` times the number
#: of values.
DIRECT_RANGE = 1 << 24
DIRECT_SPREAD = 8
#: The same for a dictionary that encodes one batch, the whole column (the memory engine):
#: no later batch fills a wide table, and wider ids hash faster in Arrow.
ONE_BATCH_RANGE, ONE_BATCH_SPREAD = 1 << 20, 2


def as_numpy(array: Any) -> npt.NDArray[Any]:
    """A pyarrow array (no nulls) as a numpy array of its natural dtype."""
    out: npt.NDArray[Any] = array.to_numpy(zero_copy_only=False)
    return out


def _plain(array: Any) -> Any:
    """Decode dictionary arrays and turn float NaN into null (NaN is a missing label)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if pa.types.is_floating(array.type) and array.null_count < len(array):
        nan = pc.is_nan(array)
        if pc.any(nan).as_py():
            array = pc.if_else(nan, pa.scalar(None, array.type), array)
    return array


class GrowingDictionary:
    """Values to codes in order of first appearance, growing as batches arrive.

    Integer columns whose values stay in a compact range use a direct lookup table (a gather
    per batch); anything else is dictionary-encoded by pyarrow per batch and the batch's
    distinct values are looked up among the values seen before: text in a
    :class:`~accord.data.text_index.TextIndex` kept from batch to batch (one hash per
    distinct value, or per row when most rows hold distinct values; no Python object per
    value), other types with one ``pyarrow.compute.index_in`` (a hash of the known values in
    Arrow); the new ones are appended in order of first appearance.

    Parameters
    ----------
    track_rows : bool, default False
        Record the row where each value first appeared (:meth:`first_rows`).
    direct_range, direct_spread : int, default DIRECT_RANGE, DIRECT_SPREAD
        Integer ids use a lookup table while their range is at most ``direct_range``
        entries, or at most ``direct_spread`` times the number of values.

    Attributes
    ----------
    size : int
        Number of distinct values seen so far.
    """

    def __init__(
        self,
        *,
        track_rows: bool = False,
        direct_range: int = DIRECT_RANGE,
        direct_spread: int = DIRECT_SPREAD,
    ) -> None:
        self.track_rows = track_rows
        self.direct_range, self.direct_spread = direct_range, direct_spread
        self.size = 0
        self._chunks: list[Any] = []  # new values of each batch, in code order
        self._first_rows: list[IntArray] = []
        self._table: npt.NDArray[np.int32] | None = None  # direct lookup, value - lo -> code
        self._lo = 0
        # Hashed mode: the values seen so far as Arrow arrays (None: not hashed yet).
        self._known: list[Any] | None = None
        # Text values seen so far -> code (see _lookup_known): a hash index, or a dict should
        # two values share a hash; None until a second batch is looked up.
        self._index: TextIndex | None = None
        self._codes: dict[Any, int] | None = None
        self._spread = False  # the last batch's values were mostly distinct
        self._type: Any = None
        self._sorted = False  # the last batch with new values was sorted
        # Ids seen so far are exactly start, start + 1, ... in this order (auto-increment ids
        # in files sorted by id): the code is the id minus ``start``, no table at all.
        self._run: int | None = None
        self._run_dtype: Any = None
        #: Positions of the nulls of the last batch encoded, when the encoding found them.
        self.nulls: IntArray | None = None

    # -------------------------------------------------------------- lookup modes
    def _direct_fits(self, lo: int, hi: int, n_new: int) -> bool:
        span = hi - lo + 1
        return span <= self.direct_range or span <= self.direct_spread * (self.size + n_new)

    def _to_hashed(self) -> None:
        """Leave the integer lookup modes: the values seen so far become the Arrow value set."""
        import pyarrow as pa

        self._leave_run()
        self._known = [pa.array(self.values(), type=self._type)] if self.size else []
        self._table = None

    def _encode_direct(
        self,
        values: npt.NDArray[Any],
        row0: int,
        rows: IntArray | None,
        valid: BoolArray | None = None,
    ) -> npt.NDArray[np.int32] | None:
        """Codes (int32) through the lookup table, or None when the range is too wide for it.

        ``rows`` gives the input row of each value (default ``row0 + position``); ``valid``,
        when given, marks the values that count (the others are fill values standing in for
        nulls: they are coded but never recorded as a first appearance).
        """
        if values.size == 0:
            return np.zeros(0, dtype=np.int32)
        if self._run is not None and valid is not None:
            self._leave_run()  # nulls: the lookup table handles them
        if valid is None and (self._run is not None or (self.size == 0 and self._table is None)):
            run = self._encode_run(values, row0)
            if run is not None:
                return run
        vmin, vmax = int(values.min()), int(values.max())
        if vmax >= 1 << 63:
            return None  # past int64: hashed
        if self._table is None:
            if self.size:
                return None  # already hashed
            # Ids from 0 up index the table as they are (no subtraction per batch).
            lo = 0 if vmin >= 0 and self._direct_fits(0, vmax, values.size) else vmin
            if not self._direct_fits(lo, vmax, values.size):
                return None
            self._lo = lo
            self._table = np.full(vmax - lo + 1, -1, dtype=np.int32)
        lo = min(self._lo, vmin)
        hi = max(self._lo + self._table.size - 1, vmax)
        if lo < self._lo or hi >= self._lo + self._table.size:
            if not self._direct_fits(lo, hi, values.size):
                return None
            # Grow with room to spare so that ids arriving in increasing order do not
            # reallocate on every batch.
            old_lo, old = self._lo, self._table
            span = hi - lo + 1
            extra = span // 2 if hi > old_lo + old.size - 1 else 0
            new_lo = lo - (span // 2 if lo < old_lo else 0)
            if not self._direct_fits(new_lo, hi + extra, values.size):
                new_lo, extra = lo, 0
            table = np.full(hi + extra - new_lo + 1, -1, dtype=np.int32)
            table[old_lo - new_lo : old_lo - new_lo + old.size] = old
            self._lo, self._table = new_lo, table
        if self._lo == 0 and values.dtype.itemsize >= 4:
            offsets: npt.NDArray[Any] = values
        else:
            # Narrow ids are widened once here (take would widen them more slowly).
            offsets = values.astype(np.intp)
            if self._lo:
                offsets -= self._lo
        if self._sorted and valid is None and self._add_sorted(offsets, row0, values.dtype):
            # Sorted like the batches before (ids in increasing order bring new values in
            # every batch): new values numbered first, then one gather.
            out: npt.NDArray[np.int32] = self._table.take(offsets)
            return out
        if self.size == 0 and valid is None:
            # Every value is new (the first batch, or the memory engine's one batch).
            if self._add_sorted(offsets, row0, values.dtype):
                self._sorted = True
            else:
                self._number_new(offsets, None, row0, rows, values.dtype)
            out = self._table.take(offsets)
            return out
        codes: npt.NDArray[np.int32] = self._table.take(offsets)
        has_new = int(codes.min()) < 0
        if has_new and valid is None and self._add_sorted(offsets, row0, values.dtype):
            self._sorted = True
            codes = self._table.take(offsets)
        elif has_new:
            self._sorted = False
            new = codes < 0
            where_new = np.flatnonzero(new if valid is None else new & valid)
            self._number_new(offsets[where_new], where_new, row0, rows, values.dtype)
            where = np.flatnonzero(new)
            codes[where] = self._table.take(offsets[where])
        return codes

    def _number_new(
        self,
        fresh: npt.NDArray[Any],
        where: IntArray | None,
        row0: int,
        rows: IntArray | None,
        dtype: Any,
    ) -> None:
        """Number the values ``fresh`` (table offsets, none known yet) in order of first
        appearance; ``where`` gives their positions in the batch (None: every position)."""
        assert self._table is not None
        if fresh.size > 1 and bool(np.all(fresh[1:] >= fresh[:-1])):
            # Ids in increasing order (files sorted by item): runs, no hashing.
            starts: IntArray | None = np.flatnonzero(np.r_[True, fresh[1:] != fresh[:-1]])
            uniq = fresh[np.asarray(starts)].astype(np.int64)
        elif self._table.size <= 2 * fresh.size:
            uniq, starts = _first_seen(fresh, self._table.size)
        else:
            # Hash-based, in order of first appearance (no sort).
            first_codes, uniq = pd.factorize(fresh.astype(np.int64), sort=False)
            starts = _first_positions(first_codes) if self.track_rows else None
        self._table[uniq] = np.arange(self.size, self.size + uniq.size, dtype=np.int32)
        self._chunks.append((uniq + self._lo).astype(dtype))
        if self.track_rows and starts is not None:
            at = starts if where is None else where[starts]
            self._first_rows.append(row0 + at if rows is None else rows[at])
        self.size += int(uniq.size)

    def integer_codes(self, values: npt.NDArray[Any], row0: int = 0) -> IntArray | None:
        """Codes of a batch of integer ids without nulls (numpy), through a run or the
        lookup table; None when they spread too wide for a table (the values known are
        unchanged: encode the batch with :meth:`encode`).

        >>> ids = GrowingDictionary()
        >>> ids.integer_codes(np.array([7, 5, 7, 9, 5])).tolist(), ids.values().tolist()
        ([0, 1, 0, 2, 1], [7, 5, 9])
        """
        if self._known is not None:
            return None
        codes = self._encode_direct(values, row0, None)
        return None if codes is None else codes.astype(np.int64)

    def _encode_run(self, values: npt.NDArray[Any], row0: int) -> npt.NDArray[np.int32] | None:
        """Codes of a batch while the ids are one run of consecutive integers in increasing
        order (codes are the ids minus the first id); None, leaving that mode for the lookup
        table, as soon as a batch breaks the run."""
        start = int(values[0]) if self._run is None else self._run
        first, last = int(values[0]), int(values[-1])
        end = start + self.size  # the next new id
        broken = (
            values.dtype.kind not in "iu"
            or first < start
            or first > end
            or _steps_beyond_one(values[:1024])  # most ids out of order show it early
            or _steps_beyond_one(values)
            or last - start >= 1 << 31
        )
        if broken:
            self._leave_run()
            return None
        if self._run is None:
            self._run, self._run_dtype = start, values.dtype
        if last >= end:
            if self.track_rows:
                # First row of each new id: where its run starts.
                fresh = np.arange(end, last + 1, dtype=np.int64)
                self._first_rows.append(row0 + np.searchsorted(values, fresh))
            self.size += last + 1 - end
        # ``start`` in the ids' own type: a Python int past int32 would not cast.
        codes: npt.NDArray[np.int32] = np.subtract(values, values.dtype.type(start), dtype=np.int32)
        return codes

    def _leave_run(self) -> None:
        """Turn the run of ids into the lookup table and the decode table's first chunk."""
        if self._run is None:
            return
        start, n = self._run, self.size
        self._run = None
        self._chunks.insert(0, np.arange(start, start + n).astype(self._run_dtype))
        # Ids from 0 up index the table as they are, when the range from 0 is not too wide.
        lo = 0 if start >= 0 and self._direct_fits(0, start + n - 1, 0) else start
        self._lo = lo
        self._table = np.full(start + n - lo, -1, dtype=np.int32)
        self._table[start - lo :] = np.arange(n, dtype=np.int32)

    def _add_sorted(self, offsets: npt.NDArray[Any], row0: int, dtype: Any) -> bool:
        """Number the new values of a batch whose values never decrease (files sorted by
        item); False, doing nothing, when the batch is not sorted.

        The distinct values are the starts of runs, already in order of first appearance:
        no hashing, and no per-row work beyond one difference.
        """
        assert self._table is not None
        step = np.diff(offsets)
        if step.size and int(step.min()) < 0:
            self._sorted = False
            return False
        starts = np.flatnonzero(step != 0)  # on booleans: several times faster
        starts += 1
        starts = np.r_[0, starts]
        distinct = offsets[starts]
        fresh = self._table.take(distinct) < 0
        uniq = distinct[fresh].astype(np.int64)
        self._table[uniq] = np.arange(self.size, self.size + uniq.size, dtype=np.int32)
        self._chunks.append((uniq + self._lo).astype(dtype))
        if self.track_rows:
            self._first_rows.append(row0 + starts[fresh])
        self.size += int(uniq.size)
        return True

    def _known_value(self) -> Any:
        """A value already in the dictionary (None when it is empty)."""
        if not self.size:
            return None
        if self._run is not None:
            return self._run
        first = self._chunks[0]
        return first[0].item() if isinstance(first, np.ndarray) else first[0].as_py()

    def encode(self, array: Any, row0: int, *, wide: bool = True) -> npt.NDArray[Any]:
        """Codes of one batch of a column (pyarrow array); -1 where the value is null.

        Parameters
        ----------
        array : pyarrow.Array
        row0 : int
            Row number (0-based, over the whole input) of the batch's first row, to record
            where each value first appeared.
        wide : bool, default True
            Codes as int64; False gives int32 codes where the lookup table makes them (a
            copy less per batch; int64 otherwise).
        """
        import pyarrow as pa

        array = self._conform(array)
        self.nulls = None
        if pa.types.is_integer(array.type) and self._known is None:
            codes = self._encode_integers(array, row0, wide=wide)
            if codes is not None:
                return codes
            self._to_hashed()
        if self._known is None:
            self._known = []
        return self._encode_hashed(array, row0)

    def _conform(self, array: Any) -> Any:
        """The batch as a plain Arrow array of the column's type (that of the first batch)."""
        import pyarrow as pa

        array = _plain(array)
        if self._type is None:
            self._type = array.type
        elif array.type != self._type and not array.type.equals(pa.null()):
            try:
                array = array.cast(self._type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                raise InvalidInputError(
                    f"the column's type changes between batches ({self._type} then "
                    f"{array.type}); write the files with one schema"
                ) from None
        return array

    def _encode_integers(self, array: Any, row0: int, *, wide: bool) -> npt.NDArray[Any] | None:
        """Codes of an integer batch through a run or the lookup table; None when the values
        spread too wide for a table (the caller then hashes)."""
        import pyarrow.compute as pc

        n = len(array)
        valid: BoolArray | None = None
        nulls = np.zeros(0, dtype=np.int64)
        if array.null_count == n:
            self.nulls = np.arange(n, dtype=np.int64)
            return np.full(n, -1, dtype=np.int64 if wide else np.int32)
        if array.null_count:
            valid = _validity(array)
            nulls = np.flatnonzero(~valid)
            # Nulls read as a value of the column (one known already, else the batch's
            # smallest), so the codes are one gather; they are set to -1 after.
            fill = self._known_value()
            if fill is None:
                fill = pc.min(array).as_py()
            dtype = np.dtype(array.type.to_pandas_dtype())
            present = np.frombuffer(array.buffers()[1], dtype=dtype)
            present = present[array.offset : array.offset + n].copy()
            present[nulls] = fill
        else:
            present = np.asarray(array.to_numpy())
        direct = self._encode_direct(present, row0, None, valid)
        if direct is None:
            return None
        direct[nulls] = -1
        self.nulls = nulls
        return direct.astype(np.int64) if wide else direct

    def _lookup_known(self, batch_values: Any) -> IntArray:
        """The codes of a batch's distinct values among the values seen (-1: new).

        Arrow's ``index_in`` hashes the whole value set on every call, which costs as much as
        the values seen: fine while they are few, quadratic over a file with many distinct
        ids. Text values are kept in a :class:`~accord.data.text_index.TextIndex` from batch
        to batch instead, and only the batch's distinct values are hashed (in numpy, no
        Python object per value). Should two different values share a hash, a dict of the
        values takes over.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        assert self._known is not None
        k = len(batch_values)
        text = pa.types.is_string(self._type) or pa.types.is_large_string(self._type)
        if self._index is None and self._codes is None and text:
            self._index = TextIndex()
            for chunk in self._known:
                if self._index is not None:
                    self._index_add(chunk)
        if self._index is not None:
            try:
                return self._index.lookup(batch_values)
            except HashCollision:
                self._to_dict()
        if self._codes is not None:
            get = self._codes.get
            return np.fromiter(
                (get(v, -1) for v in batch_values.to_pylist()), dtype=np.int64, count=k
            )
        found = pc.index_in(batch_values, value_set=pa.chunked_array(self._known, type=self._type))
        return np.asarray(pc.fill_null(found, -1).to_numpy(), dtype=np.int64)

    def _encode_rows(self, array: Any, row0: int) -> IntArray | None:
        """Codes of a batch of text values mostly distinct (shuffled ids), each row hashed
        once in the index (no dictionary of the batch first); None, a dict having taken
        over, should two values share a hash."""
        import pyarrow as pa

        assert self._index is not None and self._known is not None
        try:
            codes, first = self._index.encode_rows(array)
        except HashCollision:
            self._to_dict()
            return None
        if first.size:
            fresh = array.take(pa.array(first, type=pa.int64()))
            self._chunks.append(fresh)
            self._known.append(fresh)
            if self.track_rows:
                self._first_rows.append(row0 + first)
            self.size += int(first.size)
        return codes

    def drop_index(self) -> None:
        """Let the hash index of text values go (its memory returned), once every batch is
        encoded; a later batch builds it again from the values."""
        self._index = None

    def _index_add(self, fresh: Any) -> None:
        """Number new text values in the hash index (values new to the dictionary, in code
        order); on a hash shared by two values, a dict takes over from the index."""
        assert self._index is not None
        try:
            self._index.add(fresh)
        except HashCollision:
            self._to_dict()

    def _to_dict(self) -> None:
        """Text values to codes in a dict (every value known so far), in place of the index."""
        import pyarrow as pa

        assert self._known is not None
        self._index = None
        known = pa.chunked_array(self._known, type=self._type)
        self._codes = dict(zip(known.to_pylist(), range(len(known)), strict=True))

    def _encode_hashed(self, array: Any, row0: int) -> IntArray:
        """Codes of a batch of any type: the batch's distinct values (pyarrow
        ``dictionary_encode``, in order of first appearance) are looked up among the known
        values in one ``index_in``; the new ones are numbered next, in that order."""
        import pyarrow as pa
        import pyarrow.compute as pc

        assert self._known is not None
        if self._index is not None and self._spread:
            by_rows = self._encode_rows(array, row0)
            if by_rows is not None:
                return by_rows
        encoded = pc.dictionary_encode(array)
        batch_values = encoded.dictionary
        idx = np.asarray(pc.fill_null(encoded.indices, -1).to_numpy(), dtype=np.int64)
        k = len(batch_values)
        # Mostly distinct values (shuffled text ids): the next batches are hashed row by row.
        self._spread = 2 * k > len(array)
        if k == 0:  # every value of the batch is null
            return np.full(len(array), -1, dtype=np.int64)
        lookup = np.full(k + 1, -1, dtype=np.int64)  # the last entry codes a null
        if self.size:
            lookup[:k] = self._lookup_known(batch_values)
        new = np.flatnonzero(lookup[:k] < 0)
        if new.size:
            lookup[new] = np.arange(self.size, self.size + new.size, dtype=np.int64)
            fresh = batch_values.take(pa.array(new, type=pa.int64()))
            self._chunks.append(fresh)
            self._known.append(fresh)
            if self._index is not None:
                self._index_add(fresh)
            elif self._codes is not None:
                self._codes.update(
                    zip(fresh.to_pylist(), range(self.size, self.size + new.size), strict=True)
                )
            if self.track_rows:
                # Dictionary indices number the values by first appearance in the batch.
                self._first_rows.append(row0 + _first_positions(idx)[new])
            self.size += int(new.size)
        codes: IntArray = lookup[idx]
        return codes

    # ------------------------------------------------------------------ decode
    def values(self) -> npt.NDArray[Any]:
        """The distinct values in code order (numpy, natural dtype)."""
        import pyarrow as pa

        if self._run is not None:
            out: npt.NDArray[Any] = np.arange(self._run, self._run + self.size).astype(
                self._run_dtype
            )
            return out
        if not self._chunks:
            return np.zeros(0, dtype=object)
        if all(isinstance(c, np.ndarray) for c in self._chunks):
            return np.concatenate(self._chunks)
        if not any(isinstance(c, np.ndarray) for c in self._chunks):
            return as_numpy(pa.concat_arrays(self._chunks))
        return np.concatenate(
            [c if isinstance(c, np.ndarray) else as_numpy(c) for c in self._chunks]
        )

    def values_since(self, known: int) -> npt.NDArray[Any]:
        """The values numbered ``known`` and after (those new since the dictionary held
        ``known`` values), reading only the chunks that hold them."""
        if self._run is not None or known == 0:
            return self.values()[known:]
        import pyarrow as pa

        tail: list[Any] = []
        held = self.size
        for chunk in reversed(self._chunks):
            if held <= known:
                break
            tail.insert(0, chunk)
            held -= len(chunk)
        parts = [c if isinstance(c, np.ndarray) else as_numpy(c) for c in tail]
        if not parts:
            return np.zeros(0, dtype=object)
        kinds = {p.dtype.kind for p in parts}
        if len(kinds) > 1:
            parts = [p.astype(object) for p in parts]
        del pa
        return np.concatenate(parts)[known - held :]

    def first_rows(self) -> IntArray:
        """Row (0-based, over the whole input) where each value first appeared (only when
        built with ``track_rows=True``)."""
        if not self._first_rows:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate(self._first_rows).astype(np.int64)


def _validity(array: Any) -> BoolArray:
    """The validity bitmap of a pyarrow array as numpy booleans (True = not null)."""
    bitmap = array.buffers()[0]
    n = len(array)
    if bitmap is None:
        return np.ones(n, dtype=bool)
    bits = np.frombuffer(bitmap, dtype=np.uint8)
    out: BoolArray = np.unpackbits(bits, bitorder="little", count=array.offset + n)[
        array.offset :
    ].view(bool)
    return out


def _steps_beyond_one(values: npt.NDArray[Any]) -> bool:
    """Whether consecutive values ever fall or rise by more than one."""
    if values.size < 2:
        return False
    step = np.diff(values)
    return int(step.min()) < 0 or int(step.max()) > 1


def _first_seen(offsets: npt.NDArray[Any], span: int) -> tuple[IntArray, IntArray]:
    """The distinct values of ``offsets`` (each in ``0 .. span-1``, ``span`` at most about
    twice their number) in order of first appearance, and the position of each one's first
    appearance: the earliest position of each value by one ``minimum.at`` over a table of
    the span, then a sort of the distinct values by it (no hashing).

    >>> _first_seen(np.array([7, 5, 7, 9, 5]), 10)
    (array([7, 5, 9]), array([0, 1, 3]))
    """
    n = offsets.size
    row: Any = np.int32 if n < 1 << 31 else np.intp  # half the memory for the positions
    first: npt.NDArray[np.signedinteger[Any]] = np.full(span, n, dtype=row)
    np.minimum.at(first, offsets, np.arange(n, dtype=row))
    present = np.flatnonzero(first < n)
    at = first[present]
    order = np.argsort(at, kind="stable")
    return present[order], at[order].astype(np.int64)


def _first_positions(codes: npt.NDArray[Any]) -> IntArray:
    """Position of the first occurrence of each code ``0 .. k-1``, for codes numbered in order
    of first appearance (-1, a null, is skipped): the positions where a code passes every
    code before it (one running maximum, no sort).

    >>> _first_positions(np.array([0, 1, 0, -1, 2, 1, 3]))
    array([0, 1, 4, 6])
    """
    if codes.size == 0:
        return np.zeros(0, dtype=np.int64)
    before = np.maximum.accumulate(codes)
    return np.flatnonzero(codes > np.r_[-1, before[:-1]]).astype(np.int64)


def raw_label_domain(
    raw: Any,
    first_rows: IntArray,
    *,
    level: Level,
    categories: Sequence[Any] | None,
    column: str,
    text: bool = False,
    na_values: Sequence[str] | None = None,
    labels_as: LabelsAs = "auto",
) -> tuple[IntArray, tuple[Any, ...], BoolArray, str, tuple[str, ...]]:
    """Order the distinct labels as :class:`accord.Ratings` does (the same function).

    Parameters
    ----------
    raw : ndarray or pyarrow Array, shape (k,)
        The distinct labels as read (missing values among them), in order of first
        appearance (raw codes ``0 .. k-1``). Arrow text is typed without a Python object
        per label (a text file's continuous scores).
    first_rows : ndarray of int64, shape (k,)
        Row (0-based) where each label first appeared, for messages.
    level, categories, column, na_values, labels_as
        As in :meth:`accord.Ratings.from_long`.
    text : bool
        The labels are a text file's cells: their type is decided from all of them.

    Returns
    -------
    remap, domain, missing, order, notes
        ``remap`` (ndarray of int64, shape (k,)) is the domain code of each raw code (-1 for
        a missing label), ``missing`` (ndarray of bool, shape (k,)) which raw labels are
        missing values; ``domain``, ``order`` and ``notes`` are those of
        :func:`accord.data.encoder.label_domain`.
    """
    import pyarrow as pa

    arrow = isinstance(raw, pa.Array)
    if not arrow and raw.dtype.kind in "US":
        raw = raw.astype(object)
    k = len(raw)
    missing = missing_of(raw, na_values, keep=categories) if k else np.zeros(0, bool)
    present = np.flatnonzero(~missing)
    remap = np.full(k, -1, dtype=np.int64)
    if present.size == 0:
        raise InvalidInputError(f"column {column!r}: every label is missing; nothing to rate")
    labels = raw.take(pa.array(present)) if arrow else raw[present]
    if text and labels_as != "text":
        labels = typed_text(labels)
    elif arrow:
        labels = as_numpy(labels)
    rows = np.asarray(first_rows, dtype=np.int64)[present]

    def rows_of(positions: IntArray) -> tuple[IntArray, int]:
        at = rows[positions]
        order = np.argsort(at, kind="stable")
        return at[order], int(positions[order[0]])

    codes, domain, _, order, notes = label_domain(
        labels, rows_of, level=level, categories=categories, column=column, labels_as=labels_as
    )
    remap[present] = codes
    return remap, domain, missing, order, notes


# ------------------------------------------------------------ Arrow dictionary columns
# Parquet stores a text column of few distinct values (raters, labels) as a dictionary and
# indices: read as such (``ParquetFile(read_dictionary=...)``), a batch's strings are neither
# materialised nor hashed row by row; only its distinct values are looked up.


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


def encode_ids(
    values: Any,
    *,
    column: str,
    what: str,
    text: bool = False,
    na_values: Sequence[str] | None = None,
) -> tuple[IntArray, npt.NDArray[Any]]:
    """Codes of an id column, numbered in order of first appearance, and the decode table.

    Ids are compared as they are written: in a text file ``001`` and ``1`` are two ids
    (the decode table shows numbers only when every id is a number and no two ids spell
    the same number). A missing id is an error naming its rows.
    """
    integers = None if text else _integer_column(values)
    if integers is not None:
        # The stream engine's dictionary on one batch: a run, or a table over the range.
        ids = GrowingDictionary(direct_range=ONE_BATCH_RANGE, direct_spread=ONE_BATCH_SPREAD)
        direct = ids.integer_codes(integers)
        if direct is not None:
            return direct, ids.values().astype(object)
    idx, dictionary = dictionary_of(arrow_of(values))
    miss = missing_of(dictionary, na_values)
    if (idx < 0).any() or miss.any():
        bad = np.flatnonzero(np.r_[miss, True][idx])
        raise InvalidInputError(
            f"column {column!r}: {rows_that(bad.size)} no {what} id ({at_rows(bad)})"
        )
    if text and len(dictionary):
        decode = typed_ids(dictionary)
    else:
        decode = distinct_values(dictionary, text=False)
    if decode.dtype != object:
        # Decode tables hold plain Python scalars (int, float, str, dates).
        if decode.dtype.kind in "biuf":
            decode = decode.astype(object)
        else:
            boxed = np.empty(decode.size, dtype=object)
            boxed[:] = dictionary.to_pylist()
            decode = boxed
    return idx.astype(np.int64), decode


def _integer_column(values: Any) -> npt.NDArray[Any] | None:
    """The column as a 1-D numpy integer array when it is one (numpy, or Arrow integers
    without nulls, not copied where the storage allows), else None."""
    import pyarrow as pa

    if isinstance(values, pa.Array | pa.ChunkedArray):
        if not pa.types.is_integer(values.type) or values.null_count:
            return None
        values = values.to_numpy()
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.dtype.kind not in "iu":
        return None
    return values
