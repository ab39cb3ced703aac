"""Streaming at scale: 100M ratings (10M items x 10 raters) from Parquet.

Generates the ratings as Parquet under a temporary folder (item-major files, raters in a
shuffled order within each item, about 2% missing labels, 5 categories), then runs, each in its
own process so that peak memory is measured per phase:

- ``bare``: the floor on this machine, a pass that only reads the three columns in batches
  and bincounts them;
- ``stream``: ``accord.engines.stream_statistics`` (item counts, rater counts and every rater
  pair's table), then every coefficient that takes item x category counts;
- ``agreement``: ``accord.agreement(folder, engine="stream", ...)``, the user-facing call:
  every nominal coefficient (Conger's SE reads the files a second time, Light's kappa needs
  the pair tables);
- ``consensus``: ``accord.consensus(folder, engine="stream", ...)``: item counts, then a
  second pass summing each rater's surprisals and deviations;
- ``dask`` (only when asked for): ``accord.agreement(folder, engine="dask", ...)`` on a
  local cluster of two worker processes, the cluster's start timed apart;
- ``bare-units`` and ``nce``: scored units (correct, confidence; as many rows as ratings)
  read and bincounted, then ``accord.normalized_cross_entropy(..., engine="stream")``.

Prints seconds, rows per second, peak RSS and the ratio to the bare pass of the same data.
Targets: peak RSS under 2 GB, stream within 3x of the bare pass. On a shared machine single
runs move by 30%: ``--repeat 5`` runs the phases five times, interleaved, and reports the
median run of each.

    uv run --no-sync python benchmarks/scale.py --repeat 5       # 100M ratings
    uv run --no-sync python benchmarks/scale.py --ratings 10_000_000
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import count, median_run, peak_rss_mb, run_child, warm_imports

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


def generate_units(folder: Path, n_units: int, seed: int) -> None:
    """Scored units for NCE: about 70% correct, confidences that lean the right way."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    per_file = 10_000_000
    for k, lo in enumerate(range(0, n_units, per_file)):
        n = min(per_file, n_units - lo)
        correct = rng.random(n) < 0.7
        confidence = np.clip(rng.beta(2, 2, n) * 0.6 + 0.35 * correct, 0.0, 1.0)
        table = pa.table({"correct": pa.array(correct), "confidence": pa.array(confidence)})
        pq.write_table(table, folder / f"units-{k:04d}.parquet", row_group_size=1_000_000)


def units_dir(folder: Path) -> Path:
    """The scored units sit beside the ratings (a folder of their own)."""
    return folder.with_name(folder.name + "-units")


def bare(folder: Path, batch_size: int) -> dict[str, Any]:
    """Read the three columns in batches and bincount them: the floor."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    from accord.engines.stream import READAHEAD

    start = time.perf_counter()
    dataset = ds.dataset(sorted(str(p) for p in folder.glob("*.parquet")), format="parquet")
    rows = 0
    labels = np.zeros(256, dtype=np.int64)
    raters = np.zeros(0, dtype=np.int64)
    per_item = 0
    # The stream engine's read-ahead (one file and 4 batches ahead), so the floor reads alike.
    scanner = dataset.scanner(
        columns=["item", "rater", "label"], batch_size=batch_size, **READAHEAD
    )
    for batch in scanner.to_batches():
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


def agreement_phase(folder: Path, batch_size: int) -> dict[str, Any]:
    """``accord.agreement(engine="stream")``: every nominal coefficient."""
    import accord

    start = time.perf_counter()
    table = accord.agreement(folder, engine="stream", **COLS, batch_size=batch_size)
    assert table.report is not None
    return {
        "phase": "agreement",
        "rows": table.report.rows,
        "seconds": time.perf_counter() - start,
        "peak_rss_mb": peak_rss_mb(),
        "coefficients": {c.name: float(c.statistic) for c in table.coefficients},
    }


def consensus_phase(folder: Path, batch_size: int) -> dict[str, Any]:
    """``accord.consensus(engine="stream")``: two passes."""
    import accord

    start = time.perf_counter()
    result = accord.consensus(folder, engine="stream", **COLS, batch_size=batch_size)
    assert result.report is not None
    return {
        "phase": "consensus",
        "rows": result.report.rows,
        "seconds": time.perf_counter() - start,
        "peak_rss_mb": peak_rss_mb(),
        "coefficients": {"mean_entropy": result.summary.mean_entropy},
    }


def dask_phase(folder: Path, batch_size: int) -> dict[str, Any]:
    """``accord.agreement(engine="dask")`` on a local cluster of two single-threaded worker
    processes (one per core of the benchmark machine); the cluster's start is timed apart.
    Peak RSS is the client's (the workers hold the partitions)."""
    from distributed import Client, LocalCluster

    import accord

    start = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
    client = Client(cluster)
    startup = time.perf_counter() - start
    try:
        start = time.perf_counter()
        table = accord.agreement(folder, engine="dask", **COLS, scheduler=client)
        seconds = time.perf_counter() - start
    finally:
        client.close()
        cluster.close()
    assert table.report is not None
    return {
        "phase": "dask",
        "rows": table.report.rows,
        "seconds": seconds,
        "startup_seconds": startup,
        "peak_rss_mb": peak_rss_mb(),
        "coefficients": {c.name: float(c.statistic) for c in table.coefficients},
    }


