"""The rater permutation test: within-item shuffles and sequential stopping, beside the floor.

Realistic categorical ratings: items rated by 3 to 5 of 10 or of 200 raters (string ids),
5 categories, shuffled rows, one rater labelling at random. Printed side by side in one run:

- ``floor``: one pass over the encoded ratings (the bincount of a rater's summed weights), the
  least one permutation can cost;
- ``global argsort``: one permutation as a sort of all N ratings by item and a uniform key,
  times the permutations the test drew before (the default number for N);
- ``rater_permutation_test``: the test as it runs today (per-item shuffles, stopping when every
  decision is settled), and with ``sequential=False`` (every permutation drawn).

Run ``python benchmarks/rater_permutation.py`` (50k and 1M ratings) or ``--full`` (and 10M).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from accord import Ratings
from accord.agreement.raters import _default_permutations, rater_permutation_test


def ratings(n_ratings: int, n_raters: int = 200, seed: int = 5) -> Ratings:
    """About ``n_ratings`` ratings; rater ``r000`` answers at random."""
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


def seconds(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def run(n: int, n_raters: int) -> None:
    r = ratings(n, n_raters)
    gen = np.random.default_rng(0)
    weights = gen.random(r.n_ratings)
    base = np.sort(r.item_codes).astype(np.float64)
    floor = seconds(lambda: np.bincount(r.rater_codes, weights=weights, minlength=r.n_raters))
    one_sort = seconds(lambda: np.argsort(base + gen.random(base.size), kind="stable"))
    before = _default_permutations(r.n_ratings)
    start = time.perf_counter()
    quick = rater_permutation_test(r)
    t_quick = time.perf_counter() - start
    start = time.perf_counter()
    full = rater_permutation_test(r, sequential=False)
    t_full = time.perf_counter() - start
    print(f"\n{r.n_ratings:,} ratings, {r.n_items:,} items, {r.n_raters} raters")
    print(f"  floor (one bincount pass)           {floor * 1e3:9.1f} ms")
    print(
        f"  global argsort x {before} permutations {one_sort * before:9.2f} s "
        f"({one_sort * 1e3:.0f} ms each)"
    )
    print(
        f"  rater_permutation_test (sequential) {t_quick:9.2f} s  "
        f"{quick.n_permutations} permutations, {t_quick / quick.n_permutations * 1e3:.0f} ms "
        f"each = {t_quick / quick.n_permutations / floor:.0f}x the floor; strays "
        f"{quick.stray_raters}"
    )
    print(
        f"  rater_permutation_test (all drawn)  {t_full:9.2f} s  "
        f"{full.n_permutations} permutations; strays {full.stray_raters}"
    )
    print(f"  sequential vs every permutation     {t_full / t_quick:9.1f}x faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also 10M ratings")
    args = parser.parse_args()
    for n in [50_000, 1_000_000, 10_000_000] if args.full else [50_000, 1_000_000]:
        for n_raters in (10, 200):
            run(n, n_raters)


if __name__ == "__main__":
    main()
