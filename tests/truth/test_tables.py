"""The per-item tables of a rater model built lean (``accord.truth._tables``): the same
values and order as pandas gives them, block by block as on the whole."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from statsmodels.stats.inter_rater import fleiss_kappa

from accord.truth import _quality, _tables
from accord.truth._em import Params, largest_move
from accord.truth._quality import entropy_bits, fleiss_from_counts, next_label_gain


def _params(rng: np.random.Generator, n_raters: int = 4, q: int = 3) -> Params:
    confusion = rng.dirichlet(np.ones(q), size=(n_raters, q))
    return Params(np.full(q, 1 / q), confusion, confusion)


def test_min_rank_is_pandas_rank_with_ties() -> None:
    # ties on purpose: ten values drawn from four
    values = np.random.default_rng(2).choice([0.1, 0.5, 0.5, 0.9], size=40)
    want = pd.Series(values).rank(ascending=False, method="min").astype(np.int64)
    assert _tables._min_rank_descending(values).tolist() == want.tolist()


def test_review_order_is_pandas_stable_sort(monkeypatch: pytest.MonkeyPatch) -> None:
    # posteriors repeated on purpose (ties in both keys), blocks of 7 items
    monkeypatch.setattr(_tables, "ROWS", 7)
    rng = np.random.default_rng(3)
    post = rng.dirichlet(np.ones(3), size=6)[rng.integers(0, 6, size=50)]
    params, n_per = _params(rng), np.array([5.0, 9.0, 2.0, 7.0])
    gold = np.full(50, -1)
    gold[[3, 11, 20]] = [0, 2, 1]
    cols = _tables.item_columns(params, post, n_per)
    got = _tables.review_table(cols, np.arange(50) * 10, ("a", "b", "c"), gold)
    # the same table the way pandas builds it (the earlier implementation)
    expected, reduction = next_label_gain(3, params, post, n_per)
    frame = pd.DataFrame({
        "item": np.arange(50) * 10, "entropy": entropy_bits(post),
        "expected_entropy": expected, "expected_reduction": reduction,
    })  # fmt: skip
    frame = frame[gold < 0].copy()
    frame["entropy_rank"] = frame["entropy"].rank(ascending=False, method="min").astype(np.int64)
    frame = frame.sort_values(["expected_reduction", "entropy"], ascending=False, kind="stable")
    assert got["item"].tolist() == frame["item"].tolist()
    assert got["entropy_rank"].tolist() == frame["entropy_rank"].tolist()
    assert got["rank"].tolist() == list(range(1, 48))
    assert_allclose(got["expected_entropy"], frame["expected_entropy"], rtol=0, atol=0)
    labels = np.array(["a", "b", "c"])[post.argmax(axis=1)][gold < 0]
    assert sorted(got["label"].tolist()) == sorted(labels.tolist())


def test_items_table_holds_the_posteriors_without_a_copy() -> None:
    rng = np.random.default_rng(4)
    post = rng.dirichlet(np.ones(3), size=20)
    gold = np.full(20, -1)
    gold[5] = 1
    cols = _tables.item_columns(_params(rng), post, np.ones(4))
    table = _tables.items_table(cols, post, np.arange(20), ("x", "y", "z"), gold=gold,
                                bounds=(float("nan"), float("nan")))  # fmt: skip
    assert np.shares_memory(table["p_x"].to_numpy(), post)
    assert table["label"].dtype == "category" and table["gold"].dtype == "category"
    assert table["gold"].isna().sum() == 19 and table["gold"].iloc[5] == "y"
    assert table["label"].tolist() == np.array(["x", "y", "z"])[post.argmax(axis=1)].tolist()
    assert table["probability_low"].isna().all() and table["probability_high"].isna().all()
    assert_allclose(table["probability"], post.max(axis=1), rtol=0, atol=0)


def test_fleiss_block_by_block_is_statsmodels(monkeypatch: pytest.MonkeyPatch) -> None:
    # statsmodels' fleiss_kappa (equal ratings per item), blocks of 4 items
    rng = np.random.default_rng(5)
    votes = rng.multinomial(6, [0.5, 0.3, 0.2], size=30).astype(np.float64)
    want = fleiss_kappa(votes)
    monkeypatch.setattr(_quality, "ROWS", 4)
    assert fleiss_from_counts(votes) == pytest.approx(want, abs=1e-12)
    # items with fewer than two ratings are left out, also when a block has none left
    padded = np.vstack([votes[:4], np.zeros((4, 3)), [[1.0, 0, 0]] * 4, votes[4:]])
    assert fleiss_from_counts(padded) == pytest.approx(want, abs=1e-12)


def test_largest_move_by_blocks() -> None:
    rng = np.random.default_rng(6)
    a, b = rng.random((25, 3)), rng.random((25, 3))
    assert largest_move(a, b, rows=4) == np.max(np.abs(a - b))
    assert largest_move(a[:0], b[:0]) == 0.0


@pytest.mark.parametrize("rows", [512, 3])
def test_implied_agreement_is_the_mean_over_pairs_of_their_tables(
    rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # by hand, pair by pair: two raters drawn from the model label an item of true class c
    # with l and l' with probability T_c E_r[c, l] E_s[c, l']; Cohen's kappa of that table
    monkeypatch.setattr(_quality, "PAIR_ROWS", rows)  # 3: blocks of raters cross the pairs
    gen = np.random.default_rng(4)
    confusion = gen.dirichlet(np.ones(3), size=(7, 3)) + 2 * np.eye(3)[None]
    confusion /= confusion.sum(axis=2, keepdims=True)
    prevalence = np.array([0.5, 0.3, 0.2])
    kappas, agreements, shares = [], [], []
    for r in range(7):
        shares.append(prevalence @ confusion[r])
        for s in range(r + 1, 7):
            joint = np.einsum("c,cl,cm->lm", prevalence, confusion[r], confusion[s])
            po = np.trace(joint)
            pe = joint.sum(axis=1) @ joint.sum(axis=0)
            kappas.append((po - pe) / (1 - pe))
            agreements.append(po)
    pooled = np.mean(shares, axis=0)
    fleiss = (np.mean(agreements) - pooled @ pooled) / (1 - pooled @ pooled)
    got = _quality.implied_agreement(confusion, prevalence)
    assert got["pairwise"] == pytest.approx(np.mean(kappas), abs=1e-12)
    assert got["fleiss"] == pytest.approx(fleiss, abs=1e-12)
    one = _quality.implied_agreement(confusion[:1], prevalence)  # no pair: undefined
    assert np.isnan(one["pairwise"]) and np.isnan(one["fleiss"])


def test_entropy_bits_by_hand() -> None:
    p = np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0], [0.25, 0.25, 0.5], [np.nan, 0.5, 0.5]])
    # a NaN share adds nothing, as 0 log 0 does
    assert_allclose(entropy_bits(p, axis=1), [1.0, 0.0, 1.5, 1.0], atol=1e-15)


def test_next_label_gain_is_bayes_label_by_label() -> None:
    # by hand, item by item and label by label: the next label l comes with probability
    # P(l) = sum_c T_c E[c, l] and moves the posterior to T_c E[c, l] / P(l); the expected
    # entropy after is sum_l P(l) H(posterior after l). Posteriors with exact zeros, and a
    # rater who never gives one label (a column of zeros in the mean table)
    gen = np.random.default_rng(8)
    q = 4
    post = gen.dirichlet(np.ones(q), size=30)
    post[:5, 1] = 0.0
    post[:5] /= post[:5].sum(axis=1, keepdims=True)
    post[5] = [1.0, 0.0, 0.0, 0.0]
    confusion = gen.dirichlet(np.ones(q), size=(3, q))
    confusion[:, :, 3] = 0.0
    confusion /= confusion.sum(axis=2, keepdims=True)
    n_per = np.array([4.0, 1.0, 5.0])
    table = np.einsum("r,rcl->cl", n_per / n_per.sum(), confusion)

    def entropy(p: np.ndarray) -> float:
        return float(-sum(x * np.log2(x) for x in p if x > 0))

    want = []
    for t in post:
        after = 0.0
        for label in range(q):
            p_label = float(t @ table[:, label])
            if p_label > 0:
                after += p_label * entropy(t * table[:, label] / p_label)
        want.append(after)
    expected, reduction = next_label_gain(q, Params(np.full(q, 1 / q), confusion, confusion),
                                          post, n_per)  # fmt: skip
    assert_allclose(expected, want, rtol=0, atol=1e-12)
    assert_allclose(reduction, [entropy(t) - w for t, w in zip(post, want, strict=True)],
                    rtol=0, atol=1e-12)  # fmt: skip
    assert reduction[5] == pytest.approx(0.0, abs=1e-12)  # a sure item learns nothing
