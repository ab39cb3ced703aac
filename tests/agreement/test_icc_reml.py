"""ICC by REML on incomplete designs: a dense REML written out in the test, statsmodels
MixedLM side by side, the ANOVA forms on complete data, invariances and bad input."""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import optimize

import accord
from accord import DegenerateDataWarning, InvalidInputError, icc
from accord.agreement.icc_mixed import CrossedDesign, deviance_function, fit_reml

from .._cli import cli_json


def _incomplete(seed: int, n: int = 25, m: int = 5, fill: float = 0.6) -> pd.DataFrame:
    """Scores of items by raters, each cell present with probability ``fill``."""
    gen = np.random.default_rng(seed)
    a, b = gen.normal(0, 1.2, n), gen.normal(0, 0.7, m)
    rows = [
        (i, j, 3 + a[i] + b[j] + gen.normal(0, 0.8))
        for i in range(n)
        for j in range(m)
        if gen.uniform() < fill
    ]
    return pd.DataFrame(rows, columns=["item", "rater", "score"])


def _matrix(frame: pd.DataFrame) -> np.ndarray:
    y = np.full((frame.item.max() + 1, frame.rater.max() + 1), np.nan)
    y[frame.item, frame.rater] = frame.score
    return y


# --- a dense REML, straight from the textbook formula -----------------------------------


def _dense_parts(frame: pd.DataFrame, model: str) -> tuple[np.ndarray, ...]:
    n, m = frame.item.max() + 1, frame.rater.max() + 1
    za = np.eye(n)[frame.item]
    zb = np.eye(m)[frame.rater]
    y = frame.score.to_numpy(float)
    x = zb if model == "fixed" else np.ones((y.size, 1))
    return y, x, za, zb


def _dense_deviance(frame: pd.DataFrame, model: str, g_a: float, g_b: float) -> float:
    """-2 REML log-likelihood with the residual variance profiled out (Harville 1977):
    ``(N - p) log(r'H^-1 r) + log|H| + log|X'H^-1 X|``, ``H = I + g_a ZaZa' + g_b ZbZb'``."""
    y, x, za, zb = _dense_parts(frame, model)
    h = np.eye(y.size) + g_a * za @ za.T + (g_b * zb @ zb.T if model == "random" else 0)
    hinv = np.linalg.inv(h)
    xhx = x.T @ hinv @ x
    beta = np.linalg.solve(xhx, x.T @ hinv @ y)
    r = y - x @ beta
    dof = y.size - x.shape[1]
    return float(dof * math.log(r @ hinv @ r) + np.linalg.slogdet(h)[1] + np.linalg.slogdet(xhx)[1])


def _dense_fit(frame: pd.DataFrame, model: str) -> tuple[float, float, float]:
    """(s_a, s_b, s_e) by minimising the dense deviance over log variance ratios."""
    random = model == "random"

    def f(t: np.ndarray) -> float:
        return _dense_deviance(frame, model, math.exp(t[0]), math.exp(t[1]) if random else 0)

    res = optimize.minimize(f, np.zeros(2 if random else 1), method="Nelder-Mead",
                            options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000})  # fmt: skip
    g_a = math.exp(res.x[0])
    g_b = math.exp(res.x[1]) if random else 0.0
    y, x, za, zb = _dense_parts(frame, model)
    h = np.eye(y.size) + g_a * za @ za.T + (g_b * zb @ zb.T if random else 0)
    hinv = np.linalg.inv(h)
    beta = np.linalg.solve(x.T @ hinv @ x, x.T @ hinv @ y)
    r = y - x @ beta
    s_e = float(r @ hinv @ r) / (y.size - x.shape[1])
    return g_a * s_e, g_b * s_e, s_e


