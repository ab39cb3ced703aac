"""G-study at scale: persons x 10 raters x 2 occasions, balanced and with 5% of scores missing.

Prints, in one run, the floor (``np.bincount`` of the scores by person and by rater and
occasion: one pass over the scores) beside ``accord.g_study`` on the complete design (ANOVA:
the sums of squares of the balanced design) and on the design with 5% of the scores missing
(REML on every score), each in memory from a pandas frame, the median of ``--repeat`` runs;
``accord.g_study_files`` on the complete design written as Parquet (the stream engine: sums
by level merged over batches);
and the REML stages: coding the scores, the pattern sums (one pass), and the fit (the search
with the analytic gradient of the deviance, then the observed information by differences of
that gradient). The target: REML on 2M cells (``--persons 100000``) within 5 s.
Then GeneralizIT (pip ``generalizit``, when importable) side by side on the complete design
at growing numbers of persons, up to the largest it finishes within ``--peer-budget``
seconds.

    uv run --no-sync python benchmarks/g_study.py                     # 10k persons (200k cells)
    uv run --no-sync python benchmarks/g_study.py --full              # 50k persons (1M cells)
    uv run --no-sync python benchmarks/g_study.py --persons 100000    # 2M cells
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd
from _common import cache_dir, timed

import accord
from accord.agreement.gtheory_design import code_scores, parse_design
from accord.agreement.gtheory_reml import fit_components, pattern_sums


def scores(n_persons: int, missing: float, seed: int = 0) -> pd.DataFrame:
    """A p x r x o design with known components: p 1, r 0.25, o 0.09, pr 0.36, po 0.16,
    ro 0, pro 0.49; ``missing`` of the scores left out at random."""
    gen = np.random.default_rng(seed)
    p, r, o = (a.ravel() for a in np.meshgrid(np.arange(n_persons), np.arange(10), np.arange(2),
                                              indexing="ij"))  # fmt: skip
    y = (
        gen.normal(0, 1.0, n_persons)[p]
        + gen.normal(0, 0.5, 10)[r]
        + gen.normal(0, 0.3, 2)[o]
        + gen.normal(0, 0.6, (n_persons, 10))[p, r]
        + gen.normal(0, 0.4, (n_persons, 2))[p, o]
        + gen.normal(0, 0.7, p.size)
    )
    keep = gen.uniform(size=p.size) >= missing
    return pd.DataFrame({"item": p[keep], "rater": r[keep], "occasion": o[keep], "score": y[keep]})


def floor(frame: pd.DataFrame) -> Any:
    """One pass over the scores: sums by person and by (rater, occasion) cell."""
    p = frame["item"].to_numpy()
    cell = frame["rater"].to_numpy() * 2 + frame["occasion"].to_numpy()
    y = frame["score"].to_numpy()
    return np.bincount(p, weights=y), np.bincount(cell, weights=y)


def peer(frame: pd.DataFrame) -> Any:
    from generalizit import GeneralizIT

    data = frame.rename(columns={"item": "p", "rater": "r", "occasion": "o"})
    with contextlib.redirect_stdout(io.StringIO()):
        gt = GeneralizIT(data, "p x r x o", "score")
        gt.calculate_anova()
    return gt


def reml_stages(frame: pd.DataFrame, repeat: int, t_floor: float) -> None:
    """The stages of the REML fit, each timed on its own."""
    design = parse_design("p x r x o")
    columns = {"p": "item", "r": "rater", "o": "occasion"}
    coded, t_code = timed(lambda: code_scores(frame, design, columns, "score"), repeat)
    _, t_sums = timed(lambda: pattern_sums(coded, design.effects[:-1]), repeat)
    fit, t_fit = timed(lambda: fit_components(coded, design.effects[:-1]), repeat)
    print(f"    coding the scores                   {t_code:8.3f} s  "
          f"{t_code / t_floor:7.1f}x floor")  # fmt: skip
    print(f"    pattern sums ({fit.n_patterns} patterns)        {t_sums:8.3f} s  "
          f"{t_sums / t_floor:7.1f}x floor")  # fmt: skip
    print(f"    fit: sums, search ({fit.n_evaluations} deviances with gradients), information "
          f"{t_fit:8.3f} s  {t_fit / t_floor:7.1f}x floor")  # fmt: skip


def peer_sizes(budget: float) -> None:
    try:
        import generalizit  # noqa: F401
    except ImportError:
        print("GeneralizIT: not installed (pip install generalizit); peer skipped")
        return
    for n in (100, 300, 1000, 3000, 10_000, 30_000, 100_000):
        frame = scores(n, 0.0)
        start = time.perf_counter()
        peer(frame)
        peer_s = time.perf_counter() - start
        _, ours = timed(lambda f=frame: accord.g_study(f, design="p x r x o"), 1)  # type: ignore[misc]
        print(f"  {n:>7} persons ({len(frame):>9} scores): GeneralizIT {peer_s:8.3f} s, "
              f"accord {ours:7.3f} s, ratio {peer_s / ours:7.1f}x")  # fmt: skip
        if peer_s > budget:
            print(f"  (GeneralizIT took over {budget:g} s: larger sizes not run)")
            break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--persons", type=int, default=10_000)
    parser.add_argument("--full", action="store_true", help="50k persons (1M cells)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer-budget", type=float, default=30.0)
    args = parser.parse_args()
    n = 50_000 if args.full else args.persons
    complete, gaps = scores(n, 0.0), scores(n, 0.05)
    print(f"accord {accord.__version__}: {n} persons x 10 raters x 2 occasions; "
          f"{len(complete)} scores complete, {len(gaps)} with 5% missing")  # fmt: skip
    _, t_floor = timed(lambda: floor(gaps), args.repeat)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g, t_anova = timed(lambda: accord.g_study(complete, design="p x r x o"), args.repeat)
        g2, t_reml = timed(lambda: accord.g_study(gaps, design="p x r x o"), args.repeat)
    print(f"  floor (bincount by person and cell)   {t_floor:8.3f} s")
    print(f"  g_study, complete ({g.method})           {t_anova:8.3f} s  "
          f"{t_anova / t_floor:7.1f}x floor")  # fmt: skip
    print(f"  g_study, 5% missing ({g2.method})          {t_reml:8.3f} s  "
          f"{t_reml / t_floor:7.1f}x floor")  # fmt: skip
    path = cache_dir("g_study") / f"complete-{n}.parquet"
    if not path.exists():
        complete.to_parquet(path)
    g3, t_stream = timed(lambda: accord.g_study_files(path, design="p x r x o"), args.repeat)
    print(f"  g_study_files, complete (stream, Parquet batches of 1M) {t_stream:8.3f} s  "
          f"{t_stream / t_floor:7.1f}x floor; largest difference from memory "
          f"{abs(g3.components['variance'] - g.components['variance']).max():.1e}")  # fmt: skip
    reml_stages(gaps, args.repeat, t_floor)
    print(f"  target: REML within 5 s on 2M cells; {'met' if t_reml <= 5 else 'missed'} "
          f"here at {len(gaps)} scores")  # fmt: skip
    shown = g2.components[["effect", "variance"]].round(3).values.tolist()
    print(f"  REML components: {shown}")
    peer_sizes(args.peer_budget)


if __name__ == "__main__":
    main()
