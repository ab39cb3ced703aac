"""The judge a report is asked about, with the options of its sections, as one value."""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterable, Sequence
from typing import Any

from .._errors import InvalidInputError, bad_parameter
from .drift import parse_window

__all__ = ["Judge"]

OWNER = "accord.Judge"


@dataclasses.dataclass(frozen=True, slots=True)
class Judge:
    """A rater whose place is in question (a model, a device, a cheaper annotator), and the
    options of the sections about it.

    :func:`accord.report` takes it as ``judge=`` (a rater id alone is ``Judge(rater)``
    without options). Each option is checked when the value is made: a bad one is an error
    naming it.

    Parameters
    ----------
    rater : rater id or sequence of rater ids, optional
        The judge as named in the ratings: the section "Can the judge replace a rater?"
        (:func:`accord.alt_test` and :func:`accord.judge_agreement` against the other
        raters). A list names several judges: the sections are on the first, and the others
        are not counted as humans. None only with ``pairwise`` alone (the log names its
        judges).
    humans : sequence of rater ids, optional
        The humans the judge is compared with (default: every rater that is not a judge),
        as ``accord.alt_test(humans=...)`` takes them.
    epsilon : float
        The alternative annotator test's margin, in [0, 1) (0.2 expert humans, 0.15 skilled
        annotators, 0.1 crowd workers; see :func:`accord.alt_test`). Needed with ``rater``:
        it has no safe default.
    pairwise : str, path or DataFrame, optional
        A pairwise judge log (as :func:`accord.read_pairwise_judgments` reads it: a judge
        shown two answers says which is better), for the section "Is the judge biased?".
    time : str, optional
        The column of the time of each rating, for the section "Does the judge drift over
        time?" (:func:`accord.agreement_drift`).
    window : str, optional
        The length of the windows of ``time``: ``"7d"`` (the default), ``"12h"``, ``"2w"``,
        ``"30min"``.

    Raises
    ------
    InvalidInputError
        An option outside what it takes, or one that needs ``rater`` (``humans``,
        ``epsilon``, ``time``) or ``time`` (``window``) given without it.

    Examples
    --------
    >>> import accord
    >>> accord.Judge("llm", epsilon=0.15, time="time", window="14d")
    Judge(rater='llm', epsilon=0.15, time='time', window='14d')
    >>> accord.Judge("llm", epsilon=0.15, window="two weeks")
    Traceback (most recent call last):
    ...
    accord._errors.InvalidInputError: window is the length of the time windows: give time too
    """

    rater: Any = None
    humans: Sequence[Any] | None = None
    epsilon: float | None = None
    pairwise: Any = None
    time: str | None = None
    window: str | None = None

    def __post_init__(self) -> None:
        if self.humans is not None:
            if isinstance(self.humans, str | bytes) or not isinstance(self.humans, Iterable):
                raise InvalidInputError(
                    bad_parameter(OWNER, "humans", "a list of rater ids", self.humans)
                )
            object.__setattr__(self, "humans", tuple(self.humans))
        self._check_rater()
        self._check_epsilon()
        pairwise = self.pairwise
        path = isinstance(pairwise, str | os.PathLike)
        if pairwise is not None and not path and not hasattr(pairwise, "columns"):
            raise InvalidInputError(
                bad_parameter(OWNER, "pairwise", "a path or a data frame", pairwise)
            )
        if self.time is not None and (not isinstance(self.time, str) or not self.time):
            raise InvalidInputError(bad_parameter(OWNER, "time", "a column name", self.time))
        if self.window is not None:
            if self.time is None:
                raise InvalidInputError("window is the length of the time windows: give time too")
            parse_window(self.window, OWNER)

    def __repr__(self) -> str:
        """The options given (a frame as its type).

        >>> Judge("llm", humans=["a", "b"], epsilon=0.2)
        Judge(rater='llm', humans=('a', 'b'), epsilon=0.2)
        """
        given = [
            f"{f.name}={_shown(getattr(self, f.name))}"
            for f in dataclasses.fields(self)
            if getattr(self, f.name) is not None
        ]
        return "Judge(" + ", ".join(given) + ")"

    @property
    def judges(self) -> list[Any]:
        """The judges named, the first the one the sections are on (none without a rater).

        >>> Judge(["llm", "small-llm"], epsilon=0.1).judges
        ['llm', 'small-llm']
        """
        if self.rater is None:
            return []
        return list(self.rater) if isinstance(self.rater, list | tuple) else [self.rater]

    def _check_rater(self) -> None:
        """The options of the sections on a rater are refused without one."""
        if isinstance(self.rater, list | tuple) and not self.rater:
            raise InvalidInputError(bad_parameter(OWNER, "rater", "a rater id", self.rater))
        if self.rater is not None:
            return
        for name, what in (("humans", "the judge's panel"), ("epsilon", "the judge's margin"),
                           ("time", "the column dating the judge's ratings")):  # fmt: skip
            if getattr(self, name) is not None:
                raise InvalidInputError(f"{name} is {what}: give the judge too")

    def _check_epsilon(self) -> None:
        """The alternative annotator test's margin: needed with a rater, in [0, 1)."""
        value = self.epsilon
        if value is None:
            if self.rater is not None:
                raise InvalidInputError(
                    "the judge section's verdict is the alternative annotator test, which "
                    "needs epsilon (no safe default: 0.2 expert humans, 0.15 skilled, 0.1 "
                    "crowd workers)"
                )
            return
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not (number and math.isfinite(float(value)) and 0.0 <= float(value) < 1.0):
            raise InvalidInputError(bad_parameter(OWNER, "epsilon", "a number in [0, 1)", value))


def _shown(value: Any) -> str:
    """An option as the repr shows it: a frame by its type, the rest as written."""
    return f"<{type(value).__name__}>" if hasattr(value, "columns") else repr(value)