@pytest.mark.parametrize("model", ["oneway", "random", "fixed"])
def test_sparse_deviance_equals_the_dense_one(model: str) -> None:
    # the Schur-complement deviance differs from the dense one by a constant only (two
    # scores of one item by one rater included: the sums allow replicates)
    frame = _incomplete(3, n=12, m=4)
    frame = pd.concat([frame, frame.iloc[[0, 5]].assign(score=lambda f: f.score + 0.3)])
    design = CrossedDesign.from_codes(frame.item.to_numpy(), frame.rater.to_numpy(),
                                      frame.score.to_numpy())  # fmt: skip
    dev = deviance_function(design, model)  # type: ignore[arg-type]
    gaps = []
    for t_a, t_b in [(0.5, 0.3), (1.0, 1.0), (2.0, 0.1), (0.1, 2.0), (0.0, 0.7)]:
        g_b = t_b * t_b if model == "random" else 0.0
        gaps.append(dev(t_a, t_b)[0] - _dense_deviance(frame, model, t_a * t_a, g_b))
    assert_allclose(gaps, gaps[0], atol=1e-8)


@pytest.mark.parametrize("model", ["oneway", "random", "fixed"])
def test_fit_equals_the_dense_fit(model: str) -> None:
    frame = _incomplete(5, n=15, m=4)
    design = CrossedDesign.from_codes(frame.item.to_numpy(), frame.rater.to_numpy(),
                                      frame.score.to_numpy())  # fmt: skip
    fit = fit_reml(design, model)  # type: ignore[arg-type]
    ours = (fit.items_variance, fit.raters_variance, fit.residual_variance)
    assert_allclose(ours, _dense_fit(frame, model), rtol=2e-5, atol=1e-7)


def test_matches_statsmodels_mixedlm() -> None:
    import statsmodels.formula.api as smf  # peer: crossed random effects by vc_formula

    frame = _incomplete(1, n=30, m=6)
    res = icc(_matrix(frame))
    assert res.method == "reml" and res.n_items_incomplete == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        crossed = smf.mixedlm("score ~ 1", frame.assign(g=1), groups="g", re_formula="0",
                              vc_formula={"item": "0 + C(item)", "rater": "0 + C(rater)"}
                              ).fit(reml=True)  # fmt: skip
        fixed = smf.mixedlm("score ~ C(rater)", frame, groups="item").fit(reml=True)
        oneway = smf.mixedlm("score ~ 1", frame, groups="item").fit(reml=True)
    s_a, s_b = crossed.vcomp  # statsmodels orders the components by name: item, rater
    assert_allclose(res["ICC(2,1)"].variance_components, (s_a, s_b, crossed.scale), rtol=1e-4)
    assert_allclose(res["ICC(A,1)"].statistic, s_a / (s_a + s_b + crossed.scale), rtol=1e-4)
    f_a = float(fixed.cov_re.iloc[0, 0])
    assert_allclose(res["ICC(C,1)"].statistic, f_a / (f_a + fixed.scale), rtol=1e-4)
    o_a = float(oneway.cov_re.iloc[0, 0])
    assert_allclose(res["ICC(1,1)"].statistic, o_a / (o_a + oneway.scale), rtol=1e-4)
    # the k forms: the mean of k-hat ratings, k-hat the harmonic mean of raters per item
    k = 1 / np.mean(1 / frame.groupby("item").size())
    assert_allclose(res.k_hat, k)
    assert_allclose(res["ICC(A,k)"].statistic, s_a / (s_a + (s_b + crossed.scale) / k),
                    rtol=1e-4)  # fmt: skip


def test_equals_the_anova_forms_on_complete_data() -> None:
    # Shrout & Fleiss (1979): no variance component is negative, so REML = ANOVA
    scores = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9],
              [6, 2, 4, 7]]  # fmt: skip
    anova, reml = icc(scores), icc(scores, method="reml")
    assert anova.method == "anova" and reml.method == "reml"
    for a, r in zip(anova.forms, reml.forms, strict=True):
        assert a.form == r.form
        assert_allclose(r.statistic, a.statistic, rtol=1e-6, err_msg=a.form)
    # the variance components are the ANOVA estimators (MSR - MSE)/k, (MSC - MSE)/n, MSE
    y = np.asarray(scores, float)
    n, k = y.shape
    rows, cols, grand = y.mean(1), y.mean(0), y.mean()
    msr = k * np.sum((rows - grand) ** 2) / (n - 1)
    msc = n * np.sum((cols - grand) ** 2) / (k - 1)
    mse = np.sum((y - rows[:, None] - cols + grand) ** 2) / ((n - 1) * (k - 1))
    assert_allclose(reml["ICC(2,1)"].variance_components,
                    ((msr - mse) / k, (msc - mse) / n, mse), rtol=1e-6)  # fmt: skip


