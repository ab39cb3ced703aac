"""``accord demo``: the main job on the bundled example data."""

from __future__ import annotations

from pathlib import Path

import typer

from ._app import app, examples
from ._common import OutputFormat, user_errors


@app.command("demo", epilog=examples("accord demo", "accord demo --examples-dir examples"))
def demo(
    examples_dir: Path = typer.Option(
        Path("examples"),
        "--examples-dir",
        help="Folder of the example files: the ones bundled with accord are copied there first "
        "when missing (a file already there is left as it is).",
    ),
) -> None:
    """Run accord on the bundled examples (Fleiss' diagnoses; the BI-RADS readings), from any
    folder: the example files are copied to ./examples, the reports written to ./out."""
    from .. import datasets
    from ..io.ratings import read_ratings

    with user_errors():
        copied = datasets.copy_to(examples_dir)
    if copied:
        typer.echo(
            f"copied the example files bundled with accord to {examples_dir}/: "
            + ", ".join(p.name for p in copied)
        )
    from ..front.agreement import agreement
    from ._agree import render
    from ._app import speaking_as

    jobs = [
        (
            "diagnoses.csv",
            "patient",
            "rater",
            "diagnosis",
            "nominal",
            "Fleiss (1971): 30 patients, 6 psychiatrists, 5 diagnoses",
        ),
        (
            "birads.csv",
            "finding",
            "modality",
            "birads",
            "ordinal",
            "Casagrande et al. (2020) Table 2: 186 findings, US vs ABVS, BI-RADS 1-5",
        ),
    ]
    for name, item, rater, label, level, title in jobs:
        path = examples_dir / name
        typer.echo(
            f"\n== {title}\n$ accord agree {path} --item {item} --rater {rater} "
            f"--label {label} --level {level}"
        )
        with user_errors(), speaking_as("agree"):
            ratings = read_ratings(path, item=item, rater=rater, label=label, level=level)  # type: ignore[arg-type]
            render(
                ratings.report,
                list(agreement(ratings).coefficients),
                OutputFormat.table,
                None,
                measurement=ratings.level,
                ratings=ratings,  # two raters: Cohen's kappa rows and headline, as agree's
            )

    from ._report import write_demo_reports

    write_demo_reports(examples_dir, jobs)
