"""``accord confidence``: are a system's confidence scores honest? NCE and companions."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import typer

from .._validate import counted
from ._app import app, examples
from ._common import (
    CONFIDENCE_OPTION,
    CORRECT_OPTION,
    NA_VALUES_OPTION,
    EngineName,
    OutputFormat,
    Shared,
    check_engine_options,
    check_output,
    check_seed,
    command_source,
    fail,
    format_ci,
    format_number,
    output_console,
    progress_bar,
    shared_options,
    user_errors,
    wants_progress,
    write_csv,
    write_json,
)

if TYPE_CHECKING:
    from ..confidence import (
        CalibrationMetrics,
        NormalizedCrossEntropy,
        Recalibration,
        ReliabilityDiagram,
    )

EPILOG = examples(
    "accord confidence examples/sclite-test3b-words.csv --correct correct "
    "--confidence confidence --group speaker --recalibrate isotonic",
    "accord confidence --sclite-sgml examples/sclite-test3b.sgml",
    "accord confidence examples/sclite-test3b-words.csv --correct correct "
    "--confidence confidence --engine stream",
)


def compute_engine(
    source: str,
    units: dict[str, Any],
    *,
    engine: str,
    bins: int,
    binning: str,
    scheduler: str | None,
    progress: Any,
) -> dict[str, Any]:
    """What ``accord confidence`` reports, from one stream or dask pass over the files
    (``units``: the columns and the policy for confidences outside [0, 1], as
    :func:`~accord.read_confidences` takes them)."""
    import warnings

    from ..confidence import Binning
    from ..front.confidence import confidence_statistics, confidence_summary

    columns = dict(units)
    statistics = confidence_statistics(
        source,
        engine,
        owner="accord confidence",
        groups=columns.pop("group"),
        table=True,
        scheduler=scheduler,
        progress=progress,
        **columns,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate cases are reported as reasons
        nce, calibration, reliability = confidence_summary(
            statistics, bins=bins, binning=cast(Binning, binning)
        )
    return {
        "nce": nce,
        "calibration": calibration,
        "reliability": reliability,
        "recalibration": None,
    }


def compute(
    frame: Any,
    *,
    grouped: bool,
    bins: int,
    binning: str,
    recalibrate: str | None,
    folds: int,
    seed: int | None,
    out_of_range: str,
) -> dict[str, Any]:
    """The results ``accord confidence`` reports, as library result objects."""
    import warnings

    from ..confidence import Binning, OutOfRange, RecalibrationMethod, reliability_diagram
    from ..confidence import recalibrate as recalibrate_fn
    from ..front.confidence import calibration_metrics, normalized_cross_entropy

    groups = frame["group"] if grouped else None
    oor = cast(OutOfRange, out_of_range)
    bin_kind = cast(Binning, binning)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate cases are reported as reasons
        results: dict[str, Any] = {
            "nce": normalized_cross_entropy(
                frame["correct"], frame["confidence"], groups=groups, out_of_range=oor
            ),
            "calibration": calibration_metrics(
                frame["correct"], frame["confidence"], bins=bins, out_of_range=oor
            ),
            "reliability": reliability_diagram(
                frame["correct"],
                frame["confidence"],
                bins=bins,
                binning=bin_kind,
                out_of_range=oor,
            ),
            "recalibration": None,
        }
        if recalibrate is not None:
            results["recalibration"] = recalibrate_fn(
                frame["correct"],
                frame["confidence"],
                groups=groups,
                method=cast(RecalibrationMethod, recalibrate),
                folds=folds,
                bins=bins,
                binning=bin_kind,
                rng=seed,
                out_of_range=oor,
            )
    return results


def _long_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every number as ``metric, group, value`` rows (the CSV output)."""
    nce = results["nce"]
    rows: list[dict[str, Any]] = []
    for row in nce.groups.to_dict(orient="records"):
        for key in ("n", "n_correct", "p_correct", "h_max", "nce"):
            rows.append({"metric": key, "group": row["group"], "value": row[key]})
    for key in ("statistic", "mean", "sd", "median"):
        name = "nce" if key == "statistic" else f"nce_{key}"
        rows.append({"metric": name, "group": "pooled", "value": getattr(nce, key)})
    cal = results["calibration"].to_dict()
    for key, value in cal.items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            rows.append({"metric": key, "group": "pooled", "value": value})
    recal = results["recalibration"]
    if recal is not None:
        for when, res in (("before", recal.before), ("after_crossfitted", recal.after)):
            for row in res.groups.to_dict(orient="records"):
                rows.append({"metric": f"nce_{when}", "group": row["group"], "value": row["nce"]})
            rows.append({"metric": f"nce_{when}", "group": "pooled", "value": res.statistic})
    return rows


