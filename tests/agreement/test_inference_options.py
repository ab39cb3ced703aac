"""Inference options of the chance-corrected coefficients (as Stata's kappaetc offers them):
the standard error conditional on the raters, on the items (a jackknife over raters) or
unconditional (Gwet 2008, Psychometrika 73:407), the finite-population correction of the
raters, tests against a value, and the power and circular weights (Warrens 2014; Warrens &
Pratiwi 2016)."""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats
from typer.testing import CliRunner

import accord
from accord import (
    InvalidInputError,
    brennan_prediger,
    cohen_kappa,
    conger_kappa,
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    krippendorff_alpha,
    percent_agreement,
)
from accord.agreement.inference import rater_variance
from accord.agreement.weights import agreement_weights
from accord.cli import app

from .._cli import cli_json

# Three raters (columns), four items; items 2 and 3 split two to one.
TOY = [["A", "A", "A"], ["A", "A", "B"], ["A", "B", "B"], ["B", "B", "B"]]

FAMILY: dict[str, Callable[..., Any]] = {
    "percent_agreement": percent_agreement,
    "fleiss_kappa": fleiss_kappa,
    "conger_kappa": conger_kappa,
    "brennan_prediger": brennan_prediger,
    "gwet_ac1": gwet_ac1,
    "gwet_ac2": gwet_ac2,
    "krippendorff_alpha": krippendorff_alpha,
}


def toy() -> accord.Ratings:
    return accord.Ratings.from_wide(TOY)


# --------------------------------------------------------------------------- by hand


def test_percent_agreement_of_the_toy_by_hand() -> None:
    # Pair agreement per item: 1, 1/3, 1/3, 1, so p_a = 2/3; the SE conditional on the
    # raters is sqrt(sum (p_i - p_a)^2 / (n (n - 1))) = sqrt((4/9) / 12) = sqrt(1/27).
    # Leaving out rater 1, 2, 3 gives p_a = 3/4, 1/2, 3/4 (mean 2/3): the jackknife variance
    # is (2/3) [(1/12)^2 + (1/6)^2 + (1/12)^2] = (2/3)(1/24) = 1/36, SE 1/6.
    r = toy()
    raters = percent_agreement(r)
    items = percent_agreement(r, se="items")
    both = percent_agreement(r, se="unconditional")
    assert_allclose(raters.statistic, 2 / 3)
    assert_allclose(raters.standard_error, math.sqrt(1 / 27))
    assert_allclose(items.rater_jackknife, [3 / 4, 1 / 2, 3 / 4])
    assert_allclose(items.standard_error, 1 / 6)
    assert_allclose(both.standard_error, math.sqrt(1 / 27 + 1 / 36))
    assert_allclose(both.standard_error_given_raters, math.sqrt(1 / 27))
    assert_allclose(both.standard_error_given_items, 1 / 6)
    # kappaetc's references: t on n - 1 = 3 df, t on r - 1 = 2 df, the normal.
    assert (raters.df, items.df, both.df) == (3, 2, math.inf)
    assert (raters.se_kind, items.se_kind, both.se_kind) == ("raters", "items", "unconditional")


def test_fleiss_kappa_of_the_toy_by_hand() -> None:
    # All three raters: p_a = 2/3, pi_A = (1 + 2/3 + 1/3 + 0)/4 = 1/2, p_e = 1/2, kappa 1/3.
    # Without rater 1: p_a = 3/4, pi_A = 3/8, p_e = 9/64 + 25/64 = 17/32, kappa = 7/15;
    # without rater 2: p_a = 1/2 = p_e, kappa 0; without rater 3: 7/15 as without rater 1.
    # Mean 14/45; deviations 7/45, -14/45, 7/45; (2/3) 294/2025 = 196/2025 = (14/45)^2.
    res = fleiss_kappa(toy(), se="items")
    assert_allclose(res.statistic, 1 / 3)
    assert_allclose(res.rater_jackknife, [7 / 15, 0.0, 7 / 15], atol=1e-12)
    assert_allclose(res.standard_error, 14 / 45)


