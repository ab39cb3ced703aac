"""Intraclass correlations: the six Shrout-Fleiss / McGraw-Wong forms, by the two-way ANOVA
(complete designs: F tests and F intervals) or by REML (any design: likelihood-ratio tests and
profile-likelihood intervals)."""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, Literal, Never

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import DroppedDataWarning, InvalidInputError, warn_degenerate
from .._interval import f_quantile, f_sf
from .._results import CIMethod, Coefficient, ConfidenceInterval, Result, check_level
from .._types import Alternative, FloatArray, IntArray
from .._validate import check_choice
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ..stats.scores import ScoreCells
from .icc_mixed import CrossedDesign, MixedModel, REMLFit, fit_reml

__all__ = [
    "ICC_FORMS",
    "ICC_NO_SE",
    "ICCMethod",
    "ICCResult",
    "IntraclassCorrelation",
    "IntraclassCorrelationREML",
    "icc",
    "icc_from_statistics",
    "interval_choice",
]

#: ``icc(method=...)``: ``"auto"`` (ANOVA on a complete design, else REML), ``"anova"``,
#: ``"reml"``.
ICCMethod = Literal["auto", "anova", "reml"]

#: Why an ICC has no standard error: none is published for every form, and the F test and
#: the exact F-based interval are the ICC's inference.
ICC_NO_SE = "no SE: inference by the F test and F interval (Shrout & Fleiss 1979)"

#: (form, McGraw-Wong name, description)
ICC_FORMS: tuple[tuple[str, str, str], ...] = (
    ("ICC(1,1)", "ICC(1)", "one-way random effects, absolute agreement, single rater"),
    ("ICC(2,1)", "ICC(A,1)", "two-way random effects, absolute agreement, single rater"),
    ("ICC(3,1)", "ICC(C,1)", "two-way mixed effects, consistency, single rater"),
    ("ICC(1,k)", "ICC(k)", "one-way random effects, absolute agreement, mean of k raters"),
    ("ICC(2,k)", "ICC(A,k)", "two-way random effects, absolute agreement, mean of k raters"),
    ("ICC(3,k)", "ICC(C,k)", "two-way mixed effects, consistency, mean of k raters"),
)


@dataclasses.dataclass(frozen=True, slots=True)
class _MeanSquares:
    n: int
    k: int
    msr: float  # between items (rows)
    msw: float  # within items
    msc: float  # between raters (columns)
    mse: float  # residual


