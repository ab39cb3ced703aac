"""Method comparison: Bland-Altman limits of agreement and Lin's concordance correlation.

Reference values:

- Bland & Altman (1986), Lancet i:307-310, Table 1: PEFR (l/min) of 17 people, first
  reading with the Wright and the mini-Wright meter (the values as in the R package blandr,
  ``bland.altman.PEFR``: WrightFirst, MiniWrightFirst). Published: mean difference -2.1,
  SD 38.8, limits (2 SD) -79.7 to 75.4 (the paper rounds its intermediate values).
- analyse-it's Bland-Altman tutorial on the same data (mini-Wright - Wright, 1.96 SD):
  bias 2.1, limits -73.9 to 78.1.
- Exact two-sided tolerance factors for 95% limits of agreement (Carkeet 2015), as
  tabulated in the tests of pyCompare (tests/referenceCIs.csv; columns gamma 0.025, 0.95,
  0.975 by degrees of freedom v).
- Several pairs per subject: Bland & Altman (2007) Table 1 (cardiac output, 12 subjects, 60
  pairs) and the printed output of SimplyAgree's agree_nest (Zou's 2013 MOVER intervals) on
  its reps data; both in tests/reference/measurements_repeated.json with their sources.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats
from typer.testing import CliRunner

import accord
from accord import InvalidInputError
from accord.cli import app
from accord.measurements._tolerance import _increasing_root, one_sided_factor, two_sided_factor

from .._cli import cli_json

WRIGHT = [494, 395, 516, 434, 476, 557, 413, 442, 650, 433, 417, 656, 267, 478, 178, 423, 427]
MINI = [512, 430, 520, 428, 500, 600, 364, 380, 658, 445, 432, 626, 260, 477, 259, 350, 451]
Z95 = float(stats.norm.ppf(0.975))

runner = CliRunner()


# ------------------------------------------------------------------ Bland-Altman
def test_pefr_reproduces_bland_altman_1986() -> None:
    ba = accord.bland_altman(WRIGHT, MINI, multiplier=2)
    assert_allclose(ba.bias, -2.1, atol=0.05)
    assert_allclose(ba.sd, 38.8, atol=0.05)
    assert_allclose(ba.lower, -79.7, atol=0.06)
    assert_allclose(ba.upper, 75.4, atol=0.05)
    assert ba.n_pairs == ba.n_subjects == 17 and not ba.repeated


def test_pefr_at_1_96_sd_matches_analyse_it() -> None:
    ba = accord.bland_altman(MINI, WRIGHT)
    assert_allclose([ba.bias, ba.lower, ba.upper], [2.1, -73.9, 78.1], atol=0.05)


def test_bias_interval_is_the_paired_t_interval() -> None:
    ba = accord.bland_altman(WRIGHT, MINI)
    ci = stats.ttest_1samp(np.subtract(WRIGHT, MINI), 0.0).confidence_interval(0.95)
    assert_allclose(ba.confidence_interval(), (ci.low, ci.high), rtol=1e-12)
    assert_allclose(ba.pvalue, stats.ttest_rel(WRIGHT, MINI).pvalue, rtol=1e-10)


def test_proportional_bias_is_the_regression_of_difference_on_mean() -> None:
    ba = accord.bland_altman(WRIGHT, MINI)
    d = np.subtract(WRIGHT, MINI)
    m = (np.add(WRIGHT, MINI)) / 2
    fit = stats.linregress(m, d)
    assert_allclose([ba.slope, ba.intercept, ba.slope_se], [fit.slope, fit.intercept,
                    fit.stderr], rtol=1e-10)  # fmt: skip
    assert_allclose(ba.slope_pvalue, fit.pvalue, rtol=1e-10)
    t = stats.t.ppf(0.975, 15)
    assert_allclose(ba.slope_interval(), (fit.slope - t * fit.stderr, fit.slope + t * fit.stderr))


def test_approximate_intervals_by_hand() -> None:
    ba = accord.bland_altman(WRIGHT, MINI)
    d = np.subtract(WRIGHT, MINI)
    n, s = d.size, d.std(ddof=1)
    t = stats.t.ppf(0.975, n - 1)
    se86 = math.sqrt(3 * s**2 / n)  # Bland & Altman (1986)
    low, up = ba.limits_interval(method="approximate-1986")
    assert_allclose(low, (ba.lower - t * se86, ba.lower + t * se86))
    assert_allclose(up, (ba.upper - t * se86, ba.upper + t * se86))
    se99 = s * math.sqrt(1 / n + 1.96**2 / (2 * (n - 1)))  # Bland & Altman (1999)
    low, up = ba.limits_interval(method="approximate")
    assert_allclose(up, (ba.upper - t * se99, ba.upper + t * se99))


# Exact two-sided tolerance factors for 95% limits (p = 0.95): pyCompare tests/referenceCIs.csv
TOLERANCE_TABLE = {
    1: (0.9744, 36.5192, 73.0772),
    16: (1.49, 2.8683, 3.0824),
    30: (1.5856, 2.5414, 2.6685),
    74: (1.6982, 2.2862, 2.3534),
}


@pytest.mark.parametrize("df", sorted(TOLERANCE_TABLE))
def test_two_sided_factor_matches_the_table(df: int) -> None:
    got = [two_sided_factor(df + 1, Z95, g) for g in (0.025, 0.95, 0.975)]
    assert_allclose(got, TOLERANCE_TABLE[df], atol=1.5e-4)


@settings(max_examples=60, deadline=None)
@given(
    c=st.floats(1e-6, 1e6),
    power=st.sampled_from([1.0, 3.0, 0.5]),
)
def test_the_factors_root_finder_gives_brents_root(c: float, power: float) -> None:
    # The tolerance factor's bisection against scipy's brentq on increasing functions
    from scipy import optimize

    def f(k: float) -> float:
        return k**power - c

    high = max(c ** (1.0 / power), 1.0) * 2.0
    expected = optimize.brentq(f, 0.0, high, xtol=1e-14, rtol=1e-14)
    assert _increasing_root(f, 0.0, high) == pytest.approx(expected, rel=1e-12)


def test_two_sided_factor_coverage_by_simulation() -> None:
    # P(mean -+ K sd holds the central 95% of N(0, 1)) = gamma, over simulated samples.
    rng = np.random.default_rng(20150301)
    n, gamma = 12, 0.9
    k = two_sided_factor(n, Z95, gamma)
    x = rng.standard_normal((40_000, n))
    m, s = x.mean(axis=1), x.std(axis=1, ddof=1)
    covered = stats.norm.cdf(m + k * s) - stats.norm.cdf(m - k * s) >= 0.95
    assert abs(covered.mean() - gamma) < 0.006


def test_exact_individual_intervals_by_hand_and_by_simulation() -> None:
    ba = accord.bland_altman(WRIGHT, MINI)
    n = 17
    d = np.subtract(WRIGHT, MINI)
    mean, s = d.mean(), d.std(ddof=1)
    k = [stats.nct.ppf(g, n - 1, 1.96 * math.sqrt(n)) / math.sqrt(n) for g in (0.025, 0.975)]
    low, up = ba.limits_interval(method="exact-individual")
    assert_allclose(up, (mean + k[0] * s, mean + k[1] * s), rtol=1e-10)
    assert_allclose(low, (mean - k[1] * s, mean - k[0] * s), rtol=1e-10)
    # coverage of the true upper limit mu + 1.96 sigma
    rng = np.random.default_rng(7)
    x = rng.standard_normal((20_000, 8))
    kl, ku = one_sided_factor(8, 1.96, 0.025), one_sided_factor(8, 1.96, 0.975)
    m, sd = x.mean(axis=1), x.std(axis=1, ddof=1)
    hit = (m + kl * sd <= 1.96) & (m + ku * sd >= 1.96)
    assert abs(hit.mean() - 0.95) < 0.006


def test_exact_pair_interval_uses_the_two_sided_factors() -> None:
    ba = accord.bland_altman(WRIGHT, MINI)
    d = np.subtract(WRIGHT, MINI)
    mean, s = d.mean(), d.std(ddof=1)
    low, up = ba.limits_interval()
    assert_allclose(up, (mean + TOLERANCE_TABLE[16][0] * s, mean + 3.0824 * s), rtol=2e-4)
    assert_allclose(low, (mean - 3.0824 * s, mean - 1.49 * s), rtol=2e-4)


def test_ratio_scale_is_the_back_transformed_log_analysis() -> None:
    ba = accord.bland_altman(WRIGHT, MINI, scale="ratio")
    logd = np.log(WRIGHT) - np.log(MINI)
    s = logd.std(ddof=1)
    assert_allclose(ba.bias, math.exp(logd.mean()))
    assert_allclose([ba.lower, ba.upper], np.exp(logd.mean() + np.array([-1.96, 1.96]) * s))
    assert ba.lower < ba.bias < ba.upper
    ci = ba.confidence_interval()
    assert ci.low < ba.bias < ci.high


def test_percent_scale() -> None:
    ba = accord.bland_altman(WRIGHT, MINI, scale="percent")
    x, y = np.array(WRIGHT, float), np.array(MINI, float)
    p = 100 * (x - y) / ((x + y) / 2)
    assert_allclose([ba.bias, ba.sd], [p.mean(), p.std(ddof=1)])


def test_repeated_pairs_by_one_way_anova() -> None:
    # Bland & Altman (2007): variance of a difference = between-subject + within-subject
    # components of the one-way ANOVA of differences by subject; computed here with pandas.
    rng = np.random.default_rng(3)
    subject = np.repeat(np.arange(8), [1, 2, 3, 4, 2, 3, 5, 2])
    truth = rng.normal(100, 10, 8)[subject] + rng.normal(0, 3, subject.size)
    x = truth + rng.normal(0, 2, subject.size) + rng.normal(0, 3, 8)[subject]
    y = truth + rng.normal(0, 2, subject.size)
    ba = accord.bland_altman(x, y, subject=subject)
    frame = pd.DataFrame({"s": subject, "d": x - y})
    g = frame.groupby("s")["d"]
    m, n, total = g.size(), g.ngroups, len(frame)
    msw = ((frame["d"] - g.transform("mean")) ** 2).sum() / (total - n)
    msb = (m * (g.mean() - frame["d"].mean()) ** 2).sum() / (n - 1)
    between = (msb - msw) / ((total**2 - (m**2).sum()) / ((n - 1) * total))
    assert ba.repeated and ba.n_subjects == 8 and ba.n_pairs == total
    assert_allclose(ba.within_sd**2, msw)
    assert_allclose(ba.between_sd**2, max(between, 0.0))
    assert_allclose(ba.sd, math.sqrt(msw + max(between, 0.0)))
    assert_allclose(ba.bias, frame["d"].mean())
    # variance of the overall mean difference under the one-way random-effects model
    var_mean = max(between, 0.0) * (m**2).sum() / total**2 + msw / total
    assert_allclose(ba.bias_se, math.sqrt(var_mean))
    assert ba.df == n - 1
    # the intervals that assume one pair per subject do not hold: NaN, and a warning says why
    with pytest.warns(accord.DegenerateDataWarning, match="only method='mover'"):
        low, up = ba.limits_interval(method="exact")
    assert all(math.isnan(v) for v in (*low, *up))
    assert ba.to_dict()["limits_ci_method"] == "mover"


def test_one_pair_per_subject_is_the_plain_analysis() -> None:
    plain = accord.bland_altman(WRIGHT, MINI)
    with_ids = accord.bland_altman(WRIGHT, MINI, subject=[f"s{i}" for i in range(17)])
    assert not with_ids.repeated
    assert_allclose([with_ids.bias, with_ids.sd], [plain.bias, plain.sd])
    # the repeated-pairs interval is not taken: the default stays the exact interval
    assert with_ids.to_dict()["limits_ci_method"] == "exact"
    assert_allclose(with_ids.limits_interval(), plain.limits_interval(method="exact"))


def test_missing_pairs_are_left_out_with_a_warning() -> None:
    with pytest.warns(accord.DroppedDataWarning, match="1 of 18 pairs"):
        ba = accord.bland_altman([*WRIGHT, np.nan], [*MINI, 300])
    assert ba.n_pairs == 17


# ------------------------------------------------------------------ ratings
def test_ratings_against_a_reference_and_pair_by_pair() -> None:
    ratings = accord.datasets.load_pefr()
    res = accord.bland_altman(ratings, reference="mini-Wright")
    assert res.reference == "mini-Wright" and len(res.limits) == 1
    ba = res[("Wright", "mini-Wright")]
    assert_allclose(ba.bias, np.mean(np.subtract(WRIGHT, MINI)))
    table = res.table()
    assert list(table["first"]) == ["Wright"]
    assert_allclose(table["ccc"], accord.concordance_correlation(WRIGHT, MINI).statistic)
    three = accord.Ratings.from_wide(
        pd.DataFrame({"a": WRIGHT, "b": MINI, "c": np.add(WRIGHT, 5)}), level="interval"
    )
    with pytest.warns(accord.DegenerateDataWarning, match="SD of the differences is 0"):
        every = accord.bland_altman(three)
    assert [(b.first, b.second) for b in every.limits] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert_allclose(every[("a", "c")].bias, -5.0)
    json.loads(accord._results.dumps(every.to_dict()))


def test_unknown_reference_is_one_line() -> None:
    ratings = accord.datasets.load_pefr()
    with pytest.raises(InvalidInputError, match="the reference 'Peak' is not a rater") as err:
        accord.bland_altman(ratings, reference="Peak")
    assert "\n" not in str(err.value)


def test_non_numeric_scores_are_one_line() -> None:
    with pytest.raises(InvalidInputError, match=r"x\[1\] is 'high'"):
        accord.bland_altman([1, "high", 3], [1, 2, 3])
    nominal = accord.datasets.load_diagnoses()
    with pytest.raises(InvalidInputError, match="needs numeric scores"):
        accord.bland_altman(nominal)


@pytest.mark.parametrize(
    ("x", "y", "kwargs", "message"),
    [
        ([1.0], [2.0], {}, "at least 2 pairs"),
        ([1.0, 2.0], [2.0], {}, "one value per pair"),
        ([1.0, 2.0], [2.0, 3.0], {"multiplier": -1}, "'multiplier'"),
        ([1.0, 2.0], [2.0, 3.0], {"scale": "log"}, "'scale'"),
        ([1.0, -2.0], [2.0, 3.0], {"scale": "ratio"}, "positive"),
        ([1.0, np.inf], [2.0, 3.0], {}, "finite"),
    ],
)
def test_bad_input(x: list[float], y: list[float], kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInputError, match=message) as err:
        accord.bland_altman(x, y, **kwargs)  # type: ignore[call-overload]
    assert "\n" not in str(err.value)


# ------------------------------------------------------------------ CCC
def _lin_by_hand(x: list[float], y: list[float]) -> tuple[float, float]:
    """Lin (1989) eq. (2) with divisor n, and the SE of Lin (1989) corrected in Lin (2000)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    n = x.size
    sx2, sy2 = x.var(), y.var()
    sxy = ((x - x.mean()) * (y - y.mean())).mean()
    rc = 2 * sxy / (sx2 + sy2 + (x.mean() - y.mean()) ** 2)
    r = sxy / math.sqrt(sx2 * sy2)
    u = (x.mean() - y.mean()) / (sx2 * sy2) ** 0.25
    var = ((1 - r**2) * rc**2 * (1 - rc**2) / r**2 + 2 * rc**3 * (1 - rc) * u**2 / r
           - rc**4 * u**4 / (2 * r**2)) / (n - 2)  # fmt: skip
    return rc, math.sqrt(var)


