"""``accord judge`` on a pairwise judge log (``--from pairwise`` without ``--epsilon``:
position consistency and the bias tests) and on repeated runs of a judge (``--trial``:
self-consistency)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ._common import (
    ExportToolName,
    OutputFormat,
    Shared,
    csv_text,
    echo_warnings,
    fail,
    format_number,
    format_pvalue,
    output_console,
    print_lead,
    ratings_keywords,
    rich_table,
    user_errors,
    write_json,
    write_text,
)

__all__ = [
    "EXTRA_EXAMPLES",
    "OWN_HELP",
    "TIME_HELP",
    "TRIAL_HELP",
    "WINDOW_HELP",
    "drift",
    "need_judge_and_epsilon",
    "pairwise_bias",
    "run_judge_extras",
    "self_consistency",
]

TRIAL_HELP = (
    "The column naming the run (trial) of each label: the judge's agreement with itself "
    "over its runs, the items whose label flips, beside the humans' agreement (the judge "
    "gives one label per item and run; --epsilon adds the alt-test of its majority label)."
)
OWN_HELP = (
    "With --from pairwise and one --judge: a model that is the judge's own (repeat for a "
    "family): self-preference, against the other judges on the same pairs."
)
TIME_HELP = (
    "The column of the time of each rating: agreement per --window (the judge with the "
    "humans' majority, and among the humans), Fleiss's test of equal agreement across "
    "windows and a trend test; one --judge (with --trial, its majority label over runs)."
)
WINDOW_HELP = "The length of a --time window: 7d, 12h, 2w, 30min."
EXTRA_EXAMPLES = (
    "accord judge examples/judge-pairs.jsonl --from pairwise --seed 1",
    "accord judge examples/judge-pairs.jsonl --from pairwise --format csv",
    "accord judge examples/annotation-tools/pairwise.jsonl --from pairwise --judge gpt-4-pair "
    "--own gpt-4 --n-boot 0",
    "accord judge examples/judge-pair-runs.csv --item question_id --rater judge --label "
    "preferred --trial order --judge judge-model",
    "accord judge examples/judge-pair-runs.csv --item question_id --rater judge --label "
    "preferred --trial order --judge judge-model --format json",
    "accord judge examples/judge-drift.csv --item item --rater rater --label verdict --judge "
    "judge --time time --window 14d",
    "accord judge examples/judge-drift.csv --item item --rater rater --label verdict --judge "
    "judge --time time --window 4w --format csv",
)
DRIFT_VIEW = [
    ("window", "window", None),
    ("start", "start", None),
    ("series", "series", None),
    ("items", "n_items", None),
    ("agreement", "statistic", ("ci_low", "ci_high")),
    ("SE", "standard_error", None),
]
DRIFT_TESTS_VIEW = [
    ("series", "series", None),
    ("windows", "n_used", None),
    ("chi2", "chi2", None),
    ("df", "df", None),
    ("p", "pvalue", None),
    ("trend per window", "slope", None),
    ("trend SE", "slope_se", None),
    ("trend p", "slope_pvalue", None),
]

#: The table output's columns: (header, column, its interval's columns or None).
POSITION_VIEW = [
    ("judge", "judge", None),
    ("decisive", "n_decisive", None),
    ("first wins", "first_win_rate", ("first_win_rate_ci_low", "first_win_rate_ci_high")),
    ("p", "first_win_rate_pvalue", None),
    ("flip rate", "flip_rate", ("flip_rate_ci_low", "flip_rate_ci_high")),
    ("first both", "favours_first", None),
    ("second both", "favours_second", None),
    ("McNemar p", "mcnemar_pvalue", None),
    ("test", "position_test", None),
]
LENGTH_VIEW = [
    ("judge", "judge", None),
    ("decisive", "n_decisive", None),
    ("longer wins", "longer_win_rate", ("longer_win_rate_ci_low", "longer_win_rate_ci_high")),
    ("p", "longer_win_rate_pvalue", None),
    (
        "odds ratio per SD",
        "odds_ratio_per_sd",
        ("odds_ratio_per_sd_ci_low", "odds_ratio_per_sd_ci_high"),
    ),
    ("slope p", "slope_pvalue", None),
    ("longer both", "longer_both", None),
    ("shorter both", "shorter_both", None),
    ("McNemar p", "length_mcnemar_pvalue", None),
    ("test", "length_test", None),
]
CONSISTENCY_VIEW = [
    ("rater", "rater", None),
    ("kind", "kind", None),
    ("items", "n_items", None),
    ("runs/raters", "n_runs", None),
    ("alpha", "alpha", ("alpha_ci_low", "alpha_ci_high")),
    ("kappa", "kappa", ("kappa_ci_low", "kappa_ci_high")),
    ("ICC(A,1)", "icc", ("icc_ci_low", "icc_ci_high")),
    ("flip rate", "flip_rate", None),
    ("fragile", "n_fragile", None),
]
SELF_VIEW = [
    ("judge", "judge", None),
    ("decisive", "n_decisive", None),
    ("own wins", "own_win_rate", ("ci_low", "ci_high")),
    ("p", "pvalue", None),
    ("matched", "n_matched", None),
    ("only judge", "judge_only", None),
    ("only others", "other_only", None),
    ("difference", "difference", None),
    ("McNemar p", "mcnemar_pvalue", None),
]
#: Fragile items shown in the table output (JSON and CSV give them all).
SHOWN_ITEMS = 10


def _cell(row: Mapping[Any, Any], column: str, interval: tuple[str, str] | None) -> Any:
    """One cell for display: a p-value, a number with its interval, or the value."""
    value = row[column]
    if column.endswith("pvalue"):
        return format_pvalue(value)
    if not isinstance(value, float):
        return value
    text = format_number(value, 3)
    if interval is not None and value == value:
        low, high = (format_number(row[c], 3) for c in interval)
        text += f" [{low}, {high}]"
    return text


def _print(console: Any, frame: Any, view: Sequence[Any], title: str, caption: str) -> None:
    rows = [
        {header: _cell(r, column, ci) for header, column, ci in view}
        for r in frame.to_dict(orient="records")
    ]
    headers = [header for header, _, _ in view]
    left = ("judge", "rater", "kind", "item", "series", "start")
    console.print(rich_table(rows, headers, title=title, caption=caption, left=left))


def pairwise_bias(
    agreement: Any,
    position: Any,
    length: Any,
    self_pref: Any,
    fmt: OutputFormat,
    output: Path | None,
) -> None:
    """Print a pairwise log's agreement and position consistency
    (:class:`~accord.PairwisePreferenceAgreement`), its :class:`~accord.PositionBias`, and
    the :class:`~accord.LengthBias` and :class:`~accord.SelfPreference` when computed."""
    if fmt is OutputFormat.json:
        out = {"agreement": agreement.to_dict(), "position_bias": position.to_dict()}
        if length is not None:
            out["length_bias"] = length.to_dict()
        if self_pref is not None:
            out["self_preference"] = self_pref.to_dict()
        write_json(out, output)
        return
    if fmt is OutputFormat.csv:
        table = agreement.judges.merge(
            position.table.drop(columns=["n_judgments", "n_swapped", "swapped_pairs"]),
            on="judge",
            how="left",
            suffixes=("", "_position"),
        )
        if length is not None:
            extra = length.table.add_prefix("length_").rename(columns={"length_judge": "judge"})
            table = table.merge(extra, on="judge", how="left")
        write_text(csv_text(table), output)
        return
    with output_console(output) as console:
        if agreement.n_pairs:
            print_lead(console, agreement._headline())
        print_lead(console, position._headline())
        _print(console, position.table, POSITION_VIEW,
               f"Position bias ({position.confidence_level:.0%} exact intervals)",
               position.method)  # fmt: skip
        if length is not None:
            print_lead(console, length._headline())
            _print(console, length.table, LENGTH_VIEW, "Length bias", length.method)
        if self_pref is not None:
            import pandas as pd

            print_lead(console, self_pref._headline())
            frame = pd.DataFrame(
                [
                    {c: getattr(self_pref, c) for _, c, _ in SELF_VIEW}
                    | {"ci_low": self_pref.ci_low, "ci_high": self_pref.ci_high}
                ]
            )
            _print(console, frame, SELF_VIEW, "Self-preference", self_pref.method)


def self_consistency(result: Any, fmt: OutputFormat, output: Path | None) -> None:
    """Print a :class:`~accord.JudgeConsistency`: the judges' test-retest agreement beside
    the humans', the most fragile items, and the alt-test of the majority when run."""
    if fmt is OutputFormat.json:
        write_json(result.to_dict(), output)
        return
    if fmt is OutputFormat.csv:
        write_text(csv_text(result.table), output)
        return
    with output_console(output) as console:
        print_lead(console, result._headline())
        _print(console, result.table, CONSISTENCY_VIEW,
               f"Agreement with itself over runs, beside the humans ({result.level})",
               result.method)  # fmt: skip
        fragile = result.fragile()
        if len(fragile):
            shown = fragile.head(SHOWN_ITEMS)
            view = [(c, c, None) for c in shown.columns]
            _print(console, shown, view,
                   f"The most fragile items ({len(shown)} of {len(fragile)})",
                   "flip rate: share of pairs of runs that disagree")  # fmt: skip
        if result.alt_test is not None:
            print_lead(console, result.alt_test._headline())


