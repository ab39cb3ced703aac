"""Method-comparison regressions of raters' numeric scores: each rater against a reference,
or every pair of raters, by Passing-Bablok or Deming regression."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, Literal, Never, get_args

import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, bad_parameter
from .._results import Result
from .._validate import check_choice
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ._input import pairs_of_ratings
from .deming import Deming, deming
from .passing_bablok import PassingBablok, passing_bablok

__all__ = [
    "REGRESSIONS",
    "Regression",
    "RegressionComparison",
    "RegressionMethod",
    "method_regression",
]

RegressionMethod = Literal["passing-bablok", "deming"]
REGRESSIONS: tuple[str, ...] = get_args(RegressionMethod)


@dataclasses.dataclass(frozen=True, slots=True)
class Regression:
    """The method-comparison regression and its option, as one value.

    :func:`accord.report` takes it as ``regression=`` (a method name alone is
    ``Regression(method)``); checked when made.

    Parameters
    ----------
    method : {"passing-bablok", "deming"}, default "passing-bablok"
        :func:`accord.passing_bablok` or :func:`accord.deming`.
    error_ratio : float, default 1.0
        Deming's ratio of the error variances (x to y), a positive number; Passing-Bablok
        takes none (any other value than 1 is refused with it).

    Examples
    --------
    >>> import accord
    >>> accord.Regression("deming", error_ratio=2.0)
    Regression(method='deming', error_ratio=2.0)
    >>> accord.Regression(error_ratio=2.0)
    Traceback (most recent call last):
    ...
    accord._errors.InvalidInputError: error_ratio=2.0 is Deming's ratio of the error variances: give Regression('deming', error_ratio=2.0)
    """  # noqa: E501

    method: str = "passing-bablok"
    error_ratio: float = 1.0

    def __post_init__(self) -> None:
        owner = "accord.Regression"
        check_choice("method", self.method, REGRESSIONS, owner)
        ratio = self.error_ratio
        ok = isinstance(ratio, int | float) and not isinstance(ratio, bool)
        if not (ok and 0.0 < float(ratio) < math.inf):
            raise InvalidInputError(bad_parameter(owner, "error_ratio", "a positive number",
                                                  ratio))  # fmt: skip
        if self.method == "passing-bablok" and float(ratio) != 1.0:
            raise InvalidInputError(
                f"error_ratio={ratio!r} is Deming's ratio of the error variances: give "
                f"Regression('deming', error_ratio={ratio!r})"
            )
        object.__setattr__(self, "error_ratio", float(ratio))


#: The columns of :meth:`RegressionComparison.table`.
_KEYS = ("first", "second", "n_pairs", "intercept", "intercept_ci_low", "intercept_ci_high",
         "slope", "slope_ci_low", "slope_ci_high")  # fmt: skip


@dataclasses.dataclass(frozen=True, slots=True)
class RegressionComparison(Result):
    """Regressions of raters' scores pair by pair, or each rater on a reference.

    Attributes
    ----------
    fits : tuple of PassingBablok or Deming
        One fit per pair: its ``first`` is ``x`` (the reference, or the second rater of
        the pair), its ``second`` is ``y``.
    method : {"passing-bablok", "deming"}
    reference : str or None
    """

    fits: tuple[PassingBablok | Deming, ...]
    method: str
    reference: str | None = None

    def __str__(self) -> str:
        against = f"on {self.reference}" if self.reference else "pair by pair"
        n = len(self.fits)
        return f"{self.method} regression of {n} pair{'s' if n != 1 else ''} of raters, {against}"

    def table(self) -> pd.DataFrame:
        """One row per pair: n, intercept and slope with their intervals (and the Cusum
        test of linearity for Passing-Bablok)."""
        rows = []
        for fit in self.fits:
            d = fit.to_dict()
            row = {k: d[k] for k in _KEYS}
            if isinstance(fit, PassingBablok):
                row.update(cusum_statistic=fit.cusum_statistic, cusum_pvalue=fit.cusum_pvalue)
            rows.append(row)
        return pd.DataFrame(rows)

    def to_frame(self) -> pd.DataFrame:
        """:meth:`table`."""
        return self.table()

    def to_dict(self) -> dict[str, Any]:
        """Plain dict: the method, the reference and each fit."""
        return {
            "method": self.method,
            "reference": self.reference,
            "fits": [fit.to_dict() for fit in self.fits],
        }


def method_regression(
    ratings: Ratings,
    *,
    method: RegressionMethod = "passing-bablok",
    reference: Any | None = None,
    error_ratio: float | str = 1.0,
    weighted: bool = False,
    subject: Mapping[Any, Any] | npt.ArrayLike | None = None,
    confidence_level: float = 0.95,
    **read_options: Never,
) -> RegressionComparison:
    """Passing-Bablok (:func:`~accord.passing_bablok`) or Deming (:func:`~accord.deming`)
    regression of each rater's scores on ``reference``'s, or of every pair of raters (the
    first in ``ratings.raters`` on the second), on the items both scored.

    ``error_ratio``, ``weighted`` and ``subject`` are Deming's options: ``subject`` (a
    mapping of item to subject, or one id per item in the order of ``ratings.items``) says
    which items are replicates of one subject; the line is fitted to the subjects' means
    and ``error_ratio="replicates"`` estimates the ratio from the replicates.

    References
    ----------
    .. [1] Passing, H., & Bablok, W. (1983). A new biometrical procedure for testing the equality
       of measurements from two different analytical methods. Journal of Clinical Chemistry and
       Clinical Biochemistry, 21(11), 709-720. https://doi.org/10.1515/cclm.1983.21.11.709
    .. [2] Linnet, K. (1990). Estimation of the linear relationship between the measurements of two
       methods with proportional errors. Statistics in Medicine, 9(12), 1463-1473.
       https://doi.org/10.1002/sim.4780091210

    Examples
    --------
    >>> import accord
    >>> fits = accord.method_regression(accord.datasets.load_pefr(), reference="mini-Wright")
    >>> fits.fits[0].first, fits.fits[0].second, fits.fits[0].n_pairs
    ('mini-Wright', 'Wright', 17)
    """
    refuse_read_options("method_regression", read_options)
    check_choice("method", method, REGRESSIONS, "method_regression")
    if not isinstance(ratings, Ratings):
        raise InvalidInputError(
            f"method_regression takes ratings; got {type(ratings).__name__} (for two arrays "
            "call passing_bablok or deming)"
        )
    if subject is not None and method != "deming":
        raise InvalidInputError(
            "method_regression: subject= (replicates of a subject) is an option of "
            "method='deming'; Passing-Bablok takes one pair per subject"
        )
    fits: list[PassingBablok | Deming] = []
    for pair in pairs_of_ratings(ratings, reference, subject, "method_regression"):
        names = (pair.second, pair.first)
        if method == "passing-bablok":
            fits.append(passing_bablok(pair.y, pair.x, confidence_level=confidence_level,
                                       names=names))  # fmt: skip
        else:
            fits.append(deming(pair.y, pair.x, error_ratio=error_ratio, weighted=weighted,
                               subject=pair.subject, confidence_level=confidence_level,
                               names=names))  # fmt: skip
    return RegressionComparison(tuple(fits), method, None if reference is None else str(reference))
