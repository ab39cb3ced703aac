"""accord's exception and warning types.

Bad input raises :class:`InvalidInputError` (a ``ValueError``) with a message that names the
column, row or value at fault. Statistics that are undefined for the data are returned as NaN
with a reason, and a :class:`DegenerateDataWarning` is emitted.
"""

from __future__ import annotations

import warnings


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
