"""``accord calibrate``: calibrated item values and rater biases from a panel's scores."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ._app import app, examples
from ._common import (
    ITEM_OPTION,
    NA_VALUES_OPTION,
    RATER_OPTION,
    OutputFormat,
    Shared,
    check_engine_options,
    check_output,
    check_seed,
    command_source,
    csv_text,
    echo_warnings,
    print_table,
    shared_options,
    user_errors,
    write_csv,
    write_json,
    write_text,
)

EPILOG = examples(
    "accord calibrate examples/panel.csv --item proposal --rater reviewer --score score "
    "--confidence confidence",
    "accord calibrate examples/panel.csv --item proposal --rater reviewer --score score "
    "--levels level --output calibrated.csv --biases biases.csv",
    "accord calibrate examples/panel.csv --item proposal --rater reviewer --score score "
    "--engine stream -o values.csv",
)

_SHOWN = 30  # rows of the values table printed in table format

VALUE_COLUMNS = ["item", "value", "sd", "confidence", "plain_mean", "n", "component"]
BIAS_COLUMNS = [
    "rater",
    "bias",
    "sd",
    "confidence",
    "n",
    "residual_rms",
    "chi2",
    "expected_chi2",
    "misfit",
    "misfit_pvalue",
    "component",
]


def summary_rows(result: Any) -> list[dict[str, Any]]:
    """The scalar fields of a :class:`~accord.PanelCalibration`, as table rows."""
    names = [
        "n_items",
        "n_raters",
        "n_assessments",
        "n_components",
        "algebraic_connectivity",
        "residual",
        "dof",
        "residual_per_dof",
        "variance_scale",
        "uncertainty",
        "solver",
        "iterations",
        "solver_residual",
    ]
    return [{"name": n, "value": getattr(result, n)} for n in names]


@app.command("calibrate", epilog=EPILOG)
@shared_options("sep", "encoding", "engine", "scheduler", "fmt")
def calibrate(
    path: Path = typer.Argument(
        ...,
        help="Assessments file: CSV, TSV, Parquet or JSON Lines; with --engine stream or dask, "
        "Parquet/CSV files as a glob or a folder too.",
    ),
    item: str = ITEM_OPTION,
    rater: str = RATER_OPTION,
    score: str = typer.Option(..., "--score", help="Column holding the numeric scores."),
    confidence: str | None = typer.Option(
        None, "--confidence", help="Column of confidences c > 0 (inverse variances)."
    ),
    sigma: str | None = typer.Option(
        None, "--sigma", help="Column of standard deviations (c = 1 / sigma^2)."
    ),
    score_range: tuple[str, str] | None = typer.Option(
        None, "--range", help="Two columns LO HI: a range given with each score."
    ),
    range_convention: str = typer.Option(
        "central95",
        "--range-convention",
        help="central95: the range is a central 95% interval; sd: it is +-1 sd.",
    ),
    levels: str | None = typer.Option(
        None, "--levels", help="Column of confidence levels H, M, L (or high, medium, low)."
    ),
    confidence_factor: float = typer.Option(
        1.75, "--confidence-factor", help="Ratio of sds between adjacent levels."
    ),
    duplicates: str = typer.Option(
        "raise",
        "--duplicates",
        help="A rater who scored an item more than once: raise, first, last (memory engine) "
        "or mean (of the scores and of the confidences).",
    ),
    na_values: str | None = NA_VALUES_OPTION,
    gauge: str = typer.Option("sum", "--gauge", help="sum (biases sum to 0) or weighted."),
    per_component: bool = typer.Option(
        False, "--per-component", help="Calibrate each component of a disconnected design."
    ),
    bias_prior: float | None = typer.Option(
        None, "--bias-prior", help="Prior sd of the rater biases (score units)."
    ),
    reliability: str = typer.Option(
        "declared", "--reliability", help="declared, or estimate rater precisions."
    ),
    uncertainty: str = typer.Option("auto", "--uncertainty", help="auto, exact, sample or none."),
    seed: int = typer.Option(
        0,
        "--seed",
        help="Seed for sampled uncertainty (the same seed prints the same sds).",
        callback=check_seed,
    ),
    shared: Shared = Shared(),
    output: Path | None = typer.Option(
        None,
        "--output",
        "-o",
        help="Write the values table here (CSV; the whole result as JSON with --format json).",
    ),
    biases: Path | None = typer.Option(
        None, "--biases", help="Write the rater biases table here (CSV)."
    ),
) -> None:
    """Calibrate a panel: item values and rater biases with confidence (MacKay et al. 2017)."""
    from ..front.calibration import calibrate_panel

    check_engine_options(shared.engine, shared.scheduler, {"--na-values": na_values is not None})
    check_output(output)
    check_output(biases)
    files = shared.files(engine_takes=("sep",))
    with user_errors():
        # the shared read flags: the columns, --na-values, --duplicates, --sep, --encoding
        src = command_source(path, shared, files, score=score)
        with echo_warnings():
            result = calibrate_panel(
                src,
                confidence=confidence,
                sigma=sigma,
                levels=levels,
                score_range=score_range,
                confidence_factor=confidence_factor,
                range_convention=range_convention,  # type: ignore[arg-type]
                gauge=gauge,  # type: ignore[arg-type]
                per_component=per_component,
                bias_prior=bias_prior,
                reliability=reliability,  # type: ignore[arg-type]
                uncertainty=uncertainty,  # type: ignore[arg-type]
                rng=seed,
            )
        render(result, shared.fmt, output, biases, column=score)


def render(
    result: Any,
    fmt: OutputFormat,
    output: Path | None,
    biases: Path | None,
    *,
    column: str = "score",
) -> None:
    """Print or write a :class:`~accord.PanelCalibration` in the chosen format (the table
    format starts with the verdict on the ``column`` scores)."""
    from .._verdict import panel_verdict

    values_csv = csv_text(result.values[VALUE_COLUMNS])
    if biases is not None:
        write_csv(result.biases[BIAS_COLUMNS], biases)
    if fmt is OutputFormat.json:
        write_json(result.to_dict(), output)
        return
    if fmt is OutputFormat.csv:
        write_text(values_csv, output)
        return
    if output is not None:
        write_text(values_csv, output)
    print_table(
        summary_rows(result),
        ["name", "value"],
        title=str(result) if result.report is None else f"{result}\n{result.report}",
        caption=result.method,
        lead=panel_verdict(result, column),
    )
    shown = result.values.sort_values("value", ascending=False, kind="stable").head(_SHOWN)
    more = len(result.values) - len(shown)
    print_table(
        shown[VALUE_COLUMNS].to_dict(orient="records"),
        VALUE_COLUMNS,
        title="items, highest calibrated value first",
        caption=(f"... and {more} more rows (use --output or --format csv)" if more else None),
    )
    worst = result.biases.sort_values("misfit", ascending=False, kind="stable").head(_SHOWN)
    print_table(
        worst[BIAS_COLUMNS].to_dict(orient="records"),
        BIAS_COLUMNS,
        title="raters, largest misfit first",
    )