def read_report(results: dict[str, Any], source: str, *, sclite: bool = False) -> dict[str, Any]:
    """What was read, used and dropped: every scored unit read is used (a missing or bad value
    is an error, not a dropped row), so nothing is dropped; clipped confidences are counted."""
    nce = results["nce"]
    return {
        "source": source,
        "rows": int(nce.n),
        "units": int(nce.n),
        "groups": int(nce.n_groups),
        "dropped": 0,
        "reasons": {},
        "out_of_range_clipped": int(nce.n_out_of_range),
        "read": "hypothesis words" if sclite else "rows",
        "unit": "scored words (C, S, I; deletions are not scored)" if sclite else "scored units",
        "groups_are": "speakers" if sclite else "groups",
    }


def read_line(report: dict[str, Any]) -> str:
    """The read/used/dropped line, worded as ``accord agree`` words its read report."""
    groups = report["groups"]
    kind = report["groups_are"]
    one = {"speakers": "speaker", "groups": "group"}.get(kind, kind)
    line = (
        f"read {report['rows']:,} {report['read']}: {report['units']:,} {report['unit']} in "
        f"{groups:,} {one if groups == 1 else kind}; nothing dropped"
    )
    clipped = report["out_of_range_clipped"]
    if clipped:
        line += f"; {clipped:,} confidence{'' if clipped == 1 else 's'} outside [0, 1] clipped"
    return line


def _table(title: str, columns: list[str], rows: list[list[Any]], caption: str = "") -> Any:
    from rich.table import Table

    table = Table(title=title, caption=caption or None, caption_justify="left")
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*(format_number(v) if not isinstance(v, str) else v for v in row))
    return table


def render_tables(
    results: dict[str, Any], source: str, report: dict[str, Any] | None = None
) -> list[Any]:
    """Rich tables for people: NCE per group, calibration, reliability, recalibration; the
    read report line heads the first."""
    tables = [
        _nce_table(results["nce"], source, report),
        _calibration_table(results["calibration"]),
        _reliability_table(results["reliability"]),
    ]
    if results["recalibration"] is not None:
        tables.append(_recalibration_table(results["recalibration"]))
    return tables


def _nce_table(nce: NormalizedCrossEntropy, source: str, report: dict[str, Any] | None) -> Any:
    rows: list[list[Any]] = [
        [
            str(r["group"]),
            r["n"],
            r["n_correct"],
            r["p_correct"],
            r["h_max"],
            r["nce"],
            r["reason"] or "",
        ]
        for r in nce.groups.to_dict(orient="records")
    ]
    defined = nce.n_groups_defined
    rows += [
        ["pooled", nce.n, nce.n_correct, nce.p_correct, nce.h_max, nce.statistic, nce.reason or ""],
        ["mean", "", "", "", "", nce.mean, f"over {defined} group{'' if defined == 1 else 's'}"],
        ["sd", "", "", "", "", nce.sd, "sample SD (n - 1)"],
        ["median", "", "", "", "", nce.median, ""],
    ]
    clipped = counted(nce.n_clipped, "confidence")
    clip_note = f"{clipped} clipped to [1e-7, 0.9999999] before the logs" + (
        f"; {nce.n_out_of_range} outside [0, 1] clipped" if nce.n_out_of_range else ""
    )
    return _table(
        (f"{read_line(report)}\n" if report is not None else "")
        + f"Normalized cross-entropy (as NIST sclite): {source}",
        ["group", "n", "correct", "p_c", "H_max", "NCE", "note"],
        rows,
        "pooled: from the totals (sclite's Sum/Avg); " + clip_note,
    )


