"""Write the bundled simulated table of a judge run several times beside three humans.

Simulated, not observed: ``N_ITEMS`` responses graded ``pass`` or ``fail`` by three humans
(``h1``, ``h2``, ``h3``, once each) and by a model ``judge`` run ``N_RUNS`` times on every
response. Per response, in this order, from numpy's ``default_rng(SEED)``:

1. the truth: ``fail`` with probability ``FAIL_SHARE``, else ``pass``;
2. for each human in turn, a draw: right with probability ``HUMAN_ACCURACY``, else a coin
   toss between the two labels (a draw, then the coin when it is drawn);
3. whether the response is hard for the judge (probability ``HARD_SHARE``): the judge is
   right with probability ``HARD_ACCURACY`` on a hard response, ``EASY_ACCURACY`` on the
   others;
4. for each run in turn, the judge's draw (right, or the wrong label).

The responses are graded one every ``HOURS_APART`` hours from ``START``, the humans at that
time and run ``r`` of the judge ``r`` minutes later. So the judge's runs disagree with each
other on the hard responses (its self-consistency is below the humans' agreement there), and
its majority over runs is closer to the truth than any single run.

Writes ``judge-runs.csv`` (``item``, ``rater``, ``run``: 1 for the humans, 1 to ``N_RUNS`` for
the judge, ``verdict``, ``time``: ISO 8601) into both ``examples/`` and
``src/accord/datasets/data/``:

    uv run --no-sync python benchmarks/make_judge_runs.py
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np

SEED = 34
N_ITEMS = 120
N_RUNS = 5
HUMANS = ("h1", "h2", "h3")
JUDGE = "judge"
FAIL_SHARE = 0.35
HUMAN_ACCURACY = 0.9
HARD_SHARE = 0.3
HARD_ACCURACY = 0.6
EASY_ACCURACY = 0.97
HOURS_APART = 8
START = dt.datetime(2024, 5, 6, 9, 0)
ROOT = Path(__file__).resolve().parents[1]
FOLDERS = (ROOT / "examples", ROOT / "src" / "accord" / "datasets" / "data")
NAME = "judge-runs.csv"


def _other(label: str) -> str:
    return "fail" if label == "pass" else "pass"


def simulate(seed: int = SEED) -> tuple[list[str], list[int]]:
    """The table's lines (a header, then one rating a line) and the hard items."""
    rng = np.random.default_rng(seed)
    lines = ["item,rater,run,verdict,time"]
    hard_items: list[int] = []
    for item in range(N_ITEMS):
        when = START + dt.timedelta(hours=HOURS_APART * item)
        truth = "fail" if rng.random() < FAIL_SHARE else "pass"
        for human in HUMANS:
            label = truth
            if rng.random() >= HUMAN_ACCURACY:
                label = truth if rng.random() < 0.5 else _other(truth)
            lines.append(f"{item},{human},1,{label},{when.isoformat()}")
        hard = bool(rng.random() < HARD_SHARE)
        if hard:
            hard_items.append(item)
        accuracy = HARD_ACCURACY if hard else EASY_ACCURACY
        for run in range(1, N_RUNS + 1):
            label = truth if rng.random() < accuracy else _other(truth)
            stamp = (when + dt.timedelta(minutes=run)).isoformat()
            lines.append(f"{item},{JUDGE},{run},{label},{stamp}")
    return lines, hard_items


def main() -> None:
    lines, hard = simulate()
    for folder in FOLDERS:
        (folder / NAME).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines) - 1} ratings of {N_ITEMS} items, {len(hard)} hard, seed {SEED}")


if __name__ == "__main__":
    main()
