"""Files as users have them: checks before a read, and one-line errors when a read fails.

Before a file is parsed, :func:`check_file` makes sure it is there, is a file and can be
opened; :func:`sniff_text` looks at its first bytes to tell compression (by magic number, not
by name), a byte-order mark, binary content and the text encoding; :func:`sniff_csv` also
reads the header (duplicate names, a separator that looks wrong). When a parser fails anyway,
:func:`reading` turns its error (pyarrow, pandas, a decoder, a decompressor) into one
:class:`~accord._errors.FileReadError` that names the file and, where it can be found by a
second look at the file, the line or byte at fault. Nothing here runs on the success path
beyond reading the first block of the file.
"""

from __future__ import annotations

import bz2
import codecs
import contextlib
import csv
import dataclasses
import gzip
import io
import json
import lzma
import re
import stat
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Literal, TypeAlias

from .._errors import ColumnNotFoundError, FileReadError, InvalidInputError, hint

__all__ = [
    "MEMORY_PER_TEXT_BYTE",
    "Compression",
    "CsvDialect",
    "JsonLineError",
    "TextSniff",
    "available_memory",
    "check_encoding",
    "check_file",
    "check_header_rows",
    "check_json_lines",
    "check_memory_read",
    "decode_error_message",
    "header_cells",
    "json_lines",
    "json_value",
    "open_binary",
    "parse_separator",
    "plain_suffix",
    "read_csv_columns",
    "read_text_file",
    "reading",
    "repeated_header",
    "repeated_json_keys",
    "sniff_csv",
    "sniff_text",
    "text_columns",
    "text_lines",
]

Compression: TypeAlias = Literal["gzip", "bz2", "zstd", "xz"]
"""Compressions read transparently, told by the file's magic number."""

_HEAD = 1 << 16  # bytes looked at before a read
_MAGIC: tuple[tuple[bytes, Compression], ...] = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bz2"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"\xfd7zXZ\x00", "xz"),
)
_OTHER_FORMATS: tuple[tuple[bytes, str], ...] = (
    (b"PAR1", "a Parquet file"),
    (b"PK\x03\x04", "a zip archive (unzip it first)"),
    (b"\x89PNG", "a PNG image"),
    (b"%PDF", "a PDF document"),
    (b"\xd0\xcf\x11\xe0", "an old Excel/Office file (export it as CSV)"),
)
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
#: The first line Excel writes to name a CSV file's separator (``sep=;``), and reads.
_SEP_LINE = re.compile(r'"?sep=([^\r\n"])"?(?:\r\n|\r|\n)')
#: Separators a header of one cell is checked for.
_SEPARATORS = (",", ";", "\t", "|")
_SEPARATOR_NAMES = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe", " ": "space"}


#: Bytes of memory the memory engine needs per byte of text it reads, at the least: 10M
#: ratings as a 424 MB CSV file peaked at 1206 MB (2.8x; docs/engines.md), and short rows
#: need more (1.5 GB of rows inflated from a gzip file used 7 GB, 4.7x).
MEMORY_PER_TEXT_BYTE = 3
#: Compression ratio deflate (gzip) cannot exceed (1032:1): a gzip file this many times
#: smaller than the bound cannot inflate beyond it, and is not inflated to be measured.
_DEFLATE_MAX_RATIO = 1032


def available_memory() -> int | None:
    """Bytes of memory available to this process: the kernel's estimate (``MemAvailable``)
    or what is left under a cgroup's limit, the smaller; None where neither is known."""
    found: list[int] = []
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    with contextlib.suppress(OSError, ValueError):
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
        if limit != "max":
            found.append(max(int(limit) - int(used), 0))
    return min(found) if found else None


def _text_bound() -> int | None:
    """The most bytes of text the memory engine reads (None: no bound known)."""
    memory = available_memory()
    return None if memory is None else memory // MEMORY_PER_TEXT_BYTE


def _size(n: int) -> str:
    """Bytes in words.

    >>> _size(1_500_000_000), _size(2048)
    ('1.5 GB', '2.0 kB')
    """
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _inflated_size(path: Path, compression: Compression, bound: int) -> int:
    """Bytes of the decompressed file, counted block by block (none kept); counting stops
    past ``16 * bound``."""
    total = 0
    with open_binary(path, compression) as fh:
        while block := fh.read(1 << 20):
            total += len(block)
            if total > 16 * bound:
                break
    return total