def _calibration_table(cal: CalibrationMetrics) -> Any:
    return _table(
        "Calibration and discrimination",
        ["metric", "value", "note"],
        [
            ["accuracy (p_c)", cal.accuracy, ""],
            ["mean confidence", cal.mean_confidence, ""],
            ["Brier score", cal.brier_score, "mean (c - y)^2"],
            ["log loss (bits)", cal.log_loss_bits, "clipped as sclite"],
            ["log loss (nats)", cal.log_loss_nats, ""],
            ["AUROC", cal.auroc, cal.reason or "discrimination, ties count 1/2"],
            [
                "ECE, equal-width bins",
                cal.ece_width,
                f"{cal.n_bins} bins, {cal.n_empty_bins_width} empty",
            ],
            ["MCE, equal-width bins", cal.mce_width, ""],
            [
                "ECE, equal-mass bins",
                cal.ece_mass,
                f"{cal.n_bins} bins, {cal.n_empty_bins_mass} empty",
            ],
            ["MCE, equal-mass bins", cal.mce_mass, ""],
        ],
    )


def _reliability_table(rel: ReliabilityDiagram) -> Any:
    bin_rows = []
    for b in rel.bins.to_dict(orient="records"):
        closing = "]" if (rel.binning == "mass" or b["bin"] == rel.n_bins - 1) else ")"
        span = "" if b["low"] != b["low"] else f"[{b['low']:.3f}, {b['high']:.3f}{closing}"
        bin_rows.append(
            [
                str(b["bin"]),
                span,
                b["count"],
                b["mean_confidence"],
                b["accuracy"],
                format_ci(b["ci_low"], b["ci_high"], 3, star_bounds=False),
                "empty" if b["empty"] else "",
            ]
        )
    return _table(
        f"Reliability diagram ({rel.binning} bins)",
        ["bin", "confidences", "count", "mean conf.", "accuracy", "95% Wilson CI", "note"],
        bin_rows,
        "empty bins are reported as empty, not as 0% correct",
    )


def _recalibration_table(recal: Recalibration) -> Any:
    before = {r["group"]: r["nce"] for r in recal.before.groups.to_dict(orient="records")}
    rec_rows: list[list[Any]] = [
        [str(r["group"]), before[r["group"]], r["nce"], r["nce"] - before[r["group"]]]
        for r in recal.after.groups.to_dict(orient="records")
    ]
    rec_rows.append(["pooled", recal.before.statistic, recal.after.statistic, recal.improvement])
    return _table(
        "Recalibration: NCE before and after (cross-fitted, out of sample)",
        ["group", "NCE before", "NCE after", "change"],
        rec_rows,
        recal.method,
    )


def render(
    results: dict[str, Any],
    source: str,
    fmt: OutputFormat,
    output: Path | None,
    *,
    sclite: bool = False,
) -> None:
    """Print or write the results in the chosen format."""
    report = read_report(results, source, sclite=sclite)
    if fmt is OutputFormat.json:
        payload = {
            "source": source,
            "report": report,
            "nce": results["nce"].to_dict(),
            "calibration": results["calibration"].to_dict(),
            "reliability": results["reliability"].to_dict(),
            "recalibration": (
                None if results["recalibration"] is None else results["recalibration"].to_dict()
            ),
        }
        write_json(payload, output)
        return
    if fmt is OutputFormat.csv:
        import pandas as pd

        frame = pd.DataFrame(_long_rows(results), columns=["metric", "group", "value"])
        write_csv(frame, output)
        return
    with output_console(output) as console:
        for table in render_tables(results, source, report):
            console.print(table)


def _columns(units: dict[str, Any]) -> dict[str, Any]:
    """The :class:`~accord.Source` fields of the scored units' columns."""
    return {"correct": units["correct"], "confidence": units["confidence"]}


