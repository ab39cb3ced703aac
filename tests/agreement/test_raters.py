"""Raters and pairs named only beyond the noise: rater_differences (measurements) and
rater_permutation_test (categories)."""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import accord
from accord.agreement.raters import rater_differences, rater_permutation_test


def lesion_frame(seed: int = 22, offsets: dict[str, float] | None = None) -> pd.DataFrame:
    """40 lesions measured in mm by 3 readers (synthetic: lognormal sizes around 18 mm, reader
    offsets, measurement noise SD 0.8 mm, rounded to 0.1 mm)."""
    offsets = offsets or {"reader_a": 0.0, "reader_b": 1.5, "reader_c": -0.2}
    gen = np.random.default_rng(seed)
    size = np.round(gen.lognormal(np.log(18), 0.45, 40), 1)
    rows = [
        (f"L{i + 1:02d}", r, round(float(s + o + gen.normal(0, 0.8)), 1))
        for i, s in enumerate(size)
        for r, o in offsets.items()
    ]
    return pd.DataFrame(rows, columns=["lesion", "reader", "diameter_mm"])


# ------------------------------------------------------------------ rater_differences


def test_rater_differences_match_a_hand_computation_and_scipy() -> None:
    frame = lesion_frame()
    # drop a few measurements: an incomplete design
    frame = frame.drop(index=[4, 17, 50]).reset_index(drop=True)
    ratings = accord.Ratings.from_long(
        frame, item="lesion", rater="reader", label="diameter_mm", level="interval"
    )
    result = rater_differences(ratings)
    table = result.table.set_index("rater")
    # by hand: each measurement minus the mean of the other readers of the lesion
    totals = frame.groupby("lesion")["diameter_mm"].agg(["sum", "count"])
    f = frame.join(totals, on="lesion")
    f = f[f["count"] >= 2]
    f["d"] = f["diameter_mm"] - (f["sum"] - f["diameter_mm"]) / (f["count"] - 1)
    raw_p = {}
    for reader, d in f.groupby("reader")["d"]:
        row = table.loc[reader]
        assert row["n_items"] == len(d)
        assert row["mean_difference"] == pytest.approx(d.mean(), rel=1e-12)
        assert row["sd"] == pytest.approx(d.std(ddof=1), rel=1e-12)
        test = stats.ttest_1samp(d, 0.0)
        ci = test.confidence_interval(0.95)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-10)
        assert row["pvalue"] == pytest.approx(test.pvalue, rel=1e-9)
        assert row["mean_absolute_difference"] == pytest.approx(d.abs().mean(), rel=1e-12)
        raw_p[reader] = test.pvalue
    # Holm (1979), as statsmodels computes it
    from statsmodels.stats.multitest import multipletests

    names = sorted(raw_p)
    holm = multipletests([raw_p[n] for n in names], method="holm")[1]
    for name, adjusted in zip(names, holm, strict=True):
        assert table.loc[name, "pvalue_adjusted"] == pytest.approx(adjusted, rel=1e-12)


def test_rater_differences_name_the_planted_offset_only() -> None:
    # reader_b measures 2 mm high; the others agree (no offset)
    frame = lesion_frame(offsets={"reader_a": 0.0, "reader_b": 2.0, "reader_c": 0.0, "d": 0.0})
    ratings = accord.Ratings.from_long(
        frame, item="lesion", rater="reader", label="diameter_mm", level="interval"
    )
    result = rater_differences(ratings)
    assert result.stands_out[0] == "reader_b"  # the largest offset comes first
    table = result.table.set_index("rater")
    b = table.loc["reader_b"]
    assert b["ci_low"] < 2.0 < b["ci_high"]
    # the others' reference holds reader_b, so theirs move the other way by a third of it
    for other in ("reader_a", "reader_c", "d"):
        row = table.loc[other]
        assert row["ci_low"] < -2.0 / 3 < row["ci_high"]
    # no offset at all: nobody named
    calm = lesion_frame(offsets={"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": 0.0}, seed=5)
    ratings = accord.Ratings.from_long(
        calm, item="lesion", rater="reader", label="diameter_mm", level="interval"
    )
    assert rater_differences(ratings).stands_out == ()


