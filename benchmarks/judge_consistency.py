"""A judge's self-consistency, bias tests and drift beside the floor of reading the columns.

Data (generated, seeded): ``--items`` items (default 1,000; ``--full``: 10,000), each
labelled by four humans and by a judge run five times, three labels, every label the
item's truth with probability 0.7 (else uniform), a time per item over eight weeks; and a
pairwise log of as many pairs, each judged in both orders, with both answers' lengths.
Prints the wall seconds (best of ``--repeat``) of the floor (reading the columns of the
long table and of the log from Parquet into pandas) and of each analysis in memory:
``judge_consistency`` (test-retest alpha and kappa with intervals, flip rates, the humans
beside, the alt-test of the majority), ``position_bias``, ``length_bias``,
``pairwise_preference_agreement`` (its default 2,000 bootstrap replicates),
``agreement_drift``, ``self_preference`` (model ``x`` as the judge's own) and
``judge_rates`` (the judge on every item, the humans on one in ten: the corrected rates
and PPI++ with their default intervals); target every analysis under 2 s at 10,000 items.

    uv run --no-sync python benchmarks/judge_consistency.py --full --repeat 3
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from _common import cache_dir

import accord

HUMANS = 4
RUNS = 5
N_LABELS = 3


def long_table(n_items: int, seed: int = 0) -> pd.DataFrame:
    """Humans (trial 0) and the judge's five runs, with a time per item."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, N_LABELS, n_items)
    items = np.arange(n_items)
    when = pd.Timestamp("2024-01-01") + pd.to_timedelta(items * (56 * 86400 // n_items), "s")
    frames = []
    raters = [(f"human{i}", 0) for i in range(1, HUMANS + 1)] + [("llm", r) for r in range(RUNS)]
    for name, trial in raters:
        noise = rng.integers(0, N_LABELS, n_items)
        label = np.where(rng.random(n_items) < 0.7, truth, noise)
        frames.append(pd.DataFrame({"item": items, "rater": name, "trial": trial,
                                    "label": label, "time": when}))  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def pairwise_log(n_pairs: int, seed: int = 1) -> pd.DataFrame:
    """Each pair of models judged in both orders; the judge prefers the first shown and the
    longer answer a little."""
    rng = np.random.default_rng(seed)
    length = rng.integers(200, 4000, (n_pairs, 2))
    rows = []
    for order in (0, 1):
        first, second = length[:, order], length[:, 1 - order]
        logit = 0.4 + 0.0003 * (first - second)
        pick = rng.random(n_pairs) < 1 / (1 + np.exp(-logit))
        winner = np.where(rng.random(n_pairs) < 0.1, "tie", np.where(pick, "model_a", "model_b"))
        rows.append(pd.DataFrame({
            "question_id": np.arange(n_pairs), "turn": 1,
            "model_a": ["x", "y"][order], "model_b": ["y", "x"][order], "judge": "llm",
            "winner": winner, "length_a": first, "length_b": second,
        }))  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def best(fn: Callable[[], Any], repeat: int) -> float:
    """Wall seconds of the fastest of ``repeat`` runs."""
    out = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - start)
    return out


def _files(n_items: int) -> tuple[Path, Path]:
    folder = cache_dir("judge-consistency")
    paths = folder / f"long-{n_items}.parquet", folder / f"pairs-{n_items}.parquet"
    if not paths[0].exists():
        long_table(n_items).to_parquet(paths[0])
        pairwise_log(n_items).to_parquet(paths[1])
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000)
    parser.add_argument("--full", action="store_true", help="10,000 items (the target)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = 10_000 if args.full else args.items
    long_path, pairs_path = _files(n)
    long, log = pd.read_parquet(long_path), pd.read_parquet(pairs_path)
    first_run = long[long["trial"] == 0]  # the humans and the judge's first run
    # the judge on every item, the humans on one in ten: the corrected rates' data
    few_humans = first_run[(first_run["rater"] == "llm") | (first_run["item"] % 10 == 0)]
    small = long[long["item"] < 60]  # imports, off the clock
    accord.judge_consistency(small, "llm", epsilon=0.1, min_items_per_rater=10)
    accord.length_bias(log.head(50))
    floor = best(lambda: (pd.read_parquet(long_path), pd.read_parquet(pairs_path)), args.repeat)
    work = {
        "judge_consistency (alt-test of the majority)": lambda: accord.judge_consistency(
            long, "llm", epsilon=0.1
        ),
        "position_bias": lambda: accord.position_bias(log),
        "length_bias": lambda: accord.length_bias(log),
        "pairwise_preference_agreement (2,000 reps)": lambda: accord.pairwise_preference_agreement(
            log, rng=0
        ),
        "agreement_drift (weekly windows)": lambda: accord.agreement_drift(
            first_run, "llm", time="time", window="7d"
        ),
        "self_preference (model x as the judge's own)": lambda: accord.self_preference(
            log, "llm", "x"
        ),
        "judge_rates (humans on 1 item in 10)": lambda: accord.judge_rates(
            accord.Ratings.from_long(few_humans, item="item", rater="rater", label="label"),
            "llm",
        ),
    }
    print(f"{n:,} items x ({HUMANS} humans + judge x {RUNS} runs); {n:,} pairs x 2 orders; "
          f"best of {args.repeat}")  # fmt: skip
    print(f"{'what':<48} {'seconds':>8} {'x floor':>8}")
    print(f"{'floor: read the columns (Parquet -> pandas)':<48} {floor:>8.3f} {1:>8.1f}")
    for name, fn in work.items():
        seconds = best(fn, args.repeat)
        verdict = "met" if seconds < 2.0 else "NOT met"
        print(f"{name:<48} {seconds:>8.3f} {seconds / floor:>8.1f}   < 2 s: {verdict}")


if __name__ == "__main__":
    main()