def check_memory_read(path: Path, compression: Compression | None) -> None:
    """Refuse a text file too large for the memory engine before it is read (or inflated):
    its text, times :data:`MEMORY_PER_TEXT_BYTE`, more than the memory available.

    A compressed file is measured by inflating it once without keeping what it holds
    (skipped for a gzip file too small to reach the bound at deflate's highest ratio).

    Raises
    ------
    FileReadError
        Naming the size of the text and the stream engine, which reads in batches.
    """
    bound = _text_bound()
    if bound is None:
        return
    stored = path.stat().st_size
    if compression is None:
        size = stored
    elif compression == "gzip" and stored * _DEFLATE_MAX_RATIO <= bound:
        return
    else:
        size = _inflated_size(path, compression, bound)
    if size <= bound:
        return
    from .._errors import option

    what = (
        f"is {_size(size)} of text"
        if compression is None
        else f"inflates to {'more than ' if size > 16 * bound else ''}{_size(size)} of text "
        f"({_size(stored)} {compression}-compressed)"
    )
    raise FileReadError(
        f"{path} {what}: too large for the memory engine, which needs about "
        f"{MEMORY_PER_TEXT_BYTE} bytes of memory a byte of text, and "
        f"{_size(bound * MEMORY_PER_TEXT_BYTE)} are available; read it in batches with the "
        f"stream engine ({option('engine', 'stream')})"
    )


def plain_suffix(path: Path) -> str:
    """The last suffix of a file's name, in lower case, a compression suffix (``.gz``,
    ``.bz2``, ``.zst``, ``.xz``, ``.zip``) looked through; ``""`` when there is none.

    >>> plain_suffix(Path("ratings.CSV.gz")), plain_suffix(Path("README"))
    ('.csv', '')
    """
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".zst", ".xz", ".zip"):
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def check_file(path: str | Path) -> Path:
    """``path`` as a :class:`~pathlib.Path`, after checking it is a file that can be read.

    Raises the operating system's own errors, each naming the path:
    ``FileNotFoundError``, ``IsADirectoryError`` or ``PermissionError``; and
    :class:`~accord._errors.FileReadError` for a named pipe, a device or a socket, which
    is refused before it is opened: a file is read more than once (checked, then parsed),
    and a stream can be read only once (opening a pipe with no writer would wait forever).

    Examples
    --------
    >>> import tempfile
    >>> check_file(tempfile.gettempdir())
    Traceback (most recent call last):
    ...
    IsADirectoryError: [Errno 21] Is a directory: '...'
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(2, "No such file", str(p))
    if p.is_dir():
        raise IsADirectoryError(21, "Is a directory", str(p))
    if not p.is_file():
        raise FileReadError(
            f"{p} is {_kind_of(p)}, not a regular file: accord reads a file more than once "
            "(checked, then parsed); save the stream to a file and read that"
        )
    with p.open("rb"):  # PermissionError (with the file name) when it cannot be read
        pass
    return p


def _kind_of(path: Path) -> str:
    """What a file that is not a regular file is, in words."""
    mode = path.stat().st_mode
    for test, kind in (
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "a special file"


def _compression_of(head: bytes) -> Compression | None:
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def open_binary(path: Path, compression: Compression | None) -> IO[bytes]:
    """The file's bytes, decompressed when ``compression`` says so."""
    if compression is None:
        return path.open("rb")
    if compression == "gzip":
        return gzip.GzipFile(path, "rb")  # type: ignore[return-value]
    if compression == "bz2":
        return bz2.open(path, "rb")
    if compression == "xz":
        return lzma.open(path, "rb")
    import pyarrow as pa

    stream: IO[bytes] = pa.input_stream(str(path), compression="zstd")
    return stream


@dataclasses.dataclass(frozen=True, slots=True)
class TextSniff:
    """What the first block of a text file says about it.

    Attributes
    ----------
    path : Path
        The file.
    encoding : str
        A Python codec name: the one given, or the one a byte-order mark names
        (``utf-8-sig`` for a UTF-8 BOM), else ``utf-8``.
    compression : {"gzip", "bz2", "zstd", "xz"} or None
        Told by the magic number.
    head : str
        The first block of text, decoded (a partial last character left out).
    """

    path: Path
    encoding: str
    compression: Compression | None
    head: str

    def open(self) -> IO[bytes]:
        """The file's bytes, decompressed (the byte-order mark, if any, included)."""
        return open_binary(self.path, self.compression)


