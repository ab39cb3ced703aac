"""accord.consensus: Simon's (2010) entropy, surprisal and deviation from the consensus."""

from __future__ import annotations

import json
import math
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import accord
from accord.consensus import CLASSES, MISSING_CATEGORY, _cells, _ratings, _scores
from accord.front.consensus import consensus

from ..strategies import long_ratings, ratings_of

REFERENCE = json.loads(
    (Path(__file__).parents[1] / "reference" / "consensus.json").read_text(encoding="utf-8")
)


def one_item(labels: list[str], **kwargs: Any) -> accord.Consensus:
    """All ``labels`` are ratings of one item by distinct raters."""
    return consensus(accord.Ratings.from_wide([labels]), **kwargs)


def from_counts(counts: dict[str, int]) -> accord.Ratings:
    labels = [c for c, k in counts.items() for _ in range(k)]
    return accord.Ratings.from_wide([labels])


# ------------------------------------------------------------------ Simon (2010)


@pytest.mark.parametrize("case", ["seed_four_categories", "seed_seven_of_eight"])
def test_seed_examples(case: str) -> None:
    ref = REFERENCE[case]  # Simon (2010)
    c = one_item(ref["labels"])
    assert_allclose(c.items["entropy"].iloc[0], ref["entropy"], atol=1e-6)
    assert_allclose(c.ratings["surprisal"], ref["surprisal"], atol=1e-6)
    assert_allclose(c.ratings["deviation"], ref["deviation"], atol=1e-6)
    assert c.ratings["label"].astype(str).tolist() == ref["labels"]


def test_seed_four_categories_p_and_classes() -> None:
    # Simon (2010): p = 0.5, 0.25, 0.125, 0.125; deviations -0.75, +0.25, +1.25 (accord's bands)
    c = one_item(list("AAAABBCD"))
    assert c.ratings["p"].tolist() == [0.5] * 4 + [0.25] * 2 + [0.125] * 2
    assert (
        c.ratings["class"].astype(str).tolist() == ["good"] * 4 + ["acceptable"] * 2 + ["poor"] * 2
    )


def test_spec_panel() -> None:
    ref = REFERENCE["spec_panel"]  # 3 items x 4 raters, in bits by Simon (2010)
    frame = pd.DataFrame(ref["wide"], columns=ref["raters"], index=["u1", "u2", "u3"])
    c = consensus(accord.Ratings.from_wide(frame))
    assert_allclose(c.items["entropy"], ref["entropy"], atol=1e-6)
    dev = c.ratings.set_index(["item", "rater"])["deviation"]
    for item in ("u1", "u3"):
        assert_allclose(
            [dev[(item, w)] for w in ("W1", "W2", "W3")],
            [ref["deviation_u1_u3"]["agree"]] * 3,
            atol=5e-5,
        )
        assert_allclose(dev[(item, "W4")], ref["deviation_u1_u3"]["dissent"], atol=5e-5)
    means = c.raters.set_index("rater")["mean_deviation"]
    for rater, value in ref["mean_deviation"].items():
        assert_allclose(means[rater], value, atol=5e-5)
    # the rater who strays most comes first
    assert c.raters["rater"].iloc[0] == "W4"
    assert c.raters["rank"].tolist() == [1, 2, 3, 4]
    # u2 (2 B, 2 C) is the most contested item
    assert c.items.set_index("item").loc["u2", "contested_rank"] == 1
    assert c.most_contested(1)["item"].tolist() == ["u2"]


@pytest.mark.parametrize("case", REFERENCE["classes"]["cases"], ids=lambda c: c["what"])
def test_classes_reproduce_the_seed_examples(case: dict[str, Any]) -> None:
    # Simon (2010) figures 2, 3-5, 6, 9; bands (0, 1, 2) bits as docs/consensus.md sets them
    c = consensus(from_counts(case["counts"]))
    row = c.ratings[c.ratings["label"] == case["label"]].iloc[0]
    assert_allclose(row["deviation"], case["deviation"], atol=case["atol"])
    assert row["class"] == case["class"]


