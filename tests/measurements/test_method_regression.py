"""Method-comparison regressions: Passing-Bablok and Deming.

Reference values:

- A hand computation: seven points whose 21 pairwise slopes are listed one by one in
  :data:`HAND_SLOPES` (two of -1, one 0/0, two infinite, three below -1).
- R mcr 1.3.3.1 ``mcreg`` (tests/reference/method_regression.json, each call recorded there):
  Deming and weighted Deming with jackknife intervals, and mcr's Cusum, on simulated
  lab-like data drawn in R with a fixed seed (100 pairs of two-decimal values with
  proportional error; ``REF["lab"]``); Passing-Bablok on continuous data drawn in R (point
  estimates, and the interval bounds as mcr's rank convention gives them).
- Passing & Bablok's (1983) definition evaluated in exact rational arithmetic on the
  lab-like data (two-decimal values, so many slopes tie exactly), by a plain O(n^2)
  implementation written in this file from the paper's definition.
- mcr's own creatinine data (108 pairs of serum and plasma creatinine, ``REF["creatinine"]``):
  Deming and weighted Deming equal ``mcreg``; Passing-Bablok equals the paper's definition in
  exact arithmetic, and ``mcreg``'s estimate equals the same definition in floating point.
"""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special
from typer.testing import CliRunner

import accord
from accord import DegenerateDataWarning, InvalidInputError
from accord.cli import app
from accord.measurements import _slopes
from accord.measurements._slopes import SlopeSet, inversions, slope_order_statistics
from accord.measurements.regression import method_regression

from .._cli import cli_json

REF = json.loads((Path(__file__).parents[1] / "reference" / "method_regression.json").read_text())

# ------------------------------------------------------------------- the hand computation

HAND_X = [1, 2, 3, 4, 4, 6, 4]
HAND_Y = [1, 3, 2, 5, 6, 1, 5]
# Every pair (i < j) of the points A..G above, its slope worked by hand:
HAND_SLOPES = {
    "AB": 2, "AC": 0.5, "AD": 4 / 3, "AE": 5 / 3, "AF": 0, "AG": 4 / 3,
    "BC": -1,  # excluded: slope -1
    "BD": 1, "BE": 1.5, "BF": -0.5, "BG": 1,
    "CD": 3, "CE": 4, "CF": -1 / 3, "CG": 3,
    "DE": math.inf,  # same x, y up
    "DF": -2, "DG": None,  # D and G are the same point: 0/0, excluded
    "EF": -2.5, "EG": math.inf,  # same x, y down: +inf under a positive correlation (mcr)
    "FG": -2,
}  # fmt: skip


