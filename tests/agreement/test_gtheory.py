"""G-studies and D-studies against GeneralizIT, lme4, statsmodels, the ICC and hand computations."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.stats import chi2

from accord._errors import DegenerateDataWarning, InvalidInputError
from accord.agreement.gtheory import d_study, g_study
from accord.agreement.gtheory_design import facet_specs, parse_design
from accord.agreement.icc import icc
from accord.agreement.icc_mixed import CrossedDesign, fit_reml

HERE = Path(__file__).parents[1] / "reference" / "gtheory"
REF = json.loads((HERE / "references.json").read_text())
FACETS = {"p": "person", "r": "rater", "o": "occasion", "s": "site"}
PRO = {"p": "person", "r": "rater", "o": "occasion"}
# GeneralizIT's effect names -> Brennan's compact names used by accord
GZ_NAMES = {
    "p x r": "pr",
    "p x o": "po",
    "r x o": "ro",
    "p x r x o": "pro",
    "p x (r:o)": "pr:o",
    "s x r": "sr",
    "(p:s) x r": "pr:s",
}
# Shrout & Fleiss (1979) Table 1: 6 targets x 4 judges
SHROUT_FLEISS = [
    [9, 2, 5, 8],
    [6, 1, 3, 2],
    [8, 4, 6, 8],
    [7, 1, 2, 6],
    [10, 5, 6, 9],
    [6, 2, 4, 7],
]


def _study(name: str, design: str, **kw: object) -> object:
    frame = pd.read_csv(HERE / f"{name}.csv")
    facets = {f: c for f, c in FACETS.items() if f in parse_design(design).facets}
    return g_study(frame, design=design, facets=facets, **kw)  # type: ignore[arg-type]


def _long(matrix: list[list[float]]) -> pd.DataFrame:
    y = np.asarray(matrix, dtype=float)
    i, j = np.nonzero(~np.isnan(y))
    return pd.DataFrame({"item": i, "rater": j, "score": y[i, j]})


@pytest.mark.parametrize("name", sorted(REF["generalizit"]))
def test_anova_components_match_generalizit(name: str) -> None:
    ref = REF["generalizit"][name]
    g = _study(name, ref["design"], method="anova")
    assert g.method == "anova" and g.balanced
    for effect, value in ref["variance"].items():
        # GeneralizIT 0.1.2, expected mean squares (tests/reference/gtheory/references.json)
        assert_allclose(g.variance(GZ_NAMES.get(effect, effect)), value, atol=5e-6)


@pytest.mark.parametrize("name", sorted(REF["generalizit"]))
def test_d_study_at_g_study_sizes_matches_generalizit(name: str) -> None:
    ref = REF["generalizit"][name]
    g = _study(name, ref["design"])
    obj = "p:s" if name == "ps_r_balanced" else "p"
    sizes = {f: int(g.sample_sizes[f]) for f in d_study(g).facets}
    row = d_study(g, sizes).table.iloc[0]
    # GeneralizIT calculate_g_coefficients(): 4 decimals, from components it rounds to 4
    # decimals (hence the tolerance); negative components set to 0
    assert_allclose(row["phi"], ref["g_coeffs"][obj]["phi"], atol=2e-4)
    assert_allclose(row["g_coefficient"], ref["g_coeffs"][obj]["rho"], atol=2e-4)


@pytest.mark.parametrize("name", sorted(REF["lme4"]))
def test_reml_components_match_lme4(name: str) -> None:
    ref = REF["lme4"][name]
    g = _study(name, ref["design"], method="reml")
    assert g.method == "reml"
    for effect, value in ref["variance"].items():
        # lme4::lmer(..., REML=TRUE) VarCorr (tests/reference/gtheory/references.json)
        assert_allclose(g.variance(effect), value, rtol=1e-4, atol=2e-5)


def test_anova_mean_squares_match_statsmodels() -> None:
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    frame = pd.read_csv(HERE / "prxo_balanced.csv")
    fit = smf.ols(
        "score ~ C(person) + C(rater) + C(occasion) + C(person):C(rater) + C(person):C(occasion)"
        " + C(rater):C(occasion)",
        data=frame,
    ).fit()
    table = anova_lm(fit, typ=1)
    g = _study("prxo_balanced", "p x r x o")
    ms = dict(zip(g.components["effect"], g.components["mean_square"], strict=True))
    expected = table["mean_sq"].to_numpy()
    assert_allclose([ms[e] for e in ("p", "r", "o", "pr", "po", "ro", "pro")], expected, rtol=1e-10)
    assert_allclose(g.components["df"], table["df"], rtol=0)


def test_one_facet_design_equals_icc_forms() -> None:
    # McGraw & Wong (1996): E rho^2 at n'_r = k is ICC(C,k), Phi is ICC(A,k)
    g = g_study(_long(SHROUT_FLEISS), design="p x r")
    row = d_study(g, {"r": 4}).table.iloc[0]
    forms = icc(SHROUT_FLEISS)
    assert_allclose(row["g_coefficient"], forms["ICC(C,k)"].statistic, rtol=1e-12)
    assert_allclose(row["phi"], forms["ICC(A,k)"].statistic, rtol=1e-12)
    one = d_study(g, {"r": 1}).table.iloc[0]
    assert_allclose(one["g_coefficient"], forms["ICC(C,1)"].statistic, rtol=1e-12)
    assert_allclose(one["phi"], forms["ICC(A,1)"].statistic, rtol=1e-12)


def test_one_facet_reml_equals_icc_reml() -> None:
    frame = pd.read_csv(HERE / "pr_missing.csv")
    g = g_study(frame, design="p x r", facets={"p": "person"}, method="reml")
    items = pd.factorize(frame["person"])[0]
    raters = pd.factorize(frame["rater"])[0]
    fit = fit_reml(CrossedDesign.from_codes(items, raters, frame["score"].to_numpy()), "random")
    assert_allclose(
        [g.variance("p"), g.variance("r"), g.variance("pr")],
        [fit.items_variance, fit.raters_variance, fit.residual_variance],
        rtol=1e-4,
    )


def test_reml_equals_anova_on_balanced_data_without_negative_estimates() -> None:
    a = _study("rp_balanced", "r:p", method="anova")
    b = _study("rp_balanced", "r:p", method="reml")
    assert_allclose(b.components["variance"], a.components["variance"], rtol=1e-5)


def test_satterthwaite_interval_and_standard_error_by_hand() -> None:
    # p x r: s2(p) = (MSp - MSe) / n_r; Satterthwaite df nu = s2^2 / sum (c MS)^2 / df
    # (Brennan 2001, eq. 6.13); Brennan's SE, eq. 6.1: sqrt(sum 2 (c MS)^2 / (df + 2))
    from scipy.stats import chi2

    g = g_study(_long(SHROUT_FLEISS), design="p x r", confidence_level=0.9)
    c = g.components.set_index("effect")
    msp, mse, n_r = c.loc["p", "mean_square"], c.loc["pr", "mean_square"], 4
    v = (msp - mse) / n_r
    nu = v**2 / ((msp / n_r) ** 2 / 5 + (mse / n_r) ** 2 / 15)
    se = math.sqrt(2 * (msp / n_r) ** 2 / 7 + 2 * (mse / n_r) ** 2 / 17)
    assert_allclose(c.loc["p", "variance"], v, rtol=1e-12)
    assert_allclose(c.loc["p", "standard_error"], se, rtol=1e-12)
    assert_allclose(c.loc["p", "ci_low"], nu * v / chi2.ppf(0.95, nu), rtol=1e-8)
    assert_allclose(c.loc["p", "ci_high"], nu * v / chi2.ppf(0.05, nu), rtol=1e-8)


def test_d_study_table_and_smallest_design() -> None:
    g = _study("prxo_balanced", "p x r x o")
    d = d_study(g, {"r": range(1, 7), "o": [1, 2, 3]})
    assert list(d.table.columns[:2]) == ["n_r", "n_o"] and len(d.table) == 18
    # more raters never lowers either coefficient
    for _, block in d.table.groupby("n_o"):
        assert np.all(np.diff(block["phi"]) >= 0) and np.all(np.diff(block["g_coefficient"]) >= 0)
    best = d.smallest(0.8, "phi")
    assert best["phi"] >= 0.8
    fewer = d.table[(d.table["n_r"] * d.table["n_o"]) < best["n_r"] * best["n_o"]]
    assert (fewer["phi"] < 0.8).all()
    # hand: Phi = tau / (tau + sum s2 / pi'), negative o set to 0
    v = {e: max(g.variance(e), 0.0) for e in ("p", "r", "o", "pr", "po", "ro", "pro")}
    rel = v["pr"] / 3 + v["po"] / 2 + v["pro"] / 6
    ab = rel + v["r"] / 3 + v["o"] / 2 + v["ro"] / 6
    row = d.table[(d.table["n_r"] == 3) & (d.table["n_o"] == 2)].iloc[0]
    assert_allclose(
        [row["g_coefficient"], row["phi"]], [v["p"] / (v["p"] + rel), v["p"] / (v["p"] + ab)]
    )
    assert_allclose([row["sem_relative"], row["sem_absolute"]], [math.sqrt(rel), math.sqrt(ab)])
    with pytest.raises(InvalidInputError, match="no design"):
        d.smallest(0.999)


def test_design_parsing_and_nesting() -> None:
    assert [e.name for e in parse_design("p x r x o").effects] == [
        "p",
        "r",
        "o",
        "pr",
        "po",
        "ro",
        "pro",
    ]
    assert [e.name for e in parse_design("r:p").effects] == ["p", "r:p"]
    d = parse_design("(p:s) x r")
    assert d.object == "p" and [e.name for e in d.effects] == ["s", "r", "p:s", "sr", "pr:s"]
    assert d.nesting() == "p nested in s; crossed: p x r, s x r"
    assert parse_design("person × rater").object == "person"
    for bad in ("p x", "p x (r:o", "p", "p x p", "p + r"):
        with pytest.raises(InvalidInputError, match="design"):
            parse_design(bad)


def test_crossed_design_on_nested_data_is_refused() -> None:
    frame = pd.read_csv(HERE / "p_ro_balanced.csv")
    with pytest.raises(InvalidInputError, match="nested in o"):
        g_study(frame, design="p x r x o", facets=PRO)
    nested = pd.read_csv(HERE / "rp_balanced.csv")
    g = g_study(nested, design="r:p", facets={"p": "person", "r": "rater"})
    assert any("different r within each" in n for n in g.notes)


def test_bad_input() -> None:
    frame = _long(SHROUT_FLEISS)
    with pytest.raises(InvalidInputError, match="column 'occasion'"):
        g_study(frame, design="p x r x o")
    with pytest.raises(InvalidInputError, match="method='reml'"):
        g_study(_long([[1, 2], [3, np.nan], [2, 2]]), design="p x r", method="anova")
    with pytest.raises(InvalidInputError, match="method"):
        g_study(frame, method="ml")  # type: ignore[arg-type]
    bad = frame.assign(score=frame["score"].astype(object))
    bad.loc[3, "score"] = "x"
    with pytest.raises(InvalidInputError, match="row 4"):
        g_study(bad)
    with pytest.raises(InvalidInputError, match="sizes"):
        d_study(g_study(frame), {"o": 2})


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 10_000))
def test_row_order_and_label_invariance(seed: int) -> None:
    rng = np.random.default_rng(seed)
    frame = pd.read_csv(HERE / "prxo_missing.csv")
    shuffled = frame.iloc[rng.permutation(len(frame))].copy()
    shuffled["rater"] = shuffled["rater"].map({f"R{i}": f"X{5 - i}" for i in range(1, 5)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = g_study(frame, design="p x r x o", facets=PRO)
        b = g_study(shuffled, design="p x r x o", facets=PRO)
    assert_allclose(a.components["variance"], b.components["variance"], rtol=1e-4, atol=1e-6)


def test_methods_text_cites_the_numbers_of_the_result() -> None:
    g = g_study(_long(SHROUT_FLEISS), design="p x r")
    best = d_study(g, {"r": range(1, 21)}).smallest(0.8)
    text = g.methods_text(best)
    assert "p x r generalizability study [1]" in text and "Brennan, R. L. (2001)" in text
    assert f"Phi = {best['phi']:.3f}" in text and "10 levels of r" in text
    reml = _study("prxo_missing", "p x r x o").methods_text(format="markdown")
    assert "restricted maximum likelihood" in reml and "lme4" in reml


def test_a_facet_with_one_level_is_refused() -> None:
    one_rater = pd.DataFrame({"item": [0, 1, 2], "rater": [0, 0, 0], "score": [1.0, 2.0, 3.0]})
    with pytest.raises(InvalidInputError, match="at least 2 levels"):
        g_study(one_rater)


def test_constant_scores_warn_and_give_undefined_coefficients() -> None:
    flat = _long([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
    with pytest.warns(DegenerateDataWarning, match="same"):
        g = g_study(flat)
    row = d_study(g, {"r": 2}).table.iloc[0]
    assert math.isnan(row["phi"]) and math.isnan(row["g_coefficient"])


def test_d_study_figure_draws_one_line_per_occasion_count() -> None:
    from accord.report.planning import d_study_figure

    g = _study("prxo_balanced", "p x r x o")
    d = d_study(g, {"r": range(1, 5), "o": [1, 2]})
    ax = d_study_figure(d, coefficient="g_coefficient", target=0.7).axes[0]
    lines = ax.get_lines()
    assert len(lines) == 3  # two numbers of occasions and the goal
    assert_allclose(lines[1].get_ydata(), d.table.loc[d.table["n_o"] == 2, "g_coefficient"])
    assert ax.get_ylabel() == "E rho^2"
    with pytest.raises(InvalidInputError, match="d_study_figure"):
        d_study_figure(g)


def _dense_reml_information(
    frame: pd.DataFrame, columns: list[list[str]], v: np.ndarray
) -> np.ndarray:
    """Observed information of the REML log-likelihood in the variances, analytically on the
    dense ``V = sum v_k Z_k Z_k' + v_e I`` (Searle, Casella & McCulloch 1992, eq. 6.74):
    ``y'P V_i P V_j P y - tr(P V_i P V_j) / 2``, ``P = V^-1 - V^-1 X (X'V^-1 X)^-1 X'V^-1``."""
    y = frame["score"].to_numpy()
    n = y.size
    vs = []
    for cols in columns:
        codes = pd.factorize(frame[cols].astype(str).agg("|".join, axis=1))[0]
        z = np.zeros((n, codes.max() + 1))
        z[np.arange(n), codes] = 1.0
        vs.append(z @ z.T)
    vs.append(np.eye(n))
    big_v = sum(vk * m for vk, m in zip(v, vs, strict=True))
    vinv = np.linalg.inv(big_v)
    x = np.ones((n, 1))
    p = vinv - vinv @ x @ np.linalg.inv(x.T @ vinv @ x) @ x.T @ vinv
    py = p @ y
    k = len(vs)
    info = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            pvi, pvj = p @ vs[i], p @ vs[j]
            info[i, j] = py @ vs[i] @ pvj @ py - 0.5 * np.trace(pvi @ pvj)
    return info


