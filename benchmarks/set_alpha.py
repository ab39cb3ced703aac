"""Krippendorff's alpha on sets of labels (MASI, Jaccard) and the multi-valued alpha, beside
the floor of reading the same file and forming the pairs of sets within items.

100,000 set-valued ratings (items of 7 raters; each rater gives 1-4 of 30 labels, half the
time the item's own labels, else any), one CSV row per label, generated once and cached
under the temporary folder: some 19,000 distinct sets and 300,000 pairs of sets within
items. Each phase runs in a fresh process from the CSV, so its seconds and peak memory are
its own:

- ``floor``: ``pandas.read_csv``, each (item, rater)'s set as a bit mask of its labels, the
  pairs of sets within items and their Jaccard distances (one ``bitwise_count`` each);
- ``masi``, ``jaccard``: ``read_ratings(..., multi_label=True)`` then
  ``krippendorff_alpha(r, distance=...)`` (analytic SE);
- ``agreement``: ``accord.agreement(path, multi_label=True)`` (MASI alpha and the
  multi-valued alpha), with the memory and the stream engines.

Before alpha read the pairs within items and the expected disagreement through the subsets
of each set, the q x q distances over the distinct sets were built: the MASI case was killed
at 14.6 GB after 77 s.

    uv run --no-sync python benchmarks/set_alpha.py --repeat 3
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from _common import Result, cache_dir, count, measure, phase_main, ratio, run_phases

N_LABELS = 30
RATERS_PER_ITEM = 7
COLUMNS = {"item": "item", "rater": "rater", "label": "label"}


def generate(n: int, seed: int = 20240601) -> Path:
    """The CSV of ``n`` set-valued ratings (kept between runs)."""
    path = cache_dir("set-alpha") / f"sets-{n}.csv"
    if path.exists():
        return path
    import pandas as pd

    rng = np.random.default_rng(seed)
    n_items = n // RATERS_PER_ITEM
    item = np.repeat(np.arange(n_items), RATERS_PER_ITEM)
    rater = np.tile(np.arange(RATERS_PER_ITEM), n_items)
    own = np.argsort(rng.random((n_items, N_LABELS)), axis=1)[:, :4]  # each item's labels
    anyone = np.argsort(rng.random((item.size, N_LABELS)), axis=1)[:, :4]
    labels = np.where((rng.random(item.size) < 0.5)[:, None], own[item], anyone)
    size = rng.integers(1, 5, item.size)
    keep = np.arange(4)[None, :] < size[:, None]  # the first `size` labels of each rating
    rows = np.nonzero(keep)
    frame = pd.DataFrame(
        {
            "item": item[rows[0]],
            "rater": rater[rows[0]],
            "label": [f"label{x:02d}" for x in labels[rows]],
        }
    )
    frame.to_csv(path, index=False)
    return path


def floor(args: Any) -> Result:
    """Read the file, make each rating's set a bit mask, and the distance of every pair of
    sets within an item."""
    import pandas as pd

    def run() -> dict[str, float]:
        frame = pd.read_csv(args.path)
        codes, _ = pd.factorize(frame["label"])
        bits = np.left_shift(1, codes.astype(np.int64))
        sets = frame.assign(bits=bits).groupby(["item", "rater"], sort=True)["bits"].sum()
        item = sets.index.get_level_values(0).to_numpy()
        mask = sets.to_numpy()
        starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
        ends = np.r_[starts[1:], item.size]
        left, right = [], []
        for gap in range(1, int((ends - starts).max())):
            at = np.flatnonzero(np.arange(item.size) + gap < np.repeat(ends, ends - starts))
            left.append(mask[at])
            right.append(mask[at + gap])
        a, b = np.concatenate(left), np.concatenate(right)
        inter = np.bitwise_count(a & b).astype(np.float64)
        union = np.bitwise_count(a | b).astype(np.float64)
        return {"pairs": float(a.size), "distinct": float(np.unique(mask).size),
                "mean_jaccard": float(np.mean(1.0 - inter / union))}  # fmt: skip

    out, r = measure(run)
    return r | out


def _alpha(distance: str) -> Any:
    def phase(args: Any) -> Result:
        import accord

        def run() -> float:
            r = accord.read_ratings(args.path, multi_label=True, **COLUMNS)
            return float(accord.krippendorff_alpha(r, distance=distance).statistic)

        out, r = measure(run)
        return r | {"value": out}

    return phase


def _agreement(engine: str) -> Any:
    def phase(args: Any) -> Result:
        import accord

        def run() -> float:
            table = accord.agreement(args.path, multi_label=True, engine=engine, **COLUMNS)
            return float(table.coefficients[0].statistic)

        out, r = measure(run)
        return r | {"value": out}

    return phase


PHASES = {
    "floor": floor,
    "masi": _alpha("masi"),
    "jaccard": _alpha("jaccard"),
    "agreement": _agreement("memory"),
    "agreement-stream": _agreement("stream"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=count, default=10**5)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--phase", choices=list(PHASES), default=None)
    parser.add_argument("--path", type=Path, default=None)
    args = parser.parse_args()
    if args.phase is not None:
        phase_main(PHASES, args.phase, args)
        return
    path = generate(args.ratings)
    results = run_phases(__file__, list(PHASES), ["--path", str(path)], args.repeat)
    fl = results["floor"]
    print(
        f"{args.ratings:,} set-valued ratings, {N_LABELS} labels, sets of 1-4: "
        f"{fl['distinct']:,.0f} distinct sets, {fl['pairs']:,.0f} pairs of sets within items; "
        f"{path}"
    )
    print(f"\n{'phase':<18} {'seconds':>8} {'CPU s':>7} {'peak MB':>8} {'+MB':>7} {'ratio':>7}")
    for name, r in results.items():
        print(
            f"{name:<18} {r['seconds']:>8.2f} {r['cpu_seconds']:>7.2f} {r['peak_rss_mb']:>8.0f} "
            f"{r['extra_mb']:>7.0f} {ratio(r['seconds'], fl['seconds']):>7}"
        )
    print("\nvalues: MASI alpha (masi, agreement, agreement-stream must agree), Jaccard alpha")
    for name in ("masi", "agreement", "agreement-stream", "jaccard"):
        print(f"  {name:<18} {results[name]['value']:.12f}")


if __name__ == "__main__":
    main()