def check_encoding(encoding: str) -> str:
    """The codec's canonical name, or :class:`InvalidInputError` for an unknown encoding."""
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        raise InvalidInputError(
            f"unknown encoding {encoding!r}: give a Python codec name such as utf-8, latin-1, "
            "cp1252 or utf-16"
        ) from None


def decode_error_message(path: Path, encoding: str, offset: int, byte: int) -> str:
    """The one-line message for a byte that ``encoding`` cannot decode."""
    name = codecs.lookup(encoding).name
    suggestion = (
        hint("; if it is a spreadsheet export, try {}", "encoding", "latin-1", "cp1252")
        if name in ("utf-8", "utf-8-sig")
        else ""
    )
    what = "UTF-8" if name in ("utf-8", "utf-8-sig") else name
    return (
        f"{path} is not {what} text: byte 0x{byte:02x} at offset {offset} cannot be "
        f"decoded{suggestion}"
    )


def _decode_head(raw: bytes, path: Path, encoding: str, complete: bool) -> str:
    decoder = codecs.getincrementaldecoder(encoding)()
    try:
        return str(decoder.decode(raw, final=complete))
    except UnicodeDecodeError as exc:
        raise FileReadError(
            decode_error_message(path, encoding, exc.start, raw[exc.start])
        ) from None


def sniff_text(path: str | Path, *, encoding: str | None = None, what: str = "text") -> TextSniff:
    """Check a text file's first block: compression, byte-order mark, binary content, encoding.

    Parameters
    ----------
    path : str or Path
        The file (``FileNotFoundError``, ``IsADirectoryError``, ``PermissionError`` as in
        :func:`check_file`).
    encoding : str, optional
        A Python codec name; default UTF-8, or what a byte-order mark says.
    what : str
        The kind of file expected, for messages ("CSV", "JSON Lines").

    Raises
    ------
    FileReadError
        The file is another kind of file (Parquet, zip, an image), holds binary content (a
        NUL byte), or its first block cannot be decoded (the message names the byte offset).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "latin1.csv"
    >>> _ = p.write_bytes("item,label\\n1,café\\n".encode("latin-1"))
    >>> sniff_text(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    accord._errors.FileReadError: ...latin1.csv is not UTF-8 text: byte 0xe9 at offset 16 ...
    >>> sniff_text(p, encoding="latin-1").head
    'item,label\\n1,café\\n'
    """
    p = check_file(path)
    if encoding is not None:
        encoding = check_encoding(encoding)
    with p.open("rb") as fh:
        magic = fh.read(8)
    compression = _compression_of(magic)
    for sign, kind in _OTHER_FORMATS:
        if compression is None and magic.startswith(sign):
            raise FileReadError(f"{p} is {kind}, not a {what} file")
    with reading(p, what), open_binary(p, compression) as fh:
        raw = fh.read(_HEAD + 1)
    complete = len(raw) <= _HEAD
    raw = raw[:_HEAD]
    bom = next((name for sign, name in _BOMS if raw.startswith(sign)), None)
    if bom is not None and encoding is None:
        encoding = bom
    encoding = encoding or "utf-8"
    if "16" not in encoding and "32" not in encoding and b"\x00" in raw:
        at = raw.index(b"\x00")
        raise FileReadError(
            f"{p} is not a {what} file: it holds binary content (a NUL byte at offset {at})"
        )
    head = _decode_head(raw, p, encoding, complete)
    return TextSniff(p, encoding, compression, head)


