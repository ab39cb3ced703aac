"""Rater-pair statistics on realistic designs: Light's kappa beside the bincount floor.

The design of ``realistic.py`` encoded in memory: items of 10 ratings drawn from a pool of
2,000 raters, five labels, 5% of the ratings missing, rows in random order. Prints, for each
size, the seconds of one bare ``np.bincount`` over the encoded ratings (the floor), of the
per-pair agreement terms (``accord.stats.pairs.pair_agreement``: every pair of ratings within
an item, counted by rater pair), of ``light_kappa(ci="analytic")``, of ``agreement()`` with
Fleiss' kappa alone and with every coefficient, each with its ratio to the floor; with
``--bootstrap``, also ``light_kappa()`` and ``pairwise_specific_agreement()`` with their
default intervals (2,000 bootstrap replicates over items and the leave-one-item-out values
of their BCa intervals) and Light's leave-one-out values alone. Timings are the best of
``--repeat`` runs (wall clock; on a shared machine they are noisy).

    uv run --no-sync python benchmarks/pairs.py --sizes 1e6,2e6
    uv run --no-sync python benchmarks/pairs.py --sizes 1e6 --repeat 1 --bootstrap
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import accord
from accord.agreement.specific_many import pairwise_specific_agreement
from accord.stats.pairs import pair_agreement

RATINGS_PER_ITEM = 10
N_RATERS = 2_000
N_LABELS = 5
MISSING = 0.05


def realistic(n: int, seed: int = 0) -> accord.Ratings:
    """``n`` ratings of the realistic design, encoded."""
    rng = np.random.default_rng(seed)
    n_items = n // RATINGS_PER_ITEM
    j = rng.permutation(n_items * RATINGS_PER_ITEM)
    item, slot = j // RATINGS_PER_ITEM, j % RATINGS_PER_ITEM
    offset = rng.integers(0, N_RATERS, n_items)
    rater = (offset[item] + slot * (N_RATERS // RATINGS_PER_ITEM)) % N_RATERS
    truth = rng.integers(0, N_LABELS, n_items)
    label = np.where(rng.random(j.size) < 0.7, truth[item], rng.integers(0, N_LABELS, j.size))
    keep = rng.random(j.size) >= MISSING
    frame = pd.DataFrame({"item": item[keep], "rater": rater[keep], "label": label[keep]})
    return accord.Ratings.from_long(frame, item="item", rater="rater", label="label")


def best(fn: Callable[[], Any], repeat: int) -> float:
    out = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e6,2e6", help="ratings, comma-separated")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--bootstrap", action="store_true", help="light_kappa's default CI too")
    args = parser.parse_args()
    accord.agreement(realistic(2_000), coefficients=["light_kappa"])  # imports, off the clock
    print(f"{'ratings':>10} {'what':<34} {'seconds':>8} {'x floor':>8}")
    for size in (int(float(s)) for s in args.sizes.split(",")):
        run(realistic(size), args.repeat, args.bootstrap)


def _leave_one_out(r: accord.Ratings) -> Any:
    """Light's kappa with each item left out, as its default interval computes them."""
    from accord.agreement._tables import (
        cohen_pairs,
        cohen_tables,
        pair_features,
        pair_mean_jackknife,
    )
    from accord.stats import PairTables

    pt = PairTables.from_ratings(r)
    kept = cohen_pairs(pt, 2)[1]
    feats = pair_features(r, pt, kept)
    return pair_mean_jackknife(
        feats, int(kept.size), r.n_categories, lambda t: cohen_tables(t)[:, None]
    )


def run(r: accord.Ratings, repeat: int, with_bootstrap: bool = False) -> None:
    """Print the timings of one data set."""
    q = r.n_categories
    floor = best(lambda: np.bincount(r.item_codes * q + r.label_codes), repeat)
    runs: dict[str, Callable[[], Any]] = {
        "pair_agreement": lambda: pair_agreement(r),
        "light_kappa(ci='analytic')": lambda: accord.light_kappa(r, ci="analytic"),
        "agreement(fleiss_kappa)": lambda: accord.agreement(r, coefficients=["fleiss_kappa"]),
        "agreement() (all, Light's included)": lambda: accord.agreement(r),
    }
    if with_bootstrap:
        runs["light_kappa() (bootstrap, 2000)"] = lambda: accord.light_kappa(r, rng=0)
        runs["pairwise_specific_agreement()"] = lambda: pairwise_specific_agreement(r, rng=0)
        runs["light_kappa leave-one-item-out"] = lambda: _leave_one_out(r)
    print(f"{r.n_ratings:>10,} {'floor: bincount of (item, label)':<34} {floor:>8.3f} {1:>8.1f}")
    for what, fn in runs.items():
        secs = best(fn, repeat)
        print(f"{r.n_ratings:>10,} {what:<34} {secs:>8.3f} {secs / floor:>8.1f}")


if __name__ == "__main__":
    main()
