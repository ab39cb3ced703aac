"""Two raters: Cohen's kappa, Scott's pi, informational agreement, best dichotomisation.

Every expected number cites its source: the golden vectors in tests/reference/two_raters.json
(published tables), a peer library run side by side, or a computation written out in the test.
"""

from __future__ import annotations

import itertools
import json
import math
import warnings
from decimal import Decimal, localcontext
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import accord
from accord import (
    ContingencyTable,
    DegenerateDataWarning,
    InvalidInputError,
    Ratings,
    best_dichotomization,
    cohen_kappa,
    informational_agreement,
    scott_pi,
    specific_agreement,
)
from accord.agreement.two_raters import _information_core, _kappa_core, bootstrap_table

REFERENCE = json.loads(
    (Path(__file__).parents[1] / "reference" / "two_raters.json").read_text(encoding="utf-8")
)
BIRADS = REFERENCE["dichotomization"]["table"]


# ------------------------------------------------------------------ golden vectors


@pytest.mark.parametrize("case", REFERENCE["kappa"], ids=lambda c: c["source"][:40])
def test_cohen_kappa_published_vectors(case: dict) -> None:
    kwargs = {
        k: case[k]
        for k in ("weights", "agreement_weights", "disagreement_weights", "categories")
        if k in case
    }
    res = cohen_kappa(case["table"], **kwargs)
    tol = {"rtol": case["rtol"]} if "rtol" in case else {"atol": case["atol"], "rtol": 0}
    exp = case["expected"]
    assert_allclose(res.statistic, exp["kappa"], **tol)  # source: case["source"]
    if "standard_error" in exp:
        assert_allclose(res.standard_error, exp["standard_error"], **tol)
    if "standard_error_null" in exp:
        assert_allclose(res.standard_error_null, exp["standard_error_null"], **tol)
    if "observed_agreement" in exp:
        assert_allclose(res.observed_agreement, exp["observed_agreement"], **tol)
    if "scott_pi" in exp:
        assert_allclose(scott_pi(case["table"]).statistic, exp["scott_pi"], **tol)


@pytest.mark.parametrize("case", REFERENCE["informational_agreement"], ids=lambda c: c["name"])
def test_informational_agreement_paper_tables(case: dict) -> None:
    # Casagrande, Fabris & Girometti (2020), Tables 1-3 (see each case's "source").
    res = informational_agreement(case["table"], n_boot=0)
    assert_allclose(res.statistic, case["ia"], rtol=1e-9 if case["name"] != "balanced" else 2e-6)
    assert abs(res.kappa - case["kappa"]) <= 5e-4 + 1e-12  # the paper rounds to 3 decimals
    assert abs(cohen_kappa(case["table"]).statistic - res.kappa) < 1e-15


@pytest.mark.parametrize("case", REFERENCE["informational_agreement_degenerate"])
def test_informational_agreement_degenerate_vectors(case: dict) -> None:
    res = informational_agreement(case["table"], n_boot=0)
    assert_allclose(res.statistic, case["ia"], rtol=1e-12)  # source: case["source"]


def test_birads_table_two_from_bundled_example(examples: Path) -> None:
    # Casagrande et al. (2020), Table 2: kappa 0.821, IA 0.729 (spec: 0.820757, 0.7291088595).
    table = ContingencyTable.read_csv(examples / "birads-table.csv")
    assert_allclose(cohen_kappa(table).statistic, 0.820757, atol=5e-7)
    assert_allclose(informational_agreement(table, n_boot=0).statistic, 0.7291088595, rtol=1e-9)


def test_birads_long_ratings_give_the_same_table(examples: Path) -> None:
    ratings = accord.read_ratings(
        examples / "birads.csv", item="finding", rater="modality", label="birads"
    )
    table = ContingencyTable.read_csv(examples / "birads-table.csv")
    res = cohen_kappa(ratings, raters=("ABVS", "US"))
    assert_allclose(res.table, table.counts)  # the long file is Table 2 item by item
    assert res.raters == ("ABVS", "US")
    assert res.n_items == 186 and res.n_raters == 2


def test_best_dichotomization_reproduces_figure_two_and_table_three() -> None:
    ref = REFERENCE["dichotomization"]  # Casagrande et al. (2020), Fig. 2 and Table 3
    res = best_dichotomization(ref["table"], categories=[1, 2, 3, 4, 5])
    assert_allclose(res.cuts["kappa"], ref["kappa"], atol=ref["atol"])
    assert_allclose(res.cuts["informational_agreement"], ref["ia"], atol=ref["atol"])
    assert res.best_kappa == ref["best_cut"] == res.best_informational_agreement
    best = res.cuts.iloc[ref["best_cut"] - 1]
    cells = [[best.n_low_low, best.n_low_high], [best.n_high_low, best.n_high_high]]
    assert_allclose(cells, ref["best_table"])
    assert best.split == "1-2 | 3-5"
    assert res.to_dict()["best_kappa"] == 2


