"""Streaming at scale: 100M ratings (10M items x 10 raters) from Parquet.

Generates the ratings as Parquet under a temporary folder (item-major files, raters in a
shuffled order within each item, about 2% missing labels, 5 categories), then runs, each in its
own process so that peak memory is measured per phase:

- ``bare``: the floor on this machine, a pass that only reads the three columns in batches
  and bincounts them;
- ``stream``: ``accord.engines.stream_statistics`` (item counts, rater counts and every rater
  pair's table), then every coefficient that takes item x category counts.

Prints seconds, ratings per second, peak RSS and the ratio to the bare pass. Targets: peak
RSS under 2 GB, stream within 3x of the bare pass.

    uv run --no-sync python benchmarks/scale.py                  # 100M ratings
    uv run --no-sync python benchmarks/scale.py --ratings 10_000_000
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

COLS = {"item": "item", "rater": "rater", "label": "label"}


def generate(folder: Path, n_ratings: int, n_raters: int, missing: float, seed: int) -> None:
    """Write ``n_ratings`` ratings as Parquet files of at most 10M rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    n_items = n_ratings // n_raters
    per_file = max(1, 10_000_000 // n_raters)
    for k, lo in enumerate(range(0, n_items, per_file)):
        hi = min(n_items, lo + per_file)
        n = (hi - lo) * n_raters
        item = np.repeat(np.arange(lo, hi, dtype=np.int64), n_raters)
        rater = np.argsort(rng.random((hi - lo, n_raters)), axis=1).astype(np.int32).ravel()
        # Raters differ a little in their habits, so the coefficients are not trivial.
        truth = rng.integers(1, 6, hi - lo).repeat(n_raters)
        noise = rng.random(n) < 0.3
        label = np.where(noise, rng.integers(1, 6, n), truth).astype(np.int8)
        mask = rng.random(n) < missing
        table = pa.table(
            {
                "item": pa.array(item),
                "rater": pa.array(rater),
                "label": pa.array(label, mask=mask),
            }
        )
        pq.write_table(table, folder / f"ratings-{k:04d}.parquet", row_group_size=1_000_000)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def bare(folder: Path, batch_size: int) -> dict[str, Any]:
    """Read the three columns in batches and bincount them: the floor."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    start = time.perf_counter()
    dataset = ds.dataset(sorted(str(p) for p in folder.glob("*.parquet")), format="parquet")
    rows = 0
    labels = np.zeros(256, dtype=np.int64)
    raters = np.zeros(0, dtype=np.int64)
    per_item = 0
    for batch in dataset.to_batches(columns=["item", "rater", "label"], batch_size=batch_size):
        item = batch.column(0).to_numpy()
        rater = batch.column(1).to_numpy()
        label = pc.fill_null(batch.column(2), 0).to_numpy().astype(np.int64)
        labels += np.bincount(label, minlength=256)
        counts = np.bincount(rater)
        raters = np.pad(raters, (0, max(0, counts.size - raters.size)))
        raters[: counts.size] += counts
        per_item += int(np.bincount(item - item.min()).max())
        rows += batch.num_rows
    seconds = time.perf_counter() - start
    return {"phase": "bare", "rows": rows, "seconds": seconds, "peak_rss_mb": peak_rss_mb()}


def stream(folder: Path, batch_size: int) -> dict[str, Any]:
    """Every statistic streamed, then every coefficient of the item counts."""
    import accord
    from accord.agreement import many_raters
    from accord.engines import stream_statistics

    start = time.perf_counter()
    stats = stream_statistics(folder, **COLS, batch_size=batch_size)
    counted = time.perf_counter() - start
    counted_rss = peak_rss_mb()
    assert stats.item_counts is not None and stats.pair_tables is not None
    values = {}
    for name in ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "brennan_prediger"):
        fn = getattr(many_raters, name, None) or getattr(accord, name, None)
        if fn is not None:
            values[name] = float(fn(stats.item_counts).statistic)
    seconds = time.perf_counter() - start
    return {
        "phase": "stream",
        "rows": stats.report.rows,
        "ratings": stats.report.ratings,
        "pairs": stats.pair_tables.n_pairs,
        "seconds": seconds,
        "statistics_seconds": counted,
        "statistics_peak_rss_mb": counted_rss,
        "peak_rss_mb": peak_rss_mb(),
        "coefficients": values,
    }


def run_phase(phase: str, folder: Path, batch_size: int) -> dict[str, Any]:
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--phase",
            phase,
            "--dir",
            str(folder),
            "--batch-size",
            str(batch_size),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=lambda s: int(s.replace("_", "")), default=100_000_000)
    parser.add_argument("--raters", type=int, default=10)
    parser.add_argument("--missing", type=float, default=0.02)
    parser.add_argument("--batch-size", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=None, help="reuse or keep the data here")
    parser.add_argument("--phase", choices=["bare", "stream"], default=None)
    args = parser.parse_args()
    if args.phase is not None:
        fn = bare if args.phase == "bare" else stream
        print(json.dumps(fn(args.dir, args.batch_size)))
        return
    folder = args.dir or Path(tempfile.mkdtemp(prefix="accord-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        if not any(folder.glob("*.parquet")):
            start = time.perf_counter()
            generate(folder, args.ratings, args.raters, args.missing, seed=0)
            print(f"generated {args.ratings:,} ratings in {time.perf_counter() - start:.1f} s")
        size = sum(p.stat().st_size for p in folder.glob("*.parquet")) / 1e6
        print(f"data: {folder} ({size:.0f} MB of Parquet)")
        results = [run_phase(p, folder, args.batch_size) for p in ("bare", "stream")]
        floor = results[0]["seconds"]
        print(f"{'phase':<8} {'seconds':>9} {'M rows/s':>9} {'peak RSS MB':>12} {'x bare':>7}")
        for r in results:
            print(
                f"{r['phase']:<8} {r['seconds']:>9.2f} {r['rows'] / r['seconds'] / 1e6:>9.2f} "
                f"{r['peak_rss_mb']:>12.0f} {r['seconds'] / floor:>7.2f}"
            )
        s = results[1]
        print(
            f"stream: {s['ratings']:,} ratings kept of {s['rows']:,} rows, {s['pairs']} rater "
            f"pairs; statistics alone {s['statistics_seconds']:.2f} s "
            f"({s['statistics_seconds'] / floor:.2f}x bare), peak RSS "
            f"{s['statistics_peak_rss_mb']:.0f} MB before the coefficients"
        )
        for name, value in s["coefficients"].items():
            print(f"  {name:<20} {value:.6f}")
    finally:
        if args.dir is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
