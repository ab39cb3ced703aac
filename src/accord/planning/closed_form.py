"""Published closed forms for the number of items of a reliability study.

The ICC by Walter, Eliasziw & Donner (1998) for a test and Bonett (2002) for an interval;
Cohen's kappa on a binary scale by the goodness-of-fit approach of Donner & Eliasziw (1992) and
Donner & Rotondi (2010), or by Cantor's (1996) normal approximation; Krippendorff's alpha by
Krippendorff's table of required sample sizes (after Bloch & Kraemer 1989, eq. 3.7).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import optimize, stats

from .._errors import InvalidInputError
from .._types import FloatArray
from .._validate import check_choice
from .checks import (
    check_count,
    check_interval,
    check_open,
    check_test,
    check_unused,
    goal_of,
    one_sided,
)
from .results import SampleSize

__all__ = [
    "kappa_cell_probabilities",
    "sample_size_alpha",
    "sample_size_icc",
    "sample_size_kappa",
]

Sides = Literal["one-sided", "two-sided"]
KappaMethod = Literal["goodness_of_fit", "cantor"]

WALTER = (
    "Walter, Eliasziw & Donner (1998), Stat. Med. 17:101-110, eq. 6: "
    "n = 1 + 2 (z_alpha + z_beta)^2 k / ((ln C0)^2 (k - 1)), C0 = (1 + k theta0)/(1 + k theta1), "
    "theta = rho/(1 - rho); one-way ICC(1,1), k ratings per item"
)
BONETT = (
    "Bonett (2002), Stat. Med. 21:1331-1335, eq. 5: "
    "n = 8 z^2 (1 - rho)^2 (1 + (k - 1) rho)^2 / (k (k - 1) w^2) + 1; ICC(1,1)"
)
BONETT_TWO_RATERS = (
    f"{BONETT}; plus 5 rho items, Bonett's correction for two raters and rho >= 0.7 "
    "(as R presize::prec_icc)"
)
ZOU = (
    "Zou (2012), Stat. Med. 31:3972-3981: width at most w with assurance probability 1 - beta, "
    "n = 1 + 2 [z A + sqrt(z^2 A^2 + 2 w z z_beta A |k - 2 + 2 rho - 2 k rho|)]^2 "
    "/ (k (k - 1) w^2), A = (1 - rho)(1 + (k - 1) rho); ICC(1,1)"
)
DONNER_ELIASZIW = (
    "Donner & Eliasziw (1992), Stat. Med. 11:1511-1519: goodness-of-fit chi-square test of "
    "the counts of positive ratings per item under the common-correlation model "
    "(as R kappaSize::PowerBinary)"
)
ROTONDI_DONNER = (
    "Rotondi & Donner (2012), J. Clin. Epidemiol. 65:778-784: goodness-of-fit chi-square "
    "test of the raters' unanimity in each category under the Dirichlet-multinomial model "
    "(as R kappaSize::Power3Cats to Power5Cats, CI3Cats to CI5Cats)"
)
DONNER_ROTONDI = (
    "Donner & Rotondi (2010), Int. J. Biostat. 6:31: the goodness-of-fit statistic reaches "
    "its critical value at both ends of the interval (as R kappaSize::CIBinary)"
)
CANTOR = (
    "Cantor (1996), Psychol. Methods 1:150-153: normal approximation with the large-sample "
    "variance of Cohen's kappa of Fleiss, Cohen & Everitt (1969) (as R irr::N.cohen.kappa)"
)
KRIPPENDORFF = (
    "Krippendorff (2004/2013/2019), Content Analysis, ch. on reliability, table of required "
    "sample sizes (after Bloch & Kraemer 1989, eq. 3.7): "
    "N = 2 z^2 ((1 + a)(3 - a) / (4 (1 - a) P_c (1 - P_c)) - a), two coders"
)


def _grid(n: int, smallest: int = 2) -> FloatArray:
    """Numbers of items for a curve: from ``smallest`` to about twice ``n``, with ``n``."""
    top = max(2 * n, smallest + 10)
    points = np.unique(np.round(np.geomspace(smallest, top, 40)).astype(np.int64))
    return np.unique(np.append(points, n)).astype(np.float64)


def _z(probability: float) -> float:
    return float(stats.norm.ppf(probability))


def _rounded(owner: str, n: float) -> int:
    if not math.isfinite(n):
        raise InvalidInputError(f"{owner}: no finite number of items meets the goal")
    return max(math.ceil(n - 1e-9), 2)


# ------------------------------------------------------------------------------------ ICC


def sample_size_icc(
    *,
    rho0: float | None = None,
    rho1: float | None = None,
    rho: float | None = None,
    width: float | None = None,
    n_raters: int = 2,
    alpha: float = 0.05,
    power: float = 0.8,
    level: float = 0.95,
    alternative: Sides = "one-sided",
    assurance: float | None = None,
) -> SampleSize:
    r"""Items needed for an intraclass correlation: a test or an interval of given width.

    **A test** of :math:`H_0: \rho = \rho_0` against :math:`\rho = \rho_1` with *k* raters
    (Walter, Eliasziw & Donner 1998, their approximation):

    .. math::

        n = 1 + \frac{2 (z_{\alpha} + z_{\beta})^2\, k}{(\ln C_0)^2 (k - 1)}, \quad
        C_0 = \frac{1 + k\theta_0}{1 + k\theta_1}, \quad \theta = \frac{\rho}{1 - \rho}

    with :math:`z_\alpha` the one-sided (or, with ``alternative="two-sided"``, two-sided)
    normal quantile and :math:`z_\beta` that of the power.

    **An interval** of expected width *w* at confidence ``level`` (Bonett 2002):

    .. math::

        n = \frac{8 z^2 (1 - \rho)^2 (1 + (k - 1)\rho)^2}{k (k - 1) w^2} + 1

    plus :math:`5\rho` items with two raters and :math:`\rho \ge 0.7`, the correction Bonett
    recommends for that case (as R ``presize::prec_icc``), rounded up after the addition.

    **An interval no wider than** *w* **with probability** ``assurance`` :math:`= 1 - \beta`
    (Zou 2012), with :math:`A = (1 - \rho)(1 + (k - 1)\rho)`,
    :math:`B = |k - 2 + 2\rho - 2k\rho|` and :math:`z_\beta` the quantile of the assurance:

    .. math::

        n = 1 + \frac{2 \left[z A + \sqrt{z^2 A^2 + 2 w z z_\beta A B}\right]^2}
                     {k (k - 1) w^2}

    With :math:`z_\beta = 0` (assurance 0.5) it is Bonett's formula without the correction.

    Parameters
    ----------
    rho0, rho1 : float, optional
        The ICC under the null hypothesis and the one to detect, in [0, 1).
    rho, width : float, optional
        The expected ICC and the width of its interval (upper minus lower end).
    n_raters : int, default 2
        Ratings per item, *k* (at least 2).
    alpha : float, default 0.05
        Significance level of the test.
    power : float, default 0.8
        Power of the test, :math:`1 - \beta`.
    level : float, default 0.95
        Confidence level of the interval.
    alternative : {"one-sided", "two-sided"}, default "one-sided"
        The test's alternative (Walter et al. plan one-sided tests of rho <= rho0).
    assurance : float, optional
        For an interval: the probability, in (0.5, 1), that its width is at most ``width``
        (Zou 2012). By default the width is the expected one (Bonett 2002).

    Returns
    -------
    SampleSize
        ``n_items`` (rounded up), ``n_exact``, the ``curve`` of ``power`` (test) or
        ``width`` (interval) against ``n_items``, the assumptions and the method.

    Raises
    ------
    InvalidInputError
        A value out of range, or neither (or both) of the test and interval options.

    Notes
    -----
    R ``ICC.Sample.Size::calculateIccSampleSize`` computes the test's formula, written with
    :math:`1 + k\theta = (1 + (k - 1)\rho)/(1 - \rho)`.

    Both forms assume the one-way random-effects model of ICC(1,1) (items random, each rated
    by *k* exchangeable raters) with normal scores. Walter et al. derive theirs from Fisher's
    transformation; it is close to the exact F-test values of Donner & Eliasziw (1987).
    Bonett's and Zou's are large-sample formulas (Bonett's eq. 5 alone runs a few items short
    for ``rho >= 0.7`` with two raters, hence his correction); :func:`sample_size_simulated`
    checks a plan by simulation.

    References
    ----------
    Walter, S. D., Eliasziw, M. & Donner, A. (1998). Sample size and optimal designs for
    reliability studies. Stat. Med. 17:101-110.
    doi:10.1002/(SICI)1097-0258(19980115)17:1<101::AID-SIM727>3.0.CO;2-E

    Bonett, D. G. (2002). Sample size requirements for estimating intraclass correlations
    with desired precision. Stat. Med. 21:1331-1335. doi:10.1002/sim.1108

    Zou, G. Y. (2012). Sample size formulas for estimating intraclass correlation
    coefficients with precision and assurance. Stat. Med. 31:3972-3981. doi:10.1002/sim.5466

    Examples
    --------
    Two raters, to show an ICC above 0.6 when it is 0.8 (one-sided 5%, power 80%):

    >>> import accord
    >>> accord.sample_size_icc(rho0=0.6, rho1=0.8, n_raters=2).n_items
    39

    An interval of expected width 0.2 around an expected 0.8, two raters (50.8 by eq. 5,
    plus 5 x 0.8):

    >>> accord.sample_size_icc(rho=0.8, width=0.2, n_raters=2).n_items
    55

    Three raters, an interval no wider than 0.2 in 80% of studies:

    >>> accord.sample_size_icc(rho=0.8, width=0.2, n_raters=3, assurance=0.8).n_items
    48
    """
    owner = "sample_size_icc"
    k = check_count(owner, "n_raters", n_raters, 2)
    single = one_sided(owner, alternative)
    goal = goal_of(owner, rho0, rho1, rho, width)
    check_unused(
        owner, goal, {"alpha": alpha, "power": power, "level": level, "assurance": assurance}
    )
    if goal == "power":
        test = check_test(owner, rho0, rho1, alpha, power, alternative=alternative, low=-1e-12)
        return _icc_test(owner, k, test, single)
    return _icc_width(owner, k, check_interval(owner, rho, width, level, low=-1e-12), assurance)


def _icc_test(owner: str, k: int, assumptions: dict[str, Any], single: bool) -> SampleSize:
    """Walter, Eliasziw & Donner (1998): the items for a test of rho0 against rho1, its
    options checked (:func:`~accord.planning.checks.check_test`)."""
    r0, r1, a, b = (assumptions[key] for key in ("rho0", "rho1", "alpha", "power"))
    z_a = _z(1 - a) if single else _z(1 - a / 2)
    log_c0 = math.log((1 + k * r0 / (1 - r0)) / (1 + k * r1 / (1 - r1)))
    n = 1 + 2 * (z_a + _z(b)) ** 2 * k / (log_c0**2 * (k - 1))
    n_items = _rounded(owner, n)
    grid = _grid(n_items)
    reached = stats.norm.cdf(np.sqrt((grid - 1) * (k - 1) / (2 * k)) * abs(log_c0) - z_a)
    curve = pd.DataFrame({"n_items": grid.astype(np.int64), "power": reached})
    return SampleSize("icc", "power", n_items, k, n, curve, assumptions, WALTER)


def _icc_width(
    owner: str, k: int, assumptions: dict[str, Any], assurance: float | None
) -> SampleSize:
    """Bonett (2002), expected width, or Zou (2012), width with assurance; the interval's
    options checked (:func:`~accord.planning.checks.check_interval`)."""
    r, w, lev = (assumptions[key] for key in ("rho", "width", "level"))
    z = _z(1 - (1 - lev) / 2)
    spread = (1 - r) * (1 + (k - 1) * r)  # A: the ICC's large-sample SE is A / s below
    if assurance is not None:
        sure = check_open(owner, "assurance", assurance, 0.5, 1.0)
        z_b = _z(sure)
        slope = abs(k - 2 + 2 * r - 2 * k * r)  # |dA/drho|
        root = z * spread + math.sqrt((z * spread) ** 2 + 2 * w * z * z_b * spread * slope)
        n = 1 + 2 * root**2 / (k * (k - 1) * w**2)
        n_items = _rounded(owner, n)
        grid = _grid(n_items)
        s = np.sqrt((grid - 1) * k * (k - 1) / 2)
        widths = 2 * z * spread / s + 2 * z * z_b * spread * slope / s**2
        assumptions["assurance"] = sure
        method = ZOU
    else:
        added = 5 * r if k == 2 and r >= 0.7 else 0.0
        n = 8 * z**2 * spread**2 / (k * (k - 1) * w**2) + 1 + added
        n_items = _rounded(owner, n)
        grid = _grid(n_items, smallest=math.floor(added) + 2)
        widths = np.sqrt(8 * z**2 * spread**2 / (k * (k - 1) * (grid - 1 - added)))
        if added:
            assumptions["added_items"] = added
        method = BONETT_TWO_RATERS if added else BONETT
    curve = pd.DataFrame({"n_items": grid.astype(np.int64), "width": widths})
    return SampleSize("icc", "width", n_items, k, n, curve, assumptions, method)


# ---------------------------------------------------------------------------- Cohen's kappa


def kappa_cell_probabilities(
    kappa: float, prevalence: float | Sequence[float] | FloatArray, n_raters: int
) -> FloatArray:
    r"""Probabilities of the cells of the goodness-of-fit test of kappa for one item.

        **Binary scale** (``prevalence`` one number *p*, the share of positives): the
        probabilities of 0, 1, ..., *k* positive ratings under the common-correlation model
        (kappa as the intraclass correlation; with probability :math:`\kappa` every rater gives
        the item's value, else the *k* ratings are independent):

        .. math::

            P(x) = (1 - \kappa) inom{k}{x} p^x (1-p)^{k-x}
                   + \kappa \left([x = 0](1 - p) + [x = k]\,p
    ight)

        For two raters: :math:`(1-p)^2 + \kappa p(1-p)`, :math:`2p(1-p)(1-\kappa)`,
        :math:`p^2 + \kappa p(1-p)` (Donner & Eliasziw 1992).

        **Several categories** (``prevalence`` the shares :math:`p_1, \ldots, p_q`, q >= 3): the
        probabilities that the *k* raters are not unanimous, then unanimous in each category,
        under the Dirichlet-multinomial model with intraclass correlation :math:`\kappa`
        (Rotondi & Donner 2012; as R kappaSize's ``Power3Cats`` to ``Power5Cats``):

        .. math::

            P_j = p_j \prod_{i=1}^{k-1} rac{(1 - \kappa) p_j + i\kappa}{1 + (i - 1)\kappa},
            \qquad P_0 = 1 - \sum_j P_j

        With two raters both models give :math:`P_j = p_j^2 + \kappa p_j (1 - p_j)`.

        >>> kappa_cell_probabilities(0.4, 0.3, 2).round(4).tolist()
        [0.574, 0.252, 0.174]
    """
    k = n_raters
    if np.ndim(prevalence) == 0:
        p = float(prevalence)  # type: ignore[arg-type]
        x = np.arange(k + 1)
        comb = np.array([math.comb(k, int(i)) for i in x], dtype=np.float64)
        cells = (1 - kappa) * comb * p**x * (1 - p) ** (k - x)
        cells[0] += kappa * (1 - p)
        cells[-1] += kappa * p
        return np.asarray(cells, dtype=np.float64)
    shares = np.asarray(prevalence, dtype=np.float64)
    unanimous = shares.copy()
    for i in range(1, k):
        unanimous *= ((1 - kappa) * shares + i * kappa) / (1 + (i - 1) * kappa)
    return np.concatenate([[1 - unanimous.sum()], unanimous])


def _discrepancy(kappa: float, reference: float, p: float | FloatArray, k: int) -> float:
    """Sum over the cells of (P(kappa) - P(reference))^2 / P(reference): the goodness-of-fit
    statistic of one item."""
    at = kappa_cell_probabilities(kappa, p, k)
    ref = kappa_cell_probabilities(reference, p, k)
    return float(np.sum((at - ref) ** 2 / ref))


def _noncentrality(critical: float, power: float) -> float:
    """The noncentrality of a chi-square with 1 df that exceeds ``critical`` with
    probability ``power``."""

    def gap(lam: float) -> float:
        return float(stats.ncx2.sf(critical, 1, lam)) - power

    return float(optimize.brentq(gap, 1e-9, 1e4, xtol=1e-12))


def _cantor_variance(kappa: float, rate1: float, rate2: float) -> float:
    """n times the large-sample variance of Cohen's kappa on a 2 x 2 table with the raters'
    positive rates ``rate1`` and ``rate2`` (Fleiss, Cohen & Everitt 1969), as Cantor (1996)
    and R irr::N.cohen.kappa take it."""
    neg1, neg2 = 1 - rate1, 1 - rate2
    pe = rate1 * rate2 + neg1 * neg2
    po = kappa * (1 - pe) + pe
    p22 = (po - rate1 + neg2) / 2
    p11 = po - p22
    p12, p21 = rate1 - p11, rate2 - p11
    if min(p11, p22, p12, p21) < 0:
        raise InvalidInputError(
            f"sample_size_kappa: kappa = {kappa:g} is not reachable with the raters' positive "
            f"rates {rate1:g} and {rate2:g} (a cell of the 2 x 2 table would be negative)"
        )
    q = (
        p11 * (1 - pe - (rate2 + rate1) * (1 - po)) ** 2
        + p22 * (1 - pe - (neg2 + neg1) * (1 - po)) ** 2
        + (1 - po) ** 2 * (p12 * (rate2 + neg1) ** 2 + p21 * (neg2 + rate1) ** 2)
        - (po * pe - 2 * pe + po) ** 2
    )
    return float(q / (1 - pe) ** 4)


def _rates(owner: str, prevalence: Any) -> tuple[float, float]:
    """Cantor: the positive rate of each rater, one number for both or a pair."""
    if np.ndim(prevalence) == 0:
        p = check_open(owner, "prevalence", prevalence, 0.0, 1.0)
        return p, p
    values = list(np.ravel(np.asarray(prevalence, dtype=object)))
    if len(values) != 2:
        raise InvalidInputError(
            f"{owner}: with method='cantor', prevalence= is one share of positive ratings or "
            f"two (one per rater); got {len(values)} values"
        )
    return (
        check_open(owner, "prevalence", values[0], 0.0, 1.0),
        check_open(owner, "prevalence", values[1], 0.0, 1.0),
    )


def _shares(owner: str, prevalence: Any) -> float | FloatArray:
    """Goodness of fit: the share of positives (a number), or the categories' shares."""
    if np.ndim(prevalence) == 0:
        return check_open(owner, "prevalence", prevalence, 0.0, 1.0)
    shares = [check_open(owner, "prevalence", v, 0.0, 1.0) for v in np.ravel(prevalence)]
    if len(shares) < 2 or not math.isclose(sum(shares), 1.0, abs_tol=1e-6):
        raise InvalidInputError(
            f"{owner}: prevalence= is the share of positive ratings, or the categories' shares "
            f"summing to 1; got {[float(v) for v in shares]}"
        )
    return shares[0] if len(shares) == 2 else np.array(shares)


def sample_size_kappa(
    *,
    prevalence: float | Sequence[float],
    rho0: float | None = None,
    rho1: float | None = None,
    rho: float | None = None,
    width: float | None = None,
    n_raters: int = 2,
    alpha: float = 0.05,
    power: float = 0.8,
    level: float = 0.95,
    method: KappaMethod = "goodness_of_fit",
    alternative: Sides | None = None,
) -> SampleSize:
    r"""Items needed for kappa on a binary scale: a test or an interval of given width.

    ``method="goodness_of_fit"`` (default; Donner & Eliasziw 1992, any number of raters;
    several categories: Rotondi & Donner 2012): under the common-correlation model
    (:func:`kappa_cell_probabilities`) the items' counts of positive ratings (or, with
    several categories, whether the raters are unanimous and in which category) follow a
    multinomial; the chi-square goodness-of-fit test of
    :math:`\kappa_0` has, under :math:`\kappa_1`, the noncentrality
    :math:`\lambda = n \sum_x (P_x(\kappa_1) - P_x(\kappa_0))^2 / P_x(\kappa_0)`, so

    .. math::

        n = \frac{\lambda_{1}(\alpha, 1-\beta)}
                 {\sum_x (P_x(\kappa_1) - P_x(\kappa_0))^2 / P_x(\kappa_0)}

    with :math:`\lambda_1(\alpha, 1-\beta)` the noncentrality at which a chi-square with
    one degree of freedom exceeds its :math:`1-\alpha` quantile with probability
    :math:`1-\beta`. For an interval (Donner & Rotondi 2010) *n* is the smallest with which
    the statistic of :math:`\rho` against each end :math:`\rho \pm w/2` reaches the
    chi-square quantile at ``level``: each end of the interval is expected within
    ``width / 2`` of :math:`\rho`, so the interval is at most ``width`` wide (the curve gives
    the expected ``lower`` and ``upper`` ends).

    ``method="cantor"`` (two raters; Cantor 1996): the normal approximation with the
    large-sample variance :math:`Q/n` of Cohen's kappa (Fleiss, Cohen & Everitt 1969),
    :math:`n = ((z_\alpha \sqrt{Q_0} + z_\beta \sqrt{Q_1}) / (\kappa_1 - \kappa_0))^2`,
    and for an interval :math:`n = 4 z^2 Q / w^2`.

    Parameters
    ----------
    prevalence : float or sequence of float
        Share of positive ratings, strictly between 0 and 1. With
        ``method="goodness_of_fit"`` a sequence is the categories' shares, summing to 1
        (three or more: the several-category test of :func:`kappa_cell_probabilities`, as R
        kappaSize's ``Power3Cats`` to ``Power5Cats`` and ``CI3Cats`` to ``CI5Cats``); with
        ``method="cantor"`` a pair is the two raters' positive rates.
    rho0, rho1 : float, optional
        Kappa under the null hypothesis and the kappa to detect (goodness of fit: in (0, 1)).
    rho, width : float, optional
        The expected kappa and the width of its interval.
    n_raters : int, default 2
        Raters per item (``method="cantor"``: 2).
    alpha, power, level : float
        Significance level, power, confidence level.
    method : {"goodness_of_fit", "cantor"}, default "goodness_of_fit"
    alternative : {"one-sided", "two-sided"}, optional
        The goodness-of-fit test is two-sided (a one-sided test at ``alpha`` uses the
        chi-square quantile at ``1 - 2 alpha``, as kappaSize's one-sided interval does);
        Cantor's is one-sided by default, as in irr.

    Returns
    -------
    SampleSize

    Raises
    ------
    InvalidInputError
        A value out of range, a kappa the prevalences cannot reach, or neither (or both) of
        the test and interval options.

    Notes
    -----
    Which convention: R ``kappaSize::PowerBinary`` and ``kappaSize::CIBinary`` use the
    goodness-of-fit approach (one prevalence for all raters, the intraclass kappa, two to
    six raters); R ``irr::N.cohen.kappa`` uses Cantor's formula (Cohen's kappa, a positive
    rate per rater, one-sided by default). The two give different numbers for the same
    question; say which one a plan used. The goodness-of-fit approach assumes kappa in
    (0, 1).

    References
    ----------
    Donner, A. & Eliasziw, M. (1992). A goodness-of-fit approach to inference procedures for
    the kappa statistic: confidence interval construction, significance-testing and sample
    size estimation. Stat. Med. 11:1511-1519. doi:10.1002/sim.4780111109

    Donner, A. & Rotondi, M. A. (2010). Sample size requirements for interval estimation of
    the kappa statistic for interobserver agreement studies with a binary outcome and
    multiple raters. Int. J. Biostat. 6(1):31. doi:10.2202/1557-4679.1275

    Rotondi, M. A. & Donner, A. (2012). A confidence interval approach to sample size
    estimation for interobserver agreement studies with multiple raters and outcomes.
    J. Clin. Epidemiol. 65:778-784. doi:10.1016/j.jclinepi.2011.10.019

    Cantor, A. B. (1996). Sample-size calculations for Cohen's kappa. Psychol. Methods
    1(2):150-153. doi:10.1037/1082-989X.1.2.150

    Examples
    --------
    The example of R irr, ``N.cohen.kappa(0.5, 0.5, 0.7, 0.85)``: its arguments are the
    true kappa ``k1 = 0.7`` and the null ``k0 = 0.85``, both raters 50% positive, one-sided
    5%:

    >>> import accord
    >>> accord.sample_size_kappa(rho0=0.85, rho1=0.7, prevalence=0.5, method="cantor").n_items
    96

    The example of R kappaSize: 0.4 against 0.6 with a prevalence of 0.3, two raters:

    >>> accord.sample_size_kappa(rho0=0.4, rho1=0.6, prevalence=0.3).n_items
    191
    """
    owner = "sample_size_kappa"
    check_choice("method", method, ("goodness_of_fit", "cantor"), owner)
    k = check_count(owner, "n_raters", n_raters, 2)
    if method == "cantor" and k != 2:
        raise InvalidInputError(
            f"{owner}: method='cantor' is for two raters; n_raters={n_raters} needs "
            "method='goodness_of_fit'"
        )
    if method == "cantor":
        rate1, rate2 = _rates(owner, prevalence)
        shown: Any = rate1 if rate1 == rate2 else (rate1, rate2)
    else:
        shares = _shares(owner, prevalence)
        shown = shares if np.ndim(shares) == 0 else [float(v) for v in np.ravel(shares)]
    if alternative is None:
        alternative = "two-sided" if method == "goodness_of_fit" else "one-sided"
    single = one_sided(owner, alternative)
    assumptions: dict[str, Any] = {
        "prevalence": shown,
        "method": method,
    }
    goal = goal_of(owner, rho0, rho1, rho, width)
    check_unused(owner, goal, {"alpha": alpha, "power": power, "level": level})
    # kappa in (0, 1) for the goodness-of-fit model (as kappaSize); in [-1, 1) for Cantor's
    low = 0.0 if method == "goodness_of_fit" else -1.0 - 1e-12
    if goal == "power":
        high = 0.5 if single else 1.0
        test = check_test(
            owner, rho0, rho1, alpha, power, alternative=alternative, low=low, alpha_high=high
        )
        assumptions |= test
        r0, r1, a, b = (test[key] for key in ("rho0", "rho1", "alpha", "power"))
        if method == "cantor":
            return _cantor_test(r0, r1, rate1, rate2, a, b, single, assumptions)
        return _fit_test(r0, r1, shares, k, a, b, single, assumptions)
    interval = check_interval(owner, rho, width, level, low=low)
    assumptions |= interval
    r, w, lev = (interval[key] for key in ("rho", "width", "level"))
    if method == "cantor":
        return _cantor_width(r, w, rate1, rate2, lev, assumptions)
    return _fit_width(r, w, shares, k, lev, assumptions)


def _fit_test(
    r0: float,
    r1: float,
    p: float | FloatArray,
    k: int,
    a: float,
    b: float,
    single: bool,
    assumptions: Any,
) -> SampleSize:
    critical = float(stats.chi2.ppf(1 - (2 * a if single else a), 1))
    per_item = _discrepancy(r1, r0, p, k)
    n = _noncentrality(critical, b) / per_item
    n_items = _rounded("sample_size_kappa", n)
    grid = _grid(n_items)
    reached = stats.ncx2.sf(critical, 1, grid * per_item)
    curve = pd.DataFrame({"n_items": grid.astype(np.int64), "power": reached})
    method = DONNER_ELIASZIW if np.ndim(p) == 0 else ROTONDI_DONNER
    return SampleSize("kappa", "power", n_items, k, n, curve, assumptions, method)


def _half_width(
    rho: float, p: float | FloatArray, k: int, n: float, critical: float, upper: bool
) -> float:
    """Distance from ``rho`` to the kappa at which n times the goodness-of-fit statistic
    reaches ``critical`` (NaN when none in (0, 1))."""
    end = 1 - 1e-9 if upper else 1e-9

    def gap(kappa: float) -> float:
        return n * _discrepancy(rho, kappa, p, k) - critical

    if gap(end) < 0:
        return math.nan
    return abs(float(optimize.brentq(gap, rho, end, xtol=1e-10)) - rho)


def _fit_width(
    r: float, w: float, p: float | FloatArray, k: int, lev: float, assumptions: Any
) -> SampleSize:
    owner = "sample_size_kappa"
    low, high = r - w / 2, r + w / 2
    if low <= 0 or high >= 1:
        raise InvalidInputError(
            f"{owner}: the interval rho +- width/2 = [{low:g}, {high:g}] must lie inside (0, 1) "
            "for method='goodness_of_fit'"
        )
    critical = float(stats.chi2.ppf(lev, 1))
    per_item = min(_discrepancy(r, low, p, k), _discrepancy(r, high, p, k))
    n = critical / per_item
    n_items = _rounded(owner, n)
    grid = _grid(n_items)
    below = np.array([_half_width(r, p, k, m, critical, False) for m in grid])
    above = np.array([_half_width(r, p, k, m, critical, True) for m in grid])
    curve = pd.DataFrame(
        {
            "n_items": grid.astype(np.int64),
            "lower": r - below,
            "upper": r + above,
            "width": below + above,
        }
    )
    method = DONNER_ROTONDI if np.ndim(p) == 0 else ROTONDI_DONNER
    return SampleSize("kappa", "width", n_items, k, n, curve, assumptions, method)


def _cantor_test(
    r0: float,
    r1: float,
    rate1: float,
    rate2: float,
    a: float,
    b: float,
    single: bool,
    assumptions: Any,
) -> SampleSize:
    z_a = _z(1 - a) if single else _z(1 - a / 2)
    q0, q1 = _cantor_variance(r0, rate1, rate2), _cantor_variance(r1, rate1, rate2)
    n = ((z_a * math.sqrt(q0) + _z(b) * math.sqrt(q1)) / (r1 - r0)) ** 2
    n_items = _rounded("sample_size_kappa", n)
    grid = _grid(n_items)
    reached = stats.norm.cdf((np.sqrt(grid) * abs(r1 - r0) - z_a * math.sqrt(q0)) / math.sqrt(q1))
    curve = pd.DataFrame({"n_items": grid.astype(np.int64), "power": reached})
    return SampleSize("cohen_kappa", "power", n_items, 2, n, curve, assumptions, CANTOR)


def _cantor_width(
    r: float, w: float, rate1: float, rate2: float, lev: float, assumptions: Any
) -> SampleSize:
    z = _z(1 - (1 - lev) / 2)
    q = _cantor_variance(r, rate1, rate2)
    n = 4 * z**2 * q / w**2
    n_items = _rounded("sample_size_kappa", n)
    grid = _grid(n_items)
    curve = pd.DataFrame({"n_items": grid.astype(np.int64), "width": 2 * z * np.sqrt(q / grid)})
    return SampleSize("cohen_kappa", "width", n_items, 2, n, curve, assumptions, CANTOR)


# ---------------------------------------------------------------------- Krippendorff's alpha


def sample_size_alpha(*, alpha_min: float, p_c: float, significance: float = 0.05) -> SampleSize:
    r"""Values (codings) two coders need for Krippendorff's alpha to exceed its smallest
    acceptable value: Krippendorff's table of required sample sizes.

    .. math::

        N = 2 z^2 \left(\frac{(1 + \alpha_{min})(3 - \alpha_{min})}
                              {4 (1 - \alpha_{min}) P_c (1 - P_c)} - \alpha_{min}\right)

    with *z* the one-sided normal quantile of the ``significance`` level and
    :math:`P_c` the probability of the least frequent category (``1/q`` for *q* equally
    frequent categories).

    Parameters
    ----------
    alpha_min : float
        The smallest acceptable alpha, in (0, 1) (Krippendorff: 0.667 for tentative
        conclusions, 0.800 for most).
    p_c : float
        Probability of the least frequent category, in (0, 0.5].
    significance : float, default 0.05
        The level of significance *p* of the table (one-sided).

    Returns
    -------
    SampleSize
        ``n_values`` (the table's *N*, rounded up), ``n_items`` (``n_values / 2``,
        rounded up: two coders), ``n_raters`` 2, and a ``curve`` of the smallest
        ``significance`` reached with each number of items.

    Raises
    ------
    InvalidInputError
        A value out of range.

    Notes
    -----
    The formula is for two coders and a nominal scale; Krippendorff derives it from Bloch &
    Kraemer's (1989) variance of the intraclass kappa. For more coders, or another level
    of measurement, :func:`sample_size_simulated` runs accord's own Krippendorff's alpha on
    simulated studies.

    References
    ----------
    Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology, 2nd ed.,
    Sage, sec. 11.4.4 (3rd ed. 2013, 4th ed. 2019: ch. 12), table of required sample sizes.

    Bloch, D. A. & Kraemer, H. C. (1989). 2 x 2 kappa coefficients: measures of agreement
    or association. Biometrics 45:269-287. doi:10.2307/2532052

    Examples
    --------
    Four equally frequent categories (P_c = 0.25), alpha_min = 0.800, p = 0.05:

    >>> import accord
    >>> plan = accord.sample_size_alpha(alpha_min=0.8, p_c=0.25)
    >>> plan.n_values, plan.n_items
    (139, 70)
    """
    owner = "sample_size_alpha"
    a = check_open(owner, "alpha_min", alpha_min, 0.0, 1.0)
    pc = check_open(owner, "p_c", p_c, 0.0, 0.5 + 1e-12)
    sig = check_open(owner, "significance", significance, 0.0, 0.5)
    bracket = (1 + a) * (3 - a) / (4 * (1 - a) * pc * (1 - pc)) - a
    n_values_exact = 2 * _z(1 - sig) ** 2 * bracket
    n_values = _rounded(owner, n_values_exact)
    n_items = math.ceil(n_values / 2)
    grid = _grid(n_items)
    reached = stats.norm.sf(np.sqrt(grid / bracket))
    curve = pd.DataFrame({"n_items": grid.astype(np.int64), "significance": reached})
    assumptions = {"alpha_min": a, "p_c": pc, "significance": sig}
    return SampleSize(
        "krippendorff_alpha",
        "significance",
        n_items,
        2,
        n_values_exact / 2,
        curve,
        assumptions,
        KRIPPENDORFF,
        n_values=n_values,
    )