def test_rater_differences_need_numbers() -> None:
    r = accord.Ratings.from_wide([["a", "b"], ["a", "a"]])
    with pytest.raises(accord.InvalidInputError, match="interval or ratio"):
        rater_differences(r)
    m = accord.Ratings.from_wide([[1.0, 2.0], [3.0, 3.5]], level="interval")
    with pytest.raises(accord.InvalidInputError, match="'significance'"):
        rater_differences(m, significance=1.5)
    with pytest.raises(accord.InvalidInputError, match="'min_items'"):
        rater_differences(m, min_items=0)


# ------------------------------------------------------------------ permutation test


def _z_by_hand(wide: np.ndarray) -> tuple[np.ndarray, dict[tuple[int, int], float]]:
    """The rater and pair statistics from their definitions, one item at a time."""
    k = wide.shape[1]
    s = np.zeros(k)
    v = np.zeros(k)
    agree: dict[tuple[int, int], float] = {}
    expect: dict[tuple[int, int], float] = {}
    var: dict[tuple[int, int], float] = {}
    for row in wide:
        labels, counts = np.unique(row, return_counts=True)
        share = dict(zip(labels, counts / len(row), strict=True))
        h = -sum(p * math.log2(p) for p in share.values())
        d = np.array([-math.log2(share[x]) - h for x in row])
        s += d
        v += np.mean(d**2)
        m = len(row)
        pi = sum(c * (c - 1) for c in counts) / (m * (m - 1))
        for a, b in itertools.combinations(range(k), 2):
            agree[(a, b)] = agree.get((a, b), 0.0) + float(row[a] == row[b])
            expect[(a, b)] = expect.get((a, b), 0.0) + pi
            var[(a, b)] = var.get((a, b), 0.0) + pi * (1 - pi)
    z_pair = {p: (agree[p] - expect[p]) / math.sqrt(var[p]) for p in agree}
    return s / np.sqrt(v), z_pair


def test_statistics_match_their_definitions() -> None:
    gen = np.random.default_rng(4)
    wide = gen.integers(0, 3, (25, 5))
    result = rater_permutation_test(accord.Ratings.from_wide(wide), min_items=1)
    z_r, z_pair = _z_by_hand(wide)
    got = result.raters.set_index("rater")["z"]
    for j in range(5):
        assert got.loc[j] == pytest.approx(z_r[j], rel=1e-10)
    pairs = result.pairs.set_index(["rater_a", "rater_b"])["z"]
    for (a, b), z in z_pair.items():
        assert pairs.loc[(a, b)] == pytest.approx(z, rel=1e-10)


