"""Make the numbers and the figure of docs/panel-calibration.md with accord.simulate_panel.

    uv run --no-sync python docs/panel_calibration_figure.py

Prints a Markdown table of RMS errors (against the simulated truth) and writes
docs/panel-calibration.svg. Everything is seeded, so the output is reproducible.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import accord

REPEATS = 20


def rms(estimate: np.ndarray, truth: np.ndarray) -> float:
    """RMS error after centring both (values are defined up to one constant)."""
    return float(np.sqrt(np.mean((estimate - estimate.mean() - truth + truth.mean()) ** 2)))


def scenario(design: dict[str, object], methods: dict[str, dict[str, object]]) -> dict[str, float]:
    errors: dict[str, list[float]] = {"plain mean": []}
    errors.update({name: [] for name in methods})
    fiedler = []
    for seed in range(REPEATS):
        sim = accord.simulate_panel(rng=seed, **design)  # type: ignore[arg-type]
        truth = sim.values
        for name, options in methods.items():
            fit = accord.calibrate_panel(
                sim.assessments,
                item="item",
                rater="rater",
                score="score",
                uncertainty="none",
                **options,  # type: ignore[arg-type]
            )
            items = fit.values["item"].to_numpy(dtype=np.int64)
            errors[name].append(rms(fit.values["value"].to_numpy(), truth[items]))
        errors["plain mean"].append(rms(fit.values["plain_mean"].to_numpy(), truth[items]))
        fiedler.append(fit.algebraic_connectivity)
    out = {name: float(np.mean(v)) for name, v in errors.items()}
    out["algebraic connectivity"] = float(np.mean(fiedler))
    return out


def main() -> None:
    common = dict(value_sd=1.0, bias_sd=1.0, noise_sd=0.5)
    random_design = dict(
        n_items=200, n_raters=40, raters_per_item=3, confidence_spread=0.7, **common
    )
    weak_design = dict(
        n_items=200,
        n_raters=40,
        raters_per_item=3,
        n_groups=8,
        bridges=7,
        confidence_spread=0.7,
        **common,
    )
    methods = {
        "equal confidences": {},
        "with confidences": {"confidence": "confidence"},
        "H/M/L levels": {"levels": "level"},
    }
    weak_methods = {
        "with confidences": {"confidence": "confidence"},
        "with confidences + bias prior (tau = 1)": {"confidence": "confidence", "bias_prior": 1.0},
    }
    results = {
        "random design (3 raters per item)": scenario(random_design, methods),
        "weakly connected (8 groups, 7 bridges)": scenario(weak_design, weak_methods),
    }
    print(f"mean over {REPEATS} seeds of the RMS error of item values (truth sd 1)\n")
    print("| design | method | RMS error |")
    print("|---|---|---|")
    for design, row in results.items():
        for method, value in row.items():
            if method != "algebraic connectivity":
                print(f"| {design} | {method} | {value:.3f} |")
    for design, row in results.items():
        print(f"\n{design}: mean algebraic connectivity {row['algebraic connectivity']:.2g}")

    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: a small file
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(8, 3), sharey=True)
    for ax, (design, row) in zip(axes, results.items(), strict=True):
        names = [n for n in row if n != "algebraic connectivity"]
        ax.barh(names[::-1], [row[n] for n in names[::-1]], color="#4c72b0")
        ax.set_title(
            f"{design}\nalgebraic connectivity {row['algebraic connectivity']:.2g}", fontsize=9
        )
        ax.set_xlabel("RMS error of item values")
        ax.tick_params(labelsize=8)
    fig.tight_layout()
    out = Path(__file__).with_name("panel-calibration.svg")
    fig.savefig(out, metadata={"Date": None})
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
