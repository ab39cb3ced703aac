"""``accord report`` beside its floor: 1M scores at the interval level, realistic ratings.

Two data sets, each phase in a fresh process (``_common.run_phases``):

- ``scores``: ``report_figures.py``'s file, ``--scores`` measurements (two raters an item,
  text item ids, rows shuffled), read as ``--level interval``;
- ``ratings``: ``realistic.py``'s Parquet file, ``--ratings`` ratings (text ids, 2,000
  named raters, five text labels, rows shuffled, 5% missing), the memory engine.

For each, the phases:

- ``floor``: pyarrow reads the file and dictionary-encodes its id columns (and the labels of
  the ratings): what any reader must do;
- ``report``: ``accord.report(path, ...)`` in the process, its imports and a run on the
  file's first rows off the clock (what the page costs per rating);
- ``report-stream``: the same with ``engine="stream"``;
- ``cli``: ``accord report <path> -o page.html`` end to end, a child process (its own CPU
  time and peak RSS, the interpreter's start and the imports included).

Prints seconds, CPU seconds, the ratios of both to the floor of the same run, peak RSS and the
page's size; then the seconds of each step of the in-process report (reading, each section,
writing the page: the steps its progress display names), the longest first. Targets: the
report within 3x the floor, and 1.5 GB at 10M ratings.

    uv run --no-sync python benchmarks/report_speed.py                        # a minute
    uv run --no-sync python benchmarks/report_speed.py --scores 1e6 --ratings 1e7
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import realistic
import report_figures
from _common import Result, children_peak_rss_mb, count, measure, phase_main, ratio, run_phases

#: The report's options for each data set (as ``accord.report`` and the CLI take them).
OPTIONS: dict[str, dict[str, str]] = {
    "scores": {"item": "item", "rater": "rater", "label": "score", "level": "interval"},
    "ratings": dict(realistic.COLS),
}
#: The columns the floor dictionary-encodes.
ENCODED = {"scores": ("item", "rater"), "ratings": ("item", "rater", "label")}


def floor(args: Any) -> Result:
    """pyarrow read + ``dictionary_encode`` of the id (and label) columns."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    def run() -> int:
        table = pq.read_table(args.path)
        return sum(len(pc.dictionary_encode(table.column(c))) for c in ENCODED[args.data])

    _, r = measure(run)
    return r


def _timing_steps() -> dict[str, float]:
    """Seconds of each step of the report's progress (reading, each section, writing the
    page), filled as ``accord.report`` runs: the steps its progress display names."""
    from accord.report import _progress

    seconds: dict[str, float] = {}
    step = _progress.PhaseBar.step

    def timed(bar: Any, description: str, fn: Any) -> Any:
        start = time.perf_counter()
        try:
            return step(bar, description, fn)
        finally:
            seconds[description] = seconds.get(description, 0.0) + time.perf_counter() - start

    _progress.PhaseBar.step = timed  # type: ignore[method-assign]
    return seconds


def report(args: Any, engine: str = "memory") -> Result:
    """``accord.report`` in the process, warmed up on the first 20,000 rows (read alone); with
    the seconds of each of its steps."""
    import pyarrow.parquet as pq

    import accord

    options = OPTIONS[args.data] | {"engine": engine}
    # the first 20,000 rows alone: reading the whole file for them would leave its table's
    # memory freed just before the run, which the command line's fresh process does not have
    first = next(pq.ParquetFile(args.path).iter_batches(batch_size=20_000))
    head = first.to_pandas()
    page = args.path.with_name("report-speed.html")

    def run() -> Any:
        steps.clear()
        return accord.report(args.path, **options, output=page, progress=False)

    steps = _timing_steps()
    warm = OPTIONS[args.data]  # the warm-up reads a frame: the memory engine's
    _, r = measure(run, lambda: accord.report(head, **warm, progress=False))
    return r | {"page_mb": page.stat().st_size / 2**20, "steps": dict(steps)}


def cli(args: Any) -> Result:
    """``accord report`` end to end in a child process."""
    page = args.path.with_name("report-speed-cli.html")
    flags = [a for k, v in OPTIONS[args.data].items() for a in (f"--{k}", v)]
    command = [str(Path(sys.executable).with_name("accord")), "report", str(args.path), *flags]
    done, r = measure(lambda: subprocess.run([*command, "-o", str(page)], capture_output=True))
    if done.returncode != 0:
        raise RuntimeError(f"accord report failed: {done.stderr.decode()[-2000:]}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r | {
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "peak_rss_mb": children_peak_rss_mb(),
        "page_mb": page.stat().st_size / 2**20,
    }


def report_stream(args: Any) -> Result:
    """``accord.report(path, engine="stream")`` in the process, as :func:`report`."""
    return report(args, engine="stream")


PHASES = {"floor": floor, "report": report, "report-stream": report_stream, "cli": cli}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scores", type=count, default=200_000, help="0 to skip")
    parser.add_argument("--ratings", type=count, default=300_000, help="0 to skip")
    parser.add_argument("--phases", default="floor,report,cli", help="comma-separated")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--phase", choices=list(PHASES), default=None)
    parser.add_argument("--path", type=Path, default=None)
    parser.add_argument("--data", choices=list(OPTIONS), default=None)
    args = parser.parse_args()
    if args.phase is not None:
        phase_main(PHASES, args.phase, args)
        return
    wanted = ["floor", *(p for p in args.phases.split(",") if p and p != "floor")]
    files = {}
    if args.scores:
        files["scores"] = (args.scores, report_figures.generate(args.scores))
    if args.ratings:
        realistic.generate(args.ratings)
        files["ratings"] = (args.ratings, realistic.paths(args.ratings)["parquet"])
    print(
        f"{'data':<8} {'rows':>11} {'phase':<13} {'seconds':>8} {'CPU s':>7} {'x floor':>8} "
        f"{'CPU x floor':>11} {'peak RSS MB':>12} {'page MB':>8}"
    )
    for data, (n, path) in files.items():
        argv = ["--path", str(path), "--data", data]
        results = run_phases(__file__, wanted, argv, args.repeat)
        fl = results["floor"]
        for name, r in results.items():
            page = f"{r['page_mb']:>8.2f}" if "page_mb" in r else ""
            print(
                f"{data:<8} {n:>11,} {name:<13} {r['seconds']:>8.2f} {r['cpu_seconds']:>7.2f} "
                f"{ratio(r['seconds'], fl['seconds']):>8} "
                f"{ratio(r['cpu_seconds'], fl['cpu_seconds']):>11} "
                f"{r['peak_rss_mb']:>12.0f} {page}"
            )
        for name in ("report", "report-stream"):
            if "steps" in results.get(name, {}):
                _print_steps(f"{data}, {name}", results[name])


def _print_steps(data: str, run: Result) -> None:
    """The seconds of each step of the (median) in-process report, the longest first."""
    steps = sorted(run["steps"].items(), key=lambda kv: -kv[1])
    print(f"  {data}: the report's steps ({sum(run['steps'].values()):.2f} s of "
          f"{run['seconds']:.2f} s)")  # fmt: skip
    for name, seconds in steps:
        if seconds >= 0.005:
            print(f"    {name:<36} {seconds:>6.2f} s")


if __name__ == "__main__":
    sys.exit(main())