def test_bands_are_configurable_and_edges_belong_to_the_lower_class() -> None:
    # Hand computation: 4 A, 1 B, H(.8, .2) = log2 5 - 1.6: d(A) = log2(5/4) - H = -0.4 and
    # d(B) = log2 5 - H = 1.6
    r = from_counts({"A": 4, "B": 1})
    c = consensus(r, bands=(-0.4, 1.6, 3))
    assert c.ratings["class"].astype(str).tolist() == ["good"] * 4 + ["acceptable"]
    c = consensus(r, bands=(-1, -0.5, 1))
    assert c.ratings["class"].astype(str).tolist() == ["poor"] * 4 + ["very poor"]


def test_even_split_is_good_not_acceptable() -> None:
    # Three categories, two ratings each: every surprisal equals the entropy, log2(3): d = 0
    c = one_item(list("AABBCC"))
    assert_allclose(c.ratings["deviation"], 0.0, atol=1e-12)
    assert set(c.ratings["class"].astype(str)) == {"good"}
    assert_allclose(c.items["normalized_entropy"].iloc[0], 1.0)


def test_base_changes_units_only() -> None:
    # entropy in nats = entropy in bits * ln 2 (hand conversion)
    bits = one_item(list("AAAABBCD"))
    nats = one_item(list("AAAABBCD"), base=math.e)
    assert_allclose(nats.items["entropy"].iloc[0], 1.75 * math.log(2))
    assert_allclose(nats.ratings["deviation"], bits.ratings["deviation"] * math.log(2))
    assert_allclose(nats.items["normalized_entropy"], bits.items["normalized_entropy"])


# --------------------------------------------------------------------------- reference="others"


def test_others_reference_by_hand() -> None:
    # A rating of A among 4 A, 2 B, 1 C, 1 D: the other seven are 3 A, 2 B, 1 C, 1 D.
    c = one_item(list("AAAABBCD"), reference="others")
    others = [3 / 7, 2 / 7, 1 / 7, 1 / 7]
    e = -sum(p * math.log2(p) for p in others)
    row = c.ratings.iloc[0]
    assert_allclose(row["p"], 3 / 7)
    assert_allclose(row["surprisal"], -math.log2(3 / 7))
    assert_allclose(row["deviation"], -math.log2(3 / 7) - e)
    # the lone C: no other rater chose C -> p = 0, infinite surprisal, very poor
    lone = c.ratings.iloc[6]
    assert lone["p"] == 0.0 and math.isinf(lone["surprisal"]) and lone["class"] == "very poor"
    # Simon (2010)'s wording: "agreeing with more than 80% of the other raters" -> good
    d = consensus(from_counts({"A": 6, "B": 1}), reference="others")
    assert_allclose(d.ratings["p"].iloc[0], 5 / 6)
    assert d.ratings["class"].iloc[0] == "good"


def test_others_is_undefined_for_an_only_rating() -> None:
    r = accord.Ratings.from_long(
        pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"], "label": ["x", "y", "x"]}),
        item="item",
        rater="rater",
        label="label",
    )
    c = consensus(r, reference="others")
    assert np.isnan(c.ratings["deviation"].iloc[2])
    assert pd.isna(c.ratings["class"].iloc[2])
    assert c.summary.n_undefined == 1
    # item 1 still has an entropy (all of its ratings), the items table is reference-free
    assert_allclose(c.items["entropy"].tolist(), [1.0, 0.0])


# --------------------------------------------------------------------------- missing as a category


