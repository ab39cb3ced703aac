"""The stream engine's storage and pair modes, and the integer id encoder, each forced.

Two designs of ``--ratings`` ratings (default 1M), five labels, rows in random order, written
once as Parquet under the temporary folder: ``dense``, every item rated by the same 10 raters
(one cell in one rated), and ``sparse``, items of 10 ratings from a pool of 2,000 raters (one
cell in 200). For each, ``stream_scan`` counts item counts, rater counts and pair tables with
every mode of :class:`accord.engines._matrix.MatrixModes` forced in turn, beside ``auto`` (the
choice by cost): the ratings held as a matrix or as long codes (``storage``), the counts read
from the filled cells or from every cell (``reading``), the pairs counted column by column or
from long codes (``pairs``). Every mode gives the same numbers
(``tests/engines/test_stream_cells.py``); the figures say what each costs where ``auto``
would not choose it. Then the memory engine's
id encoder (``encode_ids``, the growing dictionary on one batch) on 1M integer ids of each
shape its paths serve. Timings are the best of ``--repeat`` runs (wall clock; on a shared
machine they are noisy), with the bytes the matrix (or its cells) held.

    uv run --no-sync python benchmarks/storage.py --ratings 1e6 --repeat 3
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from _common import cache_dir, count, timed

from accord.data.dictionary import encode_ids
from accord.engines._matrix import MatrixModes
from accord.engines.stream import stream_scan

COLS = {"item": "item", "rater": "rater", "label": "label"}
MODES: dict[str, MatrixModes] = {
    "auto": MatrixModes(),
    "storage=matrix": MatrixModes(storage="matrix"),
    "storage=store": MatrixModes(storage="store"),
    "reading=cells": MatrixModes(storage="matrix", reading="cells"),
    "reading=every cell": MatrixModes(storage="matrix", reading="every cell"),
    "pairs=columns": MatrixModes(storage="matrix", pairs="columns"),
    "pairs=long": MatrixModes(storage="matrix", pairs="long"),
}


def design(name: str, n_ratings: int) -> Path:
    """The Parquet file of one design (made once, kept under the temporary folder)."""
    path = cache_dir("storage") / f"{name}-{n_ratings}.parquet"
    if path.exists():
        return path
    rng = np.random.default_rng(0)
    n_items = n_ratings // 10
    item = np.repeat(np.arange(n_items), 10)
    if name == "dense":
        rater = np.tile(np.arange(10), n_items)
    else:  # 10 distinct raters per item from a pool of 2,000
        rater = (rng.integers(0, 2_000, n_items)[:, None] + np.arange(10) * 199) % 2_000
        rater = rater.ravel()
    label = rng.integers(0, 5, item.size)
    order = rng.permutation(item.size)
    frame = pd.DataFrame({"item": item[order], "rater": rater[order], "label": label[order]})
    frame.to_parquet(path)
    return path


def bench_modes(n_ratings: int, repeat: int) -> None:
    for name in ("dense", "sparse"):
        path = design(name, n_ratings)
        print(f"\n{name}: {n_ratings:,} ratings, stream_scan(item, rater and pair counts)")
        print(f"{'mode':20s} {'seconds':>8s} {'MB held':>8s}")
        for label, modes in MODES.items():
            if name == "sparse" and label == "pairs=columns":
                continue  # 2,000 raters: every pair's table would not fit (long codes)

            def run(modes: MatrixModes = modes, path: Path = path) -> Any:
                return stream_scan(
                    path, **COLS, statistics=("items", "raters", "pairs"), modes=modes
                )

            (_, rescan), secs = timed(run, repeat, min)
            held = rescan.matrix.nbytes / 2**20 if rescan.matrix is not None else 0.0
            print(f"{label:20s} {secs:8.3f} {held:8.1f}")


def id_shapes(n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    spread = rng.choice(3_000_000, n // 10, replace=False)
    return {
        "items sorted (a run)": np.repeat(np.arange(n // 10), 10),
        "items sorted, gaps": np.repeat(np.arange(0, 3 * (n // 10), 3), 10),
        "items shuffled": rng.permutation(np.repeat(np.arange(n // 10), 10)),
        "2,000 raters, any order": rng.integers(0, 2_000, n),
        "ids spread over 3M": rng.permutation(np.repeat(spread, 10)),
        "ids spread over 2^40": rng.permutation(
            np.repeat(rng.choice(1 << 40, n // 10, replace=False), 10)
        ),
    }


def bench_encoder(repeat: int) -> None:
    print("\nencode_ids: 1,000,000 integer ids")
    print(f"{'ids':26s} {'ms':>7s}")
    for label, values in id_shapes(1_000_000).items():
        _, secs = timed(lambda v=values: encode_ids(v, column="item", what="item"), repeat, min)
        print(f"{label:26s} {secs * 1e3:7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=count, default=10**6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--encoder-only", action="store_true")
    args = parser.parse_args()
    if not args.encoder_only:
        bench_modes(args.ratings, args.repeat)
    bench_encoder(max(args.repeat, 5))


if __name__ == "__main__":
    main()