@dataclasses.dataclass(frozen=True, slots=True)
class IntraclassCorrelation(Coefficient):
    """One ICC form, with its F test and the classical F-based interval.

    Attributes
    ----------
    form : str
        Shrout & Fleiss name, e.g. ``"ICC(2,1)"``; ``alias`` is McGraw & Wong's.
    f_statistic, df1, df2 : float
        The F test of ICC = 0 (``MSR/MSW`` one-way, ``MSR/MSE`` two-way).

    ``standard_error`` is NaN and ``reason`` says why (:data:`ICC_NO_SE`): the inference is
    the F test and the F-based interval. ``interval_choice`` says why this interval (and
    fit) was used for the design; ``ci_description`` (the ``ci_method`` of
    :meth:`to_dict`) names the interval and gives that reason.
    """

    form: str = ""
    alias: str = ""
    description: str = ""
    f_statistic: float = math.nan
    df1: float = math.nan
    df2: float = math.nan
    mean_squares: tuple[float, float, float, float] = (math.nan,) * 4
    n_columns: int = 0
    interval_choice: str = ""

    @property
    def label(self) -> str:
        """Display name: ``ICC(1,1)`` / ``ICC(1,k)`` for the one-way forms, McGraw & Wong's
        ``ICC(A,1)``, ``ICC(C,1)``, ``ICC(A,k)``, ``ICC(C,k)`` for the two-way ones (which
        say absolute agreement or consistency)."""
        return self.form if self.form.startswith("ICC(1,") else self.alias

    @property
    def pvalue(self) -> float:
        """p-value of the F test of ICC = 0 (one-sided, as is classical for the ICC)."""
        return self.test("greater")

    def test(self, alternative: Alternative = "greater") -> float:
        """F-test p-value of ICC = 0 (only ``"greater"`` is defined for the F test)."""
        check_choice("alternative", alternative, ("greater",), "IntraclassCorrelation.test")
        if not math.isfinite(self.f_statistic):
            return math.nan
        return f_sf(self.f_statistic, self.df1, self.df2)

    def confidence_interval(
        self, level: float = 0.95, method: CIMethod = "analytic"
    ) -> ConfidenceInterval:
        """The classical F-based interval (Shrout & Fleiss 1979; McGraw & Wong 1996)."""
        check_level(level)
        check_choice("method", method, ("analytic",), "IntraclassCorrelation.confidence_interval")
        if not math.isfinite(self.statistic):
            return ConfidenceInterval(math.nan, math.nan)
        msr, msw, msc, mse = self.mean_squares
        return _interval(self.form, self.statistic, msr, msw, msc, mse, self.n_items,
                         self.n_columns, level)  # fmt: skip

    @property
    def ci_description(self) -> str:
        """The interval of :meth:`to_dict`: the classical F-based interval, and why."""
        return _with_choice(
            "F-based interval (Shrout & Fleiss 1979; McGraw & Wong 1996)", self.interval_choice
        )

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Plain dict of the fields, the F test and the interval."""
        out = Coefficient.to_dict(self, level)
        out["alternative"] = "greater"
        return out


def _interval(
    form: str, value: float, msr: float, msw: float, msc: float, mse: float, n: int, k: int,
    level: float,
) -> ConfidenceInterval:  # fmt: skip
    a = (1.0 - level) / 2.0
    df1 = n - 1
    if _error_ms(form, msw, mse) == 0:  # F = infinity: see _no_error
        return ConfidenceInterval(math.nan, math.nan)
    if form in ("ICC(1,1)", "ICC(1,k)"):
        return _f_ratio_interval(msr / msw, df1, n * (k - 1), a, k, form == "ICC(1,1)")
    df2 = (n - 1) * (k - 1)
    if form in ("ICC(3,1)", "ICC(3,k)"):
        return _f_ratio_interval(msr / mse, df1, df2, a, k, form == "ICC(3,1)")
    # ICC(2,.): Satterthwaite degrees of freedom (McGraw & Wong 1996, Table 7).
    icc2 = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
    fj = msc / mse
    vn = df2 * (k * icc2 * fj + n * (1 + (k - 1) * icc2) - k * icc2) ** 2
    vd = df1 * k**2 * icc2**2 * fj**2 + (n * (1 + (k - 1) * icc2) - k * icc2) ** 2
    v = vn / vd
    f_u = f_quantile(1 - a, n - 1, v)
    f_l = f_quantile(1 - a, v, n - 1)
    low = n * (msr - f_u * mse) / (f_u * (k * msc + (k * n - k - n) * mse) + n * msr)
    high = n * (f_l * msr - mse) / (k * msc + (k * n - k - n) * mse + n * f_l * msr)
    if form == "ICC(2,1)":
        return ConfidenceInterval(float(low), float(high))
    return ConfidenceInterval(float(low * k / (1 + low * (k - 1))),
                              float(high * k / (1 + high * (k - 1))))  # fmt: skip


def _f_ratio_interval(
    f0: float, df1: int, df2: int, a: float, k: int, single: bool
) -> ConfidenceInterval:
    """The exact interval of ICC(1,.) and ICC(3,.) from the observed F ratio ``f0`` with
    ``(df1, df2)`` degrees of freedom and tail ``a``: of one rating (``single``) or of the
    mean of ``k`` (Shrout & Fleiss 1979; McGraw & Wong 1996, Table 7)."""
    fl = f0 / f_quantile(1 - a, df1, df2)
    fu = f0 * f_quantile(1 - a, df2, df1)
    if single:
        return ConfidenceInterval((fl - 1) / (fl + k - 1), (fu - 1) / (fu + k - 1))
    return ConfidenceInterval(1 - 1 / fl, 1 - 1 / fu)


#: Why a REML ICC has no standard error.
ICC_REML_NO_SE = "no SE: inference by the likelihood-ratio test and the profile interval"

#: The model of each form: one-way (raters in the error), raters random, raters fixed.
_MODEL_OF: dict[str, MixedModel] = {"1": "oneway", "2": "random", "3": "fixed"}


@dataclasses.dataclass(frozen=True, slots=True)
class IntraclassCorrelationREML(IntraclassCorrelation):
    """One ICC form from the REML fit of its mixed model (any design, complete or not).

    Attributes
    ----------
    k : float
        The number of ratings the form's mean is over: 1 for single-rating forms, the
        harmonic mean of the scores per item (k-hat) for the ``k`` forms.
    variance_components : tuple of float
        ``(items, raters, residual)`` REML variances of the form's model (raters 0 when they
        are fixed or part of the error).
    lr_statistic, lr_pvalue : float
        The likelihood-ratio test of ``ICC = 0`` (item variance 0).
    fit : REMLFit
        The model's fit, which the profile interval uses.

    ``pvalue`` is the likelihood-ratio test's (a 50:50 mixture of 0 and chi-square(1), the
    null being on the boundary); ``confidence_interval(level)`` is the profile-likelihood
    interval; ``f_statistic``, ``df1``, ``df2`` and ``mean_squares`` are NaN.
    """

    k: float = 1.0
    variance_components: tuple[float, float, float] = (math.nan,) * 3
    lr_statistic: float = math.nan
    lr_pvalue: float = math.nan
    fit: REMLFit | None = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def pvalue(self) -> float:
        """p-value of the likelihood-ratio test of ICC = 0 (one-sided by nature)."""
        return self.test("greater")

    def test(self, alternative: Alternative = "greater") -> float:
        """Likelihood-ratio p-value of ICC = 0 (only ``"greater"``: the ICC is not negative
        under the model)."""
        check_choice("alternative", alternative, ("greater",), "IntraclassCorrelationREML.test")
        return self.lr_pvalue

    def confidence_interval(
        self, level: float = 0.95, method: CIMethod = "analytic"
    ) -> ConfidenceInterval:
        """The profile-likelihood interval: the ICCs whose REML deviance, profiled over the
        other variance ratios, is within the chi-square(1) quantile of its minimum (cut at 0
        and 1); for a ``k`` form, the Spearman-Brown step-up of the single-rating interval."""
        check_level(level)
        check_choice(
            "method", method, ("analytic",), "IntraclassCorrelationREML.confidence_interval"
        )
        if self.fit is None or not math.isfinite(self.statistic):
            return ConfidenceInterval(math.nan, math.nan)
        low, high = self.fit.profile_interval(level)
        return ConfidenceInterval(_step_up(low, self.k), _step_up(high, self.k))

    @property
    def ci_description(self) -> str:
        """The interval of :meth:`to_dict`: the REML profile-likelihood interval, and why."""
        return _with_choice(
            "profile-likelihood interval of the REML fit (chi-square(1))", self.interval_choice
        )

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Plain dict of the fields, the variance components, the test and the interval."""
        out = IntraclassCorrelation.to_dict(self, level)
        out.pop("fit", None)
        out["variance_components"] = dict(
            zip(("items", "raters", "residual"), self.variance_components, strict=True)
        )
        return out


