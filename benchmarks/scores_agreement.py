"""``agreement()`` on scores: the default table (alpha at the data's level and the ICCs)
beside every coefficient (the exact-match ones included) and beside its floor.

Scores of 3 raters per item rounded to one decimal (about 1,300 distinct values, as real
measurements have), shuffled rows, 2% missing, string ids, in a CSV. Printed in one run:

- ``floor``: reading the CSV with pyarrow and dictionary-encoding its item and rater
  columns (what any reader of string ids must do, as the other benchmarks' floors); the
  bare read is printed too;
- ``agreement(path, level="interval")``: the default table, memory and stream engines;
- ``every coefficient``: the same with ``coefficients=COEFFICIENTS`` (the exact-match
  coefficients over each distinct value as a category);
- ``icc`` alone (on 2% missing scores the REML fit).

Every call runs once after the imports are warm (a complete design and one with a missing
score, whose ICCs are the REML fit's: its optimiser's import is off the clock).

Run ``python benchmarks/scores_agreement.py`` (1M scores) or ``--full`` (5M).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import cache_dir


def write(n_scores: int) -> Path:
    path = cache_dir("scores_agreement") / f"scores_{n_scores}.csv"
    if path.exists():
        return path
    import pyarrow as pa
    import pyarrow.csv as pacsv

    gen = np.random.default_rng(3)
    n_items = n_scores // 3
    truth = gen.normal(50, 15, n_items)
    item = np.repeat(np.arange(n_items), 3)
    rater = np.tile(np.arange(3), n_items)
    score = np.round(truth[item] + gen.normal(0, 5, item.size) + rater, 1)
    keep = gen.uniform(size=item.size) > 0.02
    order = gen.permutation(np.flatnonzero(keep))
    table = pa.table(
        {
            "item": np.char.add("item", item[order].astype(str)),
            "rater": np.char.add("r", rater[order].astype(str)),
            "score": score[order],
        }
    )
    pacsv.write_csv(table, path)
    return path


def seconds(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def _read_and_encode(pacsv: Any, path: Path) -> None:
    """The floor: the CSV read, its item and rater ids dictionary-encoded."""
    import pyarrow.compute as pc

    table = pacsv.read_csv(path)
    for column in ("item", "rater"):
        pc.dictionary_encode(table[column])


def run(n: int) -> None:
    import pyarrow.csv as pacsv

    import accord
    from accord.agreement.summary import COEFFICIENTS

    path = write(n)
    cols = dict(item="item", rater="rater", label="score", level="interval")
    for wide in ([[1.0, 2.0], [2.0, 2.5]], [[1.0, 2.0], [2.0, 2.5], [3.0, None], [4.0, 4.5]]):
        accord.agreement(accord.Ratings.from_wide(wide, level="interval"))
    bare = seconds(lambda: pacsv.read_csv(path))
    floor = seconds(lambda: _read_and_encode(pacsv, path))
    default = seconds(lambda: accord.agreement(str(path), **cols))
    stream = seconds(lambda: accord.agreement(str(path), engine="stream", **cols))
    every = seconds(lambda: accord.agreement(str(path), coefficients=list(COEFFICIENTS), **cols))
    icc = seconds(lambda: accord.agreement(str(path), coefficients=["icc"], **cols))
    print(f"\n{n:,} scores (CSV, string ids, shuffled, 2% missing)")
    print(f"  pyarrow read alone                  {bare:7.2f} s")
    print(f"  floor (read + dictionary_encode)    {floor:7.2f} s")
    print(f"  agreement() default, memory         {default:7.2f} s  {default / floor:5.1f}x")
    print(f"  agreement() default, stream         {stream:7.2f} s  {stream / floor:5.1f}x")
    print(f"  every coefficient, memory           {every:7.2f} s  {every / floor:5.1f}x")
    print(f"  icc alone, memory                   {icc:7.2f} s  {icc / floor:5.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="5M scores")
    args = parser.parse_args()
    run(5_000_000 if args.full else 1_000_000)


if __name__ == "__main__":
    main()
