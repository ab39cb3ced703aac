"""``accord truth``: rater models: what each rater is worth, what each item's label probably
is, and which items need another look (Dawid-Skene, one-coin, MACE, GLAD)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ._app import app, examples
from ._common import (
    DUPLICATES_OPTION,
    RATINGS_FILE_ARGUMENT,
    SEED_OPTION,
    FileOptions,
    OutputFormat,
    Shared,
    check_engine_options,
    check_output,
    command_source,
    done_with,
    fail,
    format_number,
    output_console,
    ratings_keywords,
    rich_table,
    running,
    shared_options,
    write_csv,
    write_json,
)

EPILOG = examples(
    "accord truth examples/pandalm.csv --item item --rater rater --label preference",
    "accord truth examples/pandalm.csv --item item --rater rater --label preference "
    "--model mace --next 10",
    "accord truth examples/pandalm.csv --item item --rater rater --label preference "
    "--engine stream --n-bootstrap 0",
    "accord truth examples/diagnoses.csv --item patient --rater rater --label diagnosis "
    "--model one-coin --seed 7 --format json",
)

RATER_COLUMNS = [
    "rater",
    "n_ratings",
    "accuracy",
    "accuracy_low",
    "accuracy_high",
    "accuracy_se",
    "sensitivity",
    "specificity",
    "competence",
    "kappa_truth",
    "spammer_score",
    "gold_n",
    "gold_accuracy",
]
NEXT_COLUMNS = ["rank", "item", "label", "entropy", "expected_reduction"]
HEADERS = {
    "n_ratings": "ratings",
    "accuracy_low": "low",
    "accuracy_high": "high",
    "accuracy_se": "SE",
    "kappa_truth": "kappa w/ truth",
    "spammer_score": "spammer score",
    "gold_n": "gold ratings",
    "gold_accuracy": "gold accuracy",
    "expected_reduction": "expected gain (bits)",
}


def read_gold(path: Path, files: FileOptions) -> Any:
    """The gold label per item of ``path``: a table with the ``--item`` and ``--label``
    columns of the ratings, one row per item whose label is known."""
    from ..io.ratings import read_table

    read = ratings_keywords()
    item, label = read["item"], read["label"]
    frame = read_table(path, (item, label), **files).dropna(subset=[label])
    return frame.drop_duplicates(subset=[item]).set_index(item)[label]


def _rows(frame: Any, columns: list[str]) -> list[dict[str, Any]]:
    from .._results import to_plain

    rows: list[dict[str, Any]] = to_plain(frame[[c for c in columns if c in frame.columns]])
    return rows


def render(result: Any, report: Any, fmt: OutputFormat, output: Path | None, top: int) -> None:
    """The raters (and, with ``--next``, the items to look at again) as a table, JSON or
    CSV (``--next``: the items; else the raters)."""
    review = result.next_items(top) if top else None
    if fmt is OutputFormat.json:
        payload = {
            "report": report.to_dict(),
            "model": result.model,
            "method": result.method,
            "converged": result.converged,
            "log_likelihood": list(result.log_likelihood),
            "reliability": result.reliability.to_dict(),
            "raters": _rows(result.raters, list(result.raters.columns)),
        }
        if review is not None:
            payload["next"] = _rows(review, list(review.columns))
        write_json(payload, output)
        return
    if fmt is OutputFormat.csv:
        write_csv(result.raters if review is None else review, output)
        return
    rel = result.reliability
    lines = [
        str(report),
        f"{result.model}: {result.n_iter} EM iterations"
        + ("" if result.converged else " (stopped at the limit)")
        + "; label shares "
        + ", ".join(
            f"{c} {format_number(p, 3)}"
            for c, p in zip(result.categories, result.prevalence, strict=True)
        ),
        f"kappa with the latent truth (mean over raters) {format_number(rel.kappa_truth)}; "
        f"the model implies Fleiss-type kappa {format_number(rel.expected_fleiss_kappa)}, "
        f"observed {format_number(rel.observed_fleiss_kappa)}",
    ]
    with output_console(output) as console:
        for line in lines:
            console.print(line, markup=False, highlight=False)
        console.print(
            rich_table(
                _rows(result.raters, RATER_COLUMNS),
                RATER_COLUMNS,
                title=f"Raters (low, high: the accuracy's {result.level:.0%} interval)",
                left=("rater",),
                headers=HEADERS,
            )
        )
        if review is not None:
            console.print(
                rich_table(
                    _rows(review, NEXT_COLUMNS),
                    NEXT_COLUMNS,
                    title=f"Items to label again (top {len(review)})",
                    left=("item", "label"),
                    headers=HEADERS,
                )
            )


@app.command("truth", epilog=EPILOG)
@shared_options("sep", "encoding", "engine", "scheduler", "quiet", "fmt", "output", ratings=True)
def truth(
    path: Path = RATINGS_FILE_ARGUMENT,
    model: str = typer.Option(
        "dawid-skene", "--model", help="dawid-skene, one-coin, mace or glad."
    ),
    gold: Path | None = typer.Option(
        None,
        "--gold",
        help="A file with the --item and --label columns for the items whose label is known.",
    ),
    top: int = typer.Option(
        0, "--next", min=0, help="Also list the N items where one more label helps most."
    ),
    duplicates: str = DUPLICATES_OPTION,
    n_bootstrap: int = typer.Option(
        1000,
        "--n-bootstrap",
        help="Bootstrap resamples of the items for the intervals (0: none; below 1000 warns). "
        "With --engine stream or dask, 0 fits dawid-skene and one-coin in passes over the "
        "files, out of memory.",
    ),
    interval: str = typer.Option(
        "bootstrap",
        "--interval",
        help="Where the raters' accuracy intervals come from: bootstrap, or "
        "observed-information (Dawid-Skene or one-coin: Louis 1982, no resampling).",
    ),
    max_iter: int = typer.Option(1000, "--max-iter", help="EM iteration limit."),
    tol: float = typer.Option(1e-8, "--tol", help="EM tolerance, per rating."),
    seed: int = SEED_OPTION,
    shared: Shared = Shared(),
) -> None:
    """Rater models: each item's probable label, each rater's accuracy with an interval, and
    the items that need another look (Dawid & Skene 1979, MACE, GLAD)."""
    from ..front.truth import rater_model

    check_output(shared.output)
    if gold is not None and not gold.is_file():
        raise fail(f"--gold: no such file: {gold}")
    files = shared.files(engine_takes=("sep", "encoding"))
    check_engine_options(shared.engine, shared.scheduler)
    with running(shared.fmt, shared.quiet, "reading ratings") as progress:
        result = rater_model(
            command_source(path, shared, files, progress),
            model=model,
            gold=None if gold is None else read_gold(gold, files),
            tol=tol,
            max_iter=max_iter,
            n_bootstrap=n_bootstrap,
            rng=seed,
            interval=interval,
        )
        done_with(progress)
        render(result, result.report, shared.fmt, shared.output, top)