def test_ccc_by_hand_on_pefr() -> None:
    ccc = accord.concordance_correlation(WRIGHT, MINI)
    rc, se = _lin_by_hand(WRIGHT, MINI)
    assert_allclose([ccc.statistic, ccc.standard_error], [rc, se], rtol=1e-12)
    z = math.atanh(rc)
    half = 1.959963984540054 * se / (1 - rc**2)
    assert_allclose(ccc.confidence_interval(), (math.tanh(z - half), math.tanh(z + half)))
    assert_allclose(ccc.precision, stats.pearsonr(WRIGHT, MINI).statistic)
    assert_allclose(ccc.accuracy * ccc.precision, ccc.statistic)


def test_overall_ccc_of_two_raters_is_lins() -> None:
    two = accord.concordance_correlation(np.column_stack([WRIGHT, MINI]))
    lin = accord.concordance_correlation(WRIGHT, MINI)
    assert_allclose(two.statistic, lin.statistic, rtol=1e-12)
    assert_allclose(two.standard_error, lin.standard_error, rtol=1e-12)


def test_overall_ccc_equals_its_anova_form() -> None:
    # (n - 1)(MSR - MSE) / ((n - 1)(MSR + (k - 1) MSE) + k MSC), mean squares by hand.
    rng = np.random.default_rng(11)
    y = rng.normal(size=(15, 1)) * 2 + rng.normal(size=(15, 4)) + [0, 0.3, 0.6, -0.2]
    n, k = y.shape
    g, rows, cols = y.mean(), y.mean(axis=1), y.mean(axis=0)
    ssr, ssc = k * ((rows - g) ** 2).sum(), n * ((cols - g) ** 2).sum()
    sse = ((y - g) ** 2).sum() - ssr - ssc
    msr, msc, mse = ssr / (n - 1), ssc / (k - 1), sse / ((n - 1) * (k - 1))
    expected = (n - 1) * (msr - mse) / ((n - 1) * (msr + (k - 1) * mse) + k * msc)
    ccc = accord.concordance_correlation(y)
    assert_allclose(ccc.statistic, expected, rtol=1e-12)
    assert ccc.n_raters == 4 and math.isfinite(ccc.standard_error)
    low, high = ccc.confidence_interval()
    assert low < ccc.statistic < high


