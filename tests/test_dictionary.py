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
