"""Plan a study by simulating it: studies of each size drawn from an assumed model and run
through accord's own estimators (and the judge test)."""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError
from .._types import FloatArray, IntArray, as_generator
from .._validate import check_choice
from ..agreement import cohen_kappa, fleiss_kappa, icc, krippendorff_alpha
from ..data.ratings import Ratings
from ..judges import alt_test
from .checks import Progress, check_count, check_open, check_progress, check_unused
from .results import SimulatedSampleSize

__all__ = ["SIMULATED_COEFFICIENTS", "sample_size_simulated"]

SimulatedCoefficient = Literal[
    "fleiss_kappa", "krippendorff_alpha", "cohen_kappa", "icc", "alt_test"
]
SIMULATED_COEFFICIENTS: tuple[str, ...] = (
    "fleiss_kappa",
    "krippendorff_alpha",
    "cohen_kappa",
    "icc",
    "alt_test",
)

#: Numbers of items tried when none are given.
DEFAULT_GRID = (10, 15, 20, 30, 40, 50, 75, 100, 150, 200, 300, 500, 750, 1000)


@dataclasses.dataclass(frozen=True, slots=True)
class _Model:
    """The assumed data-generating model of one study."""

    coefficient: str
    n_raters: int
    prevalence: FloatArray  # shape (q,)
    rho: float | None  # common-correlation kappa, or the ICC
    confusion: FloatArray | None  # shape (n_raters [+ judge], q, q): rows the true category
    judge: FloatArray | None  # the judge's confusion, shape (q, q)


@dataclasses.dataclass(frozen=True, slots=True)
class _Goal:
    kind: str  # "power" or "width"
    rho0: float | None
    width: float | None
    alpha: float
    power: float
    level: float
    epsilon: float


def _labels(gen: np.random.Generator, n: int, model: _Model) -> IntArray:
    """Labels of shape (n, raters [+ judge]) drawn from the model."""
    q = model.prevalence.size
    truth = gen.choice(q, size=n, p=model.prevalence)
    if model.rho is not None:
        together = gen.random(n) < model.rho
        own = gen.choice(q, size=(n, model.n_raters), p=model.prevalence)
        return np.where(together[:, None], truth[:, None], own).astype(np.int64)
    matrices = np.asarray(model.confusion)  # set whenever rho is None
    if model.judge is not None:
        matrices = np.concatenate([matrices, model.judge[None]], axis=0)
    u = gen.random((n, matrices.shape[0]))
    cumulative = np.cumsum(matrices[:, truth, :], axis=2)  # (raters, n, q)
    drawn = (u.T[:, :, None] > cumulative).sum(axis=2).T  # a row summing to 1 - 1e-16: q - 1
    return np.asarray(np.minimum(drawn, q - 1), dtype=np.int64)


def _counts(labels: IntArray, q: int) -> FloatArray:
    rows = np.repeat(np.arange(labels.shape[0]), labels.shape[1])
    out = np.zeros((labels.shape[0], q))
    np.add.at(out, (rows, labels.ravel()), 1.0)
    return out


def _estimate(gen: np.random.Generator, n: int, model: _Model, goal: _Goal) -> tuple[float, ...]:
    """(estimate, interval width, rejected) of one simulated study of ``n`` items."""
    q = model.prevalence.size
    if model.coefficient == "icc":
        rho = float(model.rho or 0.0)
        scores = math.sqrt(rho) * gen.standard_normal((n, 1)) + math.sqrt(
            1 - rho
        ) * gen.standard_normal((n, model.n_raters))
        result: Any = icc(scores)["ICC(1,1)"]
    else:
        labels = _labels(gen, n, model)
        if model.coefficient == "alt_test":
            ratings = Ratings.from_wide(labels)
            test: Any = alt_test(ratings, model.n_raters, epsilon=goal.epsilon)
            return (test.advantage_probability, math.nan, float(test.passed))
        if model.coefficient == "cohen_kappa":
            table = np.zeros((q, q))
            np.add.at(table, (labels[:, 0], labels[:, 1]), 1.0)
            result = cohen_kappa(table)
        elif model.coefficient == "fleiss_kappa":
            result = fleiss_kappa(_counts(labels, q))
        else:
            result = krippendorff_alpha(_counts(labels, q))
    ci = result.confidence_interval(goal.level)
    rejected = math.nan
    if goal.kind == "power":
        low = result.confidence_interval(1 - 2 * goal.alpha).low
        rejected = float(low > float(goal.rho0 or 0.0)) if math.isfinite(low) else 0.0
    return (float(result.statistic), float(ci.high - ci.low), rejected)


