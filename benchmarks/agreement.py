"""accord vs peer libraries on generated ratings: time, peak memory, ratios.

Run with ``uv run --no-sync python benchmarks/agreement.py [--sizes 100000,1000000]``.

Data: items x raters x categories with ~20% missing ratings (items with < 2 ratings kept),
and continuous scores (100k items x 3 raters, distinct reals) for interval alpha. accord runs
``agreement()`` (every coefficient with its analytic SE, one shared set of statistics) and each
coefficient on its own. Peers: ``krippendorff`` (alpha) and ``statsmodels`` (Fleiss' kappa,
complete items: it has no missing ratings) on the full data; on a 2,000-item slice, since
they are pure Python, NLTK ``AnnotationTask`` (alpha; ``kappa()``, the mean of Cohen's kappa
over coder pairs, is Light's kappa: complete items of the slice) and irrCAC's Python port
``irrcac`` (run in a throwaway venv under /tmp, since it pins scipy==1.12; skipped with a
note when that venv cannot be made). Each ratio is peer time / accord time on the same data;
per coefficient the smallest ratio (the fastest peer) is printed. The floor is one bare
``np.bincount`` pass over the encoded ratings. Timings are wall clock of one run (best of 3
on the slices); on a shared machine they are noisy.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
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


def measure(fn: Callable[[], Any], repeat: int = 1) -> tuple[float, float, Any]:
    """Seconds (best of ``repeat`` runs) and peak traced memory (MB) of a call."""
    best, peak_mb, out = math.inf, 0.0, None
    for _ in range(repeat):
        tracemalloc.start()
        t0 = time.perf_counter()
        out = fn()
        secs = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        best, peak_mb = min(best, secs), max(peak_mb, peak / 2**20)
    return best, peak_mb, out


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
    """Every coefficient with its analytic SE (Light's kappa has none: NaN with a reason)."""
    return accord.agreement(r)


#: accord's function -> the irrCAC ``CAC`` method computing the same coefficient.
IRRCAC = {
    "fleiss_kappa": "fleiss",
    "gwet_ac1": "gwet",
    "krippendorff_alpha": "krippendorff",
    "brennan_prediger": "bp",
    "conger_kappa": "conger",
}


def run_irrcac(wide: np.ndarray, repeat: int) -> dict[str, tuple[float, float]] | str:
    """irrCAC's Python port in a throwaway venv (it pins scipy==1.12): seconds (best of
    ``repeat``) and peak MB of ``CAC(frame).<method>()`` per coefficient."""
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
            "import json, time, numpy as np, pandas as pd, tracemalloc\n"
            "from irrCAC.raw import CAC\n"
            f"w = np.load({str(data)!r}); df = pd.DataFrame(w); out = {{}}\n"
            f"for name, method in {IRRCAC!r}.items():\n"
            "    best = peak = 0.0\n"
            f"    for _ in range({repeat}):\n"
            "        tracemalloc.start(); t = time.perf_counter()\n"
            "        getattr(CAC(df), method)()\n"
            "        secs = time.perf_counter() - t\n"
            "        peak = max(peak, tracemalloc.get_traced_memory()[1] / 2**20)\n"
            "        tracemalloc.stop(); best = secs if not best else min(best, secs)\n"
            "    out[name] = [best, peak]\n"
            "print(json.dumps(out))\n"
        )
        out = subprocess.run(
            [str(py), "-c", code], check=True, timeout=1800, capture_output=True, text=True
        )
        got = json.loads(out.stdout.strip().splitlines()[-1])
        return {k: (float(v[0]), float(v[1])) for k, v in got.items()}
    except (subprocess.SubprocessError, OSError, ValueError) as exc:
        return f"irrcac skipped: {type(exc).__name__}: {str(exc)[:120]}"


#: The coefficients of ``agreement()`` on nominal ratings, each computed on its own.
COEFS: dict[str, Callable[[accord.Ratings], Any]] = {
    "percent_agreement": accord.percent_agreement,
    "fleiss_kappa": accord.fleiss_kappa,
    "conger_kappa": accord.conger_kappa,
    "light_kappa": lambda r: accord.light_kappa(r, ci="analytic"),
    "brennan_prediger": accord.brennan_prediger,
    "gwet_ac1": accord.gwet_ac1,
    "krippendorff_alpha": accord.krippendorff_alpha,
}

#: Best of this many runs for the small slices (single runs of a few ms are mostly noise).
SLICE_REPEAT = 3