def test_missing_as_category_follows_the_seed() -> None:
    # Simon (2010): "For some images one or two raters did not provide a classification,
    # which I treated as a fourth category." Eight raters: 6 normal, 1 abnormal, 1 no label.
    frame = pd.DataFrame(
        {
            "item": ["img"] * 8,
            "rater": [f"r{k}" for k in range(8)],
            "label": ["normal"] * 6 + ["abnormal", None],
        }
    )
    r = accord.Ratings.from_long(frame, item="item", rater="rater", label="label")
    as_category = consensus(r, missing="category")
    row = as_category.ratings[as_category.ratings["rater"] == "r7"].iloc[0]
    assert row["label"] == MISSING_CATEGORY
    assert_allclose(row["p"], 1 / 8)
    assert_allclose(row["surprisal"], 3.0)  # -log2(1/8)
    e = -(0.75 * math.log2(0.75) + 2 * 0.125 * math.log2(0.125))
    assert_allclose(as_category.items["entropy"].iloc[0], e)
    assert_allclose(row["deviation"], 3.0 - e)
    assert as_category.items[f"count_{MISSING_CATEGORY}"].iloc[0] == 1
    assert as_category.summary.n_missing_as_category == 1
    assert as_category.categories[-1] == MISSING_CATEGORY
    # omitted: seven ratings, 6 vs 1
    omitted = consensus(r)
    assert len(omitted.ratings) == 7
    assert_allclose(
        omitted.items["entropy"].iloc[0], -(6 / 7) * math.log2(6 / 7) + math.log2(7) / 7
    )
    assert "r7" not in set(omitted.ratings["rater"])


def test_missing_as_category_counts_a_rater_with_only_missing_labels() -> None:
    frame = pd.DataFrame(
        {"item": [1, 1, 1, 2, 2, 2], "rater": list("abcabc"), "label": [1, 1, None, 2, 2, None]}
    )
    r = accord.Ratings.from_long(frame, item="item", rater="rater", label="label")
    c = consensus(r, missing="category")
    row = c.raters.set_index("rater").loc["c"]
    assert row["n_ratings"] == 2
    assert_allclose(row["mean_surprisal"], math.log2(3))
    assert c.raters["rater"].iloc[0] == "c"


# --------------------------------------------------------------------------- ordinal


@pytest.mark.parametrize("case", REFERENCE["ordinal"]["cases"], ids=lambda c: str(c["counts"]))
def test_ordinal_entropy_and_surprisal(case: dict[str, Any]) -> None:
    # Simon (2010), "ordinal surprisals": cumulative entropy and ordinal surprisal
    labels = [k + 1 for k, n in enumerate(case["counts"]) for _ in range(n)]
    r = accord.Ratings.from_wide([labels], level="ordinal")
    c = consensus(r, ordinal=True)
    assert_allclose(c.items["ordinal_entropy"].iloc[0], case["ordinal_entropy"], atol=1e-6)
    first = c.ratings.drop_duplicates("label")
    if "ordinal_surprisal" in case:
        assert_allclose(first["ordinal_surprisal"], case["ordinal_surprisal"], atol=1e-6)
    # its p-weighted mean is the ordinal entropy: ordinal deviations sum to zero
    assert_allclose(c.ratings["ordinal_deviation"].sum(), 0.0, atol=1e-9)
    assert_allclose(c.ratings["ordinal_surprisal"].mean(), case["ordinal_entropy"], atol=1e-6)


def test_ordinal_others_by_hand() -> None:
    # Ratings 1, 2, 2, 3 (thresholds F_1, F_2). The 1 against the others 2, 2, 3: F_1 = 0, so
    # -log2 F_1 is infinite. The 3 against 1, 2, 2: F_2 = 1, so -log2(1 - F_2) is infinite.
    # A 2 against 1, 2, 3: F_1 = 1/3, F_2 = 2/3 -> -log2(1 - 1/3) - log2(2/3) = 2 log2(3/2),
    # and the others' ordinal entropy is H2(1/3) + H2(2/3).
    r = accord.Ratings.from_wide([[1, 2, 2, 3]], level="ordinal")
    c = consensus(r, ordinal=True, reference="others")
    s = c.ratings["ordinal_surprisal"].to_numpy()
    assert np.isinf(s[0]) and np.isinf(s[3])
    assert_allclose(s[1], 2 * math.log2(1.5))
    h2 = -(1 / 3) * math.log2(1 / 3) - (2 / 3) * math.log2(2 / 3)
    assert_allclose(c.ratings["ordinal_deviation"].iloc[1], 2 * math.log2(1.5) - 2 * h2)


def test_ordinal_penalises_distance() -> None:
    # one rating one step off the mode is less surprising than one three steps off
    r = accord.Ratings.from_wide([[3, 3, 3, 3, 2], [3, 3, 3, 3, 5]], level="ordinal")
    c = consensus(r, ordinal=True)
    near = c.ratings.iloc[4]["ordinal_deviation"]
    far = c.ratings.iloc[9]["ordinal_deviation"]
    assert near < far
    # the nominal deviation cannot tell them apart
    assert_allclose(c.ratings.iloc[4]["deviation"], c.ratings.iloc[9]["deviation"])