def test_ccc_of_ratings_is_the_overall_ccc() -> None:
    ccc = accord.concordance_correlation(accord.datasets.load_pefr())
    assert_allclose(ccc.statistic, accord.concordance_correlation(WRIGHT, MINI).statistic)


def test_ccc_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="one value per pair"):
        accord.concordance_correlation([1, 2, 3], [1, 2])
    with pytest.raises(InvalidInputError, match="items x raters"):
        accord.concordance_correlation([1, 2, 3])
    with pytest.warns(accord.DegenerateDataWarning, match="at least 3 items"):
        ccc = accord.concordance_correlation([1, 2], [1, 3])
    assert math.isnan(ccc.statistic) and ccc.reason


# ------------------------------------------------------------------ properties
measurements = st.lists(
    st.tuples(st.integers(0, 1000), st.integers(0, 1000)), min_size=4, max_size=30
).filter(lambda p: len({a for a, _ in p}) > 1 and len({b for _, b in p}) > 1)


@settings(max_examples=40, deadline=None)
@given(measurements, st.randoms(use_true_random=False))
def test_properties(pairs: list[tuple[int, int]], rnd: object) -> None:
    x = [float(a) for a, _ in pairs]
    y = [float(b) + 0.5 * a for a, b in pairs]
    ccc = accord.concordance_correlation(x, y)
    assert_allclose(accord.concordance_correlation(y, x).statistic, ccc.statistic, atol=1e-12)
    assert -1 <= ccc.statistic <= 1
    ba, flipped = accord.bland_altman(x, y), accord.bland_altman(y, x)
    assert_allclose(flipped.bias, -ba.bias, atol=1e-9)
    assert_allclose([flipped.lower, flipped.upper], [-ba.upper, -ba.lower], atol=1e-9)
    order = list(range(len(x)))
    rnd.shuffle(order)  # type: ignore[attr-defined]
    shuffled = accord.bland_altman([x[i] for i in order], [y[i] for i in order])
    assert_allclose([shuffled.bias, shuffled.sd, shuffled.slope], [ba.bias, ba.sd, ba.slope],
                    atol=1e-9)  # fmt: skip
    again = accord.concordance_correlation([x[i] for i in order], [y[i] for i in order])
    assert_allclose(again.statistic, ccc.statistic, atol=1e-12)


