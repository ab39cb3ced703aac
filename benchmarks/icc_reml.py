"""The REML ICC at scale: 1M items x 100 raters, 5% of the cells filled (~5M scores).

Prints, in one run, the floor (``np.bincount`` of the scores by item and by rater: one pass
over the scores) beside the REML stages: the design's sums (one pass building the per-count
statistics), the three model fits, a profile-likelihood interval, and ``accord.icc(ratings,
method="reml")`` end to end with every form's 95% interval. Each figure is the median of
``--repeat`` runs in this process; timings move on a shared machine, so read them against
the floor.

Then the same scores as users have them: text ids (``item-...``, ``reader-...``), rows
shuffled, 2% of the scores missing, written once as Parquet and as CSV. For each file the
floor is the bare read (``pyarrow``), beside ``accord.agreement(path, level="interval",
coefficients=["icc"])`` with the memory, the stream and the dask engine. Last, a peer side
by side: statsmodels ``MixedLM`` (crossed random effects by ``vc_formula``) against accord
on the same ``--peer-items`` items (the peer builds a dense design, so it runs on a
subset).

    uv run --no-sync python benchmarks/icc_reml.py              # full size
    uv run --no-sync python benchmarks/icc_reml.py --scale 0.1
    uv run --no-sync python benchmarks/icc_reml.py --scale 0.2 --files-only   # 1M scores
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any

import numpy as np
from _common import cache_dir, timed

import accord
from accord.agreement.icc_mixed import CrossedDesign, fit_reml


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the items")
    parser.add_argument("--raters", type=int, default=100)
    parser.add_argument("--fill", type=float, default=0.05, help="share of cells scored")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer-items", type=int, default=300, help="items for the peer")
    parser.add_argument("--no-files", action="store_true", help="skip the file stages")
    parser.add_argument("--files-only", action="store_true", help="only the file stages")
    args = parser.parse_args()
    n, m = int(1_000_000 * args.scale), args.raters
    gen = np.random.default_rng(0)
    blocks = []
    for start in range(0, n, 100_000):  # 100k items at a time: the full grid is 800 MB
        block = np.nonzero(gen.uniform(size=(min(100_000, n - start), m)) < args.fill)
        blocks.append((block[0] + start, block[1]))
    items = np.concatenate([b[0] for b in blocks])
    raters = np.concatenate([b[1] for b in blocks])
    y = (
        gen.normal(0.0, 1.0, n)[items]
        + gen.normal(0.0, 0.5, m)[raters]
        + gen.normal(0.0, 1.0, items.size)
    )
    print(f"accord {accord.__version__}: {n} items x {m} raters, {items.size} scores "
          f"({args.fill:.0%} filled); s_items = 1, s_raters = 0.25, s_residual = 1")  # fmt: skip
    if args.files_only:
        files_stage(items, raters, y, args)
        return
    ratings = accord.Ratings.from_arrays(items, raters, y, level="interval")

    def floor() -> Any:
        return np.bincount(items, weights=y), np.bincount(raters, weights=y)

    rows: list[tuple[str, float]] = []
    _, t_floor = timed(floor, args.repeat)
    rows.append(("floor: np.bincount of the scores by item and rater", t_floor))
    design, t = timed(lambda: CrossedDesign.from_codes(items, raters, y), args.repeat)
    rows.append(("design sums (one pass, per-count statistics)", t))
    fits = {}
    for model in ("oneway", "random", "fixed"):
        fits[model], t = timed(lambda model=model: fit_reml(design, model), args.repeat)
        rows.append((f"REML fit, {model} model", t))
    _, t = timed(lambda: fit_reml(design, "random").profile_interval(0.95), args.repeat)
    rows.append(("REML fit + 95% profile interval, random model", t))

    def whole() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = accord.icc(ratings, method="reml")
            return res, [f.confidence_interval(0.95) for f in res.forms]

    (res, cis), t_whole = timed(whole, args.repeat)
    rows.append(("accord.icc(ratings, method='reml') + 6 intervals", t_whole))
    for name, seconds in rows:
        print(f"{name:<52} {seconds:8.3f} s   {seconds / t_floor:8.1f}x floor")
    r = fits["random"]
    print(f"random model: s_items {r.items_variance:.4f}, s_raters {r.raters_variance:.4f}, "
          f"s_residual {r.residual_variance:.4f}; k-hat {res.k_hat:.3f}")  # fmt: skip
    for f, ci in zip(res.forms, cis, strict=True):
        print(f"  {f.label:<9} {f.statistic:.4f}  95% CI {ci.low:.4f} to {ci.high:.4f}")
    if not args.no_files:
        files_stage(items, raters, y, args)
    peer_stage(items, raters, y, args.peer_items)


def users_files(items: Any, raters: Any, y: Any, tag: str) -> dict[str, Any]:
    """The scores as users have them: text ids, rows shuffled, 2% of the scores missing;
    written once (Parquet and CSV) and kept between runs."""
    import pyarrow as pa
    import pyarrow.csv as pv
    import pyarrow.parquet as pq

    folder = cache_dir("icc_reml")
    out = {"parquet": folder / f"{tag}.parquet", "csv": folder / f"{tag}.csv"}
    if all(p.exists() for p in out.values()):
        return out
    gen = np.random.default_rng(1)
    order = gen.permutation(items.size)
    score = y[order].copy()
    score[gen.uniform(size=score.size) < 0.02] = np.nan
    table = pa.table({
        "item": pa.array(np.char.add("item-", items[order].astype(str))),
        "rater": pa.array(np.char.add("reader-", raters[order].astype(str))),
        "score": pa.array(score, mask=np.isnan(score)),
    })  # fmt: skip
    pq.write_table(table, out["parquet"])
    pv.write_csv(table, out["csv"])
    return out


def files_stage(items: Any, raters: Any, y: Any, args: Any) -> None:
    """Bare read (the floor) beside the ICC with the memory, stream and dask engines, per file."""
    import pyarrow.csv as pv
    import pyarrow.parquet as pq

    paths = users_files(items, raters, y, f"{items.size}-{args.raters}")
    print(f"\nthe data users have: text ids, shuffled rows, 2% of the scores missing "
          f"({items.size} rows)")  # fmt: skip
    bare = {"parquet": pq.read_table, "csv": pv.read_csv}
    for kind, path in paths.items():
        _, t_read = timed(lambda path=path, kind=kind: bare[kind](path), args.repeat)
        print(f"{kind:<8} floor: bare pyarrow read{'':<24} {t_read:8.3f} s   {1.0:8.1f}x floor")
        for engine in ("memory", "stream", "dask"):

            def run(path: Any = path, engine: str = engine) -> Any:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return accord.agreement(str(path), item="item", rater="rater",
                                            label="score", level="interval",
                                            coefficients=["icc"], engine=engine,
                                            progress=False)  # fmt: skip

            table, t = timed(run, args.repeat)
            icc_a1 = next(c.statistic for c in table.coefficients if c.label == "ICC(A,1)")
            print(f"{kind:<8} agreement(icc), {engine} engine{'':<18} {t:8.3f} s   "
                  f"{t / t_read:8.1f}x floor   ICC(A,1) {icc_a1:.4f}")  # fmt: skip


def peer_stage(items: Any, raters: Any, y: Any, n_items: int) -> None:
    """statsmodels MixedLM beside accord on the first ``n_items`` items."""
    import pandas as pd
    import statsmodels.formula.api as smf

    keep = items < n_items
    frame = pd.DataFrame({"item": items[keep], "rater": raters[keep], "score": y[keep]})
    print(f"\npeer on {n_items} items ({len(frame)} scores): ICC(A,1) by REML")

    def peer() -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = smf.mixedlm("score ~ 1", frame.assign(g=1), groups="g", re_formula="0",
                              vc_formula={"item": "0 + C(item)", "rater": "0 + C(rater)"}
                              ).fit(reml=True)  # fmt: skip
        s_a, s_b = fit.vcomp
        return float(s_a / (s_a + s_b + fit.scale))

    ratings = accord.Ratings.from_arrays(frame["item"], frame["rater"], frame["score"],
                                         level="interval")  # fmt: skip

    def ours() -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(accord.icc(ratings, method="reml")["ICC(A,1)"].statistic)

    theirs, t_peer = timed(peer, 1)
    mine, t_ours = timed(ours, 1)
    print(f"statsmodels MixedLM (crossed, REML){'':<17} {t_peer:8.3f} s   ICC(A,1) {theirs:.4f}")
    print(f"accord.icc(method='reml'){'':<27} {t_ours:8.3f} s   ICC(A,1) {mine:.4f}")


if __name__ == "__main__":
    main()
