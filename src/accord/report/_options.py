"""The report's options objects: :class:`~accord.Inference`, :class:`~accord.Judge` and
:class:`~accord.Regression`, from what :func:`accord.report` was given, with the keywords
they replaced (deprecated for one release, :func:`accord._deprecated.moved_keywords`)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .._deprecated import moved_keywords
from .._errors import InvalidInputError, bad_parameter
from .._validate import check_choice
from ..agreement.inference import Inference
from ..judges.judge import Judge
from ..measurements.regression import REGRESSIONS, Regression

__all__ = ["DEFAULT_INFERENCE", "INFERENCE_FIELDS", "ReportOptions", "report_options"]

#: The report's inference when none is given: Inference's defaults, seeded with 0 so that
#: the same input gives the same page.
DEFAULT_INFERENCE = Inference(seed=0)

INFERENCE_FIELDS = ("confidence_level", "n_boot", "seed", "se", "rater_population_size",
                    "test_value", "alternative")  # fmt: skip
MOVED_TO_INFERENCE = {name: name for name in INFERENCE_FIELDS}
MOVED_TO_JUDGE = {name: name for name in ("humans", "epsilon", "pairwise", "time", "window")}
MOVED_TO_REGRESSION = {"error_ratio": "error_ratio"}

#: The stack level of a deprecation warning: moved_keywords, _moved, _inference (_judge,
#: _regression), report_options, report, the user's call.
STACKLEVEL = 6


@dataclasses.dataclass(frozen=True, slots=True)
class ReportOptions:
    """The options objects of one report, checked.

    Attributes
    ----------
    inference : Inference
        The agreement table's inference and every interval's level, the bootstrap's
        replicates and seed (an integer).
    judge : Judge or None
        The judge asked about and the options of its sections.
    regression : Regression
        The method-comparison section's regression.
    """

    inference: Inference
    judge: Judge | None
    regression: Regression


def report_options(
    judge: Any, inference: Any, regression: Any, options: dict[str, Any]
) -> ReportOptions:
    """The report's options objects from its ``judge``, ``inference`` and ``regression``
    arguments and the deprecated keywords among ``options`` (taken out of it).

    >>> import warnings
    >>> opts = {"epsilon": 0.2, "item": "i"}
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     out = report_options("llm", None, "deming", opts)
    >>> out.judge, opts
    (Judge(rater='llm', epsilon=0.2), {'item': 'i'})
    >>> str(caught[0].message)
    "report(epsilon=...) is deprecated: pass judge=accord.Judge(rater='llm', epsilon=0.2)"
    """
    return ReportOptions(
        inference=_inference(inference, options),
        judge=_judge(judge, options),
        regression=_regression(regression, options),
    )


def _moved(options: dict[str, Any], given: Any, moved: dict[str, str], make: Any,
           new_form: str, known: dict[str, Any] | None = None) -> Any:  # fmt: skip
    """:func:`moved_keywords` for :func:`report`."""
    return moved_keywords("report", options, given, moved, make, new_form,
                          stacklevel=STACKLEVEL, known=known)  # fmt: skip


def _inference(inference: Any, options: dict[str, Any]) -> Inference:
    """The report's Inference (a seed of None is the report's seed 0), checked; the
    agreement-only ``ci`` and ``population_size`` are refused."""
    if inference is not None and not isinstance(inference, Inference):
        raise InvalidInputError(
            f"report: inference must be an accord.Inference, not {type(inference).__name__}"
        )
    out = _moved(options, inference, MOVED_TO_INFERENCE, Inference, "inference=accord.Inference")
    out = DEFAULT_INFERENCE if out is None else out
    if out.seed is None:
        out = dataclasses.replace(out, seed=0)
    out.check("report")
    for name, default in (("ci", "analytic"), ("population_size", None)):
        if getattr(out, name) != default:
            raise InvalidInputError(
                f"report: Inference({name}={getattr(out, name)!r}) is an option of "
                "accord.agreement, which the report does not take; leave it out"
            )
    seed = out.seed
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        need = "an integer (the page states the seed of its bootstraps)"
        raise InvalidInputError(bad_parameter("report", "seed", need, seed))
    return out


def _judge(judge: Any, options: dict[str, Any]) -> Judge | None:
    """The report's Judge: as given, or made of a rater id and the deprecated keywords."""
    if isinstance(judge, Judge):
        return _moved(options, judge, MOVED_TO_JUDGE, Judge, "judge=accord.Judge")  # type: ignore[no-any-return]
    made = _moved(options, None, MOVED_TO_JUDGE, Judge, "judge=accord.Judge",
                  known={"rater": judge})  # fmt: skip
    if made is None and judge is not None:
        return Judge(judge)
    return made  # type: ignore[no-any-return]


def _regression(regression: Any, options: dict[str, Any]) -> Regression:
    """The report's Regression: as given, or made of a method name (and the deprecated
    ``error_ratio``)."""
    if isinstance(regression, Regression):
        return _moved(options, regression, MOVED_TO_REGRESSION, Regression,  # type: ignore[no-any-return]
                      "regression=accord.Regression")  # fmt: skip
    if not isinstance(regression, str):
        need = "'passing-bablok', 'deming' or an accord.Regression"
        raise InvalidInputError(bad_parameter("report", "regression", need, regression))
    check_choice("regression", regression, REGRESSIONS, "report")
    made = _moved(options, None, MOVED_TO_REGRESSION, Regression,
                  "regression=accord.Regression", known={"method": regression})  # fmt: skip
    return Regression(regression) if made is None else made
