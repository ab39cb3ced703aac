"""The dask engine with one and with two worker processes, beside the stream engine and the floor.

Takes the realistic ratings of ``realistic.py`` (string ids, shuffled rows, 5% of the labels
missing; generated there when missing) and splits them into ``--parts`` Parquet files (default
8). Each phase runs in a fresh process:

- ``floor``: pyarrow reads the files and dictionary-encodes the three columns;
- ``stream``: ``accord.agreement(folder, engine="stream")``;
- ``dask-1``, ``dask-2``: ``accord.agreement(folder, engine="dask")`` on a local cluster of
  one or two single-threaded worker processes (the cluster's start is timed apart). CPU
  seconds are the client's and the workers' together.

- ``dask-1m``, ``dask-2m``: the same with the workers' ``MALLOC_TRIM_THRESHOLD_`` unset
  (distributed sets it to 64 KiB for the processes it starts, which turns off glibc's
  growing mmap threshold: every large array is then fresh pages from the kernel).

The stream and dask phases first run the same call on the first 500 rows of each file, off
the clock, so that the modules imported on a first call (in the workers too) are not timed.

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

from _common import Result, cache_dir, count, measure, phase_main, ratio, run_phases
from realistic import COLS, generate, paths


def folder_of(n: int, parts: int) -> Path:
    return cache_dir(f"dask-workers-{n}-{parts}")


def split(n: int, parts: int) -> Path:
    """The realistic Parquet file of ``n`` ratings as ``parts`` files (kept between runs),
    and beside them the first 500 rows of each (the warm-up)."""
    import pyarrow.parquet as pq

    folder = folder_of(n, parts)
    sample = sample_folder(folder)
    if len(list(sample.glob("part-*.parquet"))) == parts:
        return folder
    generate(n)
    table = pq.read_table(paths(n)["parquet"])
    step = -(-table.num_rows // parts)
    for k in range(parts):
        part = table.slice(k * step, step)
        pq.write_table(part, folder / f"part-{k}.parquet")
        pq.write_table(part.slice(0, 500), sample / f"part-{k}.parquet")
    return folder


def sample_folder(folder: Path) -> Path:
    """The warm-up files beside ``folder``: the same number of files, a few rows each."""
    sample = folder.with_name(folder.name + "-sample")
    sample.mkdir(exist_ok=True)
    return sample


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

    table, r = measure(
        lambda: accord.agreement(args.path, engine="stream", **COLS),
        warm_up=lambda: accord.agreement(sample_folder(args.path), engine="stream", **COLS),
    )
    return r | {"value": float(table.coefficients[0].statistic)}


def _dask(args: Any, workers: int, glibc_malloc: bool = False) -> Result:
    import dask
    from distributed import Client, LocalCluster

    import accord

    if glibc_malloc:  # unset distributed's MALLOC_TRIM_THRESHOLD_ for the workers
        dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})
    start = time.perf_counter()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None)
    client = Client(cluster)
    startup = time.perf_counter() - start

    def worker_cpu() -> float:
        usage = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF))
        return sum(u.ru_utime + u.ru_stime for u in usage.values())

    try:
        # the call on a few rows first, off the clock: the workers' imports are not timed
        accord.agreement(sample_folder(args.path), engine="dask", **COLS, scheduler=client)
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
    "dask-1m": lambda args: _dask(args, 1, glibc_malloc=True),
    "dask-2m": lambda args: _dask(args, 2, glibc_malloc=True),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=count, default=10**7)
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
    st = results["stream"]["seconds"]
    for suffix, workers in (("", "distributed's defaults"), ("m", "glibc's malloc thresholds")):
        one, two = (results[f"dask-{k}{suffix}"]["seconds"] for k in (1, 2))
        print(
            f"\n{workers}: two workers / one: {two / one:.2f} (target < 1); two workers / "
            f"(stream / 2): {two / (st / 2):.2f} (target <= 1.5)"
        )
    print(f"cluster start {results['dask-2']['startup']:.1f} s, not counted")


if __name__ == "__main__":
    sys.exit(main())
