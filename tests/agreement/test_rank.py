"""Kendall's W and the mean Spearman correlation against irr, irrNA and hand computations."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from accord._errors import InvalidInputError
from accord.agreement.rank import kendall_w, mean_spearman
from accord.data.ratings import Ratings

REFERENCE = Path(__file__).parents[1] / "reference"
RANK = json.loads((REFERENCE / "rank.json").read_text())
IRRNA = json.loads((REFERENCE / "irrna.json").read_text())


def _scores(name: str) -> np.ndarray:
    block = RANK.get(name) or IRRNA[name]
    return np.array(block["scores"], dtype=float)


def test_tied_scores_match_irr_kendall() -> None:
    y = _scores("tied")
    # irr::kendall(X, correct=TRUE) and correct=FALSE (tests/reference/rank.json)
    for correct, key in ((True, "kendall_corrected"), (False, "kendall_uncorrected")):
        ref = RANK["tied"][key]
        res = kendall_w(y, correct_ties=correct)
        assert_allclose(res.statistic, ref["W"], rtol=1e-12)
        assert_allclose(res.chi_square, ref["chisq"], rtol=1e-12)
        assert_allclose(res.pvalue, ref["p"], rtol=1e-9)
        assert res.df == 11 and res.tie_corrected is correct
    # irr::meanrho(X, fisher=FALSE)$value
    assert_allclose(mean_spearman(y), RANK["tied"]["meanrho"]["value"], rtol=1e-12)
    assert_allclose(kendall_w(y).mean_spearman, RANK["tied"]["meanrho"]["value"], rtol=1e-12)


def test_missing_scores_omitted_as_irr_does() -> None:
    ref = RANK["tied_missing"]["kendall_na_omit"]  # irr::kendall(Y, correct=TRUE)
    res = kendall_w(_scores("tied_missing"), missing="omit")
    assert res.n_items == ref["n"]
    assert_allclose([res.statistic, res.chi_square], [ref["W"], ref["chisq"]], rtol=1e-12)


def _kendall_na(name: str) -> list[float]:
    if name in RANK:
        values: list[float] = RANK[name]["kendallNA"]["values"]
        return values
    values = RANK["kendallNA_irrna_data"][name]
    return values


@pytest.mark.parametrize(
    "name", ["tied", "tied_missing", "ConsistNA", "IndepNA", "Consist", "Indep"]
)
def test_pairwise_matches_irrna_kendallna(name: str) -> None:
    amrho, amk, w, chisq, df, p = _kendall_na(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = kendall_w(_scores(name), missing="pairwise")
    assert_allclose(res.mean_spearman, amrho, atol=1e-12)
    assert_allclose(res.mean_raters, amk, rtol=1e-12)
    assert_allclose(res.statistic, w, atol=1e-12)
    assert_allclose(res.chi_square, chisq, atol=1e-10)
    assert res.df == df
    assert_allclose(res.pvalue, p, rtol=1e-9)


def test_hand_computation_with_f_test() -> None:
    # 4 items x 3 raters, untied: rank sums 4, 6, 8, 12, mean 7.5, S = 35,
    # W = 12 S / (m^2 (n^3 - n)) = 420 / 540 = 7/9; chi2 = m (n - 1) W = 7;
    # F = (m - 1) W / (1 - W) = 7 on n - 1 - 2/m = 7/3 and (m - 1) 7/3 = 14/3 df.
    x = [[1, 2, 1], [2, 1, 3], [3, 3, 2], [4, 4, 4]]
    res = kendall_w(x)
    assert_allclose(res.statistic, 7 / 9, rtol=1e-14)
    assert_allclose(res.chi_square, 7.0, rtol=1e-14)
    assert_allclose([res.f_statistic, res.f_df1, res.f_df2], [7.0, 7 / 3, 14 / 3], rtol=1e-14)
    from scipy.stats import chi2, f

    assert_allclose(res.pvalue, chi2.sf(7.0, 3), rtol=1e-12)
    assert_allclose(res.f_pvalue, f.sf(7.0, 7 / 3, 14 / 3), rtol=1e-12)
    # mean Spearman = (m W - 1) / (m - 1) without ties
    assert_allclose(mean_spearman(x), (3 * 7 / 9 - 1) / 2, rtol=1e-14)


def test_tie_correction_by_hand() -> None:
    # rater 1 ties items 1-2 (t = 2, T = 6): ranks (1.5, 1.5, 3), (1, 2, 3), (1, 2, 3)
    # rank sums 3.5, 5.5, 9; S = 15.5; W_t = 12 S / (9 * 24 - 3 * 6) = 186 / 198
    res = kendall_w([[1, 1, 1], [1, 2, 2], [2, 3, 3]])
    assert_allclose(res.statistic, 186 / 198, rtol=1e-14)
    assert res.tie_sum == 6.0
    assert_allclose(
        kendall_w([[1, 1, 1], [1, 2, 2], [2, 3, 3]], correct_ties=False).statistic,
        186 / 216,
        rtol=1e-14,
    )


def test_scores_equal_their_ranks_and_ratings_door() -> None:
    y = _scores("tied")
    ranks = np.column_stack([np.argsort(np.argsort(c + 1e-9 * np.arange(12))) for c in y.T])
    assert kendall_w(y * 3 + 1).statistic == pytest.approx(kendall_w(y).statistic, rel=1e-14)
    assert 0 <= kendall_w(ranks).statistic <= 1
    items, raters = np.nonzero(~np.isnan(y))
    ratings = Ratings.from_arrays(items, raters, y[items, raters], level="interval")
    assert_allclose(kendall_w(ratings).statistic, kendall_w(y).statistic, rtol=1e-14)


def test_complete_and_pairwise_agree_without_ties() -> None:
    # Kendall (1962): on complete untied data the pairwise form is the classic W
    rng = np.random.default_rng(3)
    y = np.column_stack([rng.permutation(8) for _ in range(4)]).astype(float)
    assert_allclose(kendall_w(y, missing="pairwise").statistic, kendall_w(y).statistic, rtol=1e-12)


@given(st.integers(3, 9), st.integers(2, 5), st.integers(0, 10_000))
def test_bounds_and_rater_order(n: int, m: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, size=(n, m)).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = kendall_w(y)
        b = kendall_w(y[rng.permutation(n)][:, rng.permutation(m)])
    if math.isfinite(a.statistic):
        assert -1e-12 <= a.statistic <= 1 + 1e-12
        assert_allclose(a.statistic, b.statistic, rtol=1e-10, atol=1e-12)


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError, match="missing"):
        kendall_w([[1, 2], [2, 1]], missing="drop")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="items x raters"):
        kendall_w([1, 2, 3])
    with pytest.raises(InvalidInputError, match="missing='pairwise'"):
        kendall_w([[1, np.nan], [2, 1]], missing="omit")


def test_methods_text_cites_the_numbers_of_the_result() -> None:
    res = kendall_w(_scores("tied"))
    text = res.methods_text()
    assert f"W = {res.statistic:.3f}" in text and "chi-square (11)" in text
    assert "Kendall, M. G., & Babington Smith" in text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairwise = kendall_w(_scores("tied_missing")).methods_text(format="markdown")
    assert "Taylor, J. M. G. (1987)" in pairwise