def _row(n: int, draws: FloatArray, goal: _Goal) -> dict[str, Any]:
    defined = np.isfinite(draws[:, 0])
    power = float(np.nanmean(draws[:, 2])) if goal.kind == "power" else math.nan
    width = float(np.nanmean(draws[defined, 1])) if defined.any() else math.nan
    if goal.kind == "power":
        meets = power >= goal.power
    else:
        meets = math.isfinite(width) and width <= float(goal.width or 0.0)
    m = draws.shape[0]
    return {
        "n_items": n,
        "mean_estimate": float(np.mean(draws[defined, 0])) if defined.any() else math.nan,
        "mean_width": width,
        "power": power,
        "power_se": math.sqrt(power * (1 - power) / m) if math.isfinite(power) else math.nan,
        "n_defined": int(defined.sum()),
        "meets_goal": bool(meets),
    }


def _confusion(owner: str, value: Any, q: int, n_matrices: int) -> FloatArray:
    """A (q, q) row-stochastic matrix, or one per rater, as shape (n_matrices, q, q)."""
    m = np.asarray(value, dtype=np.float64)
    if m.ndim == 2:
        m = np.broadcast_to(m, (n_matrices, *m.shape))
    if m.ndim != 3 or m.shape[1:] != (q, q) or m.shape[0] != n_matrices:
        raise InvalidInputError(
            f"{owner}: confusion= must be a {q} x {q} matrix (rows: the true category) or one "
            f"per rater ({n_matrices} x {q} x {q}); got shape {np.shape(value)}"
        )
    if np.any(m < 0) or not np.allclose(m.sum(axis=2), 1.0):
        raise InvalidInputError(
            f"{owner}: every row of confusion= must hold probabilities summing to 1"
        )
    return np.array(m)


def _accuracy_matrix(owner: str, keyword: str, value: Any, q: int, count: int) -> FloatArray:
    """Per-rater confusion matrices: the true category with probability ``value``, else one
    of the other categories at random."""
    acc = np.broadcast_to(np.asarray(value, dtype=np.float64), (count,)).copy()
    for a in acc:
        check_open(owner, keyword, a, -1e-12, 1.0 + 1e-12)
    off = (1 - acc) / max(q - 1, 1)
    eye = np.eye(q)[None]
    return np.asarray(acc[:, None, None] * eye + off[:, None, None] * (1 - eye))


def _prevalences(owner: str, prevalence: Any) -> FloatArray:
    if prevalence is None:
        raise InvalidInputError(f"{owner}: prevalence= (the categories' shares) is needed")
    p = np.atleast_1d(np.asarray(prevalence, dtype=np.float64))
    if p.size == 1:
        check_open(owner, "prevalence", float(p[0]), 0.0, 1.0)
        p = np.array([1 - p[0], p[0]])
    if p.ndim != 1 or np.any(p <= 0) or not math.isclose(float(p.sum()), 1.0, abs_tol=1e-9):
        raise InvalidInputError(
            f"{owner}: prevalence= must be positive shares summing to 1 (or one share of "
            f"positives); got {np.asarray(prevalence).tolist()}"
        )
    return p


