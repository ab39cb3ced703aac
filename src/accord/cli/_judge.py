"""``accord judge``: can a judge (a model, a device) replace a human rater? The alt-test."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer

from ._app import app, examples
from ._common import (
    CATEGORIES_OPTION,
    ITEM_OPTION,
    LABEL_OPTION,
    LABELS_AS_OPTION,
    LEVEL_OPTION,
    NA_VALUES_OPTION,
    RATER_OPTION,
    OutputFormat,
    Shared,
    check_output,
    echo_warnings,
    format_number,
    format_pvalue,
    print_table,
    read_ratings_file,
    shared_options,
    user_errors,
    write_text,
)

EPILOG = examples(
    "accord judge examples/diagnoses.csv --item patient --rater rater --label diagnosis "
    "--judge rater6 --epsilon 0.15 --min-items-per-rater 20",
    "accord judge examples/diagnoses.csv --item patient --rater rater --label diagnosis "
    "--judge rater5 --judge rater6 --epsilon 0.15 --min-items-per-rater 20 --format json",
)

HUMAN_COLUMNS = [
    "human",
    "n_items",
    "judge_wins",
    "human_wins",
    "statistic",
    "pvalue",
    "rejected",
    "reason",
]
RANKING_COLUMNS = ["judge", "advantage_probability", "winning_rate", "passed", "n_humans"]


def _cells(row: Mapping[Any, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key == "pvalue":
            out[key] = format_pvalue(value)
        elif isinstance(value, bool):
            out[key] = "yes" if value else "no"
        elif isinstance(value, float):
            out[key] = format_number(value, 3)
        else:
            out[key] = value
    return out


def _render(result: Any, fmt: OutputFormat, output: Path | None) -> None:
    from .._results import dumps
    from ..judges import AltTest

    tests = [result] if isinstance(result, AltTest) else list(result.tests)
    if fmt is OutputFormat.json:
        write_text(dumps(result.to_dict()), output)
        return
    if fmt is OutputFormat.csv:
        frames = [t.humans.assign(judge=t.judge, epsilon=t.epsilon) for t in tests]
        import pandas as pd

        table = pd.concat(frames, ignore_index=True)
        write_text(table.to_csv(index=False, float_format="%.10g"), output)
        return
    if len(tests) > 1:
        rows = [_cells(r) for r in result.table[RANKING_COLUMNS].to_dict(orient="records")]
        print_table(
            rows,
            RANKING_COLUMNS,
            title=f"Judges ranked by advantage probability (epsilon = {result.epsilon:g})",
            output=output,
            lead=result._headline(),
        )
    for test in tests:
        rows = [_cells(r) for r in test.humans[HUMAN_COLUMNS].to_dict(orient="records")]
        print_table(
            rows,
            HUMAN_COLUMNS,
            title=f"{test.judge} against each human (epsilon = {test.epsilon:g})",
            caption=test.method,
            output=output,
            lead=test._headline() if len(tests) == 1 else None,
        )


@app.command("judge", epilog=EPILOG)
@shared_options("sep", "encoding", "fmt", "output")
def judge(
    path: Path = typer.Argument(..., help="Ratings file: CSV, TSV, Parquet or JSON Lines."),
    item: str = ITEM_OPTION,
    rater: str = RATER_OPTION,
    label: str = LABEL_OPTION,
    judges: list[str] = typer.Option(
        ..., "--judge", help="The judge, as named in the rater column; repeat to rank several."
    ),
    epsilon: float = typer.Option(
        ...,
        "--epsilon",
        help="Cost-benefit margin in [0, 1): 0.2 for expert humans, 0.15 skilled, 0.1 crowd.",
    ),
    scoring: str = typer.Option(
        "accuracy", "--scoring", help="accuracy (labels) or neg_rmse (numeric scores)."
    ),
    humans: str | None = typer.Option(
        None, "--humans", help="The panel, comma-separated (default: every rater not a judge)."
    ),
    q: float = typer.Option(0.05, "--q", help="False discovery rate (Benjamini-Yekutieli)."),
    min_raters_per_item: int = typer.Option(
        2, "--min-raters-per-item", help="Fewest humans an item needs to be kept."
    ),
    min_items_per_rater: int = typer.Option(
        30, "--min-items-per-rater", help="Fewest items a human needs to be tested."
    ),
    test: str = typer.Option("t", "--test", help="t (30+ items per human) or wilcoxon."),
    level: str = LEVEL_OPTION,
    categories: str | None = CATEGORIES_OPTION,
    na_values: str | None = NA_VALUES_OPTION,
    labels_as: str = LABELS_AS_OPTION,
    shared: Shared = Shared(),
) -> None:
    """Can a judge replace a human rater? The alternative annotator test (alt-test)."""
    from .. import alt_test

    check_output(shared.output)
    files = shared.files()
    with user_errors(), echo_warnings():
        ratings = read_ratings_file(path, files)
        panel = None if humans is None else [h.strip() for h in humans.split(",")]
        result = alt_test(
            ratings,
            judges if len(judges) > 1 else judges[0],
            epsilon=epsilon,
            scoring=scoring,  # type: ignore[arg-type]
            humans=panel,
            q=q,
            min_raters_per_item=min_raters_per_item,
            min_items_per_rater=min_items_per_rater,
            test=test,  # type: ignore[arg-type]
        )
        _render(result, shared.fmt, shared.output)