# ------------------------------------------------------------------ command line
def compare(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["compare", *args])
    return result.exit_code, result.stdout, result.stderr


PEFR_ARGS = ("--item", "subject", "--rater", "meter", "--score", "pefr")


def test_cli_json_has_the_papers_numbers(examples: object) -> None:
    path = str(accord.datasets.path("pefr.csv"))
    code, out, _ = compare(path, *PEFR_ARGS, "--reference", "mini-Wright", "--multiplier", "2",
                           "--format", "json")  # fmt: skip
    assert code == 0
    pair = cli_json(out)["pairs"][0]
    assert_allclose(pair["bland_altman"]["lower"], -79.65, atol=0.01)
    assert_allclose(pair["bland_altman"]["upper"], 75.41, atol=0.01)
    assert pair["concordance"]["statistic"] == pytest.approx(0.9427, abs=1e-4)


def test_cli_table_and_csv() -> None:
    path = str(accord.datasets.path("pefr.csv"))
    code, out, _ = compare(path, *PEFR_ARGS)
    # a value over its interval when the table does not fit the terminal at one line a cell
    assert code == 0 and "Wright -" in out and "-2.118" in out and "[-22.05, 17.81]" in out
    code, out, _ = compare(path, *PEFR_ARGS, "--format", "csv", "--limits-ci", "approximate")
    assert code == 0
    assert out.splitlines()[0].startswith("first,second,n_pairs,bias")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--reference", "Peak"), "the reference 'Peak' is not a rater"),
        (("--limits-ci", "wide"), "--limits-ci must be one of"),
        (("--scale", "log"), "scale"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(extra: tuple[str, ...], message: str) -> None:
    path = str(accord.datasets.path("pefr.csv"))
    code, _, err = compare(path, *PEFR_ARGS, *extra)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_cli_text_scores_are_refused() -> None:
    path = str(accord.datasets.path("diagnoses.csv"))
    code, _, err = compare(path, "--item", "patient", "--rater", "rater", "--score", "diagnosis")
    assert code == 2 and "is not a number" in err


def test_cli_subject_column_gives_the_repeated_analysis(tmp_path: object) -> None:
    from pathlib import Path

    rng = np.random.default_rng(5)
    rows = []
    for occasion in range(12):
        subj, truth = occasion // 3, 50 + 10 * (occasion // 3) + rng.normal(0, 2)
        rows.append((f"o{occasion}", f"s{subj}", "a", truth + rng.normal(0, 1)))
        rows.append((f"o{occasion}", f"s{subj}", "b", truth + 1 + rng.normal(0, 1)))
    frame = pd.DataFrame(rows, columns=["occasion", "person", "method", "value"])
    path = Path(str(tmp_path)) / "reps.csv"
    frame.to_csv(path, index=False)
    args = ("--item", "occasion", "--rater", "method", "--score", "value")
    code, out, _ = compare(str(path), *args, "--subject", "person", "--format", "json")
    assert code == 0
    got = cli_json(out)["pairs"][0]["bland_altman"]
    wide = frame.pivot(index="occasion", columns="method", values="value")
    subjects = frame.drop_duplicates("occasion").set_index("occasion")["person"]
    expected = accord.bland_altman(wide["a"], wide["b"], subject=subjects[wide.index])
    assert got["repeated"] and got["n_subjects"] == 4
    assert_allclose(got["sd"], expected.sd)
    frame.loc[0, "person"] = "s9"  # occasion o0 now has two subjects
    frame.to_csv(path, index=False)
    code, _, err = compare(str(path), *args, "--subject", "person")
    assert code == 2 and "item o0 has more than one subject" in err


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 100), min_size=3, max_size=3), min_size=5, max_size=20),
    st.permutations([0, 1, 2]),
)
def test_overall_ccc_is_invariant_to_rater_and_item_order(
    rows: list[list[int]], order: list[int]
) -> None:
    y = np.asarray(rows, dtype=float) + np.arange(len(rows))[:, None]  # items differ
    y[:, 1] += 0.5 * np.arange(len(rows))
    base = accord.concordance_correlation(y)
    permuted = accord.concordance_correlation(y[::-1][:, order])
    assert_allclose(permuted.statistic, base.statistic, atol=1e-12)
    assert -1 <= base.statistic <= 1