def test_rater_population_corrects_the_variance_over_raters_only() -> None:
    # kappaetc's nraters(R): the variance over raters times (1 - r/R); here 1 - 3/6 = 1/2.
    r = toy()
    half = percent_agreement(r, se="unconditional", rater_population_size=6)
    assert_allclose(half.standard_error_given_items, math.sqrt(1 / 72))
    assert_allclose(half.standard_error, math.sqrt(1 / 27 + 1 / 72))
    assert half.rater_population_size == 6.0
    # All the raters of the population rated: no variance over raters is left.
    every = percent_agreement(r, se="items", rater_population_size=3)
    assert every.standard_error == 0.0
    # kappaetc's nsubjects(N) is population_size: (1 - n/N) on the variance over items.
    items = percent_agreement(r, se="unconditional", population_size=8)
    assert_allclose(items.standard_error_given_raters, math.sqrt(0.5 / 27))
    assert_allclose(items.standard_error, math.sqrt(0.5 / 27 + 1 / 36))


def test_rater_variance_formula() -> None:
    # (r - 1)/r * sum of squared deviations, by hand: values 0, 1, 2, 3 have mean 1.5 and
    # squares summing to 5, so (3/4) 5 = 3.75.
    assert_allclose(rater_variance(np.array([0.0, 1.0, 2.0, 3.0]), None), 3.75)
    assert_allclose(rater_variance(np.array([0.0, 1.0, 2.0, 3.0]), 8), 3.75 / 2)
    assert math.isnan(rater_variance(np.array([0.1, math.nan, 0.3]), None))


# --------------------------------------------------------------------------- every member

DATA = [
    [1, 1, 2, 1],
    [2, 2, 2, 3],
    [3, 3, 3, 3],
    [1, 2, 1, 1],
    [2, 2, 3, 2],
    [3, 2, 3, 3],
    [1, 1, 1, 2],
    [2, 3, 2, 2],
    [None, 3, 3, 1],
    [1, None, 1, 1],
]


WEIGHTED = [(name, None) for name in sorted(FAMILY) if name != "gwet_ac2"] + [
    (name, w)
    for name in ("percent_agreement", "fleiss_kappa", "brennan_prediger", "gwet_ac2")
    for w in ("quadratic", "power:1.5", "circular:0.3")
]


@pytest.mark.parametrize(("name", "weights"), WEIGHTED)
def test_jackknife_over_raters_is_the_coefficient_without_each_column(
    name: str, weights: str | None
) -> None:
    # The leave-one-out values recomputed from scratch, each from the table without one
    # rater's column (as kappaetc's jackknife drops a variable), and the jackknife formula
    # written out here. (The item-count members compute them from item totals.)
    func = FAMILY[name]
    wide = np.array(DATA, dtype=object)
    kw: dict[str, Any] = {} if weights is None else {"weights": weights}
    full = accord.Ratings.from_wide(wide.tolist(), level="ordinal", categories=[1, 2, 3])
    res = func(full, se="unconditional", **kw)
    loo = []
    for g in range(wide.shape[1]):
        rest = np.delete(wide, g, axis=1).tolist()
        sub = accord.Ratings.from_wide(rest, level="ordinal", categories=[1, 2, 3])
        loo.append(func(sub, **kw).statistic)
    loo_arr = np.array(loo)
    r = loo_arr.size
    v_raters = (r - 1) / r * np.sum((loo_arr - loo_arr.mean()) ** 2)
    assert_allclose(res.rater_jackknife, loo_arr, rtol=1e-12)
    assert_allclose(res.standard_error_given_items, math.sqrt(v_raters), rtol=1e-12)
    conditional = func(full, **kw).standard_error
    assert_allclose(res.standard_error_given_raters, conditional, rtol=1e-12)
    assert_allclose(res.standard_error, math.sqrt(conditional**2 + v_raters), rtol=1e-12)
    assert res.statistic == func(full, **kw).statistic  # the estimate does not change


