"""Krippendorff's unitizing alphas on a long continuum, beside the floor of building the
spans, and beside a Python transcription of the 2016 family on a small continuum.

Three annotators unitize one continuum of ``--length`` characters (default 10^6; 10^7 with
``--full``) into ``--units`` units in all (default 10^4; 10^5 with ``--full``): a reference
set of units with 5 labels, each annotator moving every boundary by up to 3 characters,
dropping 5 % of the units and relabelling 5 %. Seeded.

- ``floor``: ``Spans.from_frame`` on the table (validation, encoding, sorting);
- ``unitizing_alpha``: the 2016 family (u, |u, cu, (k)u) from the same table;
- ``unitizing_alpha_1995``: the per-label 1995 alpha from the same table;
- ``peer``: ``lindanna/unitized_alpha`` (``u_alpha``, a loop per character and per unit) on
  a continuum of 10^4 characters and 100 units, when its folder is given with ``--peer``
  (it is not a package; the figures it prints are checked in ``tests/spans/test_unitizing.py``).

    uv run --no-sync python benchmarks/unitizing.py            # 10^4 units over 10^6
    uv run --no-sync python benchmarks/unitizing.py --full     # 10^5 units over 10^7
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import warnings

import numpy as np
import pandas as pd
from _common import timed

import accord


def generate(n_units: int, length: int, seed: int = 20240601) -> pd.DataFrame:
    """The spans of three annotators: ``n_units`` in all over ``[0, length)``."""
    rng = np.random.default_rng(seed)
    n_ref = int(n_units / 3 / 0.95)
    slot = length // n_ref
    start = np.arange(n_ref) * slot + slot // 4
    end = start + np.maximum(slot // 2, 2)
    label = rng.integers(0, 5, n_ref)
    frames = []
    for a in range(3):
        keep = rng.random(n_ref) >= 0.05
        s = start + rng.integers(-3, 4, n_ref)
        e = end + rng.integers(-3, 4, n_ref)
        lab = np.where(rng.random(n_ref) < 0.05, rng.integers(0, 5, n_ref), label)
        frames.append(
            pd.DataFrame(
                {
                    "annotator": f"ann{a}",
                    "document": "d",
                    "start": np.maximum(s[keep], 0),
                    "end": np.minimum(e[keep], length),
                    "label": [f"L{x}" for x in lab[keep]],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def peer(folder: str, repeat: int) -> tuple[float, float]:
    """lindanna/unitized_alpha and accord on 100 units over 10^4 characters."""
    sys.path.insert(0, folder)
    from unitized_alpha import u_alpha  # type: ignore[import-not-found]

    frame = generate(100, 10_000, seed=7)
    rows = frame[["annotator", "label", "start", "end"]].astype(str).to_numpy().tolist()

    def run_peer() -> object:
        with contextlib.redirect_stdout(io.StringIO()):
            return u_alpha(rows, 10_000, "nominal")

    out, peer_s = timed(run_peer, repeat)
    ours, ours_s = timed(lambda: accord.unitizing_alpha(frame, lengths={"d": 10_000}), repeat)
    # the same figures: u-alpha and cu-alpha
    assert abs(out[1] - ours.statistic) < 1e-9, (out, ours.statistic)  # type: ignore[index]
    assert abs(out[2][0] - ours.coding) < 1e-9, (out, ours.coding)  # type: ignore[index]
    return peer_s, ours_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="10^5 units over 10^7 characters")
    parser.add_argument("--units", type=int, default=10_000)
    parser.add_argument("--length", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer", help="folder holding lindanna/unitized_alpha's .py file")
    args = parser.parse_args()
    if args.full:
        args.units, args.length = 100_000, 10_000_000
    frame = generate(args.units, args.length)
    lengths = {"d": args.length}
    print(f"{len(frame):,} units by 3 annotators over {args.length:,} characters")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, floor_s = timed(lambda: accord.Spans.from_frame(frame), args.repeat)
        res, new_s = timed(lambda: accord.unitizing_alpha(frame, lengths=lengths), args.repeat)
        old, old_s = timed(lambda: accord.unitizing_alpha_1995(frame, lengths=lengths), args.repeat)
    print(f"{'phase':<24}{'seconds':>10}{'x floor':>10}  value")
    print(f"{'floor (Spans)':<24}{floor_s:>10.3f}{1.0:>10.1f}")
    print(f"{'unitizing_alpha':<24}{new_s:>10.3f}{new_s / floor_s:>10.1f}  u {res.statistic:.4f}"
          f", |u {res.binary:.4f}, cu {res.coding:.4f}")  # fmt: skip
    print(f"{'unitizing_alpha_1995':<24}{old_s:>10.3f}{old_s / floor_s:>10.1f}  "
          f"{old.statistic:.4f}")  # fmt: skip
    if args.peer:
        peer_s, ours_s = peer(args.peer, args.repeat)
        print(
            f"peer lindanna u_alpha, 100 units over 10^4 characters: {peer_s:.3f} s; "
            f"accord {ours_s:.4f} s ({peer_s / ours_s:.0f}x)"
        )


if __name__ == "__main__":
    main()
