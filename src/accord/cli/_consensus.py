"""``accord consensus``: contested items and the raters who stray from the consensus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ._app import app, examples
from ._common import (
    CATEGORIES_OPTION,
    FIELD_OPTION,
    FROM_OPTION,
    GOLD_OPTION,
    ITEM_OPTIONAL,
    LABELS_AS_OPTION,
    LEVEL_OPTION,
    NA_VALUES_OPTION,
    RATER_OPTIONAL,
    RATINGS_FILE_ARGUMENT,
    EngineName,
    ExportToolName,
    FileOptions,
    OutputFormat,
    Shared,
    check_engine_options,
    check_output,
    command_source,
    echo_warnings,
    fail,
    format_number,
    output_console,
    prepare_output_dir,
    print_lead,
    ratings_keywords,
    read_ratings_file,
    rich_table,
    running,
    shared_options,
    user_errors,
    write_csv,
    write_json,
)

CAUTION = (
    "Agreement with the consensus is not correctness: a lone dissenter may be the one who is "
    "right (Simon 2010). Pass --gold where a gold label is known."
)

ITEM_COLUMNS = ["contested_rank", "item", "n_ratings", "mode", "modal_share", "entropy"]
RATER_COLUMNS = [
    "rank",
    "rater",
    "n_ratings",
    "mean_deviation",
    "median_deviation",
    "share_poor",
    "share_very_poor",
    "consensus_agreement",
    "consensus_kappa",
    "gold_accuracy",
    "gold_kappa",
]


def parse_bands(text: str) -> tuple[float, ...]:
    """``"0,1,2"`` -> ``(0.0, 1.0, 2.0)``, naming the part that is not a number."""
    parts = [p.strip() for p in text.split(",")]
    out = []
    for part in parts:
        try:
            out.append(float(part))
        except ValueError:
            raise fail(f"--bands: {part!r} is not a number (expected e.g. 0,1,2)") from None
    return tuple(out)


def read_with_gold(
    path: Path, files: FileOptions, *, gold: str | None, duplicates: str
) -> tuple[Any, Any]:
    """The ratings of ``path`` (read as the command's options say, ``files`` from
    :func:`~accord.cli._common.file_options`) and, when ``gold`` names a column, the gold
    label per item.

    The gold column must hold one label per item (repeated on the item's rows, or given on
    some of them); an item with two different gold labels is an error naming it.
    """
    from ..consensus import gold_labels
    from ..io.ratings import read_table

    ratings = read_ratings_file(path, files, duplicates=duplicates)
    if gold is None:
        return ratings, None
    item = ratings_keywords()["item"]
    frame = read_table(path, (item, gold), **files)
    return ratings, gold_labels(frame, item, gold)


def engine_verdict(path: Path, shared: Shared, files: FileOptions) -> str:
    """The verdict line with the stream or dask engine: the headline coefficients of the same
    files, read as the command's options say (:func:`~accord.cli._common.command_source`)."""
    from .._verdict import headline_coefficients, table_verdict
    from ..front.agreement import agreement

    source = command_source(path, shared, files)
    coefficients = headline_coefficients(source.level)
    return table_verdict(agreement(source, coefficients=coefficients))


def _rows(frame: Any, columns: list[str]) -> list[dict[str, Any]]:
    from .._results import to_plain

    keep = [c for c in columns if c in frame.columns]
    rows: list[dict[str, Any]] = to_plain(frame[keep])
    return rows


def render(
    result: Any,
    report: Any,
    fmt: OutputFormat,
    output: Path | None,
    top: int,
    lead: str | None = None,
) -> None:
    """Print or write the most contested items and the raters who stray most (the table
    format after the ``lead``, the verdict on the agreement)."""

    contested = result.most_contested(top)
    raters = result.raters.head(top)
    if fmt is OutputFormat.json:
        payload = {
            "report": report.to_dict(),
            "method": result.method,
            "summary": result.summary.to_dict(),
            "most_contested": _rows(contested, list(contested.columns)),
            "raters": _rows(raters, list(raters.columns)),
            "caution": CAUTION,
        }
        write_json(payload, output)
        return
    if fmt is OutputFormat.csv:
        write_csv(result.raters, output)
        return
    _print_tables(result, report, contested, raters, output, lead)