def test_auto_picks_anova_on_complete_and_reml_on_incomplete() -> None:
    frame = _incomplete(2)
    y = _matrix(frame)
    assert icc(y).method == "reml"
    full = np.nan_to_num(y, nan=3.0)
    assert icc(full).method == "anova"
    auto, anova = icc(full).to_dict(), icc(full, method="anova").to_dict()
    # the same numbers; only the reason for the interval differs (chosen vs asked for)
    assert auto.pop("interval_choice") != anova.pop("interval_choice")
    for row in (*auto["forms"], *anova["forms"]):
        assert row.pop("ci_method").startswith("F-based interval")
    assert auto == anova
    ratings = accord.Ratings.from_arrays(frame.item, frame.rater, frame.score, level="interval")
    assert_allclose(icc(ratings)["ICC(A,1)"].statistic, icc(y)["ICC(A,1)"].statistic)


def test_interval_and_test() -> None:
    res = icc(_matrix(_incomplete(4)))
    for f in res.forms:
        low, high = f.confidence_interval(0.95)
        assert 0 <= low <= f.statistic <= high <= 1
        low90, high90 = f.confidence_interval(0.9)
        assert low <= low90 <= high90 <= high
        assert 0 <= f.pvalue <= 1
        assert "profile-likelihood" in f.to_dict()["ci_method"] or "profile" in f.ci_description
    assert res["ICC(A,1)"].pvalue < 0.01  # a strong item effect


def test_interval_ends_have_the_chi_square_deviance() -> None:
    # the profile-likelihood ends: deviance - min = chi2(1; 0.95) = 3.8415
    frame = _incomplete(6)
    design = CrossedDesign.from_codes(frame.item.to_numpy(), frame.rater.to_numpy(),
                                      frame.score.to_numpy())  # fmt: skip
    fit = fit_reml(design, "fixed")
    low, high = fit.profile_interval(0.95)
    dev = deviance_function(design, "fixed")
    for rho in (low, high):
        assert_allclose(dev(math.sqrt(rho / (1 - rho)), 0)[0] - fit.deviance, 3.8414588,
                        atol=1e-5)  # fmt: skip


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000))
def test_invariant_to_relabelling_and_row_order(seed: int) -> None:
    frame = _incomplete(seed, n=12, m=4, fill=0.7)
    gen = np.random.default_rng(seed)
    ratings = accord.Ratings.from_arrays(frame.item, frame.rater, frame.score, level="interval")
    shuffled = frame.sample(frac=1.0, random_state=seed)
    item_map = gen.permutation(100)
    rater_map = np.array([f"r{v}" for v in gen.permutation(10)])
    other = accord.Ratings.from_arrays(item_map[shuffled.item], rater_map[shuffled.rater],
                                       shuffled.score, level="interval")  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        a, b = icc(ratings, method="reml"), icc(other, method="reml")
    for fa, fb in zip(a.forms, b.forms, strict=True):
        if math.isnan(fa.statistic):
            assert math.isnan(fb.statistic)
            continue
        assert 0.0 <= fa.statistic <= 1.0
        assert_allclose(fa.statistic, fb.statistic, atol=1e-6, err_msg=fa.form)


