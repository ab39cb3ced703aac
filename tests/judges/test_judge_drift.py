"""agreement_drift: agreement per time window, Fleiss's chi-square of equal agreement and the
weighted trend, checked against sklearn, statsmodels and hand computation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy.stats import chi2
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

import accord
from accord import InvalidInputError
from accord.judges.drift import agreement_drift, homogeneity_test, parse_window


def _drifting(n_items: int = 240, seed: int = 0) -> pd.DataFrame:
    """Three humans (accuracy 0.85) and a judge whose accuracy falls from 0.9 to 0.6 over
    eight weeks; one item every few hours."""
    rng = np.random.default_rng(seed)
    rows = []
    start = pd.Timestamp("2024-03-04")
    for i in range(n_items):
        when = start + pd.Timedelta(hours=int(i * 56 * 24 / n_items))
        truth = rng.integers(0, 3)
        for h in ("h1", "h2", "h3"):
            label = truth if rng.random() < 0.85 else rng.integers(0, 3)
            rows.append((i, h, int(label), when))
        accuracy = 0.9 - 0.3 * i / n_items
        label = truth if rng.random() < accuracy else rng.integers(0, 3)
        rows.append((i, "llm", int(label), when + pd.Timedelta(minutes=5)))
    return pd.DataFrame(rows, columns=["item", "rater", "label", "time"])


def test_homogeneity_by_hand() -> None:
    # k = (0.6, 0.5, 0.4), SE 0.05 each: w = 400; mean 0.5; chi2 = 400 * (0.01 + 0 + 0.01).
    out = homogeneity_test([0.6, 0.5, 0.4], [0.05, 0.05, 0.05])
    assert out["chi2"] == pytest.approx(8.0)
    assert out["pvalue"] == pytest.approx(chi2.sf(8.0, 2))
    # Slope: sum w (g - 1)(k - 0.5) / sum w (g - 1)^2 = 400 * (-0.2) / 800; SE 1/sqrt(800).
    assert out["slope"] == pytest.approx(-0.1)
    assert out["slope_se"] == pytest.approx(1 / math.sqrt(800))
    # A NaN window is left out, its index kept.
    gap = homogeneity_test([0.6, math.nan, 0.4], [0.05, 0.05, 0.05])
    assert gap["n_used"] == 2 and gap["slope"] == pytest.approx(-0.1)


def test_trend_against_statsmodels_wls_with_known_variances() -> None:
    k = np.array([0.71, 0.66, 0.69, 0.52, 0.48])
    se = np.array([0.05, 0.04, 0.06, 0.05, 0.07])
    out = homogeneity_test(k, se)
    fit = sm.WLS(k, sm.add_constant(np.arange(5.0)), weights=1 / se**2).fit(cov_type="fixed scale")
    assert out["slope"] == pytest.approx(fit.params[1], rel=1e-10)
    assert out["slope_se"] == pytest.approx(fit.bse[1], rel=1e-10)
    assert out["slope_pvalue"] == pytest.approx(fit.pvalues[1], rel=1e-8)
    # The chi-square is the weighted residual sum of squares about the pooled mean.
    pooled = sm.WLS(k, np.ones(5), weights=1 / se**2).fit()
    assert out["chi2"] == pytest.approx(float(np.sum((k - pooled.params[0]) ** 2 / se**2)))


def test_windows_against_sklearn_and_statsmodels() -> None:
    data = _drifting()
    res = agreement_drift(data, "llm", time="time", window="14d")
    windows = res.windows
    assert sorted(windows["window"].unique()) == [0, 1, 2, 3]
    start = data["time"].min()
    first = data.groupby("item")["time"].transform("min")
    data = data.assign(window=((first - start) // pd.Timedelta(days=14)).astype(int))
    for g, part in data.groupby("window"):
        humans = part[part["rater"] != "llm"].pivot(index="item", columns="rater", values="label")
        counts, _ = aggregate_raters(humans.to_numpy())
        among = windows[(windows["window"] == g) & (windows["series"] == "among humans")]
        assert among["statistic"].iloc[0] == pytest.approx(fleiss_kappa(counts), rel=1e-10)
        modes = humans.apply(lambda r: r.mode().tolist(), axis=1)
        single = modes[modes.map(len) == 1].map(lambda m: m[0])
        judge = part[part["rater"] == "llm"].set_index("item")["label"].reindex(single.index)
        expected = cohen_kappa_score(judge.to_numpy(), single.to_numpy())
        row = windows[(windows["window"] == g) & (windows["series"] == "judge with humans")]
        assert row["statistic"].iloc[0] == pytest.approx(expected, rel=1e-10)
        assert row["n_items"].iloc[0] == len(single)
    # The tests use the per-window estimates and SEs.
    judge_rows = windows[windows["series"] == "judge with humans"]
    expected = homogeneity_test(judge_rows["statistic"], judge_rows["standard_error"])
    test = res.tests.set_index("series").loc["judge with humans"]
    assert test["chi2"] == pytest.approx(expected["chi2"])
    assert test["slope"] < 0  # the judge was made to drift downwards


def test_alpha_windows_are_accords_alpha() -> None:
    data = _drifting(n_items=120, seed=2)
    res = agreement_drift(data, "llm", time="time", window="4w", coefficient="alpha")
    part = data[(data["rater"] != "llm")]
    first = res.windows[(res.windows["window"] == 0) & (res.windows["series"] == "among humans")]
    items = data.groupby("item")["time"].min()
    early = items[items < data["time"].min() + pd.Timedelta(weeks=4)].index
    ratings = accord.Ratings.from_long(part[part["item"].isin(early)], item="item",
                                       rater="rater", label="label")  # fmt: skip
    assert first["statistic"].iloc[0] == pytest.approx(accord.krippendorff_alpha(ratings).statistic)


def test_windows_and_bad_input() -> None:
    assert parse_window("2w") == pd.Timedelta(weeks=2)
    assert parse_window("30min") == pd.Timedelta(minutes=30)
    with pytest.raises(InvalidInputError, match="'window' parameter of agreement_drift"):
        parse_window("weekly")
    data = _drifting(n_items=30)
    with pytest.raises(InvalidInputError, match="no rows of judge 'gpt'"):
        agreement_drift(data, "gpt", time="time")
    bad = data.astype({"time": object})
    bad.loc[3, "time"] = "not a date"
    with pytest.raises(InvalidInputError, match="'time' must hold times; row 4"):
        agreement_drift(bad, "llm", time="time")
    with pytest.raises(InvalidInputError, match="'coefficient' parameter"):
        agreement_drift(data, "llm", time="time", coefficient="icc")  # type: ignore[arg-type]
    with pytest.raises(accord.ColumnNotFoundError):
        agreement_drift(data, "llm", time="when")


def test_drift_figure_is_deterministic_svg() -> None:
    pytest.importorskip("matplotlib")
    from accord.report.judge_figures import drift_plot

    res = agreement_drift(_drifting(n_items=120), "llm", time="time", window="14d")
    series = {
        name: (part["statistic"], part["ci_low"], part["ci_high"])
        for name, part in res.windows.groupby("series", sort=False)
    }
    labels = [str(s.date()) for s in res.windows["start"].unique()]
    svg = drift_plot("drift", labels, series)
    assert svg.startswith("<svg") and "judge with humans" in svg and labels[0] in svg
    assert svg == drift_plot("drift", labels, series)
