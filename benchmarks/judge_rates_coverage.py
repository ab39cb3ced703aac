"""Coverage of the judge-corrected rate's 95% intervals: accord beside judgy 0.1.0.

Each replicate draws a labelled set (``--labelled`` items with a human label and the
judge's) and an unlabelled set (``--unlabelled`` items with the judge's label only) from one
population: a true pass rate ``--rate``, a judge with sensitivity ``--sens`` and
specificity ``--spec``. It computes the 95% interval of the pass rate by

- accord's Rogan-Gladen with the delta method (``corrected_rate``),
- accord's Rogan-Gladen with the bootstrap of both sets (``interval="bootstrap"``),
- accord's PPI++ (``prediction_powered_mean``),
- judgy's ``estimate_success_rate`` (its bootstrap resamples the labelled set only, and
  holds the judge's raw rate on the unlabelled set fixed),

and counts how often each covers the true rate (the population's, ``--rate``). Seeded:
the same arguments print the same numbers. Not part of the test run (minutes at the
defaults).

    uv run --no-sync python benchmarks/judge_rates_coverage.py
    uv run --no-sync python benchmarks/judge_rates_coverage.py --full
"""

from __future__ import annotations

import argparse
import math
import warnings

import numpy as np

import accord


def draw(rng: np.random.Generator, n: int, big_n: int, rate: float, sens: float, spec: float):
    truth = rng.random(n + big_n) < rate
    right = np.where(truth, rng.random(n + big_n) < sens, rng.random(n + big_n) < spec)
    judge = np.where(right, truth, ~truth).astype(int)
    return truth[:n].astype(int), judge[:n], judge[n:]


def intervals(human, judge, unlab, judgy_boot: int, seed: int) -> dict[str, tuple[float, float]]:
    import judgy

    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = accord.corrected_rate(human, judge, unlab)
        out["accord delta"] = (r.low, r.high)
        r = accord.corrected_rate(human, judge, unlab, interval="bootstrap", n_boot=1000, rng=seed)
        out["accord bootstrap"] = (r.low, r.high)
        p = accord.prediction_powered_mean(human, judge, unlab)
        out["accord PPI++"] = (p.low, p.high)
    np.random.seed(seed)  # noqa: NPY002 (judgy draws from numpy's global generator)
    try:
        _, low, high = judgy.estimate_success_rate(
            human, judge, unlab, bootstrap_iterations=judgy_boot
        )
    except (ValueError, RuntimeError):
        low, high = math.nan, math.nan
    out["judgy 0.1.0"] = (low, high)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labelled", type=int, default=200)
    parser.add_argument("--unlabelled", type=int, nargs="+", default=[200, 1000, 10000])
    parser.add_argument("--rate", type=float, default=0.7)
    parser.add_argument("--sens", type=float, default=0.9)
    parser.add_argument("--spec", type=float, default=0.8)
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--judgy-boot", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20260101)
    parser.add_argument("--full", action="store_true", help="2000 replicates")
    args = parser.parse_args()
    reps = 2000 if args.full else args.reps
    print(
        f"true rate {args.rate}, judge sensitivity {args.sens}, specificity {args.spec}; "
        f"{args.labelled} labelled items; {reps} replicates; nominal 95%"
    )
    print(f"{'unlabelled':>10}  {'method':<18} {'coverage':>8} {'mean width':>10}")
    for big_n in args.unlabelled:
        rng = np.random.default_rng([args.seed, big_n])
        covered: dict[str, list[bool]] = {}
        widths: dict[str, list[float]] = {}
        for rep in range(reps):
            data = draw(rng, args.labelled, big_n, args.rate, args.sens, args.spec)
            for name, (low, high) in intervals(*data, args.judgy_boot, rep).items():
                covered.setdefault(name, []).append(bool(low <= args.rate <= high))
                widths.setdefault(name, []).append(high - low)
        for name in covered:
            print(
                f"{big_n:>10}  {name:<18} {np.mean(covered[name]):>8.3f} "
                f"{np.nanmean(widths[name]):>10.3f}"
            )


if __name__ == "__main__":
    main()
