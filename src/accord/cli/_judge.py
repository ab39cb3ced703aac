"""``accord judge``: can a judge (a model, a device) replace a human rater? The alt-test."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer

from ._app import app, examples
from ._common import (
    DEFAULT_PANEL,
    DUPLICATES_OPTION,
    EPSILON_HELP,
    FIELD_OPTION,
    FROM_OPTION,
    PANEL_ADVICE,
    RATINGS_FILE_ARGUMENT,
    EngineName,
    ExportToolName,
    OutputFormat,
    Shared,
    check_columns,
    check_export_options,
    check_output,
    check_seed,
    csv_text,
    echo_warnings,
    format_number,
    format_pvalue,
    output_console,
    print_lead,
    read_source,
    rich_table,
    shared_options,
    user_errors,
    write_json,
    write_text,
)
from ._judge_extras import (
    EXTRA_EXAMPLES,
    OWN_HELP,
    TIME_HELP,
    TRIAL_HELP,
    WINDOW_HELP,
    need_judge_and_epsilon,
    run_judge_extras,
)

EPILOG = examples(
    "accord judge examples/diagnoses.csv --item patient --rater rater --label diagnosis "
    "--judge rater6 --epsilon 0.15 --min-items-per-rater 20",
    "accord judge examples/diagnoses.csv --item patient --rater rater --label diagnosis "
    "--judge rater5 --judge rater6 --epsilon 0.15 --min-items-per-rater 20 --format json",
    "accord judge examples/diagnoses.csv --item patient --rater rater --label diagnosis "
    "--judge rater6 --epsilon 0.15 --min-items-per-rater 20 --agreement --seed 1",
    *EXTRA_EXAMPLES,
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


def _render(
    result: Any, agreement: dict[Any, Any], fmt: OutputFormat, output: Path | None, report: Any
) -> None:
    """Print the read ``report`` (what was read, kept and dropped), the alt-test result, and
    each judge's :class:`~accord.JudgeAgreement` when ``agreement`` holds them
    (``--agreement``)."""
    from rich.text import Text

    from ..judges import AltTest

    tests = [result] if isinstance(result, AltTest) else list(result.tests)
    if fmt is OutputFormat.json:
        out = {"report": report.to_dict(), **result.to_dict()}
        if agreement:
            out["agreement"] = (
                agreement[result.judge].to_dict()
                if isinstance(result, AltTest)
                else {str(j): a.to_dict() for j, a in agreement.items()}
            )
        write_json(out, output)
        return
    if fmt is OutputFormat.csv:
        write_text(_csv(tests, agreement), output)
        return
    with output_console(output) as console:
        console.print(Text(str(report)))
        if len(tests) > 1:
            rows = [_cells(r) for r in result.table[RANKING_COLUMNS].to_dict(orient="records")]
            print_lead(console, result._headline())
            title = f"Judges ranked by advantage probability (epsilon = {result.epsilon:g})"
            console.print(rich_table(rows, RANKING_COLUMNS, title=title))
        for test in tests:
            if len(tests) == 1:
                print_lead(console, test._headline())
            rows = [_cells(r) for r in test.humans[HUMAN_COLUMNS].to_dict(orient="records")]
            title = f"{test.judge} against each human (epsilon = {test.epsilon:g})"
            console.print(rich_table(rows, HUMAN_COLUMNS, title=title, caption=test.method))
            if test.judge in agreement:
                _print_agreement(console, agreement[test.judge])


def _print_agreement(console: Any, beside: Any) -> None:
    """The judge beside the humans: the headline, the per-human table (the panel's
    coefficients with the judge seated are in the JSON and CSV), the consensus."""
    from ..judges.beside_humans import HUMAN_COLUMNS

    columns = [c for c in HUMAN_COLUMNS if not c.endswith("_with_judge")]
    print_lead(console, beside._headline())
    rows = [_cells(r) for r in beside.humans[columns].to_dict(orient="records")]
    console.print(
        rich_table(
            rows,
            columns,
            title=f"{beside.judge} beside the humans (Cohen's kappa, {beside.weights} weights)",
            caption=beside.method,
        )
    )
    for ref in (beside.consensus, beside.gold):
        if ref is None:
            continue
        print_lead(console, ref._headline())
        frame = ref.confusion
        columns = [f"{ref.reference} \\ judge", *map(str, frame.columns)]
        rows = [
            {
                columns[0]: str(label),
                **{str(c): int(v) for c, v in zip(frame.columns, counts, strict=True)},
            }
            for label, counts in zip(frame.index, frame.to_numpy(), strict=True)
        ]
        console.print(rich_table(rows, columns, title="Confusion matrix", caption=ref.note))


def _csv(tests: list[Any], agreement: dict[Any, Any]) -> str:
    """One row per (judge, human): the alt-test columns, then with ``--agreement`` the
    judge-beside-the-humans columns (``n_items`` of those as ``agreement_n_items``)."""
    import pandas as pd

    frames = []
    for t in tests:
        frame = t.humans.assign(judge=t.judge, epsilon=t.epsilon)
        if t.judge in agreement:
            extra = agreement[t.judge].humans.rename(columns={"n_items": "agreement_n_items"})
            frame = frame.merge(extra, on="human", how="left")
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    return csv_text(table)


@app.command("judge", epilog=EPILOG)
@shared_options("sep", "encoding", "fmt", "output", ratings="optional")
def judge(
    path: Path = RATINGS_FILE_ARGUMENT,
    source_tool: ExportToolName | None = FROM_OPTION,
    field: str | None = FIELD_OPTION,
    judges: list[str] | None = typer.Option(
        None, "--judge", help="The judge, as named in the rater column; repeat to rank several."
    ),
    epsilon: float | None = typer.Option(None, "--epsilon", help=EPSILON_HELP),
    duplicates: str = DUPLICATES_OPTION,
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
    with_agreement: bool = typer.Option(
        False,
        "--agreement",
        help="Also the judge beside the humans: pairwise kappas, alpha with the judge in "
        "each seat, the judge against the majority label.",
    ),
    n_boot: int = typer.Option(
        2000, "--n-boot", help="Bootstrap replicates of --agreement's intervals."
    ),
    seed: int = typer.Option(
        0, "--seed", help="Seed of --agreement's bootstrap.", callback=check_seed
    ),
    trial: str | None = typer.Option(None, "--trial", help=TRIAL_HELP),
    own: list[str] | None = typer.Option(None, "--own", help=OWN_HELP),
    time: str | None = typer.Option(None, "--time", help=TIME_HELP),
    window: str = typer.Option("7d", "--window", help=WINDOW_HELP),
    shared: Shared = Shared(),
) -> None:
    """Can a judge replace a human rater? The alternative annotator test (alt-test); with
    --from pairwise, position consistency and the bias tests; with --trial, the judge's
    agreement with itself over repeated runs."""
    from ..judges import AltTest, alt_test, human_panel, judge_agreement

    check_output(shared.output)
    files = shared.files()
    extra = dict(
        judges=judges or [],
        epsilon=epsilon,
        humans=humans,
        n_boot=n_boot,
        seed=seed,
        min_items_per_rater=min_items_per_rater,
        min_raters_per_item=min_raters_per_item,
    )
    if run_judge_extras(path, source_tool, (trial, time, window), own, shared, files, **extra):
        return
    if not judges or epsilon is None:
        raise need_judge_and_epsilon()
    check_columns(EngineName.memory, source_tool, field)
    if source_tool is not None:
        check_export_options(shared)
    with user_errors(), echo_warnings():
        ratings = read_source(path, files, source_tool, field, duplicates=duplicates)
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
        agreement = {}
        if with_agreement:
            tests = [result] if isinstance(result, AltTest) else list(result.tests)
            others = human_panel(ratings, judges, panel)
            agreement = {
                t.judge: judge_agreement(
                    ratings,
                    t.judge,
                    humans=others,
                    n_boot=n_boot,
                    rng=seed,
                )
                for t in tests
            }
        if panel is None and shared.fmt is OutputFormat.table:
            _default_panel_note(human_panel(ratings, judges, None))
        _render(result, agreement, shared.fmt, shared.output, ratings.report)


def _default_panel_note(humans: list[Any]) -> None:
    """Say on standard error who was taken as a human when ``--humans`` was not given."""
    listed = ", ".join(map(str, humans))
    typer.echo(f"accord: note: {DEFAULT_PANEL}: {listed} ({PANEL_ADVICE})", err=True)
