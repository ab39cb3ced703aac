"""Dawid-Skene and one-coin EM in passes of the stream and dask engines over the ratings
(``accord.truth.passes``): the fit of the memory engine (itself checked against crowd-kit
and by hand in test_rater_models.py), to 1e-9, with the rows of each item spread over many
batches, files and partitions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import accord
from accord import InvalidInputError
from accord.engines.stream import stream_scan
from accord.truth.passes import rater_model_in_passes

READ = {"item": "item", "rater": "rater", "label": "label"}
TOL = 1e-9


def _ratings(seed: int = 1, n: int = 60, n_raters: int = 7, q: int = 3) -> pd.DataFrame:
    """Four raters per item, right 70% of the time, rows shuffled."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(q, size=n)
    rows = []
    for i in range(n):
        for r in rng.choice(n_raters, size=4, replace=False):
            label = truth[i] if rng.random() < 0.7 else rng.integers(q)
            rows.append((f"i{i}", f"r{r}", f"L{label}"))
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The ratings as one CSV, one Parquet file and three Parquet parts (dask partitions)."""
    root = tmp_path_factory.mktemp("passes")
    frame = _ratings()
    frame.to_csv(root / "r.csv", index=False)
    frame.to_parquet(root / "r.parquet", index=False)
    parts = []
    for k, lo in enumerate(range(0, len(frame), 80)):
        parts.append(str(root / f"part{k}.parquet"))
        frame.iloc[lo : lo + 80].to_parquet(parts[-1], index=False)
    return {"csv": root / "r.csv", "parquet": root / "r.parquet", "parts": parts, "frame": frame}


def assert_same_fit(got: accord.RaterModel, want: accord.RaterModel) -> None:
    """Posteriors, confusion matrices, prevalence, log-likelihood path (hence iterations)
    and the tables of two fits, items and raters matched by id."""
    assert len(got.log_likelihood) == len(want.log_likelihood)
    assert got.converged == want.converged
    assert_allclose(got.log_likelihood, want.log_likelihood, rtol=TOL, atol=0)
    a = got.items.set_index("item").sort_index()
    b = want.items.set_index("item").sort_index()
    assert a["label"].tolist() == b["label"].tolist()
    shares = [f"p_{c}" for c in want.categories]
    assert_allclose(a[shares].to_numpy(), b[shares].to_numpy(), atol=TOL, rtol=0)
    order_got = np.argsort(got.raters["rater"].astype(str).to_numpy())
    order_want = np.argsort(want.raters["rater"].astype(str).to_numpy())
    assert_allclose(got.confusion[order_got], want.confusion[order_want], atol=TOL)
    assert_allclose(got.prevalence, want.prevalence, atol=TOL)
    ra = got.raters.iloc[order_got].reset_index(drop=True)
    rb = want.raters.iloc[order_want].reset_index(drop=True)
    assert ra["n_ratings"].tolist() == rb["n_ratings"].tolist()
    numeric = [c for c in rb.columns if c not in ("rater", "n_ratings")]
    assert_allclose(ra[numeric].to_numpy(float), rb[numeric].to_numpy(float), atol=TOL)
    for key in ("kappa_truth", "expected_pairwise_kappa", "expected_fleiss_kappa",
                "observed_fleiss_kappa"):  # fmt: skip
        assert getattr(got.reliability, key) == pytest.approx(getattr(want.reliability, key),
                                                              abs=TOL)  # fmt: skip
    ea = got.review.set_index("item").sort_index()["expected_reduction"].to_numpy()
    eb = want.review.set_index("item").sort_index()["expected_reduction"].to_numpy()
    assert_allclose(ea, eb, atol=TOL)


@pytest.mark.parametrize("model", ["dawid-skene", "one-coin"])
def test_stream_passes_are_the_memory_fit(files: dict[str, Any], model: str) -> None:
    memory = accord.rater_model(files["csv"], **READ, model=model, n_bootstrap=0)
    assert len(memory.log_likelihood) > 5  # several iterations: a real path to compare
    for path in (files["csv"], files["parquet"]):
        # batches of 7 rows: the four ratings of most items fall in different batches
        got = accord.rater_model(path, **READ, engine="stream", batch_size=7, model=model,
                                 n_bootstrap=0)  # fmt: skip
        assert_same_fit(got, memory)
        assert got.report.ratings == memory.report.ratings == 240


def test_passes_that_read_the_file_again(files: dict[str, Any]) -> None:
    # memory_limit of one byte: the engine keeps no code matrix, so every EM step reads the
    # batches of the file again (a Rescan), each with its own rows of the items
    memory = accord.rater_model(files["csv"], **READ, n_bootstrap=0, tol=1e-6)
    stats, rescan = stream_scan(files["parquet"], **READ, batch_size=16, memory_limit=1)
    assert rescan.capabilities == frozenset()  # no matrix: the passes read the file
    from accord.truth.passes import cell_part, item_part

    for in_place in (True, False):
        before, made = rescan.passes, []

        def run(fn: Any, context: Any, merge: Any, made: list[Any] = made) -> Any:
            made.append(fn)
            return rescan.map_reduce(fn, context, merge)

        got = rater_model_in_passes(
            run, items=stats.items, raters=stats.raters,
            categories=stats.categories, in_place=in_place, n_bootstrap=0, tol=1e-6,
        )  # fmt: skip
        assert_same_fit(got, memory)
        # every pass of the fit reads the file again
        assert rescan.passes - before == len(made) == made.count(item_part) + made.count(cell_part)
        # an M step a pass of cells (and one for the tables); an E step a pass of items
        # (and one for the votes): the EM steps, and at most one extrapolated step (SQUAREM)
        # tried after each two of them, the kept ones on the log-likelihood's path
        steps = made.count(cell_part) - 1
        tried = made.count(item_part) - 1 - steps
        kept = len(got.log_likelihood) - steps
        assert 0 <= kept <= tried <= steps // 2


def test_dask_partitions_are_the_memory_fit(files: dict[str, Any]) -> None:
    memory = accord.rater_model(files["frame"], **READ, n_bootstrap=0, tol=1e-6)
    got = accord.rater_model(files["parts"], **READ, engine="dask", n_bootstrap=0, tol=1e-6,
                             scheduler="synchronous")  # fmt: skip
    assert_same_fit(got, memory)


def test_gold_labels_in_passes(files: dict[str, Any]) -> None:
    gold = {"i0": "L1", "i3": "L0", "i7": "L2"}
    memory = accord.rater_model(files["csv"], **READ, gold=gold, n_bootstrap=0)
    got = accord.rater_model(files["parquet"], **READ, engine="stream", batch_size=11,
                             gold=gold, n_bootstrap=0)  # fmt: skip
    assert_same_fit(got, memory)
    assert got.n_gold == 3 and set(got.review["item"]).isdisjoint(gold)
    assert_allclose(got.gold_confusion, memory.gold_confusion, atol=0, equal_nan=True)


def test_by_hand_two_raters_one_item_split() -> None:
    # one item rated "y" by both raters, one "n" by both: the votes alone decide, and the
    # parts of a pass split the first item's ratings
    item, rater, label = np.array([0, 1, 0, 1]), np.array([0, 0, 1, 1]), np.array([1, 0, 1, 0])

    def run(fn: Any, ctx: Any, merge: Any) -> Any:
        return merge(
            fn(ctx, item[:1], rater[:1], label[:1]), fn(ctx, item[1:], rater[1:], label[1:])
        )

    fit = rater_model_in_passes(run, items=np.array(["a", "b"]), raters=np.array(["u", "v"]),
                                categories=("n", "y"), n_bootstrap=0)  # fmt: skip
    assert fit.items["label"].tolist() == ["y", "n"]
    assert fit.raters["n_ratings"].tolist() == [2, 2]
    # every rating agrees with the votes: each rater's accuracy is 1 to the floor of EM
    assert_allclose(fit.raters["accuracy"], [1.0, 1.0], atol=1e-9)


def test_what_passes_cannot_fit_is_refused() -> None:
    def run(fn: Any, ctx: Any, merge: Any) -> Any:
        return None

    ids = {"items": np.array([0]), "raters": np.array([0]), "categories": (0, 1)}
    with pytest.raises(InvalidInputError, match="model='mace', n_bootstrap=0"):
        rater_model_in_passes(run, **ids, model="mace")
    with pytest.raises(InvalidInputError, match="n_bootstrap=10"):
        rater_model_in_passes(run, **ids, n_bootstrap=10)
    with pytest.raises(InvalidInputError, match="unexpected options"):
        rater_model_in_passes(run, **ids, interval="observed-information")


def test_other_fits_still_gather_the_codes(files: dict[str, Any], tmp_path: Path) -> None:
    # MACE (no pass form) on the stream engine: the codes are gathered, the memory fit
    memory = accord.rater_model(files["csv"], **READ, model="mace", n_bootstrap=0)
    got = accord.rater_model(files["csv"], **READ, engine="stream", model="mace", n_bootstrap=0)
    a = got.items.set_index("item").sort_index().filter(like="p_").to_numpy()
    b = memory.items.set_index("item").sort_index().filter(like="p_").to_numpy()
    assert_allclose(a, b, atol=1e-12)


def test_missing_labels_and_an_item_without_a_label(tmp_path: Path) -> None:
    # three missing labels, and an item whose every label is missing: the item stays in
    # the tables (unrated: its posterior is the prior), as in memory, on both kinds of pass
    frame = _ratings()
    frame.loc[[0, 5, 9], "label"] = None
    frame.loc[frame["item"] == "i4", "label"] = None
    frame.to_csv(tmp_path / "m.csv", index=False)
    frame.to_parquet(tmp_path / "m.parquet", index=False)
    memory = accord.rater_model(tmp_path / "m.csv", **READ, n_bootstrap=0)
    assert memory.n_ratings == 240 - 3 - 4 and "i4" in set(memory.items["item"])
    got = accord.rater_model(tmp_path / "m.parquet", **READ, engine="stream", batch_size=7,
                             n_bootstrap=0)  # fmt: skip
    assert_same_fit(got, memory)
    # past its memory limit the first read passes over ranges of items; asked for the raters
    # only, it counts no item x label table, and still reports the items rated
    stats, rescan = stream_scan(tmp_path / "m.parquet", **READ, batch_size=16, memory_limit=1,
                                statistics=("raters",))  # fmt: skip
    assert stats.report.items == memory.report.items == 59
    assert stats.report.ratings == memory.report.ratings
    again = rater_model_in_passes(
        rescan.map_reduce, items=stats.items, raters=stats.raters,
        categories=stats.categories, in_place=True, n_bootstrap=0,
    )  # fmt: skip
    assert_same_fit(again, memory)
    # the review lists the same items in the same order, with the same ranks by entropy but
    # among entropies equal to rounding (items all but certain, 5e-12 bits, whose sums of
    # parts and of the whole round apart): a rank moves by no more than such a tie holds
    assert again.review["item"].tolist() == memory.review["item"].tolist()
    entropy = memory.review["entropy"].to_numpy()
    assert_allclose(again.review["entropy"], entropy, rtol=0, atol=1e-15)
    ranks, want = (r.review["entropy_rank"].to_numpy() for r in (again, memory))
    for i in np.flatnonzero(ranks != want):
        tied = int(np.sum(np.abs(entropy - entropy[i]) <= 1e-15))
        assert abs(int(ranks[i]) - int(want[i])) < tied, memory.review.iloc[i]


def test_memory_of_a_fit_in_passes_per_item() -> None:
    # 200,000 items (three ratings each, rows shuffled, parts of 50,000 ratings), traced by
    # tracemalloc (numpy reports its arrays): the peak of the whole fit, result included,
    # stays under 200 bytes an item at five classes. The posteriors take 40 bytes an item;
    # the fit keeps two of them during a step, the result's tables about 110 bytes, and
    # the votes, the convergence check and the tables' columns leave no array of the
    # posteriors' shape behind (before: 407 bytes an item)
    import tracemalloc
    import warnings

    rng = np.random.default_rng(0)
    n_items, per, n_raters, q = 200_000, 3, 20, 5
    item = np.repeat(np.arange(n_items), per)
    start = np.repeat(rng.integers(0, n_raters, n_items), per)
    rater = (start + np.tile(np.arange(per), n_items)) % n_raters
    truth = rng.integers(0, q, n_items)[item]
    label = np.where(rng.random(item.size) < 0.7, truth, rng.integers(0, q, item.size))
    order = rng.permutation(item.size)
    item, rater, label = item[order], rater[order], label[order]

    def run(fn: Any, ctx: Any, merge: Any) -> Any:
        total = None
        for lo in range(0, item.size, 50_000):
            s = slice(lo, lo + 50_000)
            part = fn(ctx, item[s], rater[s], label[s])
            total = part if total is None else merge(total, part)
        return total

    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # stopped at max_iter
            fit = rater_model_in_passes(run, items=np.arange(n_items),
                                        raters=np.arange(n_raters), categories=tuple(range(q)),
                                        in_place=True, n_bootstrap=0, max_iter=3)  # fmt: skip
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert fit.n_items == n_items
    assert peak / n_items < 200


def test_the_parts_the_engine_holds_are_kept_from_pass_to_pass() -> None:
    from accord.truth.passes import Parts

    parts = Parts()
    item, rater, label = np.array([3, 3, 4, 6]), np.array([0, 1, 1, 0]), np.array([1, 0, 2, 2])
    fresh = parts.of(item, rater, label, 3, 6)
    assert parts.of(item, rater, label, 3, 6) is not fresh  # writeable: read anew each time
    for codes in (item, rater, label):
        codes.flags.writeable = False
    held = parts.of(item, rater, label, 3, 6)
    assert parts.of(item, rater, label, 3, 6) is held
    # by hand: items 3..6 from 3 (a short range), a one at (item - 3, rater * 3 + label)
    assert held.lo == 3 and held.keys is None
    expected = np.zeros((4, 6))
    expected[[0, 0, 1, 3], [1, 3, 5, 2]] = 1  # (3, 0, 1), (3, 1, 0), (4, 1, 2), (6, 0, 2)
    np.testing.assert_array_equal(held.ones.toarray(), expected)
    assert held.per_cell.tolist() == [0, 1, 1, 1, 0, 1]
    assert held.items().tolist() == [3, 4, 5, 6]
    del item  # the part goes with its arrays
    import gc

    gc.collect()
    assert not parts._held