def test_shift_and_scale_invariance() -> None:
    frame = _incomplete(8)
    a = icc(_matrix(frame))
    b = icc(_matrix(frame.assign(score=frame.score * 40 + 1000)))
    for fa, fb in zip(a.forms, b.forms, strict=True):
        assert_allclose(fa.statistic, fb.statistic, rtol=1e-6)
    assert_allclose(b["ICC(2,1)"].variance_components,
                    1600 * np.array(a["ICC(2,1)"].variance_components), rtol=1e-5)  # fmt: skip


def test_degenerate_and_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="'method' parameter of icc"):
        icc([[1.0, 2.0], [3.0, 4.0]], method="ml")  # type: ignore[arg-type]
    with pytest.warns(DegenerateDataWarning, match="no item has two scores"):
        res = icc([[1.0, np.nan], [np.nan, 2.0], [3.0, np.nan]])
    assert all(math.isnan(f.statistic) and f.reason for f in res.forms)
    with pytest.warns(DegenerateDataWarning, match="every score is the same"):
        icc([[1.0, 1.0], [1.0, np.nan], [1.0, 1.0]])
    with pytest.raises(InvalidInputError, match="finite"):
        icc([[1.0, np.inf], [2.0, np.nan]])


def test_agreement_table_shows_reml_icc_on_incomplete_designs() -> None:
    frame = _incomplete(9)
    with warnings.catch_warnings():
        warnings.simplefilter("error", accord.DroppedDataWarning)
        table = accord.agreement(frame, item="item", rater="rater", label="score",
                                 level="interval", coefficients=["icc"])  # fmt: skip
    forms = {c.label: c for c in table.coefficients}  # type: ignore[attr-defined]
    assert_allclose(forms["ICC(A,1)"].statistic, icc(_matrix(frame))["ICC(A,1)"].statistic)
    assert all(c.n_items == 25 for c in table.coefficients)


# --- intra-rater reliability -------------------------------------------------------------


def _retest(seed: int) -> pd.DataFrame:
    """Two raters score 12 items on 3 trials; rater b drifts up 0.5 per trial."""
    gen = np.random.default_rng(seed)
    truth = gen.normal(10, 2, 12)
    rows = [
        (i, r, t, truth[i] + (0.5 * t if r == "b" else 0) + gen.normal(0, 0.5 if r == "a" else 1))
        for r in ("a", "b")
        for t in range(3)
        for i in range(12)
    ]
    return pd.DataFrame(rows, columns=["item", "rater", "trial", "score"])