def bench_categorical(n: int, r: int, q: int) -> tuple[list[Row], list[Row]]:
    """Rows of the side-by-side table, and one row per coefficient: accord's time on the full
    data and its ratio to each peer (on the data that peer was run on)."""
    wide = make_wide(n, r, q, missing=0.2)
    rows: list[Row] = []
    secs, mb, ratings = measure(lambda: ratings_from_wide(wide))
    rows.append({"task": "encode (Ratings.from_arrays)", "lib": "accord", "s": secs, "MB": mb})
    encode_s = secs
    secs, mb, _ = measure(
        lambda: np.bincount(ratings.item_codes * q + ratings.label_codes, minlength=n * q)
    )
    rows.append({"task": "floor: one np.bincount", "lib": "numpy", "s": secs, "MB": mb})
    secs, mb, table = measure(lambda: accord_all(ratings))
    rows.append({"task": "all coefficients + SE", "lib": "accord", "s": secs, "MB": mb})
    rows.append(
        {"task": "encode + all coefficients", "lib": "accord", "s": secs + encode_s, "MB": math.nan}
    )
    assert {c.name for c in table.coefficients} == set(COEFS)
    full: dict[str, float] = {}
    for name, fn in COEFS.items():
        secs, mb, _ = measure(lambda fn=fn: fn(ratings))
        rows.append({"task": name, "lib": "accord", "s": secs, "MB": mb})
        full[name] = secs
    ratios: dict[str, list[tuple[str, float]]] = {name: [] for name in COEFS}

    import krippendorff

    secs, mb, theirs = measure(
        lambda: krippendorff.alpha(reliability_data=wide.T, level_of_measurement="nominal")
    )
    rows.append({"task": "krippendorff_alpha", "lib": "krippendorff", "s": secs, "MB": mb})
    ours = accord.krippendorff_alpha(ratings).statistic
    assert abs(ours - theirs) < 1e-9, (ours, theirs)
    ratios["krippendorff_alpha"].append(
        (f"krippendorff, {n} items", secs / full["krippendorff_alpha"])
    )

    from statsmodels.stats import inter_rater

    complete = wide[~np.isnan(wide).any(axis=1)].astype(int)
    secs, mb, sm = measure(
        lambda: inter_rater.fleiss_kappa(inter_rater.aggregate_raters(complete)[0])
    )
    rows.append(
        {"task": "fleiss_kappa (complete items)", "lib": "statsmodels", "s": secs, "MB": mb}
    )
    cr = ratings_from_wide(complete.astype(float))
    mine, mb, ac = measure(lambda: accord.fleiss_kappa(cr))
    rows.append({"task": "fleiss_kappa (complete items)", "lib": "accord", "s": mine, "MB": mb})
    assert abs(ac.statistic - sm) < 1e-9
    ratios["fleiss_kappa"].append((f"statsmodels, {len(complete)} complete items", secs / mine))

    # Pure-Python peers on a 2,000-item slice, accord on the same slice for the ratio.
    from nltk.metrics.agreement import AnnotationTask

    part = wide[:2000]
    pr = ratings_from_wide(part)
    slice_s: dict[str, float] = {}
    for name, fn in COEFS.items():
        slice_s[name], _, _ = measure(lambda fn=fn: fn(pr), SLICE_REPEAT)
    rows.append(
        {
            "task": "alpha, 2k-item slice",
            "lib": "accord",
            "s": slice_s["krippendorff_alpha"],
            "MB": math.nan,
        }
    )
    triples = [(str(j), str(i), int(v)) for (i, j), v in np.ndenumerate(part) if v == v]
    secs, mb, _ = measure(lambda: AnnotationTask(data=triples).alpha(), SLICE_REPEAT)
    rows.append({"task": "alpha, 2k-item slice", "lib": "nltk", "s": secs, "MB": mb})
    ratios["krippendorff_alpha"].append(
        ("nltk, 2k-item slice", secs / slice_s["krippendorff_alpha"])
    )
    # NLTK's kappa() averages Cohen's kappa over coder pairs: Light's kappa (complete items).
    cpart = part[~np.isnan(part).any(axis=1)]
    cpr = ratings_from_wide(cpart)
    light_s, _, lk = measure(lambda: COEFS["light_kappa"](cpr), SLICE_REPEAT)
    rows.append(
        {
            "task": "light_kappa, complete items of slice",
            "lib": "accord",
            "s": light_s,
            "MB": math.nan,
        }
    )
    ctriples = [(str(j), str(i), int(v)) for (i, j), v in np.ndenumerate(cpart)]
    secs, mb, nk = measure(lambda: AnnotationTask(data=ctriples).kappa(), SLICE_REPEAT)
    rows.append(
        {"task": "light_kappa, complete items of slice", "lib": "nltk", "s": secs, "MB": mb}
    )
    assert abs(lk.statistic - nk) < 1e-9, (lk.statistic, nk)
    ratios["light_kappa"].append((f"nltk, {len(cpart)} complete items of slice", secs / light_s))
    got = run_irrcac(part, SLICE_REPEAT)
    if isinstance(got, str):
        print(f"  note: {got}")
    else:
        for name, (secs, mb) in got.items():
            rows.append({"task": f"{name}, 2k slice", "lib": "irrcac", "s": secs, "MB": mb})
            rows.append(
                {"task": f"{name}, 2k slice", "lib": "accord", "s": slice_s[name], "MB": math.nan}
            )
            ratios[name].append(("irrcac, 2k-item slice", secs / slice_s[name]))
    summary = []
    for name in COEFS:
        peers = ratios[name]
        fastest = min(peers, key=lambda x: x[1]) if peers else None
        summary.append(
            {
                "coefficient": name,
                "accord_s": full[name],
                "peers": peers,
                "fastest": fastest,
            }
        )
    return rows, summary


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
        mb = "" if math.isnan(r["MB"]) else f"{r['MB']:9.1f} MB"
        print(f"  {r['task']:<38} {r['lib']:<13} {r['s']:9.4f} s {mb:>12}{ratio}")


