"""Readers: ratings from CSV/TSV, Parquet and JSON Lines files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from ._encoder import LabelsAs, arrow_of, typed_column
from ._errors import ColumnNotFoundError, InvalidInputError, require
from ._types import Duplicates, Level, Missing
from .ratings import Ratings, _missing_column_message, encode_ratings

__all__ = ["read_columns", "read_ratings", "read_table"]

FileFormat = Literal["csv", "tsv", "parquet", "jsonl"]

_SUFFIXES: dict[str, FileFormat] = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".txt": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}


def _format_of(path: Path, file_format: FileFormat | None) -> FileFormat:
    if file_format is not None:
        if file_format not in ("csv", "tsv", "parquet", "jsonl"):
            raise InvalidInputError(
                "The 'file_format' parameter of read_ratings must be one of "
                f"{{'csv', 'tsv', 'parquet', 'jsonl'}}. Got {file_format!r} instead."
            )
        return file_format
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".zst", ".xz", ".zip"):
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in _SUFFIXES:
        return _SUFFIXES[suffixes[-1]]
    raise InvalidInputError(
        f"{path}: cannot tell the file format from the name; pass file_format='csv', 'tsv', "
        "'parquet' or 'jsonl'"
    )


def read_table(
    path: str | Path,
    columns: Sequence[str],
    *,
    file_format: FileFormat | None = None,
    sep: str | None = None,
) -> pd.DataFrame:
    """Read the named columns of a CSV/TSV, Parquet or JSON Lines file into pandas.

    Raises :class:`ColumnNotFoundError` listing the columns the file has, and
    ``FileNotFoundError`` when there is no such file.

    References
    ----------
    .. [1] Shafranovich, Y. (2005). Common Format and MIME Type for Comma-Separated Values
       (CSV) Files. RFC 4180. IETF. https://doi.org/10.17487/RFC4180
    .. [2] IANA. Media type registration: text/tab-separated-values.
       https://www.iana.org/assignments/media-types/text/tab-separated-values
    .. [3] The Apache Software Foundation. Apache Parquet file format.
       https://parquet.apache.org/docs/file-format/
    .. [4] JSON Lines. https://jsonlines.org/
    """
    columns_read, text = read_columns(path, columns, file_format=file_format, sep=sep)
    wanted = list(dict.fromkeys(columns))
    if text:
        # Each column typed from all its values (numbers, booleans or text), never by block.
        return pd.DataFrame(
            {name: typed_column(col) for name, col in zip(wanted, columns_read, strict=True)}
        )
    import pyarrow as pa

    frame: pd.DataFrame = pa.table(dict(zip(wanted, columns_read, strict=True))).to_pandas()
    return frame


def read_columns(
    path: str | Path,
    columns: Sequence[str],
    *,
    file_format: FileFormat | None = None,
    sep: str | None = None,
) -> tuple[list[Any], bool]:
    """Read the named columns of a file as Arrow arrays, one per distinct name.

    CSV/TSV files are read by ``pyarrow.csv`` (multi-threaded) with every named column as
    text, so that no value far down a file can contradict a type guessed from its first
    rows; the second value returned is True then, and the columns are typed afterwards
    from all their values (:func:`accord._encoder.typed_text`). Only empty cells are null;
    every other missing-value spelling is left to the encoder's rule. Parquet columns keep
    their types; JSON Lines values keep theirs, and a column that mixes numbers and text is
    text.

    Raises :class:`ColumnNotFoundError` listing the columns the file has, and
    ``FileNotFoundError`` when there is no such file.
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(2, "No such file", str(p))
    if p.is_dir():
        raise IsADirectoryError(21, "Is a directory", str(p))
    fmt = _format_of(p, file_format)
    wanted = list(dict.fromkeys(columns))
    if fmt in ("csv", "tsv"):
        delimiter = sep if sep is not None else ("\t" if fmt == "tsv" else ",")
        try:
            header = pd.read_csv(p, sep=delimiter, nrows=0)
        except pd.errors.EmptyDataError:
            raise InvalidInputError(f"{p}: the file is empty") from None
        available = list(header.columns)
        for name in wanted:
            if name not in available:
                raise ColumnNotFoundError(f"{p}: {_missing_column_message(name, available)}")
        pa: Any = require("pyarrow", "parquet")
        import pyarrow.csv as pacsv

        try:
            table = pacsv.read_csv(
                p,
                parse_options=pacsv.ParseOptions(delimiter=delimiter),
                convert_options=pacsv.ConvertOptions(
                    include_columns=wanted,
                    column_types=dict.fromkeys(wanted, pa.string()),
                    strings_can_be_null=True,
                    quoted_strings_can_be_null=True,
                    null_values=[""],
                ),
            )
        except pa.ArrowInvalid as exc:
            raise InvalidInputError(f"{p}: cannot read the file ({exc})") from None
        return [table.column(name) for name in wanted], True
    if fmt == "parquet":
        pq: Any = require("pyarrow.parquet", "parquet")
        schema_names = list(pq.read_schema(p).names)
        for name in wanted:
            if name not in schema_names:
                raise ColumnNotFoundError(f"{p}: {_missing_column_message(name, schema_names)}")
        table = pq.read_table(p, columns=wanted)
        return [table.column(name) for name in wanted], False
    try:
        frame = pd.read_json(p, lines=True, dtype=False)
    except ValueError as exc:
        raise InvalidInputError(f"{p}: not valid JSON Lines ({exc})") from None
    available = list(frame.columns)
    for name in wanted:
        if name not in available:
            raise ColumnNotFoundError(f"{p}: {_missing_column_message(name, available)}")
    return [arrow_of(frame[name]) for name in wanted], False


