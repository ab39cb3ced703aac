"""Thousands of categories: unweighted coefficients never build q x q arrays, and give the
numbers of the dense computation."""

from __future__ import annotations

import contextlib
import math
import os
import resource
import sys
import tracemalloc
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import accord
from accord.agreement import _counts, _shared, _tables, pairwise, two_raters, weights
from accord.stats import pairs


def _ratings(n_items: int, n_raters: int, q: int, seed: int = 0) -> accord.Ratings:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, q, n_items)
    wide = np.where(rng.random((n_items, n_raters)) < 0.5, truth[:, None],
                    rng.integers(0, q, (n_items, n_raters))).astype(float)  # fmt: skip
    wide[rng.random((n_items, n_raters)) < 0.1] = np.nan
    return accord.Ratings.from_wide(wide)


def _summary(table: accord.agreement.AgreementTable) -> list[tuple[str, str, float, float]]:
    return [(c.name, c.weights, c.statistic, c.standard_error) for c in table.coefficients]


def test_sparse_path_equals_the_dense_computation(monkeypatch: pytest.MonkeyPatch) -> None:
    r = _ratings(400, 4, 600)
    assert r.n_categories > _counts.SPARSE_Q
    sparse = accord.agreement(r)
    assert _shared.is_sparse(_counts.prepare(r).counts)
    fleiss_sparse = accord.fleiss_kappa(r).per_category
    # The same data through dense counts, dense identity weights and dense pair tables.
    monkeypatch.setattr(_counts, "SPARSE_Q", 10**9)
    monkeypatch.setattr(_shared, "DENSE_IDENTITY_Q", 10**9)
    monkeypatch.setattr(pairwise, "PAIR_TABLE_CELLS", 10**12)
    assert not _shared.is_sparse(_counts.prepare(r).counts)
    dense = accord.agreement(r)
    for a, b in zip(_summary(sparse), _summary(dense), strict=True):
        assert a[:2] == b[:2]
        assert_allclose(a[2:], b[2:], rtol=1e-10, equal_nan=True, err_msg=str(a[:2]))
    assert_allclose(fleiss_sparse["kappa"], accord.fleiss_kappa(r).per_category["kappa"],
                    rtol=1e-10, equal_nan=True)  # fmt: skip