def need_judge_and_epsilon() -> Exception:
    """The error of the alt-test called without its judge or epsilon."""
    return fail(
        "--judge and --epsilon are needed for the alt-test (or --from pairwise for the bias "
        "tests of a pairwise log, --trial for a judge's agreement with itself)"
    )


def run_judge_extras(
    path: Path,
    source_tool: ExportToolName | None,
    columns: tuple[str | None, str | None, str],
    own: list[str] | None,
    shared: Shared,
    files: Any,
    **options: Any,
) -> bool:
    """Run ``accord judge``'s other questions when their flags are given: True when one
    ran (``columns``: --trial, --time and --window; ``options``: the command's --judge,
    --epsilon, --humans, --n-boot, --seed and alt-test minimums)."""
    trial, time, window = columns
    if time is not None:
        with user_errors(), echo_warnings():
            _drift(path, (time, trial), window, shared, files, options)
        return True
    if trial is not None:
        with user_errors(), echo_warnings():
            _trial(path, trial, shared, files, options)
        return True
    if source_tool is ExportToolName.pairwise and options["epsilon"] is None:
        with user_errors(), echo_warnings():
            _pairwise(path, own, shared, options)
        return True
    if own:
        raise fail("--own needs --from pairwise (and no --epsilon)")
    return False