# --------------------------------------------------------------------------- properties


@given(long_ratings(max_items=10, max_raters=6, max_categories=4))
def test_entropy_is_the_mean_surprisal_and_deviations_sum_to_zero(frame: pd.DataFrame) -> None:
    r = ratings_of(frame)
    c = consensus(r)
    per_item = c.ratings.groupby("item", observed=True)
    mean_s = per_item["surprisal"].mean()
    sum_d = per_item["deviation"].sum()
    entropy = c.items.set_index("item")["entropy"]
    assert_allclose(mean_s.to_numpy(), entropy.loc[mean_s.index].to_numpy(), atol=1e-12)
    assert_allclose(sum_d.to_numpy(), 0.0, atol=1e-12)
    # against accord.entropy of the counts (information.py, an independent code path)
    counts = np.asarray(c.counts.dense(), dtype=float)
    rated = counts.sum(axis=1) > 0
    assert_allclose(
        c.items["entropy"].to_numpy()[rated],
        np.asarray(accord.entropy(counts[rated]), dtype=float).reshape(-1),
        atol=1e-12,
    )


@given(long_ratings(max_items=10, max_raters=6, max_categories=4))
def test_rater_table_matches_a_groupby(frame: pd.DataFrame) -> None:
    r = ratings_of(frame)
    for reference in ("all", "others"):
        c = consensus(r, reference=reference)  # type: ignore[arg-type]
        ok = c.ratings.dropna(subset=["deviation"])
        finite = ok[np.isfinite(ok["deviation"])]
        g = finite.groupby("rater", observed=True)["deviation"]
        table = c.raters.set_index("rater")
        for rater, values in g:
            if np.isfinite(table.loc[rater, "mean_deviation"]):
                assert_allclose(table.loc[rater, "mean_deviation"], values.mean(), atol=1e-12)
            n_all = (ok["rater"] == rater).sum()
            if len(values) == n_all:
                assert_allclose(table.loc[rater, "median_deviation"], values.median(), atol=1e-12)
        shares = table[[f"share_{k.replace(' ', '_')}" for k in CLASSES]].to_numpy()
        defined = ~np.isnan(shares).any(axis=1)
        assert_allclose(shares[defined].sum(axis=1), 1.0)
        # sorted: mean deviations do not increase down the table
        means = c.raters["mean_deviation"].to_numpy()
        finite_means = means[np.isfinite(means)]
        assert np.all(np.diff(finite_means) <= 0)


def _loo_mode(labels: list[Any], k: int) -> Any:
    others = Counter(labels[:k] + labels[k + 1 :])
    if not others:
        return None
    top = max(others.values())
    modes = [c for c, n in others.items() if n == top]
    return modes[0] if len(modes) == 1 else None


