"""The memory engine's hash of a text column in two halves, beside one hash of the same column.

Reads the realistic Parquet file of ``realistic.py`` (text ids, shuffled rows, 5% missing
labels; generated there when missing) and, beside it, a column of as many ids that are all
distinct (shuffled), then for each column, in this process, ``--repeat`` times interleaved
(median wall and CPU seconds):

- ``floor``: ``pyarrow.compute.dictionary_encode`` of the column, one hash table (what the
  floors of ``realistic.py`` and ``report_speed.py`` do);
- ``one hash``: :func:`accord.data.encoder.dictionary_of` with the halves turned off;
- ``accord``: ``dictionary_of`` as it runs: in two halves side by side when the column has
  2M rows or more, two usable cores, and values repeated nine times or more on average (a
  sample of 100,000 rows says), else one hash.

The codes of ``accord`` and ``one hash`` are checked equal. Targets: the halves faster than
one hash where they are taken, and no slower where they are not (the all-distinct ids).

    uv run --no-sync python benchmarks/hash_halves.py --ratings 1e7 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from _common import count
from realistic import COLS, generate, paths


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def main() -> None:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    import accord.data.encoder as encoder

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=count, default=10**7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    generate(args.ratings)
    table = pq.read_table(paths(args.ratings)["parquet"], columns=list(COLS.values()))
    n = table.num_rows
    distinct = np.char.add("u-", np.random.default_rng(7).permutation(n).astype(str))
    columns = {name: table.column(name) for name in COLS.values()}
    columns["distinct"] = pa.chunked_array(
        [pa.array(distinct[lo : lo + 1_000_000]) for lo in range(0, n, 1_000_000)]
    )
    split_rows = encoder.SPLIT_ROWS

    def one_hash(column: Any) -> Any:
        encoder.SPLIT_ROWS = 1 << 62
        try:
            return encoder.dictionary_of(column)
        finally:
            encoder.SPLIT_ROWS = split_rows

    print(f"{n:,} rows, {encoder.usable_cores()} usable cores, median of {args.repeat}\n")
    print(f"{'column':<9} {'distinct':>10} {'halves':>7} {'phase':<9} {'seconds':>8} "
          f"{'CPU s':>7} {'x floor':>8}")  # fmt: skip
    for name, column in columns.items():
        phases: dict[str, Callable[[], Any]] = {
            "floor": lambda c=column: pc.dictionary_encode(c),
            "one hash": lambda c=column: one_hash(c),
            "accord": lambda c=column: encoder.dictionary_of(c),
        }
        runs: dict[str, list[tuple[float, float]]] = {phase: [] for phase in phases}
        codes: dict[str, Any] = {}
        for _ in range(args.repeat):
            for phase, fn in phases.items():
                wall, cpu, out = timed(fn)
                runs[phase].append((wall, cpu))
                codes[phase] = out
        assert np.array_equal(codes["accord"][0], codes["one hash"][0]), name
        halves = n >= split_rows and encoder._repeats_often(column)
        floor = statistics.median(w for w, _ in runs["floor"])
        for phase, timings in runs.items():
            wall = statistics.median(w for w, _ in timings)
            cpu = statistics.median(c for _, c in timings)
            print(f"{name:<9} {len(codes['one hash'][1]):>10,} {halves!s:>7} {phase:<9} "
                  f"{wall:>8.2f} {cpu:>7.2f} {wall / floor:>7.2f}x")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
