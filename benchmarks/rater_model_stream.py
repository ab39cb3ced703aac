"""Benchmark: Dawid-Skene on the stream engine, each EM step one pass over the ratings.

Run with ``uv run --no-sync python benchmarks/rater_model_stream.py`` (1M ratings) or
``--ratings 100000000``. The ratings (seeded: 5 classes, 200 raters, 10 ratings per item,
each rater's confusion matrix a mix of the identity and a random table, rows shuffled within
blocks of 1M so that the ratings of an item fall in different batches) are written as
Parquet (``--format csv``: CSV) under the temporary directory, and deleted afterwards
unless ``--keep``.

Prints the scan (the engine's first read), the EM (iterations, passes, seconds per
iteration beside the floor: two bare passes of pyarrow over the same columns, since an
iteration is two passes), the total, and the peak RSS of the fit (generation excluded), also
per item (what grows with the input: the ratings stay in the file). Target: 100M ratings
under 2 GB.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import cache_dir, peak_rss_since_reset_mb, reset_peak_rss

N_RATERS, PER_ITEM, Q = 200, 10, 5
BLOCK = 1_000_000  # ratings generated (and shuffled) at a time
READ = {"item": "item", "rater": "rater", "label": "label"}


def write(path: Path, n_ratings: int, fmt: str, seed: int = 35) -> None:
    """``n_ratings`` ratings (a multiple of 10) written block by block."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    weight = rng.uniform(0.4, 0.9, N_RATERS)[:, None, None]
    conf = weight * np.eye(Q) + (1 - weight) * rng.dirichlet(np.ones(Q), size=(N_RATERS, Q))
    cum = conf.cumsum(axis=2)
    schema = pa.schema([("item", pa.int64()), ("rater", pa.int32()), ("label", pa.int8())])
    writer: pq.ParquetWriter | pacsv.CSVWriter
    writer = pq.ParquetWriter(path, schema) if fmt == "parquet" else pacsv.CSVWriter(path, schema)
    first = 0
    with writer:
        while first * PER_ITEM < n_ratings:
            n_items = min(BLOCK, n_ratings - first * PER_ITEM) // PER_ITEM
            item = np.repeat(np.arange(first, first + n_items), PER_ITEM)
            start = rng.integers(0, N_RATERS, n_items)
            step = np.arange(PER_ITEM) * (N_RATERS // PER_ITEM)
            rater = ((start[:, None] + step) % N_RATERS).ravel()
            truth = rng.integers(0, Q, n_items)[item - first]
            u = rng.random(item.size)[:, None]
            label = np.minimum((u > cum[rater, truth]).sum(axis=1), Q - 1)
            order = rng.permutation(item.size)
            table = pa.table(
                [pa.array(item[order]), pa.array(rater[order].astype(np.int32)),
                 pa.array(label[order].astype(np.int8))], schema=schema,
            )  # fmt: skip
            writer.write_table(table)
            first += n_items


def floor_pass(path: Path, fmt: str, batch_size: int) -> float:
    """Seconds of one bare pass of pyarrow over the three columns, as numpy arrays."""
    import pyarrow.dataset as ds

    t0 = time.perf_counter()
    dataset = ds.dataset(str(path), format=fmt)
    for batch in dataset.to_batches(columns=list(READ), batch_size=batch_size):
        for column in batch.columns:
            column.to_numpy(zero_copy_only=False)
    return time.perf_counter() - t0


def fit(path: Path, batch_size: int, memory_limit: int, max_iter: int) -> dict[str, Any]:
    """The scan and the EM in passes, timed apart; the peak RSS of both."""
    from accord.engines.stream import stream_scan
    from accord.truth.passes import rater_model_in_passes

    reset_peak_rss()
    t0 = time.perf_counter()
    stats, rescan = stream_scan(path, **READ, batch_size=batch_size, statistics=("raters",),
                                memory_limit=memory_limit)  # fmt: skip
    scan = time.perf_counter() - t0
    passes = []

    def run(fn: Any, context: Any, merge: Any) -> Any:
        passes.append(fn)
        return rescan.map_reduce(fn, context, merge)

    t0 = time.perf_counter()
    model = rater_model_in_passes(
        run, items=stats.items, raters=stats.raters, categories=stats.categories,
        in_place=True, n_bootstrap=0, max_iter=max_iter,
    )  # fmt: skip
    em = time.perf_counter() - t0
    return {
        "scan": scan,
        "em": em,
        "iterations": len(model.log_likelihood),
        "passes": len(passes),
        "matrix": rescan.matrix is not None,
        "peak_mb": peak_rss_since_reset_mb(),
        "ratings": model.n_ratings,
        "items": model.n_items,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=int, default=1_000_000)
    parser.add_argument("--format", choices=("parquet", "csv"), default="parquet")
    parser.add_argument("--batch-size", type=int, default=1_000_000)
    parser.add_argument("--memory-limit", type=int, default=1 << 30,
                        help="the stream engine's memory_limit (below the code matrix: the "
                        "passes read the file again)")  # fmt: skip
    parser.add_argument("--max-iter", type=int, default=1000, help="EM iteration limit")
    parser.add_argument("--keep", action="store_true", help="keep the generated file")
    args = parser.parse_args()
    folder = cache_dir("rater-model-stream")
    path = folder / f"ratings-{args.ratings}.{args.format}"
    if not path.exists():
        t0 = time.perf_counter()
        write(path, args.ratings, args.format)
        print(f"wrote {path} ({path.stat().st_size / 2**20:.0f} MB) in "
              f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
    try:
        # the fit first, in a fresh process: Arrow's memory pool keeps what the bare passes
        # took, which would count in the fit's peak
        out = fit(path, args.batch_size, args.memory_limit, args.max_iter)
        floor = min(floor_pass(path, args.format, args.batch_size) for _ in range(2))
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    per_iteration = out["em"] / max(out["iterations"], 1)
    print(f"{out['ratings']:,.0f} ratings ({args.format}, batches of {args.batch_size:,}; "
          f"code matrix kept: {out['matrix']})")  # fmt: skip
    print(f"scan                {out['scan']:8.2f} s")
    print(f"EM                  {out['em']:8.2f} s: {out['iterations']} iterations, "
          f"{out['passes']} passes")  # fmt: skip
    print(f"per iteration       {per_iteration:8.3f} s  (floor: two bare pyarrow passes "
          f"{2 * floor:.3f} s, {per_iteration / (2 * floor):.1f}x)")  # fmt: skip
    print(f"total               {out['scan'] + out['em']:8.2f} s")
    print(f"peak RSS            {out['peak_mb']:8.0f} MB  "
          f"({out['peak_mb'] * 2**20 / max(out['items'], 1):.0f} bytes an item, "
          f"{out['items']:,} items)")  # fmt: skip


if __name__ == "__main__":
    main()