def test_light_kappa_from_pair_terms_is_the_mean_of_cohen_kappas(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # By hand: each rater pair's Cohen's kappa from its own contingency table.
    r = _ratings(300, 3, 400, seed=2)
    terms = pairs.pair_agreement(r)
    wide = np.full((r.n_items, r.n_raters), -1)
    wide[r.item_codes, r.rater_codes] = r.label_codes
    kappas = []
    for a, b in terms.pairs:
        both = (wide[:, a] >= 0) & (wide[:, b] >= 0)
        assert both.sum() == terms.n[len(kappas)]
        kappas.append(accord.cohen_kappa(wide[both, a], wide[both, b]).statistic)
    dense_tables = accord.light_kappa(r, ci="analytic").statistic
    assert_allclose(dense_tables, np.mean(kappas), rtol=1e-12)
    monkeypatch.setattr(pairwise, "PAIR_TABLE_CELLS", 0)  # the pair-terms route
    assert_allclose(accord.light_kappa(r, ci="analytic").statistic, np.mean(kappas), rtol=1e-12)


def test_five_thousand_categories_allocate_nothing_q_by_q() -> None:
    # 5,000 items x 3 raters over ~4,000 of 5,000 categories: one q x q float array alone
    # would be 200 MB, a dense item x category matrix 200 MB, pair tables 600 MB.
    r = _ratings(5000, 3, 5000, seed=1)
    q = r.n_categories
    assert q > 3500
    tracemalloc.start()
    table = accord.agreement(r)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < q * q * 8 / 4, f"peak {peak / 2**20:.0f} MB"
    names = {c.name for c in table.coefficients}
    assert names >= {"fleiss_kappa", "light_kappa", "conger_kappa", "krippendorff_alpha"}
    for c in table.coefficients:
        assert math.isfinite(c.statistic), c.name


def test_every_entry_point_takes_the_sparse_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    r = _ratings(200, 4, 500, seed=3)
    assert _shared.is_sparse(_counts.prepare(r).counts)
    code = int(r.label_codes[0])
    positive = r.categories[code]

    def run() -> list[float]:
        return [
            accord.pooled_specific_agreement(r, positive=positive).statistic,
            accord.fleiss_kappa(r, ci="bootstrap", n_boot=30, rng=1).standard_error,
            accord.conger_kappa(r, ci="bootstrap", n_boot=30, rng=1).standard_error,
            accord.krippendorff_alpha(r, ci="bootstrap", n_boot=30, rng=1).standard_error,
            accord.gwet_ac2(r, weights="linear").statistic,
        ]

    sparse = run()
    monkeypatch.setattr(_counts, "SPARSE_Q", 10**9)
    monkeypatch.setattr(_shared, "DENSE_IDENTITY_Q", 10**9)
    assert_allclose(sparse, run(), rtol=1e-10)


def test_alpha_on_many_values_without_pairs_warns_at_the_callers_line() -> None:
    # Interval alpha on more than 512 distinct values takes the per-rating-sums path; with
    # every item rated once there is no pair, and the warning must name the user's call
    # (this file), as on every other undefined coefficient.
    r = accord.Ratings.from_arrays(
        np.arange(600), np.zeros(600, dtype=int), np.arange(600) / 7.0, level="interval"
    )
    with pytest.warns(accord.DegenerateDataWarning) as caught:
        out = accord.krippendorff_alpha(r)
    assert math.isnan(out.statistic)
    assert out.reason is not None and "no item has two or more ratings" in out.reason
    assert [w.filename for w in caught] == [__file__]


# --- a hundred thousand labels: nothing q x q in any engine ------------------------------


@contextlib.contextmanager
def _address_space(extra: int) -> Iterator[None]:
    """The process may map only ``extra`` more bytes while the block runs: any q x q array of
    100,000 categories (80 GB) raises MemoryError instead of being built."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as f:
        used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (used + extra, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _distinct_labels(tmp_path: Path, n: int) -> Path:
    """Two raters on ``n`` items; every other item both give one label, else two labels;
    no label recurs elsewhere: 1.5 n distinct labels."""
    codes = np.arange(2 * n)
    codes[1::4] = codes[0::4]  # items 0, 2, 4, ...: the second rating repeats the first
    path = tmp_path / "labels.csv"
    frame = pd.DataFrame({"item": np.repeat(np.arange(n), 2), "rater": np.tile(["a", "b"], n),
                          "label": [f"L{c}" for c in codes]})  # fmt: skip
    frame.to_csv(path, index=False)
    return path


@pytest.mark.skipif(sys.platform != "linux", reason="address-space limit read from /proc")
def test_a_hundred_thousand_nominal_labels_in_bounded_memory(tmp_path: Path) -> None:
    n = 100_000
    path = _distinct_labels(tmp_path, n)
    cols = dict(item="item", rater="rater", label="label")
    with _address_space(2 * 2**30):
        tables = {e: accord.agreement(path, engine=e, **cols) for e in ("memory", "stream")}
        kappa = accord.cohen_kappa(accord.read_ratings(path, **cols))
    # By hand: half the items agree; an agreed label has 2 of the 2n ratings, the others 1.
    # Cohen: p_e = (n/2) (1/n)^2; Fleiss (pooled): p_e = (n/2)(1/n)^2 + n (1/(2n))^2.
    pe_cohen, pe_fleiss = 1 / (2 * n), 3 / (4 * n)
    assert_allclose(kappa.statistic, (0.5 - pe_cohen) / (1 - pe_cohen), rtol=1e-12)
    for engine, table in tables.items():
        got = {c.name: c.statistic for c in table.coefficients}
        assert got["percent_agreement"] == pytest.approx(0.5, rel=1e-12), engine
        assert_allclose(got["fleiss_kappa"], (0.5 - pe_fleiss) / (1 - pe_fleiss), rtol=1e-12)
        assert_allclose(got["light_kappa"], kappa.statistic, rtol=1e-12, err_msg=engine)
    # Two raters: every engine's table opens with Cohen's kappa, the headline of the
    # terminal and the page (here from the pair's filled cells), and the engines give the
    # same rows with the same names and values.
    memory = _summary(tables["memory"])
    assert memory[0][0] == "cohen_kappa"
    assert_allclose(memory[0][2], kappa.statistic, rtol=1e-12)
    for a, b in zip(memory, _summary(tables["stream"]), strict=True):
        assert a[:2] == b[:2]
        assert_allclose(a[2:], b[2:], rtol=1e-10, equal_nan=True, err_msg=str(a[:2]))


@settings(max_examples=25)
@given(st.integers(2, 9), st.integers(0, 2**31 - 1))
def test_cohen_kappa_on_many_categories_equals_the_dense_table(q: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    x = rng.integers(0, q, n).astype(float)
    y = np.where(rng.random(n) < 0.5, x, rng.integers(0, q, n))
    y[rng.random(n) < 0.15] = np.nan  # items only rater x rated
    r = accord.Ratings.from_wide(np.c_[x, y])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", accord.DegenerateDataWarning)
        dense = accord.cohen_kappa(r)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(two_raters, "SPARSE_TABLE_CELLS", 0)
            sparse = accord.cohen_kappa(r)
    assert sparse.table.size == 0  # the path without a table ran
    assert dense.table.size == (r.n_categories**2 if r.n_categories >= 2 else 0)
    for field in ("statistic", "kappa_max", "pabak", "observed_agreement", "chance_agreement"):
        assert_allclose(getattr(sparse, field), getattr(dense, field), rtol=1e-10, atol=1e-14,
                        equal_nan=True, err_msg=field)  # fmt: skip
    # standard errors are square roots: a variance within round-off of 0 (1e-17) is an SE of
    # about 1e-9 on one path and 0 on the other, so the variances are compared
    for field in ("standard_error", "standard_error_null"):
        assert_allclose(getattr(sparse, field) ** 2, getattr(dense, field) ** 2, rtol=1e-9,
                        atol=1e-14, equal_nan=True, err_msg=field)  # fmt: skip
    assert (sparse.n_items, sparse.n_items_unpairable) == (dense.n_items, dense.n_items_unpairable)


@settings(max_examples=25)
@given(st.integers(2, 6), st.integers(2, 8), st.integers(0, 2**31 - 1))
def test_pair_cells_equal_the_dense_pair_tables(n_raters: int, q: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    wide = rng.integers(0, q, (int(rng.integers(1, 30)), n_raters)).astype(float)
    wide[rng.random(wide.shape) < 0.3] = np.nan
    if np.isfinite(wide).sum() == 0:
        wide[0, 0] = 0
    r = accord.Ratings.from_wide(wide)
    tables = pairs.PairTables.from_ratings(r)
    cells = pairs.PairCells.from_ratings(r)
    assert np.array_equal(cells.pairs, tables.pairs)
    dense = np.zeros_like(tables.tables)
    dense[cells.pair, cells.x, cells.y] = cells.count
    assert np.array_equal(dense, tables.tables)
    half = wide.shape[0] // 2  # merge: items split in two, one domain
    parts = (wide, wide[:half], wide[half:])
    rated = all(np.isfinite(part).any() for part in parts)  # an empty half cannot be read
    if rated:
        whole, low, high = (accord.Ratings.from_wide(part, categories=list(range(q)))
                            for part in parts)  # fmt: skip
    if rated and low.raters.tolist() == high.raters.tolist():
        merged = pairs.PairCells.from_ratings(low).merge(pairs.PairTables.from_ratings(high))
        expected = pairs.PairCells.from_ratings(whole)
        assert isinstance(merged, pairs.PairCells)
        for field in ("pairs", "pair", "x", "y", "count"):
            assert np.array_equal(getattr(merged, field), getattr(expected, field)), field
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        k_dense, kept_dense, n_dense = _tables.cohen_pairs(tables)
        k_cells, kept_cells, n_cells = _tables.cohen_pairs(cells)
    assert np.array_equal(kept_dense, kept_cells)
    assert np.array_equal(n_dense, n_cells)
    assert_allclose(k_cells, k_dense, rtol=1e-12, atol=1e-15, equal_nan=True)


def test_stream_engine_pair_cells_give_the_dense_light_kappa(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = _ratings(300, 4, 12, seed=4)
    frame = pd.DataFrame({"item": r.items[r.item_codes], "rater": r.raters[r.rater_codes],
                          "label": np.asarray(r.categories)[r.label_codes]})  # fmt: skip
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    cols = dict(item="item", rater="rater", label="label", coefficients=["light_kappa"])
    dense = accord.agreement(path, engine="stream", **cols).coefficients[0].statistic
    monkeypatch.setattr(pairs, "PAIR_TABLE_CELLS", 0)  # every pair table as its cells
    sparse = accord.agreement(path, engine="stream", **cols).coefficients[0].statistic
    assert_allclose(sparse, dense, rtol=1e-12)
    assert_allclose(dense, accord.light_kappa(r, ci="analytic").statistic, rtol=1e-12)


# --- weights on many categories -------------------------------------------------------------


@settings(max_examples=20)
@given(st.integers(2, 8), st.integers(2, 5), st.integers(0, 2**31 - 1))
@example(2, 2, 147)  # every score the same (one category): NaN with a reason on both paths
def test_quadratic_weights_without_a_matrix_equal_the_dense_ones(
    q: int, n_raters: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    wide = rng.integers(0, q, (int(rng.integers(3, 30)), n_raters)).astype(float) * 1.5
    wide[rng.random(wide.shape) < 0.2] = np.nan
    r = accord.Ratings.from_wide(wide, level="interval")
    names = ["percent_agreement", "fleiss_kappa", "conger_kappa", "brennan_prediger", "gwet_ac2"]

    def run() -> list[tuple[str, str, float, float]]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", accord.DegenerateDataWarning)
            out = _summary(accord.agreement(r, coefficients=names))
            alpha = accord.krippendorff_alpha(r, weights="quadratic")
        return [*out, ("alpha", "quadratic", alpha.statistic, alpha.standard_error)]

    dense = run()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(weights, "DENSE_WEIGHT_CELLS", 0)
        if r.n_categories > 1:  # one category keeps the 1 x 1 identity
            assert isinstance(_counts.weight_matrix("quadratic", _counts.prepare(r), "t")[0],
                              weights.LowRankWeights)  # fmt: skip
        low_rank = run()
    for a, b in zip(dense, low_rank, strict=True):
        assert a[:2] == b[:2]
        assert_allclose(a[2:], b[2:], rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=str(a[:2]))


def test_two_hundred_thousand_distinct_scores_take_quadratic_weights_without_a_matrix() -> None:
    # 200,000 distinct scores: a q x q float matrix would be 320 GB.
    rng = np.random.default_rng(5)
    truth = rng.normal(size=100_000)
    wide = np.round(truth[:, None] + rng.normal(scale=0.5, size=(100_000, 2)), 6)
    r = accord.Ratings.from_wide(wide, level="interval")
    assert r.n_categories > 150_000
    with _address_space(2 * 2**30):
        table = accord.agreement(r, coefficients=["percent_agreement", "fleiss_kappa",
                                                  "krippendorff_alpha"])  # fmt: skip
    got = {(c.name, c.weights): c.statistic for c in table.coefficients}
    # By hand: quadratic-weighted percent agreement is 1 - mean (x_a - x_b)^2 / span^2.
    span = float(np.nanmax(wide) - np.nanmin(wide))
    expected = 1.0 - np.mean((wide[:, 0] - wide[:, 1]) ** 2) / span**2
    assert_allclose(got[("percent_agreement", "quadratic")], expected, rtol=1e-10)
    # Quadratic-weighted Fleiss' kappa is interval alpha up to the factor (n - 1)/n of its
    # chance term (Krippendorff 2004, "alpha and Scott's pi"): the two agree to 1e-4 here.
    assert_allclose(got[("fleiss_kappa", "quadratic")], got[("krippendorff_alpha", "interval")],
                    rtol=1e-4)  # fmt: skip


def test_other_weights_on_many_categories_are_refused_in_one_line() -> None:
    values = np.arange(5000, dtype=float)  # 5,000 x 5,000 = 25M cells: over the bound
    r = accord.Ratings.from_wide(np.c_[values, values[::-1]], level="interval")
    message = r"linear weights on 5,000 categories would need a 5,000 x 5,000 matrix.*quadratic"
    with pytest.raises(accord.InvalidInputError, match=message):
        accord.fleiss_kappa(r, weights="linear")
    ratio = accord.Ratings.from_wide(np.c_[values + 1, values[::-1] + 1], level="ratio")
    with pytest.raises(accord.InvalidInputError, match=r"ratio metric on 5,000 categories"):
        accord.krippendorff_alpha(ratio)
    row = [c for c in accord.agreement(ratio).coefficients if c.weights == "ratio"]
    assert math.isnan(row[0].statistic) and "5,000 categories" in str(row[0].reason)


def test_scores_default_to_alpha_and_the_iccs_and_name_what_was_left_out(
    tmp_path: Path,
) -> None:
    # PEFR (Bland & Altman 1986): two meters' readings of 17 subjects, interval scores. By
    # default the table holds alpha at the interval level and the six ICC forms; the
    # coefficients that count exact matches of values are named as left out, and asking for
    # them by name computes them (as before).
    from accord.agreement.summary import COEFFICIENTS

    r = accord.datasets.load_pefr()
    table = accord.agreement(r)
    names = {c.name for c in table.coefficients}
    assert names == {"krippendorff_alpha", "icc"}
    assert [c.weights for c in table.coefficients if c.name == "krippendorff_alpha"] == ["interval"]
    assert set(table.left_out) == set(COEFFICIENTS) - {"krippendorff_alpha", "icc"}
    assert table.to_dict()["left_out"] == list(table.left_out)
    every = accord.agreement(r, coefficients=list(COEFFICIENTS))
    assert every.left_out == ()
    assert {"percent_agreement", "fleiss_kappa"} <= {c.name for c in every.coefficients}
    # the same rows and values from the stream engine's statistics
    path = tmp_path / "pefr.csv"
    r.to_pandas().to_csv(path, index=False)
    cols = r.to_pandas().columns
    streamed = accord.agreement(
        str(path), engine="stream", item=cols[0], rater=cols[1], label=cols[2], level="interval"
    )
    assert [(c.name, c.weights) for c in streamed.coefficients] == [
        (c.name, c.weights) for c in table.coefficients
    ]
    assert streamed.left_out == table.left_out
    alpha = next(c for c in table.coefficients if c.name == "krippendorff_alpha")
    direct = accord.krippendorff_alpha(r, level="interval")
    assert alpha.statistic == pytest.approx(direct.statistic, rel=1e-12)
    # categories keep every coefficient
    assert accord.agreement(accord.datasets.load_diagnoses()).left_out == ()


def test_two_rater_tables_open_with_cohen_kappa_on_every_engine(tmp_path: Path) -> None:
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(7)
    n = 120
    x = rng.integers(1, 5, n)
    y = np.where(rng.random(n) < 0.6, x, rng.integers(1, 5, n))
    frame = pd.DataFrame({"item": np.repeat(np.arange(n), 2), "rater": np.tile(["b", "a"], n),
                          "label": np.c_[x, y].ravel()})  # fmt: skip
    frame.drop(index=[5, 40, 41]).to_csv(tmp_path / "two.csv", index=False)
    both = np.setdiff1d(np.arange(n), [2, 20])  # item 2 lost rater a's rating, item 20 both
    cols = dict(item="item", rater="rater", label="label", level="ordinal")
    memory = accord.agreement(accord.read_ratings(tmp_path / "two.csv", **cols))
    tables = {e: accord.agreement(tmp_path / "two.csv", engine=e, **cols)
              for e in ("stream", "dask")}  # fmt: skip
    # scikit-learn side by side: unweighted, then quadratic-weighted Cohen's kappa
    expected = [cohen_kappa_score(x[both], y[both]),
                cohen_kappa_score(x[both], y[both], weights="quadratic")]  # fmt: skip
    for engine, table in {"memory": memory, **tables}.items():
        head = table.coefficients[:2]
        assert [(c.name, c.weights) for c in head] == [
            ("cohen_kappa", "identity"),
            ("cohen_kappa", "quadratic"),
        ], engine
        assert_allclose([c.statistic for c in head], expected, rtol=1e-12, err_msg=engine)
        assert [c.n_items_unpairable for c in head] == [1, 1], engine
        rows = _summary(table)
        assert [r[:2] for r in rows] == [r[:2] for r in _summary(memory)], engine
        assert_allclose([r[2:] for r in rows], [r[2:] for r in _summary(memory)], rtol=1e-10,
                        equal_nan=True, err_msg=engine)  # fmt: skip
