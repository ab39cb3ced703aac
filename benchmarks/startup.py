"""What a command costs before it does anything: ``import accord`` and the command line on
the bundled examples, each in a fresh process, beside the floor of reading the file.

Every phase is one fresh interpreter (``subprocess.run``), timed from the parent, wall clock
and CPU (user + system of the child):

- ``python``: the bare interpreter (``python -c pass``), for reference;
- ``floor``: the interpreter imports pandas and pyarrow.csv and reads ``examples/pefr.csv``
  into a pandas frame: what any command that reads a ratings file must pay (accord reads
  delimited files with pyarrow.csv and hands its results around as pandas frames), so the
  honest floor of ``accord agree`` on a 34-row file;
- ``import``: ``python -c "import accord"``;
- ``help``: ``accord --help``;
- ``usage``: ``accord agree examples/pefr.csv``, without the columns to read: a one-line usage
  error, after reading the file's header;
- ``agree-pefr``: ``accord agree examples/pefr.csv --item subject --rater meter --label pefr
  --level interval`` (every coefficient, the ICCs with their F intervals);
- ``agree-diagnoses``: ``accord agree examples/diagnoses.csv --item patient --rater rater
  --label diagnosis`` (nominal: the kappas and alpha with their standard errors);
- ``report-pefr``, ``report-diagnoses``: ``accord report`` on the same files and columns,
  the page written under the temporary folder (its figures and page: matplotlib and jinja2
  are what a report adds to the command's imports).

The phases run ``--repeat`` times (default 5), interleaved, after one run of each off the
clock, and the median of each is printed with its ratio to the floor of the same run; the
target of the command line's phases is 2x the floor.

Bytecode: by default (``--bytecode cached``) the children keep the bytecode of every module
they import in a folder under the temporary directory (``PYTHONPYCACHEPREFIX``; the run off
the clock writes it), as an installed package has it. ``--bytecode as-is`` leaves the
environment alone: with ``PYTHONDONTWRITEBYTECODE`` set and a checkout whose ``__pycache__``
was never written, every start compiles accord's sources again (about 0.5 s for a command),
which the floor, reading installed packages' bytecode, does not pay.

The command is the ``accord`` script beside the interpreter running this file, so the same
script measures another checkout by its interpreter, one after the other in the same shell:

    uv run --no-sync python benchmarks/startup.py --repeat 7
    /path/to/other/checkout/.venv/bin/python benchmarks/startup.py --repeat 7
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import cache_dir, ratio, verdict

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
PEFR = ["--item", "subject", "--rater", "meter", "--label", "pefr", "--level", "interval"]
DIAGNOSES = ["--item", "patient", "--rater", "rater", "--label", "diagnosis"]
#: Where the report phases write their page.
PAGE = str(cache_dir("startup") / "page.html")
FLOOR = "import pandas, pyarrow.csv, sys; pyarrow.csv.read_csv(sys.argv[1]).to_pandas()"
#: The phases' commands (``accord`` is the console script beside the interpreter).
PHASES: dict[str, list[str]] = {
    "python": ["python", "-c", "pass"],
    "floor": ["python", "-c", FLOOR, str(EXAMPLES / "pefr.csv")],
    "import": ["python", "-c", "import accord"],
    "help": ["accord", "--help"],
    "usage": ["accord", "agree", str(EXAMPLES / "pefr.csv")],
    "agree-pefr": ["accord", "agree", str(EXAMPLES / "pefr.csv"), *PEFR],
    "agree-diagnoses": ["accord", "agree", str(EXAMPLES / "diagnoses.csv"), *DIAGNOSES],
    "report-pefr": ["accord", "report", str(EXAMPLES / "pefr.csv"), *PEFR, "-o", PAGE],
    "report-diagnoses": [
        "accord",
        "report",
        str(EXAMPLES / "diagnoses.csv"),
        *DIAGNOSES,
        "-o",
        PAGE,
    ],
}
#: Exit status of each phase that succeeds (the usage error exits 2).
STATUS = {"usage": 2}
TARGETS = {"usage": 2.0, "agree-pefr": 2.0, "agree-diagnoses": 2.0}


def command(phase: str) -> list[str]:
    """The phase's command line, with this interpreter and the ``accord`` beside it."""
    first, *rest = PHASES[phase]
    exe = sys.executable if first == "python" else str(Path(sys.executable).with_name(first))
    return [exe, *rest]


def environment(bytecode: str) -> dict[str, str]:
    """The children's environment: bytecode kept under the temporary folder (``cached``) or
    the environment as it is (``as-is``)."""
    env = dict(os.environ)
    if bytecode == "cached":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache_dir("startup") / "pycache")
    return env


def run_once(phase: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh process running the phase."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(
        command(phase), capture_output=True, text=True, cwd=EXAMPLES.parent, env=env
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != STATUS.get(phase, 0):
        raise RuntimeError(f"{phase} exited {out.returncode}:\n{out.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--phases", default=",".join(PHASES), help="comma-separated")
    parser.add_argument("--bytecode", choices=["cached", "as-is"], default="cached")
    args = parser.parse_args()
    wanted = [p.strip() for p in args.phases.split(",") if p.strip()]
    if "floor" not in wanted:
        wanted.insert(0, "floor")
    env = environment(args.bytecode)
    runs: dict[str, list[tuple[float, float]]] = {p: [] for p in wanted}
    for p in wanted:  # once off the clock: the files and the interpreter in the page cache
        run_once(p, env)
    for _ in range(max(1, args.repeat)):
        for p in wanted:
            runs[p].append(run_once(p, env))
    print(f"{sys.executable}: median of {args.repeat} fresh processes per phase")
    print(
        f"bytecode {args.bytecode}: {env.get('PYTHONPYCACHEPREFIX', 'beside the sources')}, "
        f"PYTHONDONTWRITEBYTECODE={env.get('PYTHONDONTWRITEBYTECODE', '')!r}"
    )
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs")
    floor = statistics.median(s for s, _ in runs["floor"])
    cpu_floor = statistics.median(c for _, c in runs["floor"])
    print(f"\n{'phase':<16} {'seconds':>8} {'CPU s':>7} {'x floor':>8} {'CPU x floor':>11}  runs")
    for p, r in runs.items():
        wall = statistics.median(s for s, _ in r)
        cpu = statistics.median(c for _, c in r)
        each = ", ".join(f"{s:.2f}" for s, _ in r)
        print(
            f"{p:<16} {wall:>8.2f} {cpu:>7.2f} {ratio(wall, floor):>8} "
            f"{ratio(cpu, cpu_floor):>11}  [{each}] {verdict(wall, floor, TARGETS.get(p))}"
        )


if __name__ == "__main__":
    sys.exit(main())