def test_default_is_todays_standard_error() -> None:
    r = accord.datasets.load_diagnoses()
    default, explicit = fleiss_kappa(r), fleiss_kappa(r, se="raters")
    assert default.standard_error == explicit.standard_error
    assert default.se_kind == "raters" and math.isnan(default.standard_error_given_items)
    assert default.standard_error_given_raters == default.standard_error
    # Fleiss (1971): kappa 0.430 with the irrCAC 1.4 SE of the many-raters reference file.
    assert round(default.statistic, 3) == 0.43


# --------------------------------------------------------------------------- tests


def test_test_value_t_statistic_and_pvalues_against_scipy() -> None:
    # kappaetc's testvalue(#): t = (b - #)/se on n - 1 df (se conditional on the raters),
    # two-sided by default; testvalue(<#) tests H0 b <= # (alternative "greater").
    r = accord.datasets.load_diagnoses()
    base = fleiss_kappa(r)
    t = (base.statistic - 0.6) / base.standard_error
    two = fleiss_kappa(r, test_value=0.6)
    greater = fleiss_kappa(r, test_value=0.6, alternative="greater")
    less = fleiss_kappa(r, test_value=0.6, alternative="less")
    assert_allclose(two.test_statistic, t)
    assert_allclose(two.pvalue, 2 * stats.t.sf(abs(t), 29))
    assert_allclose(greater.pvalue, stats.t.sf(t, 29))
    assert_allclose(less.pvalue, stats.t.cdf(t, 29))
    assert_allclose(greater.pvalue + less.pvalue, 1.0)
    d = two.to_dict()
    assert (d["test_value"], d["alternative"], d["df"]) == (0.6, "two-sided", 29)
    assert_allclose(d["test_statistic"], t)


def test_unconditional_test_is_a_z_test_and_jackknife_one_a_t_on_raters() -> None:
    r = accord.datasets.load_diagnoses()  # 6 raters
    z_res = gwet_ac1(r, se="unconditional", test_value=0.3, alternative="greater")
    z = (z_res.statistic - 0.3) / z_res.standard_error
    assert_allclose(z_res.pvalue, stats.norm.sf(z))
    lo, hi = z_res.confidence_interval(0.9)
    assert_allclose([lo, hi], z_res.statistic + np.array([-1, 1]) * stats.norm.ppf(0.95)
                    * z_res.standard_error)  # fmt: skip
    t_res = gwet_ac1(r, se="items", test_value=0.3)
    t = (t_res.statistic - 0.3) / t_res.standard_error
    assert_allclose(t_res.pvalue, 2 * stats.t.sf(abs(t), 5))
    assert t_res.ci_description.startswith("t interval, 5 df")
    assert z_res.ci_description.startswith("normal interval")


# --------------------------------------------------------------------------- bad input


def test_jackknife_needs_ratings_with_rater_ids_and_three_raters() -> None:
    with pytest.raises(InvalidInputError, match="rater ids"):
        fleiss_kappa([[2, 1], [0, 3], [3, 0]], se="items")
    two = accord.Ratings.from_wide([["a", "a"], ["a", "b"], ["b", "b"]])
    with pytest.raises(InvalidInputError, match=r"three or more raters.*have 2"):
        gwet_ac1(two, se="unconditional")


@pytest.mark.parametrize(
    ("kw", "pattern"),
    [
        ({"se": "subject"}, "'se' parameter of fleiss_kappa must be one of"),
        ({"alternative": "bigger"}, "'alternative' parameter"),
        ({"test_value": "0.6"}, "'test_value' parameter .* a number"),
        ({"test_value": math.inf}, "finite"),
        ({"rater_population_size": 0}, "'rater_population_size' parameter"),
        ({"se": "items", "rater_population_size": 2}, r"smaller than the number of raters \(3\)"),
    ],
)
def test_bad_options_name_the_option(kw: dict[str, Any], pattern: str) -> None:
    with pytest.raises(InvalidInputError, match=pattern):
        fleiss_kappa(toy(), **kw)


