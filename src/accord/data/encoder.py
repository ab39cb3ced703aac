"""The one encoder: columns of any type to integer codes, without Python objects per row.

Every reader and every engine turns item ids, rater ids and labels into codes here:

- :func:`arrow_of` takes a column as the user has it (numpy, pandas with numpy or Arrow
  storage, polars, pyarrow, a list) to Arrow, without a copy where the storage allows;
- :func:`dictionary_of` hashes it once (``pyarrow.compute.dictionary_encode``): one index per
  row and the distinct values in order of first appearance;
- everything else (what counts as missing, the type of a text column, the order of the
  categories) is decided on the distinct values, never row by row.

The missing-value rule (:func:`missing_of`), applied to ids and labels alike: a value is
missing when it is null (``None``, ``NaN``, ``NaT``, ``pd.NA``, an Arrow null), or text that
is empty or blank, or text that, with surrounding spaces removed, is one of ``na_values``
(default :data:`accord._validate.DEFAULT_NA_VALUES`) -- unless it is one of the declared
categories, which always win.

Text read from a file (CSV) has no type of its own: the type of the whole column is decided
from its distinct values (:func:`typed_text`): numbers when every value is a number, booleans
when every value is ``true``/``false`` and each of the two is written one way, else text. A
column that mixes numbers and text is text.

Labels are compared as written. On the distinct labels, the read report warns when two text
labels differ only in surrounding spaces, case or Unicode normal form (:func:`spelling_notes`),
when two spell one number (``2`` and ``2.0``), and when two numbers differ by less than a
relative ``1e-9`` (float noise, :func:`close_number_notes`); ``labels_as="normalized"`` reads the
text spellings of one label as one category.

pyarrow is imported inside the functions that need it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from typing import Any, Literal, get_args

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, hint, offers, option, shell_word
from .._types import BoolArray, FloatArray, IntArray, Level, in_threads, usable_cores
from .._validate import check_na_values, format_rows, tidy_scalar

__all__ = [
    "CLOSE_NUMBERS",
    "LABELS_AS",
    "LabelRowError",
    "LabelsAs",
    "arrow_of",
    "categories_as_text",
    "category_values",
    "close_number_notes",
    "dictionary_of",
    "distinct_values",
    "label_domain",
    "merged_spellings",
    "missing_mask",
    "missing_of",
    "n_distinct",
    "order_line",
    "parses_as_number",
    "rows_in",
    "sorted_numbers_domain",
    "spelling_notes",
    "typed_column",
    "typed_ids",
    "typed_text",
]

LabelsAs = Literal["auto", "number", "text", "normalized"]
LABELS_AS: tuple[str, ...] = get_args(LabelsAs)

# --------------------------------------------------------------------------- to Arrow


def _object_to_arrow(values: npt.NDArray[Any]) -> Any:
    """An object array to Arrow: its own type when the values share one, else text."""
    import pyarrow as pa

    try:
        return pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
        pass
    # Values of several types (numbers and text): read as text, missing values kept missing.
    nulls = np.asarray(pd.isna(values), dtype=bool)
    text = values.astype(str)
    return pa.array(text, mask=nulls, type=pa.large_string())


def arrow_of(values: Any) -> Any:
    """A column as a pyarrow Array or ChunkedArray, without a copy where possible.

    numpy arrays of numbers and pandas/polars/pyarrow columns with Arrow storage are wrapped,
    not copied (a float NaN becomes a null). A column of Python objects of one type is
    converted by pyarrow; one that mixes types (numbers and text) becomes text.
    """
    import pyarrow as pa

    if isinstance(values, pa.Array | pa.ChunkedArray):
        arr: Any = values
    elif isinstance(values, pd.Series | pd.Index | pd.api.extensions.ExtensionArray):
        if pd.api.types.is_object_dtype(values.dtype):
            arr = _object_to_arrow(np.asarray(values, dtype=object))
        else:
            arr = pa.array(values, from_pandas=True)
    elif isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise InvalidInputError(f"a column must be 1-D; got shape {values.shape}")
        arr = (
            _object_to_arrow(values)
            if values.dtype == object
            else pa.array(values, from_pandas=True)
        )
    elif hasattr(values, "to_arrow"):  # polars Series, narwhals Series
        arr = values.to_arrow()
    else:
        arr = _object_to_arrow(np.asarray(values, dtype=object))
    if pa.types.is_string_view(arr.type):
        arr = arr.cast(pa.large_string())
    return arr


#: Rows from which a column of text may be hashed in two halves side by side, when the
#: process may use two cores (:func:`dictionary_of`).
SPLIT_ROWS = 2_000_000
#: Times a value is repeated, on average, from which the two halves pay: below, the second
#: hash of the halves' distinct values costs more than the halves save (10M shuffled text
#: ids: even at 8 repeats, 20-25% less time at 10, 1.5-2x more time when every id is
#: distinct).
SPLIT_REPEATS = 9
#: Rows drawn to estimate the repeats (:func:`_repeats_often`).
SAMPLE_ROWS = 100_000


def dictionary_of(array: Any) -> tuple[npt.NDArray[np.int32], Any]:
    """Indices (-1 for null) and distinct values of a column, in order of first appearance.

    A column of text (or bytes) of :data:`SPLIT_ROWS` rows or more whose values repeat
    :data:`SPLIT_REPEATS` times or more on average (as rater ids and labels do, and the item
    ids of items rated ten times) is hashed in two halves in two threads when the process
    may use two cores, and the second half's values are then numbered after the first's
    (one more hash, of the two halves' distinct values): the same indices and values as one
    hash of the whole column, in about three quarters of its time on 10M text item ids
    repeated ten times each.

    Parameters
    ----------
    array : pyarrow Array or ChunkedArray

    Returns
    -------
    indices : ndarray of int32, shape (n,)
    dictionary : pyarrow Array
        The distinct values (float NaN among them, if any; nulls are not).
    """
    import pyarrow as pa

    if isinstance(array, pa.Array):
        array = pa.chunked_array([array], type=array.type)
    if pa.types.is_dictionary(array.type):
        # Already encoded (a pandas Categorical, a Parquet dictionary column): one dictionary
        # for every chunk, then only the values used, in order of first appearance.
        if array.num_chunks > 1:
            array = array.unify_dictionaries()
        dictionary = (
            array.chunk(0).dictionary
            if array.num_chunks
            else pa.array([], type=array.type.value_type)
        )
        idx, in_order = _indices(array, len(dictionary))
        if in_order:  # as read from a file: nothing to renumber
            return idx, dictionary
        used_order = pd.unique(idx[idx >= 0])
        remap = np.full(len(dictionary) + 1, -1, dtype=np.int32)
        remap[used_order] = np.arange(used_order.size, dtype=np.int32)
        out: npt.NDArray[np.int32] = remap[idx]
        return out, dictionary.take(pa.array(used_order, type=pa.int64()))
    if (
        len(array) >= SPLIT_ROWS
        and _text(array.type)
        and usable_cores() > 1
        and _repeats_often(array)
    ):
        half = len(array) // 2
        first, second = in_threads(_hashed, [array.slice(0, half), array.slice(half)])
        return _after(first, second)
    return _hashed(array)


def _text(kind: Any) -> bool:
    """Whether values of the Arrow type ``kind`` are equal only when their bytes are (text
    and bytes: no NaN, no two spellings of one value)."""
    import pyarrow as pa

    return bool(
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
    )


def _repeats_often(array: Any, rows: int = SAMPLE_ROWS) -> bool:
    """Whether the values of a chunked array repeat :data:`SPLIT_REPEATS` times or more on
    average, estimated from ``rows`` rows drawn at random (seeded; far fewer than the
    column's): among ``s`` rows of ``n`` whose values each occur ``m`` times, about
    ``s^2 (m - 1) / (2 n)`` pairs are equal, which the sample's rows beyond its distinct
    values count.

    >>> import pyarrow as pa
    >>> often = pa.chunked_array([pa.array([f"id{i % 1000}" for i in range(100_000)])])
    >>> unique = pa.chunked_array([pa.array([f"id{i}" for i in range(100_000)])])
    >>> _repeats_often(often, rows=1_000), _repeats_often(unique, rows=1_000)
    (True, False)
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(array)
    at = np.unique(np.random.default_rng(0).integers(0, n, rows))
    starts = np.cumsum([0] + [len(chunk) for chunk in array.chunks])
    cut = np.searchsorted(at, starts)
    parts = [
        chunk.take(pa.array(at[cut[j] : cut[j + 1]] - starts[j]))
        for j, chunk in enumerate(array.chunks)
        if cut[j + 1] > cut[j]
    ]
    drawn = pa.chunked_array(parts, type=array.type)
    equal_pairs = at.size - len(pc.unique(drawn))
    return bool(2 * n * equal_pairs >= (SPLIT_REPEATS - 1) * at.size**2)


def _hashed(array: Any) -> tuple[npt.NDArray[np.int32], Any]:
    """:func:`dictionary_of` of a chunked array that is not dictionary-encoded, by one
    ``dictionary_encode``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(array) == 0:  # no chunk, or only empty ones (which encode to no chunk at all)
        return np.zeros(0, dtype=np.int32), pa.array([], type=array.type)
    encoded = pc.dictionary_encode(array)
    # The hash table is shared by the chunks: the last chunk's dictionary holds every value.
    dictionary = encoded.chunk(encoded.num_chunks - 1).dictionary
    return _indices(encoded)[0], dictionary


def _after(
    first: tuple[npt.NDArray[np.int32], Any], second: tuple[npt.NDArray[np.int32], Any]
) -> tuple[npt.NDArray[np.int32], Any]:
    """:func:`dictionary_of` of two parts of a column, each encoded on its own: the second's
    values numbered after the first's, those it shares with it numbered as there.

    >>> import pyarrow as pa
    >>> idx, values = _after(
    ...     (np.array([0, 1, -1, 0], np.int32), pa.array(["b", "a"])),
    ...     (np.array([0, 1, 2, -1], np.int32), pa.array(["c", "b", "d"])),
    ... )
    >>> idx.tolist(), values.to_pylist()
    ([0, 1, -1, 0, 2, 0, 3, -1], ['b', 'a', 'c', 'd'])
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    (idx_a, values_a), (idx_b, values_b) = first, second
    if not len(values_a) or not len(values_b):  # a part of nulls only: nothing to renumber
        return np.concatenate([idx_a, idx_b]), values_b if not len(values_a) else values_a
    both = pc.dictionary_encode(pa.chunked_array([values_a, values_b], type=values_a.type))
    # the first part's values are distinct, numbered 0, 1, ... as they are; then the second's
    renumber = np.append(both.chunk(1).indices.to_numpy(), np.int32(-1))  # -1 stays -1
    out = np.concatenate([idx_a, renumber[idx_b]])
    return out, both.chunk(1).dictionary


def _indices(encoded: Any, size: int = -1) -> tuple[npt.NDArray[np.int32], bool]:
    """The indices of a chunked dictionary array as int32, -1 for null (one copy), and,
    given the size of the dictionary, whether they use each of its values, each first seen
    after the values before it (as the dictionaries of a file's reader are).

    They do when the running maximum of the indices climbs one at a time to ``size - 1``:
    checked chunk by chunk as each is copied, while it is in cache.
    """
    import pyarrow.compute as pc

    out: npt.NDArray[np.int32] = np.empty(len(encoded), dtype=np.int32)
    start, top, climbs = 0, -1, size >= 0
    for chunk in encoded.chunks:
        ind = chunk.indices
        if ind.null_count:
            ind = pc.fill_null(ind, -1)
        part = out[start : start + len(ind)]
        part[:] = ind.to_numpy(zero_copy_only=False)
        start += len(ind)
        if climbs and part.size:
            highest = np.maximum.accumulate(part)
            np.maximum(highest, top, out=highest)
            climbs = int(highest[0]) <= top + 1 and not bool(np.any(np.diff(highest) > 1))
            top = int(highest[-1])
    return out, climbs and top == size - 1


def rows_in(indices: npt.NDArray[Any], which: npt.ArrayLike) -> tuple[IntArray, int]:
    """Rows (0-based) whose index is one of ``which``, and the index at the first of them
    (a scan, for messages only)."""
    sel = np.asarray(which, dtype=np.int64)
    wanted = np.zeros(max(int(indices.max(initial=-1)), int(sel.max(initial=-1))) + 2, bool)
    wanted[sel] = True
    rows = np.flatnonzero(wanted[indices]).astype(np.int64)
    return rows, int(indices[rows[0]]) if rows.size else int(sel[0])


# --------------------------------------------------------------------------- missing


def categories_as_text(categories: Sequence[Any] | None) -> list[str]:
    """The declared categories as text (how they are matched against text cells)."""
    return [] if categories is None else [str(tidy_scalar(c)).strip() for c in categories]


def missing_of(
    dictionary: Any,
    na_values: Sequence[str] | None = None,
    keep: Sequence[Any] | None = None,
) -> BoolArray:
    """Which distinct values are missing (the rule in the module's docstring).

    Parameters
    ----------
    dictionary : pyarrow Array or ndarray
        Distinct values.
    na_values : sequence of str, optional
        Text that counts as missing (default :data:`accord._validate.DEFAULT_NA_VALUES`).
    keep : sequence, optional
        Declared categories: text equal to one of them is never missing.

    Examples
    --------
    >>> import numpy as np
    >>> missing_of(np.array(["a", " ", "NA", None, "None"], dtype=object), keep=["None"])
    array([False,  True,  True,  True, False])
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    spellings = check_na_values(na_values)
    arr = arrow_of(dictionary) if not isinstance(dictionary, pa.Array) else dictionary
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if len(arr) == 0:
        return np.zeros(0, dtype=bool)
    miss = pc.is_null(arr, nan_is_null=True)
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        trimmed = pc.utf8_trim_whitespace(arr)
        listed = pc.is_in(trimmed, value_set=pa.array(list(spellings), type=arr.type))
        kept = categories_as_text(keep)
        if kept:
            listed = pc.and_(listed, pc.invert(pc.is_in(trimmed, pa.array(kept, arr.type))))
        blank = pc.equal(pc.utf8_length(trimmed), 0)
        miss = pc.or_kleene(miss, pc.or_kleene(blank, listed))
    out: BoolArray = np.asarray(pc.fill_null(miss, True).to_numpy(zero_copy_only=False), bool)
    return out


def missing_mask(
    values: Any, na_values: Sequence[str] | None = None, keep: Sequence[Any] | None = None
) -> BoolArray:
    """Which entries of a column are missing (the rule of :func:`missing_of`, per row).

    Examples
    --------
    >>> import numpy as np
    >>> missing_mask(np.array([1.0, np.nan, 2.0]))
    array([False,  True, False])
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = arrow_of(values)
    if len(arr) == 0:
        return np.zeros(0, dtype=bool)
    kind = arr.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
        # numbers: only nulls and NaN are missing, no text rule applies (no hash of values)
        numeric: BoolArray = np.asarray(
            pc.is_null(arr, nan_is_null=True).to_numpy(zero_copy_only=False), dtype=bool
        )
        return numeric
    idx, dictionary = dictionary_of(arr)
    out: BoolArray = np.r_[missing_of(dictionary, na_values, keep), True][idx]
    return out


# --------------------------------------------------------------------------- typing text


#: Values of a long text column a type is tried on before the whole column.
_SAMPLE = 1024


def _tried(read: Callable[[Any], npt.NDArray[Any] | None], arr: Any) -> npt.NDArray[Any] | None:
    """``read(arr)``, where ``read`` gives None unless it can read every value: on a long
    column, first on :data:`_SAMPLE` values spread over it, whose failure settles it (a cast
    of text ids to numbers costs about a microsecond for each value it cannot read)."""
    import pyarrow as pa

    if len(arr) > _SAMPLE:
        at = np.linspace(0, len(arr) - 1, _SAMPLE).astype(np.int64)
        if read(arr.take(pa.array(at, type=pa.int64()))) is None:
            return None
    return read(arr)


def _text_numbers(arr: Any) -> npt.NDArray[Any] | None:
    """The numbers of text values when every one is a number (ints when all are integers)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    trimmed = pc.utf8_trim_whitespace(arr)
    try:
        floats = np.asarray(
            pc.cast(trimmed, pa.float64()).to_numpy(zero_copy_only=False), np.float64
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if np.isnan(floats).any():  # "nan" that is not a missing spelling: a label as text
        return None
    finite = np.isfinite(floats)
    if np.all(finite) and np.all(floats == np.round(floats)):
        try:
            ints: npt.NDArray[Any] = np.asarray(
                pc.cast(trimmed, pa.int64()).to_numpy(zero_copy_only=False), np.int64
            )
            return ints
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            if np.all(np.abs(floats) < 2**53):
                return floats.astype(np.int64)
    return floats


def _booleans(arr: Any) -> npt.NDArray[np.bool_] | None:
    """Text values as booleans when every one is ``true`` or ``false`` (any case) and each
    of the two is written one way, else None: ``TRUE`` beside ``True`` is two labels, as
    written, whatever the other values (the read report warns)."""
    import pyarrow.compute as pc

    lowered = pc.utf8_lower(pc.utf8_trim_whitespace(arr))
    is_true = pc.equal(lowered, "true")
    if not pc.all(pc.or_(is_true, pc.equal(lowered, "false"))).as_py():
        return None
    for which in (is_true, pc.invert(is_true)):
        if pc.count_distinct(pc.filter(arr, which)).as_py() > 1:
            return None
    return np.asarray(is_true.to_numpy(zero_copy_only=False), dtype=bool)


def typed_text(values: Any) -> npt.NDArray[Any]:
    """The type of a text column, decided from its distinct (present) values.

    Numbers when every value is a number (int64 when every one is an integer, else
    float64; surrounding spaces ignored), booleans when every value is ``true`` or
    ``false`` (any case) and each of the two is written one way, else the text (object
    array).

    Examples
    --------
    >>> typed_text(["01", "2", " 3"])
    array([1, 2, 3])
    >>> typed_text(["1", "2.5"])
    array([1. , 2.5])
    >>> typed_text(["1", "one"])
    array(['1', 'one'], dtype=object)
    >>> typed_text(["1", "nan"])  # a "nan" that is not missing is a label, not a number
    array(['1', 'nan'], dtype=object)
    >>> typed_text(["TRUE", "FALSE"])
    array([ True, False])
    >>> typed_text(["TRUE", "True", "FALSE"])  # true spelled two ways: the text as written
    array(['TRUE', 'True', 'FALSE'], dtype=object)
    """
    import pyarrow as pa

    arr = arrow_of(values if not isinstance(values, list | tuple) else np.asarray(values, object))
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        out: npt.NDArray[Any] = np.asarray(arr.to_numpy(zero_copy_only=False))
        return out
    if len(arr) == 0:
        return np.zeros(0, dtype=object)
    typed = _tried(_text_numbers, arr)
    if typed is None:
        typed = _tried(_booleans, arr)
    if typed is not None:
        return typed
    text: npt.NDArray[Any] = np.asarray(arr.to_numpy(zero_copy_only=False), dtype=object)
    return text


def typed_column(values: Any, na_values: Sequence[str] | None = None) -> npt.NDArray[Any]:
    """A text column as numpy, typed from all its values (:func:`typed_text`).

    Missing values (the rule of :func:`missing_of`) are NaN; a column of integers with a
    missing value is float64, as ``pandas.read_csv`` reads it.

    Examples
    --------
    >>> typed_column(["1", "", "3"])
    array([ 1., nan,  3.])
    >>> typed_column(["1", "x", "NA"])
    array(['1', 'x', nan], dtype=object)
    """
    import pyarrow as pa

    arr = arrow_of(values if not isinstance(values, list | tuple) else np.asarray(values, object))
    idx, dictionary = dictionary_of(arr)
    miss = missing_of(dictionary, na_values)
    present = np.flatnonzero(~miss)
    typed = typed_text(dictionary.take(pa.array(present, type=pa.int64())))
    has_missing = bool(miss.any()) or bool((idx < 0).any())
    if typed.dtype.kind in "iu" and has_missing:
        typed = typed.astype(np.float64)
    if typed.dtype.kind == "b" and has_missing:
        typed = typed.astype(object)
    fill: Any = np.nan
    table = np.empty(len(dictionary) + 1, dtype=typed.dtype if typed.size else object)
    if has_missing:
        table[:] = fill
    table[present] = typed
    out: npt.NDArray[Any] = table[idx]
    return out


def typed_ids(values: Any) -> npt.NDArray[Any]:
    """Decode table of a text file's ids: typed (:func:`typed_text`) when no two ids spell
    the same number, else the text as written (ids are compared as written)."""
    typed = typed_text(values)
    if typed.dtype == object or np.unique(typed).size == typed.size:
        return typed
    out: npt.NDArray[Any] = np.asarray(arrow_of(values).to_numpy(zero_copy_only=False), object)
    return out


def distinct_values(dictionary: Any, *, text: bool) -> npt.NDArray[Any]:
    """Distinct values as numpy: typed from the whole column when ``text`` (a text file's
    column), else in their own type (text as an object array)."""
    if text:
        return typed_text(dictionary)
    out: npt.NDArray[Any] = np.asarray(dictionary.to_numpy(zero_copy_only=False))
    if out.dtype.kind in "US":
        out = out.astype(object)
    return out


# --------------------------------------------------------------------------- ids


def n_distinct(codes: IntArray, size: int) -> int:
    """How many distinct values ``codes`` (each in ``0 .. size-1``) hold: by marking them in
    a table of ``size`` bytes where that is not much larger than the codes (a dask block's
    items are numbered over every item of the data), else by sorting them.

    >>> n_distinct(np.array([3, 0, 3]), 5), n_distinct(np.array([7, 7]), 10**9)
    (2, 1)
    """
    if size > 8 * codes.size:
        return int(np.unique(codes).size)
    seen = np.zeros(size, dtype=bool)
    seen[codes] = True
    return int(np.count_nonzero(seen))


# --------------------------------------------------------------------------- labels


def category_values(categories: Sequence[Any]) -> FloatArray:
    """Numeric scale of the categories: their values when every one is a finite number,
    else their positions 0..q-1 (the scale of :attr:`accord.Ratings.category_values`).

    >>> category_values([1, "2.5"]).tolist(), category_values(["low", "high"]).tolist()
    ([1.0, 2.5], [0.0, 1.0])
    >>> category_values([1, float("inf")]).tolist()
    [0.0, 1.0]
    """
    try:
        vals = np.asarray(categories, dtype=np.float64)
    except (TypeError, ValueError):
        return np.arange(len(categories), dtype=np.float64)
    if vals.ndim != 1 or not np.all(np.isfinite(vals)):
        return np.arange(len(categories), dtype=np.float64)
    return vals


def _integral_floats(values: FloatArray) -> bool:
    finite = values[np.isfinite(values)]
    return (
        bool(finite.size)
        and bool(np.all(finite == np.round(finite)))
        and bool(np.all(np.abs(finite) < 2**53))
    )


def _numbers_of(values: npt.NDArray[Any]) -> FloatArray:
    """Numbers of distinct labels (NaN where a label is not a number)."""
    if values.dtype.kind in "biuf":
        return values.astype(np.float64)
    out: FloatArray = pd.to_numeric(
        pd.Series([v.strip() if isinstance(v, str) else v for v in values], dtype=object),
        errors="coerce",
    ).to_numpy(dtype=np.float64, na_value=np.nan)
    return out


def _sorted_domain(values: npt.NDArray[Any]) -> tuple[IntArray, npt.NDArray[Any]]:
    """Codes into the sorted distinct values, and those values."""
    uniq, inverse = np.unique(values, return_inverse=True)
    return inverse.astype(np.int64).reshape(-1), uniq


def label_domain(
    raw: npt.NDArray[Any],
    rows_of: Callable[[IntArray], tuple[IntArray, int]],
    *,
    level: Level,
    categories: Sequence[Any] | None,
    column: str,
    labels_as: LabelsAs = "auto",
) -> tuple[IntArray, tuple[Any, ...], FloatArray | None, str, tuple[str, ...]]:
    """Order the distinct present labels into the category domain.

    Parameters
    ----------
    raw : ndarray, shape (k,)
        The distinct labels (none missing), in any order; several may be the same number.
    rows_of : callable
        ``rows_of(positions in raw)`` gives the rows (0-based, in order) holding those
        labels and the position in ``raw`` of the label at the first of them, for messages.
    level, categories, column, labels_as
        As in :meth:`accord.Ratings.from_long`.

    Returns
    -------
    remap : ndarray of int64, shape (k,)
        Domain code of each distinct label.
    domain : tuple
        The ordered categories.
    values : ndarray of float64 or None
        Numeric value of each category at interval/ratio level.
    order : str
        How the domain is ordered, in words.
    notes : tuple of str
        Warnings for the read report.
    """
    if raw.dtype.kind in "US":
        raw = raw.astype(object)
    where = _Where(raw, rows_of)
    if categories is not None:
        return _declared_domain(raw, where, categories, level=level, column=column)
    if level in ("interval", "ratio") or labels_as == "number":
        return _numeric_domain(raw, where, level=level, column=column)
    if raw.dtype.kind in "fbiu":
        return _number_domain(raw, column)
    notes: tuple[str, ...] = ()
    if all(isinstance(v, str) for v in raw):
        if labels_as == "normalized":
            raw, notes = merged_spellings(raw, column)
        else:
            notes = spelling_notes(raw, column)
        if labels_as != "text" and level == "ordinal" and _all_numbers(raw):
            # Every label is a number written as text: ordered by its number.
            return _numeric_domain(raw, where, level=level, column=column)
        if labels_as != "text":
            notes = _same_number_notes(raw, column) + notes
    return _text_domain(raw, level=level, column=column, notes=notes)


def _all_numbers(raw: npt.NDArray[Any]) -> bool:
    return bool(np.all(np.isfinite(_numbers_of(raw))))


#: Numbers closer than this, relative to the larger, are flagged as float noise.
CLOSE_NUMBERS = 1e-9


def _spelling_keys(raw: npt.NDArray[Any]) -> list[str] | None:
    """Each text label with surrounding spaces removed, in Unicode NFKC form, lower case:
    the labels of one key differ only in how they are spelled; None when no two labels
    share a key (decided in Arrow, without a Python object per label)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = pc.utf8_trim_whitespace(pa.array(raw, pa.large_string()))
    keys = pc.utf8_lower(pc.utf8_normalize(arr, "NFKC"))
    if pc.count_distinct(keys).as_py() == len(keys):
        return None
    out: list[str] = keys.to_pylist()
    return out


def _spelling_groups(raw: npt.NDArray[Any]) -> dict[str, list[str]]:
    """The labels that share a spelling key (:func:`_spelling_keys`), by the first of them;
    only groups of two labels or more, each sorted, in sorted order."""
    keys = _spelling_keys(raw)
    if keys is None:
        return {}
    groups: dict[str, list[str]] = {}
    for key, label in zip(keys, raw, strict=True):
        groups.setdefault(key, []).append(str(label))
    found = [sorted(set(g)) for g in groups.values() if len(set(g)) > 1]
    return dict(sorted((g[0], g) for g in found))  # in the order of the labels, not the rows


def _how_spelled(group: Sequence[str]) -> tuple[str, Callable[[object], str]]:
    """How the labels of one group differ (surrounding spaces, case, Unicode form), and how
    to show them: ``ascii()`` when they differ in Unicode form (they print alike), else
    ``repr()``."""
    unicode = any(unicodedata.normalize("NFKC", v) != v for v in group)
    kinds = [
        kind
        for kind, differs in (
            ("surrounding spaces", any(v != v.strip() for v in group)),
            ("case", len({unicodedata.normalize("NFKC", v.strip()) for v in group}) > 1),
            ("Unicode form", unicode),
        )
        if differs
    ]
    return " and ".join(kinds), ascii if unicode else repr


def _listed(group: Sequence[str], show: Callable[[object], str]) -> str:
    return ", ".join(show(v) for v in group[:-1]) + f" and {show(group[-1])}"


def spelling_notes(raw: npt.NDArray[Any], column: str) -> tuple[str, ...]:
    """A warning for each set of text labels that differ only in surrounding spaces, case or
    Unicode normal form (``yes``, ``yes `` and ``Yes``), read as different categories (at
    most three; computed on the distinct labels).

    Examples
    --------
    >>> print(spelling_notes(np.array(["yes", "Yes", "no"], dtype=object), "label")[0])
    column 'label': labels 'Yes' and 'yes' differ only in case and are read as different categories; pass labels_as='normalized' to read them as one
    """  # noqa: E501
    groups = [g for g in _spelling_groups(raw).values() if not all(map(parses_as_number, g))]
    notes = []
    for group in groups[:3]:  # numbers spelled two ways have their own note
        kinds, show = _how_spelled(group)
        notes.append(
            f"column {column!r}: labels {_listed(group, show)} differ only in {kinds} and "
            f"are read as different categories; pass {option('labels_as', 'normalized')} "
            "to read them as one"
        )
    return tuple(notes)


def merged_spellings(
    raw: npt.NDArray[Any], column: str
) -> tuple[npt.NDArray[Any], tuple[str, ...]]:
    """The text labels with the spellings of one label (:func:`spelling_notes`) made one,
    and a note for each set merged (``labels_as="normalized"``).

    A set is read as the spelling among them without surrounding spaces, in Unicode NFC
    form, first in alphabetical order: chosen from the labels alone, so every engine and
    every order of the rows reads it alike.

    Examples
    --------
    >>> merged, notes = merged_spellings(np.array(["yes ", "Yes", "no"], dtype=object), "l")
    >>> merged
    array(['Yes', 'Yes', 'no'], dtype=object)
    >>> print(notes[0])
    column 'l': labels 'Yes' and 'yes ' (differing only in surrounding spaces and case) are read as one category, 'Yes'
    """  # noqa: E501
    groups = _spelling_groups(raw)
    if not groups:
        return raw, ()
    chosen = {
        v: min(g, key=lambda s: (s != s.strip(), unicodedata.normalize("NFC", s) != s, s))
        for g in groups.values()
        for v in g
    }
    merged = np.empty(raw.size, dtype=object)
    merged[:] = [chosen.get(v, v) for v in raw]
    notes = []
    for group in list(groups.values())[:3]:
        kinds, show = _how_spelled(group)
        notes.append(
            f"column {column!r}: labels {_listed(group, show)} (differing only in {kinds}) "
            f"are read as one category, {show(chosen[group[0]])}"
        )
    return merged, tuple(notes)


def close_number_notes(uniq: FloatArray, column: str) -> tuple[str, ...]:
    """A warning when two distinct numeric labels differ by less than a relative
    :data:`CLOSE_NUMBERS` (``0.1 + 0.2`` and ``0.3``): float noise read as two categories.
    ``uniq`` holds the distinct labels, sorted.

    Examples
    --------
    >>> print(close_number_notes(np.array([0.1, 0.3, 0.1 + 0.2]), "score")[0])
    column 'score': labels 0.3 and 0.30000000000000004 differ by less than a relative 1e-09 (floating-point noise) and are read as different categories; round them to the precision they were measured at to read them as one
    """  # noqa: E501
    x = np.asarray(uniq, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size < 2:
        return ()
    gap = np.diff(x)
    close = np.flatnonzero((gap > 0) & (gap < CLOSE_NUMBERS * np.maximum(abs(x[:-1]), abs(x[1:]))))
    if close.size == 0:
        return ()
    listed = "; ".join(f"{float(x[i])!r} and {float(x[i + 1])!r}" for i in close[:3])
    more = f" ({close.size} such pairs)" if close.size > 3 else ""
    return (
        f"column {column!r}: labels {listed}{more} differ by less than a relative "
        f"{CLOSE_NUMBERS!r} (floating-point noise) and are read as different categories; "
        "round them to the precision they were measured at to read them as one",
    )


Domain = tuple[IntArray, tuple[Any, ...], FloatArray | None, str, tuple[str, ...]]


class LabelRowError(InvalidInputError):
    """A label the level or the declared categories do not admit; the message names it and
    its first row, and ``row`` is that row (0-based, as the caller's rows count)."""

    def __init__(self, message: str, row: int = -1) -> None:
        super().__init__(message)
        self.row = row


class _Where:
    """Where labels are, for messages: the first row, the rows listed, how many, and the
    label at the first row."""

    def __init__(
        self, raw: npt.NDArray[Any], rows_of: Callable[[IntArray], tuple[IntArray, int]]
    ) -> None:
        self.raw = raw
        self.rows_of = rows_of

    def __call__(self, positions: IntArray) -> tuple[int, str, int, Any]:
        rows, which = self.rows_of(positions)
        return int(rows[0]), format_rows(rows), int(rows.size), tidy_scalar(self.raw[which])


def _declared_domain(
    raw: npt.NDArray[Any],
    where: _Where,
    categories: Sequence[Any],
    *,
    level: Level,
    column: str,
) -> Domain:
    """The declared categories: each label matched exactly, then by number (1 and 1.0),
    then by text ("1" and 1); a label outside them is an error."""
    k = raw.size
    numeric = level in ("interval", "ratio")
    domain = [tidy_scalar(c) for c in categories]
    if len(domain) == 0:
        raise InvalidInputError("categories: the declared domain is empty")
    if len(set(map(repr, domain))) != len(domain):
        raise InvalidInputError(f"categories: the declared domain has repeats: {domain!r}")
    dom_values: FloatArray | None = None
    if numeric:
        try:
            dom_values = np.asarray(domain, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"categories: the level is {level}, so every category must be a number; "
                f"got {domain!r}"
            ) from None
    remap = np.full(k, -1, dtype=np.int64)
    if raw.dtype == object or raw.dtype.kind == "b":
        exact = pd.Index(domain, dtype=object).get_indexer(pd.Index(raw, dtype=object))
        remap = np.where(exact >= 0, exact, remap)
    nums_dom = _numbers_of(np.asarray(domain, dtype=object))
    if np.all(np.isfinite(nums_dom)) and not any(isinstance(c, bool) for c in domain):
        nums = _numbers_of(raw) if raw.dtype.kind != "b" else np.full(k, np.nan)
        by_num = pd.Index(nums_dom).get_indexer(pd.Index(nums))
        remap = np.where((remap < 0) & (by_num >= 0) & np.isfinite(nums), by_num, remap)
    if (remap < 0).any():
        as_text = pd.Index(categories_as_text(domain), dtype=object)
        texts = pd.Index([str(tidy_scalar(v)).strip() for v in raw], dtype=object)
        remap = np.where(remap < 0, as_text.get_indexer(texts), remap)
    bad = np.flatnonzero(remap < 0)
    if bad.size:
        first, listed, count, label = where(bad)
        raise LabelRowError(
            f"column {column!r}: label {label!r} at row {first + 1} is not "
            f"among the declared categories {domain!r} ({count} such rows: {listed})",
            first,
        )
    if level == "ratio" and dom_values is not None and np.any(dom_values < 0):
        raise InvalidInputError(
            f"categories: the level is ratio, so every category must be >= 0; got {domain!r}"
        )
    return remap, tuple(domain), dom_values, "as declared", ()


def _numeric_domain(raw: npt.NDArray[Any], where: _Where, *, level: Level, column: str) -> Domain:
    """Every label read as a number (interval/ratio level, or ``labels_as="number"``),
    sorted; a label that is not a finite number (or, at ratio level, is negative) is an
    error."""
    numeric = level in ("interval", "ratio")
    nums = _numbers_of(raw)
    bad = np.flatnonzero(~np.isfinite(nums))
    if bad.size:
        first, listed, count, shown = where(bad)
        why = (
            f"the level is {level}"
            if numeric
            else f"{option('labels_as', 'number')} reads every label as a number"
        )
        not_a = "is not finite" if parses_as_number(shown) else "is not a number"
        raise LabelRowError(
            f"column {column!r}: label {shown!r} at row {first + 1} {not_a}, but {why} "
            f"({count} such rows: {listed})" + (_text_labels_hint() if numeric else ""),
            first,
        )
    if level == "ratio" and np.any(nums < 0):
        first, _, _, shown = where(np.flatnonzero(nums < 0))
        raise LabelRowError(
            f"column {column!r}: label {shown!r} at row {first + 1} is negative, but the "
            "ratio level needs values >= 0",
            first,
        )
    remap, uniq = _sorted_domain(nums)
    domain, values, notes = sorted_numbers_domain(uniq, column)
    return remap, domain, values if numeric else None, "numeric", notes


def sorted_numbers_domain(
    uniq: FloatArray, column: str
) -> tuple[tuple[Any, ...], FloatArray, tuple[str, ...]]:
    """The domain of sorted distinct finite numbers ``uniq``: Python ints when every one is
    a whole number (below 2**53, exact in int64), else floats (made in one call); their
    values as float64; and the note on numbers that differ by float noise
    (:func:`close_number_notes`).

    >>> sorted_numbers_domain(np.array([1.0, 2.0]), "score")[0]
    (1, 2)
    """
    integral = _integral_floats(uniq)
    domain: tuple[Any, ...] = tuple((uniq.astype(np.int64) if integral else uniq).tolist())
    notes = () if integral else close_number_notes(uniq, column)
    return domain, uniq.astype(np.float64), notes


def _text_labels_hint() -> str:
    """What to do about text where numbers are read: read the labels at a level of text
    labels, where the caller can choose one; else write the numbers alone."""
    if offers("level"):
        return hint("; use {} for text labels", "level", "nominal", "ordinal")
    return "; write each value as a plain number (no unit, no thousands separator)"


def _number_domain(raw: npt.NDArray[Any], column: str) -> Domain:
    """Labels that are numbers or booleans in their own type, in their order (floats that
    are all integers become integers)."""
    if raw.dtype.kind == "f":
        if _integral_floats(raw) and np.isfinite(raw).all():  # inf stays a float
            raw = raw.astype(np.int64)
        remap, uniq = _sorted_domain(raw)
        notes = close_number_notes(uniq, column) if uniq.dtype.kind == "f" else ()
        return remap, tuple(tidy_scalar(v) for v in uniq), None, "numeric", notes
    remap, uniq = _sorted_domain(raw)
    order = "numeric" if raw.dtype.kind != "b" else "False < True"
    return remap, tuple(tidy_scalar(v) for v in uniq), None, order, ()


def _same_number_notes(raw: npt.NDArray[Any], column: str) -> tuple[str, ...]:
    """A warning when text labels spell one number differently (``1`` and ``01``)."""
    nums = _numbers_of(raw)
    spelled = np.isfinite(nums)
    if not spelled.any():
        return ()
    _, counts = np.unique(nums[spelled], return_counts=True)
    if not (counts > 1).any():
        return ()
    groups: dict[float, list[str]] = {}
    for v, x in zip(raw[spelled], nums[spelled], strict=True):
        groups.setdefault(float(x), []).append(str(v))
    same = [sorted(g) for g in groups.values() if len(g) > 1]
    listed = "; ".join(" and ".join(repr(s) for s in g) for g in same[:3])
    return (
        f"column {column!r}: labels {listed} are the same number spelled "
        "differently and are read as different categories"
        + hint("; pass {} to read them as one", "labels_as", "number"),
    )


def _text_domain(
    raw: npt.NDArray[Any], *, level: Level, column: str, notes: tuple[str, ...]
) -> Domain:
    """Text labels (or values of another type): nominal in alphabetical order, as read when
    the types cannot be ordered; an ordinal level needs the order declared."""
    try:
        remap, uniq = _sorted_domain(raw)
    except TypeError:
        if level == "ordinal":
            raise InvalidInputError(
                f"column {column!r}: the labels mix types that cannot be ordered "
                f"({sorted({type(v).__name__ for v in raw})}); declare categories=[...] in "
                "order"
            ) from None
        return np.arange(raw.size), tuple(tidy_scalar(v) for v in raw), None, "as read", notes
    domain = tuple(tidy_scalar(v) for v in uniq)
    if level == "ordinal":
        shown = ", ".join(str(v) for v in domain[:20])
        more = f" and {len(domain) - 20} more" if len(domain) > 20 else ""
        names = [str(v) for v in domain[:6]]
        etc = ", ..." if len(domain) > 6 else ""
        raise InvalidInputError(
            f"column {column!r}: the labels are text ({shown}{more}), and an ordinal level "
            "needs their order: declare it from lowest to highest, as "
            f"{_categories_hint(names, etc)}, in your order"
        )
    return remap, domain, None, "alphabetical (nominal: the order does not matter)", notes


def _categories_hint(names: list[str], etc: str) -> str:
    """``categories=['a', 'b', ...]`` in Python; ``--categories a,b...`` on the command line
    (the labels comma-separated, as that option takes them).

    >>> _categories_hint(["low", "high"], "")
    "categories=['low', 'high']"
    """
    flag = option("categories").strip()
    if flag.endswith("="):
        return f"categories=[{', '.join(repr(v) for v in names)}{etc}]"
    return f"{flag} {shell_word(','.join(names) + etc.strip(', '))}"


def order_line(level: str, domain: Sequence[Any], order: str) -> str | None:
    """The order of the categories, in words, for the read report (ordinal level only:
    nominal categories have no order, and interval or ratio values are numbers, whose order
    needs no saying).

    Examples
    --------
    >>> order_line("ordinal", ("low", "medium", "high"), "as declared")
    'categories in order (as declared): low < medium < high'
    >>> order_line("nominal", ("a", "b"), "alphabetical") is None
    True
    >>> order_line("interval", (5.7, 6.9), "numeric") is None
    True
    """
    if level != "ordinal":
        return None
    shown = " < ".join(str(tidy_scalar(c)) for c in list(domain)[:12])
    more = " < ..." if len(domain) > 12 else ""
    return f"categories in order ({order}): {shown}{more}"


def parses_as_number(value: Any) -> bool:
    """Whether ``float(value)`` reads ``value`` as a number (text such as ``"2.5"`` or
    ``"inf"`` included).

    Examples
    --------
    >>> parses_as_number("2.5"), parses_as_number(3), parses_as_number("x"), parses_as_number(None)
    (True, True, False, False)
    """
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True
