"""Readers: ratings from CSV/TSV, Parquet and JSON Lines files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, TypedDict, Unpack

import pandas as pd

from .._errors import (
    FileReadError,
    InvalidInputError,
    SpansNotRatingsError,
    offers,
    option,
    require,
)
from .._types import Duplicates, Level, Missing
from .._validate import CSV_NULLS, check_choice, require_columns
from ..data.encoder import LabelsAs, arrow_of, typed_column
from ..data.frames import Declared, declared_categories, require_unique_columns, written_categorical
from ..data.ratings import Ratings, encode_columns
from .exports import (
    EXPORT_TOOLS,
    Encode,
    EncodeOptions,
    ExportTool,
    accord_output,
    export_tool,
    is_json_array,
)
from .files import (
    check_file,
    check_memory_read,
    plain_suffix,
    read_csv_columns,
    reading,
    repeated_json_keys,
    sniff_csv,
    sniff_text,
    text_columns,
)

__all__ = [
    "FileFormat",
    "FileOptions",
    "format_of",
    "read_columns",
    "read_export",
    "read_ratings",
    "read_ratings_and_rows",
    "read_table",
]

FileFormat = Literal["csv", "tsv", "parquet", "jsonl"]


class FileOptions(TypedDict, total=False):
    """How a file is read, for :func:`read_table` and :func:`read_columns` (``**files``).

    Attributes
    ----------
    file_format : {"csv", "tsv", "parquet", "jsonl"} or None
        The format; default (None): told by the name's suffix, a compression suffix looked
        through (:func:`format_of`).
    sep : str or None
        The CSV/TSV separator; default (None): sniffed from the header.
    encoding : str or None
        The text encoding, a Python codec name; default (None): UTF-8, a byte-order mark
        honoured.
    """

    file_format: FileFormat | None
    sep: str | None
    encoding: str | None


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


def format_of(path: Path, file_format: FileFormat | None) -> FileFormat:
    """The format of a file: ``file_format`` when given, else told by the name's suffix
    (a compression suffix is looked through).

    >>> format_of(Path("ratings.csv.gz"), None)
    'csv'
    """
    if file_format is not None:
        check_choice("file_format", file_format, ("csv", "tsv", "parquet", "jsonl"), "read_ratings")
        return file_format
    suffix = plain_suffix(path)
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    raise InvalidInputError(_unknown_format(path, suffix))


def _columns() -> str:
    """``item=, rater= and label=`` in the caller's words (``--item, --rater and --label``).

    >>> _columns()
    'item=, rater= and label='
    """
    item, rater, label = (option(k).strip() for k in ("item", "rater", "label"))
    return f"{item}, {rater} and {label}"


#: Spreadsheets' suffixes: a workbook is not read, its sheet saved as CSV is.
_SPREADSHEETS = (".xlsx", ".xlsm", ".xls", ".ods", ".numbers")


def _unknown_format(path: Path, suffix: str) -> str:
    """Why a file is not read: a spreadsheet, standard input, or a name that says no format;
    with what to do, where the caller can give the format (``file_format=``), else which
    names are read.

    >>> print(_unknown_format(Path("scores.xlsx"), ".xlsx"))
    scores.xlsx is a spreadsheet (.xlsx): accord reads CSV, TSV, Parquet and JSON Lines; save the sheet as CSV
    """  # noqa: E501
    if suffix in _SPREADSHEETS:
        return (
            f"{path} is a spreadsheet ({suffix}): accord reads CSV, TSV, Parquet and JSON Lines; "
            "save the sheet as CSV"
        )
    what = (
        "standard input is not read as a file of ratings"
        if str(path) in ("-", "/dev/stdin", "/dev/fd/0")
        else "cannot tell the file format from the name"
    )
    if offers("file_format"):
        return f"{path}: {what}; pass {option('file_format', 'csv', 'tsv', 'parquet', 'jsonl')}"
    return (
        f"{path}: {what}; accord reads files named .csv, .tsv, .parquet or .jsonl (or "
        ".csv.gz, compressed): save the ratings under such a name"
    )


def read_table(
    path: str | Path,
    columns: Sequence[str],
    *,
    na_values: Sequence[str] | None = None,
    **files: Unpack[FileOptions],
) -> pd.DataFrame:
    """Read the named columns of a CSV/TSV, Parquet or JSON Lines file into pandas, the file
    read as ``**files`` (:class:`FileOptions`) says.

    The text of a CSV/TSV file is missing (NaN) when empty or one of ``na_values`` (default
    :data:`accord._validate.DEFAULT_NA_VALUES`; ``[]``: empty cells only).

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

    The formats are those of :func:`accord.read_ratings`, whose References name their
    definitions.
    """
    columns_read, text = read_columns(path, columns, **files)
    return _frame(list(dict.fromkeys(columns)), columns_read, text, na_values)


def _frame(
    names: list[str], columns: list[Any], text: bool, na_values: Sequence[str] | None
) -> pd.DataFrame:
    """The columns read by :func:`read_columns` as a pandas frame: a CSV/TSV file's each
    typed from all its values (numbers, booleans or text), never by block."""
    if text:
        return pd.DataFrame(
            {name: typed_column(col, na_values) for name, col in zip(names, columns, strict=True)}
        )
    import pyarrow as pa

    frame: pd.DataFrame = pa.table(dict(zip(names, columns, strict=True))).to_pandas()
    return frame


def read_ratings_and_rows(
    path: str | Path,
    columns: Sequence[str],
    *,
    item: str,
    rater: str,
    label: str,
    file_format: FileFormat | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    **encode: Any,
) -> tuple[Ratings, pd.DataFrame]:
    """One read of ``path``: the ratings of its ``item``, ``rater`` and ``label`` columns
    (as :func:`read_ratings` reads them, ``encode`` its ``level``, ``categories``,
    ``missing``, ``duplicates``, ``na_values``, ``labels_as`` and ``multi_label``) and the
    rows of those and the other ``columns`` (as :func:`read_table` reads them)."""
    _check_json_lines(path, file_format)
    names = list(dict.fromkeys((item, rater, label, *columns)))
    read, text = read_columns(path, names, file_format=file_format, sep=sep, encoding=encoding)
    frame = _frame(names, read, text, encode.get("na_values"))
    by_name = dict(zip(names, read, strict=True))
    native = None if text else _declared(path, label, by_name[label], file_format)
    ratings = encode_columns(by_name[item], by_name[rater], by_name[label],
                             columns=(item, rater, label), source=str(path), text=text,
                             native=native, **encode)  # fmt: skip
    return ratings, frame


def read_columns(
    path: str | Path,
    columns: Sequence[str],
    *,
    dictionary: Sequence[str] = (),
    **files: Unpack[FileOptions],
) -> tuple[list[Any], bool]:
    """Read the named columns of a file as Arrow arrays, one per distinct name, the file read
    as ``**files`` (:class:`FileOptions`) says.

    CSV/TSV files are read by ``pyarrow.csv`` (multi-threaded) with every named column as
    text, so that no value far down a file can contradict a type guessed from its first
    rows; the second value returned is True then, and the columns are typed afterwards
    from all their distinct values (:func:`accord.data.encoder.typed_text`). Each text column
    comes dictionary-encoded, hashed block by block as it is parsed
    (:func:`~accord.io.files.read_csv_columns`), for
    :func:`~accord.data.encoder.dictionary_of`. Only empty cells are null; every other
    missing-value spelling is left to the encoder's rule. Parquet columns keep their types,
    and those of its text columns named in ``dictionary`` come as Arrow dictionaries (as
    Parquet stores a column of few distinct values, such as raters and labels: no string per
    row is made, and only the distinct values are hashed); JSON Lines values keep theirs,
    and a column that mixes numbers and text is text.

    Raises :class:`ColumnNotFoundError` listing the columns the file has, and
    ``FileNotFoundError`` when there is no such file.
    """
    p = check_file(path)
    fmt = format_of(p, files.get("file_format"))
    encoding = files.get("encoding")
    wanted = list(dict.fromkeys(columns))
    if fmt in ("csv", "tsv"):
        dialect = sniff_csv(
            p, sep=files.get("sep"), encoding=encoding, default_sep="\t" if fmt == "tsv" else ","
        )
        dialect.require(wanted)
        check_memory_read(dialect.path, dialect.compression)
        table = read_csv_columns(dialect, wanted, null_values=CSV_NULLS, dictionary=True)
        return [table.column(name) for name in wanted], True
    if fmt == "parquet":
        pq: Any = require("pyarrow.parquet", "parquet")
        import pyarrow as pa

        with reading(p, "Parquet"):
            schema = pq.read_schema(p)
        schema_names = list(schema.names)
        require_columns(wanted, schema_names, where=str(p))
        require_unique_columns(wanted, schema_names, where=str(p))
        text = text_columns(schema, [name for name in dictionary if name in wanted])
        with reading(p, "Parquet"):
            table = pq.read_table(p, columns=wanted, read_dictionary=text or None)
        # Decompression buffers go back to the system, not to the pool's free lists.
        pa.default_memory_pool().release_unused()
        return [table.column(name) for name in wanted], False
    sniff = sniff_text(p, encoding=encoding, what="JSON Lines")
    check_memory_read(sniff.path, sniff.compression)
    with reading(p, "JSON Lines", sniff), sniff.open() as fh:
        frame = pd.read_json(fh, lines=True, dtype=False, encoding=sniff.encoding)
    require_columns(wanted, list(frame.columns), where=str(p))
    repeated = repeated_json_keys(sniff, wanted)
    if repeated is not None:
        raise FileReadError(repeated)
    return [arrow_of(frame[name]) for name in wanted], False


def read_export(
    path: str | Path,
    tool: ExportTool,
    *,
    field: str | None = None,
    level: Level | None = None,
    **options: Unpack[EncodeOptions],
) -> Ratings:
    """Read the ratings of an annotation tool's export with the tool's reader.

    Parameters
    ----------
    path : str or Path
        The export.
    tool : {"label-studio", "prodigy", "argilla", "pairwise"}
        :func:`accord.read_label_studio`, :func:`accord.read_prodigy`,
        :func:`accord.read_argilla` or :func:`accord.read_pairwise`.
    field : str, optional
        The control (Label Studio) or question (Argilla) to read.
    level : {"nominal", "ordinal", "interval", "ratio"}, optional
        As in :meth:`accord.Ratings.from_long`; None: the reader's default.
    **options
        ``categories``, ``missing``, ``duplicates``, ``multi_label``, ``na_values`` and
        ``labels_as``, as in :func:`accord.read_label_studio`
        (:class:`~accord.io.exports.EncodeOptions`).

    Raises
    ------
    InvalidInputError
        An option the tool's reader does not take, or spans where ratings were asked for.

    Examples
    --------
    >>> from accord import datasets
    >>> r = read_export(datasets.path("annotation-tools") / "prodigy_choice.jsonl", "prodigy")
    >>> r.n_items, r.n_raters
    (3, 2)
    """
    from ..data.spans import Spans
    from .argilla import read_argilla
    from .label_studio import read_label_studio
    from .prodigy import read_prodigy

    encode = Encode.of("read_export", options)
    check_choice("tool", tool, EXPORT_TOOLS, "read_export")
    if field is not None and tool in ("prodigy", "pairwise"):
        raise InvalidInputError(f"{option('field', field)} does not apply to a {tool} export")
    if tool == "pairwise":
        return _read_pairwise(path, level, encode)
    read: Ratings | Spans
    if tool == "prodigy":
        read = read_prodigy(path, level=level or "nominal", **options)
    elif tool == "argilla":
        read = read_argilla(path, field=field, level=level, **options)
    else:
        read = read_label_studio(path, field=field, level=level, **options)
    if isinstance(read, Spans):
        raise SpansNotRatingsError(
            f"{path}: the answers are text spans, not ratings: read them with "
            f"accord.read_{tool.replace('-', '_')} and measure them with span_agreement",
            read,
        )
    return read


def _read_pairwise(path: str | Path, level: Level | None, encode: Encode) -> Ratings:
    """Pairwise judgments, which are nominal: of the encoding, only ``duplicates`` applies."""
    from .pairwise import read_pairwise

    if (
        level not in (None, "nominal")
        or encode.categories is not None
        or encode.missing != "omit"
        or encode.multi_label
        or encode.na_values is not None
        or encode.labels_as != "auto"
    ):
        raise InvalidInputError(
            "pairwise judgments are nominal (the model preferred, or a tie): only "
            "duplicates= applies"
        )
    return read_pairwise(path, duplicates=encode.duplicates)


def read_ratings(
    path: str | Path,
    *,
    item: str | None = None,
    rater: str | None = None,
    label: str | None = None,
    level: Level = "nominal",
    categories: Sequence[Any] | None = None,
    missing: Missing = "omit",
    duplicates: Duplicates = "raise",
    file_format: FileFormat | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    na_values: Sequence[str] | None = None,
    labels_as: LabelsAs = "auto",
    multi_label: bool = False,
    field: str | None = None,
) -> Ratings:
    """Read long ratings (one row per rating) from a file.

    Parameters
    ----------
    path : str, Path or DataFrame-like
        A ``.csv``, ``.tsv``, ``.parquet`` or ``.jsonl`` file (compressed CSV works too); a
        frame already in memory is read by :meth:`accord.Ratings.from_long`.
    item, rater, label : str, optional
        Column names. Leave all three out to read an annotation tool's export, recognised
        by its content: a JSON array of tasks with ``annotations`` (Label Studio), records
        with ``_annotator_id`` or ``_input_hash`` (Prodigy), records with ``responses``
        (Argilla), records with ``question_id``, ``model_a``, ``model_b``, ``judge`` and
        ``winner`` (pairwise judgments); see :func:`read_export`. An export's answers take
        ``categories``, ``missing``, ``duplicates``, ``na_values`` and ``labels_as`` as a
        table's labels do (``file_format``, ``sep`` and ``encoding`` do not apply).
    level, categories, missing, duplicates, na_values, labels_as, multi_label
        As in :meth:`accord.Ratings.from_long`. With ``multi_label=True`` the rows of one
        (item, rater) make its set of labels; a Parquet or JSON Lines label column may also
        hold lists (``[]`` is the empty set). A CSV cell is one label. The columns of a
        CSV/TSV file are read as text and each is typed from all its values: numbers when
        every value is a number, else text (``labels_as`` overrides this for the labels).
        Ids are compared as written: ``001`` and ``1`` are two items.
    file_format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Overrides the format guessed from the suffix.
    sep : str, optional
        Field separator for CSV/TSV.
    encoding : str, optional
        Text encoding of a CSV/TSV or JSON Lines file (a Python codec name such as
        ``"latin-1"`` or ``"cp1252"``); default UTF-8, with or without a byte-order mark.
    field : str, optional
        For an annotation-tool export: the Label Studio control or Argilla question to read.

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

    An annotation tool's export needs no column names:

    >>> export = accord.datasets.path("annotation-tools") / "label_studio.json"
    >>> r = accord.read_ratings(export, field="quality", level="ordinal")
    >>> r.categories
    (1, 2, 3, 4, 5)
    """
    given = [name for name in (item, rater, label) if name is not None]
    if isinstance(path, str | Path) and not given:
        tool = export_tool(path)
        ignored = [
            option(k, v)
            for k, v in (("file_format", file_format), ("sep", sep), ("encoding", encoding))
            if v is not None
        ]
        if tool is not None and ignored:
            raise InvalidInputError(
                f"{path} is a {tool} export, read as its tool writes it (UTF-8 JSON or "
                f"Parquet): {', '.join(ignored)} does not apply"
            )
        made = accord_output(path) if tool is None else None
        if made is not None:
            raise InvalidInputError(f"{path} is {made}: results, not ratings to read")
        if tool is None:
            raise InvalidInputError(
                f"{path}: pass {_columns()} (the columns to read); the file is "
                "not an annotation-tool export accord recognises (Label Studio, Prodigy, "
                "Argilla, pairwise judgments)"
            )
        return read_export(
            path,
            tool,
            field=field,
            level=level,
            categories=categories,
            missing=missing,
            duplicates=duplicates,
            multi_label=True if multi_label else None,
            na_values=na_values,
            labels_as=labels_as,
        )
    if field is not None:
        raise InvalidInputError(
            "field= names the control or question of an annotation-tool export; a table's "
            "columns are item=, rater= and label="
        )
    if item is None or rater is None or label is None:
        raise InvalidInputError(
            f"pass {_columns()} together (the columns to read)"
            + (", or none of them for an annotation-tool export" if given else "")
        )
    if not isinstance(path, str | Path):  # a frame in memory: no file to read
        return Ratings.from_long(
            path, item=item, rater=rater, label=label, level=level, categories=categories,
            missing=missing, duplicates=duplicates, na_values=na_values, labels_as=labels_as,
            multi_label=multi_label,
        )  # fmt: skip
    _check_json_lines(path, file_format)
    names = list(dict.fromkeys((item, rater, label)))
    # raters and labels, few distinct values, as Arrow dictionaries (where the file has them)
    few = [name for name in (rater, label) if name != item]
    read, text = read_columns(
        path, names, dictionary=few, file_format=file_format, sep=sep, encoding=encoding
    )
    by_name = dict(zip(names, read, strict=True))
    # The encoder is handed the only references to the columns, so that each is let go as
    # soon as it is encoded.
    columns = [by_name[item], by_name[rater], by_name[label]]
    native = None if text else _declared(path, label, columns[2], file_format)
    del read, by_name
    return encode_columns(
        columns.pop(0),
        columns.pop(0),
        columns.pop(0),
        multi_label=multi_label,
        level=level,
        categories=categories,
        missing=missing,
        duplicates=duplicates,
        columns=(item, rater, label),
        source=str(path),
        na_values=na_values,
        labels_as=labels_as,
        text=text,
        native=native,
    )


def _check_json_lines(path: str | Path, file_format: FileFormat | None) -> None:
    """A file read as JSON Lines that holds one JSON array is an error saying so."""
    if file_format in (None, "jsonl") and is_json_array(path):
        raise InvalidInputError(
            f"{path} holds one JSON array, not JSON Lines (one record a line); an "
            "annotation-tool export (Label Studio, pairwise judgments) is read without item=, "
            "rater= and label="
        )


def _declared(
    path: str | Path, name: str, column: Any, file_format: FileFormat | None
) -> Declared | None:
    """The categories the label column ``name`` of a Parquet or JSON Lines file declares
    (:func:`accord.data.frames.declared_categories`)."""
    return declared_categories(column, categorical=_categorical(path, name, column, file_format))


def _categorical(path: str | Path, name: str, column: Any, file_format: FileFormat | None) -> bool:
    """Whether the pandas metadata of a Parquet file says its dictionary column ``name``
    was written from a pandas Categorical (whose categories are then the dictionary, used
    or not)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not pa.types.is_dictionary(column.type) or format_of(Path(path), file_format) != "parquet":
        return False

    with reading(path, "Parquet"):
        return written_categorical(pq.read_schema(path), name)