@pytest.mark.parametrize("pair_test", [True, False])
def test_permutation_pvalue_matches_the_exact_distribution(
    pair_test: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 5 items x 3 raters: every within-item permutation of the labels (6^5 = 7776) enumerated;
    # the max-T p-value of the most deviant rater, exact, against the Monte Carlo one. Without
    # the pair test the permutations shuffle the deviations themselves (another code path).
    if not pair_test:
        raters_module = importlib.import_module("accord.agreement.raters")
        monkeypatch.setattr(raters_module, "MAX_PAIR_CELLS", 0)
    wide = np.array([[0, 0, 1], [1, 1, 0], [2, 2, 1], [0, 0, 2], [1, 1, 1]])
    z_obs, _ = _z_by_hand(wide)
    perms = list(itertools.permutations(range(3)))
    hits = 0
    total = 0
    top = z_obs.max()
    for choice in itertools.product(perms, repeat=len(wide)):
        shuffled = np.array([row[list(p)] for row, p in zip(wide, choice, strict=True)])
        z, _ = _z_by_hand(shuffled)
        hits += z.max() >= top - 1e-9
        total += 1
    exact = hits / total
    result = rater_permutation_test(
        accord.Ratings.from_wide(wide), min_items=1, n_permutations=9999, rng=3, sequential=False
    )
    assert result.n_permutations == 9999
    assert (result.reason is None) == pair_test
    assert result.raters["pvalue"].iloc[0] == pytest.approx(exact, abs=0.015)


def _ragged_z(items: list[list[tuple[int, int]]], k: int) -> tuple[float, float]:
    """The largest rater z and the smallest pair z of (rater, label) lists, one list per item,
    from the definitions (items of any size; every rater and pair tested)."""
    s, v = np.zeros(k), np.zeros(k)
    agree: dict[tuple[int, int], float] = {}
    expect: dict[tuple[int, int], float] = {}
    var: dict[tuple[int, int], float] = {}
    for ratings in items:
        labels = [lab for _, lab in ratings]
        m = len(labels)
        count = Counter(labels)
        h = -sum(c / m * math.log2(c / m) for c in count.values())
        pi = sum(c * (c - 1) for c in count.values()) / (m * (m - 1))
        for rater, lab in ratings:
            d = -math.log2(count[lab] / m) - h
            s[rater] += d
            v[rater] += sum((-math.log2(count[x] / m) - h) ** 2 for x in labels) / m
        for (ra, la), (rb, lb) in itertools.combinations(sorted(ratings), 2):
            agree[(ra, rb)] = agree.get((ra, rb), 0.0) + float(la == lb)
            expect[(ra, rb)] = expect.get((ra, rb), 0.0) + pi
            var[(ra, rb)] = var.get((ra, rb), 0.0) + pi * (1 - pi)
    z_pair = [(agree[p] - expect[p]) / math.sqrt(var[p]) for p in agree if var[p] > 1e-12]
    return float(np.max(s / np.sqrt(v))), min(z_pair)


@pytest.mark.parametrize(("pair_test", "tabled"), [(True, False), (False, False), (False, True)])
def test_permutation_pvalues_of_items_of_mixed_sizes_match_the_exact_distribution(
    pair_test: bool, tabled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # items rated by 2, 3 and 4 of 4 raters: all 2 * 6 * 24 * 6 * 2 = 3,456 within-item
    # permutations of the labels enumerated (the statistics from their definitions, above);
    # the exact max-T p-values of the top rater and of the lowest pair against the Monte
    # Carlo ones (9,999 permutations: Monte Carlo SD at most 0.005). Without the pair test
    # the permutations move only the ratings outside each item's most frequent category
    # (another code path, with an item of two categories tied): shuffled in place, or each
    # item's moved places given to a row of its table of ordered choices (every kind of
    # item tabled, however few of it)
    module = importlib.import_module("accord.agreement.raters")
    if not pair_test:
        monkeypatch.setattr(module, "MAX_PAIR_CELLS", 0)
    monkeypatch.setattr(module, "_GROUP_ITEMS", 1 if tabled else 10**9)
    items = [
        [(0, 0), (1, 1)],
        [(0, 1), (1, 1), (2, 0)],
        [(0, 2), (1, 2), (2, 2), (3, 0)],
        [(1, 0), (2, 0), (3, 1)],
        [(2, 0), (3, 1)],
    ]
    top, low = _ragged_z(items, 4)
    hits_top = hits_low = total = 0
    orders = [list(itertools.permutations(range(len(it)))) for it in items]
    for choice in itertools.product(*orders):
        shuffled = [
            [(r, it[j][1]) for (r, _), j in zip(it, order, strict=True)]
            for it, order in zip(items, choice, strict=True)
        ]
        t, lo = _ragged_z(shuffled, 4)
        hits_top += t >= top - 1e-9
        hits_low += lo <= low + 1e-9
        total += 1
    rows = [(i, r, lab) for i, it in enumerate(items) for r, lab in it]
    ratings = accord.Ratings.from_arrays(*map(np.array, zip(*rows, strict=True)))
    result = rater_permutation_test(
        ratings, min_items=1, n_permutations=9999, rng=5, sequential=False
    )
    assert result.raters["pvalue"].iloc[0] == pytest.approx(hits_top / total, abs=0.02)
    if pair_test:
        assert result.pairs["pvalue"].iloc[0] == pytest.approx(hits_low / total, abs=0.02)
    else:
        assert result.pairs.empty


def test_random_raters_are_not_named() -> None:
    # 8 interchangeable raters labelling 200 items at random: no rater strays, no pair is low
    gen = np.random.default_rng(0)
    wide = gen.integers(0, 3, (200, 8))
    result = rater_permutation_test(accord.Ratings.from_wide(wide))
    assert result.stray_raters == ()
    assert result.low_pairs == ()
    assert result.raters["pvalue"].min() > 0.05


def test_a_planted_bad_rater_is_named() -> None:
    gen = np.random.default_rng(1)
    truth = gen.integers(0, 4, 120)
    wide = np.column_stack(
        [np.where(gen.uniform(size=120) < 0.8, truth, gen.integers(0, 4, 120)) for _ in range(6)]
        + [gen.integers(0, 4, 120)]  # rater 6 answers at random
    )
    result = rater_permutation_test(accord.Ratings.from_wide(wide))
    assert result.stray_raters == (6,)
    assert all(6 in pair for pair in result.low_pairs) and result.low_pairs
    n_pairs = len(result.low_pairs)
    expected = f"1 rater and {n_pairs} pair{'s' if n_pairs > 1 else ''} stand out"
    assert result._headline() == expected  # counted, never "rater(s)"
    # one item shared is not enough to test a pair (min_items)
    few = rater_permutation_test(accord.Ratings.from_wide(wide[:5]), min_items=10)
    assert few.pairs["pvalue"].isna().all() and few.low_pairs == ()


def test_the_headline_counts_what_stands_out_in_words() -> None:
    # one rater alone: "1 rater stands out", no "0 pairs", no "(s)"
    test = rater_permutation_test(accord.datasets.load_diagnoses(), n_permutations=199)
    cases = {((), ()): "no rater or pair stands out beyond the noise",
             (("r1",), ()): "1 rater stands out", ((), (("a", "b"),)): "1 pair stands out",
             (("r1", "r2"), (("a", "b"),)): "2 raters and 1 pair stand out"}  # fmt: skip
    for (raters, pairs), words in cases.items():
        out = [False] + [True] * len(raters)  # r0 tested, not out
        frame = pd.DataFrame({"rater": ["r0", *raters], "stands_out": out, "pvalue": 0.01})
        low = pd.DataFrame({"rater_a": [a for a, _ in pairs], "rater_b": [b for _, b in pairs],
                            "stands_out": True, "pvalue": 0.01})  # fmt: skip
        shown = dataclasses.replace(test, raters=frame, pairs=low)
        assert shown._headline() == words


def test_items_rated_once_are_tested_by_nobody_and_it_says_why() -> None:
    # every item rated once: nothing moves under permutation (this once raised a TypeError:
    # numpy's bincount of no weights is of integers)
    once = accord.Ratings.from_long(
        pd.DataFrame({"item": [1, 2, 3, 4], "rater": ["a", "b", "a", "b"],
                      "label": ["x", "y", "x", "y"]}),
        item="item", rater="rater", label="label",
    )  # fmt: skip
    test = rater_permutation_test(once, rng=0)
    assert test.raters["pvalue"].isna().all() and not test.stray_raters
    assert test.reason == "no item has two ratings or more (nothing changes under permutation)"
    assert test._headline() == f"no rater or pair could be tested: {test.reason}"


def test_permutation_test_is_reproducible_and_checks_options() -> None:
    wide = np.random.default_rng(2).integers(0, 3, (30, 4))
    r = accord.Ratings.from_wide(wide)
    a = rater_permutation_test(r, n_permutations=99, rng=7)
    b = rater_permutation_test(r, n_permutations=99, rng=7)
    pd.testing.assert_frame_equal(a.raters, b.raters)
    with pytest.raises(accord.InvalidInputError, match="'n_permutations'"):
        rater_permutation_test(r, n_permutations=5)


@pytest.mark.parametrize("size", [2, 3, 5, 7, 10])
def test_within_item_shuffles_are_uniform_permutations_of_each_item(size: int) -> None:
    # every draw maps each item's positions onto themselves (so each item keeps its multiset
    # of labels), and each of the m! orders of an item comes up equally often (chi-square
    # goodness of fit, 4,000 items of one size among items of other sizes, one rated once)
    from scipy.stats import chisquare

    from accord.agreement.raters import _WithinItemShuffle

    sizes = np.r_[np.full(4000, size), np.full(50, 4), np.full(30, 9), 1, np.full(20, 12)]
    item_sorted = np.repeat(np.arange(sizes.size), sizes)
    shuffle = _WithinItemShuffle(item_sorted)
    gen = np.random.default_rng(11)
    draw = shuffle.draw(gen)
    assert np.array_equal(item_sorted[draw], item_sorted)
    assert np.array_equal(np.sort(draw), np.arange(item_sorted.size))
    first = draw[: 4000 * size].reshape(4000, size) - (np.arange(4000) * size)[:, None]
    orders = [tuple(row) for row in first]
    counts = list(Counter(orders).values())
    n_orders = math.factorial(size)
    if n_orders <= 120:
        assert len(counts) == n_orders
        assert chisquare(counts).pvalue > 1e-3
    else:  # 5,040 orders and more: each position equally likely in each place, and each
        # ordered pair of positions in the first two places
        for j in range(size):
            assert chisquare(np.bincount(first[:, j], minlength=size)).pvalue > 1e-3
        pair = np.bincount(first[:, 0] * size + first[:, 1], minlength=size * size)
        assert np.all(pair[:: size + 1] == 0)
        assert chisquare(np.delete(pair, np.s_[:: size + 1])).pvalue > 1e-3
    # the shuffle of values laid out once keeps each item's values
    values = gen.integers(0, 3, item_sorted.size)
    laid = shuffle.shuffle(gen, values[shuffle.layout])
    back = np.empty_like(values)
    back[shuffle.layout] = laid
    assert not np.array_equal(back, values)
    assert np.array_equal(np.sort(item_sorted * 3 + values), np.sort(item_sorted * 3 + back))


def test_shuffles_in_blocks_of_items_equal_the_shuffle_of_every_item_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the swaps made a block of items at a time against the definition (each step over
    # every item at once, written out here per item): the same draws give the same order,
    # blocks of 7 items, the last one short, items of 1 to 12 ratings
    from accord.agreement import raters
    from accord.agreement.raters import _WithinItemShuffle

    monkeypatch.setattr(raters, "_BLOCK", 7)
    sizes = np.random.default_rng(3).integers(1, 13, 60)
    item_sorted = np.repeat(np.arange(sizes.size), sizes)
    shuffle = _WithinItemShuffle(item_sorted)
    values = np.arange(item_sorted.size, dtype=np.float64)[shuffle.layout]
    got = shuffle.shuffle(np.random.default_rng(9), values.copy())
    gen = np.random.default_rng(9)
    expect = values.copy()
    slot = [shuffle.offset[s] for s in range(shuffle.count.size)]
    for j in range(shuffle.count.size - 1, 0, -1):
        picks = gen.integers(0, j + 1, size=int(shuffle.count[j]), dtype=np.uint8)
        for row, pick in enumerate(picks):
            here, there = slot[j] + row, slot[pick] + row
            expect[here], expect[there] = expect[there], expect[here]
    assert np.array_equal(got, expect)
    assert not np.array_equal(got, values)


def _partial(labels: list[list[int]]) -> tuple[object, np.ndarray, np.ndarray, np.ndarray]:
    """A _PartialShuffle of items whose raters are 0 .. m-1 in order (their labels given),
    with each rating's deviation from its definition (surprisal minus the item's entropy)."""
    from accord.agreement.raters import _PartialShuffle

    item = np.repeat(np.arange(len(labels)), [len(x) for x in labels])
    rater = np.concatenate([np.arange(len(x)) for x in labels])
    d = []
    for x in labels:
        count, m = Counter(x), len(x)
        h = -sum(c / m * math.log2(c / m) for c in count.values())
        d += [-math.log2(count[lab] / m) - h for lab in x]
    k = max(len(x) for x in labels)
    return _PartialShuffle(item, rater, np.array(d), k), item, rater, np.array(d)


def test_partial_shuffles_draw_the_raters_of_the_moved_places_uniformly() -> None:
    # 3,000 items labelled [0, 0, 0, 1, 2] (t = 2 places outside the most frequent category)
    # among others: the two raters in the moved places are each of the 5 * 4 = 20 ordered
    # pairs equally often (chi-square), every item keeps its raters, and the rater sums of
    # the unshuffled layout are those of the definition, sum of d over the rater's ratings
    from scipy.stats import chisquare

    labels = [[0, 0, 0, 1, 2]] * 3000 + [[1, 1], [0, 1, 1, 2, 2, 2, 3], [2, 2, 2], [0, 1]] * 40
    labels = labels[1500:] + labels[:1500]
    shuffle, _, rater, d = _partial(labels)
    k = shuffle.k
    np.testing.assert_allclose(
        shuffle.sums(shuffle.raters.copy()), np.bincount(rater, weights=d, minlength=k), atol=1e-9
    )
    # moved places: 2 for each [0,0,0,1,2], 4 for each seven-rating item, none where the
    # categories tie or agree ([1, 1], [2, 2, 2], [0, 1]: their deviations are equal)
    assert shuffle.moved.size == 3000 * 2 + 40 * 4
    gen = np.random.default_rng(4)
    laid = shuffle.shuffle(gen, shuffle.raters.copy())
    # (the layout: item after item as given, each item's moved ratings first)
    size = np.array([len(x) for x in labels])
    start = np.r_[0, np.cumsum(size)[:-1]]
    each = [np.sort(laid[a : a + m]) for a, m in zip(start, size, strict=True)]
    assert all(np.array_equal(x, np.arange(m)) for x, m in zip(each, size, strict=True))
    fives = start[size == 5]
    assert fives.size == 3000
    counts = Counter(zip(laid[fives], laid[fives + 1], strict=True))
    assert len(counts) == 20 and all(a != b for a, b in counts)
    assert chisquare(list(counts.values())).pvalue > 1e-3
    # the sums of a shuffled layout: d of each moved rating to the rater now in its place,
    # the item's least d to every rater of the item
    moved_of = [
        [j for j, lab in enumerate(x) if Counter(x)[lab] < max(Counter(x).values())] for x in labels
    ]
    expect = np.zeros(k)
    for x, a, moved in zip(labels, start, moved_of, strict=True):
        d_item = d[a : a + len(x)]
        least = d_item.min()
        expect[: len(x)] += least  # raters 0 .. m-1 each hold one place of the item
        for place, j in enumerate(moved):
            expect[laid[a + place]] += d_item[j] - least
    np.testing.assert_allclose(shuffle.sums(laid), expect, atol=1e-9)


def test_chosen_places_are_uniform_ordered_choices_and_sum_as_defined(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 3,000 items labelled [0, 0, 0, 1, 2] (m = 5 raters, t = 2 moved places: a table of
    # 5 * 4 = 20 ordered choices) beside 40 items of each of three other kinds, too few for
    # a table (shuffled in place): the raters of the two moved places of the fives are each
    # of the 20 ordered pairs of distinct raters equally often (chi-square), and the sums are
    # those of the definition: the item's least d to each of its raters, d - least to the
    # rater drawn for each moved rating.
    from scipy.stats import chisquare

    from accord.agreement import raters

    monkeypatch.setattr(raters, "_GROUP_ITEMS", 256)
    labels = [[0, 0, 0, 1, 2]] * 3000 + [[1, 1], [0, 1, 1, 2, 2, 2, 3], [2, 2, 2], [0, 1]] * 40
    labels = labels[1500:] + labels[:1500]
    _, item, rater, d = _partial(labels)
    k = int(rater.max()) + 1
    chosen = raters._ChosenPlaces(item, rater, d, k)
    assert [(m, t) for m, t, *_ in chosen.groups] == [(5, 2)]
    assert chosen.rest.n == 40 * 7 and chosen.rest.moved.size == 40 * 4
    gen = np.random.default_rng(4)
    buffer = chosen.rest.raters.copy()
    drawn = chosen.draw(gen, buffer)
    assert drawn.size == 3000 * 2
    pairs = drawn.reshape(-1, 2)
    counts = Counter(map(tuple, pairs.tolist()))
    assert len(counts) == 20 and all(a != b for a, b in counts)
    assert chisquare(list(counts.values())).pvalue > 1e-3
    # the moved ratings of each five are its 1 and its 2 (raters 3 and 4 as given)
    expect = np.zeros(k)
    fives = [x for x in labels if len(x) == 5]
    h = -(0.6 * math.log2(0.6) + 2 * 0.2 * math.log2(0.2))
    least, w = -math.log2(0.6) - h, math.log2(3.0)  # a 1 or a 2: -log2(0.2) - h - least
    expect[:5] += len(fives) * least
    np.add.at(expect, pairs.ravel(), w)
    others = np.isin(item, np.flatnonzero([len(x) != 5 for x in labels]))
    in_place = chosen.rest.sums(buffer)  # checked against its definition above
    others_expect = np.bincount(rater[others], weights=d[others], minlength=k)
    np.testing.assert_allclose(in_place.sum(), others_expect.sum(), atol=1e-9)
    np.testing.assert_allclose(chosen.sums(drawn, buffer), expect + in_place, atol=1e-9)


@pytest.mark.parametrize("m", [1, 2, 3, 5, 7, 10])
def test_the_table_of_ordered_choices_is_every_permutation_of_t_of_m(m: int) -> None:
    # against itertools.permutations, which lists them in the same (lexicographic) order
    from accord.agreement.raters import _ordered_choices

    for t in range(1, min(m, 5) + 1):
        expect = np.array(list(itertools.permutations(range(m), t)))
        assert np.array_equal(_ordered_choices(m, t), expect), (m, t)


def test_the_tables_of_choices_go_to_the_kinds_of_most_items_within_their_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # kinds (m, t, items) with tables of P(m, t) rows of t places: 5 * 4 * 2 = 40 bytes,
    # 6 * 5 * 4 * 3 = 360, 10!/5! * 5 = 151,200 (within the 1 MB a table may take), and a
    # kind of too few items. A budget of 500 bytes holds the two kinds of most items; a
    # table of more than four rows an item is never made.
    from accord.agreement import raters

    monkeypatch.setattr(raters, "_GROUP_ITEMS", 256)
    kinds = [(10, 5, 7560), (5, 2, 1000), (6, 3, 500), (4, 2, 10), (10, 5, 7559)]
    monkeypatch.setattr(raters, "_TABLES_BYTES", 500)
    assert raters._tabled(kinds).tolist() == [False, True, True, False, False]
    monkeypatch.setattr(raters, "_TABLES_BYTES", 16 << 20)
    # 30,240 rows for 7,560 items is four rows an item; for 7,559 items it is more
    assert raters._tabled(kinds).tolist() == [True, True, True, False, False]
    # 7 of 10 places (604,800 rows, 4.2 MB) is over a table's 1 MB whatever the budget
    assert raters._tabled([(10, 7, 5000)]).tolist() == [False]


def test_chosen_places_give_each_rater_sum_its_null_mean_and_variance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Under the null a rater's summed deviation has mean 0 and variance V_r = sum over its
    # items of the variance of the item's deviations (the test's z; a hand formula): 4,000
    # permutations of 600 items of 4 to 9 ratings from 12 raters, means within 4 Monte Carlo
    # SDs of 0 and variances within 10% of V_r.
    gen = np.random.default_rng(8)
    labels = [list(gen.choice(3, m, p=[0.6, 0.3, 0.1])) for m in gen.integers(4, 10, 600)]
    raters_of = [gen.choice(12, len(x), replace=False) for x in labels]
    item = np.repeat(np.arange(len(labels)), [len(x) for x in labels])
    rater = np.concatenate(raters_of)
    _, _, _, d = _partial(labels)
    from accord.agreement import raters

    monkeypatch.setattr(raters, "_GROUP_ITEMS", 40)
    chosen = raters._ChosenPlaces(item, rater, d, 12)
    assert chosen.groups and chosen.rest.n  # kinds of 40 items or more tabled, others not
    v = np.zeros(12)
    starts = np.r_[0, np.cumsum([len(x) for x in labels])[:-1]]
    for x, who, a in zip(labels, raters_of, starts, strict=True):
        v[who] += np.var(d[a : a + len(x)])
    draws = np.array(
        [chosen.sums(chosen.draw(gen, b := chosen.rest.raters.copy()), b) for _ in range(4000)]
    )
    assert np.all(np.abs(draws.mean(axis=0)) < 4 * np.sqrt(v / 4000))
    np.testing.assert_allclose(draws.var(axis=0), v, rtol=0.1)


def test_partial_shuffles_in_blocks_of_items_equal_one_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the same draws, swapped 7 items at a time (the last block short) or all items at once
    from accord.agreement import raters

    gen = np.random.default_rng(6)
    labels = [list(gen.integers(0, 3, m)) for m in gen.integers(1, 13, 80)]
    monkeypatch.setattr(raters, "_BLOCK", 10**9)
    one, *_ = _partial(labels)
    whole = one.shuffle(np.random.default_rng(2), one.raters.copy())
    monkeypatch.setattr(raters, "_BLOCK", 7)
    several, *_ = _partial(labels)
    assert several.cuts.shape[1] > 10
    blocks = several.shuffle(np.random.default_rng(2), several.raters.copy())
    assert np.array_equal(whole, blocks) and not np.array_equal(whole, one.raters)


def test_sequential_stopping_settles_the_same_answer_with_fewer_permutations() -> None:
    # a planted random rater among six who agree: the decision is clear after the first block
    gen = np.random.default_rng(1)
    truth = gen.integers(0, 4, 150)
    wide = np.column_stack(
        [np.where(gen.uniform(size=150) < 0.8, truth, gen.integers(0, 4, 150)) for _ in range(6)]
        + [gen.integers(0, 4, 150)]
    )
    r = accord.Ratings.from_wide(wide)
    quick = rater_permutation_test(r, n_permutations=999)
    full = rater_permutation_test(r, n_permutations=999, sequential=False)
    assert quick.n_permutations < 999 and quick.max_permutations == 999
    assert full.n_permutations == 999
    assert quick.stray_raters == full.stray_raters == (6,)
    assert set(quick.low_pairs) == set(full.low_pairs)
    assert "of at most 999" in quick.method and "of at most" not in full.method
    # the Monte Carlo standard error of each p-value, sqrt(p (1 - p) / B)
    p = quick.raters["pvalue"].to_numpy()
    expect = np.sqrt(p * (1 - p) / quick.n_permutations)
    np.testing.assert_allclose(quick.raters["pvalue_se"].to_numpy(), expect)
    assert "pvalue_se" in quick.pairs.columns


COLS = {"item": "item", "rater": "rater", "label": "label"}


def _panel(n_items: int, seed: int) -> pd.DataFrame:
    """Six raters who mostly agree and one at random, every rater on every item, long."""
    gen = np.random.default_rng(seed)
    truth = gen.integers(0, 4, n_items)
    agree = [
        np.where(gen.uniform(size=n_items) < 0.7, truth, gen.integers(0, 4, n_items))
        for _ in range(6)
    ]
    wide = np.column_stack([*agree, gen.integers(0, 4, n_items)])
    return pd.DataFrame(
        {
            "item": np.repeat([f"i-{i}" for i in range(n_items)], 7),
            "rater": np.tile([f"r{k}" for k in range(7)], n_items),
            "label": wide.ravel(),
        }
    )


@pytest.mark.parametrize("pairs", [True, False])
def test_items_rated_alike_by_everyone_change_no_statistic_and_no_pvalue(
    pairs: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an item whose ratings all agree has deviation 0 in every order, and its pairs agree in
    # every order: adding such items leaves every z, every null draw (the same seed) and so
    # every p-value as they were, while the items are counted (the shuffle leaves them out)
    from accord.agreement import raters

    long = _panel(120, 4)
    alike = pd.DataFrame(
        {
            "item": np.repeat([f"same-{i}" for i in range(40)], 7),
            "rater": np.tile([f"r{k}" for k in range(7)], 40),
            "label": np.repeat(np.arange(40) % 4, 7),
        }
    )
    if not pairs:  # fewer pair cells allowed than there are: the rater test alone
        monkeypatch.setattr(raters, "MAX_PAIR_CELLS", 10)
    both = pd.concat([alike, long], ignore_index=True)
    a, b = (
        rater_permutation_test(accord.Ratings.from_long(x, **COLS), n_permutations=199, rng=3)
        for x in (long, both)
    )
    for col in ("rater", "z", "pvalue"):
        np.testing.assert_array_equal(a.raters[col], b.raters[col])
    assert (b.raters["n_items"] == a.raters["n_items"] + 40).all()
    if pairs:
        # the 40 agreements added to the observed and the expected count: equal to rounding
        np.testing.assert_allclose(a.pairs["z"], b.pairs["z"], rtol=1e-12)
        np.testing.assert_array_equal(a.pairs["pvalue"], b.pairs["pvalue"])
    else:
        assert a.pairs.empty and b.pairs.empty


def test_the_answer_does_not_depend_on_the_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    # the two streams drawn in two threads or one after the other in one: the same draws
    from accord.agreement import raters

    r = accord.Ratings.from_long(_panel(300, 5), **COLS)
    monkeypatch.setattr(raters, "_THREADED", 0)
    threaded = rater_permutation_test(r, n_permutations=299, rng=8, sequential=False)
    monkeypatch.setattr(raters, "usable_cores", lambda: 1)
    alone = rater_permutation_test(r, n_permutations=299, rng=8, sequential=False)
    pd.testing.assert_frame_equal(threaded.raters, alone.raters)
    pd.testing.assert_frame_equal(threaded.pairs, alone.pairs)
    assert threaded.n_permutations == 299


def test_a_close_call_draws_every_permutation() -> None:
    # settle rule by hand: 99% Clopper-Pearson interval of a p-value near the significance
    # level straddles it, so the test never stops early
    from accord.agreement.raters import _settled

    # scipy.stats.beta.ppf(0.995, 1, 100) = 0.0516: no exceedance in 100 is not yet below 5%,
    # beta.ppf(0.995, 1, 200) = 0.0261 in 200 is; 50 of 1000 straddles 5% (0.034 to 0.070)
    assert not _settled(np.array([1 / 101]), 100, 0.05)
    assert _settled(np.array([1 / 201]), 200, 0.05)
    assert not _settled(np.array([51 / 1001]), 1000, 0.05)
    assert _settled(np.array([0.5, 1 / 201]), 200, 0.05)
