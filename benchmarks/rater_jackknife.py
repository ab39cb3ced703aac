"""The jackknife over raters (``se="items"`` / ``"unconditional"``) beside its floor and the
recomputation it replaces.

Ratings of ``n`` items by ``r`` raters on 4 ordered categories, 30% of them missing (each
rater agrees with the item's class 70% of the time), in memory. For Fleiss' kappa and Gwet's
AC2 (quadratic weights), in this process, the median of ``--repeat`` runs:

- ``floor``: the coefficient with its standard error conditional on the raters (the default);
- ``jackknife``: ``se="items"``: the leave-one-rater-out values from item totals, one pass
  over the ratings;
- ``recompute``: the coefficient recomputed by accord on the ratings without each rater in
  turn (what Stata's kappaetc does, and accord for Conger's kappa and alpha); the values
  must agree (``max diff``).

    uv run --no-sync python benchmarks/rater_jackknife.py          # 2,000 x 100
    uv run --no-sync python benchmarks/rater_jackknife.py --full   # 20,000 x 300
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np
from _common import timed

import accord
from accord.agreement.inference import leave_one_rater_out


def generate(n: int, r: int, seed: int = 2008) -> accord.Ratings:
    """Ratings of ``n`` items by ``r`` raters, 30% missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, n)
    wide = np.where(rng.random((n, r)) < 0.7, truth[:, None], rng.integers(0, 4, (n, r)))
    item, rater = np.nonzero(rng.random((n, r)) >= 0.3)
    return accord.Ratings.from_arrays(item, rater, wide[item, rater], level="ordinal",
                                      categories=[0, 1, 2, 3])  # fmt: skip


def run(n: int, r: int, repeat: int) -> None:
    ratings = generate(n, r)
    print(f"{ratings.n_ratings:,} ratings of {n:,} items by {r} raters, median of {repeat}")
    print(f"{'coefficient':14} {'floor s':>9} {'jackknife s':>12} {'recompute s':>12} "
          f"{'ratio':>7} {'max diff':>9}")  # fmt: skip
    cases: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
        ("fleiss_kappa", accord.fleiss_kappa, {}),
        ("gwet_ac2", accord.gwet_ac2, {"weights": "quadratic"}),
    ]
    for name, func, kw in cases:
        _, floor = timed(lambda: func(ratings, **kw), repeat)  # noqa: B023
        fast, jack = timed(lambda: func(ratings, se="items", **kw), repeat)  # noqa: B023
        slow, recompute = timed(
            lambda: leave_one_rater_out(ratings, lambda s: func(s, **kw).statistic),  # noqa: B023
            max(1, repeat // 3),
        )
        diff = float(np.max(np.abs(fast.rater_jackknife - slow)))
        print(f"{name:14} {floor:9.3f} {jack:12.3f} {recompute:12.3f} "
              f"{recompute / jack:7.1f} {diff:9.1e}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="20,000 items x 300 raters")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n, r = (20_000, 300) if args.full else (2_000, 100)
    run(n, r, args.repeat)


if __name__ == "__main__":
    main()
