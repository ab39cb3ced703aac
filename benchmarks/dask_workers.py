"""The dask engine with one and with two worker processes, beside the stream engine and the floor.

Takes the realistic ratings of ``realistic.py`` (string ids, shuffled rows, 5% of the labels
missing; generated there when missing) and splits them into ``--parts`` Parquet files (default
8). Each phase runs in a fresh process:

- ``floor``: pyarrow reads the files and dictionary-encodes the three columns;
- ``stream``: ``accord.agreement(folder, engine="stream")``;
- ``dask-1``, ``dask-2``: ``accord.agreement(folder, engine="dask")`` on a local cluster of
  one or two single-threaded worker processes (the cluster's start is timed apart). CPU
  seconds are the client's and the workers' together.

Prints seconds and CPU seconds beside the floor, the speed-up of two workers over one, and
the target of the engines page: two workers faster than one and within 1.5x of the stream
engine's time divided by the workers.

    uv run --no-sync python benchmarks/dask_workers.py --ratings 2e6
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path
from typing import Any

from _common import Result, cache_dir, measure, phase_main, ratio, run_phases
from realistic import COLS, generate, paths


def folder_of(n: int, parts: int) -> Path:
    return cache_dir(f"dask-workers-{n}-{parts}")


def split(n: int, parts: int) -> Path:
    """The realistic Parquet file of ``n`` ratings as ``parts`` files (kept between runs)."""
    import pyarrow.parquet as pq

    folder = folder_of(n, parts)
    if len(list(folder.glob("part-*.parquet"))) == parts:
        return folder
    generate(n)
    table = pq.read_table(paths(n)["parquet"])
    step = -(-table.num_rows // parts)
    for k in range(parts):
        pq.write_table(table.slice(k * step, step), folder / f"part-{k}.parquet")
    return folder


def floor(args: Any) -> Result:
    """pyarrow read + dictionary_encode of the three columns of every file."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    def run() -> int:
        rows = 0
        for path in sorted(args.path.glob("part-*.parquet")):
            table = pq.read_table(path)
            for c in COLS.values():
                pc.dictionary_encode(table.column(c))
            rows += table.num_rows
        return rows

    rows, r = measure(run)
    return r | {"rows": rows}


def stream(args: Any) -> Result:
    import accord

    table, r = measure(lambda: accord.agreement(args.path, engine="stream", **COLS))
    return r | {"value": float(table.coefficients[0].statistic)}


def _dask(args: Any, workers: int) -> Result:
    from distributed import Client, LocalCluster

    import accord

    start = time.perf_counter()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None)
    client = Client(cluster)
    startup = time.perf_counter() - start

    def worker_cpu() -> float:
        usage = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF))
        return sum(u.ru_utime + u.ru_stime for u in usage.values())

    try:
        before = worker_cpu()
        table, r = measure(
            lambda: accord.agreement(args.path, engine="dask", **COLS, scheduler=client)
        )
        r["cpu_seconds"] += worker_cpu() - before
    finally:
        client.close()
        cluster.close()
    return r | {"value": float(table.coefficients[0].statistic), "startup": startup}


PHASES = {
    "floor": floor,
    "stream": stream,
    "dask-1": lambda args: _dask(args, 1),
    "dask-2": lambda args: _dask(args, 2),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=lambda s: int(float(s.replace("_", ""))), default=10**7)
    parser.add_argument("--parts", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--phase", choices=list(PHASES), default=None)
    parser.add_argument("--path", type=Path, default=None)
    args = parser.parse_args()
    if args.phase is not None:
        phase_main(PHASES, args.phase, args)
        return
    folder = split(args.ratings, args.parts)
    print(f"{args.ratings:,} realistic ratings in {args.parts} Parquet files: {folder}")
    argv = ["--path", str(folder), "--ratings", str(args.ratings)]
    results = run_phases(__file__, list(PHASES), argv, args.repeat)
    fl = results["floor"]
    print(f"\n{'phase':<8} {'seconds':>8} {'CPU s':>7} {'x floor':>8} {'CPU x floor':>11}  value")
    for name, r in results.items():
        print(
            f"{name:<8} {r['seconds']:>8.2f} {r['cpu_seconds']:>7.2f} "
            f"{ratio(r['seconds'], fl['seconds']):>8} "
            f"{ratio(r['cpu_seconds'], fl['cpu_seconds']):>11}  {r.get('value', '')}"
        )
    one, two, st = (results[k]["seconds"] for k in ("dask-1", "dask-2", "stream"))
    print(
        f"\ntwo workers / one: {two / one:.2f} (target < 1); two workers / (stream / 2): "
        f"{two / (st / 2):.2f} (target <= 1.5); cluster start "
        f"{results['dask-2']['startup']:.1f} s, not counted"
    )


if __name__ == "__main__":
    sys.exit(main())