def read_text_file(path: str | Path, *, encoding: str | None = None, what: str = "text") -> str:
    """The whole text of a (possibly compressed) file, line ends kept as they are.

    Raises what :func:`sniff_text` raises, and :class:`FileReadError` naming the byte offset
    of the first byte ``encoding`` cannot decode.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = p.write_bytes(b"ok\\r\\n\\xff")
    >>> read_text_file(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    accord._errors.FileReadError: ...a.txt is not UTF-8 text: byte 0xff at offset 4 cannot ...
    >>> read_text_file(p, encoding="latin-1")
    'ok\\r\\nÿ'
    """
    sniff = sniff_text(path, encoding=encoding, what=what)
    with reading(sniff.path, what, sniff), sniff.open() as fh:
        data = fh.read()
    try:
        return data.decode(sniff.encoding)
    except UnicodeDecodeError as exc:
        raise FileReadError(
            decode_error_message(sniff.path, sniff.encoding, exc.start, data[exc.start])
        ) from None


@dataclasses.dataclass(frozen=True, slots=True)
class CsvDialect(TextSniff):
    """How to read a delimited text file: what :func:`sniff_csv` found.

    Attributes
    ----------
    path, encoding, compression, head
        As in :class:`TextSniff` (the file's first block).
    delimiter : str
        One character.
    header : tuple of str
        The column names of the header line.
    skip_rows : int
        Lines before the header: 1 when the file starts with a spreadsheet's separator line
        (``sep=;``, as Excel writes and reads it), else 0.
    """

    delimiter: str
    header: tuple[str, ...]
    skip_rows: int = 0

    def require(self, columns: Sequence[str]) -> None:
        """Check that each of ``columns`` is in the header once.

        Raises
        ------
        ColumnNotFoundError
            A column is missing; when the header is one cell that holds another separator,
            the message says which separator the file looks like it uses.
        InvalidInputError
            A column's name appears twice in the header.
        """
        for name in dict.fromkeys(columns):
            places = [i + 1 for i, h in enumerate(self.header) if h == name]
            if len(places) > 1:
                raise InvalidInputError(
                    f"{self.path}: the header names column {name!r} {len(places)} times "
                    f"(columns {', '.join(map(str, places))}); rename all but one"
                )
            if not places:
                raise ColumnNotFoundError(f"{self.path}: {self.missing_message(name)}")

    def missing_message(self, name: str) -> str:
        """Why column ``name`` is not found, with a separator hint when one applies."""
        if len(self.header) == 1:
            cell = self.header[0]
            for sep in _SEPARATORS:
                if sep != self.delimiter and sep in cell:
                    return (
                        f"column {name!r} not found: the header is one column "
                        f"({_shorten(cell, 60)!r}); "
                        f"the file looks separated by {sep!r} ({_SEPARATOR_NAMES[sep]}), "
                        f"not {self.delimiter!r}" + hint(": pass {}", "sep", sep)
                    )
        listed = ", ".join(repr(_shorten(h, 40)) for h in self.header[:30])
        more = f" and {len(self.header) - 30} more" if len(self.header) > 30 else ""
        return f"column {name!r} not found; the columns are: {listed}{more}"


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def parse_separator(text: str | None) -> str | None:
    """A separator as given on a command line: one character, or ``\\t`` / ``tab`` for a tab.

    Examples
    --------
    >>> parse_separator("\\\\t"), parse_separator(";"), parse_separator(None)
    ('\\t', ';', None)
    """
    if text is None:
        return None
    named = {"\\t": "\t", "tab": "\t", "comma": ",", "semicolon": ";", "pipe": "|", "space": " "}
    sep = named.get(text.lower(), text)
    if len(sep) != 1 or sep in '\r\n"':
        raise InvalidInputError(
            f"the separator must be one character (such as , ; | or \\t for a tab); got {text!r}"
        )
    return sep


