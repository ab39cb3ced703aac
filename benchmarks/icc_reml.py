"""The REML ICC at scale: 1M items x 100 raters, 5% of the cells filled (~5M scores).

Prints, in one run, the floor (``np.bincount`` of the scores by item and by rater: one pass
over the scores) beside the REML stages: the design's sums (one pass building the per-count
statistics), the three model fits, a profile-likelihood interval, and ``accord.icc(ratings,
method="reml")`` end to end with every form's 95% interval. Each figure is the median of
``--repeat`` runs in this process; timings move on a shared machine, so read them against
the floor.

    uv run --no-sync python benchmarks/icc_reml.py              # full size
    uv run --no-sync python benchmarks/icc_reml.py --scale 0.1
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import accord
from accord.agreement.icc_mixed import CrossedDesign, fit_reml


def timed(fn: Callable[[], Any], repeat: int) -> tuple[Any, float]:
    """The result of ``fn`` and its median wall time over ``repeat`` runs."""
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return out, statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the items")
    parser.add_argument("--raters", type=int, default=100)
    parser.add_argument("--fill", type=float, default=0.05, help="share of cells scored")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n, m = int(1_000_000 * args.scale), args.raters
    gen = np.random.default_rng(0)
    blocks = []
    for start in range(0, n, 100_000):  # 100k items at a time: the full grid is 800 MB
        block = np.nonzero(gen.uniform(size=(min(100_000, n - start), m)) < args.fill)
        blocks.append((block[0] + start, block[1]))
    items = np.concatenate([b[0] for b in blocks])
    raters = np.concatenate([b[1] for b in blocks])
    y = (
        gen.normal(0.0, 1.0, n)[items]
        + gen.normal(0.0, 0.5, m)[raters]
        + gen.normal(0.0, 1.0, items.size)
    )
    print(f"accord {accord.__version__}: {n} items x {m} raters, {items.size} scores "
          f"({args.fill:.0%} filled); s_items = 1, s_raters = 0.25, s_residual = 1")  # fmt: skip
    ratings = accord.Ratings.from_arrays(items, raters, y, level="interval")

    def floor() -> Any:
        return np.bincount(items, weights=y), np.bincount(raters, weights=y)

    rows: list[tuple[str, float]] = []
    _, t_floor = timed(floor, args.repeat)
    rows.append(("floor: np.bincount of the scores by item and rater", t_floor))
    design, t = timed(lambda: CrossedDesign.from_codes(items, raters, y), args.repeat)
    rows.append(("design sums (one pass, per-count statistics)", t))
    fits = {}
    for model in ("oneway", "random", "fixed"):
        fits[model], t = timed(lambda model=model: fit_reml(design, model), args.repeat)
        rows.append((f"REML fit, {model} model", t))
    _, t = timed(lambda: fit_reml(design, "random").profile_interval(0.95), args.repeat)
    rows.append(("REML fit + 95% profile interval, random model", t))

    def whole() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = accord.icc(ratings, method="reml")
            return res, [f.confidence_interval(0.95) for f in res.forms]

    (res, cis), t_whole = timed(whole, args.repeat)
    rows.append(("accord.icc(ratings, method='reml') + 6 intervals", t_whole))
    for name, seconds in rows:
        print(f"{name:<52} {seconds:8.3f} s   {seconds / t_floor:8.1f}x floor")
    r = fits["random"]
    print(f"random model: s_items {r.items_variance:.4f}, s_raters {r.raters_variance:.4f}, "
          f"s_residual {r.residual_variance:.4f}; k-hat {res.k_hat:.3f}")  # fmt: skip
    for f, ci in zip(res.forms, cis, strict=True):
        print(f"  {f.label:<9} {f.statistic:.4f}  95% CI {ci.low:.4f} to {ci.high:.4f}")


if __name__ == "__main__":
    main()