def _diagnoses_pair(examples: Path) -> tuple[np.ndarray, np.ndarray]:
    """Raters 1 and 2 of the bundled psychiatric diagnoses (nominal text labels)."""
    frame = pd.read_csv(examples / "diagnoses.csv")
    wide = frame.pivot(index="patient", columns="rater", values="diagnosis")
    return wide["rater1"].to_numpy(dtype=object), wide["rater2"].to_numpy(dtype=object)


def test_dichotomization_of_nominal_text_labels_is_one_vs_rest(examples: Path) -> None:
    from sklearn.metrics import cohen_kappa_score, f1_score, mutual_info_score

    x, y = _diagnoses_pair(examples)
    res = best_dichotomization(x, y)
    # No cut of the alphabetical order ("Depression-Neurosis | Other-Schizophrenia"): each
    # diagnosis against the rest.
    assert res.kind == "one-vs-rest"
    assert "against the rest" in res.method and "no declared order" in res.method
    cats = sorted(set(x) | set(y))
    assert list(res.cuts["category"]) == cats
    assert list(res.cuts["split"]) == [f"{c} | rest" for c in cats]
    for row in res.cuts.itertuples():
        xb, yb = x == row.category, y == row.category
        # Peers side by side: sklearn's kappa and F1 (= specific agreement) of the binarised
        # labels, and IA written out as MI / min(H) with sklearn's mutual information.
        assert_allclose(row.kappa, cohen_kappa_score(xb, yb), rtol=1e-12)
        assert_allclose(row.specific_agreement, f1_score(xb, yb), rtol=1e-12)
        hx = -sum(p * math.log(p) for p in (xb.mean(), 1 - xb.mean()) if p > 0)
        hy = -sum(p * math.log(p) for p in (yb.mean(), 1 - yb.mean()) if p > 0)
        assert_allclose(row.informational_agreement, mutual_info_score(xb, yb) / min(hx, hy))
        assert row.n_in_in == np.sum(xb & yb) and row.n_in_rest == np.sum(xb & ~yb)
        assert row.n_rest_in == np.sum(~xb & yb) and row.n_rest_rest == np.sum(~xb & ~yb)
    assert res.cuts.loc[res.cuts["cut"] == res.best_kappa, "kappa"].iloc[0] == max(
        res.cuts["kappa"]
    )
    assert res.to_dict()["kind"] == "one-vs-rest"
    per_category = specific_agreement(x, y).per_category
    assert_allclose(res.cuts["specific_agreement"], per_category["specific_agreement"])


def test_dichotomization_cuts_only_an_ordered_scale() -> None:
    table = ContingencyTable(BIRADS, categories=["BR1", "BR2", "BR3", "BR4", "BR5"])
    # A table with text categories carries no level: nominal unless told otherwise.
    assert best_dichotomization(table).kind == "one-vs-rest"
    ordinal = best_dichotomization(table, level="ordinal")
    assert ordinal.kind == "cuts" and ordinal.best_kappa == 2
    assert "level ordinal" in ordinal.method
    assert ordinal.cuts["split"].iloc[1] == "BR1-BR2 | BR3-BR5"
    # Numbers are ordered; a bare array's categories are its positions 0 .. q-1.
    assert best_dichotomization(BIRADS).kind == "cuts"
    assert best_dichotomization(BIRADS, categories=[1, 2, 3, 4, 5]).kind == "cuts"
    assert best_dichotomization(BIRADS, level="nominal").kind == "one-vs-rest"
    # Declared text categories are an order.
    x = ["low", "high", "medium", "low", "high"]
    y = ["low", "medium", "medium", "low", "high"]
    declared = best_dichotomization(x, y, categories=["low", "medium", "high"])
    assert declared.kind == "cuts" and list(declared.cuts["split"]) == [
        "low | medium-high",
        "low-medium | high",
    ]
    assert "declared order" in declared.method
    assert best_dichotomization(x, y).kind == "one-vs-rest"
    # An ordered level on text sorted alphabetically would cut high | low-medium: refused.
    with pytest.raises(InvalidInputError, match=r"sorted alphabetically.*categories=\["):
        best_dichotomization(x, y, level="ordinal")
    with pytest.raises(InvalidInputError, match="'level' parameter of best_dichotomization"):
        best_dichotomization(x, y, level="ordered")  # type: ignore[arg-type]