def test_undefined_leave_one_out_gives_nan_with_a_reason() -> None:
    # Without rater 3 every rating is "A": Fleiss' kappa is 0/0 there, so its jackknife is.
    r = accord.Ratings.from_wide([["A", "A", "B"], ["A", "A", "A"], ["A", "A", "B"]])
    for func in (fleiss_kappa, krippendorff_alpha):
        with pytest.warns(accord.DegenerateDataWarning, match="some rater left out") as caught:
            res = func(r, se="items")
        assert math.isfinite(res.statistic) and math.isnan(res.standard_error)
        assert "rater left out" in (res.reason or "")
        assert [w.filename for w in caught] == [__file__]  # the warning names the call


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("name", sorted(FAMILY))
@settings(max_examples=12, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 2), min_size=4, max_size=4), min_size=4, max_size=9),
    st.permutations(range(4)),
)
def test_components_add_up_and_raters_order_does_not_matter(
    name: str, rows: list[list[int]], order: list[int]
) -> None:
    r = accord.Ratings.from_wide(rows, categories=[0, 1, 2], level="ordinal")
    shuffled = accord.Ratings.from_wide([[row[j] for j in order] for row in rows],
                                        categories=[0, 1, 2], level="ordinal")  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate draws: NaN, checked below
        a = FAMILY[name](r, se="unconditional")
        b = FAMILY[name](shuffled, se="unconditional")
    if not math.isfinite(a.standard_error):
        return
    assert_allclose(a.standard_error**2,
                    a.standard_error_given_raters**2 + a.standard_error_given_items**2)  # fmt: skip
    assert a.standard_error >= max(a.standard_error_given_raters, a.standard_error_given_items)
    assert_allclose(np.sort(a.rater_jackknife), np.sort(b.rater_jackknife), atol=1e-12)
    assert_allclose(a.standard_error, b.standard_error, atol=1e-12)


# --------------------------------------------------------------------------- weights


@pytest.mark.parametrize(
    ("exponent", "same_as"),
    [(0.0, "identity"), (0.5, "radical"), (1.0, "linear"), (2.0, "quadratic")],
)
def test_power_weights_generalise_the_named_schemes(exponent: float, same_as: str) -> None:
    # Warrens (2014): power weights 1 - |k - l|^a / (q_max - q_min)^a give the identity,
    # radical, linear and quadratic weights at a = 0, 1/2, 1 and 2.
    cats = [1, 2, 4, 7]
    assert_allclose(agreement_weights(f"power:{exponent:g}", cats),
                    agreement_weights(same_as, cats))  # fmt: skip


def test_power_and_circular_weights_by_hand() -> None:
    # power:3 on 1..3: 1 - (1/2)^3 = 0.875 for neighbours, 0 for the ends.
    assert_allclose(agreement_weights("power:3", [1, 2, 3]),
                    [[1, 0.875, 0], [0.875, 1, 0.875], [0, 0.875, 1]])  # fmt: skip
    # Warrens & Pratiwi (2016), q = 5, u = 0.4: neighbours on the circle (|k - l| = 1 or 4).
    w = agreement_weights("circular:0.4", ["N", "E", "S", "W", "X"])
    expected = np.array(
        [
            [1, 0.4, 0, 0, 0.4],
            [0.4, 1, 0.4, 0, 0],
            [0, 0.4, 1, 0.4, 0],
            [0, 0, 0.4, 1, 0.4],
            [0.4, 0, 0, 0.4, 1],
        ]
    )
    assert_allclose(w, expected)


def test_power_weights_in_the_coefficients() -> None:
    r = accord.datasets.load_birads()
    assert_allclose(cohen_kappa(r, weights="power:2").statistic,
                    cohen_kappa(r, weights="quadratic").statistic)  # fmt: skip
    assert_allclose(gwet_ac2(r, weights="power:1").statistic,
                    gwet_ac2(r, weights="linear").statistic)  # fmt: skip
    assert fleiss_kappa(r, weights="power:1.5").weights == "power:1.5"


