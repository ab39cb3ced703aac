"""Benchmark: consensus diagnostics on 10 million ratings, accord vs crowd-kit's ``uncertainty``.

Run with ``uv run --no-sync python benchmarks/consensus.py [n_ratings]`` (default 10M).

accord's whole job (entropy per item, surprisal and deviation per rating, the rater table with
kappa against the leave-one-out consensus) runs in a child process, so that its peak resident
memory is its own (target: under 10 s and 2 GB on 2 cores for 10M ratings).

crowd-kit's ``crowdkit.metrics.data.uncertainty(answers, compute_by="task", aggregate=False)``
computes the per-item entropy (in nats) only, row by row with ``DataFrame.apply``. crowd-kit
has pinned old numpy/scipy releases, so it never enters accord's environment: the script creates a
throwaway venv (``uv venv /tmp/accord-bench-crowdkit`` and ``uv pip install crowd-kit``),
saves the same generated data to a temporary file and times crowd-kit there in a subprocess.
Because it is row-wise, crowd-kit is timed on the first 10k and 100k ratings (whole items),
accord on the same subsets, and the per-item entropies are compared (crowd-kit divides by
``sum + 1e-6``, so they agree to 1e-6 or better). If the install fails, a note is printed and the
accord timings are still reported.

``--rows 1e7`` times ``consensus_from_ratings`` on ``realistic.py``'s Parquet file of that many
ratings (text ids, 2,000 raters, shuffled rows, 5% of the labels missing), with its table of
one row a rating and without it (``rows=False``, what ``accord report`` asks for), beside the
floor (pyarrow reads the file and dictionary-encodes its three columns), medians of three.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
from _common import count

VENV = Path("/tmp/accord-bench-crowdkit")
RATINGS_PER_ITEM = 10
N_RATERS = 2_000
N_CATEGORIES = 5
CROWDKIT_SIZES = (10_000, 100_000)


def generate(n: int, seed: int = 20240601) -> dict[str, np.ndarray]:
    """``n`` ratings: items of 10 ratings by distinct raters from a pool of 2000, five
    categories, a true class per item and raters right 50-95% of the time."""
    rng = np.random.default_rng(seed)
    n_items = n // RATINGS_PER_ITEM
    item = np.repeat(np.arange(n_items, dtype=np.int64), RATINGS_PER_ITEM)
    offsets = rng.integers(0, N_RATERS, n_items)
    step = np.arange(RATINGS_PER_ITEM, dtype=np.int64) * (N_RATERS // RATINGS_PER_ITEM)
    rater = ((offsets[:, None] + step[None, :]) % N_RATERS).ravel()
    accuracy = rng.uniform(0.5, 0.95, N_RATERS)
    truth = np.repeat(rng.integers(0, N_CATEGORIES, n_items), RATINGS_PER_ITEM)
    wrong = (truth + rng.integers(1, N_CATEGORIES, item.size)) % N_CATEGORIES
    label = np.where(rng.random(item.size) < accuracy[rater], truth, wrong)
    return {"item": item, "rater": rater, "label": label.astype(np.int64)}


ACCORD_WORKER = textwrap.dedent(
    """
    import json, resource, sys, time, tracemalloc
    import numpy as np
    import accord

    data = np.load(sys.argv[1])
    n = int(sys.argv[2])
    item, rater, label = data["item"][:n], data["rater"][:n], data["label"][:n]
    t0 = time.perf_counter()
    ratings = accord.Ratings.from_arrays(item, rater, label)
    t1 = time.perf_counter()
    result = accord.consensus(ratings, base=float(np.e))
    t2 = time.perf_counter()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB -> MB on Linux
    entropy = result.items["entropy"].to_numpy()
    json.dump(
        {
            "encode_s": t1 - t0,
            "consensus_s": t2 - t1,
            "peak_rss_mb": rss,
            "entropy_head": entropy[:1000].tolist(),
            "mean_entropy": float(np.nanmean(entropy)),
            "top_rater": str(result.raters["rater"].iloc[0]),
        },
        sys.stdout,
    )
    """
)

CROWDKIT_WORKER = textwrap.dedent(
    """
    import json, sys, time
    import numpy as np, pandas as pd
    from crowdkit.metrics.data import uncertainty

    data = np.load(sys.argv[1])
    n = int(sys.argv[2])
    answers = pd.DataFrame(
        {"task": data["item"][:n], "worker": data["rater"][:n], "label": data["label"][:n]}
    )
    t0 = time.perf_counter()
    u = uncertainty(answers, compute_by="task", aggregate=False)
    t1 = time.perf_counter()
    u = u.sort_index()
    json.dump({"seconds": t1 - t0, "entropy_head": u.to_numpy()[:1000].tolist(),
               "mean_entropy": float(u.mean())}, sys.stdout)
    """
)


def run_accord(path: Path, n: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", ACCORD_WORKER, str(path), str(n)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, float] = json.loads(out.stdout)
    return result


def crowdkit_python() -> Path | None:
    """The throwaway venv's python with crowd-kit, creating it if needed; None on failure."""
    python = VENV / "bin" / "python"
    probe = [str(python), "-c", "import crowdkit.metrics.data"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    steps = [
        ["uv", "venv", "-q", str(VENV)],
        ["uv", "pip", "install", "-q", "--python", str(VENV), "crowd-kit"],
    ]
    for step in steps:
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as exc:
            print(f"note: could not set up crowd-kit ({' '.join(step)}: {exc}); skipping it")
            return None
        if done.returncode != 0:
            reason = (done.stderr.strip().splitlines() or ["no message"])[-1]
            print(f"note: could not set up crowd-kit ({' '.join(step)}: {reason}); skipping it")
            return None
    return python


def run_crowdkit(python: Path, path: Path, n: int) -> dict[str, float] | None:
    try:
        out = subprocess.run(
            [str(python), "-c", CROWDKIT_WORKER, str(path), str(n)],
            check=True,
            capture_output=True,
            text=True,
            timeout=1800,
        )
    except subprocess.CalledProcessError as exc:
        reason = (exc.stderr.strip().splitlines() or ["no message"])[-1]
        print(f"note: crowd-kit failed on {n:,} ratings ({reason})")
        return None
    except subprocess.TimeoutExpired:
        print(f"note: crowd-kit did not finish {n:,} ratings within 30 minutes")
        return None
    result: dict[str, float] = json.loads(out.stdout)
    return result


def main(n: int = 10_000_000) -> None:
    print(
        f"{n:,} ratings: {n // RATINGS_PER_ITEM:,} items x {RATINGS_PER_ITEM} raters from a "
        f"pool of {N_RATERS:,}, {N_CATEGORIES} categories; {os.cpu_count()} cores; one run each\n"
    )
    with tempfile.TemporaryDirectory(prefix="accord-bench-") as tmp:
        path = Path(tmp) / "ratings.npz"
        np.savez(path, **generate(n))

        full = run_accord(path, n)
        total = full["encode_s"] + full["consensus_s"]
        print("accord, whole job (child process)")
        print(f"  Ratings.from_arrays    {full['encode_s']:8.2f} s")
        print(f"  consensus              {full['consensus_s']:8.2f} s")
        print(f"  total                  {total:8.2f} s   (target < 10 s)")
        print(f"  peak resident memory   {full['peak_rss_mb']:8.0f} MB  (target < 2048 MB)")
        print(f"  mean item entropy      {full['mean_entropy']:.6f} nats\n")

        python = crowdkit_python()
        if python is None:
            return
        print("per-item entropy, same data (first n ratings): crowd-kit uncertainty vs accord")
        print(
            f"  {'ratings':>10} {'crowd-kit s':>12} {'accord s':>10} {'ratio':>8} "
            f"{'max |diff|':>11}"
        )
        rate = None
        for size in CROWDKIT_SIZES:
            if size > n:
                continue
            ck = run_crowdkit(python, path, size)
            if ck is None:
                continue
            ours = run_accord(path, size)
            ours_s = ours["encode_s"] + ours["consensus_s"]
            m = min(len(ck["entropy_head"]), len(ours["entropy_head"]))
            diff = float(
                np.max(
                    np.abs(np.array(ck["entropy_head"][:m]) - np.array(ours["entropy_head"][:m]))
                )
            )
            print(
                f"  {size:>10,} {ck['seconds']:>12.2f} {ours_s:>10.3f} "
                f"{ck['seconds'] / ours_s:>8.0f} {diff:>11.2e}"
            )
            rate = ck["seconds"] / size
        if rate is not None:
            print(
                f"\n  crowd-kit on {n:,} ratings, extrapolated linearly from the largest run: "
                f"~{rate * n / 60:.0f} min (not run); accord measured: {total:.1f} s"
            )


def rows_side(n: int) -> None:
    """``consensus_from_ratings`` with and without its per-rating table, beside the floor."""
    import realistic
    from _common import timed

    from accord.consensus import consensus_from_ratings

    path, floor_s, ratings = realistic.read_beside_floor(n)
    print(f"consensus on {path.name} ({ratings.n_ratings:,} ratings); floor (read + encode) "
          f"{floor_s:.2f} s; medians of three")  # fmt: skip
    for rows in (True, False):
        # each result let go before the next run: one table of a row a rating at a time
        _, seconds = timed(lambda r=rows: len(consensus_from_ratings(ratings, rows=r).ratings), 3)
        print(f"  rows={rows!s:<6} {seconds:6.2f} s  ({seconds / floor_s:.2f}x the floor)")


if __name__ == "__main__":
    start = time.perf_counter()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n_ratings", nargs="?", type=count, default=10_000_000)
    parser.add_argument(
        "--rows",
        type=count,
        nargs="?",
        const=10_000_000,
        default=None,
        help="time consensus_from_ratings with and without its per-rating table on "
        "realistic.py's file of this many ratings",
    )
    args = parser.parse_args()
    if args.rows is not None:
        rows_side(args.rows)
    else:
        main(args.n_ratings)
    print(f"\nbenchmark wall time {time.perf_counter() - start:.0f} s")