def test_ratio_bias_interval_is_the_back_transformed_t_interval() -> None:
    ba = accord.bland_altman(WRIGHT, MINI, scale="ratio")
    logd = np.log(WRIGHT) - np.log(MINI)
    ci = stats.ttest_1samp(logd, 0.0).confidence_interval(0.95)
    assert_allclose(ba.confidence_interval(), np.exp([ci.low, ci.high]), rtol=1e-12)
    _, up = ba.limits_interval(method="approximate-1986")
    t, n, s = stats.t.ppf(0.975, 16), 17, logd.std(ddof=1)
    half = t * math.sqrt(3 * s**2 / n)
    assert_allclose(up, np.exp(logd.mean() + 1.96 * s + np.array([-half, half])))


# --- several pairs per subject: Zou's (2013) MOVER interval of the limits ------------------

REPEATED = json.loads(
    (Path(__file__).parents[1] / "reference" / "measurements_repeated.json").read_text()
)


def test_repeated_limits_reproduce_bland_altman_2007() -> None:
    ref = REPEATED["cardiac_output"]
    ba = accord.bland_altman(ref["rv"], ref["ic"], subject=ref["subject"], multiplier=1.96)
    assert ba.n_subjects == 12 and ba.n_pairs == 60
    got = {key: getattr(ba, key) for key in ref["expected"]}
    assert_allclose(list(got.values()), list(ref["expected"].values()), atol=ref["atol"])
    low, up = ba.limits_interval()
    assert low.low < ba.lower < low.high and up.low < ba.upper < up.high


def test_mover_margins_reproduce_simplyagree_agree_nest() -> None:
    # SimplyAgree centres Zou's own estimates (subjects weighted equally), the project the
    # Bland & Altman (2007) ones (pairs weighted equally): the margins are Zou's in both.
    ref = REPEATED["simplyagree_reps"]
    z = float(stats.norm.ppf(0.5 + ref["agreement"] / 2))
    ba = accord.bland_altman(ref["x"], ref["y"], subject=ref["id"], multiplier=z)
    low, up = ba.limits_interval(ref["confidence_level"])
    (lo, lo_low, lo_high), (hi, hi_low, hi_high) = ref["printed"]["lower"], ref["printed"]["upper"]
    got = [ba.lower - low.low, low.high - ba.lower, ba.upper - up.low, up.high - ba.upper]
    printed = [lo - lo_low, lo_high - lo, hi - hi_low, hi_high - hi]
    assert_allclose(got, printed, atol=ref["atol"])


def _mover_by_hand(d: list[list[float]], z: float, level: float) -> tuple[float, ...]:
    """Zou (2013), eqs. for unequal pairs per subject, written out for a small example."""
    n = len(d)
    total = sum(len(row) for row in d)
    means = [sum(row) / len(row) for row in d]
    grand = sum(means) / n
    s_b2 = sum((m - grand) ** 2 for m in means) / (n - 1)
    s_w2 = sum((v - m) ** 2 for row, m in zip(d, means, strict=True) for v in row) / (total - n)
    m_h = n / sum(1 / len(row) for row in d)
    c = 1 - 1 / m_h
    s2 = s_b2 + c * s_w2
    a = (1 - level) / 2
    chi = stats.chi2.ppf
    low_var = s2 - math.sqrt(
        (s_b2 * (1 - (n - 1) / chi(1 - a, n - 1))) ** 2
        + (c * s_w2 * (1 - (total - n) / chi(1 - a, total - n))) ** 2
    )
    high_var = s2 + math.sqrt(
        (s_b2 * ((n - 1) / chi(a, n - 1) - 1)) ** 2
        + (c * s_w2 * ((total - n) / chi(a, total - n) - 1)) ** 2
    )
    z_a = stats.norm.ppf(1 - a)
    s = math.sqrt(s2)
    inward = math.sqrt(z_a**2 * s_b2 / n + z**2 * (s - math.sqrt(low_var)) ** 2)
    outward = math.sqrt(z_a**2 * s_b2 / n + z**2 * (math.sqrt(high_var) - s) ** 2)
    upper = grand + z * s
    lower = grand - z * s
    return lower - outward, lower, lower + inward, upper - inward, upper, upper + outward


def test_mover_by_hand_on_a_small_balanced_example() -> None:
    # 4 subjects, 3 pairs each: Zou's estimates are then those of Bland & Altman (2007)
    d = [[0.5, 0.9, 0.4], [1.6, 1.2, 1.9], [-0.3, 0.2, 0.1], [0.8, 1.5, 1.0]]
    subject = [i for i, row in enumerate(d) for _ in row]
    diffs = [v for row in d for v in row]
    ba = accord.bland_altman(diffs, [0.0] * len(diffs), subject=subject, multiplier=1.96)
    low, up = ba.limits_interval(0.9)
    expected = _mover_by_hand(d, 1.96, 0.9)
    assert_allclose([low.low, ba.lower, low.high, up.low, ba.upper, up.high], expected)
    assert ba.to_dict(0.9)["limits_ci_method"] == "mover"