def sniff_csv(
    path: str | Path,
    *,
    sep: str | None = None,
    encoding: str | None = None,
    default_sep: str = ",",
) -> CsvDialect:
    """Check a delimited text file before it is parsed and read its header.

    Parameters
    ----------
    path : str or Path
        A CSV/TSV file, possibly compressed (gzip, bz2, zstd or xz, told by its magic
        number whatever its name).
    sep : str, optional
        The separator (one character); default ``default_sep``.
    encoding : str, optional
        A Python codec name; default UTF-8, or what a byte-order mark says.
    default_sep : str, default ","
        The separator when ``sep`` is None (``"\\t"`` for a ``.tsv`` file).

    Returns
    -------
    CsvDialect

    Raises
    ------
    FileReadError
        As :func:`sniff_text`, or the file is empty.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.csv"
    >>> _ = p.write_text("item;rater;label\\n1;a;x\\n")
    >>> sniff_csv(p).require(["item", "rater", "label"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    accord._errors.ColumnNotFoundError: ...r.csv: column 'item' not found: ...separated by ';'...
    >>> sniff_csv(p, sep=";").header
    ('item', 'rater', 'label')
    """
    delimiter = parse_separator(sep) if sep is not None else default_sep
    assert delimiter is not None
    sniff = sniff_text(path, encoding=encoding, what="CSV")
    text = sniff.head.lstrip("\ufeff")
    excel = _SEP_LINE.match(text)
    if excel is not None:  # a spreadsheet's separator line: honoured unless sep= says else
        text = text[excel.end() :]
        delimiter = delimiter if sep is not None else excel.group(1)
    if not text.strip():
        raise FileReadError(f"{sniff.path}: the file is empty")
    try:
        header = next(csv.reader(io.StringIO(text), delimiter=delimiter))
    except (csv.Error, StopIteration) as exc:
        raise FileReadError(f"{sniff.path}: cannot read the header line ({exc})") from None
    return CsvDialect(
        sniff.path,
        sniff.encoding,
        sniff.compression,
        sniff.head,
        delimiter,
        tuple(header),
        skip_rows=int(excel is not None),
    )


def _first_line(text: object) -> str:
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return _shorten(lines[0] if lines else type(text).__name__, 200)


def _ragged_line(dialect: CsvDialect) -> str | None:
    """The first record whose number of fields differs from the header's, as a message."""
    n = len(dialect.header)
    with dialect.open() as raw:
        text = io.TextIOWrapper(raw, encoding=dialect.encoding, errors="replace", newline="")
        for _ in range(dialect.skip_rows):
            text.readline()
        reader = csv.reader(text, delimiter=dialect.delimiter)
        try:
            for row in reader:
                line = reader.line_num + dialect.skip_rows
                if reader.line_num > 1 and row and len(row) != n:
                    extra = "an extra field" if len(row) == n + 1 else f"{len(row)} fields"
                    shown = _shorten(dialect.delimiter.join(row), 80)
                    return (
                        f"{dialect.path}, line {line}: {extra} where the header "
                        f"has {n} ({shown!r}); quote fields that hold {dialect.delimiter!r}"
                    )
        except csv.Error as exc:
            return f"{dialect.path}, line {reader.line_num + dialect.skip_rows}: {exc}"
    return None


def _bad_byte(path: Path, encoding: str, compression: Compression | None) -> str | None:
    """The message for the first byte that ``encoding`` cannot decode, if there is one."""
    decoder = codecs.getincrementaldecoder(encoding)()
    offset = 0  # bytes of the file before ``block``
    with open_binary(path, compression) as fh:
        while True:
            block = fh.read(1 << 20)
            state = decoder.getstate()
            pending = state[0] if isinstance(state, tuple) and isinstance(state[0], bytes) else b""
            try:
                decoder.decode(block, final=not block)
            except UnicodeDecodeError as exc:
                at = offset - len(pending) + exc.start
                return decode_error_message(path, encoding, at, exc.object[exc.start])
            if not block:
                return None
            offset += len(block)


def text_lines(text: str) -> list[str]:
    """The lines of a text, split where a file read in text mode splits them: at ``\\n``,
    ``\\r\\n`` and ``\\r`` only. :meth:`str.splitlines` also splits at U+2028, U+0085 and
    other characters that a JSON string or a document text may hold.

    >>> text_lines("a\\u2028b\\r\\nc\\n")
    ['a\\u2028b', 'c', '']
    """
    return re.split(r"\r\n|\r|\n", text)


class JsonLineError(ValueError):
    """A line of JSON Lines text that is not JSON: its number (from 1) and what the
    parser said."""

    def __init__(self, number: int, error: json.JSONDecodeError) -> None:
        super().__init__(f"line {number}: {error}")
        self.number = number
        self.error = error


def json_value(text: str) -> Any:
    """:func:`json.loads`, with a value nested deeper than the parser can follow raised as
    the :class:`json.JSONDecodeError` of any text that is not JSON (not a
    ``RecursionError``).

    >>> json_value("[" * 100_000 + "]" * 100_000)
    Traceback (most recent call last):
    ...
    json.decoder.JSONDecodeError: nested too deeply to read (arrays or objects inside one \
another beyond the parser's depth limit): line 1 column 1 (char 0)
    """
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError(
            "nested too deeply to read (arrays or objects inside one another beyond the "
            "parser's depth limit)",
            text[:1],
            0,
        ) from None


