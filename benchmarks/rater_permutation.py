"""The rater permutation test: within-item shuffles and sequential stopping, beside the floor.

Two shapes of categorical ratings, rows shuffled, one rater labelling at random:

- ``small items``: items rated by 3 to 5 of 10 or of 200 raters (string ids), 5 categories
  (the pair test runs);
- ``realistic``: the shape of ``realistic.py``, 10 ratings an item from a pool of 2,000
  raters, 5 labels, 5% of them missing (beyond 2M pair cells: the rater test alone).

Printed side by side in one run, CPU seconds (``time.process_time``, steadier than wall time
on a shared machine):

- ``floor``: one pass over the encoded ratings (the bincount of a rater's summed weights), the
  least one permutation can cost;
- ``global argsort``: one permutation as a sort of all N ratings by item and a uniform key;
- ``ranked draws``: one permutation as the test drew it before, ranking uniform draws within
  the items of each size (a table of the m! orders up to m = 5), then reading the deviations
  through it;
- ``Fisher-Yates``: one permutation as the test draws it with pairs to test (one vector step
  per slot of the largest item, over ratings laid out slot by slot once), deviations
  included; ``all items at once``: the same swaps made a step over every item at once rather
  than a block of items at a time (the same draws, the same result; at 10M ratings the
  layout is far larger than the processor's cache);
- ``partial``: one permutation as the rater test alone drew it before (without pairs to
  test): only which raters hold the ratings outside each item's most frequent category, by
  an in-place shuffle, on the data's own deviations, sums included;
- ``chosen places``: the same as the test draws it now: one uniform per item picks a row of
  a table of the ordered choices of its moved places (items of many raters and many moved
  places still shuffled in place);
- ``rater_permutation_test``: the whole test (sequential stopping, and every permutation drawn),
  in CPU seconds, and in wall seconds with its two streams of permutations in two threads
  beside one thread.

Run ``python benchmarks/rater_permutation.py`` (50k and 1M ratings), ``--full`` (and 3M),
``--realistic 1e7`` (the realistic shape alone, at that size) or ``--varied 1e6`` (items of
3 to 40 ratings by 300 raters: many kinds of item, few of each, most shuffled in place).
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from accord import Ratings
from accord.agreement import raters
from accord.agreement.raters import (
    _ChosenPlaces,
    _default_permutations,
    _PartialShuffle,
    _WithinItemShuffle,
    rater_permutation_test,
)


def partial_shuffle(r: Ratings, kind: Callable[..., Any] = _PartialShuffle) -> Any:
    """The rater test's partial shuffle of ``r`` (or its table of choices, ``kind``), on its
    deviations as the test computes them."""
    item, rater, label = r.item_codes, r.rater_codes, r.label_codes
    m = np.bincount(item, minlength=r.n_items).astype(np.float64)
    in_cell = raters._cell_counts(item * max(r.n_categories, 1) + label)
    d = raters._deviations(item, rater, m[item], in_cell, r.n_items, r.n_raters)[0]
    order = np.argsort(item, kind="stable")
    return kind(item[order], rater[order], d[order], r.n_raters)


def ratings(n_ratings: int, n_raters: int = 200, seed: int = 5) -> Ratings:
    """About ``n_ratings`` ratings in items of 3 to 5; rater ``r000`` answers at random."""
    gen = np.random.default_rng(seed)
    per_item = gen.integers(3, 6, n_ratings // 4)
    item = np.repeat(np.arange(per_item.size), per_item)
    truth = gen.integers(0, 5, per_item.size)[item]
    within = np.arange(item.size) - np.repeat(np.cumsum(per_item) - per_item, per_item)
    rater = (gen.integers(0, 200, per_item.size)[item] + 37 * within) % n_raters
    label = np.where(gen.uniform(size=item.size) < 0.75, truth, gen.integers(0, 5, item.size))
    label = np.where(rater == 0, gen.integers(0, 5, item.size), label)
    order = gen.permutation(item.size)
    return Ratings.from_arrays(
        np.char.add("item", item[order].astype(str)),
        np.char.add("r", np.char.zfill(rater[order].astype(str), 3)),
        np.char.add("c", label[order].astype(str)),
    )


def realistic(n_ratings: int, seed: int = 1) -> Ratings:
    """The shape of ``realistic.py`` (integer ids): 10 ratings an item by 2,000 raters of
    accuracy 0.5 to 0.95, 5 labels, 5% missing, rows shuffled."""
    gen = np.random.default_rng(seed)
    n_items = n_ratings // 10
    item = np.repeat(np.arange(n_items), 10)
    slot = np.tile(np.arange(10), n_items)
    rater = (gen.integers(0, 2000, n_items)[item] + slot * 200) % 2000
    truth = gen.integers(0, 5, n_items)[item]
    accuracy = gen.uniform(0.5, 0.95, 2000)
    wrong = (truth + gen.integers(1, 5, item.size)) % 5
    label = np.where(gen.random(item.size) < accuracy[rater], truth, wrong)
    keep = np.flatnonzero(gen.random(item.size) >= 0.05)
    keep = keep[gen.permutation(keep.size)]
    return Ratings.from_arrays(item[keep], rater[keep], label[keep])


def varied(n_ratings: int, seed: int = 3) -> Ratings:
    """Items of 3 to 40 ratings by 300 raters, 4 labels (each rating the item's own with
    probability 0.75), rows shuffled: many kinds of item (ratings, ratings outside the most
    frequent label), few items of each, so that most are shuffled in place."""
    gen = np.random.default_rng(seed)
    sizes = gen.integers(3, 41, max(n_ratings // 21, 1))
    item = np.repeat(np.arange(sizes.size), sizes)
    rater = np.concatenate([gen.choice(300, m, replace=False) for m in sizes])
    truth = gen.integers(0, 4, sizes.size)[item]
    label = np.where(gen.random(item.size) < 0.75, truth, gen.integers(0, 4, item.size))
    order = gen.permutation(item.size)
    return Ratings.from_arrays(item[order], rater[order], label[order])


class RankedDraws:
    """One within-item permutation as the test drew it before: items grouped by size, the
    m! orders tabled up to m = 5, uniform draws ranked along rows above."""

    def __init__(self, item_sorted: Any) -> None:
        n = item_sorted.size
        starts = np.r_[0, np.flatnonzero(np.diff(item_sorted)) + 1]
        sizes = np.diff(np.r_[starts, n])
        self.n = n
        self.groups = []
        for m in np.unique(sizes):
            first = starts[sizes == m].astype(np.int64)
            table = None
            if m <= 5:
                table = np.array(list(itertools.permutations(range(int(m)))), dtype=np.int64)
            self.groups.append((first[:, None] + np.arange(m), table))

    def draw(self, gen: np.random.Generator) -> Any:
        out = np.empty(self.n, dtype=np.int64)
        for positions, table in self.groups:
            if table is not None:
                within = table[gen.integers(table.shape[0], size=positions.shape[0])]
            else:
                within = np.argsort(gen.random(positions.shape), axis=1)
            out[positions.ravel()] = (positions[:, :1] + within).ravel()
        return out


def cpu(fn: Callable[[], object], repeat: int = 1) -> float:
    """The least CPU seconds of ``repeat`` runs of ``fn``."""
    best = np.inf
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return float(best)


def wall(fn: Callable[[], object]) -> float:
    """The wall seconds of one run of ``fn`` (the test's streams run in two threads)."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run(label: str, r: Ratings) -> None:
    gen = np.random.default_rng(0)
    d = gen.random(r.n_ratings)
    order = np.argsort(r.item_codes, kind="stable")
    item_sorted = r.item_codes[order]
    rater_sorted = r.rater_codes[order]
    base = item_sorted.astype(np.float64)
    k = r.n_raters
    ranked, shuffle = RankedDraws(item_sorted), _WithinItemShuffle(item_sorted)
    rater_laid, d_laid = rater_sorted[shuffle.layout], d[shuffle.layout]
    floor = cpu(lambda: np.bincount(rater_sorted, weights=d, minlength=k), 5)
    one_sort = cpu(lambda: np.argsort(base + gen.random(base.size), kind="stable"), 3)
    before = cpu(lambda: np.bincount(rater_sorted, weights=d[ranked.draw(gen)], minlength=k), 5)
    after = cpu(
        lambda: np.bincount(rater_laid, weights=shuffle.shuffle(gen, d_laid), minlength=k), 5
    )
    block = raters._BLOCK
    raters._BLOCK = max(r.n_items, 1)
    at_once = cpu(
        lambda: np.bincount(rater_laid, weights=shuffle.shuffle(gen, d_laid), minlength=k), 5
    )
    raters._BLOCK = block
    part = partial_shuffle(r)
    part_buffer = part.raters.copy()
    partial = cpu(lambda: part.sums(part.shuffle(gen, part_buffer)), 5)
    chosen = partial_shuffle(r, _ChosenPlaces)
    rest = chosen.rest.raters.copy()
    tabled = cpu(lambda: chosen.sums(chosen.draw(gen, rest), rest), 5)
    quick_s = cpu(lambda: rater_permutation_test(r))
    quick_wall = wall(lambda: rater_permutation_test(r))
    quick = rater_permutation_test(r)
    full_s = cpu(lambda: rater_permutation_test(r, sequential=False))
    cores = raters.usable_cores
    raters.usable_cores = lambda: 1
    one_thread = wall(lambda: rater_permutation_test(r))
    raters.usable_cores = cores
    most = _default_permutations(r.n_ratings)
    pairs = "rater test alone" if quick.reason else "raters and pairs"
    print(f"\n{label}: {r.n_ratings:,} ratings, {r.n_items:,} items, {k} raters ({pairs})")
    print(f"  floor (one bincount pass)             {floor * 1e3:8.1f} ms")
    print(f"  global argsort, one permutation       {one_sort * 1e3:8.1f} ms")
    print(f"  ranked draws (before), one + sums     {before * 1e3:8.1f} ms  {before / floor:5.1f}x")
    print(f"  Fisher-Yates (pairs), one + sums      {after * 1e3:8.1f} ms  {after / floor:5.1f}x")
    print(
        f"  the same, all items at once, + sums   {at_once * 1e3:8.1f} ms  {at_once / floor:5.1f}x"
    )
    print(f"  shuffle speed-up                      {before / after:8.1f}x")
    print(
        f"  partial (rater test alone), + sums    {partial * 1e3:8.1f} ms  {partial / floor:5.1f}x"
        f"  ({part.moved.size:,} of {r.n_ratings:,} ratings move)"
    )
    print(
        f"  chosen places (rater test alone)      {tabled * 1e3:8.1f} ms  {tabled / floor:5.1f}x"
        f"  ({chosen.draws:,} items drawn from tables, {chosen.rest.n:,} ratings shuffled)"
    )
    print(
        f"  rater_permutation_test (sequential)   {quick_s:8.2f} s   "
        f"{quick.n_permutations} permutations, {quick_s / quick.n_permutations * 1e3:.1f} ms "
        f"each; strays {quick.stray_raters[:4]}"
    )
    print(f"  rater_permutation_test (all {most})    {full_s:8.2f} s")
    print(
        f"  the sequential test, wall seconds      {quick_wall:8.2f} s   "
        f"(one thread {one_thread:.2f} s: {one_thread / quick_wall:.2f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also 3M ratings")
    parser.add_argument("--realistic", type=float, default=0, help="the realistic shape alone")
    parser.add_argument("--varied", type=float, default=0, help="items of 3 to 40 ratings alone")
    args = parser.parse_args()
    if args.realistic or args.varied:
        if args.realistic:
            run("realistic", realistic(int(args.realistic)))
        if args.varied:
            run("items of 3 to 40 ratings, 300 raters", varied(int(args.varied)))
        return
    sizes = [50_000, 1_000_000, 3_000_000] if args.full else [50_000, 1_000_000]
    for n in sizes:
        for n_raters in (10, 200):
            run(f"small items, {n_raters} raters", ratings(n, n_raters))
        run("realistic", realistic(n))


if __name__ == "__main__":
    main()
