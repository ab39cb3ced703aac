"""Shared plumbing for the CLI: error handling, output formats, tables.

The CLI is a thin shell: everything it prints comes from a result object that a user could
get in Python.
"""

from __future__ import annotations

import contextlib
import enum
import sys
from collections.abc import Iterator
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