def json_lines(lines: Iterable[str]) -> Iterator[tuple[int, Any]]:
    """The number (from 1) and JSON value of each line of JSON Lines text that is not blank
    (white space and a byte-order mark around a line are looked through).

    Split a text with :func:`text_lines`: JSON lets U+2028 and U+0085 stand unescaped in a
    string, where :meth:`str.splitlines` would split it.

    Raises
    ------
    JsonLineError
        A line that is not JSON.

    Examples
    --------
    >>> list(json_lines(['{"a": 1}', "", ' {"a": "x\\u2028y"}']))
    [(1, {'a': 1}), (3, {'a': 'x\\u2028y'})]
    """
    for number, line in enumerate(lines, start=1):
        line = line.strip().lstrip("\ufeff")
        if not line:
            continue
        try:
            value = json_value(line)
        except json.JSONDecodeError as exc:
            raise JsonLineError(number, exc) from None
        yield number, value


def check_json_lines(sniff: TextSniff) -> str | None:
    """The first line of a JSON Lines file that is not one JSON object, as a message."""
    with sniff.open() as raw:
        text = io.TextIOWrapper(raw, encoding=sniff.encoding, errors="replace")
        try:
            for number, value in json_lines(text):
                if not isinstance(value, dict):
                    return (
                        f"{sniff.path}, line {number}: each line of a JSON Lines file must be "
                        f"an object ({{...}}), got {type(value).__name__}"
                    )
        except JsonLineError as exc:
            return f"{sniff.path}, line {exc.number}: not valid JSON ({exc.error})"
    return None


def repeated_json_keys(sniff: TextSniff, names: Sequence[str]) -> str | None:
    """The first line of a JSON Lines file whose object gives one of the ``names`` twice
    (``{"label": "a", "label": "b"}``: a JSON parser keeps the last and drops the other), as a
    message. The text is searched for each name as a key in C; only a line where one shows
    twice is parsed again, so a key nested in a value is not taken for a repeat.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.jsonl"
    >>> _ = p.write_text('{"item": 1, "label": "a"}\\n{"item": 2, "label": "a", "label": "b"}')
    >>> print(repeated_json_keys(sniff_text(p, what="JSON Lines"), ["label"]).split(": ", 1)[1])
    line 2 gives "label" twice ("a", then "b"): a JSON reader keeps only the last; give each key
    once
    """
    with sniff.open() as raw:
        text = io.TextIOWrapper(raw, encoding=sniff.encoding, errors="replace").read()
    for name in names:
        key = re.escape(json.dumps(name)) + r"\s*:"
        twice = re.compile(r"^[^\n]*" + key + r"[^\n]*" + key + r"[^\n]*", re.MULTILINE)
        for found in twice.finditer(text):
            pairs = json.loads(found.group().strip().lstrip("\ufeff"), object_pairs_hook=list)
            given = [v for k, v in pairs if k == name] if isinstance(pairs, list) else []
            if len(given) > 1:
                number = text.count("\n", 0, found.start()) + 1
                values = ", then ".join(json.dumps(v) for v in given)
                times = "twice" if len(given) == 2 else f"{len(given)} times"
                return (
                    f"{sniff.path}: line {number} gives {json.dumps(name)} {times} "
                    f"({values}): a JSON reader keeps only the last; give each key once"
                )
    return None


def _diagnose(p: Path, what: str, source: CsvDialect | TextSniff | None) -> str | None:
    """A second look at a file a parser failed on: the byte, line or row at fault."""
    if isinstance(source, CsvDialect):
        return _bad_byte(p, source.encoding, source.compression) or _ragged_line(source)
    if isinstance(source, TextSniff):
        found = _bad_byte(p, source.encoding, source.compression)
        if found is None and what == "JSON Lines":
            found = check_json_lines(source)
        return found
    return None