@pytest.mark.parametrize(
    ("name", "design", "columns"),
    [
        ("pr_missing", "p x r", [["person"], ["rater"]]),
        (
            "prxo_missing",
            "p x r x o",
            [
                ["person"],
                ["rater"],
                ["occasion"],
                ["person", "rater"],
                ["person", "occasion"],
                ["rater", "occasion"],
            ],
        ),
    ],
)
def test_reml_intervals_from_the_observed_information(
    name: str, design: str, columns: list[list[str]]
) -> None:
    g = _study(name, design, method="reml")
    comp = g.components
    v = comp["variance"].to_numpy()
    free = v > 1e-6 * v.sum()
    frame = pd.read_csv(HERE / f"{name}.csv")
    info = _dense_reml_information(frame, columns, v)
    cov = np.linalg.inv(info[np.ix_(free, free)])
    se = np.sqrt(np.diag(cov))
    assert_allclose(comp["standard_error"].to_numpy()[free], se, rtol=1e-3)
    nu = 2 * v[free] ** 2 / se**2
    assert_allclose(comp["df_satterthwaite"].to_numpy()[free], nu, rtol=2e-3)
    assert_allclose(comp["ci_low"].to_numpy()[free], nu * v[free] / chi2.ppf(0.975, nu), rtol=2e-3)
    assert_allclose(comp["ci_high"].to_numpy()[free], nu * v[free] / chi2.ppf(0.025, nu), rtol=2e-3)
    assert np.isnan(comp["standard_error"].to_numpy()[~free]).all()
    assert np.isnan(comp["ci_low"].to_numpy()[~free]).all()
    if (~free).any():
        assert any("boundary 0" in note for note in g.notes)