@pytest.mark.parametrize(
    ("scheme", "pattern"),
    [
        ("power", "'power:<exponent>'"),
        ("power:-1", "must be a finite number >= 0"),
        ("power:x", "must be a finite number >= 0"),
        ("circular:1", r"must be in \[0, 1\)"),
        ("linear:2", "'circular:<u>' or a q x q matrix. Got 'linear:2'"),
    ],
)
def test_bad_parametrised_weights(scheme: str, pattern: str) -> None:
    with pytest.raises(InvalidInputError, match=pattern):
        agreement_weights(scheme, [1, 2, 3])


# --------------------------------------------------------------------------- front doors


def test_agreement_threads_the_options_and_says_so() -> None:
    r = accord.datasets.load_diagnoses()
    table = accord.agreement(r, inference=accord.Inference(
        se="unconditional", test_value=0.4, alternative="greater", rater_population_size=60
    ))  # fmt: skip
    rows = {c.name: c for c in table.coefficients}
    assert (
        rows["fleiss_kappa"].standard_error
        == fleiss_kappa(r, se="unconditional", rater_population_size=60).standard_error
    )
    assert rows["krippendorff_alpha"].se_kind == "unconditional"
    assert rows["light_kappa"].se_kind == "raters"  # Light's kappa keeps its own inference
    assert all(c.test_value == 0.4 and c.alternative == "greater" for c in table.coefficients)
    frame = table.to_frame()
    assert set(frame.loc[frame.name == "gwet_ac1", "se_kind"]) == {"unconditional"}
    text = table.methods_text()
    assert "unconditional" in text and "Psychometrika" in text
    assert "60 raters" in text and "one-sided (alternative: greater than 0.4)" in text


def test_agreement_with_counts_refuses_the_jackknife() -> None:
    with pytest.raises(InvalidInputError, match="rater ids"):
        accord.agreement([[2, 1], [0, 3], [3, 0]], inference=accord.Inference(se="items"))


runner = CliRunner()
DIAGNOSES = ["agree", "examples/diagnoses.csv", "--item", "patient", "--rater", "rater",
             "--label", "diagnosis"]  # fmt: skip


def test_cli_flags_reach_the_json() -> None:
    out = runner.invoke(app, [*DIAGNOSES, "--se", "items", "--test-value", "0.6",
                              "--alternative", "less", "--format", "json"])  # fmt: skip
    assert out.exit_code == 0, out.output
    rows = {c["name"]: c for c in cli_json(out.output)["coefficients"]}
    fleiss = rows["fleiss_kappa"]
    assert fleiss["se_kind"] == "items" and fleiss["df"] == 5
    assert fleiss["test_value"] == 0.6 and fleiss["alternative"] == "less"
    assert fleiss["se_method"].startswith("conditional on the items")
    r = accord.datasets.load_diagnoses()
    assert_allclose(fleiss["standard_error"], fleiss_kappa(r, se="items").standard_error)


def test_cli_power_weights_and_bad_se() -> None:
    birads = ["agree", "examples/birads.csv", "--item", "finding", "--rater", "modality",
              "--label", "birads", "--level", "ordinal"]  # fmt: skip
    out = runner.invoke(app, [*birads, "--weights", "power:1.5", "--format", "json"])
    assert out.exit_code == 0, out.output
    names = {(c["name"], c["weights"]) for c in cli_json(out.output)["coefficients"]}
    assert ("fleiss_kappa", "power:1.5") in names
    bad = runner.invoke(app, [*DIAGNOSES, "--se", "subjects"])
    assert bad.exit_code == 2
    assert "--se must be one of raters, items, unconditional; got subjects" in bad.output


def test_cohen_kappa_tests_a_value() -> None:
    # Casagrande et al. (2020) BI-RADS: kappa 0.820757 (the cohen_kappa doctest); t against
    # 0.6 on n - 1 = 185 df with the Fleiss-Cohen-Everitt SE, as kappaetc's testvalue(<.6).
    r = accord.datasets.load_birads()
    base = cohen_kappa(r)
    res = cohen_kappa(r, test_value=0.6, alternative="greater")
    t = (base.statistic - 0.6) / base.standard_error
    assert_allclose(res.test_statistic, t)
    assert_allclose(res.pvalue, stats.t.sf(t, r.n_items - 1))
    assert res.statistic == base.statistic and res.to_dict()["test_value"] == 0.6