def test_mover_with_one_pair_per_subject_is_donner_and_zou() -> None:
    # m_h = 1: no within-subject term; the limit -+ sqrt(z_a^2 s^2/n + z^2 (s - s_chi)^2)
    ba = accord.bland_altman(WRIGHT, MINI)
    n, s, z = 17, ba.sd, 1.96
    z_a = stats.norm.ppf(0.975)
    s_low = s * math.sqrt((n - 1) / stats.chi2.ppf(0.975, n - 1))
    s_high = s * math.sqrt((n - 1) / stats.chi2.ppf(0.025, n - 1))
    inward = math.sqrt(z_a**2 * s**2 / n + z**2 * (s - s_low) ** 2)
    outward = math.sqrt(z_a**2 * s**2 / n + z**2 * (s_high - s) ** 2)
    low, up = ba.limits_interval(method="mover")
    assert_allclose([*low, *up], [ba.lower - outward, ba.lower + inward,
                                  ba.upper - inward, ba.upper + outward])  # fmt: skip
    # the default with one pair per subject stays the exact interval
    assert ba.to_dict()["limits_ci_method"] == "exact"
    assert_allclose(ba.limits_interval(), ba.limits_interval(method="exact"))


def test_ratio_scale_mover_is_back_transformed() -> None:
    ref = REPEATED["cardiac_output"]
    ba = accord.bland_altman(ref["rv"], ref["ic"], subject=ref["subject"], scale="ratio")
    logs = np.log(ref["rv"]) - np.log(ref["ic"])
    on_logs = accord.bland_altman(logs, np.zeros(60), subject=ref["subject"])
    assert_allclose(np.log([*ba.limits_interval()[1]]), [*on_logs.limits_interval()[1]])


_pairs = st.lists(
    st.tuples(st.integers(0, 5), st.integers(1, 4), st.floats(-5, 5), st.floats(-5, 5)),
    min_size=1,
    max_size=6,
    unique_by=lambda t: t[0],
)


def _repeated_data(rows: list[tuple[int, int, float, float]]) -> tuple[list, list, list]:
    """Subjects 0..k with 1-4 pairs each (at least one with 2), differences spread around
    a subject effect."""
    subject, x, y = [], [], []
    for label, count, effect, slope in rows:
        for j in range(count + 1):
            subject.append(f"s{label}")
            x.append(10.0 + effect + 0.3 * slope * j + 0.1 * (j % 2))
            y.append(10.0)
    return subject, x, y


@settings(max_examples=40, deadline=None)
@given(_pairs, st.randoms(use_true_random=False))
def test_mover_holds_the_limit_and_ignores_order_and_labels(rows: list, rnd: object) -> None:
    subject, x, y = _repeated_data(rows)
    if len(set(subject)) < 2:
        return
    ba = accord.bland_altman(x, y, subject=subject)
    low, up = ba.limits_interval()
    assert low.low <= ba.lower <= low.high and up.low <= ba.upper <= up.high
    order = list(range(len(x)))
    rnd.shuffle(order)  # type: ignore[attr-defined]
    relabel = {s: f"p{i}" for i, s in enumerate(sorted(set(subject), reverse=True))}
    moved = accord.bland_altman(
        [x[i] for i in order], [y[i] for i in order], subject=[relabel[subject[i]] for i in order]
    )
    assert_allclose([*moved.limits_interval()[0], *moved.limits_interval()[1]],
                    [*low, *up], rtol=1e-9, atol=1e-12)  # fmt: skip


@settings(max_examples=30, deadline=None)
@given(_pairs)
def test_mover_narrows_with_more_subjects(rows: list) -> None:
    subject, x, y = _repeated_data(rows)
    if len(set(subject)) < 2:
        return
    ba = accord.bland_altman(x, y, subject=subject)
    doubled = accord.bland_altman(x + x, y + y, subject=subject + [f"{s}b" for s in subject])
    for one, two in zip(ba.limits_interval(), doubled.limits_interval(), strict=True):
        assert two.high - two.low <= one.high - one.low + 1e-12


def test_cli_shows_the_mover_interval_with_repeated_pairs(tmp_path: object) -> None:
    ref = REPEATED["cardiac_output"]
    rows = [(f"o{i}", f"s{s}", m, v) for i, s in enumerate(ref["subject"])
            for m, v in (("RV", ref["rv"][i]), ("IC", ref["ic"][i]))]  # fmt: skip
    path = Path(str(tmp_path)) / "co.csv"
    pd.DataFrame(rows, columns=["occasion", "person", "method", "co"]).to_csv(path, index=False)
    args = ("--item", "occasion", "--rater", "method", "--score", "co", "--subject", "person")
    code, out, _ = compare(str(path), *args, "--reference", "IC", "--format", "json")
    assert code == 0
    got = cli_json(out)["pairs"][0]["bland_altman"]
    direct = accord.bland_altman(ref["rv"], ref["ic"], subject=ref["subject"])
    _, up = direct.limits_interval()
    assert got["limits_ci_method"] == "mover"
    assert_allclose([got["upper_ci_low"], got["upper_ci_high"]], [*up])
    code, out, _ = compare(str(path), *args, "--reference", "IC")
    assert code == 0 and "mover" in out and f"{up.high:.4g}" in out


# --- conventions with repeated pairs: which bias, which SD ---------------------------------


def test_repeated_bias_weighs_pairs_by_default_and_subjects_with_reml() -> None:
    ref = REPEATED["cardiac_output"]
    args = (ref["rv"], ref["ic"])
    pairs = accord.bland_altman(*args, subject=ref["subject"])
    # Bland & Altman (2007): the mean of all 60 differences (printed Stata value).
    assert_allclose(pairs.bias, 0.6021667, atol=1e-7)
    assert "fit='anova', the default" in pairs.method
    reml = accord.bland_altman(*args, subject=ref["subject"], fit="reml")
    # R 4 / lme4: f <- lmer(d ~ 1 + (1 | item), data = w, REML = TRUE), d = RV - IC on
    # MethComp's data(cardiac) reshaped to one row per (item, repl) (the same 60 pairs):
    # summary(f)$coefficients -> 0.7045210099 (SE 0.275158843);
    # as.data.frame(VarCorr(f))$vcov -> 0.8728062722 (item), 0.1708022508 (residual).
    assert_allclose([reml.bias, reml.bias_se], [0.7045210099, 0.275158843], atol=1e-8)
    assert_allclose([reml.between_sd**2, reml.within_sd**2], [0.8728062722, 0.1708022508],
                    rtol=1e-6)  # fmt: skip
    assert "REML" in reml.method and "fit='reml'" in reml.method
    # R: MethComp 1.30.2, BA.est(Meth(cardiac), linked = TRUE)$LoA (limits at 2 SD):
    # Mean 0.7045210171, Lower -1.338622981, Upper 2.747665015, SD 1.021571999.
    two = accord.bland_altman(*args, subject=ref["subject"], fit="reml", multiplier=2)
    assert_allclose([two.bias, two.lower, two.upper, two.sd],
                    [0.7045210171, -1.338622981, 2.747665015, 1.021571999], atol=1e-6)  # fmt: skip