def test_dichotomization_follows_the_level_of_ratings() -> None:
    items = [1, 1, 2, 2, 3, 3, 4, 4]
    raters = ["a", "b"] * 4
    labels = ["low", "low", "high", "medium", "medium", "medium", "low", "high"]
    order = ["low", "medium", "high"]
    ordinal = Ratings.from_arrays(items, raters, labels, level="ordinal", categories=order)
    assert best_dichotomization(ordinal).kind == "cuts"
    nominal = Ratings.from_arrays(items, raters, labels)
    assert best_dichotomization(nominal).kind == "one-vs-rest"
    with pytest.raises(InvalidInputError, match="sorted alphabetically"):
        best_dichotomization(nominal, level="ordinal")
    declared = Ratings.from_arrays(items, raters, labels, categories=order)
    assert best_dichotomization(declared).kind == "cuts"
    numeric = Ratings.from_arrays(items, raters, [1, 1, 3, 2, 2, 2, 1, 3])
    assert best_dichotomization(numeric).kind == "cuts"


@given(
    st.lists(st.lists(st.integers(0, 6), min_size=3, max_size=3), min_size=3, max_size=3),
    st.permutations(range(3)),
)
def test_one_vs_rest_rows_follow_a_renaming_of_the_categories(
    cells: list[list[int]], perm: list[int]
) -> None:
    assume(sum(map(sum, cells)) > 0)
    counts = np.asarray(cells, dtype=float)
    names = ["a", "b", "c"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        base = best_dichotomization(ContingencyTable(counts, names)).cuts
        moved = best_dichotomization(
            ContingencyTable(counts[np.ix_(perm, perm)], [names[i] for i in perm])
        ).cuts
    by_category = moved.set_index("category").loc[names]
    for column in ("kappa", "specific_agreement", "informational_agreement", "n_in_in"):
        assert_allclose(by_category[column].to_numpy(), base[column].to_numpy())


# ------------------------------------------------------------------ peers side by side


def _labels(table: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Expand a table into two aligned label vectors (one pair per item)."""
    counts = np.asarray(table, dtype=int)
    rows, cols = np.nonzero(counts)
    reps = counts[rows, cols]
    return np.repeat(rows, reps), np.repeat(cols, reps)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize(
    "table", [BIRADS, [[0, 4, 1], [0, 8, 0], [0, 1, 5]], [[106, 10, 4], [22, 28, 10], [2, 12, 6]]]
)
def test_cohen_kappa_matches_statsmodels_and_sklearn(table: list, weights: str | None) -> None:
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import cohens_kappa

    q = len(table)
    res = cohen_kappa(table, weights=weights, categories=list(range(q)))
    # statsmodels.stats.inter_rater.cohens_kappa(table, wt=...): kappa, std_kappa, std_kappa0
    sm = cohens_kappa(np.asarray(table), wt=weights)
    assert_allclose(res.statistic, sm.kappa, rtol=1e-12)
    assert_allclose(res.standard_error, sm.std_kappa, rtol=1e-10)
    assert_allclose(res.standard_error_null, sm.std_kappa0, rtol=1e-10)
    # sklearn.metrics.cohen_kappa_score(x, y, weights=...) on the expanded labels
    x, y = _labels(table)
    sk = cohen_kappa_score(x, y, weights=weights, labels=list(range(q)))
    assert_allclose(res.statistic, sk, rtol=1e-12)
    assert_allclose(cohen_kappa(x, y, weights=weights, categories=range(q)).statistic, sk)


def test_scott_pi_matches_nltk_multi_pi() -> None:
    from nltk.metrics.agreement import AnnotationTask

    x, y = _labels(BIRADS)
    data = [("x", str(i), str(v)) for i, v in enumerate(x)]
    data += [("y", str(i), str(v)) for i, v in enumerate(y)]
    # nltk AnnotationTask(data).pi(): Scott's pi (multi-pi, which is Scott's for two coders)
    assert_allclose(scott_pi(BIRADS).statistic, AnnotationTask(data).pi(), rtol=1e-12)


# --------------------------------------------------- standard errors: delta method


def _numeric_delta_se(stat, table: np.ndarray, h: float = 1e-6) -> float:
    """Delta-method SE by central differences of ``stat`` over the cell proportions:
    Var = (sum p g^2 - (sum p g)^2) / n (multinomial sampling of items)."""
    n = table.sum()
    p = table / n
    grad = np.zeros_like(p)
    for idx in np.ndindex(p.shape):
        up, down = p.copy(), p.copy()
        up[idx] += h
        down[idx] -= h
        grad[idx] = (stat(up) - stat(down)) / (2 * h)
    mean = float(np.sum(p * grad))
    return math.sqrt((float(np.sum(p * grad**2)) - mean**2) / n)


def _kappa_of(p: np.ndarray, w: np.ndarray) -> float:
    """Kappa written out from its definition (proportions need not sum to 1 here)."""
    total = p.sum()
    px, py = p.sum(axis=1) / total, p.sum(axis=0) / total
    po = float(np.sum(w * p)) / total
    pe = float(px @ w @ py)
    return (po - pe) / (1 - pe)


def _scott_of(p: np.ndarray, w: np.ndarray) -> float:
    total = p.sum()
    pooled = (p.sum(axis=1) + p.sum(axis=0)) / (2 * total)
    po = float(np.sum(w * p)) / total
    pe = float(pooled @ w @ pooled)
    return (po - pe) / (1 - pe)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_and_pi_standard_errors_are_the_delta_method(weights: str | None) -> None:
    # FCE (1969) and Gwet's linearisation are the delta method: check against numerical
    # derivatives of the definitions above.
    table = np.asarray(BIRADS, dtype=float)
    k = cohen_kappa(table, weights=weights)
    p = scott_pi(table, weights=weights)
    w = k.weight_matrix
    assert_allclose(k.standard_error, _numeric_delta_se(lambda q: _kappa_of(q, w), table), 1e-6)
    assert_allclose(p.standard_error, _numeric_delta_se(lambda q: _scott_of(q, w), table), 1e-6)


def test_finite_population_correction_scales_the_variance() -> None:
    full = cohen_kappa(BIRADS)
    fpc = cohen_kappa(BIRADS, population_size=372)  # 1 - 186/372 = 1/2
    assert_allclose(fpc.standard_error, full.standard_error * math.sqrt(0.5))
    with pytest.raises(InvalidInputError, match="population_size"):
        cohen_kappa(BIRADS, population_size=100)


def test_kappa_interval_and_pvalue_use_t_on_items_minus_one() -> None:
    from scipy import stats

    res = cohen_kappa([[0, 4, 1], [0, 8, 0], [0, 1, 5]])
    t = stats.t.ppf(0.975, 18)  # 19 items -> 18 df (t interval on n - 1 df)
    low, high = res.confidence_interval()
    assert_allclose(
        [low, high],
        [res.statistic - t * res.standard_error, res.statistic + t * res.standard_error],
    )
    assert_allclose(res.pvalue, 2 * stats.t.sf(res.statistic / res.standard_error, 18))


# ------------------------------------------------------------- indices beside kappa


def test_pabak_prevalence_bias_on_a_two_by_two_table() -> None:
    # [[a, b], [c, d]] = [[40, 5], [10, 45]] (n = 100): hand computation
    res = cohen_kappa([[40, 5], [10, 45]])
    assert_allclose(res.pabak, 2 * 0.85 - 1)  # Byrt, Bishop & Carlin (1993): 2 p_o - 1
    assert_allclose(res.prevalence_index, abs(0.40 - 0.45))
    assert_allclose(res.bias_index, abs(0.05 - 0.10))
    three = cohen_kappa(BIRADS)
    assert math.isnan(three.prevalence_index) and math.isnan(three.bias_index)
    assert_allclose(three.pabak, (5 * three.percent_agreement - 1) / 4)


def test_kappa_max_unweighted_by_hand() -> None:
    # BI-RADS margins: rows 57, 82, 17, 25, 5; columns 54, 83, 15, 21, 13 (n = 186).
    rows = np.array([57, 82, 17, 25, 5]) / 186
    cols = np.array([54, 83, 15, 21, 13]) / 186
    pe = float(rows @ cols)
    pmax = (54 + 82 + 15 + 21 + 5) / 186  # sum of the smaller margins
    assert_allclose(cohen_kappa(BIRADS).kappa_max, (pmax - pe) / (1 - pe))


def test_weighted_kappa_max_matches_brute_force_over_integer_tables() -> None:
    # With integer margins the transportation optimum is attained at an integer table, so
    # enumerating every integer table with the observed margins gives the exact maximum.
    table = np.array([[2, 1, 0], [0, 1, 2], [1, 0, 1]])
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    res = cohen_kappa(table, weights="quadratic")
    w = res.weight_matrix
    best = -np.inf
    for a, b in itertools.product(range(rows[0] + 1), repeat=2):
        for c, d in itertools.product(range(rows[1] + 1), repeat=2):
            m = np.array([[a, b, rows[0] - a - b], [c, d, rows[1] - c - d], [0, 0, 0]])
            if (m < 0).any():
                continue
            m[2] = cols - m[:2].sum(axis=0)
            if (m[2] < 0).any() or m[2].sum() != rows[2]:
                continue
            best = max(best, float(np.sum(w * m)) / table.sum())
    pe = res.chance_agreement
    assert_allclose(res.kappa_max, (best - pe) / (1 - pe), rtol=1e-9)


# ------------------------------------------------------------------ weights


def test_weights_use_the_declared_category_scale() -> None:
    # Scores 1, 2, 5: linear weights 1 - |x_k - x_l| / 4 (not positions 1, 2, 3).
    res = cohen_kappa([[5, 1, 0], [1, 5, 1], [0, 1, 5]], weights="linear", categories=[1, 2, 5])
    assert_allclose(res.weight_matrix[0], [1.0, 0.75, 0.0])
    assert res.categories == (1, 2, 5)
    text = cohen_kappa(
        [[5, 1, 0], [1, 5, 1], [0, 1, 5]], weights="linear", categories=["lo", "mid", "hi"]
    )
    assert_allclose(text.weight_matrix[0], [1.0, 0.5, 0.0])


def test_weight_option_errors() -> None:
    with pytest.raises(
        InvalidInputError,
        match=r"The 'weights' parameter of cohen_kappa must be one of .*Got 'quadatic' instead",
    ):
        cohen_kappa(BIRADS, weights="quadatic")
    with pytest.raises(InvalidInputError, match=r"agreement_weights= .* disagreement_weights="):
        cohen_kappa(BIRADS, weights=np.eye(5))  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="at most one"):
        cohen_kappa(BIRADS, agreement_weights=np.eye(5), disagreement_weights=1 - np.eye(5))
    with pytest.raises(InvalidInputError, match="0 on the diagonal"):
        cohen_kappa(BIRADS, disagreement_weights=np.ones((5, 5)))
    with pytest.raises(InvalidInputError, match="1 on the diagonal"):
        cohen_kappa(BIRADS, agreement_weights=1 - np.eye(5))
    with pytest.raises(InvalidInputError, match="5 x 5"):
        cohen_kappa(BIRADS, disagreement_weights=1 - np.eye(4))
    with pytest.raises(InvalidInputError, match="all 0"):
        cohen_kappa(BIRADS, disagreement_weights=np.zeros((5, 5)))


# ------------------------------------------------------------------ inputs


def test_inputs_table_labels_and_ratings_agree() -> None:
    x, y = _labels(BIRADS)
    from_table = cohen_kappa(ContingencyTable(BIRADS)).statistic
    assert_allclose(cohen_kappa(x, y).statistic, from_table)
    frame = pd.DataFrame(
        {
            "item": np.r_[np.arange(x.size), np.arange(x.size), [999]],
            "rater": ["A"] * x.size + ["B"] * x.size + ["A"],
            "label": np.r_[x, y, [0]],
        }
    )
    ratings = Ratings.from_long(frame, item="item", rater="rater", label="label")
    res = cohen_kappa(ratings)
    assert_allclose(res.statistic, from_table)
    assert res.n_items_unpairable == 1  # item 999 was rated by A only


def test_ratings_with_three_raters_need_a_choice() -> None:
    r = Ratings.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "b", "a"], ["b", "b", "a"]])
    with pytest.raises(InvalidInputError, match="exactly two raters"):
        cohen_kappa(r)
    res = cohen_kappa(r, raters=(0, 2))
    # columns 0 and 2: (a,b), (b,b), (a,a), (b,a): p_o = 1/2, margins 1/2 each -> kappa 0
    assert_allclose(res.statistic, 0.0, atol=1e-15)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([[1, 2, 3], [4, 5, 6]], "square"),
        ([[1, -2], [3, 4]], "negative"),
        ([[0, 0], [0, 0]], "empty"),
        ([[5]], "at least 2 categories"),
    ],
)
def test_bad_tables_raise(bad: list, message: str) -> None:
    for fn in (cohen_kappa, informational_agreement, scott_pi, best_dichotomization):
        with pytest.raises(InvalidInputError, match=message):
            fn(bad)


@pytest.mark.parametrize("n_boot", [-1, 2.5, "100", True])
def test_bad_n_boot_raises(n_boot: object) -> None:
    for fn in (informational_agreement, specific_agreement):
        with pytest.raises(InvalidInputError, match="'n_boot' parameter"):
            fn([[3, 1], [1, 3]], n_boot=n_boot)  # type: ignore[arg-type]


def test_bad_interval_and_test_options_raise() -> None:
    kappa = cohen_kappa([[3, 1], [1, 3]])
    with pytest.raises(InvalidInputError, match="'method' parameter"):
        kappa.confidence_interval(method="wald")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="'alternative' parameter"):
        kappa.test("bigger")  # type: ignore[arg-type]
    with pytest.warns(DegenerateDataWarning):
        undefined = cohen_kappa([[7, 0], [0, 0]])
    with pytest.raises(InvalidInputError, match="'alternative' parameter"):
        undefined.test("bigger")  # type: ignore[arg-type]


def test_ci_method_names_the_default_interval() -> None:
    """``to_dict()["ci_method"]`` is the result's ``ci_description``, for every result kind."""
    results = [
        cohen_kappa(BIRADS),
        informational_agreement(BIRADS, n_boot=0),
        informational_agreement(BIRADS, n_boot=20, rng=0),
        specific_agreement([[40, 5], [10, 45]]),
    ]
    for res in results:
        assert res.to_dict()["ci_method"] == res.ci_description
    assert results[0].ci_description.startswith("t interval")
    assert results[1].ci_description.startswith("none")
    assert results[2].ci_description == "bootstrap BCa over items, 20 replicates"
    assert results[3].ci_description.startswith("Wilson")


def test_one_label_vector_is_an_error() -> None:
    with pytest.raises(InvalidInputError, match="rater Y's labels"):
        cohen_kappa(["a", "b", "a"])


# ------------------------------------------------------------------ degenerate data


def test_single_category_kappa_is_nan_with_reason_and_warning() -> None:
    with pytest.warns(DegenerateDataWarning, match="one and the same category"):
        res = cohen_kappa([[7, 0], [0, 0]])
    assert math.isnan(res.statistic) and math.isnan(res.standard_error)
    assert "0/0" in (res.reason or "")
    assert res.to_dict()["statistic"] != res.to_dict()["statistic"]  # NaN survives to_dict
    with pytest.warns(DegenerateDataWarning):
        pi = scott_pi([[7, 0], [0, 0]])
    assert math.isnan(pi.statistic) and pi.reason


def test_perfect_disagreement_has_ia_one_and_kappa_minus_one() -> None:
    # IA measures dependence, not diagonal agreement.
    res = informational_agreement([[0, 10], [10, 0]], n_boot=0)
    assert res.statistic == 1.0 and res.kappa == -1.0
    merged = informational_agreement([[10, 0, 0], [0, 10, 0], [0, 10, 0]], n_boot=0)
    assert_allclose(merged.statistic, 1.0)  # Y merges two of X's categories


# ------------------------------------------------- IA: continuity extension = limit


def _ia_with_epsilon(table: list[list[int]], eps: Decimal) -> Decimal:
    """IA of the table with every zero cell replaced by eps, in exact-enough decimals."""
    cells = [[Decimal(v) if v else eps for v in row] for row in table]
    n = sum(sum(row) for row in cells)
    p = [[v / n for v in row] for row in cells]
    px = [sum(row) for row in p]
    py = [sum(col) for col in zip(*p, strict=True)]

    def h(values: list[Decimal]) -> Decimal:
        return -sum((v * v.ln() for v in values), Decimal(0))

    hx, hy = h(px), h(py)
    hxy = h([v for row in p for v in row])
    return (hx + hy - hxy) / min(hx, hy)


@pytest.mark.parametrize(
    "table",
    [
        [[3, 0], [0, 0]],  # one non-empty cell: 1 - 1/2
        [[5, 0, 0], [3, 0, 0], [0, 0, 0]],  # H(Y) = 0: 1 - 2/3
        [[4, 3, 0], [0, 0, 0], [0, 0, 0]],  # H(X) = 0: 1 - 2/3
        [[0, 4], [0, 3]],  # H(Y) = 0, X uses both: 1 - 2/2
        [[2, 0, 0], [0, 0, 0], [0, 0, 1]],  # both entropies > 0 with zero cells
        [[6, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]],  # H(X) = 0, q = 4
    ],
)
def test_ia_closed_forms_equal_the_epsilon_limit(table: list[list[int]]) -> None:
    # IA(eps) converges like 1/ln(1/eps); evaluate it at eps = 10^-k (k = 50 .. 400) in
    # 450-digit decimals and extrapolate to 1/k -> 0 with a cubic through the 4 points.
    ks = np.array([50, 100, 200, 400])
    with localcontext() as ctx:
        ctx.prec = 450
        values = np.array([float(_ia_with_epsilon(table, Decimal(10) ** -int(k))) for k in ks])
    limit = np.linalg.solve(np.vander(1.0 / ks, 4), values)[-1]
    res = informational_agreement(table, n_boot=0)
    assert_allclose(res.statistic, limit, atol=1e-8)


def test_continuity_case_is_reported() -> None:
    assert informational_agreement([[3, 0], [0, 0]], n_boot=0).continuity_case == (
        "one non-empty cell"
    )
    assert informational_agreement([[5, 3], [0, 0]], n_boot=0).continuity_case == "H(X) = 0"
    assert informational_agreement([[5, 0], [3, 0]], n_boot=0).continuity_case == "H(Y) = 0"
    assert informational_agreement(BIRADS, n_boot=0).continuity_case == "regular"


# ------------------------------------------------------ IA: information quantities


def test_information_quantities_match_the_primitives_and_scipy() -> None:
    from scipy.stats import entropy as scipy_entropy

    res = informational_agreement(BIRADS, n_boot=0)
    p = np.asarray(BIRADS, dtype=float) / 186
    px, py = p.sum(axis=1), p.sum(axis=0)
    assert_allclose(res.entropy_x, scipy_entropy(px, base=2))  # scipy.stats.entropy
    assert_allclose(res.entropy_y, scipy_entropy(py, base=2))
    assert_allclose(res.joint_entropy, scipy_entropy(p.ravel(), base=2))
    assert_allclose(res.mutual_information, accord.mutual_information(BIRADS))
    assert_allclose(res.mutual_information_base_q, res.mutual_information / math.log2(5))
    assert_allclose(res.conditional_entropy_y_given_x, res.joint_entropy - res.entropy_x)
    assert_allclose(res.conditional_entropy_x_given_y, res.joint_entropy - res.entropy_y)
    # MI = H(Y) - H(Y|X) (Casagrande et al. 2020, eq. 5)
    assert_allclose(res.mutual_information, res.entropy_y - res.conditional_entropy_y_given_x)
    assert_allclose(res.input_distribution, px)
    assert_allclose(res.channel, p / px[:, None])
    assert_allclose(res.channel.sum(axis=1), 1.0)
    # MI in nats from sklearn.metrics.mutual_info_score on the expanded labels
    from sklearn.metrics import mutual_info_score

    x, y = _labels(BIRADS)
    assert_allclose(res.mutual_information * math.log(2), mutual_info_score(x, y), rtol=1e-10)


def test_channel_row_of_an_unused_category_is_nan() -> None:
    res = informational_agreement([[5, 1, 0], [0, 0, 0], [1, 0, 4]], n_boot=0)
    assert np.isnan(res.channel[1]).all()
    assert_allclose(res.channel[0], [5 / 6, 1 / 6, 0])


def test_ia_pvalue_is_the_g_test_of_independence() -> None:
    from scipy.stats import chi2_contingency

    res = informational_agreement(BIRADS, n_boot=0)
    # scipy.stats.chi2_contingency(table, lambda_="log-likelihood"): the G-test
    g, pvalue, dof, _ = chi2_contingency(np.asarray(BIRADS), lambda_="log-likelihood")
    assert_allclose(res.g_statistic, g, rtol=1e-10)
    assert_allclose(res.pvalue, pvalue, rtol=1e-8)
    assert dof == 16


# ------------------------------------------------------------------ bootstrap


def test_ia_bootstrap_is_reproducible_and_gives_intervals() -> None:
    a = informational_agreement(BIRADS, n_boot=300, rng=7)
    b = informational_agreement(BIRADS, n_boot=300, rng=7)
    assert a.replicates is not None and a.replicates.shape == (300,)
    assert_allclose(a.replicates, b.replicates)
    assert_allclose(a.standard_error, np.std(a.replicates, ddof=1))
    for method in ("bca", "percentile"):
        low, high = a.confidence_interval(method=method)
        assert 0 <= low < high <= 1
    d = a.to_dict()
    assert "BCa" in d["ci_method"] and "bootstrap" in a.method
    assert (d["ci_low"], d["ci_high"]) == tuple(a.confidence_interval())
    with pytest.raises(InvalidInputError, match="'method' parameter"):
        a.confidence_interval(method="analytic")


def test_bootstrap_over_items_agrees_with_the_analytic_kappa_se() -> None:
    # The multinomial bootstrap of the table is the bootstrap over items; its SD of kappa
    # must approach the Fleiss-Cohen-Everitt SE (a large-sample quantity) on n = 1000 items.
    table = ContingencyTable(np.asarray(BIRADS) * 5 + 1)
    reps, _ = bootstrap_table(table, lambda p: _kappa_core(p, np.eye(5))[0], n_boot=4000, rng=11)
    assert_allclose(np.std(reps, ddof=1), cohen_kappa(table).standard_error, rtol=0.06)


def test_jackknife_values_are_leave_one_item_out() -> None:
    small = [[3, 1], [2, 4]]
    _, jack = bootstrap_table(
        ContingencyTable(small), lambda p: _kappa_core(p, np.eye(2))[0], n_boot=5, rng=0
    )
    x, y = _labels(small)
    explicit = [
        cohen_kappa(np.delete(x, i), np.delete(y, i), categories=[0, 1]).statistic
        for i in range(x.size)
    ]
    assert jack is not None
    assert_allclose(np.sort(jack), np.sort(explicit))


def test_bootstrap_needs_counts() -> None:
    res = informational_agreement([[0.25, 0.25], [0.1, 0.4]])
    assert math.isnan(res.standard_error) and "proportions" in res.method
    with pytest.raises(InvalidInputError, match="whole numbers"):
        bootstrap_table(
            ContingencyTable([[0.5, 0.5], [0.2, 0.3]]), lambda p: p[:, 0, 0], n_boot=10, rng=0
        )


# ------------------------------------------------------------------ properties


@st.composite
def tables(draw: st.DrawFn, min_q: int = 2, max_q: int = 5) -> np.ndarray:
    q = draw(st.integers(min_q, max_q))
    cells = draw(st.lists(st.integers(0, 30), min_size=q * q, max_size=q * q))
    arr = np.array(cells, dtype=float).reshape(q, q)
    assume(arr.sum() > 0)
    return arr


@given(tables())
def test_property_ia_in_unit_interval_and_symmetric(table: np.ndarray) -> None:
    ia = _information_core(table / table.sum()).ia
    ia_t = _information_core(table.T / table.sum()).ia
    assert 0.0 <= float(ia) <= 1.0
    assert_allclose(ia, ia_t, atol=1e-12)


@given(tables(), st.randoms(use_true_random=False))
def test_property_ia_invariant_to_relabelling(table: np.ndarray, rnd: object) -> None:
    q = table.shape[0]
    perm = list(range(q))
    rnd.shuffle(perm)  # type: ignore[attr-defined]
    other = list(range(q))
    rnd.shuffle(other)  # type: ignore[attr-defined]
    base = float(_information_core(table / table.sum()).ia)
    same = table[np.ix_(perm, perm)]  # the same renaming for both raters
    assert_allclose(_information_core(same / same.sum()).ia, base, atol=1e-12)
    apart = table[np.ix_(perm, other)]  # IA is even invariant to renaming each separately
    assert_allclose(_information_core(apart / apart.sum()).ia, base, atol=1e-12)


@given(tables(), st.sampled_from([None, "linear", "quadratic"]))
def test_property_kappa_symmetric(table: np.ndarray, weights: str | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        a = cohen_kappa(table, weights=weights)
        b = cohen_kappa(table.T, weights=weights)
    assert_allclose(a.statistic, b.statistic, atol=1e-12, equal_nan=True)
    assert_allclose(a.standard_error, b.standard_error, atol=1e-12, equal_nan=True)
    if not math.isnan(a.statistic):
        assert -1.0 - 1e-12 <= a.statistic <= a.kappa_max + 1e-9 <= 1.0 + 1e-9


@given(tables(min_q=3, max_q=4), st.data())
def test_property_agreement_weights_equal_one_minus_disagreement(
    table: np.ndarray, data: st.DataObject
) -> None:
    q = table.shape[0]
    upper = data.draw(
        st.lists(st.floats(0, 1), min_size=q * (q - 1) // 2, max_size=q * (q - 1) // 2)
    )
    w = np.eye(q)
    w[np.triu_indices(q, 1)] = upper
    w = np.triu(w) + np.triu(w, 1).T
    assume(np.any(w < 1 - 1e-9))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        a = cohen_kappa(table, agreement_weights=w)
        d = cohen_kappa(table, disagreement_weights=1 - w)
        d10 = cohen_kappa(table, disagreement_weights=10 * (1 - w))  # any scale
    assert_allclose(a.statistic, d.statistic, rtol=1e-9, atol=1e-12, equal_nan=True)
    assert_allclose(a.statistic, d10.statistic, rtol=1e-9, atol=1e-12, equal_nan=True)
    # An SE is the square root of a variance: where the true SE is 0 (e.g. a table of one
    # row), rounding of the variance near 1e-16 shows as up to ~1e-7 after the square root.
    assert_allclose(a.standard_error, d.standard_error, rtol=1e-7, atol=1e-6, equal_nan=True)


@given(tables())
def test_property_scott_pi_at_most_kappa_in_magnitude_of_chance(table: np.ndarray) -> None:
    # Pooled margins never give less chance agreement than each rater's own (unweighted):
    # sum ((px + py)/2)^2 >= sum px py, so p_e(pi) >= p_e(kappa) (Zwick 1988).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        k = cohen_kappa(table)
        p = scott_pi(table)
    assert p.chance_agreement >= k.chance_agreement - 1e-12
