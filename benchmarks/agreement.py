"""accord vs peer libraries on generated ratings: time, peak memory, ratios.

Run with ``uv run --no-sync python benchmarks/agreement.py [--sizes 100000,1000000]``.

Data: items x raters x categories with ~20% missing ratings (items with < 2 ratings kept),
and continuous scores (100k items x 3 raters, distinct reals) for interval alpha. Peers:
``krippendorff`` (alpha), ``statsmodels`` (Fleiss' kappa, complete items: it has no missing
ratings), NLTK ``AnnotationTask`` (alpha, on the smallest size only: it is pure Python),
and irrCAC's Python port ``irrcac`` (run in a throwaway venv under /tmp, since it pins
scipy==1.12; skipped with a note when that venv cannot be made). The floor is one bare
``np.bincount`` pass over the encoded ratings. Timings are wall clock of one run; on a shared
machine they are noisy.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import accord

Row = dict[str, Any]


def measure(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Seconds and peak traced memory (MB) of one call."""
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    secs = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return secs, peak / 2**20, out


def make_wide(n: int, r: int, q: int, missing: float, seed: int = 0) -> np.ndarray:
    """Items x raters float codes (NaN missing) with item-level signal."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, q, size=n)
    noise = rng.integers(0, q, size=(n, r))
    wide = np.where(rng.random((n, r)) < 0.6, truth[:, None], noise).astype(float)
    wide[rng.random((n, r)) < missing] = np.nan
    return wide


def ratings_from_wide(wide: np.ndarray, level: str = "nominal") -> accord.Ratings:
    n, r = wide.shape
    items = np.repeat(np.arange(n), r)
    raters = np.tile(np.arange(r), n)
    labels = wide.ravel()
    keep = ~np.isnan(labels)
    return accord.Ratings.from_arrays(items[keep], raters[keep], labels[keep], level=level)  # type: ignore[arg-type]


def accord_all(r: accord.Ratings) -> Any:
    """Every coefficient with its analytic SE (Light's kappa without bootstrap)."""
    return accord.agreement(r)


def run_irrcac(wide: np.ndarray) -> tuple[float, float] | str:
    """irrCAC's Python port in a throwaway venv (it pins scipy==1.12)."""
    venv = Path(tempfile.gettempdir()) / "accord-bench-irrcac"
    py = venv / "bin" / "python"
    try:
        if not py.exists():
            subprocess.run(["uv", "venv", "-q", str(venv)], check=True, timeout=300)
            subprocess.run(
                ["uv", "pip", "install", "-q", "--python", str(py), "irrcac", "pandas"],
                check=True,
                timeout=600,
            )
        data = venv / "wide.npy"
        np.save(data, wide)
        code = (
            "import time, numpy as np, pandas as pd, tracemalloc\n"
            "from irrCAC.raw import CAC\n"
            f"w = np.load({str(data)!r}); df = pd.DataFrame(w)\n"
            "tracemalloc.start(); t = time.perf_counter()\n"
            "c = CAC(df); c.fleiss(); c.gwet(); c.krippendorff(); c.bp(); c.conger()\n"
            "print(time.perf_counter() - t, tracemalloc.get_traced_memory()[1] / 2**20)\n"
        )
        out = subprocess.run(
            [str(py), "-c", code], check=True, timeout=1800, capture_output=True, text=True
        )
        secs, mb = map(float, out.stdout.split()[-2:])
        return secs, mb
    except (subprocess.SubprocessError, OSError, ValueError) as exc:
        return f"irrcac skipped: {type(exc).__name__}: {str(exc)[:120]}"


def bench_categorical(n: int, r: int, q: int, with_slow_peers: bool) -> list[Row]:
    wide = make_wide(n, r, q, missing=0.2)
    rows: list[Row] = []
    secs, mb, ratings = measure(lambda: ratings_from_wide(wide))
    rows.append({"task": "encode (Ratings.from_arrays)", "lib": "accord", "s": secs, "MB": mb})
    secs, mb, _ = measure(
        lambda: np.bincount(ratings.item_codes * q + ratings.label_codes, minlength=n * q)
    )
    rows.append({"task": "floor: one np.bincount", "lib": "numpy", "s": secs, "MB": mb})
    secs, mb, _ = measure(lambda: accord_all(ratings))
    rows.append({"task": "all coefficients + SE", "lib": "accord", "s": secs, "MB": mb})
    for name, fn in [
        ("fleiss_kappa", accord.fleiss_kappa),
        ("gwet_ac1", accord.gwet_ac1),
        ("conger_kappa", accord.conger_kappa),
        ("krippendorff_alpha", accord.krippendorff_alpha),
    ]:
        secs, mb, _ = measure(lambda fn=fn: fn(ratings))  # type: ignore[misc]
        rows.append({"task": name, "lib": "accord", "s": secs, "MB": mb})

    import krippendorff

    secs, mb, theirs = measure(
        lambda: krippendorff.alpha(reliability_data=wide.T, level_of_measurement="nominal")
    )
    rows.append({"task": "krippendorff_alpha", "lib": "krippendorff", "s": secs, "MB": mb})
    ours = accord.krippendorff_alpha(ratings).statistic
    assert abs(ours - theirs) < 1e-9, (ours, theirs)

    from statsmodels.stats import inter_rater

    complete = wide[~np.isnan(wide).any(axis=1)].astype(int)
    secs, mb, sm = measure(
        lambda: inter_rater.fleiss_kappa(inter_rater.aggregate_raters(complete)[0])
    )
    rows.append(
        {"task": "fleiss_kappa (complete items)", "lib": "statsmodels", "s": secs, "MB": mb}
    )
    cr = ratings_from_wide(complete.astype(float))
    secs, mb, ac = measure(lambda: accord.fleiss_kappa(cr))
    rows.append({"task": "fleiss_kappa (complete items)", "lib": "accord", "s": secs, "MB": mb})
    assert abs(ac.statistic - sm) < 1e-9

    if with_slow_peers:
        # Pure-Python peers on a 2,000-item slice, accord on the same slice for the ratio.
        from nltk.metrics.agreement import AnnotationTask

        part = wide[:2000]
        pr = ratings_from_wide(part)
        secs, mb, _ = measure(lambda: accord.krippendorff_alpha(pr))
        rows.append({"task": "alpha, 2k-item slice", "lib": "accord", "s": secs, "MB": mb})
        triples = [(str(j), str(i), int(v)) for (i, j), v in np.ndenumerate(part) if v == v]
        secs, mb, _ = measure(lambda: AnnotationTask(data=triples).alpha())
        rows.append({"task": "alpha, 2k-item slice", "lib": "nltk", "s": secs, "MB": mb})
        secs, mb, _ = measure(
            lambda: [
                f(pr)
                for f in (
                    accord.fleiss_kappa,
                    accord.gwet_ac1,
                    accord.krippendorff_alpha,
                    accord.brennan_prediger,
                    accord.conger_kappa,
                )
            ]
        )
        rows.append({"task": "5 coefs + SE, 2k slice", "lib": "accord", "s": secs, "MB": mb})
        got = run_irrcac(part)
        if isinstance(got, str):
            print(f"  note: {got}")
        else:
            rows.append(
                {"task": "5 coefs + SE, 2k slice", "lib": "irrcac", "s": got[0], "MB": got[1]}
            )
    return rows


def bench_continuous(n: int) -> list[Row]:
    rng = np.random.default_rng(1)
    wide = rng.normal(size=(n, 1)) + rng.normal(scale=0.5, size=(n, 3))
    rows: list[Row] = []
    secs, mb, r = measure(lambda: ratings_from_wide(wide, level="interval"))
    rows.append({"task": "encode interval scores", "lib": "accord", "s": secs, "MB": mb})
    secs, mb, _ = measure(lambda: accord.krippendorff_alpha(r, level="interval"))
    rows.append({"task": "interval alpha + SE", "lib": "accord", "s": secs, "MB": mb})
    small = wide[:200]  # the peer builds items x V x V: 400 items already take ~13 GB
    import krippendorff

    secs, mb, _ = measure(
        lambda: krippendorff.alpha(reliability_data=small.T, level_of_measurement="interval")
    )
    rows.append({"task": "interval alpha, 200 items", "lib": "krippendorff", "s": secs, "MB": mb})
    return rows


def show(title: str, rows: list[Row]) -> None:
    print(f"\n== {title}")
    acc = {r["task"]: r for r in rows if r["lib"] == "accord"}
    for r in rows:
        ratio = ""
        mine = acc.get(r["task"])
        if r["lib"] != "accord" and mine is not None and mine["s"] > 0:
            ratio = f"  peer/accord = {r['s'] / mine['s']:.1f}x"
        print(f"  {r['task']:<34} {r['lib']:<13} {r['s']:9.3f} s {r['MB']:9.1f} MB{ratio}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--sizes", default="100000,1000000")
    p.add_argument("--raters", type=int, default=10)
    p.add_argument("--categories", type=int, default=5)
    p.add_argument("--continuous", type=int, default=100_000)
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    for i, n in enumerate(sizes):
        rows = bench_categorical(n, args.raters, args.categories, with_slow_peers=i == 0)
        show(f"{n} items x {args.raters} raters x {args.categories} categories, 20% missing", rows)
    show(
        f"continuous scores: {args.continuous} items x 3 raters", bench_continuous(args.continuous)
    )
    print("\nTimes are one wall-clock run (noisy on a shared machine); MB is tracemalloc peak.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
