"""Checks of a plan's options, shared by the closed forms and the simulated studies."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

from .._errors import InvalidInputError, bad_parameter, option
from .._validate import check_callback, check_choice

__all__ = [
    "Progress",
    "check_count",
    "check_interval",
    "check_open",
    "check_progress",
    "check_test",
    "check_unused",
    "goal_of",
    "hypotheses",
    "one_sided",
]

#: ``progress(done, total)`` after each simulated study size.
Progress = Callable[[int, int | None], None]


def check_open(owner: str, keyword: str, value: Any, low: float, high: float) -> float:
    """``value`` as a float strictly between ``low`` and ``high``, or a one-line error (a
    bound moved by round-off, ``-1e-12`` for 0, takes the round value in the error's words:
    the bound is then reached).

    >>> check_open("sample_size_icc", "power", 0.8, 0.0, 1.0)
    0.8
    >>> check_open("sample_size_icc", "rho1", 0.0, -1e-12, 1.0)  # 0 allowed, 1 not
    0.0
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not (low < number < high):
        raise InvalidInputError(bad_parameter(owner, keyword, _range_words(low, high), value))
    return number


def _range_words(low: float, high: float) -> str:
    """What a number strictly between ``low`` and ``high`` is, in words: a bound within
    round-off of a round number (``-1e-12``) is that number, reached.

    >>> _range_words(0.0, 1.0), _range_words(-1e-12, 1.0 + 1e-12)
    ('a number strictly between 0 and 1', 'a number from 0 to 1')
    >>> _range_words(-1e-12, 1.0)
    'a number of at least 0 and below 1'
    """
    lo, hi = round(low, 9) + 0.0, round(high, 9) + 0.0  # + 0.0: no "-0"
    lo_in, hi_in = lo != low, hi != high
    if not lo_in and not hi_in:
        return f"a number strictly between {lo:g} and {hi:g}"
    if lo_in and hi_in:
        return f"a number from {lo:g} to {hi:g}"
    left = f"at least {lo:g}" if lo_in else f"above {lo:g}"
    right = f"at most {hi:g}" if hi_in else f"below {hi:g}"
    return f"a number of {left} and {right}"


#: The largest count a plan takes (items, raters, simulations): far beyond any study, and
#: within what numpy can index.
MAX_COUNT = 10**9


def check_count(owner: str, keyword: str, value: Any, smallest: int) -> int:
    """``value`` as an integer of at least ``smallest``, or a one-line error.

    >>> check_count("sample_size_icc", "n_raters", 3, 2)
    3
    """
    number = float(value) if isinstance(value, numbers.Real) else math.nan
    whole = not isinstance(value, bool) and math.isfinite(number) and number == int(number)
    if not whole or int(number) < smallest:
        raise InvalidInputError(
            bad_parameter(owner, keyword, f"an integer of at least {smallest}", value)
        )
    if int(number) > MAX_COUNT:
        raise InvalidInputError(bad_parameter(owner, keyword, f"at most {MAX_COUNT:,}", value))
    return int(number)


def _both(owner: str, what: str, names: tuple[str, str], values: tuple[Any, Any]) -> None:
    """Both options of a pair given, or an error naming the one missing."""
    missing = [name for name, value in zip(names, values, strict=True) if value is None]
    if missing:
        first, second, absent = (_named(k) for k in (*names, missing[0]))
        raise InvalidInputError(
            f"{owner}: {what} needs both {first} and {second}; {absent} is missing"
        )


def _named(keyword: str) -> str:
    """An option as the caller names it: ``rho0=`` in Python, ``--rho0`` on the command
    line."""
    return option(keyword).strip()


def goal_of(owner: str, rho0: Any, rho1: Any, rho: Any, width: Any) -> str:
    """``"power"`` when ``rho0`` and ``rho1`` are given, ``"width"`` when ``rho`` and
    ``width`` are; anything else is an error that says what to give.

    >>> goal_of("sample_size_icc", 0.6, 0.8, None, None)
    'power'
    """
    test = rho0 is not None or rho1 is not None
    interval = rho is not None or width is not None
    if test and interval:
        raise InvalidInputError(f"{owner} plans {_goals()}, not both")
    if test:
        _both(owner, "a test", ("rho0", "rho1"), (rho0, rho1))
        return "power"
    if interval:
        _both(owner, "an interval", ("rho", "width"), (rho, width))
        return "width"
    raise InvalidInputError(f"{owner} needs {_goals()}")


def _goals() -> str:
    """The two plans and the options of each, in the caller's words."""
    rho0, rho1, rho, width = (_named(k) for k in ("rho0", "rho1", "rho", "width"))
    return f"a test ({rho0} and {rho1}) or an interval ({rho} and {width})"


#: The defaults of the options that belong to one goal only.
TEST_DEFAULTS = {"alpha": 0.05, "power": 0.8}
INTERVAL_DEFAULTS: dict[str, Any] = {"level": 0.95, "assurance": None}