@given(long_ratings(max_items=12, max_raters=5, max_categories=3))
def test_consensus_columns_match_cohen_kappa_and_ia(frame: pd.DataFrame) -> None:
    # the leave-one-out modal label by brute force, then accord.cohen_kappa and
    # accord.informational_agreement (agreement/two_raters.py) on each rater's table
    r = ratings_of(frame)
    c = consensus(r)
    pairs: dict[Any, list[tuple[Any, Any]]] = {}
    for _, group in frame.groupby("item"):
        labels = group["label"].tolist()
        for k, rater in enumerate(group["rater"].tolist()):
            mode = _loo_mode(labels, k)
            if mode is not None:
                pairs.setdefault(rater, []).append((labels[k], mode))
    table = c.raters.set_index("rater")
    cats = list(r.categories)
    for rater in r.raters:
        row = table.loc[rater]
        got = pairs.get(rater, [])
        assert row["consensus_n"] == len(got)
        if not got:
            assert np.isnan(row["consensus_kappa"])
            continue
        x = [a for a, _ in got]
        y = [b for _, b in got]
        assert_allclose(row["consensus_agreement"], np.mean([a == b for a, b in got]))
        if len(cats) < 2:
            continue
        t = accord.ContingencyTable.from_labels(x, y, categories=cats)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kappa = accord.cohen_kappa(t).statistic
            ia = accord.informational_agreement(t, n_boot=0).statistic
        assert_allclose(row["consensus_kappa"], kappa, atol=1e-12, equal_nan=True)
        assert_allclose(row["consensus_ia"], ia, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize(
    "limits",
    [
        # sparse counts, cells located by search, per-rater counts as sorted pairs
        {"SPARSE_CELLS": 0, "DENSE_CELLS": 0},
        # dense counts, cells located through a slot table instead of laid out densely
        {"TABLE_CELLS": 0},
        # one chunk per rating
        {"RATING_CHUNK": 1, "DENSE_CELLS": 0},
    ],
)
@given(frame=long_ratings(max_items=10, max_raters=5, max_categories=4))
def test_sparse_path_equals_dense_path(frame: pd.DataFrame, limits: dict[str, int]) -> None:
    r = ratings_of(frame)
    dense = consensus(r, reference="others")
    # the modules that read each limit
    holders = {
        "SPARSE_CELLS": (_cells, _scores),
        "DENSE_CELLS": (_cells, _ratings),
        "TABLE_CELLS": (_scores,),
        "RATING_CHUNK": (_ratings,),
    }
    old = {(m, name): getattr(m, name) for name in limits for m in holders[name]}
    for name, value in limits.items():
        for m in holders[name]:
            setattr(m, name, value)
    try:
        sparse = consensus(r, reference="others")
    finally:
        for (m, name), value in old.items():
            setattr(m, name, value)
    assert sparse.counts.is_sparse == ("SPARSE_CELLS" in limits)
    pd.testing.assert_frame_equal(dense.ratings, sparse.ratings)
    pd.testing.assert_frame_equal(dense.raters, sparse.raters)
    cols = [c for c in dense.items.columns if not c.startswith("count_")]
    pd.testing.assert_frame_equal(dense.items[cols], sparse.items[cols])


@pytest.mark.parametrize(
    "limits",
    [{}, {"TABLE_CELLS": 0}, {"TABLE_CELLS": 0, "SPARSE_CELLS": 0}],
    ids=["one slot a cell", "slot table", "search"],
)
def test_cell_tables_pickle_and_locate_the_same_cells(
    limits: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the tables go with a batch's context to where it is scored (dask pickles it)
    import pickle

    from accord.consensus import Options
    from accord.consensus._items import pattern_stats

    for name, value in limits.items():
        monkeypatch.setattr(_scores, name, value)
    rows = np.array([[3, 1, 0], [0, 2, 2], [4, 0, 0]])
    opts = Options.checked(reference="all", missing="omit", bands=(0, 1, 2), base=2, ordinal=False)
    ps = pattern_stats(rows, 4, opts, ordinal=False)
    tables = _scores.cell_tables(rows, ps.st, ps.d_values, 3, "all", opts.lb, opts.bands)
    back = pickle.loads(pickle.dumps(tables))
    keys = np.array([0, 1, 4, 5, 6])  # every non-empty (pattern, category) cell
    at = tables.locate(keys)
    assert_allclose(back.deviation[back.locate(keys)], tables.deviation[at])
    # by hand: pattern (3, 1, 0) has entropy 0.811 bits; category 0 is 0.415 bits surprising
    e = -(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25))
    assert_allclose(tables.deviation[at][:2], [-math.log2(0.75) - e, 2.0 - e])
    assert_allclose(tables.deviation[at][4], 0.0)  # a unanimous pattern


@given(long_ratings(max_items=10, max_raters=6, max_categories=4))
def test_rating_scores_match_the_counts_of_their_item(frame: pd.DataFrame) -> None:
    # p, surprisal and deviation of every rating from its item's labels, by brute force
    r = ratings_of(frame)
    for reference in ("all", "others"):
        c = consensus(r, reference=reference)  # type: ignore[arg-type]
        entropy = c.items.set_index("item")["entropy"]
        for row in c.ratings.itertuples(index=False):
            labels = frame.loc[frame["item"] == row.item, "label"].tolist()
            same, n = labels.count(row.label), len(labels)
            if reference == "others":
                same, n = same - 1, n - 1
            if n == 0:
                assert np.isnan(row.p) and np.isnan(row.deviation)
                continue
            others = labels.copy()
            if reference == "others":
                others.remove(row.label)
            shares = np.array(list(Counter(others).values()), dtype=float) / n
            e = float(-(shares * np.log2(shares)).sum())
            assert_allclose(row.p, same / n, atol=1e-12)
            with np.errstate(divide="ignore"):
                assert_allclose(row.surprisal, -np.log2(same / n), atol=1e-12)
                assert_allclose(row.deviation, -np.log2(same / n) - e, atol=1e-12)
            if reference == "all":
                assert_allclose(entropy.loc[row.item], e, atol=1e-12)


# --------------------------------------------------------------------------- raters


def planted_panel(rng: np.random.Generator) -> pd.DataFrame:
    """200 items, 8 ordinary raters (right 80% of the time), one deviant (right 25% of the
    time, otherwise a random wrong category), one copier (the majority of the others)."""
    n_items, q = 200, 4
    truth = rng.integers(0, q, n_items)

    def noisy(accuracy: float) -> np.ndarray:
        wrong = (truth + rng.integers(1, q, n_items)) % q
        return np.where(rng.random(n_items) < accuracy, truth, wrong)

    columns = {f"rater{k}": noisy(0.8) for k in range(8)}
    columns["deviant"] = noisy(0.25)
    ordinary = np.column_stack([columns[f"rater{k}"] for k in range(8)])
    votes = np.stack([(ordinary == k).sum(axis=1) for k in range(q)], axis=1)
    columns["copier"] = votes.argmax(axis=1)
    return pd.DataFrame(columns)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_planted_deviant_first_and_copier_last(seed: int) -> None:
    wide = planted_panel(np.random.default_rng(seed))
    for reference in ("all", "others"):
        c = consensus(accord.Ratings.from_wide(wide), reference=reference)  # type: ignore[arg-type]
        assert c.raters["rater"].iloc[0] == "deviant", reference
        assert c.raters["rater"].iloc[-1] == "copier", reference
        table = c.raters.set_index("rater")
        assert table.loc["copier", "consensus_kappa"] > table.loc["rater0", "consensus_kappa"]
        assert table.loc["deviant", "consensus_kappa"] < table.loc["rater0", "consensus_kappa"]


def test_gold_accuracy_and_kappa() -> None:
    wide = pd.DataFrame(
        {"a": ["x", "y", "y", "x"], "b": ["x", "x", "y", "y"], "c": ["y", "x", "x", "y"]},
        index=["i1", "i2", "i3", "i4"],
    )
    r = accord.Ratings.from_wide(wide)
    gold = {"i1": "x", "i2": "y", "i3": "y", "i4": None}  # i4 has no gold label
    c = consensus(r, gold=gold)
    table = c.raters.set_index("rater")
    # rater a: x, y, y against x, y, y -> accuracy 1, kappa 1
    assert table.loc["a", "gold_n"] == 3
    assert table.loc["a", "gold_accuracy"] == 1.0
    assert_allclose(table.loc["a", "gold_kappa"], 1.0)
    # rater c: y, x, x against x, y, y -> accuracy 0; kappa from accord.cohen_kappa
    t = accord.ContingencyTable.from_labels(["y", "x", "x"], ["x", "y", "y"], categories=["x", "y"])
    assert table.loc["c", "gold_accuracy"] == 0.0
    assert_allclose(table.loc["c", "gold_kappa"], accord.cohen_kappa(t).statistic)
    assert c.items["gold"].iloc[:3].tolist() == ["x", "y", "y"]
    assert pd.isna(c.items["gold"].iloc[3])
    # a Series and an aligned sequence give the same
    same = consensus(r, gold=pd.Series(gold))
    pd.testing.assert_frame_equal(same.raters, c.raters)
    same = consensus(r, gold=["x", "y", "y", None])
    pd.testing.assert_frame_equal(same.raters, c.raters)


def test_gold_with_numbers_read_as_text() -> None:
    r = accord.Ratings.from_wide([[1, 1, 2], [2, 2, 2]])
    c = consensus(r, gold={0: "1", 1: "2"})
    assert c.raters.set_index("rater").loc[2, "gold_accuracy"] == 0.5


# --------------------------------------------------------------------------- real data


def test_diagnoses_fleiss_1971(examples: Path) -> None:
    r = accord.read_ratings(
        examples / "diagnoses.csv", item="patient", rater="rater", label="diagnosis"
    )
    c = consensus(r)
    items = c.items.set_index("item")
    # Fleiss (1971) Table 1: patient 1: 6 x Neurosis -> entropy 0
    assert items.loc[1, "entropy"] == 0.0
    assert items.loc[1, "mode"] == "Neurosis" and items.loc[1, "modal_share"] == 1.0
    # every item has 6 ratings; entropy matches accord.entropy of its counts
    assert set(items["n_ratings"]) == {6}
    counts = items[[f"count_{k}" for k in r.categories]].to_numpy()
    assert_allclose(items["entropy"], np.asarray(accord.entropy(counts)), atol=1e-12)
    assert c.summary.n_ratings == 180
    assert_allclose(sum(c.summary.class_shares.values()), 1.0)
    d = c.to_dict()
    json.dumps(accord._results._nan_to_none(d))
    assert set(d) >= {"summary", "items", "raters", "method"}


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"reference": "other"}, "The 'reference' parameter of consensus must be one of"),
        ({"missing": "raise"}, "The 'missing' parameter of consensus must be one of"),
        ({"bands": (0, 2, 1)}, "strictly increasing"),
        ({"bands": (0, 1)}, "three finite numbers"),
        ({"bands": "abc"}, "three increasing numbers"),
        ({"base": 1}, "base must be a number greater than 1"),
        ({"base": "two"}, "base must be a number greater than 1"),
        ({"ordinal": True}, "ordinal=True needs ordered categories"),
        ({"gold": {"i1": "z"}}, "label 'z' of item 'i1' is not among the categories"),
        ({"gold": {"nope": "x"}}, "no item of the ratings has a gold label"),
        ({"gold": ["x"]}, "one label per item"),
    ],
)
def test_bad_options(kwargs: dict[str, Any], message: str) -> None:
    r = accord.Ratings.from_wide(
        pd.DataFrame({"a": ["x", "y"], "b": ["x", "x"]}, index=["i1", "i2"])
    )
    with pytest.raises(accord.InvalidInputError, match=message.replace("(", r"\(")):
        consensus(r, **kwargs)


