"""``accord report``: one self-contained HTML page that answers "can I trust these raters?"."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer

from ._app import app, examples
from ._common import (
    ALTERNATIVE_OPTION,
    CATEGORIES_OPTION,
    CONFIDENCE_OPTION,
    CORRECT_OPTION,
    DEFAULT_PANEL,
    DUPLICATES_OPTION,
    EPSILON_HELP,
    FACET_HELP,
    FIELD_OPTION,
    FROM_OPTION,
    GOLD_OPTION,
    ITEM_OPTIONAL,
    LABELS_AS_OPTION,
    LEVEL_OPTION,
    MULTI_LABEL_OPTION,
    NA_VALUES_OPTION,
    PANEL_ADVICE,
    RATER_OPTIONAL,
    RATER_POPULATION_OPTION,
    RATINGS_FILE_ARGUMENT,
    SE_OPTION,
    TEST_VALUE_OPTION,
    WEIGHTS_OPTION,
    ExportToolName,
    Shared,
    check_output,
    check_seed,
    command_source,
    fail,
    ratings_keywords,
    shared_options,
    user_errors,
)

EPILOG = examples(
    "accord report examples/birads.csv --item finding --rater modality --label birads "
    "--level ordinal -o out/birads.html",
    "accord report examples/panel.csv --item proposal --rater reviewer --score score "
    "--score-confidence confidence -o out/panel.html",
    "accord report examples/diagnoses.csv --item patient --rater rater --label diagnosis "
    "--engine stream -o out/diagnoses-stream.html",
    "accord report examples/diagnoses.csv --item patient --rater rater --label diagnosis "
    "--se unconditional --test-value 0.4 --alternative greater -o out/diagnoses-se.html",
    "accord report examples/diagnoses.csv --item patient --rater rater --label diagnosis "
    "--judge rater6 --epsilon 0.15 -o out/diagnoses-judge.html",
    "accord report examples/pandalm.csv --item item --rater rater --label preference "
    "--judge pandalm-7b --humans annotator1,annotator2,annotator3 --epsilon 0.15 "
    "-o out/pandalm-judge.html",
    "accord report examples/diagnoses.csv --item patient --rater rater --label diagnosis "
    "--multi-label -o out/diagnoses-sets.html",
    "accord report examples/annotation-tools/pairwise.jsonl --from pairwise --duplicates first "
    "--pairwise examples/judge-pairs.jsonl -o out/judge-bias.html",
    "accord report examples/judge-drift.csv --item item --rater rater --label verdict "
    "--judge judge --epsilon 0.15 --time time --window 14d -o out/judge-drift.html",
)


@app.command("report", epilog=EPILOG)
@shared_options("sep", "encoding", "engine")
def report_command(
    path: Path = RATINGS_FILE_ARGUMENT,
    item: str | None = ITEM_OPTIONAL,
    rater: str | None = RATER_OPTIONAL,
    label: str | None = typer.Option(
        None, "--label", help="Column holding the labels (the agreement sections)."
    ),
    source_tool: ExportToolName | None = FROM_OPTION,
    field: str | None = FIELD_OPTION,
    level: str = LEVEL_OPTION,
    categories: str | None = CATEGORIES_OPTION,
    duplicates: str = DUPLICATES_OPTION,
    na_values: str | None = NA_VALUES_OPTION,
    labels_as: str = LABELS_AS_OPTION,
    multi_label: bool = MULTI_LABEL_OPTION,
    score: list[str] = typer.Option(
        [], "--score", help="Numeric score column to calibrate over the panel (repeatable)."
    ),
    score_confidence: list[str] = typer.Option(
        [],
        "--score-confidence",
        help="Confidence column of the scores, c > 0 (inverse variances): once for every "
        "--score, or once per --score in the same order.",
    ),
    gold: str | None = GOLD_OPTION,
    confidence: str | None = CONFIDENCE_OPTION,
    correct: str | None = CORRECT_OPTION,
    judges: list[str] = typer.Option(
        [],
        "--judge",
        help="A rater whose place is in question (a model): adds 'Can the judge replace a "
        "rater?', first on the page (needs --epsilon). Repeat to name other models: the "
        "section is on the first, and none is counted as a human.",
    ),
    humans: str | None = typer.Option(
        None,
        "--humans",
        help="The judge's panel, comma-separated (default: every rater not a judge).",
    ),
    epsilon: float | None = typer.Option(None, "--epsilon", help=EPSILON_HELP),
    pairwise: Path | None = typer.Option(
        None,
        "--pairwise",
        help="A pairwise judge log (JSON, JSON Lines, Parquet or CSV; both orders of a pair "
        "where it has them): adds 'Is the judge biased?' (position and length bias).",
    ),
    trial: str | None = typer.Option(
        None,
        "--trial",
        help="The column naming the run (trial) of each label of a --judge run several "
        "times: adds 'Does the judge agree with itself?' (its agreement over runs, the items "
        "whose label flips, beside the humans'); the other sections read the judge's "
        "majority over runs (or the run --duplicates names). Without --judge, at --level "
        "interval or ratio: the replicate of each measurement, for 'Replicate measurements' "
        "(the repeated-measures CCC, Deming with the error ratio from the replicates); "
        "--duplicates says which replicate the other sections read.",
    ),
    time: str | None = typer.Option(
        None,
        "--time",
        help="The column of the time of each rating: adds 'Does the judge drift over time?' "
        "(as accord judge --time: agreement per --window, the test of equal agreement, the "
        "trend); needs --judge.",
    ),
    window: str | None = typer.Option(
        None, "--window", help="The length of a --time window: 7d (default), 12h, 2w, 30min."
    ),
    facet: list[str] = typer.Option(
        [],
        "--facet",
        help=f"{FACET_HELP}. Adds 'Designs with several facets' (the design read from the "
        "data; the G-study with its variance components, E rho^2 and Phi; with items nested "
        "in it and two raters, kappa and AC1 with cluster-robust SEs and kappa by stratum). "
        "A bare COLUMN's facet is s when the items are nested in it, else o.",
    ),
    title: str | None = typer.Option(None, "--title", help="Title of the page."),
    output: Path = typer.Option(
        Path("report.html"), "--output", "-o", help="Where to write the page."
    ),
    seed: int = typer.Option(
        0, "--seed", help="Seed of the bootstraps (same seed, same page).", callback=check_seed
    ),
    n_boot: int = typer.Option(
        2000,
        "--n-boot",
        help="Resamples of each bootstrap on the page (the judge's, the rater model's, "
        "informational agreement's); 0 draws none, and those intervals are not given.",
    ),
    weights: str | None = WEIGHTS_OPTION,
    se: str = SE_OPTION,
    rater_population_size: float | None = RATER_POPULATION_OPTION,
    test_value: float = TEST_VALUE_OPTION,
    alternative: str = ALTERNATIVE_OPTION,
    regression: str = typer.Option(
        "passing-bablok",
        "--regression",
        help="The method-comparison section's regression (interval and ratio levels): "
        "passing-bablok or deming.",
    ),
    error_ratio: float = typer.Option(
        1.0,
        "--error-ratio",
        help="With --regression deming: the error variance of x over that of y (lambda).",
    ),
    shared: Shared = Shared(),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar, no summary line."),
) -> None:
    """Write one self-contained HTML page: agreement, contested items, raters, calibration."""
    from ..agreement.inference import Inference
    from ..measurements.regression import Regression
    from ..report import report

    columns = {"--score": bool(score), "--gold": gold is not None,
               "--confidence": confidence is not None,
               "--correct": correct is not None}  # fmt: skip
    exported = _export_ratings(path, source_tool, field, duplicates, shared, columns, multi_label)
    if exported is None and not (label or score or confidence):
        raise fail("nothing to report on: give --label, --score, or --confidence with --correct")
    score_weights = _score_weights(score, score_confidence)
    if gold is not None and label is None:
        raise fail("--gold is compared with the raters' labels: give --label too")
    _check_judge_options(judges, label, epsilon, humans)
    if trial is not None and not judges and level not in ("interval", "ratio"):
        raise fail(
            "--trial names the runs of a --judge, or the replicate of each measurement "
            f"(--level interval or ratio; the level is {level})"
        )
    if time is not None and not judges:
        raise fail("--time dates the judge's agreement with the humans: give --judge too")
    if window is not None and time is None:
        raise fail("--window is the length of the --time windows: give --time too")
    if facet and label is None:
        raise fail("--facet is read with the labels: give --label too")
    if facet:
        from ._designs import parse_facets

        parse_facets(facet)  # the spelling of accord agree --facet, and its errors
    if error_ratio != 1.0 and regression != "deming":
        raise fail("--error-ratio is Deming's ratio of the error variances: give "
                   "--regression deming too")  # fmt: skip
    judge: Any = None if not judges else judges[0] if len(judges) == 1 else list(judges)
    check_output(output, creates=True)
    files = shared.files()
    with user_errors():
        # one read of the file, by the library: the command's read flags as one Source
        data: Any = exported
        if exported is None:
            data = command_source(path, shared, files, multi_label=multi_label)
        page = report(
            data,
            relations=_span_relations(path, data),
            score=tuple(score),
            score_confidence=score_weights,
            gold=gold,
            confidence=confidence,
            correct=correct,
            judge=_judge(judge, humans, epsilon, pairwise, time, window),
            trial=trial,
            facets=tuple(facet) or None,
            title=title,
            output=output,
            progress=not quiet and sys.stderr.isatty(),
            multi_label=multi_label,
            weights=weights,
            inference=Inference(
                seed=seed,
                n_boot=n_boot,
                se=se,
                rater_population_size=rater_population_size,
                test_value=test_value,
                alternative=alternative,
            ),
            regression=(
                Regression("deming", error_ratio=error_ratio)
                if regression == "deming"
                else regression
            ),
        )
    if not quiet:
        typer.echo(f"wrote {page.path} ({', '.join(page.sections)})")
        for name, reason in page.skipped.items():
            typer.echo(f"accord: note: section {name!r} left out: {reason}", err=True)
        if judges and humans is None:
            note = f"{DEFAULT_PANEL}, as the page says ({PANEL_ADVICE})"
            typer.echo(f"accord: note: {note}", err=True)


def _check_judge_options(
    judges: list[str] | None, label: str | None, epsilon: float | None, humans: str | None
) -> None:
    """Refuse ``--judge`` without what the alt-test needs (naming only what is missing), and
    ``--epsilon`` or ``--humans`` without ``--judge``."""
    if judges and (label is None or epsilon is None):
        missing = [flag for flag, v in (("--label", label), ("--epsilon", epsilon)) if v is None]
        margin = (
            " (--epsilon is the alternative annotator test's margin: 0.2 for expert humans, "
            "0.15 skilled, 0.1 crowd)"
        )
        raise fail(f"--judge needs {' and '.join(missing)}" + (margin if epsilon is None else ""))
    if epsilon is not None and not judges:
        raise fail("--epsilon is the judge's margin: give --judge too")
    if humans is not None and not judges:
        raise fail("--humans is the judge's panel: give --judge too")


def _judge(
    judge: Any,
    humans: str | None,
    epsilon: float | None,
    pairwise: Path | None,
    time: str | None,
    window: str | None,
) -> Any:
    """The report's :class:`~accord.Judge` from the judge flags (None without any)."""
    from ..judges.judge import Judge

    if judge is None and pairwise is None:
        return None
    panel = None if humans is None else [h.strip() for h in humans.split(",")]
    return Judge(judge, humans=panel, epsilon=epsilon, pairwise=pairwise, time=time,
                 window=window)  # fmt: skip