def bare_units(folder: Path, batch_size: int) -> dict[str, Any]:
    """Read correct and confidence in batches, count and histogram them: the floor."""
    import pyarrow.dataset as ds

    from accord.engines.stream import READAHEAD

    start = time.perf_counter()
    dataset = ds.dataset(sorted(str(p) for p in units_dir(folder).glob("*.parquet")))
    rows = 0
    hist = np.zeros(2 * 1001, dtype=np.int64)
    scanner = dataset.scanner(columns=["correct", "confidence"], batch_size=batch_size, **READAHEAD)
    for batch in scanner.to_batches():
        y = batch.column(0).to_numpy(zero_copy_only=False).astype(np.int64)
        c = (batch.column(1).to_numpy() * 1000).astype(np.int64)
        hist += np.bincount(y * 1001 + c, minlength=hist.size)
        rows += batch.num_rows
    seconds = time.perf_counter() - start
    return {"phase": "bare-units", "rows": rows, "seconds": seconds, "peak_rss_mb": peak_rss_mb()}


def nce_phase(folder: Path, batch_size: int) -> dict[str, Any]:
    """``accord.normalized_cross_entropy(engine="stream")``."""
    import accord

    start = time.perf_counter()
    res = accord.normalized_cross_entropy(
        "correct",
        "confidence",
        source=units_dir(folder),
        engine="stream",
        batch_size=batch_size,
    )
    return {
        "phase": "nce",
        "rows": res.n,
        "seconds": time.perf_counter() - start,
        "peak_rss_mb": peak_rss_mb(),
        "coefficients": {"nce": res.statistic},
    }


PHASES = {
    "bare": bare,
    "stream": stream,
    "agreement": agreement_phase,
    "consensus": consensus_phase,
    "dask": dask_phase,
    "bare-units": bare_units,
    "nce": nce_phase,
}