def test_not_ratings() -> None:
    with pytest.raises(accord.InvalidInputError, match="consensus needs a Ratings"):
        consensus([[1, 2]])
    # A frame is read with its column names; without them, the error names the missing ones.
    with pytest.raises(accord.InvalidInputError, match="pass item=, rater=, label="):
        consensus(pd.DataFrame({"a": [1]}))


def test_ordinal_with_missing_category_is_refused() -> None:
    frame = pd.DataFrame({"item": [1, 1, 1], "rater": list("abc"), "label": [1, 2, None]})
    r = accord.Ratings.from_long(frame, item="item", rater="rater", label="label", level="ordinal")
    with pytest.raises(accord.InvalidInputError, match="cannot place the category"):
        consensus(r, ordinal=True, missing="category")


def test_missing_category_name_clash() -> None:
    frame = pd.DataFrame(
        {"item": [1, 1, 1], "rater": list("abc"), "label": ["x", MISSING_CATEGORY, None]}
    )
    r = accord.Ratings.from_long(frame, item="item", rater="rater", label="label")
    with pytest.raises(accord.InvalidInputError, match="already use that name"):
        consensus(r, missing="category")


def test_items_without_any_label_stay_with_nan() -> None:
    frame = pd.DataFrame(
        {"item": [1, 1, 2, 2], "rater": list("abab"), "label": ["x", "y", None, None]}
    )
    r = accord.Ratings.from_long(frame, item="item", rater="rater", label="label")
    c = consensus(r)
    row = c.items.set_index("item").loc[2]
    assert row["n_ratings"] == 0 and np.isnan(row["entropy"]) and pd.isna(row["contested_rank"])
    assert c.items.set_index("item").loc[1, "contested_rank"] == 1


