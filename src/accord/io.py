"""Readers: ratings from CSV/TSV, Parquet and JSON Lines files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from ._errors import ColumnNotFoundError, InvalidInputError, require
from ._files import check_file, read_csv_columns, reading, sniff_csv, sniff_text
from ._types import Duplicates, Level, Missing
from .ratings import Ratings, _missing_column_message

__all__ = ["read_ratings", "read_table"]

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
    encoding: str | None = None,
) -> pd.DataFrame:
    """Read the named columns of a CSV/TSV, Parquet or JSON Lines file into pandas.

    CSV/TSV files may be compressed (gzip, bz2, zstd, xz: told by their first bytes) and
    start with a byte-order mark; ``encoding`` (a Python codec name, default UTF-8) reads
    other encodings, such as ``"latin-1"``.

    Raises :class:`ColumnNotFoundError` listing the columns the file has (and, when a CSV
    header is one cell holding ``;``, a tab or ``|``, the separator it looks like), and
    ``FileNotFoundError``, ``IsADirectoryError`` or ``PermissionError`` when the file cannot
    be opened. A damaged or truncated file, binary content, a byte the encoding cannot
    decode (named by its offset), a row with more or fewer fields than the header (named by
    its line) and a column named twice in the header raise
    :class:`~accord._errors.FileReadError` / :class:`InvalidInputError`.

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
    p = check_file(path)
    fmt = _format_of(p, file_format)
    wanted = list(dict.fromkeys(columns))
    if fmt in ("csv", "tsv"):
        dialect = sniff_csv(
            p, sep=sep, encoding=encoding, default_sep="\t" if fmt == "tsv" else ","
        )
        dialect.require(wanted)
        from .engines._encode import CSV_NULLS, infer_text

        table = read_csv_columns(dialect, wanted, null_values=CSV_NULLS)
        frame = pd.DataFrame(
            {name: _typed(table.column(name), infer_text) for name in wanted}, columns=wanted
        )
    elif fmt == "parquet":
        pq: Any = require("pyarrow.parquet", "parquet")
        with reading(p, "Parquet"):
            schema_names = list(pq.read_schema(p).names)
        for name in wanted:
            if name not in schema_names:
                raise ColumnNotFoundError(f"{p}: {_missing_column_message(name, schema_names)}")
        with reading(p, "Parquet"):
            frame = pq.read_table(p, columns=wanted).to_pandas()
    else:
        sniff = sniff_text(p, encoding=encoding, what="JSON Lines")
        with reading(p, "JSON Lines", sniff), sniff.open() as fh:
            frame = pd.read_json(fh, lines=True, dtype=False, encoding=sniff.encoding)
        available = list(frame.columns)
        for name in wanted:
            if name not in available:
                raise ColumnNotFoundError(f"{p}: {_missing_column_message(name, available)}")
        frame = frame[wanted]
    return frame


def _typed(column: Any, infer: Any) -> npt.NDArray[Any]:
    """A text column typed from its distinct values (numbers, booleans or text), as
    ``pandas.read_csv`` would type it with the whole column at once; null cells are NaN."""
    encoded = column.dictionary_encode().combine_chunks()
    nulls = encoded.indices.is_null().to_numpy(zero_copy_only=False)
    if len(encoded.dictionary) == 0:
        return np.full(len(encoded), np.nan)
    values = infer(encoded.dictionary.to_numpy(zero_copy_only=False))
    indices = encoded.indices.fill_null(0).to_numpy(zero_copy_only=False)
    if not nulls.any():
        out: npt.NDArray[Any] = values[indices]
        return out
    kind = np.float64 if values.dtype.kind in "iuf" else object
    out = values.astype(kind)[indices]
    out[nulls] = np.nan
    return out


def read_ratings(
    path: str | Path | Any,
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
    encoding: str | None = None,
) -> Ratings:
    """Read long ratings (one row per rating) from a file.

    Parameters
    ----------
    path : str, Path or DataFrame-like
        A ``.csv``, ``.tsv``, ``.parquet`` or ``.jsonl`` file (compressed CSV works too); a
        frame already in memory is read by :meth:`accord.Ratings.from_long`.
    item, rater, label : str
        Column names.
    level, categories, missing, duplicates
        As in :meth:`accord.Ratings.from_long`.
    file_format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Overrides the format guessed from the suffix.
    sep : str, optional
        Field separator for CSV/TSV (one character; default ``,``, a tab for ``.tsv``).
    encoding : str, optional
        Text encoding of a CSV/TSV or JSON Lines file (a Python codec name such as
        ``"latin-1"`` or ``"cp1252"``); default UTF-8, with or without a byte-order mark.

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
    if not isinstance(path, str | Path):  # a frame in memory: no file to read
        return Ratings.from_long(
            path, item=item, rater=rater, label=label, level=level, categories=categories,
            missing=missing, duplicates=duplicates,
        )  # fmt: skip
    frame = read_table(
        path, (item, rater, label), file_format=file_format, sep=sep, encoding=encoding
    )
    ratings = Ratings.from_long(
        frame,
        item=item,
        rater=rater,
        label=label,
        level=level,
        categories=categories,
        missing=missing,
        duplicates=duplicates,
    )
    import dataclasses

    return dataclasses.replace(
        ratings, report=dataclasses.replace(ratings.report, source=str(path))
    )
