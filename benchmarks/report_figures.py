"""``accord report --level interval`` on many scores: the page's size and time beside the floor.

Generates ``--scores`` seeded scores (default 200k and 1M): items scored by two raters
(``a`` and ``b``), a true value per item plus noise, written once as Parquet under the
temporary folder (kept for the next run). For each file, each phase in a fresh process:

- ``floor``: pyarrow reads the file and dictionary-encodes the item and rater columns: what
  any reader must do;
- ``cli``: ``accord report <path> --level interval -o page.html`` end to end (a child
  process; its peak RSS), with the size of the page it writes.

The page holds a Bland-Altman plot of the two raters; beyond 5,000 pairs it draws them as a
2-D histogram (one rasterized image), so the page's size does not grow with the scores.

    uv run --no-sync python benchmarks/report_figures.py
    uv run --no-sync python benchmarks/report_figures.py --scores 200000 --repeat 3
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from _common import Result, cache_dir, children_peak_rss_mb, measure, phase_main, ratio, run_phases

RATERS = ("a", "b")


def path_of(n: int) -> Path:
    return cache_dir(f"report-figures-{n}") / "scores.parquet"


def generate(n: int, seed: int = 20240601) -> Path:
    """``n`` scores: ``n / 2`` items, each scored by both raters (a true value, a rater
    offset and noise), rows shuffled; skipped when the file is there."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = path_of(n)
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    items = n // len(RATERS)
    truth = rng.normal(50.0, 10.0, items)
    score = np.repeat(truth, 2) + np.tile([0.0, 1.5], items) + rng.normal(0.0, 2.0, 2 * items)
    order = rng.permutation(2 * items)
    table = pa.table(
        {
            "item": pa.array(np.char.add("item-", np.repeat(np.arange(items), 2).astype(str))),
            "rater": pa.array(np.tile(np.array(RATERS), items)),
            "score": pa.array(score),
        }
    ).take(pa.array(order))
    pq.write_table(table, path.with_suffix(".part"))
    path.with_suffix(".part").rename(path)
    return path


def floor(args: Any) -> Result:
    """pyarrow read + dictionary_encode of the item and rater columns."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    def run() -> int:
        table = pq.read_table(args.path)
        return sum(len(pc.dictionary_encode(table.column(c))) for c in ("item", "rater"))

    rows, r = measure(run)
    return r | {"rows": rows // 2}


def cli(args: Any) -> Result:
    out = Path(tempfile.gettempdir()) / "accord-bench" / f"report-{args.path.stem}.html"
    command = [
        str(Path(sys.executable).with_name("accord")), "report", str(args.path),
        "--item", "item", "--rater", "rater", "--label", "score", "--level", "interval",
        "-o", str(out),
    ]  # fmt: skip
    done, r = measure(lambda: subprocess.run(command, capture_output=True, text=True))
    if done.returncode != 0:
        raise RuntimeError(f"accord report failed: {done.stderr[-2000:]}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak = children_peak_rss_mb()
    page = out.read_text(encoding="utf-8")
    return r | {
        "peak_rss_mb": peak,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "page_mb": len(page.encode()) / 1e6,
        "svg_elements": page.count("<use ") + page.count("<path "),
    }


PHASES = {"floor": floor, "cli": cli}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scores", default="200000,1000000", help="comma-separated counts")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--phase", choices=list(PHASES), default=None)
    parser.add_argument("--path", type=Path, default=None)
    args = parser.parse_args()
    if args.phase is not None:
        phase_main(PHASES, args.phase, args)
        return
    print(
        f"{'scores':>10} {'phase':<6} {'seconds':>8} {'CPU s':>7} {'peak RSS MB':>12} "
        f"{'x floor':>8} {'page MB':>8} {'SVG elements':>13}"
    )
    for n in (int(float(s)) for s in args.scores.split(",")):
        results = run_phases(__file__, list(PHASES), ["--path", str(generate(n))], args.repeat)
        fl = results["floor"]["seconds"]
        for name, r in results.items():
            page = f"{r['page_mb']:>8.2f} {r['svg_elements']:>13,}" if "page_mb" in r else ""
            print(
                f"{n:>10,} {name:<6} {r['seconds']:>8.2f} {r['cpu_seconds']:>7.2f} "
                f"{r['peak_rss_mb']:>12.0f} {ratio(r['seconds'], fl):>8} {page}"
            )


if __name__ == "__main__":
    sys.exit(main())
