"""Passing-Bablok regression at scale: the slope and its interval without listing the slopes.

Prints, for each number of pairs, the floor (one ``np.argsort`` of the n values: a bare
O(n log n) pass), ``accord.passing_bablok`` end to end (slope, intercept, their rank-based
intervals, the Cusum test), and, where the n(n-1)/2 slopes fit in memory, a plain numpy
O(n^2) implementation (every slope listed, ``np.partition`` for the order statistics).
With ``--mcr`` it also times R mcr's ``mcreg(method.reg = "PaBa")`` (its exact algorithm,
all slopes listed in C, up to 2e8 slopes: 20,000 pairs) through ``Rscript``, when R and mcr
are installed (``--r-lib``).

    uv run --no-sync python benchmarks/passing_bablok.py
    uv run --no-sync python benchmarks/passing_bablok.py --full --mcr
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from _common import timed
from scipy import special

import accord


def plain(x: np.ndarray, y: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """The slope and its interval with every slope listed (Passing & Bablok 1983)."""
    i, j = np.triu_indices(x.size, 1)
    dx, dy = x[j] - x[i], y[j] - y[i]
    del i, j
    keep = dx != 0
    s = dy[keep] / dx[keep]
    s = s[s != -1]
    k = int((s < -1).sum())
    big = s.size
    n = x.size
    c = float(special.ndtri(0.5 + level / 2)) * math.sqrt(n * (n - 1) * (2 * n + 5) / 18)
    m1 = math.floor((big - c) / 2 + 0.5)
    m2 = big - m1 + 1
    ranks = [big // 2 + k - 1, big // 2 + k, m1 + k - 1, m2 + k - 1]
    part = np.partition(s, ranks)
    slope = part[ranks[1]] if big % 2 else (part[ranks[0]] + part[ranks[1]]) / 2
    return float(slope), float(part[ranks[2]]), float(part[ranks[3]])


def mcr_seconds(x: np.ndarray, y: np.ndarray, r_lib: str) -> float | None:
    """Wall time of mcr's ``mcreg(method.reg = "PaBa")`` inside R (the data read excluded)."""
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "xy.csv"
        np.savetxt(data, np.column_stack([x, y]), delimiter=",", fmt="%.17g")
        script = (
            f'.libPaths("{r_lib}"); suppressMessages(library(mcr)); '
            f'd <- read.csv("{data}", header = FALSE); '
            "t <- system.time(mcreg(d[,1], d[,2], method.reg = 'PaBa', "
            "method.ci = 'analytical', slope.measure = 'tangent'))[['elapsed']]; cat(t)"
        )
        run = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True)
    try:
        return float(run.stdout.strip().split()[-1])
    except (ValueError, IndexError):
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", default="1000,10000,30000", help="comma-separated sizes")
    parser.add_argument("--full", action="store_true", help="sizes up to 10^5 pairs")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--plain-max", type=int, default=15000, help="largest n for O(n^2)")
    parser.add_argument("--mcr", action="store_true", help="also time R mcr")
    parser.add_argument("--r-lib", default="/work/peers/method-comparison/Rlib")
    args = parser.parse_args()
    sizes = [1000, 10000, 30000, 100000] if args.full else [int(v) for v in args.pairs.split(",")]
    gen = np.random.default_rng(0)
    print(f"Passing-Bablok, median of {args.repeat} runs (slope and 95% interval)")
    print(f"{'pairs':>8} {'argsort (floor)':>16} {'accord':>10} {'plain O(n^2)':>13} "
          f"{'mcr':>9}  same")  # fmt: skip
    for n in sizes:
        x = gen.lognormal(1.0, 0.6, n)
        y = 0.1 + 1.05 * x + gen.normal(0.0, 0.15 * x)
        _, floor = timed(lambda x=x: np.argsort(x), args.repeat)
        fit, took = timed(lambda x=x, y=y: accord.passing_bablok(x, y), args.repeat)
        shown_plain, same = "-", ""
        if n <= args.plain_max:
            ref, plain_took = timed(lambda x=x, y=y: plain(x, y), 1)
            shown_plain = f"{plain_took:.3f} s"
            same = str(ref == (fit.slope, fit.slope_ci.low, fit.slope_ci.high))
        # mcr's exact PaBa lists the slopes only below 2e8 of them (else it returns 0)
        mcr = mcr_seconds(x, y, args.r_lib) if args.mcr and n * (n - 1) / 2 < 2e8 else None
        shown_mcr = "-" if mcr is None else f"{mcr:.2f} s"
        print(f"{n:>8} {floor * 1e3:>13.2f} ms {took:>8.3f} s {shown_plain:>13} "
              f"{shown_mcr:>9}  {same}")  # fmt: skip


if __name__ == "__main__":
    main()
