"""Columns of any frame (pandas, polars, pyarrow, DuckDB, anything narwhals reads) by name.

The named columns are checked once (:func:`accord._validate.require_columns`) and returned as
Arrow arrays without copies where the storage allows (:func:`arrow_columns_of`), or as numpy
(:func:`columns_of`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError
from .._validate import require_columns, tidy_scalar

Declared = tuple[tuple[Any, ...], bool]
"""Categories a column declares itself, and whether they are ordered."""

__all__ = [
    "Declared",
    "arrow_columns_of",
    "columns_of",
    "declared_categories",
    "frame_to_pandas",
    "require_unique_columns",
    "written_categorical",
]


def declared_categories(column: Any, *, categorical: bool = False) -> Declared | None:
    """The categories a label column declares itself, and whether they are ordered.

    A pandas ``Categorical`` declares its categories, ordered or not; an Arrow dictionary
    column marked ordered (a polars ``Enum``, a Parquet column written from an ordered
    pandas Categorical) declares its dictionary, in order. An Arrow dictionary that is not
    marked ordered is only a way to store the values (its entries may be just those seen),
    unless ``categorical`` says it was written from a pandas Categorical (the pandas
    metadata of a Parquet file). None: the column declares nothing.

    >>> s = pd.Series(pd.Categorical(["b", "a"], categories=["c", "a", "b"]))
    >>> declared_categories(s)
    (('c', 'a', 'b'), False)
    >>> import pyarrow as pa
    >>> enum = pa.array(["lo", "hi"]).dictionary_encode()
    >>> declared_categories(enum) is None
    True
    """
    import pyarrow as pa

    dtype = getattr(column, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype):
        return tuple(tidy_scalar(c) for c in dtype.categories), bool(dtype.ordered)
    kind = getattr(column, "type", None)
    if not isinstance(kind, pa.DictionaryType) or not (kind.ordered or categorical):
        return None
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    dictionaries = [chunk.dictionary for chunk in chunks]
    if not dictionaries or any(not d.equals(dictionaries[0]) for d in dictionaries[1:]):
        return None  # no one list of categories
    return tuple(tidy_scalar(v) for v in dictionaries[0].to_pylist()), bool(kind.ordered)


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
    the categories the label column declares (:func:`declared_categories`), and the kind
    of source."""
    import pyarrow as pa

    if isinstance(data, pd.DataFrame):
        available = list(data.columns)
        require_columns(names, available)
        require_unique_columns(names, available)
        return (
            [data[name] for name in names],
            declared_categories(data[names[-1]]),
            "pandas.DataFrame",
        )
    if isinstance(data, pa.Table | pa.RecordBatch):
        available = list(data.column_names)
        require_columns(names, available)
        require_unique_columns(names, available)
        label = data.column(names[-1])
        return [data.column(name) for name in names], declared_categories(label), "pyarrow frame"
    import narwhals as nw

    frame = _narwhals_frame(data, " (or use Ratings.from_arrays)")
    if isinstance(frame, nw.LazyFrame):
        available = list(frame.collect_schema().names())
    else:
        available = list(frame.columns)
    require_columns(names, available)
    table = _collected(frame.select(list(dict.fromkeys(names)))).to_arrow()
    source = type(data).__module__.split(".")[0] + " frame"
    columns = [table.column(name) for name in names]
    return columns, declared_categories(columns[-1]), source


def written_categorical(schema: Any, name: str) -> bool:
    """Whether the pandas metadata of an Arrow schema (a Parquet file written by pandas)
    says column ``name`` was a pandas Categorical."""
    pandas = schema.pandas_metadata or {}
    return any(
        c.get("name") == name and c.get("pandas_type") == "categorical"
        for c in pandas.get("columns", [])
    )


def require_unique_columns(
    names: Sequence[str], available: Sequence[Any], *, where: str = "the frame"
) -> None:
    """Each of ``names`` is the name of one column only (a pandas frame or an Arrow table
    may name two columns alike; a column chosen by that name would be two columns).

    >>> require_unique_columns(("item", "label"), ["item", "label", "label"])
    Traceback (most recent call last):
    ...
    accord._errors.InvalidInputError: the frame has 2 columns named 'label' (columns 2, 3, \
counted from 1); rename all but one
    """
    for name in dict.fromkeys(names):
        places = [i + 1 for i, column in enumerate(available) if column == name]
        if len(places) > 1:
            raise InvalidInputError(
                f"{where} has {len(places)} columns named {name!r} (columns "
                f"{', '.join(map(str, places))}, counted from 1); rename all but one"
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
