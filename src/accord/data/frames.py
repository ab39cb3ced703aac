"""Columns of any frame (pandas, polars, pyarrow, DuckDB, anything narwhals reads) by name.

The named columns are checked once (:func:`accord._validate.require_columns`) and returned as
Arrow arrays without copies where the storage allows (:func:`arrow_columns_of`), or as numpy
(:func:`columns_of`).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError
from .._validate import require_columns, tidy_scalar

__all__ = ["arrow_columns_of", "columns_of", "frame_to_pandas", "ordered_categories"]


def ordered_categories(series: Any) -> tuple[Any, ...] | None:
    """The categories of an ordered pandas Categorical, else None."""
    dtype = getattr(series, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered:
        return tuple(tidy_scalar(c) for c in dtype.categories)
    return None


def frame_to_pandas(data: Any) -> pd.DataFrame:
    """Any frame narwhals reads (polars, pyarrow, DuckDB, ...) as a pandas DataFrame."""
    frame = _collected(_narwhals_frame(data, ", or a 2-D array"))
    return cast(pd.DataFrame, frame.to_pandas())


def columns_of(
    data: Any, names: tuple[str, ...]
) -> tuple[list[npt.NDArray[Any]], tuple[Any, ...] | None, str]:
    """Named columns of any frame as numpy arrays (:func:`arrow_columns_of`, converted)."""
    columns, native, source = arrow_columns_of(data, names)
    return [np.asarray(column.to_numpy()) for column in columns], native, source


def arrow_columns_of(data: Any, names: tuple[str, ...]) -> tuple[list[Any], Any, str]:
    """Named columns of any frame as Arrow arrays (without copies where the storage allows),
    the categories of an ordered pandas Categorical label column, and the kind of source."""
    import pyarrow as pa

    if isinstance(data, pd.DataFrame):
        available = list(data.columns)
        require_columns(names, available)
        _require_once(names, available)
        return (
            [data[name] for name in names],
            ordered_categories(data[names[-1]]),
            "pandas.DataFrame",
        )
    if isinstance(data, pa.Table | pa.RecordBatch):
        available = list(data.column_names)
        require_columns(names, available)
        _require_once(names, available)
        return [data.column(name) for name in names], None, "pyarrow frame"
    import narwhals as nw

    frame = _narwhals_frame(data, " (or use Ratings.from_arrays)")
    if isinstance(frame, nw.LazyFrame):
        available = list(frame.collect_schema().names())
    else:
        available = list(frame.columns)
    require_columns(names, available)
    table = _collected(frame.select(list(dict.fromkeys(names)))).to_arrow()
    source = type(data).__module__.split(".")[0] + " frame"
    return [table.column(name) for name in names], None, source


def _require_once(names: tuple[str, ...], available: list[Any]) -> None:
    """Each named column appears once in the frame (a pandas or pyarrow frame may hold two
    columns of one name, and which one is meant is not for accord to guess).

    >>> _require_once(("item", "label"), ["item", "label", "label"])
    Traceback (most recent call last):
    ...
    accord._errors.InvalidInputError: column 'label' appears 2 times in the frame; rename \
the copies so that each column has its own name
    """
    for name in dict.fromkeys(names):
        times = available.count(name)
        if times > 1:
            raise InvalidInputError(
                f"column {name!r} appears {times} times in the frame; rename the copies so "
                "that each column has its own name"
            )


def _narwhals_frame(data: Any, alternative: str) -> Any:
    """``data`` as a narwhals frame (lazy or eager); what it cannot read is named in the
    error, with ``alternative`` ways to pass the ratings."""
    import narwhals as nw

    try:
        return nw.from_native(data)
    except TypeError:
        raise InvalidInputError(
            f"cannot read ratings from a {type(data).__name__}; pass a pandas, polars, pyarrow "
            f"or DuckDB table{alternative}"
        ) from None


def _collected(frame: Any) -> Any:
    """A narwhals frame made eager (a lazy one collected)."""
    import narwhals as nw

    return frame.collect() if isinstance(frame, nw.LazyFrame) else frame