def run_phase(phase: str, folder: Path, batch_size: int, numpy_pages: bool) -> dict[str, Any]:
    options = ["--dir", str(folder), "--batch-size", str(batch_size)]
    return run_child(__file__, phase, options + (["--numpy-pages"] if numpy_pages else []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=count, default=100_000_000)
    parser.add_argument("--raters", type=int, default=10)
    parser.add_argument("--missing", type=float, default=0.02)
    parser.add_argument("--batch-size", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=None, help="reuse or keep the data here")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run the phases this many times, interleaved, and report the median of each "
        "(a shared machine's noise moves single runs by 30%%)",
    )
    parser.add_argument("--phase", choices=list(PHASES), default=None)
    parser.add_argument(
        "--numpy-pages",
        action="store_true",
        help="leave numpy's huge-page advice as it is (accord's default); without it the "
        "phases run with accord.engines.use_small_pages() on, as the figures in "
        "docs/engines.md were measured",
    )
    parser.add_argument(
        "--phases",
        default=",".join(p for p in PHASES if p != "dask"),
        help="comma-separated phases to run (default all but dask)",
    )
    args = parser.parse_args()
    if args.phase is not None:
        if not args.numpy_pages:
            import accord.engines

            accord.engines.use_small_pages()
        warm_imports()
        cpu = time.process_time()
        result = PHASES[args.phase](args.dir, args.batch_size)
        # CPU seconds of every thread: steadier than wall time when others load the machine.
        result["cpu_seconds"] = time.process_time() - cpu
        print(json.dumps(result))
        return
    folder = args.dir or Path(tempfile.mkdtemp(prefix="accord-scale-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        if not any(folder.glob("*.parquet")):
            start = time.perf_counter()
            generate(folder, args.ratings, args.raters, args.missing, seed=0)
            print(f"generated {args.ratings:,} ratings in {time.perf_counter() - start:.1f} s")
        wanted = [p.strip() for p in args.phases.split(",") if p.strip()]
        if {"bare-units", "nce"} & set(wanted) and not units_dir(folder).is_dir():
            generate_units(units_dir(folder), args.ratings, seed=1)
        size = sum(p.stat().st_size for p in folder.glob("*.parquet")) / 1e6
        print(f"data: {folder} ({size:.0f} MB of Parquet ratings)")
        pages = "left as numpy sets it" if args.numpy_pages else "off (use_small_pages)"
        print(f"numpy's huge-page advice while the engines run: {pages}")
        runs: dict[str, list[dict[str, Any]]] = {p: [] for p in wanted}
        for _ in range(max(1, args.repeat)):
            for p in wanted:
                runs[p].append(run_phase(p, folder, args.batch_size, args.numpy_pages))
        results = {p: median_run(r) for p, r in runs.items()}
        if args.repeat > 1:
            print(f"median of {args.repeat} runs per phase (seconds of each run in brackets)")
            for p, r in runs.items():
                times = ", ".join(f"{x['seconds']:.2f}" for x in r)
                print(f"  {p:<11} [{times}]")
        print(
            f"{'phase':<11} {'seconds':>9} {'M rows/s':>9} {'peak RSS MB':>12} {'x bare':>7} "
            f"{'CPU s':>7} {'CPU x bare':>10}"
        )
        for name, r in results.items():
            floor_phase = "bare-units" if name in ("bare-units", "nce") else "bare"
            floor = results[floor_phase]["seconds"] if floor_phase in results else math.nan
            cpu_floor = results[floor_phase]["cpu_seconds"] if floor_phase in results else math.nan
            print(
                f"{name:<11} {r['seconds']:>9.2f} {r['rows'] / r['seconds'] / 1e6:>9.2f} "
                f"{r['peak_rss_mb']:>12.0f} {r['seconds'] / floor:>7.2f} "
                f"{r['cpu_seconds']:>7.2f} {r['cpu_seconds'] / cpu_floor:>10.2f}"
            )
        for name, r in results.items():
            for key, value in r.get("coefficients", {}).items():
                print(f"  {name}: {key:<20} {value:.6f}")
        if "dask" in results:
            print(
                f"dask: the local cluster (2 worker processes) started in "
                f"{results['dask']['startup_seconds']:.2f} s, not counted in its time"
            )
        if "stream" not in results:
            return
        floor = results["bare"]["seconds"] if "bare" in results else math.nan
        s = results["stream"]
        print(
            f"stream: {s['ratings']:,} ratings kept of {s['rows']:,} rows, {s['pairs']} rater "
            f"pairs; statistics alone {s['statistics_seconds']:.2f} s "
            f"({s['statistics_seconds'] / floor:.2f}x bare), peak RSS "
            f"{s['statistics_peak_rss_mb']:.0f} MB before the coefficients"
        )
    finally:
        if args.dir is None:
            shutil.rmtree(folder, ignore_errors=True)
            shutil.rmtree(units_dir(folder), ignore_errors=True)


if __name__ == "__main__":
    main()