def _seeded_pr(n_p: int, n_r: int, drop: int, seed: int) -> pd.DataFrame:
    """Seeded p x r scores (person sd 1, rater sd 0.5, residual sd 0.7), ``drop`` cells off."""
    rng = np.random.default_rng(seed)
    y = rng.normal(0, 1, (n_p, 1)) + rng.normal(0, 0.5, (1, n_r)) + rng.normal(0, 0.7, (n_p, n_r))
    person, rater = np.divmod(np.arange(n_p * n_r), n_r)
    frame = pd.DataFrame({"person": person, "rater": rater, "score": y.ravel()})
    return frame.drop(index=rng.choice(frame.index, drop, replace=False)).reset_index(drop=True)


def _dense_reml_deviance(frame: pd.DataFrame, v: np.ndarray) -> float:
    """-2 REML log-likelihood (less its constant) of p x r scores at variances (p, r, pr):
    ``log|V| + log|X'V^-1 X| + y'Py`` (Harville 1977, eq. 4.4)."""
    y = frame["score"].to_numpy()
    zp = (frame["person"].to_numpy()[:, None] == np.unique(frame["person"])).astype(float)
    zr = (frame["rater"].to_numpy()[:, None] == np.unique(frame["rater"])).astype(float)
    big_v = v[0] * zp @ zp.T + v[1] * zr @ zr.T + v[2] * np.eye(y.size)
    vinv = np.linalg.inv(big_v)
    x = np.ones((y.size, 1))
    xvx = x.T @ vinv @ x
    p = vinv - vinv @ x @ np.linalg.inv(xvx) @ x.T @ vinv
    return float(np.linalg.slogdet(big_v)[1] + np.linalg.slogdet(xvx)[1] + y @ p @ y)