def test_hand_computation_slopes_and_counts() -> None:
    used = sorted(s for s in HAND_SLOPES.values() if s is not None and s != -1)
    assert len(used) == 19  # N: 21 pairs less the -1 and the 0/0
    k = sum(s < -1 for s in used)
    assert k == 3
    # N odd: b = S_((N + 1) / 2 + K) = S_13 (1-based) of the sorted 19
    assert used[(19 + 1) // 2 + k - 1] == pytest.approx(5 / 3)
    pb = accord.passing_bablok(HAND_X, HAND_Y, confidence_level=0.5)
    assert (pb.n_slopes, pb.shift, pb.n_infinite, pb.positive) == (19, 3, 2, True)
    assert pb.slope == pytest.approx(5 / 3)
    # a = median(y - 5/3 x) = median(-2/3, -1/3, -3, -5/3, -2/3, -9, -5/3) = -5/3
    assert pb.intercept == pytest.approx(-5 / 3)
    # 50%: C = 0.6745 sqrt(7 * 6 * 19 / 18) = 4.49, M1 = round(7.25) = 7, M2 = 13:
    # S_(7+3) = 4/3 and S_(13+3) = 3; the intercepts
    # median(y - 3 x) = median(-2, -3, -7, -7, -6, -17, -7) = -7 and
    # median(y - 4/3 x) = median(-1/3, 1/3, -2, -1/3, 2/3, -7, -1/3) = -1/3
    assert pb.slope_ci == pytest.approx((4 / 3, 3))
    assert pb.intercept_ci == pytest.approx((-7, -1 / 3))


def test_hand_computation_interval_beyond_the_slopes_is_nan() -> None:
    # 95%: C = 13.05, M1 = 3, M2 = 17: S_(17+3) is past the 19 slopes
    with pytest.warns(DegenerateDataWarning, match="too few pairs"):
        pb = accord.passing_bablok(HAND_X, HAND_Y)
    assert math.isnan(pb.slope_ci.high) and pb.reason is not None


# ------------------------------------------------------ plain O(n^2) implementation (paper)


def paper_passing_bablok(x: list[Fraction], y: list[Fraction], level: float) -> dict[str, float]:
    """Passing & Bablok (1983), section 3, in exact arithmetic: every slope listed."""
    slopes, n_inf = [], 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[j] - x[i], y[j] - y[i]
            if dx == 0:
                n_inf += dy != 0
                continue
            s = dy / dx
            if s != -1:
                slopes.append(s)
    slopes.sort()
    k = sum(s < -1 for s in slopes)
    big = len(slopes) + n_inf
    s_ = [float(s) for s in slopes] + [math.inf] * n_inf

    def at(rank: int) -> float:  # a rank the shift moves past the slopes: undefined
        return s_[rank - 1] if 1 <= rank <= big else math.nan

    odd = big % 2
    b = at((big + 1) // 2 + k) if odd else (at(big // 2 + k) + at(big // 2 + k + 1)) / 2
    c = float(special.ndtri(0.5 + level / 2)) * math.sqrt(n * (n - 1) * (2 * n + 5) / 18)
    m1 = math.floor((big - c) / 2 + 0.5)
    m2 = big - m1 + 1

    lo, hi = at(m1 + k), at(m2 + k)
    xf, yf = np.array(x, dtype=float), np.array(y, dtype=float)
    return {
        "slope": b,
        "intercept": float(np.median(yf - b * xf)),
        "slope_ci": (lo, hi),
        "intercept_ci": (float(np.median(yf - hi * xf)), float(np.median(yf - lo * xf))),
        "n": big,
        "k": k,
    }


def lab() -> tuple[np.ndarray, np.ndarray]:
    """The simulated lab-like pairs recorded with the R call that drew them."""
    return np.array(REF["lab"]["x"]), np.array(REF["lab"]["y"])


def lab_frame() -> pd.DataFrame:
    """The lab-like pairs as a long table: one row per (sample, method)."""
    x, y = lab()
    return pd.DataFrame({"sample": np.tile(np.arange(1, x.size + 1), 2),
                         "method": ["x"] * x.size + ["y"] * y.size,
                         "value": np.concatenate([x, y])})  # fmt: skip


def lab_ratings() -> accord.Ratings:
    return accord.Ratings.from_long(lab_frame(), item="sample", rater="method", label="value",
                                    level="ratio")  # fmt: skip


@pytest.mark.parametrize("level", [0.95, 0.9])
def test_lab_data_against_the_paper_in_exact_arithmetic(level: float) -> None:
    x, y = lab()
    want = paper_passing_bablok([Fraction(str(v)) for v in x], [Fraction(str(v)) for v in y], level)
    pb = accord.passing_bablok(x, y, confidence_level=level)
    assert (pb.n_slopes, pb.shift) == (want["n"], want["k"])
    assert pb.slope == pytest.approx(want["slope"], rel=1e-14)
    assert pb.intercept == pytest.approx(want["intercept"], rel=1e-12)
    assert pb.slope_ci == pytest.approx(want["slope_ci"], rel=1e-14)
    assert pb.intercept_ci == pytest.approx(want["intercept_ci"], rel=1e-12)


def test_lab_data_cusum_as_mcr() -> None:
    x, y = lab()
    pb = accord.passing_bablok(x, y)
    max_cusum = REF["lab"]["paba_mcr"]["max_cusum"]
    assert np.max(np.abs(pb.cusum)) == max_cusum
    below = int((pb.residuals < 0).sum())
    assert pb.cusum_statistic == pytest.approx(max_cusum / math.sqrt(below + 1))
    assert pb.cusum_pvalue == pytest.approx(float(special.kolmogorov(pb.cusum_statistic)))
    # mcr in floating point: within a few ranks of the exact-arithmetic answer
    assert pb.slope == pytest.approx(REF["lab"]["paba_mcr"]["slope"], abs=1e-3)


# ---------------------------------------------------------------- mcr on continuous data


def _mcr_rank_bound(x: np.ndarray, y: np.ndarray, level: float, side: int) -> float:
    """mcr's bound: the mean of the order statistics at ranks (N -+ round(C) + 2K) / 2 and
    the next when that is even (calcRegression.c), here from every slope listed."""
    i, j = np.triu_indices(x.size, 1)
    s = np.sort((y[j] - y[i]) / (x[j] - x[i]))
    k = int((s < -1).sum())
    c = round(float(special.ndtri(0.5 + level / 2)) * math.sqrt(
        x.size * (x.size - 1) * (2 * x.size + 5) / 18))  # fmt: skip
    ind = s.size + side * c + 2 * k
    half = (ind + 1) // 2
    return float((s[half - 1] + s[half]) / 2) if ind % 2 == 0 else float(s[half - 1])


@pytest.mark.parametrize(("key", "level", "flip"), [("pb", 0.95, False), ("pb90", 0.9, False),
                                                    ("pb_neg", 0.95, True)])  # fmt: skip
def test_passing_bablok_against_mcr(key: str, level: float, flip: bool) -> None:
    ref = REF["synthetic"]
    x, y = np.array(ref["x"]), np.array(ref["y"])
    if flip:
        y = y.max() + 1 - y
    pb = accord.passing_bablok(x, y, confidence_level=level)
    want = ref[key]
    assert pb.slope == pytest.approx(want["slope"], rel=1e-13)
    assert pb.intercept == pytest.approx(want["intercept"], rel=1e-12)
    assert pb.positive is not flip
    # mcr's bounds follow its rank convention; ours the paper's: both from the same slopes
    if not flip:
        assert _mcr_rank_bound(x, y, level, -1) == pytest.approx(want["slope_ci_low"], rel=1e-13)
        assert _mcr_rank_bound(x, y, level, 1) == pytest.approx(want["slope_ci_high"], rel=1e-13)
        paper = paper_passing_bablok(list(map(Fraction, x)), list(map(Fraction, y)), level)
        assert pb.slope_ci == pytest.approx(paper["slope_ci"], rel=1e-13)
        assert abs(pb.slope_ci.low - want["slope_ci_low"]) < 0.01


def test_cusum_against_mcr() -> None:
    ref = REF["synthetic"]
    pb = accord.passing_bablok(ref["x"], ref["y"])
    assert np.max(np.abs(pb.cusum)) == pytest.approx(ref["max_cusum"])


# ------------------------------------------------------------- mcr's creatinine data


def creatinine() -> tuple[np.ndarray, np.ndarray]:
    """mcr's creatinine pairs (serum, plasma; mg/dL), the two with a missing value dropped."""
    ref = REF["creatinine"]
    pairs = [(s, p) for s, p in zip(ref["serum"], ref["plasma"], strict=True) if None not in (s, p)]
    return np.array([s for s, _ in pairs]), np.array([p for _, p in pairs])


def _floating_point_slope(x: np.ndarray, y: np.ndarray) -> float:
    """Passing & Bablok's shifted median with every slope computed in binary floating point
    (as mcr computes them): the test ``s == -1`` then misses a slope that is -1 exactly."""
    i, j = np.triu_indices(x.size, 1)
    dx, dy = x[j] - x[i], y[j] - y[i]
    keep = (dx != 0) | (dy != 0)
    dx, dy = dx[keep], dy[keep]
    s = np.where(dx == 0, np.inf, dy / np.where(dx == 0, 1.0, dx))
    s = np.sort(s[s != -1])
    k, big = int((s < -1).sum()), s.size
    if big % 2:
        return float(s[(big + 1) // 2 + k - 1])
    return float((s[big // 2 + k - 1] + s[big // 2 + k]) / 2)


@pytest.mark.parametrize(("key", "weighted"), [("deming", False), ("wdeming", True)])
def test_creatinine_deming_against_mcr(key: str, weighted: bool) -> None:
    x, y = creatinine()
    want = REF["creatinine"][key]
    fit = accord.deming(x, y, error_ratio=1.0, weighted=weighted)
    assert fit.n_pairs == 108
    for name in ("slope", "intercept", "slope_se", "intercept_se"):
        assert getattr(fit, name) == pytest.approx(want[name], rel=1e-8), name
    assert fit.slope_ci == pytest.approx((want["slope_ci_low"], want["slope_ci_high"]), rel=1e-8)
    assert fit.intercept_ci == pytest.approx(
        (want["intercept_ci_low"], want["intercept_ci_high"]), rel=1e-8
    )


def test_creatinine_passing_bablok_exact_and_beside_mcr() -> None:
    x, y = creatinine()
    pb = accord.passing_bablok(x, y)
    fx, fy = [Fraction(str(v)) for v in x], [Fraction(str(v)) for v in y]
    paper = paper_passing_bablok(fx, fy, 0.95)
    # 5,757 slopes (54 of them infinite; 20 of exactly -1 and one 0/0 left out), 438 below -1
    assert (pb.n_slopes, pb.shift) == (paper["n"], paper["k"]) == (5757, 438)
    assert pb.slope == pytest.approx(paper["slope"], rel=1e-14)
    assert pb.slope == pytest.approx(99 / 91, rel=1e-14)  # the median slope, a ratio of integers
    assert pb.intercept == pytest.approx(paper["intercept"], rel=1e-12)
    assert pb.slope_ci == pytest.approx(paper["slope_ci"], rel=1e-14)
    assert pb.intercept_ci == pytest.approx(paper["intercept_ci"], rel=1e-12)
    want = REF["creatinine"]["paba"]
    # mcr's estimate is the same definition in floating point: 7 of the 20 slopes of exactly
    # -1 miss the test s == -1 there, which makes 5,764 slopes with 442 below -1, and the
    # median falls between two slopes (1.0879 and 1.0881)
    assert _floating_point_slope(x, y) == pytest.approx(want["slope"], rel=1e-13)
    assert float(np.median(y - want["slope"] * x)) == pytest.approx(want["intercept"], rel=1e-12)
    assert abs(pb.slope - want["slope"]) < 1e-4
    # the interval: the same lower bound; the upper one from mcr's floating-point slopes and
    # its rank convention (a mean of two neighbouring slopes) against the paper's single
    # rank of the exact slopes, apart by less than 1e-4
    assert pb.slope_ci.low == pytest.approx(want["slope_ci_low"], rel=1e-12)
    assert abs(pb.slope_ci.high - want["slope_ci_high"]) < 1e-4
    assert pb.intercept_ci.high == pytest.approx(want["intercept_ci_high"], rel=1e-9)


# ----------------------------------------------------------------------------- Deming


@pytest.mark.parametrize("key", ["deming", "deming_2.5_90", "wdeming", "wdeming_0.5"])
def test_deming_against_mcr(key: str) -> None:
    want = REF["lab"][key]
    x, y = lab()
    fit = accord.deming(x, y, error_ratio=want["error_ratio"], weighted=want["weighted"],
                        confidence_level=want["level"])  # fmt: skip
    for name in ("slope", "intercept", "slope_se", "intercept_se"):
        assert getattr(fit, name) == pytest.approx(want[name], rel=1e-9), name
    assert fit.slope_ci == pytest.approx((want["slope_ci_low"], want["slope_ci_high"]), rel=1e-9)
    assert fit.intercept_ci == pytest.approx(
        (want["intercept_ci_low"], want["intercept_ci_high"]), rel=1e-9
    )


def test_deming_leave_one_out_equals_refitting() -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(10, 2, 30)
    y = 1 + 0.9 * x + rng.normal(0, 0.5, 30)
    fit = accord.deming(x, y, error_ratio=2.0)
    for i in (0, 7, 29):
        keep = np.arange(30) != i
        again = accord.deming(x[keep], y[keep], error_ratio=2.0)
        assert fit.jackknife_slopes[i] == pytest.approx(again.slope, rel=1e-10)
        assert fit.jackknife_intercepts[i] == pytest.approx(again.intercept, rel=1e-9)


def test_deming_orthogonal_by_hand() -> None:
    # lambda = 1 on (0,0), (1,2), (2,1), (3,3): u = 5, q = 5, p = 4 -> b = (0 + sqrt(64)) / 8
    fit = accord.deming([0, 1, 2, 3], [0, 2, 1, 3])
    assert fit.slope == pytest.approx(1.0)
    assert fit.intercept == pytest.approx(0.0, abs=1e-12)


def _duplicates(seed: int = 36, n: int = 25) -> tuple[np.ndarray, ...]:
    """Seeded duplicates: n subjects, true level t, x = t + e (SD 0.3), y = 0.5 + 1.1 t + e
    (SD 0.15), each method twice on each subject. Rows: x1, x2, y1, y2."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(2, 20, n)
    x1, x2 = t + rng.normal(0, 0.3, n), t + rng.normal(0, 0.3, n)
    y1, y2 = 0.5 + 1.1 * t + rng.normal(0, 0.15, n), 0.5 + 1.1 * t + rng.normal(0, 0.15, n)
    return x1, x2, y1, y2


def _deming_by_hand(x: np.ndarray, y: np.ndarray, lam: float) -> tuple[float, float]:
    """Cornbleet & Gochman (1979) / mcr's closed form: b = (lam q - u + sqrt((u - lam q)^2 +
    4 lam p^2)) / (2 lam p) with u, q, p the centred sums of squares and products."""
    u = float(((x - x.mean()) ** 2).sum())
    q = float(((y - y.mean()) ** 2).sum())
    p = float(((x - x.mean()) * (y - y.mean())).sum())
    b = (lam * q - u + math.sqrt((u - lam * q) ** 2 + 4 * lam * p * p)) / (2 * lam * p)
    return b, float(y.mean() - b * x.mean())


def test_deming_error_ratio_from_duplicates_by_hand() -> None:
    # Linnet (1998), CLSI EP09: with duplicates s_x^2 = sum (x1 - x2)^2 / (2 n), the same for
    # y, lambda = s_x^2 / s_y^2; the line is fitted to the means of the duplicates, and the
    # jackknife leaves out one subject, estimating lambda again without it.
    x1, x2, y1, y2 = _duplicates()
    n = x1.size
    lam = (((x1 - x2) ** 2).sum() / (2 * n)) / (((y1 - y2) ** 2).sum() / (2 * n))
    xm, ym = (x1 + x2) / 2, (y1 + y2) / 2
    slope, intercept = _deming_by_hand(xm, ym, lam)
    subject = np.r_[np.arange(n), np.arange(n)]
    fit = accord.deming(np.r_[x1, x2], np.r_[y1, y2], subject=subject, error_ratio="replicates")
    assert fit.error_ratio_estimated and fit.n_pairs == n and fit.n_measurements == 2 * n
    assert fit.error_ratio == pytest.approx(lam, rel=1e-12)
    assert fit.within_sd_x == pytest.approx(math.sqrt(((x1 - x2) ** 2).sum() / (2 * n)))
    assert (fit.slope, fit.intercept) == pytest.approx((slope, intercept), rel=1e-12)
    loo = []
    for i in range(n):
        k = np.arange(n) != i
        lam_i = ((x1[k] - x2[k]) ** 2).sum() / ((y1[k] - y2[k]) ** 2).sum()
        loo.append(_deming_by_hand(xm[k], ym[k], lam_i))
    b_i = np.array([b for b, _ in loo])
    pseudo = n * slope - (n - 1) * b_i
    se = pseudo.std(ddof=1) / math.sqrt(n)
    assert fit.slope_se == pytest.approx(se, rel=1e-9)
    t = special.stdtrit(n - 2, 0.975)
    assert fit.slope_ci == pytest.approx((slope - t * se, slope + t * se), rel=1e-9)
    assert "estimated from the replicates" in fit.method and "25 subjects" in fit.method
    text = fit.methods_text()
    assert "the means of 25 subjects (50 pairs of measurements)" in text
    assert f"{lam:.4g}, estimated from the replicates" in text and "Linnet, K. (1998)" in text
    # a given ratio with subjects: the means, the same ratio in every leave-one-out
    given = accord.deming(np.r_[x1, x2], np.r_[y1, y2], subject=subject, error_ratio=lam)
    plain = accord.deming(xm, ym, error_ratio=lam)
    assert given.slope == pytest.approx(fit.slope, rel=1e-12) and not given.error_ratio_estimated
    assert given.slope_se == pytest.approx(plain.slope_se, rel=1e-12)


def test_deming_error_ratio_from_triplicates_and_unequal_replicates() -> None:
    # The pooled within-subject variance sum_i sum_l (x_il - xbar_i)^2 / sum_i (m_i - 1),
    # with 3 replicates on some subjects and 1 on one (it adds a mean, not a variance).
    rng = np.random.default_rng(5)
    m = np.array([3, 2, 3, 1, 2, 3, 2, 2])
    t = rng.uniform(5, 50, m.size)
    subject = np.repeat(np.arange(m.size), m)
    x = t[subject] + rng.normal(0, 1.0, subject.size)
    y = 2 + 0.95 * t[subject] + rng.normal(0, 0.5, subject.size)
    ss_x = sum(float(((x[subject == i] - x[subject == i].mean()) ** 2).sum()) for i in range(8))
    ss_y = sum(float(((y[subject == i] - y[subject == i].mean()) ** 2).sum()) for i in range(8))
    fit = accord.deming(x, y, subject=subject, error_ratio="replicates")
    assert fit.error_ratio == pytest.approx(ss_x / ss_y, rel=1e-12)
    assert fit.within_sd_y == pytest.approx(math.sqrt(ss_y / float((m - 1).sum())))
    means = [(x[subject == i].mean(), y[subject == i].mean()) for i in range(8)]
    xm, ym = np.array(means).T
    assert (fit.slope, fit.intercept) == pytest.approx(_deming_by_hand(xm, ym, ss_x / ss_y))


def test_weighted_deming_ratio_of_squared_cvs_from_replicates() -> None:
    x1, x2, y1, y2 = _duplicates(7)
    xm, ym = (x1 + x2) / 2, (y1 + y2) / 2
    # relative deviations from each subject's mean: (x1 - xm) / xm = (x1 - x2) / (2 xm)
    cv2_x = (((x1 - x2) / xm) ** 2).sum() / (2 * x1.size)
    cv2_y = (((y1 - y2) / ym) ** 2).sum() / (2 * y1.size)
    subject = np.r_[np.arange(x1.size), np.arange(x1.size)]
    fit = accord.deming(np.r_[x1, x2], np.r_[y1, y2], subject=subject,
                        error_ratio="replicates", weighted=True)  # fmt: skip
    assert fit.error_ratio == pytest.approx(cv2_x / cv2_y, rel=1e-12)
    again = accord.deming(xm, ym, error_ratio=cv2_x / cv2_y, weighted=True)
    assert (fit.slope, fit.intercept) == pytest.approx((again.slope, again.intercept), rel=1e-10)


def test_deming_replicates_errors() -> None:
    with pytest.raises(InvalidInputError, match="give subject="):
        accord.deming([1, 2, 3], [1, 2, 3], error_ratio="replicates")
    with pytest.raises(InvalidInputError, match="each of the 3 subjects has one pair"):
        accord.deming([1, 2, 3], [1, 2, 4], subject=[1, 2, 3], error_ratio="replicates")
    with pytest.raises(InvalidInputError, match="replicates of y never differ"):
        accord.deming([1, 1.1, 2, 2.1, 3, 3.2], [1, 1, 2, 2, 3, 3], subject=[1, 1, 2, 2, 3, 3],
                      error_ratio="replicates")  # fmt: skip
    with pytest.raises(InvalidInputError, match="at least 3 subjects"):
        accord.deming([1, 1.1, 2, 2.1], [1, 1.2, 2, 2.2], subject=[1, 1, 2, 2])
    with pytest.raises(InvalidInputError, match="'error_ratio' parameter of deming"):
        accord.deming([1, 2, 3], [1, 2, 3], error_ratio="estimate")


def test_deming_errors() -> None:
    with pytest.raises(InvalidInputError, match="error_ratio"):
        accord.deming([1, 2, 3], [1, 2, 3], error_ratio=0)
    with pytest.raises(InvalidInputError, match=r"x\[1\] is -2"):
        accord.deming([1, -2, 3], [1, 2, 3], weighted=True)
    with pytest.raises(InvalidInputError, match="at least 3 pairs"):
        accord.deming([1, 2], [1, 2])


# ---------------------------------------------------------- the selection of slopes


def brute_sorted_slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    i, j = np.triu_indices(x.size, 1)
    dx = x[j] - x[i]
    ok = dx != 0
    return np.sort((y[j] - y[i])[ok] / dx[ok])


def test_inversions_by_brute_force() -> None:
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 10, 257):
        p = rng.permutation(n)
        want = sum(int(p[a] > p[b]) for a in range(n) for b in range(a + 1, n))
        assert inversions(p, keep=False) == want
        levels = inversions(p, keep=True)
        assert not isinstance(levels, int)
        a, b = levels.all_pairs()
        assert levels.total == want and np.all(a < b) and np.all(p[a] > p[b])
        assert len(set(zip(a.tolist(), b.tolist(), strict=True))) == want


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(-4, 4), st.integers(-4, 4)), min_size=0, max_size=30))
def test_kendall_s_by_brute_force_and_tau_sign_as_scipy(points: list[tuple[int, int]]) -> None:
    from scipy import stats

    x = np.array([p[0] for p in points], dtype=float)
    y = np.array([p[1] for p in points], dtype=float)
    # Kendall's S by its definition: the sum of sign(dx) sign(dy) over the pairs
    i, j = np.triu_indices(x.size, 1)
    want = int((np.sign(x[j] - x[i]) * np.sign(y[j] - y[i])).sum())
    got = SlopeSet.of(x, y).kendall_s()
    assert got == want
    if x.size >= 2 and np.ptp(x) and np.ptp(y):  # tau-b's sign is S's (scipy, side by side)
        assert np.sign(stats.kendalltau(x, y).statistic) == np.sign(got)


@pytest.mark.parametrize("scipy_from", [2, 10**9], ids=["scipy's count", "inversions"])
def test_slopes_at_most_by_either_count(scipy_from: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # the count of slopes at most t against the slopes listed, by scipy's Kendall's tau
    # (large samples) and by the merge sort (small ones)
    monkeypatch.setattr(_slopes, "_SCIPY_COUNT", scipy_from)
    rng = np.random.default_rng(5)
    x = rng.integers(0, 30, 300).astype(float)
    y = np.round(x * 0.7 + rng.normal(0, 3, 300), 1)
    s = brute_sorted_slopes(x, y)
    points = SlopeSet.of(x, y)
    # thresholds of denominator 10,000, none a slope (a tenth over at most 30), so that
    # rounding in y - t x cannot tie them
    for t in (-5.4321, -1.0317, 0.0123, 0.7071, 2.2361):
        assert points.at_most(t) == int(np.count_nonzero(s <= t))


@pytest.mark.parametrize("decimals", [0, 1, 3])
def test_selection_against_every_slope_listed(
    decimals: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # small samples and listing limits, so that the narrowing rounds run on small data
    monkeypatch.setattr(_slopes, "_SAMPLE", 500)
    monkeypatch.setattr(_slopes, "_LIST_FACTOR", 1)
    rng = np.random.default_rng(decimals)
    for trial in range(4):
        n = int(rng.integers(1100, 1600))
        x = np.round(rng.normal(10, 3, n), decimals)
        y = np.round(1.1 * x + rng.normal(0, 1, n), decimals)
        points = SlopeSet.of(x, y)
        s = brute_sorted_slopes(x, y)
        assert points.n_finite == s.size
        m = s.size
        ranks = ((1, 2), ((m + 1) // 2, (m + 1) // 2 + 1), (m // 3,), (m - 1, m))
        got = slope_order_statistics(points, ranks, seed=trial)
        for group, values in zip(ranks, got, strict=True):
            assert values == tuple(float(s[r - 1]) for r in group)


def test_many_tied_slopes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_slopes, "_SAMPLE", 300)
    monkeypatch.setattr(_slopes, "_LIST_FACTOR", 1)
    rng = np.random.default_rng(9)
    x = rng.integers(0, 40, 1200).astype(float)
    y = x + rng.integers(-1, 2, 1200)
    s = brute_sorted_slopes(x, y)
    m = s.size
    ranks = (((m + 1) // 2, (m + 1) // 2 + 1), (m // 10,))
    got = slope_order_statistics(SlopeSet.of(x, y), ranks)
    assert got == tuple(tuple(float(s[r - 1]) for r in g) for g in ranks)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20)), min_size=3, max_size=40),
    st.randoms(use_true_random=False),
)
def test_passing_bablok_equals_the_paper_and_ignores_order(
    points: list[tuple[int, int]], rnd: object
) -> None:
    x = [Fraction(p[0]) for p in points]
    y = [Fraction(p[1]) for p in points]
    if len(set(x)) < 2:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pb = accord.passing_bablok([p[0] for p in points], [p[1] for p in points],
                                   confidence_level=0.5)  # fmt: skip
        shuffled = list(points)
        rnd.shuffle(shuffled)  # type: ignore[attr-defined]
        again = accord.passing_bablok([p[0] for p in shuffled], [p[1] for p in shuffled],
                                      confidence_level=0.5)  # fmt: skip
    if pb.positive:
        want = paper_passing_bablok(x, y, 0.5)
        assert pb.n_slopes == want["n"] and pb.shift == want["k"]
        if math.isfinite(want["slope"]):
            assert pb.slope == pytest.approx(want["slope"])
    assert pb.slope == again.slope or (math.isnan(pb.slope) and math.isnan(again.slope))


def test_passing_bablok_scales_with_the_data() -> None:
    ref = REF["synthetic"]
    x, y = np.array(ref["x"]), np.array(ref["y"])
    pb, scaled = accord.passing_bablok(x, y), accord.passing_bablok(3 * x, 3 * y)
    assert scaled.slope == pytest.approx(pb.slope, rel=1e-12)
    assert scaled.intercept == pytest.approx(3 * pb.intercept, rel=1e-10)


def test_passing_bablok_errors() -> None:
    with pytest.raises(InvalidInputError, match="at least 3 pairs"):
        accord.passing_bablok([1, 2], [1, 2])
    with pytest.raises(InvalidInputError, match="confidence_level"):
        accord.passing_bablok([1, 2, 3], [1, 2, 3], confidence_level=1.5)


# ------------------------------------------------------------- ratings, CLI, figures, text


def test_method_regression_of_ratings() -> None:
    ratings = lab_ratings()
    res = method_regression(ratings, reference="x")
    x, y = lab()
    assert res.fits[0].slope == accord.passing_bablok(x, y).slope
    dem = method_regression(ratings, method="deming", reference="x")
    assert dem.fits[0].slope == pytest.approx(REF["lab"]["deming"]["slope"], rel=1e-9)
    assert list(res.table().columns)[:3] == ["first", "second", "n_pairs"]
    json.loads(accord._results.dumps(dem.to_dict()))


def test_methods_text_reads_the_result() -> None:
    x, y = lab()
    text = accord.passing_bablok(x, y, names=("x", "y")).methods_text()
    assert "Passing-Bablok" in text and "100 pairs" in text and "1.045" in text
    text = accord.deming(x, y, weighted=True).methods_text("markdown")
    assert "weighted Deming" in text and "Linnet" in text


def test_cli_compare_regressions(tmp_path: Path) -> None:
    lab_frame().to_csv(tmp_path / "lab.csv", index=False)
    runner = CliRunner()
    base = ["compare", str(tmp_path / "lab.csv"), "--item", "sample", "--rater", "method",
            "--score", "value", "--reference", "x"]  # fmt: skip
    res = runner.invoke(app, [*base, "--method", "deming", "--format", "json"])
    assert res.exit_code == 0, res.output
    fit = json.loads(res.stdout)["result"]["fits"][0]
    assert fit["slope"] == pytest.approx(REF["lab"]["deming"]["slope"], rel=1e-9)
    res = runner.invoke(app, [*base, "--method", "passing-bablok", "--format", "csv"])
    assert res.exit_code == 0 and "cusum_pvalue" in res.stdout
    res = runner.invoke(app, [*base, "--method", "theil-sen"])
    assert res.exit_code == 2 and "--method must be one of" in res.output


def test_deming_replicates_through_method_regression_and_the_cli(tmp_path: Path) -> None:
    x1, x2, y1, y2 = _duplicates()
    n = x1.size
    lam = ((x1 - x2) ** 2).sum() / ((y1 - y2) ** 2).sum()  # duplicates, by hand
    want = _deming_by_hand((x1 + x2) / 2, (y1 + y2) / 2, lam)
    rows = [
        {"sample": f"s{i}-{rep}", "patient": f"p{i}", "method": method, "value": value}
        for i in range(n)
        for rep, (xv, yv) in enumerate(((x1[i], y1[i]), (x2[i], y2[i])))
        for method, value in (("x", xv), ("y", yv))
    ]
    frame = pd.DataFrame(rows)
    ratings = accord.Ratings.from_long(frame, item="sample", rater="method", label="value",
                                       level="ratio")  # fmt: skip
    patient = dict(zip(frame["sample"], frame["patient"], strict=False))
    res = method_regression(ratings, method="deming", reference="x", subject=patient,
                            error_ratio="replicates")  # fmt: skip
    assert res.fits[0].error_ratio == pytest.approx(lam, rel=1e-12)
    assert (res.fits[0].slope, res.fits[0].intercept) == pytest.approx(want, rel=1e-12)
    with pytest.raises(InvalidInputError, match=r"subject= .* option of method='deming'"):
        method_regression(ratings, reference="x", subject=patient)
    frame.to_csv(tmp_path / "dup.csv", index=False)
    base = ["compare", str(tmp_path / "dup.csv"), "--item", "sample", "--rater", "method",
            "--score", "value", "--reference", "x", "--method", "deming"]  # fmt: skip
    runner = CliRunner()
    out = runner.invoke(app, [*base, "--subject", "patient", "--error-ratio", "replicates",
                              "--format", "json"])  # fmt: skip
    assert out.exit_code == 0, out.output
    fit = cli_json(out.stdout)["fits"][0]
    assert fit["error_ratio"] == pytest.approx(lam, rel=1e-12)
    assert fit["error_ratio_estimated"] is True and fit["n_pairs"] == n
    assert fit["slope"] == pytest.approx(want[0], rel=1e-12)
    text = runner.invoke(app, [*base, "--subject", "patient", "--error-ratio", "replicates"])
    assert text.exit_code == 0 and "estimated from the replicates" in text.output
    bad = runner.invoke(app, [*base, "--error-ratio", "replicates"])
    assert bad.exit_code == 2 and "give subject=" in bad.output
    bad = runner.invoke(app, [*base, "--error-ratio", "-1"])
    assert bad.exit_code == 2 and "--error-ratio must be a positive number or replicates" in (
        bad.output
    )


def test_report_shows_the_passing_bablok_fit() -> None:
    # the report's method-comparison table holds the fit checked above against the paper
    # (exact arithmetic) and mcr (both orders of the pair), to the three decimals it prints;
    # it puts the first rater (x) on the second (y)
    from accord.report._blocks import fmt

    from ..report.test_report import row_values

    x, y = lab()
    pb = accord.passing_bablok(y, x, names=("y", "x"))
    page = accord.report(lab_ratings(), progress=False)
    values = row_values(page.html, "x on y")
    assert values[0] == "100"
    assert [values[1], values[3]] == [fmt(pb.intercept), fmt(pb.slope)]
    assert values[4] == f"{fmt(pb.slope_ci.low)} to {fmt(pb.slope_ci.high)}"
    assert values[5] == fmt(pb.cusum_pvalue)


def test_report_shows_the_deming_fit_from_python_and_the_cli(tmp_path: Path) -> None:
    # With lambda = 1 Deming is orthogonal regression, symmetric in x and y: the report's
    # "x on y" line is mcr's "y on x" line inverted (slope 1/b, intercept -a/b).
    from accord.report._blocks import fmt

    from ..report.test_report import row_values

    want = REF["lab"]["deming"]
    slope, intercept = 1 / want["slope"], -want["intercept"] / want["slope"]
    page = accord.report(lab_ratings(), progress=False, regression="deming")
    values = row_values(page.html, "x on y")
    assert [values[1], values[3]] == [fmt(intercept), fmt(slope)]
    assert len(values) == 5  # no linearity test for Deming
    assert "Linnet, K. (1993)" in page.html and "Deming fits of x on y" in page.html
    lab_frame().to_csv(tmp_path / "lab.csv", index=False)
    out = tmp_path / "lab.html"
    args = ["report", str(tmp_path / "lab.csv"), "--item", "sample", "--rater", "method",
            "--label", "value", "--level", "ratio", "--regression", "deming", "-o", str(out),
            "--quiet"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert row_values(out.read_text(encoding="utf-8"), "x on y")[3] == fmt(slope)
    with pytest.raises(InvalidInputError, match="'regression' parameter of report"):
        accord.report(lab_ratings(), progress=False, regression="theil-sen")
    with pytest.raises(InvalidInputError, match=r"'error_ratio' parameter of accord\.Regression"):
        accord.report(
            lab_ratings(), progress=False, regression=accord.Regression("deming", error_ratio=0)
        )


def test_figures() -> None:
    pytest.importorskip("matplotlib")
    x, y = lab()
    for fit in (accord.passing_bablok(x, y), accord.deming(x, y)):
        fig = accord.regression_plot(fit)
        ax = fig.axes[0]
        assert len(ax.collections) >= 2  # the points and the band
        assert accord.residual_plot(fit).axes[0].get_xlabel() == "x"
    with pytest.raises(InvalidInputError, match=r"passing_bablok or accord\.deming"):
        accord.regression_plot(accord.bland_altman(x, y))


# ------------------------------------------------------- sample size of the limits


@pytest.mark.parametrize(
    ("sd", "n", "power"),
    # SimplyAgree tests/testthat/test-blandPowerCurve.R: blandPowerCurve(mu = 0.5, SD, delta
    # = 7), find_n(power = .8 / .9) -> N and its power (tolerance 0.001)
    [(2.5, 59, 0.799), (2.5, 78, 0.901), (2.6, 82, 0.801), (2.6, 108, 0.900), (2.7, 117, 0.7999)],
)
def test_limits_power_against_simplyagree(sd: float, n: int, power: float) -> None:
    got = float(accord.limits_power([n], sd=sd, delta=7, mean=0.5)[0])
    assert abs(got - power) <= 0.001 + 1e-12


def test_sample_size_limits_is_the_fewest_pairs() -> None:
    plan = accord.sample_size_limits(2.5, 7, mean=0.5, power=0.9)
    powers = plan.curve.set_index("n_pairs")["power"]
    assert powers[plan.n_pairs] >= 0.9 > powers[plan.n_pairs - 1]
    assert np.all(np.diff(plan.curve["power"].to_numpy()) >= -1e-12)
    with pytest.raises(InvalidInputError, match="no number of pairs"):
        accord.sample_size_limits(4, 7)


# ------------------------------------------- a new difference: prediction and tolerance


def test_prediction_interval_by_hand() -> None:
    # PEFR (Bland & Altman 1986): bias -2.118, SD 38.77 of 17 differences; by hand
    # -2.118 -+ t(16, 0.975) 38.77 sqrt(1 + 1/17), t = 2.1199
    wright = [494, 395, 516, 434, 476, 557, 413, 442, 650, 433, 417, 656, 267, 478, 178, 423, 427]
    mini = [512, 430, 520, 428, 500, 600, 364, 380, 658, 445, 432, 626, 260, 477, 259, 350, 451]
    ba = accord.bland_altman(wright, mini)
    d = np.array(wright, float) - np.array(mini, float)
    half = 2.119905299 * d.std(ddof=1) * math.sqrt(1 + 1 / 17)
    assert ba.prediction_interval() == pytest.approx((d.mean() - half, d.mean() + half))


def test_tolerance_interval_is_carkeets_outer_bound_and_covers() -> None:
    wright = [494, 395, 516, 434, 476, 557, 413, 442, 650, 433, 417, 656, 267, 478, 178, 423, 427]
    mini = [512, 430, 520, 428, 500, 600, 364, 380, 658, 445, 432, 626, 260, 477, 259, 350, 451]
    ba = accord.bland_altman(wright, mini)
    # the exact pair interval of the limits at 95% has outer bounds mean -+ K(0.975) sd
    lower, upper = ba.limits_interval(0.95, "exact")
    tol = ba.tolerance_interval(content=float(special.ndtr(1.96) - special.ndtr(-1.96)),
                                level=0.975)  # fmt: skip
    assert tol == pytest.approx((lower.low, upper.high), rel=1e-9)
    # Monte Carlo: with K for n = 10 (95% content, 95% confidence) the interval holds 95%
    # of a normal population in 95% of samples
    from accord.measurements._tolerance import two_sided_factor

    k = two_sided_factor(10, float(special.ndtri(0.975)), 0.95)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(100_000, 10))
    m, s = x.mean(axis=1), x.std(axis=1, ddof=1)
    covered = special.ndtr(m + k * s) - special.ndtr(m - k * s) >= 0.95
    assert abs(covered.mean() - 0.95) < 0.003


# ------------------------------------------------------------- repeated-measures CCC


def test_repeated_concordance_against_nlme_three_methods() -> None:
    ref = REF["repeated_ccc"]["synthetic"]
    got = accord.repeated_concordance(ref["y"], ref["ind"], ref["met"])
    sa, sab, se, sb, ccc = ref["result"]
    assert (got.n_subjects, got.n_methods, got.n_replicates) == (30, 3, 3)
    assert got.statistic == pytest.approx(ccc, rel=1e-7)
    assert (got.between_subjects, got.subject_method, got.within, got.between_methods) == (
        pytest.approx((sa, sab, se, sb), rel=1e-6)
    )


def _anova_ccc(y: np.ndarray) -> float:
    """The balanced two-way ANOVA CCC of Carrasco & Jover (2003), written from the paper's
    moments for ``y`` of shape (subjects, methods, replicates), without the library."""
    n, k, r = y.shape
    cell = y.mean(axis=2)
    subj, meth, grand = cell.mean(axis=1), cell.mean(axis=0), cell.mean()
    ms_e = ((y - cell[:, :, None]) ** 2).sum() / (n * k * (r - 1))
    ms_ab = r * ((cell - subj[:, None] - meth + grand) ** 2).sum() / ((n - 1) * (k - 1))
    ms_a = k * r * ((subj - grand) ** 2).sum() / (n - 1)
    s_ab, s_e, inner = (ms_ab - ms_e) / r, ms_e, ms_ab
    if s_ab < 0:
        s_ab = 0.0
        s_e = inner = (ms_ab * (n - 1) * (k - 1) + ms_e * n * k * (r - 1)) / (
            (n - 1) * (k - 1) + n * k * (r - 1)
        )
    s_a = (ms_a - inner) / (k * r)
    var_diff = 2 * (s_ab / n + s_e / (n * r))
    diffs = [(meth[a] - meth[b]) ** 2 - var_diff for a in range(k) for b in range(a + 1, k)]
    s_b = max(sum(diffs) / (k * (k - 1)), 0.0)
    return float(s_a / (s_a + s_ab + s_b + s_e))


def test_repeated_concordance_jackknife_interval_by_hand() -> None:
    ref = REF["repeated_ccc"]["synthetic"]
    y = np.asarray(ref["y"]).reshape(30, 3, 3)  # ind, then met, then replicate (as drawn)
    got = accord.repeated_concordance(ref["y"], ref["ind"], ref["met"], confidence_level=0.9)
    assert got.statistic == pytest.approx(_anova_ccc(y), rel=1e-12)
    n = 30
    loo = np.array([_anova_ccc(np.delete(y, i, axis=0)) for i in range(n)])
    z, z_loo = np.arctanh(got.statistic), np.arctanh(loo)
    se_z = np.std(n * z - (n - 1) * z_loo, ddof=1) / math.sqrt(n)
    t = special.stdtrit(n - 1, 0.95)
    assert got.ci == pytest.approx((math.tanh(z - t * se_z), math.tanh(z + t * se_z)), rel=1e-10)
    se = np.std(n * got.statistic - (n - 1) * loo, ddof=1) / math.sqrt(n)
    assert got.standard_error == pytest.approx(se, rel=1e-10)
    assert got.ci.low < got.statistic < got.ci.high and got.balanced
    assert "jackknife 90% interval over subjects" in got.method


def _unbalanced(seed: int = 12) -> pd.DataFrame:
    """Seeded: 25 subjects, 3 methods (offsets 0, 1, -0.5), 1 to 4 replicates per cell, one
    cell empty; s_a = 16, s_ab = 1, s_e = 2.25."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(25):
        a = rng.normal(50, 4)
        for j, offset in enumerate((0.0, 1.0, -0.5)):
            m = 0 if (i, j) == (3, 2) else int(rng.integers(1, 5))
            c = rng.normal(0, 1)
            rows += [(i, f"m{j}", a + offset + c + rng.normal(0, 1.5)) for _ in range(m)]
    return pd.DataFrame(rows, columns=["ind", "met", "y"])


def _statsmodels_ccc(frame: pd.DataFrame) -> tuple[float, ...]:
    """The same model fitted by statsmodels' MixedLM (REML): a random subject intercept and
    a variance component shared by the subject-by-method cells; the CCC from its estimates
    by Carrasco & Jover's formula."""
    import statsmodels.formula.api as smf

    model = smf.mixedlm("y ~ 0 + C(met)", frame, groups="ind", re_formula="1",
                        vc_formula={"cell": "0 + C(met)"})  # fmt: skip
    fit = model.fit(reml=True, method=["lbfgs"])
    s_a, s_ab, s_e = float(fit.cov_re.iloc[0, 0]), float(fit.vcomp[0]), float(fit.scale)
    means = fit.fe_params.to_numpy()
    cov = fit.cov_params().iloc[:3, :3].to_numpy()
    k = 3
    spread = sum((means[a] - means[b]) ** 2 - (cov[a, a] + cov[b, b] - 2 * cov[a, b])
                 for a in range(k) for b in range(a + 1, k))  # fmt: skip
    s_b = max(spread / (k * (k - 1)), 0.0)
    return s_a, s_ab, s_e, s_b, s_a / (s_a + s_ab + s_b + s_e)


def test_repeated_concordance_unbalanced_against_statsmodels_mixedlm() -> None:
    frame = _unbalanced()
    got = accord.repeated_concordance(frame["y"], frame["ind"], frame["met"])
    s_a, s_ab, s_e, s_b, ccc = _statsmodels_ccc(frame)
    assert not got.balanced and got.n_measurements == len(frame) and got.n_replicates == 4
    assert (got.between_subjects, got.subject_method, got.within) == pytest.approx(
        (s_a, s_ab, s_e), rel=2e-4
    )
    assert got.between_methods == pytest.approx(s_b, rel=2e-3)
    assert got.statistic == pytest.approx(ccc, rel=1e-4)
    assert got.ci.low < got.statistic < got.ci.high
    assert "REML (unbalanced design)" in got.method


def test_repeated_concordance_reml_path_equals_the_balanced_moments() -> None:
    # the general REML fit, run on a balanced design, finds the closed form's components
    from accord.measurements import repeated_concordance as rc
    from accord.measurements._two_way_reml import cell_sums, two_way_reml

    ref = REF["repeated_ccc"]["synthetic"]
    y = np.asarray(ref["y"])
    cells = cell_sums(y, np.asarray(ref["ind"]) - 1, np.asarray(ref["met"]) - 1, 30, 3)
    fit = two_way_reml(cells, (1.0, 1.0))
    s_a, s_ab, s_e, _, _ = rc._balanced(cells, 3)
    assert (fit.between_subjects, fit.subject_method, fit.within) == pytest.approx(
        (s_a, s_ab, s_e), rel=1e-5
    )


@settings(max_examples=25, deadline=None)
@given(
    shift=st.floats(-1e3, 1e3, allow_nan=False),
    scale=st.floats(0.01, 100, allow_nan=False),
    seed=st.integers(0, 2**16),
)
def test_repeated_concordance_ignores_location_scale_and_order(
    shift: float, scale: float, seed: int
) -> None:
    ref = REF["repeated_ccc"]["synthetic"]
    y, ind, met = (np.asarray(ref[k]) for k in ("y", "ind", "met"))
    base = accord.repeated_concordance(y, ind, met)
    order = np.random.default_rng(seed).permutation(y.size)
    moved = accord.repeated_concordance(shift + scale * y[order], ind[order], met[order])
    assert moved.statistic == pytest.approx(base.statistic, rel=1e-9)
    assert moved.ci == pytest.approx(base.ci, rel=1e-8)
    assert moved.within == pytest.approx(scale**2 * base.within, rel=1e-8)


def test_repeated_concordance_of_ratings_and_the_cli(tmp_path: Path) -> None:
    frame = _unbalanced(3)
    # each replicate an item: the l-th measurement of a subject by every method
    frame["rep"] = frame.groupby(["ind", "met"]).cumcount()
    frame["sample"] = frame["ind"].astype(str) + "-" + frame["rep"].astype(str)
    want = accord.repeated_concordance(frame["y"], frame["ind"], frame["met"])
    frame.to_csv(tmp_path / "rep.csv", index=False)
    base = ["compare", str(tmp_path / "rep.csv"), "--item", "sample", "--rater", "met",
            "--score", "y", "--method", "repeated-ccc"]  # fmt: skip
    runner = CliRunner()
    out = runner.invoke(app, [*base, "--subject", "ind", "--format", "json"])
    assert out.exit_code == 0, out.output
    got = cli_json(out.stdout)
    assert got["statistic"] == pytest.approx(want.statistic, rel=1e-9)
    assert got["ci"] == pytest.approx(list(want.ci), rel=1e-9)
    assert got["n_measurements"] == len(frame) and got["balanced"] is False
    text = runner.invoke(app, [*base, "--subject", "ind"])
    assert text.exit_code == 0 and "REML (unbalanced design)" in " ".join(text.output.split())
    csv = runner.invoke(app, [*base, "--subject", "ind", "--format", "csv"])
    assert csv.exit_code == 0 and "ci_low" in csv.output
    bad = runner.invoke(app, base)
    assert bad.exit_code == 2 and "--method repeated-ccc needs --subject" in bad.output


def test_repeated_concordance_input_errors() -> None:
    with pytest.raises(InvalidInputError, match="at least 3 subjects and 2 methods"):
        accord.repeated_concordance([1, 2, 3, 4, 5], [1, 1, 1, 1, 2], ["a", "a", "b", "b", "a"])
    with pytest.raises(InvalidInputError, match="some subject at least twice"):
        accord.repeated_concordance([1, 2, 3, 4, 5, 6], [1, 1, 2, 2, 3, 3], ["a", "b"] * 3)
    with pytest.raises(InvalidInputError, match="one entry per measurement"):
        accord.repeated_concordance([1, 2, 3], [1, 2], ["a", "b", "c"])
    with pytest.raises(InvalidInputError, match="confidence_level"):
        accord.repeated_concordance([1, 2, 3], [1, 2, 3], ["a", "b", "c"], confidence_level=2)


def test_a_shift_past_the_slopes_leaves_the_slope_undefined() -> None:
    # Six slopes by hand (-5, -5, -5, 1/3, 3, 11), three of them below -1: the median of
    # the six shifted by K = 3 is the mean of the 6th and the 7th, and there is no 7th.
    x, y = [0, 1, 2, 3], [0, -5, -10, 1]
    want = paper_passing_bablok([Fraction(v) for v in x], [Fraction(v) for v in y], 0.5)
    assert (want["n"], want["k"]) == (6, 3) and math.isnan(want["slope"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pb = accord.passing_bablok(x, y, confidence_level=0.5)
    assert (pb.n_slopes, pb.shift) == (6, 3) and math.isnan(pb.slope)
    assert pb.reason is not None and "shifted by K = 3" in pb.reason


def test_passing_bablok_of_one_x_is_undefined_with_its_reason() -> None:
    # every x the same: no pair of points has a finite slope (a TypeError from numpy's
    # partition of no rank before); the report's method comparison of constant scores too
    with pytest.warns(DegenerateDataWarning, match="no finite slope"):
        fit = accord.passing_bablok(np.ones(10), np.ones(10))
    assert math.isnan(fit.slope) and math.isnan(fit.intercept)
    assert fit.reason == "no finite slope: every pair of pairs has the same x"
    assert slope_order_statistics(SlopeSet.of(np.ones(3), np.ones(3)), ((),)) == ((),)
    frame = pd.DataFrame({"item": np.repeat(range(10), 2), "rater": ["a", "b"] * 10, "s": 1.0})
    page = accord.report(frame, item="item", rater="rater", label="s", level="interval",
                         progress=False, inference=accord.Inference(n_boot=200))  # fmt: skip
    assert "method-comparison" in page.sections
    # every coefficient undefined (no variance): the methods describe no interval
    assert "No coefficient has a standard error or a confidence interval" in page.html
    assert "confidence intervals are F-based" not in page.html


def test_deming_of_one_x_is_nan_with_its_reason_never_infinite() -> None:
    # x constant, y not: the orthogonal line is vertical, y = a + b x does not exist (it
    # was printed "y = -inf + inf x" before)
    with pytest.warns(DegenerateDataWarning, match="the slope is undefined"):
        fit = accord.deming(np.ones(5), np.arange(5.0))
    assert math.isnan(fit.slope) and math.isnan(fit.intercept)
    assert fit.reason is not None and "inf" not in str(fit)
