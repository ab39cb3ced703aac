"""The library's paths on encoded data, each beside its floor measured in the same run.

10M ratings (1M items x 10 ratings, raters drawn from a pool of 2,000, 5 categories, raters
right 50-95% of the time) and 10M scored units, generated once and cached as ``.npy`` under
the temporary folder. Each phase runs in a fresh process that loads the arrays, so its peak
RSS and the memory it adds (``+MB``: peak above the RSS before the call) are its own:

=======================  =============================================================
path                     floor(s) printed beside it
=======================  =============================================================
``cohen_kappa(a, b)``    ``bincount(x * q + y)`` on the codes; scikit-learn's
on integer labels        ``cohen_kappa_score``
``cohen_kappa(a, b)``    ``pd.factorize`` of both + ``bincount``; scikit-learn (with
on text labels           ``--slow-peers``: 30 s and more)
``Ratings.from_long``    three ``pd.factorize`` of the columns
(integer ids)
``agreement()``          the item x category ``bincount``; ``fleiss_kappa`` alone
``consensus()``          the ``bincount`` and each item's entropy
``calibration_metrics``  its three ``bincount`` (count, correct, confidence per bin);
(``bins=10``)            ``np.sort`` of the confidences (AUROC and equal-mass bins need
                         the units in order); scikit-learn's Brier + log loss + AUROC
=======================  =============================================================

Targets (printed as met or not): two-rater coefficients and ``from_long`` <= 2x their
floors; ``agreement()`` and ``consensus()`` <= 3x the bincount floor.

    uv run --no-sync python benchmarks/paths.py --repeat 3
    uv run --no-sync python benchmarks/paths.py --ratings 1e6 --phases consensus,floor-consensus
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
from _common import Result, cache_dir, count, measure, phase_main, ratio, run_phases, verdict

N_RATERS = 2_000
RATINGS_PER_ITEM = 10
Q = 5


# ------------------------------------------------------------------------------ data


def data_dir(n: int) -> Path:
    return cache_dir(f"paths-{n}")


def generate(folder: Path, n: int, seed: int = 20240601) -> None:
    """Encoded ratings and scored units as .npy files (skipped when already there)."""
    if (folder / "done").exists():
        return
    rng = np.random.default_rng(seed)
    n_items = n // RATINGS_PER_ITEM
    item = np.repeat(np.arange(n_items, dtype=np.int64), RATINGS_PER_ITEM)
    offsets = rng.integers(0, N_RATERS, n_items)
    step = np.arange(RATINGS_PER_ITEM, dtype=np.int64) * (N_RATERS // RATINGS_PER_ITEM)
    rater = ((offsets[:, None] + step[None, :]) % N_RATERS).ravel()
    accuracy = rng.uniform(0.5, 0.95, N_RATERS)
    truth = np.repeat(rng.integers(0, Q, n_items), RATINGS_PER_ITEM)
    wrong = (truth + rng.integers(1, Q, item.size)) % Q
    label = np.where(rng.random(item.size) < accuracy[rater], truth, wrong).astype(np.int64)
    np.save(folder / "item.npy", item)
    np.save(folder / "rater.npy", rater)
    np.save(folder / "label.npy", label)
    # two raters' labels, n of them: the first rater and a noisy copy
    a = rng.integers(0, Q, n)
    b = np.where(rng.random(n) < 0.7, a, rng.integers(0, Q, n))
    np.save(folder / "a.npy", a)
    np.save(folder / "b.npy", b)
    correct = rng.random(n) < 0.65
    confidence = np.where(correct, rng.beta(5, 2, n), rng.beta(2, 3, n))
    confidence = np.clip(np.round(confidence, 6), 1e-6, 1 - 1e-6)
    np.save(folder / "correct.npy", correct)
    np.save(folder / "confidence.npy", confidence)
    (folder / "done").touch()


def load(folder: Path, *names: str) -> list[np.ndarray]:
    return [np.load(folder / f"{name}.npy") for name in names]


def encoded_ratings(folder: Path) -> Any:
    """The ratings as :class:`accord.Ratings` built from their codes (no encoding)."""
    from accord.data.ratings import Ratings, ReadReport

    item, rater, label = load(folder, "item", "rater", "label")
    n_items = int(item.max()) + 1
    report = ReadReport(
        rows=item.size,
        ratings=item.size,
        items=n_items,
        raters=N_RATERS,
        missing=0,
        dropped=0,
        reasons={},
        source=None,
    )
    return Ratings(
        item,
        rater,
        label,
        np.arange(n_items).astype(object),
        np.arange(N_RATERS).astype(object),
        tuple(range(Q)),
        "nominal",
        None,
        report,
    )


def small(ratings: Any) -> np.ndarray:
    """A mask of the first 1,000 ratings (to warm a function up)."""
    mask = np.zeros(ratings.n_ratings, dtype=bool)
    mask[:1000] = True
    return mask


def text(codes: np.ndarray) -> np.ndarray:
    names = np.array([f"category-{k}" for k in range(Q)], dtype=object)
    return names[codes]


# ------------------------------------------------------------------------------ phases


def kappa_int(args: Any) -> Result:
    import accord

    a, b = load(args.dir, "a", "b")
    out, r = measure(
        lambda: accord.cohen_kappa(a, b).statistic,
        lambda: accord.cohen_kappa(a[:1000], b[:1000]),
    )
    return r | {"value": float(out)}


def floor_kappa_int(args: Any) -> Result:
    a, b = load(args.dir, "a", "b")

    def floor() -> float:
        t = np.bincount(a * Q + b, minlength=Q * Q).reshape(Q, Q) / a.size
        p_e = float(t.sum(0) @ t.sum(1))
        return (float(np.trace(t)) - p_e) / (1 - p_e)

    out, r = measure(floor)
    return r | {"value": out}


def sklearn_kappa_int(args: Any) -> Result:
    from sklearn.metrics import cohen_kappa_score

    a, b = load(args.dir, "a", "b")
    out, r = measure(lambda: cohen_kappa_score(a, b))
    return r | {"value": float(out)}


def kappa_text(args: Any) -> Result:
    import accord

    a, b = (text(x) for x in load(args.dir, "a", "b"))
    out, r = measure(
        lambda: accord.cohen_kappa(a, b).statistic,
        lambda: accord.cohen_kappa(a[:1000], b[:1000]),
    )
    return r | {"value": float(out)}


def floor_kappa_text(args: Any) -> Result:
    import pandas as pd

    a, b = (text(x) for x in load(args.dir, "a", "b"))

    def floor() -> float:
        codes, uniques = pd.factorize(np.concatenate([a, b]))
        q = len(uniques)
        x, y = codes[: a.size], codes[a.size :]
        t = np.bincount(x * q + y, minlength=q * q).reshape(q, q) / a.size
        p_e = float(t.sum(0) @ t.sum(1))
        return (float(np.trace(t)) - p_e) / (1 - p_e)

    out, r = measure(floor)
    return r | {"value": out}


def sklearn_kappa_text(args: Any) -> Result:
    from sklearn.metrics import cohen_kappa_score

    a, b = (text(x) for x in load(args.dir, "a", "b"))
    out, r = measure(lambda: cohen_kappa_score(a, b))
    return r | {"value": float(out)}


def long_frame(args: Any) -> Any:
    import pandas as pd

    item, rater, label = load(args.dir, "item", "rater", "label")
    return pd.DataFrame({"item": item, "rater": rater, "label": label})


def from_long(args: Any) -> Result:
    import accord

    frame = long_frame(args)
    out, r = measure(
        lambda: accord.Ratings.from_long(frame, item="item", rater="rater", label="label"),
        lambda: accord.Ratings.from_long(frame[:1000], item="item", rater="rater", label="label"),
    )
    return r | {"value": float(out.n_ratings)}


def floor_from_long(args: Any) -> Result:
    import pandas as pd

    frame = long_frame(args)
    out, r = measure(lambda: [pd.factorize(frame[c]) for c in ("item", "rater", "label")])
    return r | {"value": float(len(out[0][0]))}


def agreement(args: Any) -> Result:
    import accord

    ratings = encoded_ratings(args.dir)
    out, r = measure(
        lambda: accord.agreement(ratings), lambda: accord.agreement(ratings.subset(small(ratings)))
    )
    fleiss = next(c for c in out.coefficients if c.name == "fleiss_kappa")
    return r | {"value": float(fleiss.statistic)}


def fleiss_alone(args: Any) -> Result:
    import accord

    ratings = encoded_ratings(args.dir)
    out, r = measure(
        lambda: accord.fleiss_kappa(ratings).statistic,
        lambda: accord.fleiss_kappa(ratings.subset(small(ratings))),
    )
    return r | {"value": float(out)}


def item_counts(item: np.ndarray, label: np.ndarray) -> np.ndarray:
    n_items = int(item.max()) + 1
    return np.bincount(item * Q + label, minlength=n_items * Q).reshape(n_items, Q)


def floor_agreement(args: Any) -> Result:
    item, label = load(args.dir, "item", "label")
    out, r = measure(lambda: item_counts(item, label))
    return r | {"value": float(out.sum())}


def consensus(args: Any) -> Result:
    import accord

    ratings = encoded_ratings(args.dir)
    out, r = measure(
        lambda: accord.consensus(ratings), lambda: accord.consensus(ratings.subset(small(ratings)))
    )
    return r | {"value": float(out.summary.mean_entropy)}


def floor_consensus(args: Any) -> Result:
    item, label = load(args.dir, "item", "label")

    def floor() -> float:
        counts = item_counts(item, label)
        n = counts.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = counts / n
            h = -np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0).sum(axis=1)
        return float(h.mean())

    out, r = measure(floor)
    return r | {"value": out}


def calibration(args: Any) -> Result:
    import accord

    correct, confidence = load(args.dir, "correct", "confidence")
    out, r = measure(
        lambda: accord.calibration_metrics(correct, confidence, bins=10),
        lambda: accord.calibration_metrics(correct[:1000], confidence[:1000], bins=10),
    )
    return r | {"value": float(out.ece_width)}


def floor_calibration(args: Any) -> Result:
    correct, confidence = load(args.dir, "correct", "confidence")

    def floor() -> float:
        b = np.minimum((confidence * 10).astype(np.int64), 9)
        n = np.bincount(b, minlength=10)
        k = np.bincount(b, weights=correct, minlength=10)
        s = np.bincount(b, weights=confidence, minlength=10)
        return float(np.sum(np.abs(k - s)) / n.sum())

    out, r = measure(floor)
    return r | {"value": out}


def sort_calibration(args: Any) -> Result:
    (confidence,) = load(args.dir, "confidence")
    out, r = measure(lambda: np.sort(confidence))
    return r | {"value": float(out[0])}


def sklearn_calibration(args: Any) -> Result:
    from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

    correct, confidence = load(args.dir, "correct", "confidence")
    out, r = measure(
        lambda: (
            brier_score_loss(correct, confidence),
            log_loss(correct, confidence),
            roc_auc_score(correct, confidence),
        )
    )
    return r | {"value": float(out[2])}


PHASES = {
    "kappa-int": kappa_int,
    "floor-kappa-int": floor_kappa_int,
    "sklearn-kappa-int": sklearn_kappa_int,
    "kappa-text": kappa_text,
    "floor-kappa-text": floor_kappa_text,
    "sklearn-kappa-text": sklearn_kappa_text,
    "from-long": from_long,
    "floor-from-long": floor_from_long,
    "agreement": agreement,
    "fleiss-alone": fleiss_alone,
    "floor-agreement": floor_agreement,
    "consensus": consensus,
    "floor-consensus": floor_consensus,
    "calibration": calibration,
    "floor-calibration": floor_calibration,
    "sort-calibration": sort_calibration,
    "sklearn-calibration": sklearn_calibration,
}

#: Each path, its floors (the first is the one the target is set against) and its target.
REPORT: list[tuple[str, list[str], float | None]] = [
    ("kappa-int", ["floor-kappa-int", "sklearn-kappa-int"], 2.0),
    ("kappa-text", ["floor-kappa-text", "sklearn-kappa-text"], 2.0),
    ("from-long", ["floor-from-long"], 2.0),
    ("agreement", ["floor-agreement", "fleiss-alone"], 3.0),
    ("consensus", ["floor-consensus"], 3.0),
    ("calibration", ["floor-calibration", "sort-calibration", "sklearn-calibration"], None),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=count, default=10**7)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--phases", default=None, help="comma-separated (default: all)")
    parser.add_argument(
        "--slow-peers", action="store_true", help="also time scikit-learn on text labels"
    )
    parser.add_argument("--phase", choices=list(PHASES), default=None)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    if args.phase is not None:
        phase_main(PHASES, args.phase, args)
        return
    folder = data_dir(args.ratings)
    generate(folder, args.ratings)
    if args.phases:
        wanted = [p.strip() for p in args.phases.split(",") if p.strip()]
    else:
        wanted = [p for p in PHASES if args.slow_peers or p != "sklearn-kappa-text"]
    encoded_mb = 3 * 8 * args.ratings / 2**20
    print(
        f"{args.ratings:,} ratings ({args.ratings // RATINGS_PER_ITEM:,} items, {N_RATERS} "
        f"raters, {Q} categories; encoded as three int64 columns: {encoded_mb:.0f} MB) and "
        f"{args.ratings:,} scored units; data in {folder}"
    )
    results = run_phases(__file__, wanted, ["--dir", str(folder)], args.repeat)
    print(
        f"\n{'path':<20} {'seconds':>8} {'CPU s':>7} {'+MB':>7}  "
        f"{'floor':<20} {'seconds':>8} {'+MB':>7} {'ratio':>7} {'CPU ratio':>9}  target"
    )
    for path, floors, target in REPORT:
        if path not in results:
            continue
        r = results[path]
        first = True
        for f in floors:
            if f not in results:
                continue
            fl = results[f]
            head = (
                f"{path:<20} {r['seconds']:>8.2f} {r['cpu_seconds']:>7.2f} {r['extra_mb']:>7.0f}"
                if first
                else " " * 45
            )
            mark = verdict(r["seconds"], fl["seconds"], target) if first else ""
            print(
                f"{head}  {f:<20} {fl['seconds']:>8.2f} {fl['extra_mb']:>7.0f} "
                f"{ratio(r['seconds'], fl['seconds']):>7} "
                f"{ratio(r['cpu_seconds'], fl['cpu_seconds']):>9}  {mark}"
            )
            first = False
        if first:
            print(f"{path:<20} {r['seconds']:>8.2f} {r['cpu_seconds']:>7.2f} {r['extra_mb']:>7.0f}")
    if "consensus" in results:
        extra = results["consensus"]["extra_mb"]
        print(
            f"\nconsensus memory: +{extra:.0f} MB over the encoded table's {encoded_mb:.0f} MB "
            f"({extra / encoded_mb:.2f}x); the result's per-rating table alone holds p, surprisal "
            f"and deviation as float64, as many bytes as the encoded table"
        )
    print("\nvalues (path and floor must agree):")
    for name, r in results.items():
        value = r.get("value", math.nan)
        print(f"  {name:<22} {value:.6f}")


if __name__ == "__main__":
    sys.exit(main())
