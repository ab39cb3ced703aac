"""The options every engine takes, declared and checked once.

:class:`ScanOptions` types the keyword arguments that :func:`~accord.engines.stream_statistics`
and :func:`~accord.engines.dask_statistics` share (the column names, the level, the category
domain, missing values and duplicates, the statistics wanted); :meth:`Scan.of` checks them and
fills in the defaults. Each engine adds only its own options (batch size and memory for the
stream engine, the scheduler for dask).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Required, TypedDict

from .._errors import InvalidInputError, bad_choice, option
from .._types import LEVELS, MISSING_RULES, Level, Missing
from ..data.encoder import LabelsAs
from ._blocks import STATISTICS
from ._mapreduce import Progress

__all__ = ["Scan", "ScanOptions", "check_choice", "check_options", "check_read"]


class ScanOptions(TypedDict, total=False):
    """The keyword arguments shared by the engines (see :func:`accord.engines.stream_statistics`
    for each one's meaning and default)."""

    item: Required[str]
    rater: Required[str]
    label: Required[str]
    level: Level
    categories: Sequence[Any] | None
    missing: Missing
    duplicates: str
    statistics: Sequence[str]
    file_format: str | None
    sep: str | None
    encoding: str | None
    progress: Progress | None
    na_values: Sequence[str] | None
    labels_as: LabelsAs
    multi_label: bool


@dataclasses.dataclass(frozen=True, slots=True)
class Scan:
    """The checked options of one engine run (:class:`ScanOptions` with the defaults)."""

    item: str
    rater: str
    label: str
    level: Level = "nominal"
    categories: Sequence[Any] | None = None
    missing: Missing = "omit"
    duplicates: str = "raise"
    statistics: Sequence[str] = STATISTICS
    file_format: str | None = None
    sep: str | None = None
    encoding: str | None = None
    progress: Progress | None = None
    na_values: Sequence[str] | None = None
    labels_as: LabelsAs = "auto"
    multi_label: bool = False

    @classmethod
    def of(cls, owner: str, options: ScanOptions, allowed: Sequence[str] = STATISTICS) -> Scan:
        """Check the options of ``owner`` and fill in the defaults.

        Raises
        ------
        TypeError
            An option ``owner`` does not take (as Python names it for a function).
        InvalidInputError
            A value outside its choices, or the same column named twice.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        for name in options:
            if name not in known:
                raise TypeError(f"{owner}() got an unexpected keyword argument {name!r}")
        for name in ("item", "rater", "label"):
            if name not in options:
                raise TypeError(f"{owner}() missing required keyword argument: {name!r}")
        scan = cls(**options)
        statistics = check_options(
            owner, scan.level, scan.missing, scan.duplicates, scan.statistics, allowed
        )
        if len(set(scan.columns)) != 3:
            raise InvalidInputError(
                f"item, rater and label must be three different columns; got {list(scan.columns)!r}"
            )
        return dataclasses.replace(scan, statistics=statistics)

    @property
    def columns(self) -> tuple[str, str, str]:
        """The item, rater and label column names."""
        return (self.item, self.rater, self.label)


def check_choice(name: str, value: object, allowed: Sequence[object], owner: str) -> None:
    """Raise the house option error unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise InvalidInputError(bad_choice(owner, name, allowed, value))


def check_options(
    owner: str,
    level: str,
    missing: str,
    duplicates: str,
    statistics: Sequence[str],
    allowed: Sequence[str] = STATISTICS,
) -> tuple[str, ...]:
    """Validate the shared options of the engines; return the statistics as a tuple."""
    check_choice("level", level, LEVELS, owner)
    check_choice("missing", missing, MISSING_RULES, owner)
    if duplicates == "mean":
        raise InvalidInputError(
            f"{option('duplicates', 'mean')} is not available in {owner}: averaging repeated "
            "ratings can create labels that were never seen, which needs every value in "
            f"memory. Use {option('engine', 'memory')} or "
            f"{option('duplicates', 'raise', 'first', 'last')}"
        )
    check_choice("duplicates", duplicates, ("raise", "first", "last"), owner)
    if isinstance(statistics, str):
        statistics = (statistics,)
    for name in statistics:
        check_choice("statistics", name, allowed, owner)
    return tuple(statistics)


def check_read(rows: int, missing: int, source: str, label: str) -> None:
    """Nothing to rate: an input without rows, or whose every label is missing."""
    if rows == 0:
        raise InvalidInputError(f"the input is empty: {source} has no rows to read")
    if missing >= rows:
        raise InvalidInputError(
            f"column {label!r}: all {rows} rows have a missing label; nothing to rate"
        )
