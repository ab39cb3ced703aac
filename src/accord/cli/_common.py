"""Shared plumbing for the CLI: error handling, output formats, tables.

The CLI is a thin shell: everything it prints comes from a result object that a user could
get in Python.
"""

from __future__ import annotations

import contextlib
import enum
import io
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

import typer

from .._errors import AccordError

if TYPE_CHECKING:
    from rich.console import Console, JustifyMethod
    from rich.table import Table

LEVEL_HELP = "Level of measurement: nominal, ordinal, interval or ratio."


class OutputFormat(enum.StrEnum):
    """Output formats shared by every subcommand."""

    table = "table"
    json = "json"
    csv = "csv"


FORMAT_OPTION = typer.Option(
    OutputFormat.table, "--format", "-f", help="table (for people), json or csv (for machines)."
)
OUTPUT_OPTION = typer.Option(
    None, "--output", "-o", help="Write to this file instead of standard output."
)


class EngineName(enum.StrEnum):
    """Where the statistics are computed (see ``docs/engines.md``)."""

    memory = "memory"
    stream = "stream"
    dask = "dask"


ENGINE_OPTION = typer.Option(
    EngineName.memory,
    "--engine",
    help="memory (read the file whole), stream (Parquet/CSV files, a glob or a folder, in "
    "batches: memory bounded by the statistics) or dask (per partition).",
)
SCHEDULER_OPTION = typer.Option(
    None,
    "--scheduler",
    help="With --engine dask: a scheduler address (tcp://host:8786) or threads, processes, "
    "synchronous. Default: dask's own.",
)
QUIET_OPTION = typer.Option(False, "--quiet", "-q", help="No progress bar on standard error.")


@contextlib.contextmanager
def progress_bar(
    show: bool, description: str
) -> Iterator[Callable[[int, int | None], None] | None]:
    """A rich progress bar on standard error, fed ``(rows_read, total_rows)``; None when not
    shown (``show`` False, or standard error is not a terminal)."""
    if not (show and sys.stderr.isatty()):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,} rows"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=None)

        def update(rows: int, total: int | None) -> None:
            bar.update(task, completed=rows, total=total)

        yield update


def wants_progress(fmt: OutputFormat, quiet: bool) -> bool:
    """Progress only for people: not with --format json or --quiet."""
    return not quiet and fmt is not OutputFormat.json


SEP_OPTION = typer.Option(
    None,
    "--sep",
    help="Field separator of a CSV/TSV file: one character, or \\t (tab); default , "
    "(a tab for .tsv).",
)
ENCODING_OPTION = typer.Option(
    None,
    "--encoding",
    help="Text encoding of the file, e.g. latin-1 or cp1252; default UTF-8 (with or without "
    "a byte-order mark).",
)


class FileOptions(TypedDict):
    """The readers' ``sep=`` and ``encoding=`` from ``--sep`` and ``--encoding``."""

    sep: str | None
    encoding: str | None


def file_options(
    sep: str | None, encoding: str | None, engine: EngineName = EngineName.memory
) -> FileOptions:
    """``--sep`` and ``--encoding`` as the readers' ``sep=`` and ``encoding=``, checked."""
    from .._errors import InvalidInputError
    from .._files import check_encoding, parse_separator

    if engine is not EngineName.memory and (sep is not None or encoding is not None):
        raise fail(
            "--sep and --encoding apply to --engine memory; the stream and dask engines read "
            "UTF-8 files separated by , (a tab for .tsv)"
        )
    try:
        separator = parse_separator(sep)
    except InvalidInputError as exc:
        raise fail(f"--sep: {exc}") from None
    try:
        codec = None if encoding is None else check_encoding(encoding)
    except InvalidInputError as exc:
        raise fail(f"--encoding: {exc}") from None
    return {"sep": separator, "encoding": codec}


def one_line(text: str) -> str:
    """``text`` on one line: line breaks and runs of spaces become one space."""
    return " ".join(text.split())


def fail(message: str) -> typer.Exit:
    """Print one line to stderr and return the exit to raise (status 2)."""
    typer.echo(f"accord: error: {one_line(message)}", err=True)
    return typer.Exit(code=2)


def _os_message(exc: OSError) -> str:
    """What went wrong with a path, in words (the operating system's reason, the path)."""
    name = exc.filename if exc.filename is not None else ""
    if isinstance(exc, FileNotFoundError):
        folder = Path(str(name)).parent
        if exc.filename is not None and not folder.exists():
            return f"folder not found: {folder} (for {name})"
        return f"file not found: {name or exc}"
    if isinstance(exc, IsADirectoryError):
        return f"expected a file, got a directory: {name}"
    if isinstance(exc, NotADirectoryError):
        return f"not a folder: a part of {name} is a file"
    if isinstance(exc, FileExistsError):
        return f"{name} exists and is not a folder"
    if isinstance(exc, PermissionError):
        return f"permission denied: {name}"
    reason = exc.strerror or str(exc) or type(exc).__name__
    return f"{name}: {reason}" if name else reason


