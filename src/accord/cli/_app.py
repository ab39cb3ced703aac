"""The typer application every ``accord`` subcommand registers on."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="accord",
    help=(
        "How far can you trust your raters? Agreement, consensus, panel calibration and "
        "confidence calibration, with uncertainty."
    ),
    epilog=(
        "Example: accord agree examples/diagnoses.csv --item patient --rater rater "
        "--label diagnosis"
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