#: Options that apply only to some coefficients: given for another, they are an error.
_ONLY_FOR = {
    "prevalence": ("fleiss_kappa", "krippendorff_alpha", "cohen_kappa", "alt_test"),
    "accuracy": ("fleiss_kappa", "krippendorff_alpha", "cohen_kappa", "alt_test"),
    "confusion": ("fleiss_kappa", "krippendorff_alpha", "cohen_kappa", "alt_test"),
    "judge_accuracy": ("alt_test",),
    "epsilon": ("alt_test",),
}


def _check_applies(owner: str, coefficient: str, options: dict[str, Any]) -> None:
    """An option given for a coefficient it does not apply to is an error, never ignored."""
    for name, coefficients in _ONLY_FOR.items():
        if options[name] is not None and coefficient not in coefficients:
            raise InvalidInputError(
                f"{owner}: {name}= applies to {', '.join(coefficients)}, not {coefficient}"
            )


def _model(owner: str, coefficient: str, options: dict[str, Any]) -> _Model:
    """The data-generating model from the user's options, checked."""
    _check_applies(owner, coefficient, options)
    k = check_count(owner, "n_raters", options["n_raters"], 2)
    if coefficient == "cohen_kappa" and k != 2:
        raise InvalidInputError(f"{owner}: cohen_kappa is for n_raters=2; got {k}")
    rho, accuracy, confusion = options["rho"], options["accuracy"], options["confusion"]
    if coefficient == "icc":
        if rho is None:
            raise InvalidInputError(f"{owner}: the ICC model needs rho= (the assumed ICC)")
        r = check_open(owner, "rho", rho, -1e-12, 1.0)
        return _Model(coefficient, k, np.ones(1), r, None, None)
    p = _prevalences(owner, options["prevalence"])
    given = [name for name in ("rho", "accuracy", "confusion") if options[name] is not None]
    if coefficient == "alt_test" and "rho" in given:
        raise InvalidInputError(f"{owner}: alt_test takes accuracy= or confusion=, not rho=")
    if len(given) != 1:
        raise InvalidInputError(
            f"{owner}: give one rater model: rho= (the kappa of the common-correlation "
            "model), accuracy= or confusion=" + (f"; got {', '.join(given)}" if given else "")
        )
    judge = None
    if coefficient == "alt_test":
        if options["judge_accuracy"] is None:
            raise InvalidInputError(f"{owner}: alt_test needs judge_accuracy=")
        judge = _accuracy_matrix(owner, "judge_accuracy", options["judge_accuracy"], p.size, 1)[0]
    if rho is not None:
        return _Model(coefficient, k, p, check_open(owner, "rho", rho, 0.0, 1.0), None, judge)
    if accuracy is not None:
        matrices = _accuracy_matrix(owner, "accuracy", accuracy, p.size, k)
    else:
        matrices = _confusion(owner, confusion, p.size, k)
    return _Model(coefficient, k, p, None, matrices, judge)


def _goal(owner: str, coefficient: str, options: dict[str, Any]) -> _Goal:
    rho0, width = options["rho0"], options["width"]
    alpha = check_open(owner, "alpha", options["alpha"], 0.0, 0.5)
    power = check_open(owner, "power", options["power"], 0.0, 1.0)
    level = check_open(owner, "level", options["level"], 0.0, 1.0)
    epsilon = check_open(
        owner, "epsilon", 0.15 if options["epsilon"] is None else options["epsilon"], -1e-12, 1.0
    )
    if coefficient == "alt_test":
        if rho0 is not None or width is not None:
            raise InvalidInputError(
                f"{owner}: alt_test plans the power to pass the judge; rho0= and width= do "
                "not apply"
            )
        return _Goal("power", None, None, alpha, power, level, epsilon)
    if (rho0 is None) == (width is None):
        raise InvalidInputError(
            f"{owner} needs rho0= (the power to show the coefficient above it) or width= "
            "(the expected width of its interval), one of the two"
        )
    if rho0 is not None:
        r0 = check_open(owner, "rho0", rho0, -1.0, 1.0)
        return _Goal("power", r0, None, alpha, power, level, epsilon)
    w = check_open(owner, "width", width, 0.0, 2.0)
    check_unused(owner, "width", {"alpha": alpha, "power": power})
    return _Goal("width", None, w, alpha, power, level, epsilon)


