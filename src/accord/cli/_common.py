"""Shared plumbing for the CLI: error handling, output formats, tables.

The CLI is a thin shell: everything it prints comes from a result object that a user could
get in Python.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import inspect
import io
import numbers
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

import typer

from .._errors import AccordError
from .._names import show_controls

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
    from rich.table import Table

LEVEL_HELP = "Level of measurement: nominal, ordinal, interval or ratio."

# Options shared by the commands that read ratings from a file. A command whose option means
# something of its own (an optional --label, a --duplicates with other policies) defines it
# in its module.
ITEM_OPTION = typer.Option(..., "--item", help="Column holding the item ids.")
RATER_OPTION = typer.Option(..., "--rater", help="Column holding the rater ids.")
LABEL_OPTION = typer.Option(..., "--label", help="Column holding the labels.")
LEVEL_OPTION = typer.Option("nominal", "--level", help=LEVEL_HELP)
CATEGORIES_OPTION = typer.Option(
    None, "--categories", help="Declared categories in order, comma-separated."
)
DUPLICATES_OPTION = typer.Option(
    "raise", "--duplicates", help="raise, first, last or mean (interval/ratio)."
)
MULTI_LABEL_OPTION = typer.Option(
    False,
    "--multi-label",
    help="Each (item, rater) has a set of labels: its repeated rows, or a list in a Parquet "
    "or JSON Lines label column ([] is the empty set).",
)
DISTANCE_OPTION = typer.Option(
    None,
    "--distance",
    help="With --multi-label: masi (default) or jaccard, the distance between two sets of "
    "labels in Krippendorff's alpha.",
)
#: The agreement coefficients' weights and inference options (``accord agree``, ``accord
#: report``), as :func:`accord.agreement` takes them.
WEIGHTS_OPTION = typer.Option(
    None,
    "--weights",
    help="Weights of the weighted rows: linear, quadratic, ordinal, radical, ratio, "
    "circular, bipolar, power:<exponent> (e.g. power:1.5; Warrens 2014) or "
    "circular:<u> (neighbours on the circle weigh u in [0, 1); Warrens & Pratiwi 2016) "
    "(default quadratic above nominal level).",
)
#: What ``accord judge`` and ``accord report`` say when ``--judge`` is given without ``--humans``.
DEFAULT_PANEL = "every rater not named by --judge is taken as a human"
PANEL_ADVICE = "name the humans with --humans, or another model with another --judge"
#: How ``accord agree --facet`` and ``accord report --facet`` read a facet: one spelling.
FACET_HELP = (
    "One more facet (repeatable): its COLUMN, or FACET=COLUMN to name the facet, e.g. "
    "occasion or o=occasion"
)
SE_OPTION = typer.Option(
    "raters",
    "--se",
    help="Standard error of the chance-corrected coefficients (as kappaetc's se()): "
    "raters (conditional on the raters: generalises to other items), items (conditional "
    "on the items, a jackknife over raters: to other raters) or unconditional (both).",
)
RATER_POPULATION_OPTION = typer.Option(
    None,
    "--rater-population-size",
    help="Raters in the population (finite-population correction of the variance over "
    "raters, with --se items or unconditional).",
)
TEST_VALUE_OPTION = typer.Option(
    0.0, "--test-value", help="The p-values test coefficient = this value (default 0)."
)
ALTERNATIVE_OPTION = typer.Option(
    "two-sided",
    "--alternative",
    help="two-sided, greater (H0: coefficient <= --test-value) or less (H0: >=).",
)
#: The file of the commands that read a ratings table or an annotation tool's export.
RATINGS_FILE_ARGUMENT = typer.Argument(
    ..., help="Ratings file: CSV, TSV, Parquet or JSON Lines, or an annotation-tool export."
)
GOLD_OPTION = typer.Option(
    None,
    "--gold",
    help="Column holding a gold label per item: each rater's accuracy and kappa against it.",
)


def check_seed(value: int | None) -> int | None:
    """``--seed``: a non-negative integer (numpy takes no negative seed), checked as the
    command line is read, before any work."""
    if value is not None and value < 0:
        raise fail(f"--seed must be a non-negative integer; got {value}")
    return value


SEED_OPTION = typer.Option(
    0,
    "--seed",
    help="Seed of the bootstrap (the same seed prints the same interval).",
    callback=check_seed,
)
#: The margin of the alternative annotator test (``accord judge``, ``accord report --judge``).
EPSILON_HELP = (
    "The judge's cost-benefit margin in the alternative annotator test, in [0, 1): 0.2 for "
    "expert humans, 0.15 skilled, 0.1 crowd."
)

# The columns of scored units whose confidence is in question (``accord confidence``, the
# confidence section of ``accord report``). ``accord calibrate``'s --confidence (inverse
# variances of scores) is its own.
CORRECT_OPTION = typer.Option(
    None,
    "--correct",
    help="Column saying whether the unit is correct: 0/1 or true/false (with --confidence).",
)
CONFIDENCE_OPTION = typer.Option(
    None, "--confidence", help="Column with the confidence in [0, 1] (with --correct)."
)


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
#: The names of dask's own schedulers (``dask.base.get_scheduler``), as ``--scheduler`` takes
#: them.
DASK_SCHEDULERS = ("threads", "threading", "processes", "multiprocessing", "synchronous",
                   "sync", "single-threaded", "distributed")  # fmt: skip
SCHEDULER_OPTION = typer.Option(
    None,
    "--scheduler",
    help="With --engine dask: a scheduler address (tcp://host:8786) or threads, processes, "
    "synchronous. Default: dask's own.",
)
QUIET_OPTION = typer.Option(False, "--quiet", "-q", help="No progress bar on standard error.")
NA_VALUES_OPTION = typer.Option(
    None,
    "--na-values",
    help="Comma-separated text that counts as a missing label (default: empty cells and "
    "NA, N/A, NaN, null, None, ...; '' for empty cells only). Declared --categories win.",
)
LABELS_AS_OPTION = typer.Option(
    "auto",
    "--labels-as",
    help="auto (a text file's labels are numbers when every one is), number (2 and 2.0 "
    "are one category), text (labels as written) or normalized (labels that differ only in "
    "surrounding spaces, case or Unicode form, such as yes and Yes, are one category).",
)


class ExportToolName(enum.StrEnum):
    """The annotation tools whose exports ``--from`` reads (see ``docs/annotation-tools.md``)."""

    label_studio = "label-studio"
    prodigy = "prodigy"
    argilla = "argilla"
    pairwise = "pairwise"


FROM_OPTION = typer.Option(
    None,
    "--from",
    help="Read an annotation tool's export: label-studio (JSON), prodigy (JSONL), argilla "
    "(JSONL/Parquet) or pairwise (judge logs); no --item/--rater/--label then. Without "
    "--from and the columns, the tool is recognised from the file's content.",
)
FIELD_OPTION = typer.Option(
    None,
    "--field",
    help="With an annotation-tool export: the Label Studio control (from_name) or Argilla "
    "question to read, when the annotators answered several.",
)


def read_export_file(
    path: Path,
    tool: ExportToolName,
    field: str | None,
    *,
    duplicates: str = "raise",
    multi_label: bool | None = None,
) -> Any:
    """The ratings of an annotation tool's export (``--from``), read with the running
    command's ``--level`` and ``--categories`` (``multi_label`` None: sets of labels when
    an answer chose several)."""
    from ..io.ratings import read_export

    given = ratings_keywords()
    return read_export(
        path,
        tool.value,
        field=field,
        level=given["level"],
        categories=given["categories"],
        duplicates=duplicates,  # type: ignore[arg-type]
        multi_label=multi_label,
        na_values=given["na_values"],
        labels_as=given["labels_as"],
    )


def ratings_keywords() -> dict[str, Any]:
    """The keywords every reader of ratings takes (``read_ratings``, and ``agreement``,
    ``consensus`` or ``report`` given a path), from the options of the running command
    (:data:`~accord.cli._app.COMMAND_OPTIONS`): its ``item``, ``rater`` and ``label``
    columns, ``level``, and ``--categories``, ``--na-values`` and ``--labels-as`` (parsed)
    when it has them.

    >>> from accord.cli._app import COMMAND_OPTIONS
    >>> token = COMMAND_OPTIONS.set(dict(item="i", rater="r", label="l", level="ordinal",
    ...                                  categories="1,2,3", na_values="NA", labels_as="auto"))
    >>> ratings_keywords()  # doctest: +NORMALIZE_WHITESPACE
    {'item': 'i', 'rater': 'r', 'label': 'l', 'level': 'ordinal', 'categories': [1, 2, 3],
     'na_values': ['NA'], 'labels_as': 'auto'}
    >>> COMMAND_OPTIONS.reset(token)
    """
    from ._app import COMMAND_OPTIONS

    given = COMMAND_OPTIONS.get()
    return {
        "item": given.get("item"),
        "rater": given.get("rater"),
        "label": given.get("label"),
        "level": given.get("level", "nominal"),
        "categories": parse_categories(given.get("categories")),
        "na_values": parse_na_values(given.get("na_values")),
        "labels_as": given.get("labels_as", "auto"),
    }


def read_ratings_file(path: Path, files: FileOptions, **options: Any) -> Any:
    """The ratings of ``path`` read as the running command's options say
    (:func:`ratings_keywords`, ``files`` from :func:`file_options`; ``options`` add to or
    override them), as :class:`~accord.Ratings`; the columns optional (an annotation
    tool's export, recognised by its content)."""
    from ..front.reading import ratings_at

    return ratings_at(path, **{**ratings_keywords(), **options}, **files)


def command_source(
    path: Path,
    shared: Shared,
    files: FileOptions,
    progress: Callable[[int, int | None], None] | None = None,
    **fields: Any,
) -> Any:
    """The :class:`~accord.Source` of the running command, from its one set of read flags:
    the columns, ``--level``, ``--categories``, ``--na-values`` and ``--labels-as``
    (:func:`ratings_keywords`), ``--duplicates``, ``files`` (``--sep`` and ``--encoding``,
    :meth:`Shared.files`), ``--engine`` and ``--scheduler``, the ``progress`` callback, and
    ``fields`` (``multi_label``, ``from_``, ``field``, or a command's own columns such as
    ``score``) where the command has them.

    >>> from accord.cli._app import COMMAND_OPTIONS
    >>> token = COMMAND_OPTIONS.set(dict(item="i", rater="r", label="l", duplicates="first"))
    >>> s = command_source(Path("r.csv"), Shared(), {"sep": ";", "encoding": None})
    >>> s.item, s.duplicates, s.sep, s.engine
    ('i', 'first', ';', 'memory')
    >>> COMMAND_OPTIONS.reset(token)
    """
    from ..data.source import source
    from ._app import COMMAND_OPTIONS

    read = {**ratings_keywords(), "duplicates": COMMAND_OPTIONS.get().get("duplicates", "raise")}
    engine = {"engine": shared.engine.value, "scheduler": shared.scheduler, "progress": progress}
    # ``fields`` win: a command that reads scores names its own --label and --level
    return source(str(path), **{**read, **files, **engine, **fields})


def check_engine_options(
    engine: EngineName,
    scheduler: str | None,
    memory_only: dict[str, bool] | None = None,
    why: str = "",
) -> None:
    """Fail before any work when an option is given that the chosen engine does not use:
    ``--scheduler`` (dask only) and the options of ``memory_only`` (flag -> given), with
    ``why`` after the message.

    >>> check_engine_options(EngineName.dask, "threads", {"--duplicates": False})
    >>> try:  # prints "accord: error: --gold applies to --engine memory" on stderr
    ...     check_engine_options(EngineName.stream, None, {"--gold": True})
    ... except typer.Exit as stop:
    ...     print(stop.exit_code)
    2
    """
    if scheduler is not None and engine is not EngineName.dask:
        raise fail("--scheduler applies to --engine dask")
    if scheduler is not None and "://" not in scheduler and scheduler not in DASK_SCHEDULERS:
        raise fail(
            f"--scheduler must be an address (tcp://host:8786) or one of "
            f"{', '.join(DASK_SCHEDULERS)}; got {scheduler}"
        )
    given = [flag for flag, on in (memory_only or {}).items() if on]
    if given and engine is not EngineName.memory:
        verb = "applies" if len(given) == 1 else "apply"
        raise fail(f"{' and '.join(given)} {verb} to --engine memory{why}")


@contextlib.contextmanager
def running(
    fmt: OutputFormat, quiet: bool, description: str
) -> Iterator[Callable[[int, int | None], None] | None]:
    """The block of a command that reads and computes: the library's errors and a broken
    input as one line (:func:`user_errors`), its warnings echoed (:func:`echo_warnings`), and
    the progress callback of a bar shown to people (:func:`progress_bar`), or None."""
    with (
        user_errors(),
        echo_warnings(),
        progress_bar(wants_progress(fmt, quiet), description) as progress,
    ):
        yield progress


def parse_na_values(text: str | None) -> list[str] | None:
    """``--na-values a,b``: the spellings; an empty value: empty cells only.

    >>> parse_na_values("NA, -"), parse_na_values(""), parse_na_values(None)
    (['NA', '-'], [], None)
    """
    if text is None:
        return None
    return [v.strip() for v in text.split(",") if v.strip()]


@contextlib.contextmanager
def progress_bar(
    show: bool, description: str, *, unit: str = "rows"
) -> Iterator[Callable[[int, int | None], None] | None]:
    """A progress bar on standard error (:class:`accord.report._progress.PhaseBar`), fed
    ``(done, total)`` counted in ``unit`` (rows read, by default) and told each later phase
    (counting, computing) by the library; None when not shown (``show`` False, or standard
    error is not a terminal). Call :func:`done_with` on it before printing results."""
    if not (show and sys.stderr.isatty()):
        yield None
        return
    from ..report._progress import PhaseBar

    bar = PhaseBar(description, shown=True, unit=unit)
    try:
        yield bar
    finally:
        bar.close()


def done_with(progress: Callable[[int, int | None], None] | None) -> None:
    """Erase the progress bar before results are printed: the verdict starts its own line."""
    close = getattr(progress, "close", None)
    if callable(close):
        close()


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
    sep: str | None,
    encoding: str | None,
    engine: EngineName = EngineName.memory,
    *,
    engine_takes: tuple[str, ...] = (),
) -> FileOptions:
    """``--sep`` and ``--encoding`` as the readers' ``sep=`` and ``encoding=``, checked: with
    ``--engine stream|dask`` only those the command's engine path takes (``engine_takes``:
    ``"sep"``, ``"encoding"``).

    >>> file_options(";", "latin-1", EngineName.stream, engine_takes=("sep", "encoding"))
    {'sep': ';', 'encoding': 'iso8859-1'}
    >>> try:  # prints "accord: error: --encoding applies to --engine memory; ..." on stderr
    ...     file_options(";", "latin-1", EngineName.stream, engine_takes=("sep",))
    ... except typer.Exit as stop:
    ...     print(stop.exit_code)
    2
    """
    from .._errors import InvalidInputError
    from ..io.files import check_encoding, parse_separator

    if engine is not EngineName.memory:
        given = {"sep": sep is not None, "encoding": encoding is not None}
        refused = [name for name, on in given.items() if on and name not in engine_takes]
        if refused and engine_takes:
            raise fail(
                "--encoding applies to --engine memory; the stream and dask engines read UTF-8"
            )
        if refused:
            raise fail(
                "--sep and --encoding apply to --engine memory; the stream and dask engines "
                "read UTF-8 files separated by , (a tab for .tsv)"
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


@dataclasses.dataclass(frozen=True, slots=True)
class Shared:
    """The options most commands share, as given (:func:`shared_options`)."""

    sep: str | None = None
    encoding: str | None = None
    engine: EngineName = EngineName.memory
    scheduler: str | None = None
    quiet: bool = False
    fmt: OutputFormat = OutputFormat.table
    output: Path | None = None

    def files(self, engine_takes: tuple[str, ...] = ()) -> FileOptions:
        """``--sep`` and ``--encoding``, checked against ``--engine``
        (:func:`file_options`)."""
        return file_options(self.sep, self.encoding, self.engine, engine_takes=engine_takes)


#: Each shared option: its parameter's type and its declaration.
SHARED_OPTIONS: dict[str, tuple[Any, Any]] = {
    "sep": (str | None, SEP_OPTION),
    "encoding": (str | None, ENCODING_OPTION),
    "engine": (EngineName, ENGINE_OPTION),
    "scheduler": (str | None, SCHEDULER_OPTION),
    "quiet": (bool, QUIET_OPTION),
    "fmt": (OutputFormat, FORMAT_OPTION),
    "output": (Path | None, OUTPUT_OPTION),
}


#: The options naming the columns of the ratings and how their labels read, in this order
#: (a command reads them with :func:`ratings_keywords`).
RATINGS_OPTIONS: dict[str, tuple[Any, Any]] = {
    "item": (str, ITEM_OPTION),
    "rater": (str, RATER_OPTION),
    "label": (str, LABEL_OPTION),
    "level": (str, LEVEL_OPTION),
    "categories": (str | None, CATEGORIES_OPTION),
    "na_values": (str | None, NA_VALUES_OPTION),
    "labels_as": (str, LABELS_AS_OPTION),
}


#: The column options, optional: a command that also reads what names no columns (an
#: annotation tool's export, ``accord agree --from``; a table of counts, ``accord pair``).
ITEM_OPTIONAL, RATER_OPTIONAL, LABEL_OPTIONAL = (
    typer.Option(None, option.param_decls[0], help=option.help)
    for option in (ITEM_OPTION, RATER_OPTION, LABEL_OPTION)
)

#: :data:`RATINGS_OPTIONS` with the columns optional (``accord agree --from``).
RATINGS_OPTIONS_OPTIONAL: dict[str, tuple[Any, Any]] = {
    **RATINGS_OPTIONS,
    "item": (str | None, ITEM_OPTIONAL),
    "rater": (str | None, RATER_OPTIONAL),
    "label": (str | None, LABEL_OPTIONAL),
}


def shared_options(
    *names: str, ratings: bool | Literal["optional"] = False
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Declare the shared options ``names`` (of :data:`SHARED_OPTIONS`, in this order) where
    the command's ``shared`` parameter stands; the command gets them as one :class:`Shared`.
    With ``ratings``, the options of :data:`RATINGS_OPTIONS` follow the command's first
    parameter (the file); the command reads them with :func:`ratings_keywords`.
    ``ratings="optional"`` makes the columns optional
    (:data:`RATINGS_OPTIONS_OPTIONAL`).

    >>> @shared_options("fmt", "output", ratings=True)
    ... def show(path: str, top: int = 1, shared: Shared = Shared()) -> None:
    ...     print(path, top, shared.fmt.value, shared.output)
    >>> list(inspect.signature(show).parameters)  # doctest: +NORMALIZE_WHITESPACE
    ['path', 'item', 'rater', 'label', 'level', 'categories', 'na_values', 'labels_as', 'top',
     'fmt', 'output']
    >>> show(path="a.csv", item="i", rater="r", label="l", level="nominal", categories=None,
    ...      na_values=None, labels_as="auto", top=3, fmt=OutputFormat.json, output=None)
    a.csv 3 json None
    """

    def declare(command: Callable[..., None]) -> Callable[..., None]:
        def declared(param: inspect.Parameter, options: dict[str, Any], chosen: Any) -> Any:
            return [
                param.replace(name=name, annotation=options[name][0], default=options[name][1])
                for name in chosen
            ]

        columns = RATINGS_OPTIONS_OPTIONAL if ratings == "optional" else RATINGS_OPTIONS
        params: list[inspect.Parameter] = []
        for at, param in enumerate(inspect.signature(command).parameters.values()):
            params += declared(param, SHARED_OPTIONS, names) if param.name == "shared" else [param]
            if at == 0 and ratings:
                params += declared(param, columns, columns)

        @functools.wraps(command)
        def run(**given: Any) -> None:
            shared = Shared(**{name: given.pop(name) for name in names})
            for name in RATINGS_OPTIONS if ratings else ():
                del given[name]  # the command reads them with ratings_keywords()
            command(**given, shared=shared)

        run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        return run

    return declare


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
        if exc.strerror in ("No file in the folder", "No file matches the pattern"):
            return f"{exc.strerror.lower()}: {name}"  # a folder or a glob with no file in it
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


def csv_text(frame: Any) -> str:
    """A table (a pandas DataFrame) as CSV for machines: no index, numbers to ten significant
    digits.

    >>> import pandas as pd
    >>> print(csv_text(pd.DataFrame({"rater": ["A"], "bias": [1 / 3]})), end="")
    rater,bias
    A,0.3333333333
    """
    return str(frame.to_csv(index=False, float_format="%.10g"))


def write_csv(frame: Any, output: Path | None) -> None:
    """Write a table as CSV (:func:`csv_text`) to ``output`` or to standard output."""
    write_text(csv_text(frame), output)


def wrote_for_machines(
    result: Any, rows: list[dict[str, Any]], fmt: OutputFormat, output: Path | None
) -> bool:
    """Write ``result`` as JSON (its ``to_dict()``) or ``rows`` as CSV when ``fmt`` asks for
    a machine's format; whether it did (else the caller prints its table)."""
    if fmt is OutputFormat.json:
        write_json(result.to_dict(), output)
        return True
    if fmt is OutputFormat.csv:
        import pandas as pd

        write_csv(pd.DataFrame(rows), output)
        return True
    return False


def write_json(payload: Any, output: Path | None) -> None:
    """Write a result's ``to_dict()`` (or a dict of them) as JSON to ``output`` or to standard
    output, in the envelope every command shares (:func:`json_envelope`)."""
    import json

    write_text(json.dumps(json_envelope(payload), indent=2, allow_nan=False), output)


#: The version of the JSON envelope and of ``output.schema.json`` (shipped beside this module),
#: raised when a key changes meaning or goes.
JSON_SCHEMA_VERSION = 1

#: Keys whose values are counts: an integral float among them is written as an integer.
COUNT_KEYS = frozenset({"n", "count", "rows", "ratings", "items", "raters", "missing",
                        "dropped", "dof", "iterations"})  # fmt: skip


def json_envelope(payload: Any) -> dict[str, Any]:
    """The JSON of every command: ``accord`` (the version), ``schema``
    (:data:`JSON_SCHEMA_VERSION`), ``command``, ``options`` (as parsed), ``input`` (the read
    report, the payload's ``report``; None when nothing was read), ``result`` (the rest of
    the payload) and ``non_finite`` (the JSON pointer of each infinite number, written as
    null like NaN, with its sign: ``"Infinity"``, ``"-Infinity"``). Counts are integers.

    >>> env = json_envelope({"report": {"rows": 3.0}, "ratio": float("inf")})
    >>> env["input"], env["result"], env["non_finite"]
    ({'rows': 3}, {'ratio': None}, {'/result/ratio': 'Infinity'})
    """
    from .._results import to_plain
    from .._version import __version__
    from ._app import COMMAND_NAME, COMMAND_OPTIONS

    plain = to_plain(payload)
    report = plain.pop("report", None) if isinstance(plain, dict) else None
    infinite: dict[str, str] = {}
    envelope = {
        "accord": __version__,
        "schema": JSON_SCHEMA_VERSION,
        "command": COMMAND_NAME.get(),
        "options": _finite(
            {k: _plain_option(v) for k, v in COMMAND_OPTIONS.get({}).items()}, "/options", infinite
        ),
        "input": _finite(report, "/input", infinite),
        "result": _finite(plain, "/result", infinite),
    }
    return {**envelope, "non_finite": infinite}


def _plain_option(value: Any) -> Any:
    """An option's value as JSON holds it (paths as text, choices by their value)."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_plain_option(v) for v in value]
    if value is None or isinstance(value, str | int | float):
        return value
    return str(value)  # a type of an option JSON has no word for: as it reads


def _finite(value: Any, at: str, infinite: dict[str, str], key: str = "") -> Any:
    """``value`` with NaN and infinities as None (each infinity's pointer in ``infinite``)
    and integral counts (:data:`COUNT_KEYS`, ``n_*``) as integers."""
    if isinstance(value, float):
        if value != value:
            return None
        if value in (float("inf"), float("-inf")):
            infinite[at] = "Infinity" if value > 0 else "-Infinity"
            return None
        counted = key in COUNT_KEYS or key.startswith("n_")
        return int(value) if counted and value.is_integer() else value
    if isinstance(value, dict):
        return {
            k: _finite(v, f"{at}/{_pointer(str(k))}", infinite, str(k)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_finite(v, f"{at}/{i}", infinite, key) for i, v in enumerate(value)]
    return value


def _pointer(key: str) -> str:
    """A key as a JSON pointer's token (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


#: Columns of p-values: printed as ``<0.0001`` below that, never as ``0.0000``.
P_VALUE_COLUMNS = frozenset({"p", "p-value", "pvalue", "p_value", "misfit_pvalue"})

#: The footnote of an interval that reaches a bound of its coefficient.
AT_BOUND_NOTE = (
    "*: the interval reaches {bound}, the {which} value the coefficient can take "
    "(a t interval is truncated there)."
)


class Cell(str):
    """A printed cell with a footnote: tables built by :func:`rich_table` list each distinct
    ``footnote`` of their cells once under the table. ``narrow``: how the cell reads in less
    room (a value over its interval, on two lines), used when the table does not fit."""

    footnote: str | None
    narrow: str | None

    def __new__(cls, text: str, footnote: str | None = None, narrow: str | None = None) -> Cell:
        cell = super().__new__(cls, text)
        cell.footnote = footnote
        cell.narrow = narrow
        return cell


def format_number(value: Any, digits: int = 4) -> str:
    """Round for display only (the library never rounds).

    Counts are grouped by thousands.

    >>> format_number(0.123456), format_number(float("nan")), format_number(3)
    ('0.1235', 'NaN', '3')
    >>> format_number(10_000_000)
    '10,000,000'
    """
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return f"{int(value):,}"
    if isinstance(value, float):
        if value != value:
            return "NaN"
        return f"{value:.{digits}f}"
    if value is None:
        return ""
    return str(value)


def format_pvalue(value: Any, digits: int = 4) -> str:
    """A p-value for display: below ``10**-digits`` it prints as ``<0.0001``, not ``0.0000``.

    >>> format_pvalue(3e-12), format_pvalue(0.04321), format_pvalue(float("nan"))
    ('<0.0001', '0.0432', 'NaN')
    """
    if isinstance(value, float) and value == value and value < 10.0**-digits:
        return f"<{10.0**-digits:.{digits}f}"
    return format_number(value, digits)


def format_ci(low: float, high: float, digits: int = 4, *, star_bounds: bool = True) -> str:
    """``[low, high]`` rounded for display; empty when either end is NaN. With
    ``star_bounds``, an end at the coefficient's bound (1 or -1, where t intervals are
    truncated) is starred, and a table built by :func:`rich_table` says why in a footnote.

    >>> format_ci(0.31937, 0.54106)
    '[0.3194, 0.5411]'
    >>> cell = format_ci(0.9, 1.0)
    >>> cell, cell.footnote is not None
    ('[0.9000, 1.0000*]', True)
    >>> format_ci(0.439, 1.0, 3, star_bounds=False)  # a Wilson interval, not truncated
    '[0.439, 1.000]'
    """
    if low != low or high != high:
        return ""
    lo, hi = f"{low:.{digits}f}", f"{high:.{digits}f}"
    notes = []
    if not star_bounds:
        return f"[{lo}, {hi}]"
    if high == 1.0:
        hi += "*"
        notes.append(AT_BOUND_NOTE.format(bound=1, which="largest"))
    if low == -1.0:
        lo += "*"
        notes.append(AT_BOUND_NOTE.format(bound=-1, which="smallest"))
    return Cell(f"[{lo}, {hi}]", " ".join(notes) or None)


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


#: Columns of text (notes, names, ids) are left-aligned and wrap at words to fit; the numbers
#: never do.
TEXT_COLUMNS = frozenset(
    {"note", "notes", "reason", "method", "split", "measure", "item", "rater", "group", "pair"}
)

#: The headers of note columns: printed as numbered footnotes when a table does not fit.
NOTE_HEADERS = frozenset({"note", "notes", "reason"})

#: Colour of table titles (rich drops it under ``NO_COLOR`` or when not printing to a terminal).
TITLE_STYLE = "bold cyan"


def terminal_width() -> int:
    """Columns of the terminal (``COLUMNS`` wins; 120 when standard output is not a terminal)."""
    import shutil

    return shutil.get_terminal_size(fallback=(120, 24)).columns


class FittedTable:
    """A table that fits the console it is printed on.

    Numbers and ids are never cut: text columns (``left`` and notes) wrap at words, the first
    column (the names of the rows) never inside a word and notes giving way first; when even
    that does not fit, numeric columns are left out from the right, the footnote naming
    them. The title and the footnotes are lines of their own, wrapped at the console's width.
    """

    def __init__(
        self,
        header: list[str],
        rows: list[list[str]],
        *,
        left: list[bool],
        title: str | None,
        caption: str | None,
        title_justify: JustifyMethod,
        together: Sequence[Sequence[str]] = (),
    ) -> None:
        self.header, self.rows, self.left = header, rows, left
        self.title, self.caption, self.title_justify = title, caption, title_justify
        self.together = [set(group) for group in together]
        self.refs: list[str] = []  # the notes numbered by :meth:`compact`

    def _natural(self, j: int) -> int:
        from rich.cells import cell_len

        lines = [self.header[j], *(line for r in self.rows for line in r[j].split("\n"))]
        return max(cell_len(line) for line in lines)

    def compact(self) -> FittedTable:
        """The table in less room: the notes (the columns of :data:`NOTE_HEADERS`) as
        numbered footnotes printed once under the table, their numbers after the row's name,
        and cells in their ``narrow`` form."""
        notes = [j for j, h in enumerate(self.header) if h in NOTE_HEADERS and j > 0]
        kept = [j for j in range(len(self.header)) if j not in notes]
        numbered: dict[str, str] = {}

        def short(cell: str) -> str:
            narrow = getattr(cell, "narrow", None)
            return cell if narrow is None else Cell(narrow, getattr(cell, "footnote", None))

        rows = []
        for row in self.rows:
            refs = [numbered.setdefault(str(row[j]), f"[{len(numbered) + 1}]")
                    for j in notes if row[j].strip()]  # fmt: skip
            cells = [short(row[j]) for j in kept]
            cells[0] = Cell(" ".join([cells[0], *refs]), getattr(cells[0], "footnote", None))
            rows.append(cells)
        out = FittedTable([self.header[j] for j in kept], rows,
                          left=[self.left[j] for j in kept], title=self.title,
                          caption=self.caption, title_justify=self.title_justify)  # fmt: skip
        out.together, out.refs = self.together, [f"{n} {text}" for text, n in numbered.items()]
        return out

    def _narrowest(self, j: int) -> int:
        """The width a wrapping column can shrink to: its longest word, at most 14 but for the
        first column, which names the rows and whose words are never cut."""
        from rich.cells import cell_len

        cap = None if j == 0 else 14
        words = [w for text in (self.header[j], *(r[j] for r in self.rows)) for w in text.split()]
        longest = [min(cell_len(w), cap or cell_len(w)) for w in words]
        return min(self._natural(j), max([4, *longest]))

    def _first_width(self, shown: list[int], width: int) -> int:
        """The width of the first column, which names the rows: what it needs where that
        fits beside the narrowest of the other columns shown (notes give way first), and
        never less than its longest word."""
        others = sum(self._narrowest(j) if self.left[j] else self._natural(j) for j in shown[1:])
        room = width - (3 * len(shown) + 1) - others
        return max(self._narrowest(0), min(self._natural(0), room))

    def _fit(self, width: int) -> tuple[list[int], list[str]]:
        """Indices of the columns shown at ``width`` and the headers left out."""
        shown = list(range(len(self.header)))
        left_out: list[str] = []

        def needed(cols: list[int]) -> int:
            borders = 3 * len(cols) + 1  # "│ " before each column, " │" after the last
            return borders + sum(
                self._narrowest(j) if self.left[j] else self._natural(j) for j in cols
            )

        while len(shown) > 1 and needed(shown) > width:
            rigid = [j for j in shown[1:] if not self.left[j]]
            drop = rigid[-1] if rigid else shown[-1]
            # a column that goes with others (a pair of limits) goes with them
            group = next((g for g in self.together if self.header[drop] in g), {self.header[drop]})
            for j in [j for j in shown[1:] if self.header[j] in group]:
                shown.remove(j)
                left_out.append(self.header[j])
        return shown, left_out

    def build(self, width: int) -> tuple[Table, list[str]]:
        """The rich table of the columns that fit ``width``, and the lines under it (when
        the table does not fit at its natural widths: in its :meth:`compact` form)."""

        natural = 3 * len(self.header) + 1 + sum(map(self._natural, range(len(self.header))))
        if natural > width and self._compactable():
            return self.compact()._built(width)
        return self._built(width)

    def _compactable(self) -> bool:
        """Whether :meth:`compact` changes the table (a note, or a cell with a narrow form)."""
        notes = any(h in NOTE_HEADERS for h in self.header)
        return notes or any(getattr(c, "narrow", None) for r in self.rows for c in r)

    def _built(self, width: int) -> tuple[Table, list[str]]:
        from rich.table import Table

        shown, left_out = self._fit(width)
        table = Table(header_style="bold")
        for j in shown:
            if self.left[j]:
                fixed = self._first_width(shown, width) if j == 0 else None
                table.add_column(self.header[j], justify="left", overflow="fold", width=fixed)
            else:
                natural = self._natural(j)
                table.add_column(self.header[j], justify="right", no_wrap=True, min_width=natural)
        for row in self.rows:
            table.add_row(*(row[j] for j in shown))
        notes = [self.caption] if self.caption else []
        footnotes = {
            cell.footnote: None
            for row in self.rows
            for j in shown
            if isinstance(cell := row[j], Cell) and cell.footnote
        }
        notes += list(footnotes) + self.refs
        if left_out:
            notes.append(
                f"Left out to fit {width} columns: {', '.join(left_out)} "
                "(a wider terminal, COLUMNS=..., or --format csv shows them)."
            )
        return table, notes

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.text import Text

        table, notes = self.build(options.max_width)
        if self.title:
            yield Text(
                self.title,
                style=TITLE_STYLE,
                justify="default" if self.title_justify == "left" else self.title_justify,
            )
        yield table
        for note in notes:
            yield Text(note, style="dim")


def rich_table(
    rows: list[dict[str, Any]],
    columns: list[str],
    *,
    title: str | None = None,
    caption: str | None = None,
    left: Sequence[str] = ("coefficient", "name"),
    headers: dict[str, str] | None = None,
    title_justify: JustifyMethod = "left",
    together: Sequence[Sequence[str]] = (),
) -> FittedTable:
    """A table of ``rows`` (dicts) that fits the console it is printed on: columns empty in
    every row are left out, numbers are rounded for display (p-values down to ``<0.0001``),
    ``left`` columns are left-aligned text and ``headers`` renames; bidirectional controls
    in names show as escapes (``\\u202e``); the columns of each group of ``together`` are
    shown or left out together (a pair of limits). See :class:`FittedTable`."""
    headers = headers or {}
    shown = [c for c in columns if any(row.get(c) not in (None, "") for row in rows)]

    def cell(col: str, value: Any) -> str:
        text = format_pvalue(value) if col in P_VALUE_COLUMNS else format_number(value)
        # names as the data hold them: a bidirectional control shows as its escape
        shown = show_controls(text)
        return text if shown == text else Cell(shown, getattr(text, "footnote", None))

    return FittedTable(
        [headers.get(c, c) for c in shown],
        [[cell(c, row.get(c)) for c in shown] for row in rows],
        left=[c in left or c in TEXT_COLUMNS for c in shown],
        title=title,
        caption=caption,
        title_justify=title_justify,
        together=together,
    )


@contextlib.contextmanager
def output_console(output: Path | None) -> Iterator[Console]:
    """A rich console printing to standard output at the terminal's width (colour as the
    terminal and ``NO_COLOR`` allow), or to a buffer written as plain text to ``output`` when
    the block ends."""
    from rich.console import Console

    if output is None:
        yield Console(width=terminal_width(), soft_wrap=False)
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
    lead: str | None = None,
    together: Sequence[Sequence[str]] = (),
) -> None:
    """Render rows as a table that fits the terminal (to stdout, or plain text to
    ``output``), after the ``lead`` line (the verdict) when given; the columns of each group
    of ``together`` are shown or left out together."""
    with output_console(output) as console:
        if lead:
            print_lead(console, lead)
        console.print(rich_table(rows, columns, title=title, caption=caption, together=together))


def print_lead(console: Console, lead: str) -> None:
    """The verdict line, in bold, wrapped at words to the console's width."""
    from rich.text import Text

    console.print(Text(show_controls(lead), style="bold"))


def check_columns(
    engine: EngineName, source_tool: ExportToolName | None, field: str | None
) -> None:
    """The columns (``--item``, ``--rater``, ``--label``) all or none; none only for an
    annotation-tool export, read by the memory engine; ``--field`` only for one."""
    columns = ratings_keywords()
    given = [f"--{name}" for name in ("item", "rater", "label") if columns[name]]
    if given and source_tool is not None:
        raise fail(f"{', '.join(given)}: an annotation-tool export (--from) has no columns to name")
    if given and field is not None:
        raise fail("--field names the control or question of an annotation-tool export")
    if given and len(given) < 3:
        missing = sorted({"--item", "--rater", "--label"} - set(given))
        raise fail(f"missing {' and '.join(missing)}: a ratings table needs all three columns")
    if not given and engine is not EngineName.memory:
        raise fail(
            "--item, --rater and --label are needed with --engine stream or dask; an "
            "annotation-tool export is read with --engine memory"
        )


def check_export_options(shared: Shared) -> None:
    """The options of a file's text (``--sep``, ``--encoding``) are refused for an
    annotation-tool export, not ignored (``--na-values`` and ``--labels-as`` apply to its
    answers as to a table's labels)."""
    as_written = {"--sep": shared.sep, "--encoding": shared.encoding}
    flags = [flag for flag, v in as_written.items() if v is not None]
    if flags:
        raise fail(f"{', '.join(flags)}: an annotation-tool export is read as its tool writes it")


def read_source(
    path: Path, files: Any, source_tool: ExportToolName | None, field: str | None, **options: Any
) -> Any:
    """The ratings of ``path`` read in memory: an annotation tool's export (``--from``), or a
    table (an export recognised by its content when no column is named)."""
    if source_tool is not None:
        return read_export_file(path, source_tool, field, **options)
    return read_ratings_file(path, files, field=field, **options)