def test_cli_compare_takes_the_fit_of_repeated_pairs(tmp_path: object) -> None:
    ref = REPEATED["cardiac_output"]
    rows = [(f"o{i}", f"s{s}", m, v) for i, s in enumerate(ref["subject"])
            for m, v in (("RV", ref["rv"][i]), ("IC", ref["ic"][i]))]  # fmt: skip
    path = Path(str(tmp_path)) / "co.csv"
    pd.DataFrame(rows, columns=["occasion", "person", "method", "co"]).to_csv(path, index=False)
    args = ("--item", "occasion", "--rater", "method", "--score", "co", "--subject", "person",
            "--reference", "IC", "--format", "json")  # fmt: skip
    biases = {}
    for fit in ("anova", "reml"):
        code, out, _ = compare(str(path), *args, "--fit", fit)
        assert code == 0
        biases[fit] = cli_json(out)["pairs"][0]["bland_altman"]["bias"]
    # Bland & Altman (2007): the mean of all 60 differences; lme4's REML intercept (above).
    assert_allclose([biases["anova"], biases["reml"]], [0.6021667, 0.7045210099], atol=1e-7)
    code, _, err = compare(str(path), *args, "--fit", "gls")
    assert code == 2 and "--fit" in err and len(err.strip().splitlines()) == 1


def test_repeated_fits_agree_on_balanced_pairs() -> None:
    # With as many pairs per subject (and a positive ANOVA between-subject component), the
    # ANOVA moments are the REML estimates and the GLS mean is the mean of all differences.
    rng = np.random.default_rng(5)
    subject = np.repeat(np.arange(9), 4)
    d = rng.normal(0, 2, 9)[subject] + rng.normal(0, 1, subject.size)
    y = rng.normal(50, 5, subject.size)
    anova = accord.bland_altman(y + d, y, subject=subject)
    reml = accord.bland_altman(y + d, y, subject=subject, fit="reml")
    assert anova.between_sd > 0
    assert_allclose([reml.bias, reml.sd, reml.bias_se, reml.within_sd],
                    [anova.bias, anova.sd, anova.bias_se, anova.within_sd], rtol=1e-7)  # fmt: skip


def test_reml_fit_matches_statsmodels_mixedlm_on_unbalanced_pairs() -> None:
    # statsmodels: smf.mixedlm("d ~ 1", frame, groups=frame["s"]).fit(reml=True): the
    # intercept and the two variance components, side by side (to its convergence, ~2e-5;
    # its SE comes from the observed information, not the GLS variance).
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(8)
    subject = np.repeat(np.arange(10), [2, 7, 3, 3, 5, 2, 6, 4, 2, 8])
    d = 0.5 + rng.normal(0, 1.5, 10)[subject] + rng.normal(0, 1, subject.size)
    frame = pd.DataFrame({"d": d, "s": subject})
    peer = smf.mixedlm("d ~ 1", frame, groups=frame["s"]).fit(reml=True)
    ba = accord.bland_altman(d, np.zeros_like(d), subject=subject, fit="reml")
    assert_allclose(ba.bias, peer.fe_params.iloc[0], rtol=1e-5)
    between, within = ba.between_sd**2, ba.within_sd**2
    assert_allclose([between, within], [float(peer.cov_re.iloc[0, 0]), peer.scale], rtol=1e-4)
    # the GLS variance of the mean, 1 / sum_i 1 / (s_b^2 + s_w^2 / m_i), by hand
    m = np.bincount(subject)
    assert_allclose(ba.bias_se, math.sqrt(1 / np.sum(1 / (between + within / m))), rtol=1e-12)
    assert abs(ba.bias - d.mean()) > 1e-3  # unbalanced: not the mean of all differences


def test_reml_fit_without_spread_within_subjects() -> None:
    # No spread within any subject: the REML likelihood is largest as s_w -> 0, whose limit
    # is the analysis of the subjects' means (by hand: means 1, 2 and 5).
    ba = accord.bland_altman([1, 1, 2, 2, 5, 5], [0] * 6, subject=[1, 1, 2, 2, 3, 3], fit="reml")
    assert_allclose([ba.bias, ba.within_sd, ba.sd], [8 / 3, 0.0, math.sqrt(13 / 3)], atol=1e-12)
    assert_allclose(ba.bias_se, math.sqrt(13 / 9), atol=1e-12)


def test_bad_fit_is_one_line() -> None:
    with pytest.raises(InvalidInputError, match="'fit' parameter of bland_altman"):
        accord.bland_altman(WRIGHT, MINI, fit="gls")  # type: ignore[call-overload]


# --- the overall CCC of many raters: Barnhart's precision and accuracy, the jackknife -------

FOUR_RATERS = np.array([[10, 12, 9, 15, 11, 14, 8, 13, 16, 10],
                        [11, 12, 10, 17, 11, 15, 9, 12, 18, 12],
                        [9, 13, 9, 14, 12, 13, 7, 14, 15, 9],
                        [12, 14, 11, 16, 13, 17, 10, 13, 19, 11]], dtype=float).T  # fmt: skip