def _pairwise(path: Path, own: list[str] | None, shared: Shared, options: Any) -> None:
    from ..io.pairwise import read_pairwise_judgments
    from ..judges.bias import length_bias, position_bias, self_preference
    from ..judges.preferences import pairwise_preference_agreement

    log = read_pairwise_judgments(path)
    agreement = pairwise_preference_agreement(log, n_boot=options["n_boot"], rng=options["seed"])
    position = position_bias(log)
    length = length_bias(log) if {"length_a", "length_b"} <= set(log.columns) else None
    self_pref = None
    if own:
        judges = options["judges"]
        if len(judges) != 1:
            raise fail("--own needs one --judge: the judge whose own models they are")
        self_pref = self_preference(log, judges[0], own)
    pairwise_bias(agreement, position, length, self_pref, shared.fmt, shared.output)


def _trial(path: Path, trial: str, shared: Shared, files: Any, options: Any) -> None:
    from ..io.ratings import read_table
    from ..judges.consistency import judge_consistency

    given = ratings_keywords()
    columns = [given["item"], given["rater"], given["label"]]
    if None in columns:
        raise fail("--trial needs the columns --item, --rater and --label")
    if not options["judges"]:
        raise fail("--trial needs --judge: the judge (or judges) run several times")
    frame = read_table(path, [*columns, trial], na_values=given["na_values"], **files)
    humans = options["humans"]
    result = judge_consistency(
        frame,
        options["judges"],
        item=columns[0],
        rater=columns[1],
        label=columns[2],
        trial=trial,
        level=given["level"],
        humans=None if humans is None else [h.strip() for h in humans.split(",")],
        epsilon=options["epsilon"],
        min_items_per_rater=options["min_items_per_rater"],
        min_raters_per_item=options["min_raters_per_item"],
    )
    self_consistency(result, shared.fmt, shared.output)


def _drift(
    path: Path,
    when: tuple[str, str | None],
    window: str,
    shared: Shared,
    files: Any,
    options: Any,
) -> None:
    """The drift of the judge (``when``: --time and --trial; with --trial, the judge's
    majority label over its runs, dated by its earliest run, as the report reads it)."""
    from ..io.ratings import read_table
    from ..judges.consistency import majority_over_runs
    from ..judges.drift import agreement_drift

    time, trial = when

    given = ratings_keywords()
    columns = [given["item"], given["rater"], given["label"]]
    if None in columns:
        raise fail("--time needs the columns --item, --rater and --label")
    if len(options["judges"]) != 1:
        raise fail("--time needs one --judge: the judge whose agreement may drift")
    extra = [time] if trial is None else [time, trial]
    frame = read_table(path, [*columns, *extra], na_values=given["na_values"], **files)
    if trial is not None:
        frame = majority_over_runs(frame, options["judges"], item=columns[0], rater=columns[1],
                                   label=columns[2], trial=trial, level=given["level"])  # fmt: skip
    humans = options["humans"]
    result = agreement_drift(
        frame,
        options["judges"][0],
        time=time,
        window=window,
        item=columns[0],
        rater=columns[1],
        label=columns[2],
        level=given["level"],
        humans=None if humans is None else [h.strip() for h in humans.split(",")],
    )
    drift(result, shared.fmt, shared.output)


def drift(result: Any, fmt: OutputFormat, output: Path | None) -> None:
    """Print an :class:`~accord.AgreementDrift`: the tests, then the agreement per window."""
    if fmt is OutputFormat.json:
        write_json(result.to_dict(), output)
        return
    if fmt is OutputFormat.csv:
        write_text(csv_text(result.windows), output)
        return
    with output_console(output) as console:
        print_lead(console, result._headline())
        title = f"Equal agreement across windows of {result.window}, and the trend"
        note = "Fleiss (1981) chi-square; inverse-variance weighted regression on the window"
        _print(console, result.tests, DRIFT_TESTS_VIEW, title, note)
        frame = result.windows.assign(start=result.windows["start"].astype(str))
        _print(console, frame, DRIFT_VIEW,
               f"{result.coefficient} per window ({result.confidence_level:.0%} intervals)",
               result.method)  # fmt: skip