def _with_choice(name: str, choice: str) -> str:
    """An interval's name with the reason it was chosen, if any."""
    return f"{name}, chosen as {choice}" if choice else name


def interval_choice(method: ICCMethod, n_missing: int, n_cells: int) -> str:
    """Why :func:`icc` used the fit and interval it did, given the ``method`` asked for and
    ``n_missing`` of the ``n_cells`` item x rater cells without a score (the clause after
    "chosen as" in an interval's ``ci_method``).

    >>> interval_choice("auto", 0, 72)
    'every rater scored every item (complete design)'
    >>> interval_choice("auto", 1, 72)
    '1 of 72 item x rater cells has no score and the F interval needs every rater on every item'
    >>> interval_choice("reml", 0, 72)
    'the REML fit was asked for'
    """
    if method != "auto":
        return f"the {method.upper()} fit was asked for"
    if n_missing == 0:
        return "every rater scored every item (complete design)"
    verb = "has" if n_missing == 1 else "have"
    return (
        f"{n_missing} of {n_cells} item x rater cells {verb} no score and the F interval needs "
        "every rater on every item"
    )


def _step_up(rho: float, k: float) -> float:
    """Spearman-Brown: the reliability of the mean of ``k`` ratings of reliability ``rho``."""
    if k == 1.0 or not math.isfinite(rho):
        return rho
    return k * rho / (1.0 + (k - 1.0) * rho)