def _score_weights(
    score: Sequence[str], score_confidence: Sequence[str] | None
) -> str | dict[str, str] | None:
    """The confidence column of every ``--score`` (given once), or of each (given once per
    score, in order)."""
    if not score_confidence:
        return None
    if not score:
        raise fail("--score-confidence weights the scores: give --score too")
    if len(score_confidence) == 1:
        return score_confidence[0]
    if len(score_confidence) == len(score):
        return dict(zip(score, score_confidence, strict=True))
    raise fail(
        "give --score-confidence once (for every --score) or once per --score, in the same "
        f"order; got {len(score_confidence)} for {len(score)} scores"
    )


def _export_ratings(
    path: Path,
    source_tool: ExportToolName | None,
    field: str | None,
    duplicates: str,
    shared: Shared,
    columns: dict[str, bool],
    multi_label: bool = False,
) -> Any:
    """The ratings of an annotation tool's export (``--from``, read in memory, without the
    column options), or None for a table (``--item`` and ``--rater`` needed)."""
    from ._common import check_export_options, read_source

    names = ratings_keywords()
    if source_tool is None and not (names["item"] or names["rater"] or names["label"]):
        if path.is_dir() and any(path.glob("**/*.ann")):  # a brat folder: span annotations
            from ..io.spans import read_brat

            with user_errors():
                return read_brat(path)
        if _span_format(path) == "webanno":  # WebAnno TSV, an INCEpTION project export
            from ..io.webanno import read_webanno_tsv

            with user_errors():
                return read_webanno_tsv(path)
        source_tool = _recognised(path)  # a file without columns: told by its content
    if source_tool is None:
        if field is not None:
            raise fail("--field names the control or question of an annotation-tool export")
        units_only = (
            columns["--confidence"]
            and columns["--correct"]
            and not (names["label"] or columns["--score"])
        )  # scored units: calibration needs no items or raters
        if columns["--confidence"] and not columns["--correct"] and not names["label"]:
            raise fail("--confidence needs --correct (the column saying which units were right)")
        if not (names["item"] and names["rater"]) and not units_only:
            raise fail("--item and --rater are needed (or --from with an annotation-tool export)")
        return None
    given = [f"--{n}" for n in ("item", "rater", "label") if names[n]]
    given += [flag for flag, on in columns.items() if on]
    if given:
        raise fail(f"{', '.join(given)}: an annotation-tool export (--from) has no columns to name")
    if shared.engine.value != "memory":
        raise fail("--from: an annotation-tool export is read with --engine memory")
    check_export_options(shared)
    from .._errors import SpansNotRatingsError

    with user_errors():
        sets = {"multi_label": True} if multi_label else {}
        try:
            return read_source(path, shared.files(), source_tool, field, duplicates=duplicates,
                               **sets)  # fmt: skip
        except SpansNotRatingsError as spans:  # a span export (Label Studio labels): its page
            return spans.spans


