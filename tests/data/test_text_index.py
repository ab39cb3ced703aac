"""The hash index of text values numbers values exactly as a dict of the values does, across
batches, lengths and Arrow layouts; two values sharing a hash are told apart, never merged."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.data import text_index
from accord.data.dictionary import GrowingDictionary
from accord.data.text_index import HashCollision, TextIndex, text_hashes, text_words

from .test_dictionary import encode_in_batches, reference

# Short and long texts (one word, several, and lengths that are not a multiple of 8), the
# empty text, a text ending in NUL (the padding of a shorter one) and non-ASCII text.
values = st.one_of(
    st.sampled_from(["", "a", "ab", "ab\x00", "abcdefgh", "abcdefgh\x00", "é", "item-9e3779b9"]),
    st.text(max_size=30),
)


def by_dict(batches: list[list[str]]) -> list[list[int]]:
    """Codes of each batch's values by a dict numbering values in order of first appearance
    (an independent numbering)."""
    codes: dict[str, int] = {}
    out = []
    for batch in batches:
        out.append([codes.setdefault(v, len(codes)) for v in batch])
    return out


def by_index(batches: list[list[str]], kind: Any, sliced: bool) -> list[list[int]]:
    """The same codes through a :class:`TextIndex`: each batch's distinct values looked up,
    the new ones added in order of first appearance."""
    index = TextIndex()
    out = []
    for batch in batches:
        distinct = list(dict.fromkeys(batch))
        array = pa.array(["pad", *distinct], type=kind)[1:] if sliced else pa.array(distinct, kind)
        found = index.lookup(array)
        new = [v for v, c in zip(distinct, found.tolist(), strict=True) if c < 0]
        start = index.size
        index.add(pa.array(new, type=kind))
        known = dict(zip(distinct, found.tolist(), strict=True))
        known.update(zip(new, range(start, start + len(new)), strict=True))
        out.append([known[v] for v in batch])
    assert index.size == len({v for batch in batches for v in batch})
    return out


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(values, min_size=1, max_size=80),
    cuts=st.lists(st.integers(0, 80), max_size=5),
    kind=st.sampled_from([pa.string(), pa.large_string()]),
    sliced=st.booleans(),
)
def test_codes_are_those_of_a_dict(
    texts: list[str], cuts: list[int], kind: Any, sliced: bool
) -> None:
    bounds = sorted({0, len(texts), *(c % (len(texts) + 1) for c in cuts)})
    batches = [texts[lo:hi] for lo, hi in itertools.pairwise(bounds)]
    assert by_index(batches, kind, sliced) == by_dict(batches)


def test_words_pad_each_text_with_zeros() -> None:
    """Words by hand: "abcdefghi" is two words, "ab" one, the empty text one word of zeros."""
    got = text_words(pa.array(["abcdefghi", "ab", ""]))
    little = [int.from_bytes(b, "little") for b in (b"abcdefgh", b"i" + bytes(7), b"ab" + bytes(6))]
    assert got.words.tolist() == [*little, 0]
    assert got.first.tolist() == [0, 2, 3] and got.count.tolist() == [2, 1, 1]
    # One length: the matrix path gives the words the gather path gives.
    fixed = text_words(pa.array(["abcdefghi", "jklmnopqr"]))
    mixed = text_words(pa.array(["abcdefghi", "jklmnopqr", ""]))
    assert fixed.words.tolist() == mixed.words.tolist()[:4]
    np.testing.assert_array_equal(text_hashes(fixed), text_hashes(mixed)[:2])
    # Texts of 2, 1 and 3 words (as many words as three texts of 2): each hashes as alone.
    texts = ["abcdefghi", "a", "abcdefghijklmnopq"]
    together = text_hashes(text_words(pa.array(texts)))
    alone = [text_hashes(text_words(pa.array([t])))[0] for t in texts]
    assert together.tolist() == alone


def _by_length(words: text_index.TextWords) -> np.ndarray:
    """A hash that only sees the length: every two texts of one length collide."""
    return words.lengths.astype(np.uint64) + np.uint64(1)


def test_a_shared_hash_is_an_error_not_a_match(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_index, "text_hashes", _by_length)
    index = TextIndex()
    index.add(pa.array(["ab", "xyz"]))
    assert index.lookup(pa.array(["xyz", "ab", "abcd"])).tolist() == [1, 0, -1]
    with pytest.raises(HashCollision):
        index.lookup(pa.array(["cd"]))  # the hash of "ab", another text
    with pytest.raises(HashCollision):
        index.add(pa.array(["abcd", "wxyz"]))  # two new texts, one hash
    assert index.size == 2 and index.lookup(pa.array(["abcd"])).tolist() == [-1]
    # The growing dictionary turns to a dict of the values on the second batch.
    dictionary = GrowingDictionary()
    assert dictionary.encode(pa.array(["ab", "xyz"]), 0).tolist() == [0, 1]
    assert dictionary.encode(pa.array(["cd", "ab", None]), 2).tolist() == [2, 0, -1]
    assert dictionary._index is None and dictionary._codes is not None


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(
        st.one_of(st.none(), st.sampled_from(["a", "b", "ab", "cd", "abc", ""])),
        min_size=1,
        max_size=60,
    ),
    cuts=st.lists(st.integers(0, 60), max_size=6),
)
def test_the_dictionary_numbers_values_alike_when_hashes_collide(
    texts: list[Any], cuts: list[int]
) -> None:
    """With a hash shared by every two texts of one length, the growing dictionary turns to a
    dict of the values and still numbers them as one pass over the column."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(text_index, "text_hashes", _by_length)
        dictionary, got = encode_in_batches(texts, cuts, pa.string())
    codes, uniques, first = reference(texts)
    np.testing.assert_array_equal(got, codes)
    assert list(dictionary.values()) == uniques
    np.testing.assert_array_equal(dictionary.first_rows(), first)


