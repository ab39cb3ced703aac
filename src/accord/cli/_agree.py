"""``accord agree``: chance-corrected agreement among raters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ._app import app, examples
from ._common import (
    DUPLICATES_OPTION,
    EngineName,
    OutputFormat,
    Shared,
    check_engine_options,
    check_output,
    format_ci,
    print_table,
    ratings_keywords,
    read_ratings_file,
    running,
    shared_options,
    write_text,
)


def render(
    report: Any,
    results: list[Any],
    fmt: OutputFormat,
    output: Path | None,
    *,
    ci: str = "analytic",
    level: float = 0.95,
    measurement: str = "nominal",
    ratings: Any = None,
) -> None:
    """Print or write the report and coefficient table in the chosen format (the table
    format starts with the verdict: the headline coefficient at the ``measurement`` level
    read against its benchmarks; with the ``ratings``, Cohen's kappa for two raters, as the
    report)."""
    from .._results import dumps
    from .._verdict import ratings_verdict, table_verdict
    from ..agreement.summary import AgreementTable

    table = AgreementTable(tuple(results), measurement, ci)
    dicts = table.rows(level)
    if fmt is OutputFormat.json:
        write_text(dumps({"report": report.to_dict(), "coefficients": dicts}), output)
        return
    columns = [
        "name",
        "weights",
        "statistic",
        "standard_error",
        "ci_low",
        "ci_high",
        "ci_method",
        "pvalue",
        "standard_error_null",
        "n_items",
        "n_raters",
        "n_categories",
        "n_items_unpairable",
        "observed_agreement",
        "chance_agreement",
        "population_size",
        "method",
        "reason",
    ]
    if fmt is OutputFormat.csv:
        import pandas as pd

        text = pd.DataFrame(dicts, columns=columns).to_csv(index=False, float_format="%.10g")
        write_text(text, output)
        return
    rows = []
    for coef, d in zip(results, dicts, strict=True):
        label = getattr(coef, "label", None)  # the ICC's form, e.g. ICC(A,1)
        rows.append(
            {
                "coefficient": label
                or d["name"] + ("" if d["weights"] in ("identity", None) else f" ({d['weights']})"),
                "estimate": d["statistic"],
                "SE": d["standard_error"],
                f"{level:.0%} CI": format_ci(d["ci_low"], d["ci_high"]),
                "p": d["pvalue"],
                "items": d["n_items"],
                "note": d["reason"] or "",
            }
        )
    how = (
        "BCa bootstrap over items"
        if ci == "bootstrap"
        else "t interval on items - 1 df (ICC: F interval)"
    )
    print_table(
        rows,
        ["coefficient", "estimate", "SE", f"{level:.0%} CI", "p", "items", "note"],
        title=str(report),
        caption=f"SE: general (non-null) standard error (Gwet 2014 / irrCAC 1.4); CI: {how}; "
        "p: two-sided test of 0 (ICC: F test).",
        output=output,
        lead=table_verdict(table, level)
        if ratings is None
        else ratings_verdict(ratings, table, level),
    )


@app.command(
    "agree",
    epilog=examples(
        "accord agree examples/diagnoses.csv --item patient --rater rater --label diagnosis",
        "accord agree examples/birads.csv --item finding --rater modality --label birads "
        "--level ordinal --ci bootstrap --format json",
        "accord agree examples/diagnoses.csv --item patient --rater rater --label diagnosis "
        "--engine stream",
    ),
)
@shared_options("sep", "encoding", "engine", "scheduler", "quiet", "fmt", "output", ratings=True)
def agree(
    path: Path = typer.Argument(..., help="Ratings file: CSV, TSV, Parquet or JSON Lines."),
    duplicates: str = DUPLICATES_OPTION,
    coefficients: str | None = typer.Option(
        None,
        "--coefficients",
        help="Comma-separated subset: percent_agreement, fleiss_kappa, conger_kappa, "
        "light_kappa, brennan_prediger, gwet_ac1, gwet_ac2, krippendorff_alpha, icc.",
    ),
    weights: str | None = typer.Option(
        None,
        "--weights",
        help="Weights of the weighted rows: linear, quadratic, ordinal, radical, ratio, "
        "circular, bipolar (default quadratic above nominal level).",
    ),
    ci: str = typer.Option("analytic", "--ci", help="analytic (t interval) or bootstrap (BCa)."),
    n_boot: int = typer.Option(2000, "--n-boot", help="Bootstrap replicates."),
    seed: int = typer.Option(
        0, "--seed", help="Seed of the bootstrap (the same seed prints the same interval)."
    ),
    population_size: float | None = typer.Option(
        None, "--population-size", help="Items in the population (finite-population correction)."
    ),
    shared: Shared = Shared(),
) -> None:
    """Agreement among raters beyond chance: every coefficient that applies, with SEs."""
    from ..front.agreement import agreement

    engine, fmt, output = shared.engine, shared.fmt, shared.output
    check_output(output)
    files = shared.files(engine_takes=("sep", "encoding"))
    check_engine_options(
        engine,
        shared.scheduler,
        {"--duplicates": duplicates != "raise"},
        "; the files must rate each (item, rater) pair once",
    )
    read = ratings_keywords()
    chosen = None if coefficients is None else [c.strip() for c in coefficients.split(",")]
    in_memory = engine is EngineName.memory
    ratings = None
    with running(fmt, shared.quiet or in_memory, "reading ratings") as progress:
        if in_memory:  # read here: the memory engine takes the file's duplicates policy
            ratings = read_ratings_file(path, files, duplicates=duplicates)
            source: dict[str, Any] = {}
        else:
            source = dict(read, **files, scheduler=shared.scheduler, progress=progress)
        table = agreement(
            str(path) if ratings is None else ratings,
            engine=engine.value,
            coefficients=chosen,
            weights=weights,
            population_size=population_size,
            ci=ci,  # type: ignore[arg-type]
            n_boot=n_boot,
            rng=seed,
            **source,
        )
        render(
            table.report if ratings is None else ratings.report,
            list(table.coefficients),
            fmt,
            output,
            ci=ci,
            measurement=table.level,
            ratings=ratings,
        )