def _read_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [
        UnicodeError,
        EOFError,
        zlib.error,
        lzma.LZMAError,
        csv.Error,
        OSError,
        ValueError,
    ]
    import pandas as pd

    errors += [pd.errors.ParserError, pd.errors.EmptyDataError]
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow is an extra
        pass
    else:
        errors.append(pa.ArrowException)
    return tuple(errors)


@contextlib.contextmanager
def reading(
    path: str | Path, what: str, source: CsvDialect | TextSniff | None = None
) -> Iterator[None]:
    """Turn what a parser raises while reading ``path`` into one :class:`FileReadError`.

    Errors accord raises on purpose (:class:`~accord._errors.AccordError`), a missing file
    and a file that cannot be opened (``FileNotFoundError``, ``IsADirectoryError``,
    ``PermissionError``) pass through. With ``source`` (what :func:`sniff_csv` or
    :func:`sniff_text` found), the file is looked at again to name the line with the wrong
    number of fields, the first byte that cannot be decoded or the first line that is not
    JSON.

    Examples
    --------
    >>> import pyarrow.parquet as pq, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "broken.parquet"
    >>> _ = p.write_bytes(b"PAR1 and then nothing")
    >>> with reading(p, "Parquet"):
    ...     pq.read_table(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    accord._errors.FileReadError: cannot read ...broken.parquet as Parquet (damaged, ...
    """
    from .._errors import AccordError

    p = Path(path)
    try:
        yield
    except AccordError:
        raise
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
        raise
    except _read_errors() as exc:
        try:
            found = _diagnose(p, what, source)
        except _read_errors():  # the second look fails too: say what the parser said
            found = None
        if found is None and isinstance(exc, UnicodeDecodeError):
            found = decode_error_message(p, exc.encoding, exc.start, exc.object[exc.start])
        if found is None:
            found = (
                f"cannot read {p} as {what} (damaged, truncated or another format): "
                f"{_first_line(exc)}"
            )
        raise FileReadError(found) from None


def read_csv_columns(
    dialect: CsvDialect,
    columns: Sequence[str],
    *,
    null_values: Sequence[str] = ("",),
    dictionary: bool = False,
) -> Any:
    """The named columns of a delimited file as text, read by ``pyarrow.csv`` (threaded).

    Each column is a ``pyarrow`` string column (null where the cell is one of
    ``null_values``); typing is left to the caller. Call :meth:`CsvDialect.require` first.
    With ``dictionary=True`` each column is dictionary-encoded (int32 indices) while it is
    parsed, by the reader's threads: each block has a dictionary of its own values in
    order of first appearance, to be unified
    (:func:`accord.data.encoder.dictionary_of`); the cells are those of the text column.

    Raises
    ------
    FileReadError
        A row with more or fewer fields than the header (naming its line), a byte the
        encoding cannot decode (naming its offset), or a file that is damaged.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.csv"
    >>> _ = p.write_text("item,label\\n1,x\\n2,y,z\\n")
    >>> read_csv_columns(sniff_csv(p), ["item", "label"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    accord._errors.FileReadError: ...r.csv, line 3: an extra field where the header has 2 ...
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    wanted = list(dict.fromkeys(columns))
    text = pa.dictionary(pa.int32(), pa.string()) if dictionary else pa.string()
    codec = codecs.lookup(dialect.encoding).name
    read_options = pacsv.ReadOptions(
        encoding="utf8" if codec in ("utf-8", "utf-8-sig") else dialect.encoding,
        skip_rows=dialect.skip_rows,
    )
    source: Any = str(dialect.path)
    with reading(dialect.path, "CSV", dialect):
        if dialect.compression in ("gzip", "bz2", "zstd"):
            source = pa.input_stream(str(dialect.path), compression=dialect.compression)
        elif dialect.compression is not None:
            source = dialect.open()
        try:
            table = pacsv.read_csv(
                source,
                read_options=read_options,
                parse_options=pacsv.ParseOptions(delimiter=dialect.delimiter),
                convert_options=pacsv.ConvertOptions(
                    include_columns=wanted,
                    column_types=dict.fromkeys(wanted, text),
                    strings_can_be_null=True,
                    quoted_strings_can_be_null=True,
                    null_values=list(null_values),
                ),
            )
        finally:
            if not isinstance(source, str):
                source.close()
    check_header_rows(dialect, [table.column(name) for name in wanted], wanted)
    return table


def _equal_cells(column: Any, name: str) -> Any:
    """Where an Arrow text column (plain or dictionary, chunked or not) holds ``name``, as
    a chunked boolean array; None when no cell does (told by a look at each chunk's
    dictionary, for a dictionary column)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    found, hits = False, []
    for chunk in chunks:
        if pa.types.is_dictionary(chunk.type):
            at = pc.index(chunk.dictionary, pa.scalar(name, chunk.dictionary.type)).as_py()
            hit = pc.equal(chunk.indices, at) if at >= 0 else pa.nulls(len(chunk), pa.bool_())
            found = found or at >= 0
        else:
            hit = pc.equal(chunk, pa.scalar(name, chunk.type))
            found = found or bool(pc.any(hit).as_py())
        hits.append(hit)
    return pa.chunked_array(hits, pa.bool_()) if found else None