def test_intrarater_matches_pingouin_per_rater() -> None:
    import pingouin as pg  # peer: each rater's items x trials, trials as pingouin's raters

    frame = _retest(11)
    res = accord.intrarater_icc(frame)
    assert res.raters == ("a", "b") and res.n_trials == 3
    for name in res.raters:
        rows = frame[frame.rater == name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = pg.intraclass_corr(rows, "item", "trial", "score").set_index("Type")["ICC"]
        assert_allclose(res[name]["ICC(A,1)"].statistic, theirs["ICC(A,1)"], rtol=1e-10)
        assert_allclose(res[name]["ICC(C,1)"].statistic, theirs["ICC(C,1)"], rtol=1e-10)
    table = res.table()
    # the drifting rater agrees with themselves less than the steady one
    assert table.icc_agreement[0] > table.icc_agreement[1]


def test_intrarater_names_the_raters_whose_icc_is_undefined() -> None:
    # a rater who gives every item the same score on every trial: 0/0, counted in words
    frame = _retest(11)
    frame.loc[frame.rater == "b", "score"] = 5.0
    with pytest.warns(accord.DegenerateDataWarning) as caught:
        res = accord.intrarater_icc(frame)
    assert math.isnan(res["b"]["ICC(A,1)"].statistic)
    assert [str(w.message) for w in caught] == [
        "intrarater_icc: undefined for 1 rater (b): every score is the same: the ICC is 0/0 "
        "(undefined)"
    ]


def test_intrarater_missing_trials_use_reml_and_bad_input() -> None:
    frame = _retest(12).drop(index=[0, 5, 40])
    res = accord.intrarater_icc(frame)
    assert res["a"].method == "reml" and res.to_dict()["raters"][0]["method"] == "reml"
    with pytest.raises(InvalidInputError, match=r"\(item, rater, trial\) = \(1, 'a', 0\)"):
        accord.intrarater_icc(pd.concat([frame, frame.iloc[:1]]))
    with pytest.raises(accord.ColumnNotFoundError, match="'session' not found"):
        accord.intrarater_icc(frame, trial="session")


def test_exact_fit_keeps_the_rater_variance() -> None:
    # raters 1 and 2 read exactly 1 and 2 above rater 0: no residual at all. Consistency is
    # perfect; absolute agreement is not (the offsets are rater variance), and the interval
    # is computed at this edge of the parameter space.
    y = np.array([[1, 2, np.nan], [2, np.nan, 4], [np.nan, 6, 7], [3, 4, 5.0]])
    res = icc(y)
    assert res["ICC(C,1)"].statistic > 0.999999
    agreement = res["ICC(A,1)"]
    assert 0.3 < agreement.statistic < 0.99
    assert agreement.variance_components[1] > 0.1
    low, high = agreement.confidence_interval()
    assert 0 <= low <= agreement.statistic <= high <= 1


def test_review_panel_matches_statsmodels_and_the_command_line() -> None:
    # examples/panel.csv: 40 proposals x 12 reviewers, 4 reviewers a proposal (no complete
    # proposal, so no complete-case ANOVA at all)
    import statsmodels.formula.api as smf  # peer
    from typer.testing import CliRunner

    from accord.cli import app

    path = accord.datasets.path("panel.csv")
    frame = pd.read_csv(path)
    r = accord.read_ratings(path, item="proposal", rater="reviewer", label="score",
                            level="interval")  # fmt: skip
    res = icc(r)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = smf.mixedlm("score ~ 1", frame.assign(g=1), groups="g", re_formula="0",
                          vc_formula={"p": "0 + C(proposal)", "r": "0 + C(reviewer)"}
                          ).fit(reml=True)  # fmt: skip
    s_a, s_b = fit.vcomp
    assert_allclose(res["ICC(A,1)"].variance_components, (s_a, s_b, fit.scale), rtol=1e-4)
    out = CliRunner().invoke(app, ["agree", str(path), "--item", "proposal", "--rater",
                                   "reviewer", "--label", "score", "--level", "interval",
                                   "--format", "json"])  # fmt: skip
    assert out.exit_code == 0
    iccs = {c["alias"]: c for c in cli_json(out.stdout)["coefficients"] if c["name"] == "icc"}
    assert_allclose(iccs["ICC(A,1)"]["statistic"], res["ICC(A,1)"].statistic)
    assert "profile-likelihood" in iccs["ICC(A,1)"]["ci_method"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 25), st.integers(0, 6)), min_size=1, max_size=120),
    st.randoms(use_true_random=False),
)
def test_rater_pairs_of_the_raters_sets_equal_every_pair_of_scores(
    cells: list[tuple[int, int]], shuffle: random.Random
) -> None:
    # few raters: the items counted by their set of raters; the pairs of scores visited
    # one by one otherwise (and where a rater scores an item twice): the same sums, rows
    # in any order
    from accord.agreement import icc_mixed

    for rows in (list(dict.fromkeys(cells)), list(cells)):  # without and with replicates
        shuffle.shuffle(rows)
        items = icc_mixed._compact(np.array([i for i, _ in rows]))
        raters = icc_mixed._compact(np.array([r for _, r in rows]))
        n_i = np.bincount(items)
        hist = np.bincount(n_i)
        klass = (np.cumsum(hist > 0) - 1)[n_i]
        m = int(raters.max()) + 1
        args = (items, raters, n_i, klass[items], int(np.count_nonzero(hist)), m)
        by_sets = icc_mixed._rater_pairs(*args)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(icc_mixed, "_FEW_RATERS", -1)
            by_pairs = icc_mixed._rater_pairs(*args)
        np.testing.assert_array_equal(by_sets, by_pairs)