def _grid(owner: str, n_items: Sequence[int] | IntArray | None) -> list[int]:
    values = list(DEFAULT_GRID if n_items is None else n_items)
    if not values:
        raise InvalidInputError(f"{owner}: n_items= must list at least one number of items")
    return sorted({check_count(owner, "n_items", v, 2) for v in values})


def _method(model: _Model, goal: _Goal) -> str:
    if model.coefficient == "icc":
        data = f"one-way normal model with ICC {model.rho:g}, {model.n_raters} ratings per item"
    elif model.rho is not None:
        data = (
            f"common-correlation model: with probability {model.rho:g} every rater gives the "
            "item's category, else independent draws from the prevalences"
        )
    else:
        data = "each rater labels the item's true category through a confusion matrix"
    if model.coefficient == "alt_test":
        rule = f"the judge passes the alt-test at epsilon = {goal.epsilon:g}"
    elif goal.kind == "power":
        rule = (
            f"the lower end of the {1 - 2 * goal.alpha:.0%} interval exceeds rho0 = {goal.rho0:g} "
            f"(a one-sided test at {goal.alpha:g})"
        )
    else:
        rule = f"the mean width of the {goal.level:.0%} interval is at most {goal.width:g}"
    return f"{data}; {model.coefficient} on each study; goal: {rule}"


