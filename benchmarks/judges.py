"""The judge beside the humans: ``judge_agreement`` with its default bootstrap beside its floors.

Data: ``--items`` items (default 10,000), each rated by four humans and a judge, three labels;
every rater gives the item's true label with probability 0.7, else a uniform label. Prints
the seconds (wall clock, best of ``--repeat`` runs, and the CPU seconds of that run) of one
bare ``np.bincount`` over the encoded ratings (the floor), of ``judge_agreement(n_boot=0)``
(the point estimates: its own floor) and of ``judge_agreement()`` with the default 2,000
bootstrap replicates, each with its ratio to both. Target: the default call under 1 s at
10,000 items. Timings are noisy on a shared machine: compare the ratios of the same run.

    uv run --no-sync python benchmarks/judges.py --items 10000 --repeat 3
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

HUMANS = 4
N_LABELS = 3


def panel(n_items: int, seed: int = 0) -> accord.Ratings:
    """Four humans and a judge (``"llm"``) on ``n_items`` items, encoded."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, N_LABELS, n_items)
    columns: dict[str, Any] = {"item": np.arange(n_items)}
    for name in [f"human{i}" for i in range(1, HUMANS + 1)] + ["llm"]:
        noise = rng.integers(0, N_LABELS, n_items)
        columns[name] = np.where(rng.random(n_items) < 0.7, truth, noise)
    frame = pd.DataFrame(columns).melt(id_vars="item", var_name="rater", value_name="label")
    return accord.Ratings.from_long(frame, item="item", rater="rater", label="label")


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Wall and CPU seconds of the fastest of ``repeat`` runs."""
    out = (math.inf, math.inf)
    for _ in range(repeat):
        cpu, start = time.process_time(), time.perf_counter()
        fn()
        out = min(out, (time.perf_counter() - start, time.process_time() - cpu))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    r = panel(args.items)
    accord.judge_agreement(panel(200), "llm", n_boot=1000, rng=0)  # imports, off the clock
    q = r.n_categories
    floor, _ = best(lambda: np.bincount(r.item_codes * q + r.label_codes), args.repeat)
    point, point_cpu = best(lambda: accord.judge_agreement(r, "llm", n_boot=0), args.repeat)
    full, full_cpu = best(lambda: accord.judge_agreement(r, "llm", rng=0), args.repeat)
    print(
        f"{args.items:,} items x ({HUMANS} humans + judge), {N_LABELS} labels; "
        f"best of {args.repeat}"
    )
    print(f"{'what':<40} {'seconds':>8} {'cpu':>8} {'x floor':>9} {'x n_boot=0':>11}")
    print(f"{'floor: bincount of (item, label)':<40} {floor:>8.4f} {'':>8} {1:>9.1f}")
    print(
        f"{'judge_agreement(n_boot=0)':<40} {point:>8.3f} {point_cpu:>8.3f} {point / floor:>9.0f}"
    )
    verdict = "met" if full < 1.0 else "NOT met"
    print(
        f"{'judge_agreement() (2,000 replicates)':<40} {full:>8.3f} {full_cpu:>8.3f} "
        f"{full / floor:>9.0f} {full / point:>11.1f}   < 1 s: {verdict}"
    )


if __name__ == "__main__":
    main()
