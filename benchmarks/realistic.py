"""Ratings as users export them: string ids, shuffled rows, missing labels, Parquet and CSV.

Generates ``--ratings`` ratings (default 10M) beside the integer case of ``scale.py`` and
``paths.py``: items with hashed string ids (``item-9e3779b9``), 10 ratings per item by raters
named ``annotator_<k>`` (a pool of 2,000), five string labels, the rows in random order and 5%
of the labels missing. Written once as Parquet and as CSV under the temporary folder (kept for
the next run). For each file, each phase in a fresh process:

- ``floor``: pyarrow reads the file (``pyarrow.parquet.read_table`` or the multi-threaded
  ``pyarrow.csv.read_csv``) and dictionary-encodes the three columns (in 1M-row batches
  when the file holds more than 10M ratings): what any reader must do;
- ``memory``: ``accord.read_ratings(path)`` then ``accord.agreement(ratings)``;
- ``stream``: ``accord.agreement(path, engine="stream")``;
- ``consensus``: ``accord.read_ratings(path)`` then ``accord.consensus(ratings)``;
- ``cli``: ``accord agree <path>`` end to end (a child process; its peak RSS);
- ``report``, ``report-stream``: ``accord report <path> -o page.html`` with the memory and
  the stream engine, end to end (a child process; its peak RSS).

Prints seconds, peak RSS and the ratio to the floor of the same file in the same run, with
the targets: memory <= 1.5x the floor, stream <= 2x, CLI agree <= 2x, the report <= 3x (and
1.5 GB with the memory engine). On a shared machine,
``--repeat 3`` runs the phases three times, interleaved, and reports the median of each.

    uv run --no-sync python benchmarks/realistic.py --repeat 3             # 10M ratings
    uv run --no-sync python benchmarks/realistic.py --ratings 1e8 --formats parquet \\
        --phases floor,stream                                               # 100M, stream
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    Result,
    cache_dir,
    children_peak_rss_mb,
    count,
    measure,
    phase_main,
    ratio,
    run_phases,
    timed,
    verdict,
)

RATINGS_PER_ITEM = 10
N_RATERS = 2_000
LABELS = ("positive", "negative", "neutral", "mixed", "off-topic")
MISSING = 0.05
COLS = {"item": "item", "rater": "rater", "label": "label"}
#: Rows generated and written per step (bounded memory at 100M).
STEP = 5_000_000
#: Files with more ratings than this are read in batches by the floor.
WHOLE = 10_000_000
TARGETS = {"memory": 1.5, "stream": 2.0, "consensus": None, "cli": 2.0, "report": 3.0,
           "report-stream": 3.0}  # fmt: skip


# ------------------------------------------------------------------------------ data


def paths(n: int) -> dict[str, Path]:
    folder = cache_dir(f"realistic-{n}")
    return {"parquet": folder / "ratings.parquet", "csv": folder / "ratings.csv"}


def sample_of(path: Path) -> Path:
    """The first rows of a file, beside it: each phase runs its call on them first, off the
    clock, so that what a function imports on its first call is not charged to the data."""
    return path.with_name("sample" + path.suffix)


def generate(n: int, seed: int = 20240601) -> None:
    """Write the ratings as Parquet and CSV (each skipped when already there).

    Rating ``j`` of the unshuffled table is rating ``j % 10`` of item ``j // 10``; a random
    permutation of ``0..n-1`` gives the order of the rows, and the rows are generated and
    written a step of the permutation at a time.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    out = paths(n)
    if all(p.exists() for p in out.values()):
        return
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    n_items = n // RATINGS_PER_ITEM
    order = rng.permutation(n).astype(np.int64 if n > 2**31 - 1 else np.int32)
    offsets = rng.integers(0, N_RATERS, n_items).astype(np.int32)
    truth = rng.integers(0, len(LABELS), n_items).astype(np.int8)
    accuracy = rng.uniform(0.5, 0.95, N_RATERS)
    # hashed 32-bit ids (Knuth's multiplicative hash: distinct for distinct items)
    item_ids = np.char.add(
        "item-",
        np.char.zfill(
            np.char.mod("%x", (np.arange(n_items, dtype=np.uint64) * 0x9E3779B9) % 2**32), 8
        ),
    ).astype(object)
    rater_ids = np.array([f"annotator_{k}" for k in range(N_RATERS)], dtype=object)
    labels = pa.array(list(LABELS))
    schema = pa.schema([("item", pa.string()), ("rater", pa.string()), ("label", pa.string())])
    tmp = {k: p.with_suffix(p.suffix + ".part") for k, p in out.items()}
    writer = pq.ParquetWriter(tmp["parquet"], schema)
    csv_writer = pacsv.CSVWriter(tmp["csv"], schema)
    try:
        for lo in range(0, n, STEP):
            j = order[lo : lo + STEP].astype(np.int64)
            item = j // RATINGS_PER_ITEM
            slot = j % RATINGS_PER_ITEM
            rater = (offsets[item] + slot * (N_RATERS // RATINGS_PER_ITEM)) % N_RATERS
            wrong = (truth[item] + rng.integers(1, len(LABELS), j.size)) % len(LABELS)
            code = np.where(rng.random(j.size) < accuracy[rater], truth[item], wrong)
            missing = rng.random(j.size) < MISSING
            table = pa.table(
                {
                    "item": pa.array(item_ids[item], type=pa.string()),
                    "rater": pa.array(rater_ids[rater], type=pa.string()),
                    "label": labels.take(pa.array(code, mask=missing)),
                },
                schema=schema,
            )
            writer.write_table(table, row_group_size=1_000_000)
            csv_writer.write_table(table)
            if lo == 0:
                pq.write_table(table.slice(0, 2_000), sample_of(out["parquet"]))
                pacsv.write_csv(table.slice(0, 2_000), sample_of(out["csv"]))
    finally:
        writer.close()
        csv_writer.close()
    for k, p in out.items():
        tmp[k].rename(p)
    sizes = ", ".join(f"{k} {p.stat().st_size / 1e6:.0f} MB" for k, p in out.items())
    print(f"generated {n:,} ratings in {time.perf_counter() - start:.0f} s ({sizes})")


# ------------------------------------------------------------------------------ phases


def read_beside_floor(n: int, repeat: int = 3) -> tuple[Path, float, Any]:
    """The Parquet file of ``n`` realistic ratings (written once), the median seconds of its
    bare read and ``dictionary_encode`` of every column over ``repeat`` runs (the floor of a
    step timed in the process), and its ratings as ``accord.read_ratings`` reads them."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    import accord

    generate(n)
    path = paths(n)["parquet"]

    def bare() -> None:
        table = pq.read_table(path, columns=list(COLS.values()))
        for c in COLS.values():
            pc.dictionary_encode(table.column(c))

    _, floor_s = timed(bare, repeat)
    return path, floor_s, accord.read_ratings(path, **COLS)


def floor(args: Any) -> Result:
    """pyarrow read + dictionary_encode of the three columns."""
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    path = args.path

    def whole() -> int:
        if path.suffix == ".csv":
            table = pacsv.read_csv(path)
        else:
            table = pq.read_table(path, columns=list(COLS.values()))
        encoded = [pc.dictionary_encode(table.column(c)) for c in COLS.values()]
        return sum(len(e) for e in encoded) // 3

    def batches() -> int:
        fmt = "csv" if path.suffix == ".csv" else "parquet"
        rows = 0
        scanner = ds.dataset(path, format=fmt).scanner(
            columns=list(COLS.values()), batch_size=1_000_000
        )
        for batch in scanner.to_batches():
            for c in range(3):
                pc.dictionary_encode(batch.column(c))
            rows += batch.num_rows
        return rows

    rows, r = measure(whole if args.ratings <= WHOLE else batches)
    return r | {"rows": rows}


def memory(args: Any) -> Result:
    import accord

    sample = sample_of(args.path)

    def run() -> float:
        ratings = accord.read_ratings(args.path, **COLS)
        table = accord.agreement(ratings)
        return float(next(c.statistic for c in table.coefficients if c.name == "fleiss_kappa"))

    value, r = measure(run, lambda: accord.agreement(accord.read_ratings(sample, **COLS)))
    return r | {"value": value}


def stream(args: Any) -> Result:
    import accord

    sample = sample_of(args.path)

    def run() -> float:
        table = accord.agreement(args.path, engine="stream", **COLS)
        return float(next(c.statistic for c in table.coefficients if c.name == "fleiss_kappa"))

    value, r = measure(run, lambda: accord.agreement(sample, engine="stream", **COLS))
    return r | {"value": value}


def consensus(args: Any) -> Result:
    import accord

    sample = sample_of(args.path)

    def run() -> float:
        ratings = accord.read_ratings(args.path, **COLS)
        return float(accord.consensus(ratings).summary.mean_entropy)

    value, r = measure(run, lambda: accord.consensus(accord.read_ratings(sample, **COLS)))
    return r | {"value": value}


def _command(args: Any, command: list[str]) -> Result:
    """An ``accord`` command end to end, in a child process: its own CPU time and peak."""
    out, r = measure(lambda: subprocess.run(command, capture_output=True, text=True))
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:2])} failed: {out.stderr[-2000:]}")
    # the CLI's own peak and CPU time (this process only waits for it)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak = children_peak_rss_mb()
    return r | {
        "peak_rss_mb": peak,
        "extra_mb": peak,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
    }


def _columns() -> list[str]:
    return [arg for option, column in COLS.items() for arg in (f"--{option}", column)]


def cli(args: Any) -> Result:
    exe = Path(sys.executable).with_name("accord")
    return _command(args, [str(exe), "agree", str(args.path), *_columns()])


def _report(args: Any, engine: str) -> Result:
    exe = Path(sys.executable).with_name("accord")
    page = args.path.with_name(f"report-{engine}.html")
    command = [str(exe), "report", str(args.path), *_columns(), "--engine", engine]
    r = _command(args, [*command, "-o", str(page)])
    return r | {"page_mb": page.stat().st_size / 1e6}


PHASES = {
    "floor": floor,
    "memory": memory,
    "stream": stream,
    "consensus": consensus,
    "cli": cli,
    "report": lambda args: _report(args, "memory"),
    "report-stream": lambda args: _report(args, "stream"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=count, default=10**7)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--formats", default="parquet,csv", help="parquet, csv or parquet,csv")
    parser.add_argument(
        "--phases", default="floor,memory,stream,consensus,cli", help="comma-separated"
    )
    parser.add_argument("--phase", choices=list(PHASES), default=None)
    parser.add_argument("--path", type=Path, default=None)
    args = parser.parse_args()
    if args.phase is not None:
        phase_main(PHASES, args.phase, args)
        return
    # The phases (and the CLI they start) run with numpy's huge-page advice off while the
    # engines run, as the figures in docs were measured; ACCORD_SMALL_PAGES=0 measures the
    # default, numpy's advice left as it is.
    os.environ.setdefault("ACCORD_SMALL_PAGES", "1")
    generate(args.ratings)
    files = paths(args.ratings)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    wanted = [p.strip() for p in args.phases.split(",") if p.strip()]
    if "floor" not in wanted:
        wanted.insert(0, "floor")
    print(
        f"{args.ratings:,} ratings: string item ids, {N_RATERS} named raters, "
        f"{len(LABELS)} string labels, rows shuffled, {MISSING:.0%} labels missing"
    )
    table: list[tuple[str, str, Result]] = []
    for fmt in formats:
        path = files[fmt]
        print(f"\n{fmt}: {path} ({path.stat().st_size / 1e6:.0f} MB)")
        argv = ["--path", str(path), "--ratings", str(args.ratings)]
        results = run_phases(__file__, wanted, argv, args.repeat)
        table += [(fmt, name, r) for name, r in results.items()]
    print(
        f"\n{'file':<8} {'phase':<10} {'seconds':>8} {'CPU s':>7} {'peak RSS MB':>12} "
        f"{'x floor':>8} {'CPU x floor':>11}  target (wall)"
    )
    floors = {fmt: r for fmt, name, r in table if name == "floor"}
    for fmt, name, r in table:
        fl = floors[fmt]["seconds"] if fmt in floors else math.nan
        cpu_fl = floors[fmt]["cpu_seconds"] if fmt in floors else math.nan
        target = TARGETS.get(name)
        print(
            f"{fmt:<8} {name:<10} {r['seconds']:>8.2f} {r['cpu_seconds']:>7.2f} "
            f"{r['peak_rss_mb']:>12.0f} {ratio(r['seconds'], fl):>8} "
            f"{ratio(r['cpu_seconds'], cpu_fl):>11}  {verdict(r['seconds'], fl, target)}"
        )
    values = {f"{fmt} {name}": r["value"] for fmt, name, r in table if "value" in r}
    if values:
        print("\nFleiss' kappa (memory, stream) and mean entropy (consensus):")
        for key, value in values.items():
            print(f"  {key:<20} {value:.6f}")


if __name__ == "__main__":
    sys.exit(main())