@app.command("confidence", epilog=EPILOG)
@shared_options("sep", "encoding", "engine", "scheduler", "quiet", "fmt", "output")
def confidence(
    path: Path | None = typer.Argument(
        None, help="Scored units, one row each: CSV, TSV, Parquet or JSON Lines."
    ),
    correct: str | None = CORRECT_OPTION,
    confidence_column: str | None = CONFIDENCE_OPTION,
    group: str | None = typer.Option(
        None, "--group", help="Column with the group (speaker, system): NCE per group too."
    ),
    sclite_sgml: Path | None = typer.Option(
        None,
        "--sclite-sgml",
        help="Read the scored words of sclite's SGML alignment (sclite -o sgml) instead; "
        "groups are the speakers.",
    ),
    bins: int = typer.Option(10, "--bins", help="Bins for ECE, MCE and the reliability diagram."),
    binning: str = typer.Option(
        "width", "--binning", help="Reliability diagram bins: width (equal-width) or mass."
    ),
    recalibrate: str | None = typer.Option(
        None,
        "--recalibrate",
        help="Also report cross-fitted NCE after recalibration: bins or isotonic.",
    ),
    folds: int = typer.Option(5, "--folds", help="Cross-fitting folds for --recalibrate."),
    seed: int = typer.Option(
        0, "--seed", help="Seed of the random fold assignment.", callback=check_seed
    ),
    out_of_range: str = typer.Option(
        "raise", "--out-of-range", help="Confidences outside [0, 1]: raise or clip (as sclite)."
    ),
    na_values: str | None = NA_VALUES_OPTION,
    shared: Shared = Shared(),
) -> None:
    """Are the confidence scores honest? NCE (exactly as NIST sclite), Brier, log loss, AUROC,
    ECE/MCE, a reliability diagram and cross-fitted recalibration."""
    from ..io.confidence import read_confidences, read_sclite_sgml

    if binning not in ("width", "mass"):
        raise fail(f"--binning must be width or mass, got {binning!r}")
    if recalibrate is not None and recalibrate not in ("bins", "isotonic"):
        raise fail(f"--recalibrate must be bins or isotonic, got {recalibrate!r}")
    if out_of_range not in ("raise", "clip"):
        raise fail(f"--out-of-range must be raise or clip, got {out_of_range!r}")
    check_output(shared.output)
    files = shared.files()
    check_engine_options(shared.engine, shared.scheduler, {"--na-values": na_values is not None})
    # The scored units' columns and out-of-range policy, as read_confidences takes them.
    units: dict[str, Any] = {
        "correct": correct,
        "confidence": confidence_column,
        "group": group,
        "out_of_range": out_of_range,
    }
    if shared.engine is not EngineName.memory:
        if sclite_sgml is not None or recalibrate is not None:
            raise fail(
                "--sclite-sgml and --recalibrate need the units in memory: use --engine memory"
            )
        if path is None or correct is None or confidence_column is None:
            raise fail(
                "--engine stream/dask needs a FILE (or glob) with --correct and --confidence"
            )
        with (
            user_errors(),
            progress_bar(wants_progress(shared.fmt, shared.quiet), "reading units") as progress,
        ):
            src = command_source(path, shared, files, progress, **_columns(units))
            results = compute_engine(
                str(src.data),
                units,
                engine=src.engine,
                bins=bins,
                binning=binning,
                scheduler=src.scheduler,
                progress=src.progress,
            )
        with user_errors():
            render(results, str(path), shared.fmt, shared.output)
        return
    with user_errors():
        if sclite_sgml is not None:
            if path is not None or correct or confidence_column or group or na_values is not None:
                raise fail(
                    "--sclite-sgml reads its own columns; give no FILE, --correct, "
                    "--confidence, --group or --na-values with it"
                )
            words = read_sclite_sgml(sclite_sgml)
            frame = words.rename(columns={"speaker": "group"})
            grouped, source, sclite = True, str(sclite_sgml), True
        else:
            if path is None:
                raise fail("give a FILE with --correct and --confidence, or --sclite-sgml FILE")
            if correct is None or confidence_column is None:
                raise fail("--correct and --confidence are required with a FILE")
            # the shared read flags: --na-values, --sep, --encoding
            src = command_source(path, shared, files, **_columns(units))
            frame = read_confidences(
                src.data,
                **units,
                sep=src.sep,
                encoding=src.encoding,
                na_values=src.na_values,
            )
            grouped, source, sclite = group is not None, str(path), False
        results = compute(
            frame,
            grouped=grouped,
            bins=bins,
            binning=binning,
            recalibrate=recalibrate,
            folds=folds,
            seed=seed,
            out_of_range=out_of_range,
        )
        render(results, source, shared.fmt, shared.output, sclite=sclite)