def _span_format(path: Path) -> str:
    """How ``accord spans`` would read ``path`` (brat, webanno, label-studio, ...)."""
    from ._spans import InputFormat, resolve_input_format

    with user_errors():
        return resolve_input_format(path, InputFormat.auto).value


def _span_relations(path: Path, data: Any) -> Any:
    """The relations of the export the spans were read from (brat ``R`` lines, WebAnno TSV
    relation layers, Label Studio relations), or None when it has none or the data are not
    spans: the report's relation agreement."""
    from ..data.spans import Spans
    from ._span_relations import RELATION_FORMATS, read_links

    fmt = _span_format(path) if isinstance(data, Spans) else None
    if fmt not in RELATION_FORMATS:
        return None
    relations = read_links(path, str(fmt), "relations", layer=None, encoding=None)
    return relations if len(relations) else None


def _recognised(path: Path) -> ExportToolName | None:
    """The annotation tool whose export ``path`` is, told by its content (as ``accord
    agree`` tells it), or None; accord's own ``--format json`` output is refused in one line
    naming the command that wrote it."""
    from ..io.exports import accord_output, export_tool

    if not path.is_file():
        return None
    with user_errors():
        made = accord_output(path)
        tool = None if made is not None else export_tool(path)
    if made is not None:
        raise fail(f"{path} is {made}: results, not ratings to report on")
    return None if tool is None else ExportToolName(tool)


def write_demo_reports(
    examples_dir: Path, jobs: list[tuple[str, str, str, str, str, str]], folder: Path = Path("out")
) -> list[Path]:
    """Write the report of each bundled example under ``folder`` and print the paths.

    ``jobs`` holds ``(file, item, rater, label, level, title)`` as ``accord demo`` lists them.
    """
    from ..report import report

    written: list[Path] = []
    for name, item, rater, label, level, title in jobs:
        target = folder / f"report-{Path(name).stem}.html"
        with user_errors():
            page = report(
                examples_dir / name,
                item=item,
                rater=rater,
                label=label,
                level=level,
                title=title,
                output=target,
                progress=sys.stderr.isatty(),
            )
        assert page.path is not None
        written.append(page.path)
    typer.echo("\n== HTML reports (open in a browser)")
    for path in written:
        typer.echo(f"wrote {path}")
    return written
