"""The overall CCC of many raters at scale: 16k and 155k items x 5 raters.

Prints, in one run, the floor (``np.cov`` of the same items x raters array: one pass over
the scores, no inference) beside ``accord.concordance_correlation`` end to end (the overall
CCC, Barnhart's precision and accuracy, and the jackknife SE over items). Each figure is
the median of ``--repeat`` runs; timings move on a shared machine, so read them against the
floor. With ``--naive`` it also times the jackknife that recomputes the CCC on every
leave-one-out sample (O(n^2 k)) on ``--naive-items`` items, for scale.

    uv run --no-sync python benchmarks/measurements.py
    uv run --no-sync python benchmarks/measurements.py --items 16000,155000 --repeat 5
"""

from __future__ import annotations

import argparse

import numpy as np
from _common import timed

import accord


def scores(n: int, k: int, gen: np.random.Generator) -> np.ndarray:
    """``n`` items x ``k`` raters: a true value per item, a rater offset and noise."""
    truth = gen.normal(50.0, 10.0, size=(n, 1))
    return truth + gen.normal(0.0, 1.0, size=k) + gen.normal(0.0, 3.0, size=(n, k))


def naive_jackknife(y: np.ndarray) -> float:
    """The overall CCC recomputed on each leave-one-out sample (the O(n^2 k) jackknife)."""

    def overall(s: np.ndarray) -> float:
        cov, mean = np.cov(s, rowvar=False, ddof=0), s.mean(axis=0)
        k = s.shape[1]
        spread = k * float(((mean - mean.mean()) ** 2).sum())
        return float(cov.sum() - np.trace(cov)) / ((k - 1) * float(np.trace(cov)) + spread)

    z = np.arctanh([overall(np.delete(y, i, axis=0)) for i in range(y.shape[0])])
    n = y.shape[0]
    return float(np.sqrt((n - 1) / n * np.sum((z - z.mean()) ** 2)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", default="16000,155000", help="comma-separated item counts")
    parser.add_argument("--raters", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--naive", action="store_true", help="also time the naive jackknife")
    parser.add_argument("--naive-items", type=int, default=2000)
    args = parser.parse_args()
    gen = np.random.default_rng(0)
    print(f"overall CCC of {args.raters} raters; median of {args.repeat} runs")
    print(f"{'items':>8} {'np.cov (floor)':>15} {'accord':>10} {'ratio':>8}  CCC, SE")
    for n in (int(v) for v in args.items.split(",")):
        y = scores(n, args.raters, gen)
        _, floor = timed(lambda y=y: np.cov(y, rowvar=False), args.repeat)
        ccc, took = timed(lambda y=y: accord.concordance_correlation(y), args.repeat)
        print(
            f"{n:>8} {floor * 1e3:>12.2f} ms {took * 1e3:>7.1f} ms {took / floor:>7.1f}x  "
            f"{ccc.statistic:.4f}, {ccc.standard_error:.2g}"
        )
    if args.naive:
        y = scores(args.naive_items, args.raters, gen)
        se_z, slow = timed(lambda: naive_jackknife(y), 1)
        fast, took = timed(lambda: accord.concordance_correlation(y), args.repeat)
        print(
            f"naive jackknife on {args.naive_items} items: {slow:.2f} s (accord {took * 1e3:.1f}"
            f" ms; SE_z {se_z:.6g} vs {fast.z_standard_error:.6g})"
        )


if __name__ == "__main__":
    main()