def test_the_dictionary_keeps_the_index_from_the_second_batch() -> None:
    """Many distinct ids, batch after batch (a shuffled file of text ids): looked up in the
    hash index, never a dict of Python strings."""
    rng = np.random.default_rng(7)
    pool = np.array([f"item-{k:08x}" for k in rng.integers(0, 2**32, 3000)], dtype=object)
    dictionary = GrowingDictionary()
    column = pool[rng.integers(0, pool.size, 6000)].tolist()
    got = np.concatenate(
        [dictionary.encode(pa.array(column[lo : lo + 1000]), lo) for lo in range(0, 6000, 1000)]
    )
    codes, uniques, _ = reference(column)
    np.testing.assert_array_equal(got, codes)
    assert list(dictionary.values()) == uniques
    assert dictionary._index is not None and dictionary._codes is None


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(st.one_of(st.none(), values), min_size=1, max_size=80),
    cuts=st.lists(st.integers(0, 80), max_size=5),
    kind=st.sampled_from([pa.string(), pa.large_string()]),
)
def test_rows_are_numbered_as_a_dict_numbers_them(
    texts: list[Any], cuts: list[int], kind: Any
) -> None:
    """Every row hashed (no dictionary of the batch first), nulls among them: the codes of a
    dict numbering values in order of first appearance, and the row where each new value
    first appears."""
    bounds = sorted({0, len(texts), *(c % (len(texts) + 1) for c in cuts)})
    index = TextIndex()
    seen: dict[str, int] = {}
    for lo, hi in itertools.pairwise(bounds):
        batch = texts[lo:hi]
        codes, first = index.encode_rows(pa.array(batch, type=kind))
        fresh = [
            k
            for k, v in enumerate(batch)
            if v is not None and v not in seen and batch.index(v) == k
        ]
        expected = [-1 if v is None else seen.setdefault(v, len(seen)) for v in batch]
        assert codes.tolist() == expected
        assert first.tolist() == fresh
    assert index.size == len(seen)


def test_a_dropped_index_is_built_again_from_the_values() -> None:
    """The index let go after a read (its memory returned): the next batch builds it from
    the values seen and numbers them as before."""
    column = ["b", "a", "c", "a", None, "d", "b", "e", "c"]
    dictionary = GrowingDictionary()
    got = [dictionary.encode(pa.array(column[:3]), 0), dictionary.encode(pa.array(column[3:6]), 3)]
    dictionary.drop_index()
    assert dictionary._index is None
    got.append(dictionary.encode(pa.array(column[6:]), 6))
    codes, uniques, _ = reference(column)
    np.testing.assert_array_equal(np.concatenate(got), codes)
    assert list(dictionary.values()) == uniques and dictionary._index is not None


def test_values_of_one_length_keep_no_starts_until_a_length_differs() -> None:
    """Ids of one pattern are held as their words alone (no start or length a value); a
    lookup of texts of other lengths against them, then values of other lengths added, are
    numbered as a dict numbers them (looked up against every value held, the earlier ones
    of one length among them), through a table grown past a fill of 0.7."""
    rng = np.random.default_rng(3)
    fixed = [f"item-{k:08x}" for k in rng.permutation(2**20)[:5000]]
    mixed = ["x", "item-1", "", "item-" + "y" * 20, fixed[7], "é"]
    batches = [fixed[:2000], fixed[2000:5000], fixed[4990:] + mixed, mixed[::-1] + fixed[:3]]
    for kind in (pa.string(), pa.large_string()):
        assert by_index(batches, kind, sliced=False) == by_dict(batches)
    index = TextIndex()
    index.add(pa.array(fixed))
    assert index._first.size == index._lengths.size == 0
    assert index.size * 10 <= text_index._MAX_LOAD * len(index._table)
    assert index.lookup(pa.array(["x", fixed[9], fixed[9] + "z"])).tolist() == [-1, 9, -1]
    codes, first = index.encode_rows(pa.array([fixed[1], "new", "longer-than-that", "new"]))
    assert codes.tolist() == [1, 5000, 5001, 5000] and first.tolist() == [1, 2]
    assert index._first.size == index._lengths.size == index.size == 5002
    assert index.lookup(pa.array([fixed[4999], "longer-than-that"])).tolist() == [4999, 5001]
