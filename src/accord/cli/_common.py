"""Shared plumbing for the CLI: error handling, output formats, tables.

The CLI is a thin shell: everything it prints comes from a result object that a user could
get in Python.
"""

from __future__ import annotations

import contextlib
import enum
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import typer

from .._errors import AccordError


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


def fail(message: str) -> typer.Exit:
    """Print one line to stderr and return the exit to raise (status 2)."""
    typer.echo(f"accord: error: {message}", err=True)
    return typer.Exit(code=2)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn accord's errors and missing files into one line on stderr and exit status 2."""
    try:
        yield
    except FileNotFoundError as exc:
        name = exc.filename if exc.filename is not None else str(exc)
        raise fail(f"file not found: {name}") from None
    except IsADirectoryError as exc:
        raise fail(f"expected a file, got a directory: {exc.filename}") from None
    except AccordError as exc:
        raise fail(str(exc)) from None


def write_text(text: str, output: Path | None) -> None:
    """Write ``text`` to ``output`` or to standard output."""
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        output.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")


def format_number(value: Any, digits: int = 4) -> str:
    """Round for display only (the library never rounds)."""
    if isinstance(value, float):
        if value != value:
            return "NaN"
        return f"{value:.{digits}f}"
    if value is None:
        return ""
    return str(value)


def print_table(
    rows: list[dict[str, Any]],
    columns: list[str],
    *,
    title: str | None = None,
    caption: str | None = None,
    output: Path | None = None,
) -> None:
    """Render rows as a rich table (to stdout, or plain text to ``output``)."""
    from rich.console import Console
    from rich.table import Table

    columns = [c for c in columns if any(row.get(c) not in (None, "") for row in rows)]
    table = Table(title=title, caption=caption, caption_justify="left")
    for col in columns:
        table.add_column(col, justify="left" if col in ("coefficient", "name") else "right")
    for row in rows:
        table.add_row(*(format_number(row.get(c)) for c in columns))
    if output is None:
        import shutil

        Console(width=max(shutil.get_terminal_size().columns, 120), soft_wrap=False).print(table)
    else:
        with output.open("w", encoding="utf-8") as fh:
            Console(file=fh, width=200, no_color=True).print(table)
