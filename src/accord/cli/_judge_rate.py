"""``accord judge-rate``: what is the real pass rate? The judge's rate corrected by its errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ._app import app, examples
from ._common import (
    DUPLICATES_OPTION,
    SEED_OPTION,
    OutputFormat,
    Shared,
    csv_text,
    echo_warnings,
    format_number,
    output_console,
    print_lead,
    rich_table,
    shared_options,
    user_errors,
    write_json,
    write_text,
)

EPILOG = examples(
    "accord judge-rate examples/pandalm-judged.csv --item item --rater rater "
    "--label preference --judge gpt-3.5-turbo",
    "accord judge-rate examples/pandalm-judged.csv --item item --rater rater "
    "--label preference --judge gpt-3.5-turbo --positive first --format json",
    "accord judge-rate examples/pandalm-judged.csv --item item --rater rater "
    "--label preference --judge gpt-3.5-turbo --positive tie --interval bootstrap --seed 1",
)

COLUMNS = ["label", "judged", "corrected", "interval", "PPI++", "PPI++ interval", "labels to halve"]


def _rows(table: Any) -> list[dict[str, str]]:
    def pair(low: float, high: float) -> str:
        return f"[{format_number(low, 3)}, {format_number(high, 3)}]"

    def halve(value: Any) -> str:
        return "-" if value is None or value != value else f"{int(value):,}"

    return [
        {
            "label": str(r["label"]),
            "judged": format_number(r["raw_rate"], 3),
            "corrected": format_number(r["corrected"], 3),
            "interval": pair(r["corrected_low"], r["corrected_high"]),
            "PPI++": format_number(r["ppi"], 3),
            "PPI++ interval": pair(r["ppi_low"], r["ppi_high"]),
            "labels to halve": halve(r["ppi_labels_to_halve"]),
        }
        for r in table.to_dict(orient="records")
    ]


def _render(result: Any, fmt: OutputFormat, output: Path | None, report: Any) -> None:
    from rich.text import Text

    if fmt is OutputFormat.json:
        write_json({"report": report.to_dict(), **result.to_dict()}, output)
        return
    if fmt is OutputFormat.csv:
        write_text(csv_text(result.table), output)
        return
    with output_console(output) as console:
        console.print(Text(str(report)))
        print_lead(console, result._headline())
        caption = result.method + (
            f". Note: {result.corrected.reason}" if result.corrected.reason else ""
        )
        title = (
            f"{result.judge}'s rates against {result.reference} ({result.n_labelled:,} items "
            f"labelled, {result.n_unlabelled:,} judged only; "
            f"{result.confidence_level:.0%} intervals; labels to halve the PPI++ interval)"
        )
        console.print(rich_table(_rows(result.table), COLUMNS, title=title, caption=caption))


@app.command("judge-rate", epilog=EPILOG)
@shared_options("sep", "encoding", "fmt", "output", ratings=True)
def judge_rate(
    path: Path = typer.Argument(
        ...,
        help="Ratings file (CSV, TSV, Parquet or JSON Lines): the judge's labels of every "
        "item, the humans' labels of some.",
    ),
    judge: str = typer.Option(..., "--judge", help="The judge, as named in the rater column."),
    unlabelled: Path | None = typer.Option(
        None,
        "--unlabelled",
        help="More of the judge's labels, on items no human labelled: a file with the same "
        "columns (its rows by --judge are read).",
    ),
    humans: str | None = typer.Option(
        None,
        "--humans",
        help="The humans, comma-separated (default: every rater not the judge); with "
        "several, an item's human label is their majority (ties left out).",
    ),
    positive: str | None = typer.Option(
        None,
        "--positive",
        help="One label (e.g. pass): its Rogan-Gladen rate. Default: every label's share, "
        "by the inverse of the judge's confusion matrix.",
    ),
    interval: str = typer.Option(
        "delta", "--interval", help="delta (delta method) or bootstrap (both sets resampled)."
    ),
    confidence_level: float = typer.Option(0.95, "--confidence-level", help="Confidence level."),
    n_boot: int = typer.Option(
        2000, "--n-boot", help="Bootstrap replicates (--interval bootstrap)."
    ),
    seed: int = SEED_OPTION,
    duplicates: str = DUPLICATES_OPTION,
    shared: Shared = Shared(),
) -> None:
    """What is the real pass rate? The judge's rates corrected by its errors on the items
    humans labelled: Rogan-Gladen (or the matrix method) and PPI++, with intervals."""
    from ..judges.rates import judge_rates
    from ._common import read_ratings_file

    files = shared.files()
    with user_errors(), echo_warnings():
        ratings = read_ratings_file(path, files, duplicates=duplicates)
        more = None if unlabelled is None else read_ratings_file(unlabelled, files)
        label = _typed(positive, ratings.categories)
        result = judge_rates(
            ratings,
            judge,
            humans=None if humans is None else [h.strip() for h in humans.split(",")],
            unlabelled=more,
            positive=label,
            confidence_level=confidence_level,
            interval=interval,  # type: ignore[arg-type]
            n_boot=n_boot,
            rng=seed,
        )
        _render(result, shared.fmt, shared.output, ratings.report)


def _typed(text: str | None, categories: tuple[Any, ...]) -> Any:
    """``--positive`` as the category it spells (``1`` is the label 1 of numeric labels)."""
    if text is None:
        return None
    for c in categories:
        if str(c) == text:
            return c
    return text