def test_reml_intervals_match_a_finite_difference_hessian_of_a_dense_reml_deviance() -> None:
    # independent computation: central second differences (steps 1e-3 of each variance) of the
    # dense REML deviance above; information = half its Hessian; Satterthwaite's interval
    # with nu = 2 v^2 / var (SAS PROC MIXED's CL option) from scipy's chi-square quantiles
    frame = _seeded_pr(12, 5, drop=9, seed=37)
    g = g_study(frame, design="p x r", facets={"p": "person", "r": "rater"}, method="reml")
    comp = g.components
    v = comp["variance"].to_numpy()
    assert (v > 0.05).all()
    h = 1e-3 * v
    hess = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            total = 0.0
            for si, sj in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                x = v.copy()
                x[i] += si * h[i]
                x[j] += sj * h[j]
                total += si * sj * _dense_reml_deviance(frame, x)
            hess[i, j] = total / (4 * h[i] * h[j])
    var = np.diag(np.linalg.inv(hess / 2))
    nu = 2 * v**2 / var
    assert_allclose(comp["standard_error"], np.sqrt(var), rtol=2e-3)
    assert_allclose(comp["df_satterthwaite"], nu, rtol=4e-3)
    assert_allclose(comp["ci_low"], nu * v / chi2.ppf(0.975, nu), rtol=4e-3)
    assert_allclose(comp["ci_high"], nu * v / chi2.ppf(0.025, nu), rtol=4e-3)
    assert (comp["ci_low"] < comp["variance"]).all() and (comp["variance"] < comp["ci_high"]).all()