def _os_reason(exc: OSError) -> str:
    """The operating system's reason, in lower case (``permission denied``)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    return reason[:1].lower() + reason[1:]


def _is_read_error(exc: BaseException) -> bool:
    """Errors of the parsers and decompressors that a damaged input can raise."""
    import csv
    import json
    import lzma
    import zlib

    if isinstance(
        exc,
        UnicodeError | EOFError | zlib.error | lzma.LZMAError | csv.Error | json.JSONDecodeError,
    ):
        return True
    module = type(exc).__module__
    if module.startswith("pyarrow"):
        return True
    if module.startswith("pandas"):
        import pandas as pd

        return isinstance(exc, pd.errors.ParserError | pd.errors.EmptyDataError)
    return False


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn accord's errors, files that cannot be read or written and the errors of a
    damaged input into one line on stderr and exit status 2 (never a traceback)."""
    try:
        yield
    except AccordError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(_os_message(exc)) from None
    except ImportError as exc:  # an optional package a reader needs (pandas' zstandard, ...)
        raise fail(str(exc) or f"missing package: {exc.name}") from None
    except Exception as exc:
        if _is_read_error(exc):
            raise fail(f"cannot read the input: {str(exc).strip() or type(exc).__name__}") from None
        raise


def check_output(path: Path | None, *, folder: bool = False, creates: bool = False) -> None:
    """Fail early (before any work) when ``path`` cannot be written: it is a folder (or,
    with ``folder``, a file), its folder does not exist (unless the command ``creates`` it),
    or the nearest folder above it that exists is not writable."""
    if path is None:
        return
    import os

    if not (folder or creates) and not path.parent.exists():
        raise fail(f"folder not found: {path.parent} (for {path})")

    if folder:
        if path.exists() and not path.is_dir():
            raise fail(f"--output-dir {path} exists and is not a folder")
    elif path.is_dir():
        raise fail(f"cannot write {path}: it is a folder; give a file name")
    parent = path if folder else path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise fail(f"cannot write {path}: {parent} is a file, not a folder")
    if not os.access(parent, os.W_OK):
        raise fail(f"cannot write {path}: permission denied in {parent}")


def prepare_output_dir(directory: Path) -> Path:
    """Create ``directory`` (and its parents) for output files, or fail in one line."""
    check_output(directory, folder=True)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(f"cannot create the folder {directory}: {_os_reason(exc)}") from None
    return directory


@contextlib.contextmanager
def echo_warnings() -> Iterator[None]:
    """Show the library's warnings raised in the block as one ``accord: warning: ...`` line
    each on standard error (each distinct message once), after the block succeeds."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for message in dict.fromkeys(str(w.message) for w in caught):
        typer.echo(f"accord: warning: {message}", err=True)


def write_text(text: str, output: Path | None) -> None:
    """Write ``text`` to ``output`` or to standard output (a path that cannot be written is
    a one-line error)."""
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    try:
        output.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise fail(_os_message(exc)) from None
        raise fail(f"cannot write {output}: {_os_reason(exc)}") from None


def format_number(value: Any, digits: int = 4) -> str:
    """Round for display only (the library never rounds)."""
    if isinstance(value, float):
        if value != value:
            return "NaN"
        return f"{value:.{digits}f}"
    if value is None:
        return ""
    return str(value)


def format_ci(low: float, high: float, digits: int = 4) -> str:
    """``[low, high]`` rounded for display; empty when either end is NaN."""
    if low != low or high != high:
        return ""
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def parse_categories(text: str | None) -> list[Any] | None:
    """``"1,2,3"`` -> ``[1, 2, 3]``; ``"low,mid,high"`` -> strings, in the order given."""
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",") if p.strip()]
    try:
        return [int(p) for p in parts]
    except ValueError:
        pass
    try:
        return [float(p) for p in parts]
    except ValueError:
        return parts


def rich_table(
    rows: list[dict[str, Any]],
    columns: list[str],
    *,
    title: str | None = None,
    caption: str | None = None,
    left: Sequence[str] = ("coefficient", "name"),
    headers: dict[str, str] | None = None,
    title_justify: JustifyMethod = "center",
) -> Table:
    """A rich table of ``rows`` (dicts): columns empty in every row are left out, numbers
    are rounded for display, ``left`` columns are left-aligned and ``headers`` renames."""
    from rich.table import Table

    headers = headers or {}
    shown = [c for c in columns if any(row.get(c) not in (None, "") for row in rows)]
    table = Table(
        title=title,
        caption=caption,
        caption_justify="left",
        title_justify=title_justify,
    )
    for col in shown:
        table.add_column(headers.get(col, col), justify="left" if col in left else "right")
    for row in rows:
        table.add_row(*(format_number(row.get(c)) for c in shown))
    return table


@contextlib.contextmanager
def output_console(output: Path | None) -> Iterator[Console]:
    """A rich console printing to standard output (at least 120 columns wide), or to a
    buffer written as plain text to ``output`` when the block ends."""
    from rich.console import Console

    if output is None:
        import shutil

        yield Console(width=max(shutil.get_terminal_size().columns, 120), soft_wrap=False)
        return
    buffer = io.StringIO()
    yield Console(file=buffer, width=200, no_color=True)
    write_text(buffer.getvalue(), output)


def print_table(
    rows: list[dict[str, Any]],
    columns: list[str],
    *,
    title: str | None = None,
    caption: str | None = None,
    output: Path | None = None,
) -> None:
    """Render rows as a rich table (to stdout, or plain text to ``output``)."""
    with output_console(output) as console:
        console.print(rich_table(rows, columns, title=title, caption=caption))
