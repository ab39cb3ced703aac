"""Many-raters coefficients: reference vectors, inference, degenerate data, properties."""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats

import accord
from accord import (
    DegenerateDataWarning,
    brennan_prediger,
    conger_kappa,
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    krippendorff_alpha,
    light_kappa,
    pairwise_agreement,
    percent_agreement,
)
from accord.stats import ItemCategoryCounts

REF = json.loads((Path(__file__).parents[1] / "reference" / "many_raters.json").read_text())
FUNCS: dict[str, Callable[..., Any]] = {
    "percent_agreement": percent_agreement,
    "fleiss_kappa": fleiss_kappa,
    "gwet_ac1": gwet_ac1,
    "gwet_ac2": gwet_ac2,
    "brennan_prediger": brennan_prediger,
    "krippendorff_alpha": krippendorff_alpha,
    "conger_kappa": conger_kappa,
}


def _quiet(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return fn(*args, **kwargs)


def _table_to_ratings(table: list[list[int]]) -> accord.Ratings:
    t = np.asarray(table)
    x, y = np.nonzero(t)
    pairs = np.repeat(np.c_[x, y], t[x, y], axis=0) + 1
    return accord.Ratings.from_wide(pairs, level="ordinal")


# ------------------------------------------------------------------ reference vectors


@pytest.mark.parametrize("case", REF["counts"], ids=lambda c: c["name"])
def test_count_vectors(case: dict[str, Any]) -> None:
    # Source: each case's "source" field in tests/reference/many_raters.json.
    for name, fields in case["expected"].items():
        res = FUNCS[name](case["counts"])
        for field, value in fields.items():
            assert_allclose(getattr(res, field), value, atol=case["atol"], err_msg=name + field)


@pytest.mark.parametrize("case", REF["count_tables"]["cases"])
def test_count_tables(case: dict[str, Any]) -> None:
    # spec many-raters.md count tables (Fleiss / Randolph free-marginal / Krippendorff).
    for name in ("fleiss_kappa", "brennan_prediger", "krippendorff_alpha"):
        res = _quiet(FUNCS[name], case["counts"])
        if case[name] is None:
            assert math.isnan(res.statistic) and res.reason
        else:
            assert_allclose(res.statistic, case[name], atol=5e-7)


def test_abstractors_two_raters() -> None:
    ref = REF["abstractors"]  # irrCAC cont3x3abstractors, see "source"
    r = accord.Ratings.from_wide(_wide(ref["table"]))  # nominal level
    for name, value in ref["identity"].items():
        assert_allclose(FUNCS[name](r).statistic, value, atol=ref["atol"])
    for name, value in ref["quadratic"].items():
        res = FUNCS[name](r, weights="quadratic")
        assert_allclose(res.statistic, value, atol=ref["atol"])
    # Interval alpha equals quadratic-weighted alpha on an equally spaced scale.
    assert_allclose(
        krippendorff_alpha(accord.Ratings.from_wide(np.asarray(_wide(ref["table"]), float),
                                                    level="interval")).statistic,
        ref["quadratic"]["krippendorff_alpha"],
        atol=ref["atol"],
    )  # fmt: skip


def _wide(table: list[list[int]]) -> list[list[int]]:
    t = np.asarray(table)
    x, y = np.nonzero(t)
    return (np.repeat(np.c_[x, y], t[x, y], axis=0) + 1).tolist()


def test_gwet_table_3_5_with_standard_errors() -> None:
    ref = REF["gwet_table_3_5"]  # Gwet (2014) Table 3.5, irrCAC 1.4 raw functions
    r = accord.Ratings.from_wide(ref["rows"], level="ordinal", categories=["A", "B", "C"])
    for name, fields in ref["expected"].items():
        res = FUNCS[name](r, weights="quadratic")
        assert_allclose(res.statistic, fields["statistic"], atol=ref["atol"], err_msg=name)
        assert_allclose(res.standard_error, fields["standard_error"], atol=ref["atol"])
    # 11 items, one rating missing on three of them: unpairable items are counted.
    assert fleiss_kappa(r).n_items_unpairable == 3
    assert krippendorff_alpha(r, weights="quadratic").n_items == 8


def test_alpha_se_is_the_consistent_linearisation_of_irrcac_14() -> None:
    # R irrCAC 1.4 (since its 2021 revision, 1.2), krippen.alpha.raw(cac.raw4raters):
    # coeff.se = 0.145479 on Krippendorff's canonical reliability data (4 coders, 12 units;
    # Krippendorff 2011, "Computing Krippendorff's alpha-reliability", p. 3). irrCAC 1.0 and
    # the Python port 0.4.4 centre the item term on p_a instead and give 0.145574.
    nan = np.nan
    coders = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
                       [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
                       [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
                       [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]])  # fmt: skip
    r = accord.Ratings.from_wide(coders.T)
    res = krippendorff_alpha(r)
    assert_allclose(res.statistic, 0.7434211, atol=5e-8)  # Krippendorff (2011): 0.743
    assert_allclose(res.standard_error, 0.145479, atol=5e-7)
    # Degrees of freedom: the pairable items (11 of 12), which the variance averages over.
    assert res.n_items == 11
    low, high = res.confidence_interval()
    t = stats.t.ppf(0.975, 10)
    assert_allclose([low, high], [res.statistic - t * 0.1454787, 1.0], atol=1e-6)


def test_alpha_se_centres_the_item_term_on_pa_prime() -> None:
    # The p_a' linearisation by hand (transcribing irrCAC 1.4's krippen.alpha.raw) on the
    # Wikipedia Krippendorff example, whose items have 2 and 3 ratings, so that centring on
    # p_a or on p_a' differs.
    nan = np.nan
    coders = np.array([[nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
                       [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
                       [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4]])  # fmt: skip
    r = accord.Ratings.from_wide(coders.T)
    counts = ItemCategoryCounts.from_ratings(r).dense().astype(float)
    w = np.eye(r.n_categories)
    ri = counts.sum(1)
    c, ri = counts[ri >= 2], ri[ri >= 2]
    n, rbar, eps = len(ri), ri.mean(), 1 / ri.sum()
    sumq = (c * (c @ w.T - 1)).sum(1)
    paprime = np.sum(sumq / (rbar * (ri - 1))) / n
    pa = (1 - eps) * paprime + eps
    pi = (c / rbar).mean(0)
    pe = pi @ w @ pi
    alpha_p = (paprime - pe) / (1 - pe)
    pe_i = c @ ((w @ pi + w.T @ pi) / 2) / rbar - pe * (ri - rbar) / rbar

    def se(term: float) -> float:
        pa_i = sumq / (rbar * (ri - 1)) - term * (ri - rbar) / rbar
        k = (pa_i - pe) / (1 - pe) - 2 * (1 - alpha_p) * (pe_i - pe) / (1 - pe)
        return float(np.sqrt(np.sum((k - alpha_p) ** 2) / (n * (n - 1))))

    ours = krippendorff_alpha(r).standard_error
    assert_allclose(ours, se(paprime), rtol=1e-12)
    assert abs(se(pa) - se(paprime)) > 1e-6
    # Same formula on the per-item-sums path (interval metric) and the q x q path.
    a = krippendorff_alpha(r, level="interval")
    b = krippendorff_alpha(r, weights="quadratic")
    assert_allclose(a.standard_error, b.standard_error, rtol=1e-10)


def test_fleiss_diagnoses_null_se_and_per_category() -> None:
    r = accord.read_ratings(
        Path(__file__).parents[2] / "examples" / "diagnoses.csv",
        item="patient", rater="rater", label="diagnosis",
    )  # fmt: skip
    res = fleiss_kappa(r)
    # Fleiss (1971): kappa = .430; R irr kappam.fleiss(diagnoses): z = 17.65183.
    assert_allclose(res.statistic, 0.4302445, atol=5e-8)
    assert_allclose(res.statistic / res.standard_error_null, 17.65183, rtol=1e-6)
    # Weighted Fleiss has no null SE (NaN); on these nominal text labels weights are refused.
    birads = accord.datasets.load_birads()
    assert math.isnan(fleiss_kappa(birads, weights="linear").standard_error_null)
    with pytest.raises(accord.InvalidInputError, match="only alphabetically"):
        fleiss_kappa(r, weights="linear")


def test_conger_equals_cohen_and_fleiss_equals_scott_on_two_raters() -> None:
    rng = np.random.default_rng(3)
    wide = rng.integers(0, 4, size=(40, 2)).astype(float)
    wide[rng.random(40) < 0.2, 0] = np.nan
    r = accord.Ratings.from_wide(wide)
    complete = r.subset(np.isin(r.item_codes, np.flatnonzero(~np.isnan(wide).any(1))))
    # Conger = Cohen on the items both rated (on incomplete designs Conger's marginals use
    # every item a rater rated, Cohen's only the co-rated ones).
    table = accord.ContingencyTable.from_ratings(complete)
    assert_allclose(
        conger_kappa(complete).statistic, accord.cohen_kappa(table).statistic, rtol=1e-12
    )
    cohen_all = accord.cohen_kappa(accord.ContingencyTable.from_ratings(r)).statistic
    assert_allclose(light_kappa(r, ci="analytic").statistic, cohen_all)
    assert_allclose(
        fleiss_kappa(complete).statistic,
        accord.scott_pi(accord.ContingencyTable.from_ratings(complete)).statistic,
        rtol=1e-12,
    )


def test_alpha_interval_and_ordinal_match_krippendorff_package_on_continuous() -> None:
    import krippendorff  # peer

    rng = np.random.default_rng(7)
    wide = rng.normal(size=(150, 3)).round(3)
    wide[rng.random(wide.shape) < 0.2] = np.nan
    r = accord.Ratings.from_wide(wide, level="interval")
    assert r.n_categories > 64  # exercises the per-rating sums path
    for level in ("interval", "ordinal", "ratio"):
        data = wide.T if level != "ratio" else np.abs(wide.T)
        rr = r if level != "ratio" else accord.Ratings.from_wide(np.abs(wide), level="ratio")
        theirs = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert_allclose(krippendorff_alpha(rr, level=level).statistic, theirs, rtol=1e-9)


def test_alpha_sums_path_se_equals_matrix_path_se() -> None:
    # Interval metric from per-item sums (no V x V) = quadratic weights on the category
    # matrix: same alpha and SE (both are irrCAC 1.4's formula).
    rng = np.random.default_rng(11)
    wide = rng.integers(1, 6, size=(80, 4)).astype(float)
    wide[rng.random(wide.shape) < 0.3] = np.nan
    r = accord.Ratings.from_wide(wide, level="interval", categories=[1, 2, 3, 4, 5])
    a = krippendorff_alpha(r, level="interval")
    b = krippendorff_alpha(r, weights="quadratic")
    assert_allclose([a.statistic, a.standard_error], [b.statistic, b.standard_error])


def test_user_distance_equals_level() -> None:
    r = _table_to_ratings(REF["abstractors"]["table"])
    res = krippendorff_alpha(r, distance=lambda x, y: (x - y) ** 2)
    # spec: quadratic / interval alpha on cont3x3abstractors 0.8926487
    assert_allclose(res.statistic, 0.8926487, atol=5e-8)
    with pytest.raises(accord.InvalidInputError, match="must be 0"):
        krippendorff_alpha(r, distance=lambda x, y: np.ones(np.broadcast(x, y).shape))


# ------------------------------------------------------------------ inference


def test_population_correction_scales_variance() -> None:
    counts = REF["counts"][1]["counts"]  # 15 items
    full = gwet_ac1(counts)
    fpc = gwet_ac1(counts, population_size=30)
    assert_allclose(fpc.standard_error, full.standard_error * math.sqrt(1 - 15 / 30))
    with pytest.raises(accord.InvalidInputError, match="smaller than"):
        gwet_ac1(counts, population_size=10)


def test_interval_and_pvalue_are_t_based() -> None:

    res = fleiss_kappa(REF["counts"][0]["counts"])  # 10 items -> 9 df
    half = stats.t.ppf(0.975, 9) * res.standard_error
    assert_allclose(res.confidence_interval(0.95), (res.statistic - half, res.statistic + half))
    assert_allclose(res.pvalue, 2 * stats.t.sf(res.statistic / res.standard_error, 9))
    assert res.confidence_interval(0.5).high < res.confidence_interval(0.99).high


@pytest.mark.parametrize(
    "name",
    ["percent_agreement", "fleiss_kappa", "gwet_ac1", "brennan_prediger", "krippendorff_alpha",
     "conger_kappa"],
)  # fmt: skip
def test_bootstrap_matches_loop_over_replicates(name: str) -> None:
    # The vectorised bootstrap (totals of per-item features) equals recomputing the
    # coefficient on each resample of items, drawn with the same multinomial generator.
    rng = np.random.default_rng(5)
    wide = rng.integers(0, 3, size=(25, 4)).astype(float)
    wide[rng.random(wide.shape) < 0.15] = np.nan
    r = accord.Ratings.from_wide(wide)
    res = FUNCS[name](r, ci="bootstrap", n_boot=30, rng=123)
    gen = np.random.default_rng(123)
    n = r.n_items
    items = np.arange(n)
    for b in range(30):
        mult = gen.multinomial(n, np.full(n, 1 / n))
        chosen = np.repeat(items, mult)
        # Resampled ratings: copy each item's ratings once per draw, as a new item.
        parts = []
        for new_id, it in enumerate(chosen):
            sel = r.item_codes == it
            parts.append(pd.DataFrame({"item": new_id, "rater": r.rater_codes[sel],
                                       "label": r.label_codes[sel]}))  # fmt: skip
        frame = pd.concat(parts)
        rb = accord.Ratings.from_long(frame, item="item", rater="rater", label="label",
                                      categories=list(range(r.n_categories)))  # fmt: skip
        assert_allclose(res.replicates[b], _quiet(FUNCS[name], rb).statistic, rtol=1e-10,
                        equal_nan=True)  # fmt: skip
    assert res.jackknife is not None and res.jackknife.size == n
    lo, hi = res.confidence_interval(0.9, method="bca")
    assert lo <= hi


def test_jackknife_values_are_leave_one_out() -> None:
    counts = np.asarray(REF["counts"][1]["counts"])
    res = fleiss_kappa(counts, ci="bootstrap", n_boot=10, rng=0)
    for i in (0, 7):
        assert_allclose(res.jackknife[i], fleiss_kappa(np.delete(counts, i, 0)).statistic)


def test_light_kappa_bootstrap_default() -> None:
    rng = np.random.default_rng(9)
    r = accord.Ratings.from_wide(rng.integers(0, 3, size=(30, 3)))
    res = light_kappa(r, n_boot=200, rng=1)
    assert res.replicates is not None and math.isfinite(res.standard_error)
    assert "bootstrap" in res.method


def _abstractors_and_a_stray_pair() -> pd.DataFrame:
    """irrCAC's cont3x3abstractors (raters A, B on 100 items), one more item that A rates
    1 and C rates 2 (the only item C rates), and three items D and E both call 3."""
    t = np.asarray(REF["abstractors"]["table"])
    x, y = np.nonzero(t)
    pairs = np.repeat(np.c_[x, y], t[x, y], axis=0) + 1
    rows = [(i, r, int(v)) for i, (a, b) in enumerate(pairs) for r, v in (("A", a), ("B", b))]
    rows += [(100, "A", 1), (100, "C", 2)]
    rows += [(i, r, 3) for i in (101, 102, 103) for r in ("D", "E")]
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


def test_light_kappa_leaves_out_and_counts_pairs_too_small_for_a_kappa() -> None:
    r = accord.Ratings.from_long(
        _abstractors_and_a_stray_pair(), item="item", rater="rater", label="label"
    )
    # A-B is the abstractors table: Cohen's kappa 0.7964094 (irrCAC, spec many-raters.md).
    # A-C share one item, on which they disagree: kappa 0 whatever they said (p_o = p_e =
    # 0); with it in, the mean would be 0.3982. D-E used one category: kappa 0/0.
    res = _quiet(light_kappa, r, ci="analytic")
    assert_allclose(res.statistic, REF["abstractors"]["identity"]["conger_kappa"], atol=5e-8)
    assert res.reason is not None
    assert "2 rater pairs left out: 1 co-rated fewer than 2 items, 1 used one and the same " in (
        res.reason
    )
    boot = light_kappa(r, n_boot=50, rng=0)
    assert boot.statistic == res.statistic and boot.reason == (
        "2 rater pairs left out: 1 co-rated fewer than 2 items, 1 used one and the same "
        "category (kappa 0/0)"
    )
    assert math.isfinite(boot.standard_error) and boot.standard_error > 0
    with pytest.raises(accord.InvalidInputError, match="'min_items' parameter of light_kappa"):
        light_kappa(r, min_items=1)


def test_light_kappa_on_one_item_is_nan_with_the_reason() -> None:
    # Two raters who disagree on their one item: no kappa to speak of (0 whatever the
    # labels), not 0.0 with a bootstrap SE of 0.
    r = accord.Ratings.from_wide([["a", "b"]])
    with pytest.warns(DegenerateDataWarning, match="co-rated fewer than 2 items"):
        res = light_kappa(r, n_boot=50, rng=0)
    assert math.isnan(res.statistic) and math.isnan(res.standard_error)
    assert res.reason == (
        "no rater pair has a defined Cohen's kappa (1 rater pair left out: 1 co-rated fewer "
        "than 2 items)"
    )


# ------------------------------------------------------------------ pairwise


def test_pairwise_matrix_against_cohen_per_pair() -> None:
    rng = np.random.default_rng(2)
    wide = rng.integers(0, 3, size=(30, 4)).astype(float)
    wide[rng.random(wide.shape) < 0.25] = np.nan
    r = accord.Ratings.from_wide(wide)
    pw = pairwise_agreement(r)
    custom = pairwise_agreement(r, measure=accord.cohen_kappa)
    for a, b in [(0, 1), (1, 3), (2, 3)]:
        expected = accord.cohen_kappa(accord.ContingencyTable.from_ratings(r, raters=(a, b)))
        assert_allclose(pw.matrix.iloc[a, b], expected.statistic, rtol=1e-12)
        assert_allclose(custom.matrix.iloc[b, a], expected.statistic, rtol=1e-12)
    assert pw.n_pairs == 6
    assert_allclose(pw.mean, light_kappa(r, ci="analytic").statistic)
    with pytest.warns(DegenerateDataWarning):
        strict = pairwise_agreement(r, measure="percent_agreement", min_items=1000)
    assert strict.n_pairs == 0
    with pytest.raises(accord.InvalidInputError, match="'measure'"):
        pairwise_agreement(r, measure="kapa")


# ------------------------------------------------------------------ degenerate data


ALL = ["percent_agreement", "fleiss_kappa", "gwet_ac1", "brennan_prediger",
       "krippendorff_alpha", "conger_kappa"]  # fmt: skip


@pytest.mark.parametrize("name", ALL)
def test_no_pairable_item_is_nan_with_reason_everywhere(name: str) -> None:
    r = accord.Ratings.from_wide([["a", None], [None, "b"]])
    with pytest.warns(DegenerateDataWarning):
        res = FUNCS[name](r)
    assert math.isnan(res.statistic) and "two or more ratings" in res.reason


@pytest.mark.parametrize("name", ALL)
def test_single_rater_is_nan_with_reason(name: str) -> None:
    r = accord.Ratings.from_wide([["a"], ["b"], ["a"]])
    with pytest.warns(DegenerateDataWarning):
        res = FUNCS[name](r)
    assert math.isnan(res.statistic) and res.reason


def test_one_category_everywhere() -> None:
    r = accord.Ratings.from_wide([["a", "a"], ["a", "a"], ["a", "a"]])
    for name in ("fleiss_kappa", "krippendorff_alpha", "conger_kappa", "brennan_prediger",
                 "gwet_ac1"):  # fmt: skip
        with pytest.warns(DegenerateDataWarning):
            res = FUNCS[name](r)
        assert math.isnan(res.statistic) and "one category" in res.reason, name
    assert percent_agreement(r).statistic == 1.0


def test_perfect_agreement_two_categories_is_one() -> None:
    r = accord.Ratings.from_wide([["a", "a"], ["b", "b"], ["a", "a"]])
    for name in ALL:
        assert_allclose(FUNCS[name](r).statistic, 1.0)


def test_systematic_disagreement() -> None:
    # spec: [["A","B"],["B","A"]] -> alpha = -0.5 (expected disagreement among 4 values
    # drawn without replacement is 2/3; observed is 1; 1 - 1/(2/3) = -0.5).
    r = accord.Ratings.from_wide([["A", "B"], ["B", "A"]])
    assert_allclose(krippendorff_alpha(r).statistic, -0.5)
    assert_allclose(fleiss_kappa(r).statistic, -1.0)  # Scott's pi: (0 - 1/2)/(1 - 1/2)


def test_option_errors() -> None:
    with pytest.raises(accord.InvalidInputError, match="'weights' parameter of fleiss_kappa"):
        fleiss_kappa([[1, 1], [2, 0]], weights="quadatic")  # type: ignore[arg-type]
    with pytest.raises(accord.InvalidInputError, match="'ci' parameter"):
        gwet_ac1([[1, 1], [2, 0]], ci="bootsrap")  # type: ignore[arg-type]
    with pytest.raises(accord.InvalidInputError, match="Ratings"):
        conger_kappa([[1, 1], [2, 0]])  # type: ignore[arg-type]
    with pytest.raises(accord.InvalidInputError, match="one of level="):
        krippendorff_alpha([[1, 1], [2, 0]], level="nominal", weights="linear")


# The properties of every coefficient (bounds, invariances, symmetry, merge, engines) are
# tests/test_registry.py, one entry per coefficient in tests/registry.py.


# ------------------------------------------------------------------ agreement()


def test_agreement_table_levels() -> None:
    r = _table_to_ratings(REF["abstractors"]["table"])
    table = accord.agreement(r)
    frame = table.to_frame()
    names = list(zip(frame["name"], frame["weights"], strict=True))
    assert ("gwet_ac2", "quadratic") in names and ("krippendorff_alpha", "ordinal") in names
    row = frame[(frame["name"] == "gwet_ac2")].iloc[0]
    assert_allclose(row["statistic"], 0.9402369, atol=5e-8)  # spec cont3x3abstractors AC2
    nominal = accord.agreement(accord.Ratings.from_wide(_wide(REF["abstractors"]["table"])))
    assert {c.weights for c in nominal.coefficients} == {"identity", "nominal"}
    counts_only = accord.agreement(REF["counts"][1]["counts"])
    assert "conger_kappa" not in {c.name for c in counts_only.coefficients}
    scores = accord.Ratings.from_wide(np.asarray(REF["icc"]["scores"], float), level="interval")
    with_icc = accord.agreement(scores, coefficients=["icc", "krippendorff_alpha"])
    assert [c.name for c in with_icc.coefficients].count("icc") == 6  # single and average
    boot = accord.agreement(
        r,
        coefficients=["fleiss_kappa"],
        inference=accord.Inference(ci="bootstrap", n_boot=50, seed=0),
    )
    assert "BCa" in boot.to_frame()["ci_method"].iloc[0]
    with pytest.raises(accord.InvalidInputError, match="'coefficients'"):
        accord.agreement(r, coefficients=["kappa"])


def test_many_values_path_matches_peer_and_matrix(monkeypatch: pytest.MonkeyPatch) -> None:
    import krippendorff  # peer

    from accord.agreement import krippendorff as many_raters

    rng = np.random.default_rng(8)
    wide = rng.normal(size=(120, 3)).round(3)
    wide[rng.random(wide.shape) < 0.2] = np.nan
    r = accord.Ratings.from_wide(wide, level="interval")
    matrix = krippendorff_alpha(r, weights="quadratic")  # q x q route, same SE formula
    monkeypatch.setattr(many_raters, "_MANY_VALUES", 8)  # force the O(N) per-rating route
    for level in ("interval", "ordinal"):
        ours = krippendorff_alpha(r, level=level)
        assert "no V x V" in ours.method
        theirs = krippendorff.alpha(reliability_data=wide.T, level_of_measurement=level)
        assert_allclose(ours.statistic, theirs, rtol=1e-9)
    fast = krippendorff_alpha(r, level="interval", ci="bootstrap", n_boot=20, rng=0)
    assert_allclose([fast.statistic, fast.standard_error],
                    [matrix.statistic, matrix.standard_error], rtol=1e-9)  # fmt: skip
    assert fast.replicates is not None and np.isfinite(fast.replicates).all()


def test_one_item_says_why_there_is_no_standard_error() -> None:
    # One item rated by three raters: every coefficient is defined, but a variance over
    # items needs two (df = 0). The NaN SE carries its reason.
    r = accord.Ratings.from_long(
        pd.DataFrame({"i": [1, 1, 1], "r": ["a", "b", "c"], "y": ["x", "x", "y"]}),
        item="i", rater="r", label="y",
    )  # fmt: skip
    from accord.agreement.summary import COEFFICIENTS

    wanted = [n for n in COEFFICIENTS if n not in ("icc", "light_kappa")]  # Light: no SE
    table = accord.agreement(r, coefficients=wanted)
    assert len(table.coefficients) >= 6
    for c in table.coefficients:
        assert math.isfinite(c.statistic), c.name
        assert math.isnan(c.standard_error) and math.isnan(c.pvalue)
        assert c.reason is not None and "df = 0" in c.reason, c.name
    # Two items: an SE, and no reason.
    r2 = accord.Ratings.from_wide([["x", "x", "y"], ["y", "y", "y"]])
    assert accord.fleiss_kappa(r2).reason is None


@pytest.mark.parametrize("scale", [1e200, 1e-300, 1e-150, 1e150])
def test_interval_alpha_of_huge_and_tiny_scores(scale: float) -> None:
    """Interval alpha is scale invariant (each squared difference over the largest), so
    scores times 1e200 or 1e-300 have the alpha of the plain scores: no overflow, and scores
    that differ are not 'all in one category'."""
    import krippendorff

    scores = np.array([[1, 2, 3], [2, 2, 3], [4, 5, 5], [1, 1, 2]], dtype=float)
    # krippendorff 0.8: krippendorff.alpha(reliability_data=scores.T, level_of_measurement=
    # "interval") on the plain scores (it overflows on the scaled ones)
    peer = krippendorff.alpha(reliability_data=scores.T, level_of_measurement="interval")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = accord.Ratings.from_wide(scores * scale, level="interval")
        res = accord.krippendorff_alpha(r)
        counts = ItemCategoryCounts.from_ratings(r)
        from_counts = accord.krippendorff_alpha(counts, level="interval")
    assert res.reason is None
    assert_allclose(res.statistic, peer, rtol=1e-12)
    assert_allclose(from_counts.statistic, peer, rtol=1e-12)
    plain = accord.krippendorff_alpha(accord.Ratings.from_wide(scores, level="interval"))
    assert_allclose(res.standard_error, plain.standard_error, rtol=1e-9)
