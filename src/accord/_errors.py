"""accord's exception and warning types.

Bad input raises :class:`InvalidInputError` (a ``ValueError``) with a message that names the
column, row or value at fault. Statistics that are undefined for the data are returned as NaN
with a reason, and a :class:`DegenerateDataWarning` is emitted.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import Protocol


class AccordError(Exception):
    """Base class of every error accord raises on purpose."""


class InvalidInputError(AccordError, ValueError):
    """The input cannot be used as given: the message names the column, row or value."""


class ColumnNotFoundError(InvalidInputError, KeyError):
    """A requested column is not in the data; the message lists the columns there are."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else ""


class FileReadError(InvalidInputError):
    """A file cannot be read as the format it should have: binary or damaged content, a
    truncated file, text in another encoding, a row with the wrong number of fields. The
    message names the file and, where it can, the line or byte offset."""


class DuplicateRatingError(InvalidInputError):
    """One rater rated one item more than once and ``duplicates="raise"``."""


class SpansNotRatingsError(InvalidInputError):
    """An annotation tool's export holds text spans where ratings were asked for; the spans
    read are ``spans`` (a reader of spans, such as the span report, takes them)."""

    def __init__(self, message: str, spans: object) -> None:
        super().__init__(message)
        self.spans = spans


class ConvergenceError(AccordError, RuntimeError):
    """An iterative solver did not converge; no half answer is returned."""


class MissingDependencyError(AccordError, ImportError):
    """An optional dependency is needed; the message says which extra to install."""


class AccordWarning(UserWarning):
    """Base class of accord's warnings."""


class DegenerateDataWarning(AccordWarning):
    """A statistic is undefined for the data and was returned as NaN with a reason."""


class DroppedDataWarning(AccordWarning):
    """Some of the input was not used; the result's report says what and why."""


@contextlib.contextmanager
def located(place: str) -> Iterator[None]:
    """Errors raised in the block name ``place`` (such as ``"in a.csv"``) after their row:
    the same :class:`InvalidInputError`, its message extended (nothing added when ``place``
    is empty).

    >>> try:
    ...     with located("in a.csv"):
    ...         raise InvalidInputError("confidence must be numbers; found 'x' at row 2")
    ... except InvalidInputError as exc:
    ...     print(exc)
    confidence must be numbers; found 'x' at row 2 (in a.csv)
    """
    try:
        yield
    except InvalidInputError as exc:
        if place and exc.args:
            exc.args = (f"{exc.args[0]} ({place})", *exc.args[1:])
        raise


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning raised by the caller of this function point at
    the first frame outside accord: the user's call, however many of accord's functions lie
    between it and the warning.

    Examples
    --------
    >>> user_stacklevel()  # called from outside accord: the caller's own frame
    1
    """
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(package):
        frame = frame.f_back
        level += 1
    return level


def warn_degenerate(reason: str, *, stacklevel: int = 3) -> None:
    """Emit a :class:`DegenerateDataWarning` with ``reason``."""
    warnings.warn(reason, DegenerateDataWarning, stacklevel=stacklevel)


def require(module: str, extra: str) -> object:
    """Import an optional dependency or raise :class:`MissingDependencyError`.

    Parameters
    ----------
    module : str
        Module to import, e.g. ``"pyarrow.parquet"``.
    extra : str
        The accord extra that provides it, e.g. ``"parquet"``.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
            f"{module} is needed for this; install it with `pip install 'accord[{extra}]'`"
        ) from exc


class Dialect(Protocol):
    """How the caller names accord's keyword arguments, for messages that tell the user what
    to pass. Python (no dialect) writes ``duplicates='first'``; the command line installs one
    that writes ``--duplicates first`` (see :func:`speaking`)."""

    def flag(self, keyword: str) -> str | None:
        """The caller's name for ``keyword`` (``"--out-of-range"``), or None when it has none."""

    def given(self, keyword: str) -> bool:
        """Whether the user set ``keyword`` (False: its default was used)."""


_DIALECT: ContextVar[Dialect | None] = ContextVar("accord_dialect", default=None)


@contextlib.contextmanager
def speaking(dialect: Dialect) -> Iterator[None]:
    """Within the block, :func:`option` and :func:`bad_parameter` name keywords as
    ``dialect`` does."""
    token = _DIALECT.set(dialect)
    try:
        yield
    finally:
        _DIALECT.reset(token)


def shown(value: object) -> object:
    """A value as the user wrote it: numpy scalars as Python numbers (``-1.0``, not
    ``np.float64(-1.0)``).

    >>> import numpy as np
    >>> repr(shown(np.float64(-1.0))), repr(shown(np.int64(3))), shown("a")
    ('-1.0', '3', 'a')
    """
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "shape", None) == ():
        return item()
    return value


#: How the front door the user called takes Python keywords: inside one value (that value's
#: spelling, ``{"ci": "inference=accord.Inference"}`` within :func:`accord.agreement`), or not
#: at all (None: advice to set them is left out).
_WITHIN: ContextVar[Mapping[str, str | None] | None] = ContextVar("accord_within", default=None)