def test_gold_values_match_ids_exactly_then_as_text() -> None:
    # An id is looked up as itself first, then as text (gold keyed by "17" for item 17);
    # an exact key wins even when its label is missing; ids without a key get None.
    from accord.consensus.gold import gold_values as _gold_values

    items = np.array([17, 18, 19, 20], dtype=np.int64)
    got = _gold_values({17: "a", "18": "b", 20: None, "20": "c"}, items)
    assert got.tolist() == ["a", "b", None, None]
    text_items = np.array(["1", "2", "x"], dtype=object)
    assert _gold_values({1: "p", "2": "q"}, text_items).tolist() == ["p", "q", None]
    mixed = np.array([1, "1", 2.0], dtype=object)
    assert _gold_values({1: "p", "1": "t", 2: "r"}, mixed).tolist() == ["p", "t", "r"]
    assert _gold_values({}, items).tolist() == [None] * 4


@given(
    st.dictionaries(st.integers(0, 30), st.sampled_from(["a", "b", None]), max_size=20),
    st.lists(st.integers(0, 40), min_size=1, max_size=30, unique=True),
    st.booleans(),
)
def test_gold_values_equal_dictionary_lookups(
    gold: dict[int, str | None], ids: list[int], as_text: bool
) -> None:
    # The vectorised match equals looking each id up in the mapping, then its text form.
    from accord.consensus.gold import gold_values as _gold_values

    mapping: dict[Any, Any] = {str(k): v for k, v in gold.items()} if as_text else dict(gold)
    by_text = {str(k): v for k, v in mapping.items()}
    expected = [mapping[i] if i in mapping else by_text.get(str(i)) for i in ids]
    assert _gold_values(mapping, np.asarray(ids, dtype=np.int64)).tolist() == expected