def test_agreement_refuses_bootstrap_intervals_with_the_jackknife() -> None:
    # The table's BCa intervals resample items: conditional on the raters only. The message
    # names the two options once, as agreement takes them (inside one Inference), and the
    # advice is a whole setting that works.
    advice = (r"^inference=accord\.Inference\(ci='bootstrap', se='unconditional'\): the "
              r"bootstrap resamples the items only, .* use "
              r"inference=accord\.Inference\(ci='analytic', se='unconditional'\)$")  # fmt: skip
    with pytest.raises(InvalidInputError, match=advice):
        accord.agreement(
            toy(),
            inference=accord.Inference(se="unconditional", ci="bootstrap", n_boot=1000, seed=0),
        )
    followed = accord.agreement(
        toy(), inference=accord.Inference(ci="analytic", se="unconditional")
    )
    assert followed.coefficients
    # the command line names its flags, and its advice runs
    bad = runner.invoke(app, [*DIAGNOSES, "--ci", "bootstrap", "--se", "unconditional"])
    assert bad.exit_code == 2
    assert "--ci bootstrap --se unconditional: the bootstrap resamples" in bad.output
    assert bad.output.rstrip().endswith("use --ci analytic --se unconditional")
    good = runner.invoke(app, [*DIAGNOSES, "--ci", "analytic", "--se", "unconditional"])
    assert good.exit_code == 0, good.output


# --------------------------------------------------------------------------- irrCAC

PEER = json.loads(
    (Path(__file__).parents[1] / "reference" / "inference_options.json").read_text(encoding="utf-8")
)


def raw4raters() -> accord.Ratings:
    return accord.Ratings.from_wide(PEER["rows"], categories=[1.0, 2.0, 3.0, 4.0, 5.0])


@pytest.mark.parametrize("name", sorted(PEER["leave_one_out"]))
def test_leave_one_rater_out_values_match_irrcac(name: str) -> None:
    # PEER["source"]: Python irrCAC 0.4.4 on raw_4raters and on it without each rater column.
    res = FAMILY[name](raw4raters(), se="unconditional")
    assert_allclose(res.statistic, PEER["full"][name], atol=1e-9)
    loo = np.array(PEER["leave_one_out"][name])
    assert_allclose(res.rater_jackknife, loo, atol=1e-9)
    expected = math.sqrt(3 / 4 * np.sum((loo - loo.mean()) ** 2))  # the jackknife, r = 4
    assert_allclose(res.standard_error_given_items, expected, atol=1e-9)


@pytest.mark.parametrize("exponent", ["1.5", "3"])
def test_power_weights_match_irrcac_given_the_matrix(exponent: str) -> None:
    # irrCAC 0.4.4 given Warrens' (2014) power weights as a custom matrix (PEER["source"]).
    ref = PEER["power"][exponent]
    r = raw4raters()
    ac2 = gwet_ac2(r, weights=f"power:{exponent}")
    assert_allclose([ac2.statistic, ac2.standard_error], [ref["gwet_ac2"], ref["gwet_ac2_se"]],
                    atol=1e-9)  # fmt: skip
    assert_allclose(fleiss_kappa(r, weights=f"power:{exponent}").statistic, ref["fleiss_kappa"],
                    atol=1e-9)  # fmt: skip


def test_circular_weights_match_irrcac_given_the_matrix() -> None:
    # irrCAC 0.4.4 given Warrens & Pratiwi's (2016) circular weights, u = 0.5.
    ref = PEER["circular_0.5"]
    r = raw4raters()
    ac2 = gwet_ac2(r, weights="circular:0.5")
    assert_allclose([ac2.statistic, ac2.standard_error], [ref["gwet_ac2"], ref["gwet_ac2_se"]],
                    atol=1e-9)  # fmt: skip
    bp = brennan_prediger(r, weights="circular:0.5").statistic
    assert_allclose(bp, ref["brennan_prediger"], atol=1e-9)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([*DIAGNOSES, "--se", "items", "--engine", "stream"], "(Ratings, --engine memory)"),
        (["agree", "examples/birads.csv", "--item", "finding", "--rater", "modality",
          "--label", "birads", "--se", "unconditional"], "these ratings have 2"),
    ],
)  # fmt: skip
def test_cli_says_in_one_line_what_the_jackknife_needs(args: list[str], message: str) -> None:
    out = runner.invoke(app, args)
    assert out.exit_code == 2
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("accord: error:")