def header_cells(columns: Sequence[Any], names: Sequence[str]) -> bool:
    """Whether some row of the text ``columns`` holds each column's own name: a candidate
    for a header line repeated inside the data (two files joined with their headers).

    >>> import pyarrow as pa
    >>> header_cells([pa.array(["1", "item"]), pa.array(["x", "label"])], ["item", "label"])
    True
    >>> header_cells([pa.array(["1", "item"]), pa.array(["label", "x"])], ["item", "label"])
    False
    >>> header_cells([pa.array(["1", "\ufeffitem"]), pa.array(["x", "label"])], ["item", "label"])
    True
    """
    import pyarrow.compute as pc

    mask = None
    for at, (column, name) in enumerate(zip(columns, names, strict=True)):
        if not isinstance(name, str) or not _is_text_type(column.type):
            return False
        hit = _equal_cells(column, name)
        if at == 0:  # a file joined with its byte-order mark: the header's first cell after it
            marked = _equal_cells(column, "\ufeff" + name)
            hit = marked if hit is None else hit if marked is None else pc.or_(hit, marked)
        if hit is None:
            return False
        mask = hit if mask is None else pc.and_(mask, hit)
        if not pc.any(mask).as_py():
            return False
    return mask is not None


def text_columns(schema: Any, names: Sequence[str]) -> list[str]:
    """The columns of ``names`` that an Arrow schema holds as plain text (not dictionaries,
    lists, numbers or bytes), in the order given.

    >>> import pyarrow as pa
    >>> schema = pa.schema([("a", pa.string()), ("b", pa.int64()), ("c", pa.large_string())])
    >>> text_columns(schema, ["c", "b", "a", "z"])
    ['c', 'a']
    """
    import pyarrow as pa

    out = []
    for name in names:
        index = schema.get_field_index(name)
        kind = schema.field(index).type if index >= 0 else None
        if kind is not None and (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
            out.append(name)
    return out


def _is_text_type(kind: Any) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))


def repeated_header(dialect: CsvDialect) -> str | None:
    """The first line after the header that repeats the header, as a message (None when no
    line does). Read again record by record: only when :func:`header_cells` found a
    candidate."""
    header = list(dialect.header)
    with dialect.open() as raw:
        text = io.TextIOWrapper(raw, encoding=dialect.encoding, errors="replace", newline="")
        reader = csv.reader(text, delimiter=dialect.delimiter)
        next(reader, None)
        for row in reader:
            if row == header or (row and [row[0].lstrip("\ufeff"), *row[1:]] == header):
                shown = _shorten(dialect.delimiter.join(header), 80)
                return (
                    f"{dialect.path}, line {reader.line_num}: the header line ({shown!r}) "
                    "again, inside the data: files joined with their headers? Keep the "
                    "first header only (join the others without their first line, e.g. "
                    "tail -n +2)"
                )
    return None


def check_header_rows(dialect: CsvDialect, columns: Sequence[Any], names: Sequence[str]) -> None:
    """Raise :class:`FileReadError` naming the line when a row of the file repeats its
    header (the rows read as ``columns``, named ``names``), so that no header is read as a
    rating: an item named ``item`` rated by a rater named ``rater``.

    Raises
    ------
    FileReadError
        A line after the first is the header line again.
    """
    if header_cells(columns, names):
        found = repeated_header(dialect)
        if found is not None:
            raise FileReadError(found)
