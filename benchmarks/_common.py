"""Machinery shared by the benchmarks: phases in fresh processes, medians, peak memory.

A benchmark script defines its phases as functions returning a dict (at least ``seconds``),
and calls :func:`phase_main` when run as a child (``--phase NAME``): the child warms its
imports, runs the phase, adds its CPU seconds and peak RSS, and prints one JSON line.
The parent runs every phase ``--repeat`` times, interleaved, with :func:`run_phases`, and
reports the median run of each (:func:`median_run`): on a shared machine single runs move by
30% or more, so every figure is printed beside a floor measured in the same run.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Result = dict[str, Any]


def timed(
    fn: Callable[[], Any], repeat: int, pick: Callable[[list[float]], float] = statistics.median
) -> tuple[Any, float]:
    """The result of ``fn`` (its last run) and the ``pick`` of its wall times over ``repeat``
    runs in this process: the median by default, ``min`` for the best run."""
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return out, pick(times)


def count(text: str) -> int:
    """A count as a command line gives it: ``1e7``, ``10_000_000`` or ``300000``."""
    return int(float(text.replace("_", "")))


def cache_dir(name: str) -> Path:
    """A folder under the temporary directory where generated data is kept between runs."""
    folder = Path(tempfile.gettempdir()) / "accord-bench" / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def rss_mb() -> float:
    """Resident memory of this process now, MB."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def reset_peak_rss() -> bool:
    """Reset this process's peak RSS (Linux ``clear_refs``) so that the next reading of
    :func:`peak_rss_since_reset_mb` is the peak of what follows; False where unsupported."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_rss_since_reset_mb() -> float:
    """Peak RSS since :func:`reset_peak_rss` (``VmHWM``), MB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return peak_rss_mb()


def children_peak_rss_mb() -> float:
    """Largest peak resident memory of the waited-for children of this process, MB."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def warm_imports() -> None:
    """Import what the phases use before their clocks start (paid once per process, not
    per rating: importing pyarrow.dataset takes a second on a busy machine)."""
    import pandas
    import pyarrow.compute
    import pyarrow.csv
    import pyarrow.dataset
    import pyarrow.parquet
    import scipy.sparse
    import scipy.stats

    import accord

    del pandas, pyarrow, scipy, accord


def measure(fn: Callable[[], Any], warm_up: Callable[[], Any] | None = None) -> tuple[Any, Result]:
    """Run ``fn`` once: its result, and seconds, CPU seconds, the peak RSS during the call
    and that peak above the RSS before the call (``extra_mb``: the memory the call adds).

    ``warm_up`` runs first, off the clock: the same call on a few rows, so that the modules
    a function imports on its first call are not charged to the data.
    """
    if warm_up is not None:
        warm_up()
    before = rss_mb()
    # the imports and the loading of the data may have peaked higher than the call will
    resettable = reset_peak_rss()
    cpu = time.process_time()
    start = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu
    peak = peak_rss_since_reset_mb() if resettable else peak_rss_mb()
    return out, {
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "peak_rss_mb": peak,
        "extra_mb": max(0.0, peak - before),
    }


def phase_main(phases: dict[str, Callable[[Any], Result]], name: str, args: Any) -> None:
    """Child side: run one phase and print its result as the last line of stdout."""
    warm_imports()
    result = phases[name](args)
    print(json.dumps(result))


def run_child(script: str, phase: str, argv: Sequence[str]) -> Result:
    """Run ``script --phase phase argv...`` in a fresh interpreter; its JSON result."""
    out = subprocess.run(
        [sys.executable, script, "--phase", phase, *argv],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise RuntimeError(f"phase {phase} failed:\n{out.stderr[-3000:]}")
    result: Result = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def median_run(runs: list[Result]) -> Result:
    """The run with the median wall time (its other figures with it); peak RSS and the
    memory above the start are the largest of all runs."""
    ordered = sorted(runs, key=lambda r: r["seconds"])
    out = dict(ordered[(len(ordered) - 1) // 2])
    out["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
    if all("extra_mb" in r for r in runs):
        out["extra_mb"] = max(r["extra_mb"] for r in runs)
    out["runs"] = [r["seconds"] for r in runs]
    return out


def run_phases(
    script: str, phases: Sequence[str], argv: Sequence[str], repeat: int
) -> dict[str, Result]:
    """Every phase ``repeat`` times, interleaved (phase a, b, c, a, b, c, ...), each in a
    fresh process; the median run of each."""
    runs: dict[str, list[Result]] = {p: [] for p in phases}
    for _ in range(max(1, repeat)):
        for p in phases:
            runs[p].append(run_child(script, p, argv))
    results = {p: median_run(r) for p, r in runs.items()}
    if repeat > 1:
        print(f"median of {repeat} runs per phase (seconds of each run in brackets)")
        for p, r in results.items():
            print(f"  {p:<24} [{', '.join(f'{s:.2f}' for s in r['runs'])}]")
    return results


def ratio(value: float, floor: float) -> str:
    """``value / floor`` as ``"2.31x"`` (``"-"`` without a floor)."""
    return f"{value / floor:.2f}x" if floor > 0 else "-"


def verdict(value: float, floor: float, target: float | None) -> str:
    """Whether ``value`` is within ``target`` times ``floor``."""
    if target is None or floor <= 0:
        return ""
    return f"<= {target:g}x: {'met' if value <= target * floor else 'NOT met'}"
