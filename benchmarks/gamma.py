"""Gamma on continua of 3 annotators by n units, beside pygamma-agreement on the same data,
beside the floor of reading the same file and of one best alignment.

The data is pygamma-agreement's ``tests/data/3by500.csv`` when a copy is given with
``--csv``, else seeded continua of 3 annotators x n units (``--sizes``, default 20 50 100
500; 4 labels, boundaries moved and units dropped or relabelled at random). pygamma runs
at the sizes up to ``--peer-max`` (default 100: at 3 x 500 it had not finished after 20
minutes on a shared 2-core machine). Both libraries use the
combined dissimilarity with ``alpha=3, beta=1, delta_empty=1`` (pygamma's tests) and 30
shuffled continua (pygamma: ``ShuffleContinuumSampler``, its section-5.2 sampler).

- ``read``: ``pandas.read_csv`` of the continuum written as CSV (the floor of any
  computation on it);
- ``best alignment``: accord's exact alignment of the real continuum (the floor: gamma
  is 31 such alignments);
- ``gamma``: ``accord.gamma_agreement(df, alpha=3, n_samples=30)``;
- ``pygamma``: ``Continuum.compute_gamma(dissim, n_samples=30, sampler=
  ShuffleContinuumSampler())`` (its first call compiles numba code: timed after a warm-up
  on a small continuum). ``--no-peer`` skips it.

    uv run --no-sync python benchmarks/gamma.py
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from _common import timed

import accord


def generate(n: int = 500, seed: int = 20240601) -> pd.DataFrame:
    """3 annotators x n units on [0, 40 n): a reference with moved boundaries."""
    rng = np.random.default_rng(seed)
    reference = n + max(n // 25, 1)
    start = np.sort(rng.choice(40 * n - 60, reference, replace=False))
    end = start + rng.integers(5, 40, start.size)
    label = rng.choice(["Adj", "Noun", "Prep", "Verb"], start.size)
    frames = []
    for a in range(3):
        keep = np.sort(rng.choice(start.size, n, replace=False))
        s = start[keep] + rng.integers(-3, 4, keep.size)
        e = np.maximum(end[keep] + rng.integers(-3, 4, keep.size), s + 1)
        lab = np.where(rng.random(keep.size) < 0.1, rng.choice(["Adj", "Noun"], keep.size),
                       label[keep])  # fmt: skip
        frames.append(pd.DataFrame({"annotator": f"annotator_{a}", "label": lab,
                                    "start": np.maximum(s, 0), "end": e}))  # fmt: skip
    return pd.concat(frames, ignore_index=True).assign(document="d")


def pygamma(df: pd.DataFrame, repeat: int) -> tuple[float, float]:
    """pygamma-agreement's gamma and its seconds (after a numba warm-up)."""
    import logging

    import pygamma_agreement as pg
    from pyannote.core import Segment

    logging.getLogger().setLevel(logging.ERROR)  # "CBC solver not installed" per sample
    from pygamma_agreement.sampler import ShuffleContinuumSampler

    def continuum(frame: pd.DataFrame) -> object:
        c = pg.Continuum()
        for a, lab, s, e in frame[["annotator", "label", "start", "end"]].itertuples(index=False):
            c.add(a, Segment(float(s), float(e)), lab)
        return c

    dissim = pg.CombinedCategoricalDissimilarity(delta_empty=1, alpha=3, beta=1)
    continuum(df.groupby("annotator").head(5)).compute_gamma(dissim, n_samples=2)  # type: ignore[attr-defined]
    full = continuum(df)
    np.random.seed(4772)  # noqa: NPY002 (pygamma draws from the global generator)
    out, seconds = timed(
        lambda: full.compute_gamma(  # type: ignore[attr-defined]
            dissim, n_samples=30, sampler=ShuffleContinuumSampler()
        ),
        repeat,
    )
    return float(out.gamma), seconds


def run(df: pd.DataFrame, repeat: int, peer: bool) -> None:
    """Time the phases on one continuum and print them."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "continuum.csv"
        df.to_csv(path, index=False)
        _, read_s = timed(lambda: pd.read_csv(path), repeat)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        best, floor_s = timed(lambda: accord.gamma_agreement(df, alpha=3, n_samples=1), repeat)
        res, gamma_s = timed(lambda: accord.gamma_agreement(df, alpha=3, n_samples=30), repeat)
    size = f"{df['annotator'].nunique()} x {len(df) // df['annotator'].nunique()}"
    print(f"{size:<9}{'read (floor)':<34}{read_s:>9.3f}")
    print(f"{size:<9}{'accord best alignment + 1 sample':<34}{floor_s:>9.3f}"
          f"  disorder {best.observed:.5f}")  # fmt: skip
    print(f"{size:<9}{'accord gamma (30 samples)':<34}{gamma_s:>9.3f}"
          f"  gamma {res.statistic:.4f}  gamma-cat {res.gamma_cat:.4f}")  # fmt: skip
    if peer:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value, seconds = pygamma(df, repeat)
        print(f"{size:<9}{'pygamma-agreement (30 samples)':<34}{seconds:>9.3f}  gamma {value:.4f}"
              f"  ({seconds / gamma_s:.1f}x accord)")  # fmt: skip
    else:
        print(f"{size:<9}{'pygamma-agreement (30 samples)':<34}{'not run':>9}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", help="pygamma-agreement's tests/data/3by500.csv")
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 50, 100, 500])
    parser.add_argument("--peer-max", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # imports scipy.optimize
        accord.gamma_agreement(generate(5), n_samples=1)
    print(f"{'size':<9}{'phase':<34}{'seconds':>9}  value")
    if args.csv:
        df = pd.read_csv(args.csv, header=None, names=["annotator", "label", "start", "end"])
        run(df.assign(document="d"), args.repeat, not args.no_peer)
        return
    for n in args.sizes:
        run(generate(n), args.repeat, not args.no_peer and n <= args.peer_max)


if __name__ == "__main__":
    main()