#: Short headers for the printed tables (the CSV and JSON keep the result's column names).
HEADERS = {
    "contested_rank": "rank",
    "n_ratings": "ratings",
    "modal_share": "modal share",
    "mean_deviation": "mean dev",
    "median_deviation": "median dev",
    "share_poor": "poor",
    "share_very_poor": "very poor",
    "consensus_agreement": "agrees w/ consensus",
    "consensus_kappa": "kappa vs consensus",
    "gold_accuracy": "gold accuracy",
    "gold_kappa": "kappa vs gold",
}


def _table(title: str, rows: list[dict[str, Any]], columns: list[str]) -> Any:
    return rich_table(
        rows,
        columns,
        title=title,
        title_justify="left",
        left=("item", "rater", "mode"),
        headers=HEADERS,
    )


def _print_tables(
    result: Any,
    report: Any,
    contested: Any,
    raters: Any,
    output: Path | None,
    lead: str | None = None,
) -> None:
    s = result.summary
    shares = ", ".join(f"{k} {v:.1%}" for k, v in s.class_shares.items() if v == v)
    lines = [
        str(report),
        f"mean item entropy {format_number(s.mean_entropy)} (base {result.base:g}); "
        f"normalised {format_number(s.mean_normalized_entropy)}"
        + (f" ({s.reason})" if s.reason else "")
        + f"; ratings: {shares}",
    ]
    item_rows = _rows(contested, ITEM_COLUMNS)
    rater_rows = _rows(raters, RATER_COLUMNS)

    with output_console(output) as console:
        if lead:
            print_lead(console, lead)
        for line in lines:
            console.print(line, markup=False, highlight=False)
        console.print(
            _table(f"Most contested items (top {len(item_rows)})", item_rows, ITEM_COLUMNS)
        )
        console.print(
            _table(f"Raters who stray most (top {len(rater_rows)})", rater_rows, RATER_COLUMNS)
        )
        console.print(
            "deviation = surprisal - item entropy (> 0: more surprising than the item's average "
            "rating); consensus: the leave-one-out modal label of the item. " + CAUTION,
            markup=False,
            highlight=False,
        )


def write_tables(result: Any, directory: Path) -> None:
    """Write items.csv, ratings.csv and raters.csv into ``directory`` (created if needed)."""
    prepare_output_dir(directory)
    for name in ("items", "ratings", "raters"):
        frame = getattr(result, name)
        write_csv(frame, directory / f"{name}.csv")