def read_ratings(
    path: str | Path,
    *,
    item: str,
    rater: str,
    label: str,
    level: Level = "nominal",
    categories: Sequence[Any] | None = None,
    missing: Missing = "omit",
    duplicates: Duplicates = "raise",
    file_format: FileFormat | None = None,
    sep: str | None = None,
    na_values: Sequence[str] | None = None,
    labels_as: LabelsAs = "auto",
) -> Ratings:
    """Read long ratings (one row per rating) from a file.

    Parameters
    ----------
    path : str or Path
        A ``.csv``, ``.tsv``, ``.parquet`` or ``.jsonl`` file (compressed CSV works too).
    item, rater, label : str
        Column names.
    level, categories, missing, duplicates, na_values, labels_as
        As in :meth:`accord.Ratings.from_long`. The columns of a CSV/TSV file are read as
        text and each is typed from all its values: numbers when every value is a number,
        else text (``labels_as`` overrides this for the labels). Ids are compared as
        written: ``001`` and ``1`` are two items.
    file_format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Overrides the format guessed from the suffix.
    sep : str, optional
        Field separator for CSV/TSV.

    Returns
    -------
    Ratings
        With ``report.source`` set to the path.

    References
    ----------
    .. [1] Shafranovich, Y. (2005). Common Format and MIME Type for Comma-Separated Values
       (CSV) Files. RFC 4180. IETF. https://doi.org/10.17487/RFC4180
    .. [2] IANA. Media type registration: text/tab-separated-values.
       https://www.iana.org/assignments/media-types/text/tab-separated-values
    .. [3] The Apache Software Foundation. Apache Parquet file format.
       https://parquet.apache.org/docs/file-format/
    .. [4] JSON Lines. https://jsonlines.org/

    Examples
    --------
    >>> import accord, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "r.csv").write_text("item,rater,label\\n1,a,x\\n1,b,x\\n2,a,y\\n2,b,\\n")
    >>> r = accord.read_ratings(d / "r.csv", item="item", rater="rater", label="label")
    >>> print(r.report)  # doctest: +ELLIPSIS
    read 4 rows: 3 ratings of 2 items by 2 raters; dropped 1 (1 missing label)
    """
    names = list(dict.fromkeys((item, rater, label)))
    read, text = read_columns(path, names, file_format=file_format, sep=sep)
    by_name = dict(zip(names, read, strict=True))
    del read
    return encode_ratings(
        by_name[item],
        by_name[rater],
        by_name.pop(label),
        level=level,
        categories=categories,
        missing=missing,
        duplicates=duplicates,
        columns=(item, rater, label),
        source=str(path),
        na_values=na_values,
        labels_as=labels_as,
        text=text,
    )
