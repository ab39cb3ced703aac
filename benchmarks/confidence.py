"""Benchmark: confidence calibration on 10 million scored units, accord vs scikit-learn.

Run with ``uv run --no-sync python benchmarks/confidence.py [n_units]``. Prints, for each
task, the time and peak traced memory of accord and of the scikit-learn calls that compute
the same numbers (``brier_score_loss``, ``log_loss``, ``roc_auc_score``), their values side
by side and the time ratio. NCE and ECE have no scikit-learn counterpart; they are timed alone
(target: the whole of accord's work under 3 s on 10M units). The floor, in the same run: the
sort AUROC needs (``np.sort`` of the confidences) and the ECE's three ``bincount`` passes over
10 equal-width bins; ``calibration_metrics`` is printed as a multiple of it.
"""

from __future__ import annotations

import argparse
import gc
import math
import time
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from _common import count

import accord


def _run(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, float, Any]:
    """Best wall time of ``repeat`` runs (s), peak traced memory of one run (MB), result."""
    best = math.inf
    result = None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    gc.collect()
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return best, peak / 2**20, result


def main(n: int = 10_000_000) -> None:
    from sklearn import metrics

    rng = np.random.default_rng(20240601)
    correct = rng.random(n) < 0.65
    # discriminating, imperfectly calibrated confidences, rounded to 6 decimals like a CTM
    confidence = np.where(correct, rng.beta(5, 2, n), rng.beta(2, 3, n))
    confidence = np.clip(np.round(confidence, 6), 1e-6, 1 - 1e-6)
    groups = rng.integers(0, 100, n)
    print(f"{n:,} scored units, {int(correct.sum()):,} correct; 100 groups; best of 3 runs\n")

    rows: list[tuple[str, float, float, str]] = []

    t_nce, m_nce, nce = _run(lambda: accord.normalized_cross_entropy(correct, confidence))
    rows.append(("accord normalized_cross_entropy (pooled)", t_nce, m_nce, f"{nce.statistic:.6f}"))
    t_nce_g, m_nce_g, nce_g = _run(
        lambda: accord.normalized_cross_entropy(correct, confidence, groups=groups)
    )
    rows.append(
        ("accord normalized_cross_entropy (100 groups)", t_nce_g, m_nce_g, f"{nce_g.mean:.6f}")
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_cal, m_cal, cal = _run(lambda: accord.calibration_metrics(correct, confidence))
    rows.append(
        (
            "accord calibration_metrics (Brier, log loss, AUROC, ECE/MCE x2)",
            t_cal,
            m_cal,
            f"AUROC {cal.auroc:.6f}",
        )
    )
    t_rel, m_rel, rel = _run(lambda: accord.reliability_diagram(correct, confidence))
    rows.append(("accord reliability_diagram (10 width bins)", t_rel, m_rel, f"ECE {rel.ece:.6f}"))

    def ece_floor() -> Any:
        bins = np.minimum((confidence * 10).astype(np.intp), 9)
        return [np.bincount(bins, weights=w, minlength=10) for w in (None, confidence, correct)]

    t_sort, m_sort, _ = _run(lambda: np.sort(confidence))
    rows.append(("floor: np.sort of the confidences (AUROC's sort)", t_sort, m_sort, ""))
    t_ece, m_ece, _ = _run(ece_floor)
    rows.append(("floor: the ECE's three bincounts", t_ece, m_ece, ""))

    t_b, m_b, brier = _run(lambda: metrics.brier_score_loss(correct, confidence))
    rows.append(("sklearn brier_score_loss", t_b, m_b, f"{brier:.9f}"))
    t_l, m_l, logloss = _run(lambda: metrics.log_loss(correct, confidence))
    rows.append(("sklearn log_loss", t_l, m_l, f"{logloss:.9f}"))
    t_a, m_a, auc = _run(lambda: metrics.roc_auc_score(correct, confidence))
    rows.append(("sklearn roc_auc_score", t_a, m_a, f"{auc:.9f}"))

    width = max(len(r[0]) for r in rows)
    print(f"{'task':<{width}}  {'time (s)':>9}  {'peak MB':>8}  value")
    for name, seconds, mb, value in rows:
        print(f"{name:<{width}}  {seconds:9.3f}  {mb:8.0f}  {value}")

    sk_total = t_b + t_l + t_a
    print("\nSame numbers, side by side (accord vs scikit-learn):")
    print(f"  Brier    {cal.brier_score:.12f}  {brier:.12f}")
    print(f"  log loss {cal.log_loss_nats:.12f}  {logloss:.12f}  (nats)")
    print(f"  AUROC    {cal.auroc:.12f}  {auc:.12f}")
    print("\nRatios (scikit-learn time / accord time; > 1 means accord is faster):")
    print(
        f"  calibration_metrics (Brier + log loss + AUROC + 4 binned errors) vs the three "
        f"sklearn calls: {sk_total:.3f} s / {t_cal:.3f} s = {sk_total / t_cal:.2f}x"
    )
    print(f"  roc_auc_score alone vs calibration_metrics: {t_a / t_cal:.2f}x")
    floor = t_sort + t_ece
    print(
        f"\ncalibration_metrics beside its floor (one sort + the ECE's bincounts, "
        f"{floor:.3f} s): {t_cal / floor:.2f}x (x the ECE's bincounts alone: {t_cal / t_ece:.1f})"
    )
    total = t_nce_g + t_cal + t_rel
    print(
        f"\naccord total (NCE with groups + calibration metrics + reliability diagram): "
        f"{total:.3f} s (target < 3 s)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n_units", nargs="?", type=count, default=10_000_000)
    main(parser.parse_args().n_units)
