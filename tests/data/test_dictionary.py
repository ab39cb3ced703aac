"""The growing dictionary of the stream and dask engines numbers values as one pass over the
whole column would: in order of first appearance, whatever the batches and the lookup mode."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from accord import Ratings
from accord.data.dictionary import GrowingDictionary


def reference(values: list[Any]) -> tuple[np.ndarray, list[Any], np.ndarray]:
    """Codes (-1 for None), distinct values and the row of each one's first appearance, by
    ``pandas.factorize`` over the whole column (an independent numbering)."""
    codes, uniques = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=True)
    first = np.array([int(np.argmax(codes == k)) for k in range(len(uniques))], dtype=np.int64)
    return codes.astype(np.int64), list(uniques), first


def encode_in_batches(
    values: list[Any], cuts: list[int], kind: Any
) -> tuple[GrowingDictionary, np.ndarray]:
    """The codes of ``values`` encoded in batches cut at ``cuts``."""
    dictionary = GrowingDictionary(track_rows=True)
    bounds = sorted({0, len(values), *(c % (len(values) + 1) for c in cuts)})
    out = []
    for lo, hi in itertools.pairwise(bounds):
        out.append(dictionary.encode(pa.array(values[lo:hi], type=kind), lo))
    return dictionary, np.concatenate(out)


texts = st.lists(
    st.one_of(st.none(), st.sampled_from(["a", "b", "01", "1", " 1", "", "é", "item-9e3779b9"])),
    min_size=1,
    max_size=60,
)
integers = st.lists(
    st.one_of(
        st.none(),
        st.integers(-5, 40),
        st.sampled_from([2**40, -(2**35), 10**12 + 7]),  # wide ranges: hashed, not a table
    ),
    min_size=1,
    max_size=60,
)
cut_lists = st.lists(st.integers(0, 60), max_size=6)


@settings(max_examples=150, deadline=None)
@given(values=st.one_of(texts, integers), cuts=cut_lists)
def test_codes_are_those_of_one_pass_over_the_column(values: list[Any], cuts: list[int]) -> None:
    kind = pa.string() if any(isinstance(v, str) for v in values) else pa.int64()
    dictionary, got = encode_in_batches(values, cuts, kind)
    codes, uniques, first = reference(values)
    np.testing.assert_array_equal(got, codes)
    assert dictionary.size == len(uniques)
    assert [v.item() if hasattr(v, "item") else v for v in dictionary.values()] == uniques
    np.testing.assert_array_equal(dictionary.first_rows(), first)


def test_sorted_runs_then_scattered_ids_then_text_like_hashing() -> None:
    """Ids sorted first (a run), then out of order and spread wide (lookup table, then
    hashing): the codes stay those of one pass."""
    values: list[Any] = [*list(range(100, 120)), 5, 3, 119, 2**45, 7, 2**45, None, 100]
    codes, uniques, first = reference(values)
    dictionary, got = encode_in_batches(values, [20, 24, 27], pa.int64())
    np.testing.assert_array_equal(got, codes)
    assert list(dictionary.values()) == uniques
    np.testing.assert_array_equal(dictionary.first_rows(), first)


id_arrays = st.one_of(
    st.lists(st.integers(-3, 30), min_size=1, max_size=80),  # compact: a table over the range
    st.lists(st.integers(0, 30), min_size=1, max_size=80).map(sorted),  # sorted: runs
    st.lists(st.sampled_from([0, 7, 2**40, -(2**50)]), min_size=1, max_size=30),  # wide: hashed
)


@settings(max_examples=150, deadline=None)
@given(ids=id_arrays, dtype=st.sampled_from([np.int64, np.int32, np.uint16]))
def test_integer_ids_are_numbered_as_factorize_numbers_them(ids: list[int], dtype: Any) -> None:
    """Codes and decode tables of integer ids (direct, sorted and hashed paths alike) are those
    of ``pandas.factorize``, the numbering every engine uses."""
    values = np.asarray(ids)
    if not np.all(values == values.astype(dtype)):
        values = values.astype(np.int64)
    else:
        values = values.astype(dtype)
    raters = np.arange(values.size) % 3
    ratings = Ratings.from_arrays(
        values, raters, np.ones(values.size, dtype=np.int64), duplicates="first"
    )
    codes, uniques = pd.factorize(values)
    kept = np.sort(
        pd.DataFrame({"k": values, "r": raters}).drop_duplicates(keep="first").index.to_numpy()
    )
    np.testing.assert_array_equal(ratings.item_codes, codes[kept])
    assert list(ratings.items) == [int(u) for u in uniques]
    assert all(type(v) is int for v in ratings.items)


def test_sorted_ids_past_int32_then_a_small_id() -> None:
    """Ids in increasing order from 2**40 (a run), then id 0: the run's codes do not overflow
    int32 and leaving the run does not ask for a table from 0 to 2**40."""
    values: list[Any] = [2**40, 2**40, 2**40 + 1, 2**40 + 2, 0, 2**40 + 1]
    dictionary, got = encode_in_batches(values, [4], pa.int64())
    codes, uniques, first = reference(values)
    np.testing.assert_array_equal(got, codes)
    assert list(dictionary.values()) == uniques
    np.testing.assert_array_equal(dictionary.first_rows(), first)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    first=st.integers(40, 200),  # more than 4 x the largest batch below
    tail=st.lists(st.integers(1, 8), min_size=1, max_size=12),
)
def test_many_text_values_then_small_batches(seed: int, first: int, tail: list[int]) -> None:
    """A first batch of many distinct ids and small batches after it: the values seen
    outnumber each batch's distinct values (the dict kept between batches), and the codes are
    still those of one pass over the column."""
    rng = np.random.default_rng(seed)
    pool = [f"item-{k:04x}" for k in range(first + 40)]
    values: list[Any] = [pool[k] for k in rng.permutation(first)]
    for size in tail:
        values += [
            None if k and rng.random() < 0.1 else pool[rng.integers(0, len(pool))]
            for k in range(size)
        ]
    cuts = list(np.cumsum([first, *tail]))
    dictionary, got = encode_in_batches(values, cuts, pa.string())
    codes, uniques, first_rows = reference(values)
    np.testing.assert_array_equal(got, codes)
    assert list(dictionary.values()) == uniques
    np.testing.assert_array_equal(dictionary.first_rows(), first_rows)
    assert dictionary._index is not None  # the hash index took over from index_in


@settings(max_examples=100, deadline=None)
@given(
    ids=st.lists(st.integers(0, 40), min_size=1, max_size=120),
    cuts=st.lists(st.integers(0, 120), max_size=4),
)
def test_ids_in_any_order_numbered_by_first_position_as_factorize(
    ids: list[int], cuts: list[int]
) -> None:
    """Ids in any order over a range at most twice their number (numbered through a table of
    first positions, no hashing): the codes, values and first rows of ``pandas.factorize``,
    in one batch (the memory engine's encoder) as in several (the stream engine's)."""
    from accord.data.dictionary import encode_ids

    codes, uniques, first = reference(list(ids))
    dictionary, got = encode_in_batches(list(ids), cuts, pa.int64())
    np.testing.assert_array_equal(got, codes)
    assert list(dictionary.values()) == uniques
    np.testing.assert_array_equal(dictionary.first_rows(), first)
    one, decode = encode_ids(np.asarray(ids), column="item", what="item")
    np.testing.assert_array_equal(one, codes)
    assert list(decode) == uniques and all(type(v) is int for v in decode)


def test_the_memory_encoder_is_the_growing_dictionary_on_one_batch(
    monkeypatch: Any,
) -> None:
    """The memory engine codes integer ids through the stream engine's dictionary (one
    integer path): a batch of the whole column."""
    from accord.data import dictionary as module

    seen: list[int] = []
    integer_codes = GrowingDictionary.integer_codes

    def spy(self: GrowingDictionary, values: Any, row0: int = 0) -> Any:
        seen.append(int(values.size))
        return integer_codes(self, values, row0)

    monkeypatch.setattr(module.GrowingDictionary, "integer_codes", spy)
    ratings = Ratings.from_arrays([7, 5, 7, 9], [1, 2, 2, 1], [0, 1, 1, 0])
    assert seen == [4, 4]  # items, then raters
    assert list(ratings.items) == [7, 5, 9] and list(ratings.raters) == [1, 2]


def test_unsigned_ids_past_int64_are_hashed() -> None:
    """Unsigned 64-bit ids past the int64 range leave the lookup table (which indexes in
    int64) for hashing, in order of first appearance."""
    values: list[Any] = [2**64 - 1, 2**64 - 5, 2**64 - 1, 3]
    dictionary, got = encode_in_batches(values, [2], pa.uint64())
    codes, uniques, first = reference(values)
    np.testing.assert_array_equal(got, codes)
    assert [int(v) for v in dictionary.values()] == uniques
    np.testing.assert_array_equal(dictionary.first_rows(), first)