def _barnhart_by_hand(y: np.ndarray, ddof: int) -> tuple[float, float, float]:
    """Barnhart, Haber & Song (2002): OCCC, overall precision sum s_jl / sum s_j s_l and
    overall accuracy 2 sum s_j s_l / ((k - 1) sum s_j^2 + sum (mean_j - mean_l)^2)."""
    k = y.shape[1]
    cov, mean = np.cov(y, rowvar=False, ddof=ddof), y.mean(axis=0)
    sd = np.sqrt(np.diag(cov))
    pairs = [(j, m) for j in range(k) for m in range(j + 1, k)]
    s = sum(cov[j, m] for j, m in pairs)
    t = sum(sd[j] * sd[m] for j, m in pairs)
    den = (k - 1) * np.trace(cov) + sum((mean[j] - mean[m]) ** 2 for j, m in pairs)
    return 2 * s / den, s / t, 2 * t / den


def test_overall_precision_and_accuracy_are_barnharts() -> None:
    ccc = accord.concordance_correlation(FOUR_RATERS)
    occc, precision, accuracy = _barnhart_by_hand(FOUR_RATERS, ddof=0)
    assert_allclose([ccc.statistic, ccc.precision, ccc.accuracy], [occc, precision, accuracy],
                    rtol=1e-12)  # fmt: skip
    # R: epiR 2.0.94 epi.occc(y) (moments with divisor n - 1), y the same 10 x 4 matrix:
    # occc 0.807684319833853, oprec 0.900794916250967, oaccu 0.896635077821450. The precision
    # does not depend on the divisor; the hand formulas with divisor n - 1 give epiR's values.
    assert_allclose(ccc.precision, 0.900794916250967, rtol=1e-13)
    epir = [0.807684319833853, 0.900794916250967, 0.896635077821450]
    assert_allclose(_barnhart_by_hand(FOUR_RATERS, ddof=1), epir, rtol=1e-13)
    # not the mean of the pairwise Pearson correlations
    r = np.corrcoef(FOUR_RATERS, rowvar=False)[np.triu_indices(4, 1)].mean()
    assert abs(ccc.precision - r) > 1e-4
    assert "precision and accuracy of Barnhart" in ccc.method


def _naive_jackknife(y: np.ndarray) -> tuple[np.ndarray, float]:
    """The overall CCC of every leave-one-out sample, recomputed from scratch, and the
    jackknife SE of its atanh."""
    n = y.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.array([_barnhart_by_hand(np.delete(y, i, axis=0), ddof=0)[0] for i in range(n)])
        z = np.arctanh(values)
        return values, math.sqrt((n - 1) / n * float(np.sum((z - z.mean()) ** 2)))


def test_jackknife_se_with_a_constant_rater() -> None:
    # The overall CCC needs no correlation: its jackknife SE is defined when a rater is
    # constant; the precision and the accuracy are not (NaN, with the reason).
    y = FOUR_RATERS.copy()
    y[:, 2] = 12.0
    with pytest.warns(accord.DegenerateDataWarning, match="same value"):
        ccc = accord.concordance_correlation(y)
    _, se_z = _naive_jackknife(y)
    assert_allclose(ccc.statistic, _barnhart_by_hand(y, ddof=0)[0], rtol=1e-12)
    assert_allclose(ccc.z_standard_error, se_z, rtol=1e-10)
    assert math.isnan(ccc.precision) and math.isnan(ccc.accuracy) and ccc.reason
    low, high = ccc.confidence_interval()
    assert low < ccc.statistic < high


@settings(max_examples=40, deadline=None)
@given(
    st.integers(4, 12).flatmap(
        lambda n: st.lists(
            st.lists(st.integers(-20, 20), min_size=n, max_size=n), min_size=3, max_size=5
        )
    )
)
def test_fast_jackknife_equals_the_naive_leave_one_out(columns: list[list[int]]) -> None:
    from accord.measurements.concordance import _leave_one_out

    y = np.asarray(columns, dtype=float).T + np.arange(len(columns[0]))[:, None]
    values, se_z = _naive_jackknife(y)
    assert_allclose(_leave_one_out(y), values, atol=1e-10)
    if np.all(np.abs(values) < 1 - 1e-9):
        ccc = accord.concordance_correlation(y)
        assert_allclose(ccc.z_standard_error, se_z, atol=1e-10)
    elif np.isfinite(_barnhart_by_hand(y, ddof=0)[0]):
        # a left-out sample on which the raters agree exactly: atanh is infinite there, and
        # the interval is NaN with the reason (not the rounding of the moments blown up)
        with pytest.warns(accord.DegenerateDataWarning):
            ccc = accord.concordance_correlation(y)
        assert math.isnan(ccc.z_standard_error) and ccc.reason
        assert all(math.isnan(v) for v in ccc.confidence_interval())


def test_jackknife_when_one_item_left_out_leaves_exact_agreement() -> None:
    # four raters who differ on the last item only (found by the property test above)
    y = np.array([[6, 3, 6, 0, 0, 0]] * 3 + [[6, 3, 6, 0, 0, 1]], dtype=float).T
    y += np.arange(6)[:, None]
    with pytest.warns(accord.DegenerateDataWarning, match="number 6 of those scored"):
        ccc = accord.concordance_correlation(y)
    assert math.isnan(ccc.z_standard_error) and "agree exactly (a CCC of 1)" in str(ccc.reason)
    assert 0.98 < ccc.statistic < 1


def test_cli_subject_column_reads_missing_values_as_the_scores(tmp_path: Path) -> None:
    """``--na-values ''``: a subject named NA is a subject, in the subject column too."""
    path = tmp_path / "reps.csv"
    path.write_text(
        "i,r,s,subj\n1,a,1.0,NA\n1,b,1.2,NA\n2,a,2.0,NA\n2,b,2.1,NA\n"
        "3,a,3.0,q\n3,b,3.3,q\n4,a,4.0,q\n4,b,4.5,q\n"
    )
    args = ("--item", "i", "--rater", "r", "--score", "s", "--subject", "subj")
    code, out, err = compare(str(path), *args, "--na-values", "", "--format", "json")
    assert code == 0, err
    got = cli_json(out)["pairs"][0]["bland_altman"]
    assert got["repeated"] and got["n_subjects"] == 2
    code, _, err = compare(str(path), *args)
    assert code == 2 and "subject has no entry for item 1" in err