# --------------------------------------------------------------------------- kappaetc's output

# Altman (1991), Practical Statistics for Medical Research, p. 403: two radiologists classify
# 85 xeromammograms into four categories (Stata's `webuse rate2`, the first example of the
# kappaetc help file). Rows: radiologist A; columns: radiologist B.
RATE2 = np.array([[21, 12, 0, 0], [4, 17, 1, 0], [3, 9, 15, 2], [0, 0, 0, 1]])

# `kappaetc rada radb` (Klein 2018, Stata Journal 18(4), st0544), as printed: coefficient,
# SE, t, and the 95% interval on 84 df. The SE is conditional on the raters (se() default).
KAPPAETC_RATE2 = {
    "percent_agreement": (0.6353, 0.0525, 12.10, 0.5309, 0.7397),
    "brennan_prediger": (0.5137, 0.0700, 7.34, 0.3745, 0.6530),
    "conger_kappa": (0.4728, 0.0731, 6.46, 0.3273, 0.6182),  # "Cohen/Conger's Kappa"
    "fleiss_kappa": (0.4605, 0.0781, 5.89, 0.3051, 0.6159),  # "Scott/Fleiss' Pi"
    "gwet_ac1": (0.5292, 0.0679, 7.80, 0.3942, 0.6642),  # "Gwet's AC"
    "krippendorff_alpha": (0.4637, 0.0781, 5.93, 0.3083, 0.6191),
}


def _rate2() -> accord.Ratings:
    rows = [[a + 1, b + 1] for a in range(4) for b in range(4) for _ in range(RATE2[a, b])]
    return accord.Ratings.from_wide(rows)


@pytest.mark.parametrize("name", sorted(KAPPAETC_RATE2))
def test_kappaetc_help_file_example_rate2(name: str) -> None:
    coef, se, t, lo, hi = KAPPAETC_RATE2[name]
    res = FAMILY.get(name, conger_kappa)(_rate2())
    assert round(res.statistic, 4) == coef
    assert round(res.standard_error, 4) == se
    assert round(res.test_statistic, 2) == t
    assert [round(v, 4) for v in res.confidence_interval(0.95)] == [lo, hi]
    assert res.df == 84


def test_kappaetc_rate2_through_agreement_and_the_cli(tmp_path: Path) -> None:
    rows = {c.name: c for c in accord.agreement(_rate2()).coefficients}
    path = tmp_path / "rate2.csv"
    lines = ["item,rater,label"] + [
        f"{i},{rater},{label}"
        for i, pair in enumerate(
            [a + 1, b + 1] for a in range(4) for b in range(4) for _ in range(RATE2[a, b])
        )
        for rater, label in zip(("rada", "radb"), pair, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n")
    out = runner.invoke(app, ["agree", str(path), "--item", "item", "--rater", "rater",
                              "--label", "label", "--format", "json"])  # fmt: skip
    assert out.exit_code == 0, out.output
    cli = {c["name"]: c for c in cli_json(out.output)["coefficients"]}
    for name, (coef, se, *_rest) in KAPPAETC_RATE2.items():
        assert round(rows[name].statistic, 4) == coef and round(rows[name].standard_error, 4) == se
        if name in ("conger_kappa", "light_kappa"):  # two raters: Cohen's, not listed twice
            assert name not in cli and round(cli["cohen_kappa"]["statistic"], 4) == coef
            continue
        assert round(cli[name]["statistic"], 4) == coef
        assert round(cli[name]["standard_error"], 4) == se
