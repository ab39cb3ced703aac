"""The judge-corrected rate on many judged items: accord beside its floor, judgy and ppi-python.

Data: ``--items`` judged items (default 1,000,000; ``--full``: 10,000,000), the judge's 0/1
verdicts in one Parquet column (kept under the temporary directory between runs), and 1,000
labelled items (a human's verdict and the judge's). A judge with sensitivity 0.9 and
specificity 0.8 on a true pass rate of 0.7. Prints the seconds (best of ``--repeat``) of

- the floor: reading the judge's column from Parquet into numpy (pyarrow);
- accord in memory: the floor, then ``JudgeCounts.from_labels`` (the counts),
  ``corrected_rate_from_counts`` (Rogan-Gladen, delta interval) and
  ``prediction_powered_mean_from_moments`` (PPI++) on them;
- accord streamed: ``accord.judge_counts`` sums the judge's counts batch by batch through
  the engines' fold (1,000,000 rows a batch: memory bounded by the batch), then the same
  estimators;
- judgy 0.1.0 ``estimate_success_rate`` (its default 20,000 bootstrap replicates) and
  ppi-python ``ppi_mean_ci`` (PPI++) on the arrays read,

each with its ratio to the floor. Timings are noisy on a shared machine: compare the ratios.

    uv run --no-sync python benchmarks/judge_rates.py
    uv run --no-sync python benchmarks/judge_rates.py --full
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from _common import cache_dir, timed

import accord

LABELLED = 1000
CATEGORIES = (0, 1)


def judged_file(n_items: int, seed: int = 0) -> Path:
    """The judge's verdicts on ``n_items`` items as one Parquet column, made once."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = cache_dir("judge-rates") / f"judged-{n_items}.parquet"
    if not path.exists():
        rng = np.random.default_rng(seed)
        truth = rng.random(n_items) < 0.7
        right = np.where(truth, rng.random(n_items) < 0.9, rng.random(n_items) < 0.8)
        judge = np.where(right, truth, ~truth).astype(np.int8)
        pq.write_table(pa.table({"judge": judge}), path, row_group_size=1_000_000)
    return path


def labelled(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.random(LABELLED) < 0.7
    right = np.where(human, rng.random(LABELLED) < 0.9, rng.random(LABELLED) < 0.8)
    return human.astype(np.int8), np.where(right, human, ~human).astype(np.int8)


def read_column(path: Path) -> np.ndarray:
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=["judge"]).column("judge").to_numpy()


def estimates(counts: accord.JudgeCounts) -> tuple[Any, Any]:
    rate = accord.corrected_rate_from_counts(counts)
    ppi = accord.prediction_powered_mean_from_moments(
        accord.PredictionMoments.from_counts(counts, 1)
    )
    return rate, ppi


def in_memory(path: Path, human: np.ndarray, judge: np.ndarray) -> tuple[Any, Any]:
    counts = accord.JudgeCounts.from_labels(human, judge, read_column(path), categories=CATEGORIES)
    return estimates(counts)


def streamed(path: Path, human: np.ndarray, judge: np.ndarray) -> tuple[Any, Any]:
    judged = accord.judge_counts(path, judge="judge", categories=CATEGORIES)
    counts = accord.JudgeCounts.from_labels(human, judge, [], categories=CATEGORIES).merge(judged)
    return estimates(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--full", action="store_true", help="10,000,000 judged items")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n_items = 10_000_000 if args.full else args.items
    path = judged_file(n_items)
    human, judge = labelled()
    _column, floor = timed(lambda: read_column(path), args.repeat, min)
    (rate, ppi), memory = timed(lambda: in_memory(path, human, judge), args.repeat, min)
    (rate_s, ppi_s), stream = timed(lambda: streamed(path, human, judge), args.repeat, min)
    assert rate_s.estimate == rate.estimate and ppi_s.estimate == ppi.estimate
    rows = [("floor: read the column (pyarrow)", floor), ("accord, in memory", memory)]
    rows.append(("accord, streamed (fold)", stream))
    try:
        import judgy

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs, judgy_s = timed(
                lambda: judgy.estimate_success_rate(human, judge, read_column(path)), 1, min
            )
        rows.append(("judgy 0.1.0 (20,000 replicates)", judgy_s))
        assert abs(theirs[0] - rate.estimate) < 1e-9
    except ImportError:
        pass
    try:
        import ppi_py

        def peer() -> Any:
            return ppi_py.ppi_mean_ci(
                human.astype(float),
                judge.astype(float),
                read_column(path).astype(float),
                alpha=0.05,
            )

        (low, _high), ppi_s_ = timed(peer, args.repeat, min)
        rows.append(("ppi-python ppi_mean_ci (PPI++)", ppi_s_))
        assert abs(float(np.squeeze(low)) - ppi.low) < 1e-9
    except ImportError:
        pass
    print(f"{n_items:,} judged items, {LABELLED:,} labelled")
    print(
        f"Rogan-Gladen {rate.estimate:.4f} [{rate.low:.4f}, {rate.high:.4f}]; "
        f"PPI++ {ppi.estimate:.4f} [{ppi.low:.4f}, {ppi.high:.4f}]"
    )
    print(f"{'':<36} {'seconds':>8} {'x floor':>8}")
    for name, seconds in rows:
        print(f"{name:<36} {seconds:>8.3f} {seconds / floor:>8.1f}")


if __name__ == "__main__":
    main()
