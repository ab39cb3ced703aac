"""The typer application every ``accord`` subcommand registers on, how its help reads, and
how the library's messages name options while it runs."""

from __future__ import annotations

import contextlib
import shlex
import textwrap
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

#: Width of the example commands in ``--help`` (continued with `` \\`` as a shell would read).
EXAMPLE_WIDTH = 76

#: Library keywords whose command-line option has another name (the option's parameter);
#: a command without that parameter is asked for the keyword's own.
KEYWORD_OPTIONS = {"rng": "seed", "judge": "judges"}

#: The options of the running command by parameter name, as parsed (set while it runs).
COMMAND_OPTIONS: ContextVar[Mapping[str, Any]] = ContextVar("accord_command_options")
#: The name of the running command (set while it runs; the ``command`` of its JSON).
COMMAND_NAME: ContextVar[str | None] = ContextVar("accord_command_name", default=None)


def _summary(command: Any) -> str:
    """The first paragraph of a command's help, on one line (the terminal wraps it)."""
    text = command.short_help or command.help or ""
    return " ".join(text.split("\n\n")[0].split())


class AccordGroup(TyperGroup):
    """``accord --help`` lists every command with its whole summary sentence, wrapped at words
    to the terminal (click's default cuts it to one line)."""

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, _summary(command)))
        if not rows:
            return
        with formatter.section("Commands"):
            indent = " " * formatter.current_indent
            col = max(len(name) for name, _ in rows) + 2
            width = max(formatter.width - formatter.current_indent - col, 20)
            for name, text in rows:
                # Words whole: "BI-RADS" and "cross-fitted" are not broken at their hyphens.
                lines = textwrap.wrap(text, width, break_on_hyphens=False) or [""]
                formatter.write(f"{indent}{name:<{col}}{lines[0]}\n")
                for line in lines[1:]:
                    formatter.write(f"{indent}{'':<{col}}{line}\n")


def _lines(command: str) -> list[str]:
    """``command`` as shell lines of at most :data:`EXAMPLE_WIDTH` characters: an option stays
    on the line of its value, continued lines end with `` \\``."""
    words = shlex.split(command)
    units: list[str] = []
    for word in words:
        quoted = shlex.quote(word)
        takes_value = bool(units) and units[-1].startswith("-") and " " not in units[-1]
        if takes_value and not word.startswith("-"):
            units[-1] += " " + quoted
        else:
            units.append(quoted)
    lines = [units[0]]
    for unit in units[1:]:
        if len(lines[-1]) + 1 + len(unit) + 2 <= EXAMPLE_WIDTH:
            lines[-1] += " " + unit
        else:
            lines.append("    " + unit)
    return [line + " \\" for line in lines[:-1]] + [lines[-1]]


def examples(*commands: str) -> str:
    """The epilog of a command's ``--help``: each example command on lines of its own, as it
    runs in a shell (in the folder ``accord demo`` writes the example files to).

    >>> print(examples("accord pair --table examples/birads-table.csv --dichotomize"))
    Examples (the files are in examples/; accord demo copies them there):
    <BLANKLINE>
    \b
      accord pair --table examples/birads-table.csv --dichotomize
    """
    lines = [f"  {line}" for command in commands for line in _lines(command)]
    return "Examples (the files are in examples/; accord demo copies them there):\n\n\b\n" + (
        "\n".join(lines)
    )


class CommandLineDialect:
    """Names the library's keywords as the running command's options, for messages such as
    "pass --duplicates first" (see :func:`accord._errors.speaking`)."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx

    def _option(self, keyword: str) -> Any:
        for name in (KEYWORD_OPTIONS.get(keyword, keyword), keyword):
            for param in self.ctx.command.params:
                if param.param_type_name == "option" and param.name == name:
                    return param
        return None

    def flag(self, keyword: str) -> str | None:
        param = self._option(keyword)
        return None if param is None else max(param.opts, key=len)

    def given(self, keyword: str) -> bool:
        param = self._option(keyword)
        if param is None or param.name is None:
            return True
        source = self.ctx.get_parameter_source(param.name)
        return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


#: click's error for a command line that does not parse (typer's click: the base of
#: ``typer.BadParameter``, as are its unknown and missing options).
_USAGE_ERROR: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError"
)


class AccordCommand(TyperCommand):
    """A subcommand whose run speaks command line: the library's messages name its options
    (``--out-of-range clip``), not Python keywords; its options are :data:`COMMAND_OPTIONS`
    while it runs."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Options that do not parse (a word for a number, a value outside its choices, an
        unknown option) are one line on standard error and exit status 2, as every other
        error of a command (click would print its usage block)."""
        bare = not args  # (the parser consumes the list)
        try:
            return list(super().parse_args(ctx, args))
        except _USAGE_ERROR as exc:
            if bare:  # a command called bare prints its help
                raise
            text = getattr(exc, "format_message", exc.__str__)()  # names the option
            message = " ".join(str(text).split())
            if "unexpected extra argument" in message:  # a glob the shell expanded, say
                message += (
                    ": one input is read; for several files quote a glob ('exports/*.csv') "
                    "or pass their folder"
                )
            typer.echo(f"accord: error: {message} (see accord {self.name} --help)", err=True)
            raise typer.Exit(code=2) from None

    def invoke(self, ctx: Any) -> Any:
        from .._errors import speaking

        dialect = CommandLineDialect(ctx)
        token, named = COMMAND_OPTIONS.set(ctx.params), COMMAND_NAME.set(self.name)
        try:
            with speaking(dialect):
                return super().invoke(ctx)
        except MemoryError as exc:
            engine = getattr(ctx.params.get("engine"), "value", ctx.params.get("engine"))
            flag = dialect.flag("engine") if engine in ("memory", None) else None
            typer.echo(f"accord: error: {out_of_memory(exc, flag)}", err=True)
            raise typer.Exit(code=2) from None
        finally:
            COMMAND_OPTIONS.reset(token)
            COMMAND_NAME.reset(named)


@contextlib.contextmanager
def speaking_as(name: str) -> Iterator[None]:
    """Within the block, the library's messages name the options of the command ``name``
    as its defaults leave them (``accord demo`` prints what the ``accord agree`` commands it
    shows print)."""
    import click

    from .._errors import speaking

    command = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    with speaking(CommandLineDialect(click.Context(command))):
        yield


def out_of_memory(exc: MemoryError, engine_flag: str | None) -> str:
    """One line for a command that ran out of memory: what did not fit, and the way out
    (``engine_flag`` None: the command has no engine option or already streams).

    >>> print(out_of_memory(MemoryError("Unable to allocate 7.45 GiB for an array"), "--engine"))
    out of memory: unable to allocate 7.45 GiB for an array; --engine stream reads the data
    in batches, in memory bounded by the statistics
    """
    detail = str(exc).strip().rstrip(".")
    what = f"out of memory: {detail[:1].lower()}{detail[1:]}" if detail else "out of memory"
    if engine_flag is None:
        return what + "; try a smaller input or a machine with more memory"
    return (
        f"{what}; {engine_flag} stream reads the data in batches, in memory bounded by the "
        "statistics"
    )


app = typer.Typer(
    name="accord",
    cls=AccordGroup,
    help=(
        "How far can you trust your raters? Agreement, consensus, panel calibration and "
        "confidence calibration, with uncertainty."
    ),
    epilog=examples(
        "accord demo",
        "accord agree examples/diagnoses.csv --item patient --rater rater --label diagnosis",
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
