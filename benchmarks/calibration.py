"""Panel calibration at scale: 100k raters x 1M items x 5M assessments.

Prints the time and peak traced memory of each stage: reading the assessments into codes,
connectivity (components and algebraic connectivity), the solve (conjugate gradients on the
Schur complement on raters), the posterior sds (perturb and solve, 32 draws), and the whole
``calibrate_panel`` call without sds. Targets: solve < 3 s and 1.5 GB; sds < 20 s;
connectivity < 1 s (2 cores). Timings are noisy on a shared machine.

    uv run --no-sync python benchmarks/calibration.py            # full size
    uv run --no-sync python benchmarks/calibration.py --scale 0.1
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

import accord
from accord.calibration import _linalg
from accord.calibration._input import read_panel
from accord.calibration._spec import PanelSpec


def stage(name: str, fn: Callable[[], Any], rows: list[tuple[str, float, float]]) -> Any:
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] - base
    rows.append((name, dt, peak / 2**30))
    print(f"{name:<42} {dt:8.2f} s   peak +{peak / 2**30:6.2f} GiB", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the full size")
    parser.add_argument("--samples", type=int, default=32, help="perturb-and-solve draws")
    args = parser.parse_args()
    n_items = int(1_000_000 * args.scale)
    n_raters = int(100_000 * args.scale)
    print(
        f"accord {accord.__version__}: {n_raters} raters x {n_items} items x "
        f"{5 * n_items} assessments (5 per item), confidences spread 0.5 on the log scale"
    )
    sim = accord.simulate_panel(
        n_items,
        n_raters,
        raters_per_item=5,
        bias_sd=1.0,
        noise_sd=0.5,
        confidence_spread=0.5,
        rng=1,
    )
    frame = sim.assessments[["item", "rater", "score", "confidence"]]
    rows: list[tuple[str, float, float]] = []
    import scipy.sparse.csgraph
    import scipy.sparse.linalg  # noqa: F401  (import time is not solve time)

    tracemalloc.start()
    panel = stage(
        "read and encode (factorize ids, validate)",
        lambda: read_panel(  # batch=True: no check for repeated pairs, as before
            frame,
            PanelSpec(item="item", rater="rater", score="score", confidence="confidence"),
            batch=True,
        ),
        rows,
    )
    ic, rc, c, s = panel.item_codes, panel.rater_codes, panel.confidence, panel.score
    O, A = panel.n_items, panel.n_raters  # noqa: E741

    def build() -> Any:
        system = _linalg.build_system(ic, rc, c, O, A)
        return system, _linalg.right_hand_side(ic, rc, c * s, O, A)

    system, (r_o, r_a) = stage("assemble normal equations (sparse C)", build, rows)
    k, item_comp, rater_comp = stage(
        "connectivity: components (CSR graph of C)",
        lambda: _linalg.components(None, None, O, A, pattern=system.CT),
        rows,
    )
    fiedler = stage(
        "connectivity: algebraic connectivity",
        lambda: _linalg.algebraic_connectivity(system, k),
        rows,
    )
    v, b, it, rel = stage(
        "solve: CG on Schur complement (raters)",
        lambda: _linalg.solve(system, r_o, r_a, method="schur-raters", tol=1e-10, max_iter=5000),
        rows,
    )
    h = _linalg.gauge_weights(system.rater_weight, rater_comp, k, "sum")
    v, b = _linalg.apply_gauge(v, b, h, item_comp, rater_comp, k)
    var_o, _var_b, _, it_s, rel_s = stage(
        f"posterior sds: perturb and solve ({args.samples} draws)",
        lambda: _linalg.sampled_variances(
            system,
            method="schur-raters",
            h=h,
            layout=_linalg.Layout(item_comp, rater_comp, k, ic, rc),
            n_samples=args.samples,
            rng=np.random.default_rng(2),
            tol=1e-6,
            max_iter=5000,
        ),
        rows,
    )
    stage(
        "calibrate_panel end to end (with sds, no eigenvalue)",
        lambda: accord.calibrate_panel(
            frame,
            item="item",
            rater="rater",
            score="score",
            confidence="confidence",
            n_samples=args.samples,
            connectivity=False,
            rng=3,
        ),
        rows,
    )
    result = stage(
        "calibrate_panel end to end (no sds, no eigenvalue)",
        lambda: accord.calibrate_panel(
            frame,
            item="item",
            rater="rater",
            score="score",
            confidence="confidence",
            uncertainty="none",
            connectivity=False,
        ),
        rows,
    )
    tracemalloc.stop()
    err_cal = np.sqrt(
        np.mean(
            (v - sim.values[panel.items.astype(np.int64)] + np.mean(sim.values) - np.mean(v)) ** 2
        )
    )
    plain = result.values["plain_mean"].to_numpy()
    truth = sim.values[result.values["item"].to_numpy(dtype=np.int64)]
    err_avg = np.sqrt(np.mean((plain - plain.mean() - truth + truth.mean()) ** 2))
    z = np.abs(v - sim.values[panel.items.astype(np.int64)]) / np.sqrt(var_o)
    print(
        f"\ncomponents {k}, algebraic connectivity {fiedler:.4f}; CG iterations {it} "
        f"(relative residual {rel:.2e}); sd draws: at most {it_s} iterations, relative "
        f"residual at most {rel_s:.1e}; R/dof {result.residual_per_dof:.4f}"
    )
    print(
        f"RMS error of values: calibrated {err_cal:.4f}, plain mean {err_avg:.4f}; "
        f"95% interval coverage {np.mean(z <= 1.96):.3f}"
    )
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"process peak RSS (includes the simulated data) {peak_rss:.2f} GiB")
    print("targets: solve < 3 s and 1.5 GB; sds < 20 s; connectivity < 1 s (2 cores, unloaded)")


if __name__ == "__main__":
    main()