@dataclasses.dataclass(frozen=True, slots=True)
class ICCResult(Result):
    """The six ICC forms for one items x raters design.

    Attributes
    ----------
    forms : tuple of IntraclassCorrelation
        In the order of :data:`ICC_FORMS`.
    n_items, n_raters : int
        Items used (ANOVA: complete items; REML: every item with a score) and raters.
    n_items_incomplete : int
        Items left out because a rater did not rate them (ANOVA's complete-case analysis;
        0 with REML, which keeps them).
    method : {"anova", "reml"}
        How the forms were estimated.
    k_hat : float
        REML: the harmonic mean of the number of scores per item, the ``k`` of the ``k``
        forms (on a complete design, the number of raters). NaN with ANOVA.
    n_scores : int
        REML: the scores used.
    interval_choice : str
        Why this fit and interval: the design complete (ANOVA, F intervals), some cells
        without a score (REML, profile-likelihood intervals), or the ``method`` asked for.
    """

    forms: tuple[IntraclassCorrelation, ...]
    n_items: int
    n_raters: int
    n_items_incomplete: int
    method: str = "anova"
    k_hat: float = math.nan
    n_scores: int = 0
    interval_choice: str = ""

    def __getitem__(self, form: str) -> IntraclassCorrelation:
        for f in self.forms:
            if form in (f.form, f.alias):
                return f
        raise KeyError(form)

    def table(self, level: float = 0.95) -> pd.DataFrame:
        """One row per form: form, alias, description, ICC, F, df1, df2, pvalue, CI and
        the interval's name (``ci_method``, with why it was chosen)."""
        rows = []
        for f in self.forms:
            ci = f.confidence_interval(level)
            rows.append(
                {
                    "form": f.form,
                    "alias": f.alias,
                    "description": f.description,
                    "icc": f.statistic,
                    "F": f.f_statistic,
                    "df1": f.df1,
                    "df2": f.df2,
                    "pvalue": f.pvalue,
                    "ci_low": ci.low,
                    "ci_high": ci.high,
                    "ci_method": f.ci_description,
                }
            )
        return pd.DataFrame(rows)

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Plain dict: sizes and the table rows."""
        from .._results import to_plain

        out: dict[str, Any] = {
            "n_items": self.n_items,
            "n_raters": self.n_raters,
            "n_items_incomplete": self.n_items_incomplete,
            "confidence_level": level,
            "interval_choice": self.interval_choice,
            "forms": to_plain(self.table(level)),
        }
        if self.method == "reml":
            out.update(method=self.method, k_hat=self.k_hat, n_scores=self.n_scores)
        return out


def _score_matrix(data: npt.ArrayLike) -> FloatArray:
    try:
        arr = np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError("icc needs numeric scores (items x raters)") from None
    if arr.ndim != 2:
        raise InvalidInputError(f"icc needs an items x raters array; got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError(
            f"the input is empty: {arr.shape[0]} items x {arr.shape[1]} raters; icc needs an "
            "items x raters array of scores"
        )
    if np.any(np.isinf(arr)):
        raise InvalidInputError("icc: scores must be finite (NaN marks a missing score)")
    return arr


def _mean_squares(y: FloatArray) -> _MeanSquares:
    n, k = y.shape
    grand = float(y.mean())
    rows = y.mean(axis=1)
    cols = y.mean(axis=0)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is named by the reason
        sst = float(np.sum((y - grand) ** 2))
        ssr = k * float(np.sum((rows - grand) ** 2))
        ssc = n * float(np.sum((cols - grand) ** 2))
    sse = max(sst - ssr - ssc, 0.0)
    ssw = max(sst - ssr, 0.0)
    return _MeanSquares(
        n, k, ssr / (n - 1), ssw / (n * (k - 1)), ssc / (k - 1), sse / ((n - 1) * (k - 1))
    )


def icc(
    data: Ratings | npt.ArrayLike, *, method: ICCMethod = "auto", **read_options: Never
) -> ICCResult:
    r"""The six intraclass correlations of Shrout & Fleiss (1979) / McGraw & Wong (1996).

    With the mean squares of the two-way ANOVA of the items x raters scores (MSR between
    items, MSC between raters, MSE residual, MSW within items) and *k* raters, *n* items:

    .. math::

        ICC(1,1) = \frac{MSR - MSW}{MSR + (k-1) MSW}, \quad
        ICC(2,1) = \frac{MSR - MSE}{MSR + (k-1) MSE + k (MSC - MSE)/n}, \quad
        ICC(3,1) = \frac{MSR - MSE}{MSR + (k-1) MSE}

    and the average-measure forms ICC(1,k) = (MSR - MSW)/MSR,
    ICC(2,k) = (MSR - MSE)/(MSR + (MSC - MSE)/n), ICC(3,k) = (MSR - MSE)/MSR.

    Parameters
    ----------
    data : Ratings or array_like of shape (n_items, n_raters)
        Numeric scores (interval or ratio ratings, or numeric categories); NaN marks a
        missing score in an array.
    method : {"auto", "anova", "reml"}, default "auto"
        ``"anova"``: the mean squares above, on the complete items (others left out with
        a warning). ``"reml"``: restricted maximum likelihood of each form's mixed model on
        every score. ``"auto"``: ANOVA when every rater scored every item, else REML; the
        numbers of a complete design are the ANOVA's whatever the data size.

    Returns
    -------
    ICCResult
        ``forms`` (each an :class:`IntraclassCorrelation` with ``statistic``, the F test
        ``f_statistic``, ``df1``, ``df2``, ``pvalue`` and ``confidence_interval(level)``;
        with REML an :class:`IntraclassCorrelationREML`, with the variance components,
        the likelihood-ratio test and the profile-likelihood interval), ``table(level)``,
        the sizes and ``method``.

    Raises
    ------
    InvalidInputError
        Non-numeric or infinite scores, not a 2-D design, an empty one, or an unknown
        ``method``.

    Notes
    -----
    Which form to report: ICC(2,1) (absolute agreement, raters a random sample) when the
    raters' levels matter and others could rate; ICC(3,1) (consistency) when only the
    ranking of items matters and these raters are the raters of interest; ICC(1,1) when
    each item has its own set of raters. The ``k`` forms are the reliability of the mean
    of the *k* ratings.

    ANOVA needs a complete design: with ``method="anova"``, items that some rater did not
    score are left out (complete-case analysis, counted in ``n_items_incomplete``, with a
    :class:`~accord.DroppedDataWarning`). With fewer than two complete items or raters, or
    no variance, the ICCs are NaN with a reason; so they are when the items' mean scores do
    not differ (MSR = 0, as in irrNA's ``Indep`` Latin square), where the formulas give
    ICC(2,k) above 1 and ICC(1,k) = ICC(3,k) = -inf (psych and pingouin print those) and
    the F ratio is 0; and ICC(2,k) alone is NaN when ``MSR + (MSC - MSE)/n`` is not positive
    (its ratio would exceed 1). F tests are one-sided (ICC > 0); intervals
    are the exact F intervals, with Satterthwaite degrees of freedom for ICC(2,.).
    Validated against the published Shrout & Fleiss (1979) Table 2 values and pingouin.

    REML (incomplete or unbalanced designs; ten Hove, Jorgensen & van der Ark 2022) fits
    ``y = mu + a_i + e`` for ICC(1,.) (raters part of the error),
    ``y = mu + a_i + b_j + e`` with random raters for ICC(2,.) and
    ``y = mu_j + a_i + e`` with fixed raters for ICC(3,.), and sets
    ICC(1,1) = ICC(3,1) = s_a / (s_a + s_e), ICC(2,1) = s_a / (s_a + s_b + s_e); a ``k``
    form is the Spearman-Brown step-up to ``k-hat``, the harmonic mean of the number of
    raters per item (``ICCResult.k_hat``; ten Hove et al.'s k-hat; on a complete design
    the number of raters). Variance components are not negative, so the REML ICCs lie in
    [0, 1]. On a complete design REML equals the ANOVA forms unless a mean square
    difference is negative (ANOVA then gives a negative ICC, REML 0). When a model fits
    every score exactly (no residual, as irrNA's ``Consist``: y = item + rater) the REML
    likelihood grows without bound as s_e goes to 0, and the fit is the limit of its
    maximum: s_e = 0 and the sample variances of the item and rater effects the scores
    reveal (on a complete design the ANOVA's MSR/k and MSC/n, so REML equals ANOVA there
    too), with the profile interval of that limit. The ``pvalue`` is
    the likelihood-ratio test of s_a = 0 (a 50:50 mixture of 0 and chi-square(1), Self &
    Liang 1987); intervals are profile-likelihood ones. Sums over the scores are taken once
    and the items are eliminated exactly, so each likelihood evaluation costs a (raters +
    1)-square factorisation: a million items by a hundred raters fit in seconds
    (:mod:`accord.agreement.icc_mixed`). Validated against a dense REML and statsmodels
    MixedLM. See the guide page "ICC on incomplete designs".

    References
    ----------
    .. [1] Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing
       rater reliability. Psychological Bulletin, 86(2), 420-428.
       https://doi.org/10.1037/0033-2909.86.2.420
    .. [2] McGraw, K. O., & Wong, S. P. (1996). Forming inferences about some intraclass
       correlation coefficients. Psychological Methods, 1(1), 30-46.
       https://doi.org/10.1037/1082-989X.1.1.30
    .. [3] ten Hove, D., Jorgensen, T. D., & van der Ark, L. A. (2022). Updated guidelines
       on selecting an intraclass correlation coefficient for interrater reliability, with
       applications to incomplete observational designs. Psychological Methods.
       https://doi.org/10.1037/met0000516
    .. [4] Self, S. G., & Liang, K.-Y. (1987). Asymptotic properties of maximum likelihood
       estimators and likelihood ratio tests under nonstandard conditions. Journal of the
       American Statistical Association, 82(398), 605-610.

    Examples
    --------
    Shrout & Fleiss (1979), 6 targets x 4 judges:

    >>> scores = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9],
    ...           [6, 2, 4, 7]]
    >>> res = icc(scores)
    >>> [round(f.statistic, 2) for f in res.forms]
    [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]

    The same data with two scores missing: every score is used, by REML.

    >>> gaps = [[9, None, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, None, 6], [10, 5, 6, 9],
    ...         [6, 2, 4, 7]]
    >>> res = icc(np.array(gaps, dtype=float))
    >>> res.method, res.n_items, round(res.k_hat, 2)
    ('reml', 6, 3.6)
    >>> round(res["ICC(A,1)"].statistic, 2)
    0.32
    """
    refuse_read_options("icc", read_options)
    check_choice("method", method, ("auto", "anova", "reml"), "icc")
    if isinstance(data, Ratings):
        return _icc_of_cells(ScoreCells.from_ratings(data), method)
    y = _score_matrix(data)
    why = interval_choice(method, int(np.isnan(y).sum()), y.size)
    if method == "reml" or (method == "auto" and np.isnan(y).any()):
        items, raters = np.nonzero(~np.isnan(y))
        return _icc_reml(items, raters, y[items, raters], why=why)
    return _icc_anova(y, choice=why)


def icc_from_statistics(cells: ScoreCells, *, method: ICCMethod = "auto") -> ICCResult:
    """The six forms of :func:`icc` from the scored cells an engine merged.

    ``"auto"`` takes the ANOVA when every rater of the input scored every item of it, else
    REML, as :func:`icc` does for a :class:`~accord.Ratings`; the per-count sums of the REML
    fit are reduced from the merged cells, so items split across batches or partitions count
    whole.

    Examples
    --------
    Two halves of Shrout & Fleiss's (1979) 6 x 4 scores, split inside items, give the
    published ICC(1,1) = 0.17 and ICC(3,1) = 0.71 once merged:

    >>> scores = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6],
    ...                    [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float)
    >>> items, raters = np.divmod(np.arange(24), 4)
    >>> half = [ScoreCells.from_codes(items[s], raters[s], scores.ravel()[s])
    ...         for s in (slice(0, 11), slice(11, 24))]
    >>> res = icc_from_statistics(half[0].merge(half[1]))
    >>> round(res["ICC(1,1)"].statistic, 2), round(res["ICC(3,1)"].statistic, 2)
    (0.17, 0.71)
    """
    check_choice("method", method, ("auto", "anova", "reml"), "icc")
    return _icc_of_cells(cells, method)


def _icc_of_cells(cells: ScoreCells, method: ICCMethod) -> ICCResult:
    """The forms of a :class:`ScoreCells`: ANOVA when complete (or asked for), else REML
    (warnings point at the caller of the public function)."""
    n_cells = cells.n_items * cells.n_raters
    complete = cells.n_scores == n_cells
    why = interval_choice(method, max(n_cells - cells.n_scores, 0), n_cells)
    if method == "reml" or (method == "auto" and not complete):
        return _icc_reml(*cells.cells(), stacklevel=4, why=why)
    return _icc_anova(cells.matrix(), stacklevel=4, choice=why)


# long: one result per form, each with its F test and interval inputs
def _icc_anova(y: FloatArray, stacklevel: int = 3, choice: str = "") -> ICCResult:
    """The six forms from the two-way ANOVA of the complete items of ``y``."""
    complete = ~np.isnan(y).any(axis=1)
    n_incomplete = int((~complete).sum())
    if n_incomplete:
        warnings.warn(
            f"icc(method='anova') uses complete items only: {n_incomplete} of {y.shape[0]} "
            "items lack a score from some rater and were left out",
            DroppedDataWarning,
            stacklevel=stacklevel,
        )
    y = y[complete]
    n, k = y.shape
    method_tail = (
        "ANOVA mean squares; F test and exact F interval (Satterthwaite df for ICC(2,.))"
        + (f"; complete-case: {n_incomplete} incomplete items left out" if n_incomplete else "")
    )
    ms = _mean_squares(y) if n >= 2 and k >= 2 else None
    reason = _anova_reason(n, k, ms)
    if reason is not None or ms is None:
        warn_degenerate(reason or "undefined", stacklevel=stacklevel)
    elif ms.mse == 0:
        warn_degenerate(_no_error("ICC(3,1)", ms) or "", stacklevel=stacklevel)
    forms = []
    for form, alias, description in ICC_FORMS:
        value = f_stat = df1 = df2 = math.nan
        squares: tuple[float, float, float, float] = (math.nan,) * 4
        why = reason
        if ms is not None and reason is None:
            msr, msw, msc, mse = ms.msr, ms.msw, ms.msc, ms.mse
            squares = (msr, msw, msc, mse)
            with np.errstate(divide="ignore", invalid="ignore"):
                value, f_stat, df1, df2 = _form(form, ms)
            no_interval = _no_error(form, ms)
            why = None if no_interval is None else f"{ICC_NO_SE}; {no_interval}"
            if form == "ICC(2,k)" and ms.msr + (ms.msc - ms.mse) / n <= 0:
                value, why = math.nan, _NO_MEAN_VARIANCE
                warn_degenerate(_NO_MEAN_VARIANCE, stacklevel=stacklevel)
        forms.append(
            IntraclassCorrelation(
                **_form_fields(form, alias, description, value, n, k, method_tail),
                reason=why or ICC_NO_SE,
                bounds=(-math.inf, 1.0),
                f_statistic=f_stat,
                df1=df1,
                df2=df2,
                mean_squares=squares,
                interval_choice=choice,
            )
        )
    return ICCResult(tuple(forms), n, k, n_incomplete, interval_choice=choice)


#: Why the ANOVA forms are undefined when the items' mean scores do not differ.
_NO_ITEM_VARIANCE = (
    "no between-item variance: every item has the same mean score (MSR = 0), so no form is "
    "an estimate and there is no F interval"
)

#: Why ICC(2,k) is undefined when its estimated variance of a k-rater mean is not positive.
_NO_MEAN_VARIANCE = (
    "ICC(2,k) undefined: the estimated variance of a mean of k ratings, MSR + (MSC - MSE)/n, "
    "is not positive, and the ANOVA ratio would lie above 1"
)


def _anova_reason(n: int, k: int, ms: _MeanSquares | None) -> str | None:
    """Why every ANOVA form is undefined for ``n`` complete items and ``k`` raters with
    mean squares ``ms``, or None.

    No between-item variance (MSR 0 to round-off: at most 1e-12 of the total sum of
    squares) makes the F ratio 0: the ``k`` forms' formulas give -inf or values above 1,
    the single forms sit on their bound with an interval of one point, so no form is an
    estimate.
    """
    if ms is None or n < 2 or k < 2:
        return f"the ICC needs at least 2 complete items and 2 raters; got {n} items and {k} raters"
    if not all(math.isfinite(v) for v in (ms.msr, ms.msw, ms.msc, ms.mse)):
        return (
            "the scores are too large to square in double precision (a mean square "
            "overflows): divide them by a power of ten, which leaves every ICC unchanged"
        )
    if ms.msr == 0 and ms.msw == 0:
        return "every score is the same: the ICC is 0/0 (undefined)"
    total = (n - 1) * ms.msr + n * (k - 1) * ms.msw
    if (n - 1) * ms.msr <= 1e-12 * total:
        return _NO_ITEM_VARIANCE
    return None


def _form_fields(
    form: str, alias: str, description: str, value: float, n: int, m: int, how: str
) -> dict[str, Any]:
    """The fields one ICC form shares with the others of either fit: its names, its value
    on ``n`` items and ``m`` raters, and its method (``how``: the fit and its inference)."""
    return {
        "name": "icc",
        "statistic": value,
        "standard_error": math.nan,
        "n_items": n,
        "n_raters": m,
        "categories": (),
        "method": f"{form} = {alias} (Shrout & Fleiss 1979; McGraw & Wong 1996): "
        f"{description}; {how}",
        "weights": form,
        "form": form,
        "alias": alias,
        "description": description,
        "n_columns": m,
    }


def _error_ms(form: str, msw: float, mse: float) -> float:
    """The error mean square of ``form``'s F ratio: within items for the one-way forms,
    the residual for the two-way ones."""
    return msw if form.startswith("ICC(1,") else mse


def _no_error(form: str, ms: _MeanSquares) -> str | None:
    """Why ``form`` has no F interval when its error mean square is 0, else None.

    The F ratio is then infinite (the F test gives NaN): the one-way form's error is the
    spread of each item's scores (0 when every rater gave each item the same score), the
    two-way forms' the residual (0 also when the raters differ by a constant). The
    interval's limits tend to 1 there, a certainty no finite sample gives, so it is NaN with
    this reason.
    """
    if _error_ms(form, ms.msw, ms.mse) != 0:
        return None
    what = (
        "every rater gave each item the same score"
        if ms.msw == 0
        else "the raters' scores differ by a constant on every item"
    )
    error = "within-item" if form.startswith("ICC(1,") else "residual"
    return f"no F interval: {what} (the {error} mean square is 0, F infinite)"


def _form(form: str, ms: _MeanSquares) -> tuple[float, float, float, float]:
    n, k = ms.n, ms.k
    msr, msw, msc, mse = (np.float64(v) for v in (ms.msr, ms.msw, ms.msc, ms.mse))
    one_way = (float(np.divide(msr, msw)), float(n - 1), float(n * (k - 1)))
    two_way = (float(np.divide(msr, mse)), float(n - 1), float((n - 1) * (k - 1)))
    if form == "ICC(1,1)":
        return (float((msr - msw) / (msr + (k - 1) * msw)), *one_way)
    if form == "ICC(1,k)":
        return (float((msr - msw) / msr), *one_way)
    if form == "ICC(2,1)":
        return (float((msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)), *two_way)
    if form == "ICC(2,k)":
        return (float((msr - mse) / (msr + (msc - mse) / n)), *two_way)
    if form == "ICC(3,1)":
        return (float((msr - mse) / (msr + (k - 1) * mse)), *two_way)
    return (float((msr - mse) / msr), *two_way)


def _reml_reason(items: IntArray, raters: IntArray, y: FloatArray) -> str | None:
    """Why the REML forms are undefined for these scores, or None."""
    if y.size == 0:
        return "no scores"
    if not np.all(np.isfinite(y)):
        raise InvalidInputError("icc: scores must be finite (NaN marks a missing score)")
    per_item = np.bincount(items)
    n, m = int(np.count_nonzero(per_item)), int(np.count_nonzero(np.bincount(raters)))
    if n < 2 or m < 2:
        return f"the ICC needs at least 2 items and 2 raters; got {n} items and {m} raters"
    if per_item.max() < 2:
        return "no item has two scores: the item and residual variances are not separable"
    if float(np.ptp(y)) == 0.0:
        return "every score is the same: the ICC is 0/0 (undefined)"
    if y.size <= m + 1:
        return f"{y.size} scores leave no residual degrees of freedom for {m} raters"
    return None


def _icc_reml(
    items: IntArray, raters: IntArray, y: FloatArray, stacklevel: int = 3, why: str = ""
) -> ICCResult:
    """The six forms from the REML fits of the one-way, random and fixed-rater models."""
    items, raters = np.asarray(items, np.int64), np.asarray(raters, np.int64)
    y = np.asarray(y, dtype=np.float64)
    reason = _reml_reason(items, raters, y)
    n = int(np.count_nonzero(np.bincount(items))) if items.size else 0
    m = int(np.count_nonzero(np.bincount(raters))) if raters.size else 0
    fits: dict[MixedModel, REMLFit] = {}
    k_hat = math.nan
    if reason is None:
        design = CrossedDesign.from_codes(items, raters, y)
        k_hat = design.harmonic_raters
        fits = {model: fit_reml(design, model) for model in ("oneway", "random", "fixed")}
    else:
        warn_degenerate(reason, stacklevel=stacklevel)
    forms: list[IntraclassCorrelation] = []
    for form, alias, description in ICC_FORMS:
        fit = fits.get(_MODEL_OF[form[4]])
        k = 1.0 if form.endswith(",1)") else k_hat
        value = lr = p = math.nan
        exact = ""
        components: tuple[float, float, float] = (math.nan,) * 3
        if fit is not None:
            value = _step_up(fit.icc, k)
            lr, p = fit.lr_test()
            components = (fit.items_variance, fit.raters_variance, fit.residual_variance)
            exact = _EXACT_FIT if fit.exact else ""
            if math.isnan(fit.icc):
                exact = f"; {_UNIDENTIFIED}"
                if form == "ICC(2,1)":
                    warn_degenerate(_UNIDENTIFIED, stacklevel=stacklevel)
        how = (
            f"REML of the {_MODEL_WORDS[_MODEL_OF[form[4]]]} model"
            + (f", k = {k:.4g} (harmonic mean of raters per item)" if k != 1.0 else "")
            + "; likelihood-ratio test and profile-likelihood interval"
        )
        forms.append(
            IntraclassCorrelationREML(
                **_form_fields(form, alias, description, value, n, m, how),
                reason=reason or ICC_REML_NO_SE + exact,
                bounds=(0.0, 1.0),
                k=k,
                variance_components=components,
                lr_statistic=lr,
                lr_pvalue=p,
                fit=fit,
                interval_choice=why,
            )
        )
    return ICCResult(tuple(forms), n, m, 0, "reml", k_hat, int(y.size), why)


#: What the reason of a REML form adds when its model fits every score exactly.
_EXACT_FIT = (
    "; exact fit (no residual): the variance components are the limit of the REML fit as "
    "the residual variance goes to 0"
)

#: Why ICC(A,.) is undefined for an exact fit whose raters fall into unlinked groups.
_UNIDENTIFIED = (
    "ICC(A,.) undefined: item + rater fits every score exactly, so the REML likelihood has "
    "no maximum, and the raters fall into groups that share no item, where its limit is not "
    "computed"
)

_MODEL_WORDS: dict[MixedModel, str] = {
    "oneway": "one-way random-effects (raters in the error)",
    "random": "two-way random-effects",
    "fixed": "two-way mixed-effects (raters fixed)",
}
