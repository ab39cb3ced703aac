"""Replicate measurements in a long table: one item measured several times by one rater.

The repeated rows of an (item, rater), numbered in the order of the rows or by a replicate
column, become the ratings that :func:`~accord.measurements.repeated_concordance.\
concordance_of_replicates` and :func:`~accord.method_regression` (``subject=``) read: each
replicate an item of its own, whose subject is the table's item."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._errors import InvalidInputError, shown
from .._results import Result
from .._types import Level
from .._validate import at_rows, format_rows, require_columns
from ..data.encoder import LabelsAs
from ..data.ratings import Ratings

__all__ = ["Replicates", "has_repeats", "replicates_of_rows"]


@dataclasses.dataclass(frozen=True, slots=True)
class Replicates(Result):
    """The replicates of a long table as ratings whose items are the replicates.

    Attributes
    ----------
    ratings : Ratings
        One item per (table item, replicate): item ``i`` holds the ``l``-th measurement of
        each rater of that table item.
    subject : mapping
        Each item of ``ratings`` to its subject, the table's item.
    n_subjects : int
        The table's items.
    most_replicates : int
        The most measurements of one table item by one rater (1: no replicates).
    replicate : str or None
        The column that numbered the replicates, or None (the order of the rows).
    """

    ratings: Ratings
    subject: Mapping[Any, Any]
    n_subjects: int
    most_replicates: int
    replicate: str | None

    def __str__(self) -> str:
        by = f"column {self.replicate!r}" if self.replicate else "the order of the rows"
        return (
            f"{self.n_subjects:,} subjects, up to {self.most_replicates} replicates per "
            f"subject and rater (numbered by {by})"
        )


def has_repeats(frame: pd.DataFrame, item: str, rater: str, label: str) -> bool:
    """Whether some ``rater`` measured some ``item`` more than once (rows with a missing
    ``label`` not counted).

    >>> import pandas as pd
    >>> has_repeats(pd.DataFrame({"i": [1, 1, 2], "r": ["a", "a", "a"], "v": [1.0, None, 2.0]}),
    ...             "i", "r", "v")
    False
    """
    rows = frame.loc[frame[label].notna(), [item, rater]]
    return bool(rows.duplicated().any())


def _numbered(rows: pd.DataFrame, replicate: str | None) -> np.ndarray:
    """The replicate of each row: the replicate column's value, refused when missing or when
    two rows of one (item, rater) share it; else the row's rank within its (item, rater)."""
    if replicate is None:
        return rows.groupby(["item", "rater"], sort=False).cumcount().to_numpy()
    values = rows["replicate"]
    missing = values.isna().to_numpy()
    if missing.any():
        raise InvalidInputError(
            f"column {replicate!r}: no replicate on rows "
            f"{format_rows(rows['row'].to_numpy()[missing])} (each measurement names its "
            "replicate)"
        )
    repeated = rows.duplicated(["item", "rater", "replicate"], keep=False).to_numpy()
    if repeated.any():
        first = rows[repeated].iloc[0]
        raise InvalidInputError(
            f"column {replicate!r}: rater {shown(first['rater'])!r} measured item "
            f"{shown(first['item'])!r} more than once in replicate {shown(first['replicate'])!r} "
            f"({at_rows(rows['row'].to_numpy()[repeated])}); each replicate of an item "
            "holds one measurement per rater"
        )
    return values.to_numpy()


def replicates_of_rows(
    frame: pd.DataFrame,
    *,
    item: str,
    rater: str,
    label: str,
    replicate: str | None = None,
    level: Level = "interval",
    na_values: Sequence[str] | None = None,
    labels_as: LabelsAs = "auto",
) -> Replicates:
    """The replicates of a long table of measurements: the rows of one ``item`` by one
    ``rater`` are its replicates, numbered by the ``replicate`` column when given (the
    ``l``-th replicate of every rater of an item is one item of the ratings returned), else
    in the order of the rows. Rows with a missing measurement are left out first.

    Raises
    ------
    ColumnNotFoundError
        A column not in ``frame``.
    InvalidInputError
        A measurement without a replicate, two measurements of one item by one rater in one
        replicate, or measurements that are not numbers (as :meth:`Ratings.from_arrays`).

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"patient": [1, 1, 1, 1, 2, 2, 2, 2],
    ...                      "method": ["a", "a", "b", "b"] * 2,
    ...                      "value": [10.0, 11, 10, 12, 20, 21, 22, 21]})
    >>> reps = replicates_of_rows(rows, item="patient", rater="method", label="value")
    >>> reps.ratings.n_items, reps.most_replicates, sorted(set(reps.subject.values()))
    (4, 2, [1, 2])
    """
    require_columns([c for c in (item, rater, label, replicate) if c], list(frame.columns))
    rows = pd.DataFrame(
        {
            "item": frame[item].to_numpy(),
            "rater": frame[rater].to_numpy(),
            "label": frame[label].to_numpy(),
            "row": np.arange(len(frame)),
        }
    )
    if replicate is not None:
        rows["replicate"] = frame[replicate].to_numpy()
    rows = rows[rows["label"].notna()].reset_index(drop=True)
    numbers = _numbered(rows, replicate)
    codes, cells = pd.factorize(pd.MultiIndex.from_arrays([rows["item"].to_numpy(), numbers]))
    ratings = Ratings.from_arrays(
        codes, rows["rater"].to_numpy(), rows["label"].to_numpy(), level=level,
        columns=(item, rater, label), na_values=na_values, labels_as=labels_as,
    )  # fmt: skip
    of_cell = cells.get_level_values(0).tolist()
    subject = {code: of_cell[code] for code in ratings.items.tolist()}
    most = rows.groupby(["item", "rater"], sort=False).size()
    return Replicates(
        ratings=ratings,
        subject=subject,
        n_subjects=int(rows["item"].nunique()),
        most_replicates=int(most.max()) if len(most) else 0,
        replicate=replicate,
    )