@app.command(
    "consensus",
    epilog=examples(
        "accord consensus examples/diagnoses.csv --item patient --rater rater "
        "--label diagnosis --output-dir consensus-out",
        "accord consensus examples/diagnoses.csv --item patient --rater rater "
        "--label diagnosis --engine stream",
    ),
)
@shared_options("sep", "encoding", "engine", "scheduler", "quiet", "fmt", "output")
def consensus_command(
    path: Path = RATINGS_FILE_ARGUMENT,
    item: str | None = ITEM_OPTIONAL,
    rater: str | None = RATER_OPTIONAL,
    label: str | None = typer.Option(
        None, "--label", help="Column holding the labels (an empty cell: assigned, no label)."
    ),
    source_tool: ExportToolName | None = FROM_OPTION,
    field: str | None = FIELD_OPTION,
    reference: str = typer.Option(
        "all",
        "--reference",
        help="all: p from every rating of the item; others: leave the scored rating out.",
    ),
    missing: str = typer.Option(
        "omit",
        "--missing",
        help="omit: an empty label is not a rating; category: it is the category '(no label)'.",
    ),
    bands: str = typer.Option(
        "0,1,2", "--bands", help="Upper edges of good, acceptable and poor on the deviation."
    ),
    base: float = typer.Option(2.0, "--base", help="Logarithm base (2: bits)."),
    gold: str | None = GOLD_OPTION,
    ordinal: bool = typer.Option(
        False, "--ordinal", help="Also ordinal entropy and surprisal (needs --level ordinal)."
    ),
    level: str = LEVEL_OPTION,
    categories: str | None = CATEGORIES_OPTION,
    duplicates: str = typer.Option(
        "raise", "--duplicates", help="raise, first or last (one rater rating an item twice)."
    ),
    na_values: str | None = NA_VALUES_OPTION,
    labels_as: str = LABELS_AS_OPTION,
    top: int = typer.Option(10, "--top", min=1, help="How many items and raters to print."),
    output_dir: Path | None = typer.Option(
        None, "--output-dir", help="Write items.csv, ratings.csv and raters.csv here."
    ),
    shared: Shared = Shared(),
) -> None:
    """Which items are contested and which raters stray from the consensus (entropy and
    surprisal, Simon 2010). --format csv prints the whole raters table; --from reads an
    annotation tool's export."""
    options: dict[str, Any] = {
        "reference": reference,
        "missing": missing,
        "bands": parse_bands(bands),
        "base": base,
        "ordinal": ordinal,
    }
    from ..front.consensus import consensus

    engine, fmt, output = shared.engine, shared.fmt, shared.output
    check_output(output)
    check_output(output_dir, folder=True)
    files = shared.files(engine_takes=("sep", "encoding"))
    _check_source(source_tool, field, gold, shared)
    check_engine_options(
        engine,
        shared.scheduler,
        {"--gold": gold is not None},
        " (the library's consensus(gold=...) takes a gold mapping with every engine)",
    )
    read = ratings_keywords()
    if engine is not EngineName.memory:
        if output_dir is not None:
            raise fail(
                "--output-dir writes the per-rating table, which --engine stream/dask does "
                "not produce; use --format csv for the raters"
            )
        _from_engine(path, shared, files, options, top)
        return
    with user_errors(), echo_warnings():
        if not read["item"]:  # an annotation-tool export
            from ._common import read_source

            ratings = read_source(path, files, source_tool, field, duplicates=duplicates)
            gold_labels = None
        else:
            ratings, gold_labels = read_with_gold(path, files, gold=gold, duplicates=duplicates)
        result = consensus(ratings, gold=gold_labels, **options)
        lead = None
        if fmt is OutputFormat.table:
            from .._verdict import headline_coefficients, ratings_verdict
            from ..front.agreement import agreement

            lead = ratings_verdict(
                ratings, agreement(ratings, coefficients=headline_coefficients(ratings.level))
            )
        if output_dir is not None:
            write_tables(result, output_dir)
        render(result, ratings.report, fmt, output, top, lead)


def _check_source(
    source_tool: ExportToolName | None, field: str | None, gold: str | None, shared: Shared
) -> None:
    """The columns of a table, or an annotation-tool export (``--from``, or recognised by its
    content when no column is named) read in memory, without a gold column, as ``accord
    agree`` takes them."""
    from ._common import check_columns, check_export_options

    check_columns(shared.engine, source_tool, field)
    if source_tool is not None:
        check_export_options(shared)
    if gold is not None and not ratings_keywords()["item"]:
        raise fail("--gold names a column of a ratings table; an annotation-tool export has none")


def _from_engine(
    path: Path, shared: Shared, files: FileOptions, options: dict[str, Any], top: int
) -> None:
    """``accord consensus --engine stream|dask``: the library's consensus of the file where
    it is, and (table format) the verdict on the agreement from the same engine."""
    from ..front.consensus import consensus

    fmt = shared.fmt
    with running(fmt, shared.quiet, "reading ratings") as callback:
        result = consensus(command_source(path, shared, files, callback), **options)
        lead = engine_verdict(path, shared, files) if fmt is OutputFormat.table else None
    with user_errors():
        render(result, result.report, fmt, shared.output, top, lead)