def test_reml_intervals_equal_the_anova_satterthwaite_ones_on_a_balanced_design() -> None:
    # balanced, every ANOVA component positive: REML = ANOVA, and the inverse information
    # is sum 2 (c EMS)^2 / df at EMS = MS, so nu = 2 v^2 / var is Brennan's (2001, sec. 6.1.2)
    frame = _seeded_pr(10, 6, drop=0, seed=8)
    kw = {"design": "p x r", "facets": {"p": "person", "r": "rater"}}
    anova = g_study(frame, method="anova", **kw).components  # type: ignore[arg-type]
    reml = g_study(frame, method="reml", **kw).components  # type: ignore[arg-type]
    assert (anova["variance"] > 0).all()
    cols = ["variance", "df_satterthwaite", "ci_low", "ci_high"]
    assert_allclose(reml[cols].to_numpy(), anova[cols].to_numpy(), rtol=2e-4)


def test_facet_specs_read_one_spelling() -> None:
    assert facet_specs(" o = occasion ", "--facet") == (("o", "occasion"),)
    assert facet_specs(["site", "site", "t=task"], "facets") == ((None, "site"), ("t", "task"))
    for bad in ("", "=site", "o=", "x=site", "2o=site", 3):
        with pytest.raises(InvalidInputError, match=r"^--facet takes COLUMN or FACET=COLUMN"):
            facet_specs([bad], "--facet")
    with pytest.raises(InvalidInputError, match="facet 'p' is the items"):
        facet_specs("p=patient", "facets")
    with pytest.raises(InvalidInputError, match="'o' twice: 'occasion' and 'visit'"):
        facet_specs(["o=occasion", "o=visit"], "facets")