def sample_size_simulated(  # long: the options of every model and goal, checked in order
    coefficient: SimulatedCoefficient = "fleiss_kappa",
    *,
    n_raters: int = 2,
    prevalence: float | Sequence[float] | None = None,
    rho: float | None = None,
    accuracy: float | Sequence[float] | None = None,
    confusion: npt.ArrayLike | None = None,
    rho0: float | None = None,
    width: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    level: float = 0.95,
    judge_accuracy: float | None = None,
    epsilon: float | None = None,
    n_items: Sequence[int] | IntArray | None = None,
    n_simulations: int = 200,
    seed: int | np.random.Generator | None = 0,
    progress: Progress | None = None,
) -> SimulatedSampleSize:
    r"""Plan a study by simulation: draw studies of each size from an assumed model, run
    accord's estimator on each, and report the mean interval width and the power.

    The model of the ratings:

    - **ICC** (``coefficient="icc"``): one-way normal scores
      :math:`y_{ij} = a_i + e_{ij}` with :math:`\mathrm{var}(a) = \rho`,
      :math:`\mathrm{var}(e) = 1 - \rho`; the estimator is ICC(1,1) with its F interval.
    - **Categories**: each item's true category drawn from ``prevalence``, then either
      ``rho=`` (the common-correlation model: with probability :math:`\rho` every rater gives
      the true category, else each draws one from the prevalences; kappa is :math:`\rho`),
      ``accuracy=`` (each rater gives the true category with that probability, else one of
      the others at random; one number or one per rater) or ``confusion=`` (a q x q matrix of
      the probability of each label given the true category, or one per rater).
    - **Judge** (``coefficient="alt_test"``): ``n_raters`` humans (``accuracy=`` or
      ``confusion=``) and a judge with ``judge_accuracy``; the power is the share of studies
      in which the judge passes :func:`accord.alt_test` at ``epsilon``.

    The goal: ``rho0=`` (power: the share of studies whose :math:`1 - 2\alpha` interval lies
    above ``rho0``, a one-sided test at ``alpha``) or ``width=`` (the mean width of the
    ``level`` interval). The plan is the smallest number of items of the grid that meets it.

    Parameters
    ----------
    coefficient : {"fleiss_kappa", "krippendorff_alpha", "cohen_kappa", "icc", "alt_test"}
    n_raters : int, default 2
        Raters per item (humans, for ``alt_test``).
    prevalence : float or sequence of float, optional
        The categories' shares (one number: the share of positives on a binary scale).
    rho, accuracy, confusion : optional
        The rater model (one of the three; ``rho`` alone for the ICC).
    rho0, width : float, optional
        The goal: a null value to exceed, or an interval width.
    alpha, power, level : float
        Significance level (one-sided), power to reach, confidence level of the width.
    judge_accuracy : float, optional
        For ``alt_test``: the judge's probability of the true category.
    epsilon : float, optional
        For ``alt_test``: the cost-benefit margin (default 0.15, skilled annotators).
    n_items : sequence of int, optional
        The numbers of items to simulate (default 10 to 1000).
    n_simulations : int, default 200
        Studies per number of items; the power's Monte-Carlo standard error is in the curve.
    seed : int, numpy.random.Generator or None, default 0
        Random source of the simulated studies: the same seed gives the same plan (by
        default, every run answers the same). ``None`` draws fresh entropy, so runs differ
        by the Monte-Carlo error.
    progress : callable, optional
        ``progress(done, total)`` after each number of items.

    Returns
    -------
    SimulatedSampleSize

    Raises
    ------
    InvalidInputError
        An option out of range, no rater model or more than one, no goal, or an option
        given for a coefficient it does not apply to.

    Notes
    -----
    Simulation answers what the closed forms cannot: more raters, more categories, other
    coefficients, rater-specific accuracies, the judge test. Its answer carries Monte-Carlo
    error (``power_se``); raise ``n_simulations`` to narrow it. Studies in which the
    coefficient is undefined (every rating alike) count as not rejecting.

    Examples
    --------
    Fleiss' kappa with three raters on a binary scale (30% positive), to show it above 0.4
    when it is 0.7:

    >>> import accord
    >>> plan = accord.sample_size_simulated(
    ...     "fleiss_kappa", n_raters=3, prevalence=0.3, rho=0.7, rho0=0.4,
    ...     n_items=[20, 40, 60], n_simulations=50, seed=1)
    >>> plan.curve[["n_items", "power"]].round(2).values.tolist()
    [[20.0, 0.62], [40.0, 0.74], [60.0, 0.96]]
    >>> plan.n_items
    60
    """
    owner = "sample_size_simulated"
    check_choice("coefficient", coefficient, SIMULATED_COEFFICIENTS, owner)
    options = {
        "n_raters": n_raters, "prevalence": prevalence, "rho": rho, "accuracy": accuracy,
        "confusion": confusion, "rho0": rho0, "width": width, "alpha": alpha, "power": power,
        "level": level, "judge_accuracy": judge_accuracy, "epsilon": epsilon,
    }  # fmt: skip
    model = _model(owner, coefficient, options)
    goal = _goal(owner, coefficient, options)
    grid = _grid(owner, n_items)
    m = check_count(owner, "n_simulations", n_simulations, 2)
    report = check_progress(owner, progress)
    gen = as_generator(seed, owner, "seed")
    rows = _simulate(gen, grid, m, model, goal, report)
    curve = pd.DataFrame(rows)
    met = curve.loc[curve["meets_goal"], "n_items"]
    chosen = int(met.iloc[0]) if len(met) else None
    reason = "" if chosen is not None else (
        f"no number of items up to {grid[-1]} meets the goal; give larger n_items="
    )  # fmt: skip
    assumptions = {key: value for key, value in options.items() if value is not None} | {
        "coefficient": coefficient
    }
    return SimulatedSampleSize(
        coefficient, goal.kind, chosen, model.n_raters, curve, m, assumptions,
        _method(model, goal), reason,
    )  # fmt: skip


def _simulate(
    gen: np.random.Generator,
    grid: list[int],
    m: int,
    model: _Model,
    goal: _Goal,
    report: Callable[[int, int | None], None] | None,
) -> list[dict[str, Any]]:
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined studies are counted in n_defined
        for done, n in enumerate(grid, start=1):
            draws = np.array([_estimate(gen, n, model, goal) for _ in range(m)], dtype=float)
            rows.append(_row(n, draws, goal))
            if report is not None:
                report(done, len(grid))
    return rows
