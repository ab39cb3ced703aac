"""Gamma on pygamma-agreement's continuum of 500 units by 3 annotators, beside
pygamma-agreement on the same data, and beside the floor of one best alignment.

The data is pygamma-agreement's ``tests/data/3by500.csv`` when a copy is given with
``--csv``, else a seeded continuum of the same shape (3 annotators x 500 units, 4 labels,
boundaries moved and units dropped or relabelled at random). Both libraries use the
combined dissimilarity with ``alpha=3, beta=1, delta_empty=1`` (pygamma's tests) and 30
shuffled continua (pygamma: ``ShuffleContinuumSampler``, its section-5.2 sampler).

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


def generate(seed: int = 20240601) -> pd.DataFrame:
    """3 annotators x 500 units on [0, 20000): a reference with moved boundaries."""
    rng = np.random.default_rng(seed)
    start = np.sort(rng.choice(20000 - 60, 520, replace=False))
    end = start + rng.integers(5, 40, start.size)
    label = rng.choice(["Adj", "Noun", "Prep", "Verb"], start.size)
    frames = []
    for a in range(3):
        keep = np.sort(rng.choice(start.size, 500, replace=False))
        s = start[keep] + rng.integers(-3, 4, keep.size)
        e = np.maximum(end[keep] + rng.integers(-3, 4, keep.size), s + 1)
        lab = np.where(rng.random(keep.size) < 0.1, rng.choice(["Adj", "Noun"], keep.size),
                       label[keep])  # fmt: skip
        frames.append(pd.DataFrame({"annotator": f"annotator_{a}", "label": lab,
                                    "start": np.maximum(s, 0), "end": e}))  # fmt: skip
    return pd.concat(frames, ignore_index=True).assign(document="d")


def pygamma(df: pd.DataFrame, repeat: int) -> tuple[float, float]:
    """pygamma-agreement's gamma and its seconds (after a numba warm-up)."""
    import pygamma_agreement as pg
    from pyannote.core import Segment
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", help="pygamma-agreement's tests/data/3by500.csv")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()
    if args.csv:
        df = pd.read_csv(args.csv, header=None, names=["annotator", "label", "start", "end"])
        df = df.assign(document="d")
    else:
        df = generate()
    print(f"{len(df)} units by {df['annotator'].nunique()} annotators")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        accord.gamma_agreement(
            df.groupby("annotator").head(10), n_samples=1
        )  # imports scipy.optimize
        best, floor_s = timed(lambda: accord.gamma_agreement(df, alpha=3, n_samples=1), args.repeat)
        res, gamma_s = timed(lambda: accord.gamma_agreement(df, alpha=3, n_samples=30),
                             args.repeat)  # fmt: skip
    print(f"{'phase':<34}{'seconds':>9}  value")
    print(f"{'accord best alignment + 1 sample':<34}{floor_s:>9.2f}  disorder {best.observed:.5f}")
    print(f"{'accord gamma (30 samples)':<34}{gamma_s:>9.2f}  gamma {res.statistic:.4f}")
    if not args.no_peer:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value, seconds = pygamma(df, args.repeat)
        print(f"{'pygamma-agreement (30 samples)':<34}{seconds:>9.2f}  gamma {value:.4f}"
              f"  ({seconds / gamma_s:.1f}x accord)")  # fmt: skip


if __name__ == "__main__":
    main()