def show_ratios(summary: list[Row]) -> None:
    print("  -- per coefficient: accord alone (with analytic SE) and peer/accord on the same data")
    for row in summary:
        peers = "; ".join(f"{who} {x:.1f}x" for who, x in row["peers"]) or "no peer computes it"
        least = f"min {row['fastest'][1]:.1f}x" if row["fastest"] else "-"
        print(f"  {row['coefficient']:<20} {row['accord_s']:8.4f} s  {least:<10} ({peers})")


def bench_floor(n: int, r: int, q: int) -> list[Row]:
    """``agreement()`` (all coefficients, all but Light's kappa, Fleiss alone) beside its
    floor, one ``np.bincount`` of the encoded ratings, best of 3 each in the same run."""
    ratings = ratings_from_wide(make_wide(n, r, q, missing=0.2))
    floor, _, _ = measure(
        lambda: np.bincount(ratings.item_codes * q + ratings.label_codes, minlength=n * q), 3
    )
    rows: list[Row] = [{"task": "floor: one np.bincount", "lib": "numpy", "s": floor, "MB": 0.0}]
    no_light = [c for c in COEFS if c != "light_kappa"]
    runs: list[tuple[str, Callable[[], Any]]] = [
        ("agreement(): every coefficient", lambda: accord.agreement(ratings)),
        ("agreement(): all but Light's kappa",
         lambda: accord.agreement(ratings, coefficients=no_light)),
        ("agreement(coefficients=[fleiss_kappa])",
         lambda: accord.agreement(ratings, coefficients=["fleiss_kappa"])),
        ("fleiss_kappa alone", lambda: accord.fleiss_kappa(ratings)),
    ]  # fmt: skip
    for task, fn in runs:
        secs, mb, _ = measure(fn, 3)
        rows.append({"task": task, "lib": "accord", "s": secs, "MB": mb, "floor": secs / floor})
    return rows


def bench_many_categories(n: int = 5000, r: int = 3, q: int = 7700) -> list[Row]:
    """Thousands of categories, few per item: ``agreement()`` time and traced peak memory
    beside a single q x q float array (what a dense unweighted path would allocate per
    rater pair, and more). A first call on 400 items (over 256 categories: the sparse
    route) imports scipy.sparse beforehand."""
    ratings = ratings_from_wide(make_wide(n, r, q, missing=0.0))
    accord.agreement(ratings_from_wide(make_wide(400, r, q, missing=0.0)))  # imports scipy.sparse
    secs, mb, _ = measure(lambda: accord.agreement(ratings))
    qq_mb = ratings.n_categories**2 * 8 / 2**20
    return [
        {"task": f"agreement(), {ratings.n_categories} categories", "lib": "accord", "s": secs,
         "MB": mb},
        {"task": "one q x q float64 array (not made)", "lib": "-", "s": math.nan, "MB": qq_mb},
    ]  # fmt: skip


def show_floor(title: str, rows: list[Row]) -> None:
    show(title, rows)
    for row in rows:
        if "floor" in row:
            print(f"  {row['task']:<42} {row['floor']:5.1f}x the bincount floor")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--sizes", default="100000,1000000")
    p.add_argument("--raters", type=int, default=10)
    p.add_argument("--categories", type=int, default=5)
    p.add_argument("--continuous", type=int, default=100_000)
    p.add_argument(
        "--floor-only",
        action="store_true",
        help="only agreement() beside its bincount floor, and the many-categories case",
    )
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    for n in sizes:
        show_floor(
            f"agreement() vs floor: {n} items x {args.raters} raters x {args.categories} "
            "categories, 20% missing (best of 3)",
            bench_floor(n, args.raters, args.categories),
        )
    show("many categories: 5,000 items x 3 raters", bench_many_categories())
    if args.floor_only:
        return 0
    for n in sizes:
        rows, summary = bench_categorical(n, args.raters, args.categories)
        show(f"{n} items x {args.raters} raters x {args.categories} categories, 20% missing", rows)
        show_ratios(summary)
    show(
        f"continuous scores: {args.continuous} items x 3 raters", bench_continuous(args.continuous)
    )
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(f"\nProcess peak RSS (data, peers and all): {peak_rss:.0f} MB")
    print(
        "Times are one wall-clock run (best of 3 on the 2k slices; noisy on a shared machine); "
        "MB is tracemalloc peak."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