def test_gold_values_with_tuple_ids() -> None:
    # Tuple ids of different lengths are ids, matched as wholes.
    from accord.consensus.gold import gold_values as _gold_values

    items = np.empty(3, dtype=object)
    items[:] = [(1, 2), (1, 2, 3), 7]
    got = _gold_values({(1, 2): "a", (1, 2, 3): "b", (9,): "c"}, items)
    assert got.tolist() == ["a", "b", None]


def test_single_category_says_why_the_normalised_entropy_is_nan() -> None:
    r = accord.Ratings.from_wide([["x", "x"], ["x", "x"]])
    s = accord.consensus(r).summary
    assert math.isnan(s.mean_normalized_entropy)
    assert s.reason is not None and "one category (x)" in s.reason and "0/0" in s.reason
    assert s.to_dict()["reason"] == s.reason
    assert accord.consensus(accord.Ratings.from_wide([["x", "y"]])).summary.reason is None


def test_the_public_name_is_the_function_beside_the_package_of_estimators() -> None:
    # `accord.consensus` is the function in every import order (in a fresh interpreter the
    # package of estimators imported first); the estimators stay importable from the package.
    import subprocess
    import sys

    code = (
        "import accord.consensus, accord\n"
        "from accord import consensus\n"
        "from accord.consensus import Consensus, consensus_from_ratings\n"
        "import accord.front.consensus as front\n"
        "assert accord.consensus is consensus is front.consensus, accord.consensus\n"
        "r = accord.Ratings.from_wide([list('AAAABBCD')])\n"
        "assert isinstance(accord.consensus(r), Consensus)\n"
        "assert consensus_from_ratings(r).items.equals(consensus(r).items)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@given(
    frame=long_ratings(max_items=12, max_raters=5, max_categories=3),
    n=st.integers(min_value=-2, max_value=14),
)
def test_most_contested_is_the_head_of_every_ranked_item_sorted(
    frame: pd.DataFrame, n: int
) -> None:
    # ties in the rank are common here (few categories): the head must be the same rows in
    # the same order as sorting every ranked item, whatever n
    c = consensus(ratings_of(frame))
    every = c.items.dropna(subset=["contested_rank"])
    want = every.sort_values(["contested_rank", "modal_share"], kind="stable").head(n)
    pd.testing.assert_frame_equal(c.most_contested(n), want)