def check_unused(owner: str, goal: str, given: dict[str, Any]) -> None:
    """Options of the other goal set to other than their defaults are an error, never
    ignored: ``alpha``/``power`` with an interval, ``level`` with a test.

    >>> check_unused("sample_size_icc", "power", {"alpha": 0.01, "power": 0.9, "level": 0.95})
    """
    defaults = INTERVAL_DEFAULTS if goal == "power" else TEST_DEFAULTS
    unused = [k for k, v in defaults.items() if k in given and given[k] != v]
    if unused:
        names = " and ".join(option(k).strip() for k in unused)
        test = f"a test ({option('rho0').strip()}, {option('rho1').strip()})"
        interval = f"an interval ({option('rho').strip()}, {option('width').strip()})"
        this, other = (test, interval) if goal == "power" else (interval, test)
        raise InvalidInputError(f"{owner}: {names} belongs to {other}, and this plan is for {this}")


def check_test(
    owner: str,
    rho0: Any,
    rho1: Any,
    alpha: Any,
    power: Any,
    *,
    alternative: str,
    low: float,
    alpha_high: float = 1.0,
) -> dict[str, Any]:
    """The options of a planned test of ``rho0`` against ``rho1``, checked, as the plan's
    assumptions: ``rho0`` and ``rho1`` in (``low``, 1) and different, ``alpha`` in
    (0, ``alpha_high``), ``power`` in (0, 1), the ``alternative``, and the hypotheses in
    words (:func:`hypotheses`).

    >>> check_test("sample_size_icc", 0.6, 0.8, 0.05, 0.8, alternative="one-sided", low=0.0)
    ... # doctest: +NORMALIZE_WHITESPACE
    {'rho0': 0.6, 'rho1': 0.8, 'alpha': 0.05, 'power': 0.8, 'alternative': 'one-sided',
     'hypotheses': 'H0: rho <= 0.6 against H1: rho = 0.8 (one-sided, upper tail)'}
    """
    r0 = check_open(owner, "rho0", rho0, low, 1.0)
    r1 = check_open(owner, "rho1", rho1, low, 1.0)
    if r0 == r1:
        raise InvalidInputError(f"{owner}: rho1= must differ from rho0= (both {rho0})")
    a = check_open(owner, "alpha", alpha, 0.0, alpha_high)
    b = check_open(owner, "power", power, 0.0, 1.0)
    return {"rho0": r0, "rho1": r1, "alpha": a, "power": b, "alternative": alternative,
            "hypotheses": hypotheses(r0, r1, alternative)}  # fmt: skip


def hypotheses(rho0: float, rho1: float, alternative: str) -> str:
    """The planned test in words. A one-sided test looks in the direction of ``rho1``: above
    ``rho0`` (the usual question: is the agreement better than ``rho0``?) or below it (is it
    worse?). The closed forms see the direction only through a square (of a log ratio, a
    difference, a chi-square discrepancy), so one formula plans the test either way.

    >>> hypotheses(0.8, 0.6, "one-sided")
    'H0: rho >= 0.8 against H1: rho = 0.6 (one-sided, lower tail)'
    >>> hypotheses(0.6, 0.8, "two-sided")
    'H0: rho = 0.6 against H1: rho = 0.8 (two-sided)'
    """
    if alternative == "two-sided":
        return f"H0: rho = {rho0:g} against H1: rho = {rho1:g} (two-sided)"
    if rho1 > rho0:
        return f"H0: rho <= {rho0:g} against H1: rho = {rho1:g} (one-sided, upper tail)"
    return f"H0: rho >= {rho0:g} against H1: rho = {rho1:g} (one-sided, lower tail)"


def check_interval(owner: str, rho: Any, width: Any, level: Any, *, low: float) -> dict[str, Any]:
    """The options of a planned interval, checked, as the plan's assumptions: ``rho`` in
    (``low``, 1), ``width`` in (0, 2) and ``level`` in (0, 1).

    >>> check_interval("sample_size_icc", 0.8, 0.2, 0.95, low=0.0)
    {'rho': 0.8, 'width': 0.2, 'level': 0.95}
    """
    r = check_open(owner, "rho", rho, low, 1.0)
    w = check_open(owner, "width", width, 0.0, 2.0)
    lev = check_open(owner, "level", level, 0.0, 1.0)
    return {"rho": r, "width": w, "level": lev}


def one_sided(owner: str, alternative: Any) -> bool:
    """Whether ``alternative`` is ``"one-sided"`` (False for ``"two-sided"``)."""
    check_choice("alternative", alternative, ("one-sided", "two-sided"), owner)
    return bool(alternative == "one-sided")


def check_progress(owner: str, progress: Any) -> Progress | None:
    """``progress`` as a callable ``(done, total)``, or None (also for ``False``)."""
    return check_callback(progress, owner, "progress(done, total) after each number of items")
