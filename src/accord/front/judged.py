"""The front door of judge-corrected rates on files too large to read whole.

An evaluation log holds one row per item: the judge's verdict, and a human's where a human
checked it (empty elsewhere). :func:`judge_counts` reads the two columns in batches through
the engines' fold and sums each batch into :class:`~accord.JudgeCounts` (the labelled items'
confusion table and the judge's label counts on the others), which merge; the estimators
(:func:`~accord.corrected_rate_from_counts`, :func:`~accord.corrected_distribution_from_counts`,
:func:`~accord.prediction_powered_mean_from_moments`) then run once on the counts. Memory is
bounded by a batch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._errors import InvalidInputError
from .._validate import at_rows
from ..engines.fold import fold_batches, part_columns
from ..judges.judged_counts import JudgeCounts
from ._files import batch_dataset

__all__ = ["judge_counts"]


@dataclasses.dataclass(frozen=True, slots=True)
class _Summary:
    """The :class:`JudgeCounts` of one batch of ``(judge, human)`` rows."""

    columns: tuple[str, ...]
    categories: tuple[Any, ...]

    def __call__(self, part: Any, row0: int) -> JudgeCounts:
        arrays = part_columns(part, self.columns)
        judged = arrays[0]
        missing = np.asarray(pd.isna(judged))
        if missing.any():
            rows = at_rows(np.flatnonzero(missing) + row0)
            raise InvalidInputError(f"column {self.columns[0]!r} is empty in {rows}")
        if len(arrays) == 1:
            empty = judged[:0]
            return JudgeCounts.from_labels(empty, empty, judged, categories=self.categories)
        labelled = ~np.asarray(pd.isna(arrays[1]))
        return JudgeCounts.from_labels(
            arrays[1][labelled], judged[labelled], judged[~labelled], categories=self.categories
        )


def judge_counts(
    source: Any,
    *,
    judge: str,
    categories: Sequence[Any],
    human: str | None = None,
    batch_size: int = 1_000_000,
    sep: str | None = None,
) -> JudgeCounts:
    """The counts of a judge-corrected rate, read from files in batches.

    Parameters
    ----------
    source : path, list of paths or folder
        CSV, TSV, Parquet or JSON Lines files, one row per item.
    judge : str
        The column of the judge's labels (one per row; none empty).
    categories : sequence
        The labels, as the files hold them (the counts of every batch share them).
    human : str, optional
        The column of a human's labels, empty where no human labelled the item. Without
        it, every row is an unlabelled item (merge the counts of the labelled items with
        :meth:`JudgeCounts.merge`).
    batch_size : int, default 1,000,000
        Rows a batch.
    sep : str, optional
        The field separator of text files (default: sniffed).

    Returns
    -------
    JudgeCounts

    Raises
    ------
    InvalidInputError
        No file, a column missing, an empty judge label (its row named), a label outside
        ``categories``.

    Examples
    --------
    >>> import pathlib, tempfile, pandas as pd
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> checked = pd.array([1, 0, None, None, None], dtype="Int64")
    >>> log = pd.DataFrame({"verdict": [1, 1, 0, 1, 0], "checked": checked})
    >>> log.to_csv(folder / "log.csv", index=False)
    >>> counts = judge_counts(folder / "log.csv", judge="verdict", human="checked",
    ...                       categories=[0, 1], batch_size=2)
    >>> counts.confusion.tolist(), counts.unlabelled.tolist()
    ([[0, 1], [0, 1]], [2, 1])
    """
    columns = (judge,) if human is None else (judge, human)
    dataset, files, _ = batch_dataset(
        source, list(columns), batch_size=batch_size, file_format=None, sep=sep
    )
    summary = _Summary(columns, tuple(categories))
    counts = fold_batches(dataset, list(columns), batch_size, summary, JudgeCounts.merge)
    if counts is None:
        raise InvalidInputError(f"the input is empty: {files[0]} has no rows to read")
    return counts
