"""Checks of what the user gave, shared by every layer: one option checker, one column checker,
one row formatter, one missing-value rule.

Each raises (or writes the message of) an error that names the option, column, row or value
at fault, values shown as the user wrote them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ._errors import ColumnNotFoundError, InvalidInputError, bad_choice

__all__ = [
    "CSV_NULLS",
    "DEFAULT_NA_VALUES",
    "SHOW",
    "check_callback",
    "check_choice",
    "check_count_cells",
    "check_na_values",
    "counted",
    "format_rows",
    "missing_column_message",
    "require_columns",
    "tidy_scalar",
]

#: How many offending rows (or pairs) an error message lists.
SHOW = 5

#: Text that counts as a missing value by default (the spellings ``pandas.read_csv`` treats as
#: missing), besides null, NaN and empty or blank text. Declared categories always win over
#: this list (the rule is applied by :func:`accord.data.encoder.missing_of`).
DEFAULT_NA_VALUES: tuple[str, ...] = (
    "#N/A",
    "#N/A N/A",
    "#NA",
    "-1.#IND",
    "-1.#QNAN",
    "-NaN",
    "-nan",
    "1.#IND",
    "1.#QNAN",
    "<NA>",
    "N/A",
    "NA",
    "NULL",
    "NaN",
    "None",
    "n/a",
    "nan",
    "null",
)

#: Cells read as null from CSV files: empty ones only. Every other missing-value spelling
#: (``NA``, ``null``, ...) is read as text and judged by the one rule, where declared
#: categories win.
CSV_NULLS = [""]


def check_callback(
    value: Any, owner: str, call: str = "progress(rows_read, total_rows) after each batch"
) -> Callable[[int, int | None], None] | None:
    """A ``progress`` callback as given: a callable, or None (``None`` or ``False``: none);
    anything else is an error naming the parameter and how it is called (``call``).

    >>> check_callback(False, "agreement") is None
    True
    """
    if value is None or value is False:
        return None
    if not callable(value):
        raise InvalidInputError(
            f"progress of {owner} must be a function called as {call}, or None; got {value!r}"
        )
    return cast(Callable[[int, int | None], None], value)


def announce(progress: Any, phase: str) -> None:
    """Tell a progress display what the work does next (``"counting ratings"``, ``"computing
    agreement"``) when it shows phases: a callback with a ``phase(text)`` method. Plain
    callbacks and None are left alone.

    >>> class Shown:
    ...     def __call__(self, done, total): pass
    ...     def phase(self, text): print(text)
    >>> announce(Shown(), "computing agreement")
    computing agreement
    >>> announce(print, "computing agreement"); announce(None, "counting ratings")
    """
    tell = getattr(progress, "phase", None)
    if callable(tell):
        tell(phase)


def announce_unit(progress: Any, unit: str) -> None:
    """Tell a progress display what its ``(done, total)`` counts when it is not rows (the
    dask engine counts ``"partitions"``): a callback with a ``count_in(unit)`` method. Plain
    callbacks and None are left alone.

    >>> class Shown:
    ...     def __call__(self, done, total): pass
    ...     def count_in(self, unit): print(unit)
    >>> announce_unit(Shown(), "partitions")
    partitions
    >>> announce_unit(print, "partitions"); announce_unit(None, "partitions")
    """
    tell = getattr(progress, "count_in", None)
    if callable(tell):
        tell(unit)


def check_choice(name: str, value: object, allowed: Sequence[object], owner: str) -> None:
    """Raise :class:`InvalidInputError` when option ``name`` of ``owner`` is none of
    ``allowed``.

    >>> check_choice("level", "nominal", ("nominal", "ordinal"), "Ratings")
    >>> check_choice("level", "nomnal", ("nominal", "ordinal"), "Ratings")
    Traceback (most recent call last):
    ...
    accord._errors.InvalidInputError: The 'level' parameter of Ratings must be one of {'nominal', 'ordinal'}. Got 'nomnal' instead.
    """  # noqa: E501
    if value not in allowed:
        raise InvalidInputError(bad_choice(owner, name, allowed, value))


def check_count_cells(counts: npt.NDArray[np.float64], cell: str, *, hint: str = "") -> None:
    """Every cell of a float array of counts finite and >= 0, else an error naming the first
    cell at fault as ``{cell} (row, column)`` (and its value when negative, then ``hint``).

    >>> check_count_cells(np.array([[1.0, -2.0]]), "table cell")
    Traceback (most recent call last):
    ...
    accord._errors.InvalidInputError: table cell (0, 1) is negative (-2)
    """
    if not np.all(np.isfinite(counts)):
        r, c = np.argwhere(~np.isfinite(counts))[0]
        raise InvalidInputError(f"{cell} ({r}, {c}) is not finite")
    if np.any(counts < 0):
        r, c = np.argwhere(counts < 0)[0]
        raise InvalidInputError(f"{cell} ({r}, {c}) is negative ({counts[r, c]:g}){hint}")


def missing_column_message(name: str, available: Sequence[Any]) -> str:
    """The message for column ``name`` not among ``available``.

    >>> missing_column_message("label", ["item", "rater"])
    "column 'label' not found; the columns are: 'item', 'rater'"
    """
    return f"column {name!r} not found; the columns are: {', '.join(map(repr, available))}"


def require_columns(
    names: Sequence[str], available: Sequence[Any], where: str | None = None
) -> None:
    """Raise :class:`ColumnNotFoundError` for the first of ``names`` not ``available``.

    ``where`` (a file, a source) starts the message when given.

    >>> require_columns(["item"], ["item", "rater"])
    >>> require_columns(["item", "score"], ["item", "rater"], where="panel.csv")
    Traceback (most recent call last):
    ...
    accord._errors.ColumnNotFoundError: panel.csv: column 'score' not found; the columns are: 'item', 'rater'
    """  # noqa: E501
    available = list(available)
    for name in names:
        if name not in available:
            message = missing_column_message(name, available)
            raise ColumnNotFoundError(message if where is None else f"{where}: {message}")


def tidy_scalar(value: Any) -> Any:
    """A plain Python scalar for decode tables and messages (numpy scalars to Python).

    >>> tidy_scalar(np.int64(3)), tidy_scalar("a")
    (3, 'a')
    """
    if isinstance(value, np.generic):
        return value.item()
    return value


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and its noun, singular for one, with thousands separators.

    >>> counted(1, "human"), counted(3, "estimate"), counted(1200, "confidence", "confidences")
    ('1 human', '3 estimates', '1,200 confidences')
    """
    return f"{int(n):,} {noun if n == 1 else plural or noun + 's'}"


def rows_that(n: int, verb: str = "have") -> str:
    """``n`` rows and the verb that agrees with them: "1 row has", "3 rows have" (``verb``
    "are": "1 row is").

    >>> rows_that(1), rows_that(3), rows_that(1, "are")
    ('1 row has', '3 rows have', '1 row is')
    """
    one = {"have": "has", "are": "is"}[verb]
    return f"{counted(n, 'row')} {one if n == 1 else verb}"


def at_rows(positions: npt.ArrayLike) -> str:
    """0-based positions as "row 5" or "rows 1, 5, 10 and 2 more" (:func:`format_rows`).

    >>> at_rows([4]), at_rows([0, 4])
    ('row 5', 'rows 1, 5')
    """
    pos = np.asarray(positions)
    return f"{'row' if pos.size == 1 else 'rows'} {format_rows(pos)}"


def format_rows(positions: npt.ArrayLike) -> str:
    """0-based positions as 1-based row numbers for messages (the first :data:`SHOW`).

    >>> format_rows([0, 4, 9, 10, 11, 12, 20])
    '1, 5, 10, 11, 12 and 2 more'
    """
    pos = np.asarray(positions, dtype=np.int64)
    shown = ", ".join(str(int(p) + 1) for p in pos[:SHOW])
    more = f" and {pos.size - SHOW} more" if pos.size > SHOW else ""
    return f"{shown}{more}"


def check_na_values(na_values: Sequence[str] | None) -> tuple[str, ...]:
    """The missing-value spellings to use (``None``: :data:`DEFAULT_NA_VALUES`), each with
    surrounding spaces removed.

    >>> check_na_values(["  -99 "])
    ('-99',)
    """
    if na_values is None:
        return DEFAULT_NA_VALUES
    if isinstance(na_values, str):
        na_values = [na_values]
    out = []
    for v in na_values:
        if not isinstance(v, str):
            raise InvalidInputError(
                f"na_values: each missing-value spelling must be text; got {v!r}"
            )
        out.append(v.strip())
    return tuple(out)