@contextlib.contextmanager
def keywords_within(
    wrapper: str, keywords: Iterable[str], *, refused: Iterable[str] = ()
) -> Iterator[None]:
    """Within the block, Python advice names each of ``keywords`` inside ``wrapper``, where
    the front door running takes it, and leaves out advice to set one of ``refused``, which
    it does not take. The front door the user called speaks: one it calls in turn changes
    nothing, and a command line names its own flags as before.

    >>> with keywords_within("inference=accord.Inference", ["ci"]):
    ...     print(option("ci", "bootstrap"))
    inference=accord.Inference(ci='bootstrap')
    >>> print(option("ci", "bootstrap"))
    ci='bootstrap'
    >>> with keywords_within("inference=accord.Inference", ["se"], refused=["ci"]):
    ...     print(repr(hint("; {} gives one", "ci", "bootstrap")))
    ''
    """
    if _DIALECT.get() is not None:  # the command line's own flags name these keywords
        yield
        return
    taken: dict[str, str | None] = {**dict.fromkeys(keywords, wrapper), **dict.fromkeys(refused)}
    token = _WITHIN.set(taken | dict(_WITHIN.get() or {}))  # the outer front door's words
    try:
        yield
    finally:
        _WITHIN.reset(token)


def _flag(keyword: str) -> str | None:
    dialect = _DIALECT.get()
    return None if dialect is None else dialect.flag(keyword)


def offers(keyword: str) -> bool:
    """Whether the caller can set ``keyword``: in Python, unless the front door running does
    not take it (:func:`keywords_within`); on the command line, when the running command has
    an option for it. A hint to set an option the caller has not got is left out (or
    replaced by one that works), never given in another dialect.

    >>> offers("level")
    True
    """
    if _DIALECT.get() is not None:
        return _flag(keyword) is not None
    within = _WITHIN.get() or {}
    return keyword not in within or within[keyword] is not None


def hint(text: str, keyword: str, *values: object) -> str:
    """``text`` with ``{}`` replaced by :func:`option` ``(keyword, *values)`` when the caller
    can set ``keyword`` (:func:`offers`), else ``""``.

    >>> hint("; use {} for text labels", "level", "nominal", "ordinal")
    "; use level='nominal' or 'ordinal' for text labels"
    """
    return text.format(option(keyword, *values)) if offers(keyword) else ""


def option(keyword: str, *values: object) -> str:
    """How to tell accord to set ``keyword`` to one of ``values``, in the caller's words.

    >>> option("duplicates", "first", "last")
    "duplicates='first' or 'last'"

    On the command line (with a dialect that maps the keyword to its flag) the same call
    gives ``--duplicates first or last``.
    """
    flag = _flag(keyword)
    if flag is None:
        python = f"{keyword}=" + " or ".join(repr(shown(v)) for v in values)
        wrapper = (_WITHIN.get() or {}).get(keyword)
        return python if wrapper is None else f"{wrapper}({python})"
    if values == (True,):  # a switch takes no value
        return flag
    return f"{flag} " + " or ".join(shell_word(v) for v in values)


def options(**settings: object) -> str:
    """How to tell accord to set each keyword of ``settings`` at once, in the caller's words:
    one wrapper around the keywords that share it (:func:`keywords_within`).

    >>> options(ci="analytic", se="unconditional")
    "ci='analytic', se='unconditional'"
    >>> with keywords_within("inference=accord.Inference", ["ci", "se"]):
    ...     print(options(ci="analytic", se="unconditional"))
    inference=accord.Inference(ci='analytic', se='unconditional')

    On the command line the same call gives ``--ci analytic --se unconditional``.
    """
    if _DIALECT.get() is not None:
        return " ".join(option(keyword, value) for keyword, value in settings.items())
    within = _WITHIN.get() or {}
    groups: dict[str | None, list[str]] = {}
    for keyword, value in settings.items():
        groups.setdefault(within.get(keyword), []).append(f"{keyword}={shown(value)!r}")
    return ", ".join(
        ", ".join(parts) if wrapper is None else f"{wrapper}({', '.join(parts)})"
        for wrapper, parts in groups.items()
    )


def shell_word(value: object) -> str:
    """A value as it is typed in a shell: quoted when the shell would read it otherwise
    (``';'``), a tab as ``'\\t'`` (how ``--sep`` takes it).

    >>> print(shell_word("first"), shell_word(";"), shell_word("\\t"), shell_word(0.5))
    first ';' '\\t' 0.5
    """
    import shlex

    text = str(shown(value))
    return "'\\t'" if text == "\t" else shlex.quote(text)


def bad_choice(owner: str, keyword: str, choices: Sequence[object], value: object) -> str:
    """The message for a keyword argument that is none of ``choices``.

    >>> print(bad_choice("consensus", "reference", ("all", "others"), "al"))
    The 'reference' parameter of consensus must be one of {'all', 'others'}. Got 'al' instead.

    On the command line: ``--reference must be one of all, others; got al``.
    """
    if _flag(keyword) is None:
        listed = "{" + ", ".join(repr(shown(c)) for c in choices) + "}"
    else:
        listed = ", ".join(str(shown(c)) for c in choices)
    return bad_parameter(owner, keyword, f"one of {listed}", value)


def bad_parameter(owner: str, keyword: str, requirement: str, value: object) -> str:
    """The message for a keyword argument outside what ``owner`` accepts.

    >>> print(bad_parameter("recalibrate", "folds", "an integer from 2 to 3", 5))
    The 'folds' parameter of recalibrate must be an integer from 2 to 3. Got 5 instead.

    On the command line it names the flag, and says so when the value was its default:
    ``--folds must be an integer from 2 to 3; got 5 (the default; set --folds)``.
    """
    flag = _flag(keyword)
    value = shown(value)
    if flag is None:
        return f"The {keyword!r} parameter of {owner} must be {requirement}. Got {value!r} instead."
    dialect = _DIALECT.get()
    default = dialect is not None and not dialect.given(keyword)
    return f"{flag} must be {requirement}; got {value}" + (
        f" (the default; set {flag})" if default else ""
    )
