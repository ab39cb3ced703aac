"""Benchmark: Dawid-Skene by EM, accord beside crowd-kit, and one EM iteration beside a bare
pass of bincounts over the encoded ratings.

Run with ``uv run --no-sync python benchmarks/rater_models.py`` (100k ratings: 10k items x 10
of 200 raters, 5 classes) or ``--full`` (1M ratings: 100k items). ``--coverage`` adds a
recovery check: on data drawn from known confusion matrices, how often the bootstrap interval
of each rater's accuracy covers the accuracy the data were drawn with (100 data sets, 1000
resamples each: a few minutes). ``--realistic 1e6`` fits Dawid-Skene to ``realistic.py``'s
Parquet file of that many ratings (text ids, 2,000 raters, shuffled rows, 5% of the labels
missing) with SQUAREM's steps and with plain EM steps only, beside the floor (pyarrow reads
the file and dictionary-encodes its three columns): the steps, seconds and how far apart
the two fits' accuracies are.

Targets: Dawid-Skene to convergence at least 10x faster than crowd-kit's ``DawidSkene``, and
one EM iteration at most 3x a pass of ``q`` weighted bincounts over the ratings (the least an
M step can do).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from _common import timed

N_RATERS, PER_ITEM, Q = 200, 10, 5


def generate(n_items: int, seed: int = 35) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Items rated by 10 distinct raters of 200, 5 classes; each rater's confusion matrix
    a mix of the identity (weight 0.4-0.9) and a random table."""
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(n_items), PER_ITEM)
    start = rng.integers(0, N_RATERS, n_items)
    rater = ((start[:, None] + np.arange(PER_ITEM) * (N_RATERS // PER_ITEM)) % N_RATERS).ravel()
    weight = rng.uniform(0.4, 0.9, N_RATERS)[:, None, None]
    conf = weight * np.eye(Q) + (1 - weight) * rng.dirichlet(np.ones(Q), size=(N_RATERS, Q))
    truth = rng.integers(0, Q, n_items)
    cum = conf[rater, truth[item]].cumsum(axis=1)
    label = np.minimum((rng.random(item.size)[:, None] > cum).sum(axis=1), Q - 1)
    return {"item": item, "rater": rater, "label": label}, conf


def accord_side(data: dict[str, np.ndarray]) -> dict[str, float]:
    import scipy.sparse  # imported before the clock starts, as crowd-kit's pandas is

    assert scipy.sparse.csr_matrix

    from accord import Ratings
    from accord.truth._design import design_from_codes
    from accord.truth._em import Options, e_step, fit_em, m_step, majority_posteriors

    t0 = time.perf_counter()
    ratings = Ratings.from_arrays(data["item"], data["rater"], data["label"])
    encode = time.perf_counter() - t0
    t0 = time.perf_counter()
    design = design_from_codes(
        ratings.item_codes, ratings.rater_codes, ratings.label_codes,
        n_items=ratings.n_items, n_raters=ratings.n_raters, q=ratings.n_categories,
    )  # fmt: skip
    counts = time.perf_counter() - t0
    options = Options(tol=1e-8)
    fit, fit_s = timed(lambda: fit_em(design, "dawid-skene", options), 1)
    loose, loose_s = timed(lambda: fit_em(design, "dawid-skene", Options(tol=1e-5)), 1)
    post = majority_posteriors(design)
    params = m_step(design, post, "dawid-skene", options, None)

    def iteration() -> None:
        p, _ = e_step(design, params)
        m_step(design, p, "dawid-skene", options, params)

    _, per_iter = timed(iteration, 5)
    key = ratings.item_codes  # the bare pass: q weighted bincounts over the ratings
    _, floor = timed(
        lambda: [np.bincount(key, weights=post[key, c], minlength=design.n_items)
                 for c in range(Q)], 5)  # fmt: skip
    return {"encode": encode, "counts": counts, "fit": fit_s, "iterations": fit.converged
            and len(fit.log_likelihood), "per_iter": per_iter, "floor": floor, "loose": loose_s,
            "loose_iterations": len(loose.log_likelihood),
            "posterior": fit.posterior}  # fmt: skip


def crowdkit_side(data: dict[str, np.ndarray]) -> dict[str, float] | None:
    try:
        from crowdkit.aggregation import DawidSkene
    except ImportError:
        return None
    frame = pd.DataFrame({"task": data["item"], "worker": data["rater"], "label": data["label"]})
    ds = DawidSkene(n_iter=100, tol=1e-5)  # its defaults
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        probas, seconds = timed(lambda: ds.fit_predict_proba(frame), 1)
    return {"fit": seconds, "iterations": len(ds.loss_history_),
            "posterior": probas.sort_index()[list(range(Q))].to_numpy()}  # fmt: skip


def coverage(n_sets: int = 20, n_boot: int = 100) -> float:
    """Share of (data set, rater) pairs whose 95% interval covers the true accuracy
    (the prevalence-weighted diagonal of the rater's true confusion matrix)."""
    from accord import Ratings, rater_model

    hits = total = 0
    for seed in range(n_sets):
        rng = np.random.default_rng(1000 + seed)
        n_items, n_raters = 300, 6
        conf = 0.6 * np.eye(3) + 0.4 * rng.dirichlet(np.ones(3), size=(n_raters, 3))
        prior = np.array([0.5, 0.3, 0.2])
        truth = rng.choice(3, size=n_items, p=prior)
        item = np.repeat(np.arange(n_items), n_raters)
        rater = np.tile(np.arange(n_raters), n_items)
        cum = conf[rater, truth[item]].cumsum(axis=1)
        label = np.minimum((rng.random(item.size)[:, None] > cum).sum(axis=1), 2)
        fit = rater_model(Ratings.from_arrays(item, rater, label), n_bootstrap=n_boot, rng=seed)
        true_acc = np.einsum("c,rcc->r", prior, conf)
        r = fit.raters
        hits += int(((r["accuracy_low"] <= true_acc) & (true_acc <= r["accuracy_high"])).sum())
        total += n_raters
    return hits / total


def squarem_side(n_ratings: int) -> None:
    """Dawid-Skene on realistic ratings, with SQUAREM's steps and plain EM, beside the read."""
    import realistic

    from accord.truth._design import design_from_codes
    from accord.truth._em import Options, fit_em
    from accord.truth._quality import rater_quality

    path, floor_s, ratings = realistic.read_beside_floor(n_ratings)
    design = design_from_codes(
        ratings.item_codes, ratings.rater_codes, ratings.label_codes,
        n_items=ratings.n_items, n_raters=ratings.n_raters, q=ratings.n_categories,
    )  # fmt: skip
    print(
        f"Dawid-Skene on {path.name} ({ratings.n_ratings:,} ratings, {ratings.n_items:,} "
        f"items, {ratings.n_raters:,} raters); floor (read + encode) {floor_s:.2f} s"
    )
    accuracy = {}
    for name, accelerate in (("SQUAREM after 10 plain steps", True), ("plain EM", False)):
        fit, seconds = timed(lambda a=accelerate: fit_em(design, "dawid-skene", Options(),
                                                         accelerate=a), 1)  # fmt: skip
        prevalence = fit.posterior[design.rated].mean(axis=0)
        accuracy[name] = rater_quality(design, fit.params, fit.posterior, prevalence)["accuracy"]
        print(f"  {name:<30} {len(fit.log_likelihood):>5} steps {seconds:>6.2f} s "
              f"({seconds / floor_s:.1f}x the floor), log-likelihood "
              f"{fit.log_likelihood[-1]:.6f}, converged {fit.converged}")  # fmt: skip
    fast, plain = accuracy.values()
    print(f"  largest difference of a rater's accuracy: {np.nanmax(np.abs(fast - plain)):.2g}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="1M ratings (100k items)")
    parser.add_argument("--coverage", action="store_true", help="also the coverage check")
    parser.add_argument("--realistic", type=float, default=0, help="realistic ratings (1e6)")
    args = parser.parse_args()
    if args.realistic:
        squarem_side(int(args.realistic))
        return
    n_items = 100_000 if args.full else 10_000
    data, _ = generate(n_items)
    print(f"Dawid-Skene, {n_items * PER_ITEM:,} ratings ({n_items:,} items x {PER_ITEM} of "
          f"{N_RATERS} raters, {Q} classes)")  # fmt: skip
    ours = accord_side(data)
    print(
        f"  accord: encode {ours['encode']:.2f} s, counts {ours['counts']:.2f} s, EM to "
        f"convergence {ours['fit']:.2f} s ({ours['iterations']} iterations, tol 1e-8)"
    )
    print(
        f"  accord at crowd-kit's tolerance (1e-5 per rating): {ours['loose']:.2f} s "
        f"({ours['loose_iterations']} iterations)"
    )
    print(
        f"  one EM iteration {ours['per_iter'] * 1e3:.1f} ms; floor ({Q} weighted bincounts "
        f"over the ratings) {ours['floor'] * 1e3:.1f} ms; ratio "
        f"{ours['per_iter'] / ours['floor']:.2f} (target <= 3)"
    )
    peer = crowdkit_side(data)
    if peer is None:
        print("  crowd-kit not installed: no side-by-side figure")
    else:
        per = peer["fit"] / max(peer["iterations"], 1)
        print(
            f"  crowd-kit DawidSkene (n_iter=100, tol=1e-5): {peer['fit']:.2f} s "
            f"({peer['iterations']} iterations, {per * 1e3:.0f} ms each)"
        )
        whole = ours["counts"] + ours["loose"]
        print(
            f"  ratio crowd-kit / accord to convergence, both at tol 1e-5, accord's counts "
            f"included: {peer['fit'] / whole:.1f}x (target >= 10); accord at 1e-8: "
            f"{peer['fit'] / (ours['counts'] + ours['fit']):.1f}x; per iteration: "
            f"{per / ours['per_iter']:.1f}x"
        )
        agree = (peer["posterior"].argmax(1) == ours["posterior"].argmax(1)).mean()
        print(f"  same MAP label on {agree:.2%} of the items")
    if args.coverage:
        print(f"  coverage of the 95% accuracy intervals: {coverage(100, 1000):.3f}")


if __name__ == "__main__":
    main()
