"""The stream report reads its files once, beside the floor and beside one read a section.

Realistic ratings (``realistic.py``'s Parquet file: string ids, shuffled rows, 5% missing;
generated there when missing). Printed in one process, CPU seconds:

- ``floor``: ``pyarrow.parquet.read_table`` of the file and ``dictionary_encode`` of its
  three columns;
- ``report, one read``: ``accord.report(path, engine="stream")`` as it runs (the agreement
  table, the consensus and the rater-pair tables share one scan);
- ``report, a read a section``: the same page with each section reading the files itself
  (the shared scan turned off), as before.

    uv run --no-sync python benchmarks/report_reads.py --ratings 1e6
"""

from __future__ import annotations

import argparse
import contextlib
import time
from typing import Any

from _common import count
from realistic import COLS, generate, paths


def cpu(fn: Any) -> tuple[Any, float]:
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def main() -> None:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    import accord
    from accord.engines import stream
    from accord.front import reading

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=count, default=10**6)
    args = parser.parse_args()
    generate(args.ratings)
    path = paths(args.ratings)["parquet"]
    reads = []
    scan = stream.stream_scan

    def counted(*a: Any, **k: Any) -> Any:
        reads.append(1)
        return scan(*a, **k)

    stream.stream_scan = counted  # type: ignore[assignment]

    def floor() -> None:
        table = pq.read_table(path)
        for name in COLS.values():
            pc.dictionary_encode(table[name])

    def page() -> Any:
        return accord.report(path, **COLS, engine="stream", progress=False)

    page()  # imports, off the clock
    once_read = apart_read = 0
    _, t_floor = cpu(floor)
    reads.clear()
    _, t_once = cpu(page)
    once_read = len(reads)
    shared = reading.read_once
    reading.read_once = contextlib.nullcontext  # type: ignore[assignment]
    reads.clear()
    _, t_apart = cpu(page)
    apart_read = len(reads)
    reading.read_once = shared  # type: ignore[assignment]
    print(f"{args.ratings:,} realistic ratings (Parquet)")
    print(f"  floor (read + dictionary_encode)  {t_floor:7.2f} CPU s")
    print(
        f"  report, one read                  {t_once:7.2f} CPU s  {t_once / t_floor:5.1f}x "
        f"({once_read} scan)"
    )
    print(
        f"  report, a read a section          {t_apart:7.2f} CPU s  {t_apart / t_floor:5.1f}x "
        f"({apart_read} scans)"
    )


if __name__ == "__main__":
    main()
