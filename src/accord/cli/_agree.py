"""``accord agree``: chance-corrected agreement among raters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ._app import app
from ._common import (
    FORMAT_OPTION,
    OUTPUT_OPTION,
    OutputFormat,
    print_table,
    user_errors,
    write_text,
)

LEVEL_HELP = "Level of measurement: nominal, ordinal, interval or ratio."


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


def agreement_rows(ratings: Any) -> list[Any]:
    """The coefficients ``accord agree`` reports for these ratings."""
    from .. import fleiss_kappa, krippendorff_alpha

    results = [fleiss_kappa(ratings), krippendorff_alpha(ratings, level="nominal")]
    if ratings.level != "nominal":
        results.append(krippendorff_alpha(ratings))
    return results


def render(report: Any, results: list[Any], fmt: OutputFormat, output: Path | None) -> None:
    """Print or write the report and coefficient table in the chosen format."""
    import warnings

    from .._results import dumps

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dicts = [r.to_dict() for r in results]
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
        "pvalue",
        "n_items",
        "n_raters",
        "n_categories",
        "observed_agreement",
        "chance_agreement",
        "reason",
    ]
    if fmt is OutputFormat.csv:
        import pandas as pd

        text = pd.DataFrame(dicts, columns=columns).to_csv(index=False, float_format="%.10g")
        write_text(text, output)
        return
    rows = []
    for d in dicts:
        rows.append(
            {
                "coefficient": d["name"]
                + ("" if d["weights"] == "identity" else f" ({d['weights']})"),
                "estimate": d["statistic"],
                "SE": d["standard_error"],
                "95% CI": _ci(d["ci_low"], d["ci_high"]),
                "p": d["pvalue"],
                "items": d["n_items"],
                "note": d["reason"] or "",
            }
        )
    print_table(
        rows,
        ["coefficient", "estimate", "SE", "95% CI", "p", "items", "note"],
        title=str(report),
        caption="SE: general (non-null) standard error; CI: t interval on items - 1 df.",
        output=output,
    )


def _ci(low: float, high: float) -> str:
    if low != low or high != high:
        return ""
    return f"[{low:.4f}, {high:.4f}]"


@app.command(
    "agree",
    epilog=(
        "Example: accord agree examples/diagnoses.csv --item patient --rater rater "
        "--label diagnosis --format json"
    ),
)
def agree(
    path: Path = typer.Argument(..., help="Ratings file: CSV, TSV, Parquet or JSON Lines."),
    item: str = typer.Option(..., "--item", help="Column holding the item ids."),
    rater: str = typer.Option(..., "--rater", help="Column holding the rater ids."),
    label: str = typer.Option(..., "--label", help="Column holding the labels."),
    level: str = typer.Option("nominal", "--level", help=LEVEL_HELP),
    categories: str | None = typer.Option(
        None, "--categories", help="Declared categories in order, comma-separated."
    ),
    duplicates: str = typer.Option(
        "raise", "--duplicates", help="raise, first, last or mean (interval/ratio)."
    ),
    fmt: OutputFormat = FORMAT_OPTION,
    output: Path | None = OUTPUT_OPTION,
) -> None:
    """Agreement among raters beyond chance: Fleiss' kappa and Krippendorff's alpha."""
    from .. import read_ratings

    with user_errors():
        ratings = read_ratings(
            path,
            item=item,
            rater=rater,
            label=label,
            level=level,  # type: ignore[arg-type]
            categories=parse_categories(categories),
            duplicates=duplicates,  # type: ignore[arg-type]
        )
        results = agreement_rows(ratings)
        render(ratings.report, results, fmt, output)
