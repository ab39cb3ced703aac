"""``accord spans``: agreement on text markup (pairwise F1 across annotators) and on where
the units are (Krippendorff's unitizing alphas)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Any

import typer

from ._app import app, examples
from ._common import (
    SEED_OPTION,
    OutputFormat,
    Shared,
    check_output,
    print_table,
    shared_options,
    wrote_for_machines,
)
from ._span_relations import read_links, render_attributes, render_relations


class InputFormat(enum.StrEnum):
    """How ``accord spans`` reads PATH."""

    auto = "auto"
    brat = "brat"
    bio = "bio"
    table = "table"
    rttm = "rttm"
    label_studio = "label-studio"
    webanno = "webanno"


class Measure(enum.StrEnum):
    """What ``accord spans`` measures."""

    f1 = "f1"
    u_alpha = "u-alpha"
    u_alpha_1995 = "u-alpha-1995"
    gamma = "gamma"
    relations = "relations"
    attributes = "attributes"


BIO_SUFFIXES = (".bio", ".iob", ".iob2", ".bioes", ".conll")


def _is_webanno_folder(path: Path) -> bool:
    """An INCEpTION project export (``annotation/``), or annotator folders of ``.tsv``
    files and no brat ``.ann`` file."""
    if (path / "annotation").is_dir():
        return True
    return any(path.glob("*/*.tsv")) and not any(path.glob("*/*.ann"))


def _is_inception_zip(path: Path) -> bool:
    """A ``.zip`` holding an ``annotation/`` folder (at its root or under one folder)."""
    import re
    import zipfile

    if path.suffix.lower() != ".zip" or not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as archive:
        return any(re.match(r"(?:[^/]+/)?annotation/", n) for n in archive.namelist())


def resolve_input_format(path: Path, fmt: InputFormat) -> InputFormat:
    """``auto``: a folder of ``.rttm`` files or an ``.rttm`` file is RTTM; a ``.zip`` or a
    folder holding ``annotation/``, or annotator folders of ``.tsv`` files, WebAnno TSV (an
    INCEpTION export); another folder brat; a ``.bio/.iob/.iob2/.bioes/.conll`` file BIO;
    a JSON export of Label Studio tasks Label Studio; else a table."""
    if fmt is not InputFormat.auto:
        return fmt
    suffix = path.suffix.lower()
    if suffix == ".rttm" or (path.is_dir() and any(path.glob("*.rttm"))):
        return InputFormat.rttm
    if _is_inception_zip(path) or (path.is_dir() and _is_webanno_folder(path)):
        return InputFormat.webanno
    if path.is_dir():
        return InputFormat.brat
    if suffix in BIO_SUFFIXES:
        return InputFormat.bio
    if suffix in (".json", ".jsonl") and path.is_file():
        from ..io.exports import export_tool

        if export_tool(path) == "label-studio":
            return InputFormat.label_studio
    return InputFormat.table


def read_input(
    path: Path,
    fmt: InputFormat,
    *,
    discontinuous: str,
    annotators: str | None,
    check_text: bool = True,
    header: bool,
    columns: dict[str, str],
    texts: Path | None,
    sep: str | None = None,
    encoding: str | None = None,
    layer: str | None = None,
    field: str | None = None,
) -> Any:
    """Read PATH as brat, BIO, RTTM, Label Studio, WebAnno TSV or a table into
    :class:`accord.Spans`."""
    from ..io.spans import read_bio, read_brat, read_rttm, read_spans

    fmt = resolve_input_format(path, fmt)
    if fmt in (InputFormat.webanno, InputFormat.label_studio):
        return _read_tool_export(path, fmt, layer=layer, field=field, encoding=encoding)
    if fmt is InputFormat.rttm:
        return read_rttm(path, encoding=encoding or "utf-8")
    if fmt is InputFormat.brat:
        return read_brat(
            path,
            discontinuous=discontinuous,  # type: ignore[arg-type]
            check_text=check_text,
            encoding=encoding or "utf-8",
        )
    if fmt is InputFormat.bio:
        names = [a.strip() for a in annotators.split(",")] if annotators else None
        return read_bio(
            path, annotators=names, header=header, sep=sep, encoding=encoding or "utf-8"
        )
    label = columns["label"] or None
    return read_spans(
        path,
        annotator=columns["annotator"],
        document=columns["document"],
        start=columns["start"],
        end=columns["end"],
        label=label,
        texts=texts,
        sep=sep,
        encoding=encoding,
    )


def _read_tool_export(
    path: Path, fmt: InputFormat, *, layer: str | None, field: str | None, encoding: str | None
) -> Any:
    """The spans of a WebAnno TSV / INCEpTION export or of a Label Studio export."""
    from .._errors import InvalidInputError

    if fmt is InputFormat.webanno:
        from ..io.webanno import read_webanno_tsv

        return read_webanno_tsv(path, layer=layer, encoding=encoding or "utf-8")
    from ..data.spans import Spans
    from ..io.label_studio import read_label_studio

    data = read_label_studio(path, field=field)
    if not isinstance(data, Spans):
        raise InvalidInputError(
            f"{path}: {f'the control {field!r}' if field else 'its only control'} is not a "
            "'labels' control (text spans); "
            "accord spans reads the regions of a labels control"
        )
    return data


def _pair_rows(table: Any, scope: str, mean: float, sd: float, pooled: float) -> list[Any]:
    rows: list[dict[str, Any]] = []
    for rec in table.to_dict(orient="records"):
        rows.append(
            {
                "scope": scope,
                "pair": f"{rec['annotator_a']} ~ {rec['annotator_b']}",
                "n_a": rec["n_a"],
                "n_b": rec["n_b"],
                "matched": rec["matched"],
                "precision": rec["precision"],
                "recall": rec["recall"],
                "F1": rec["f1"],
            }
        )
    rows.append({"scope": scope, "pair": "mean over pairs", "F1": mean, "SD": sd})
    rows.append({"scope": scope, "pair": "pooled", "F1": pooled})
    return rows


def render(result: Any, fmt: OutputFormat, output: Path | None) -> None:
    """Print or write a :class:`accord.SpanAgreement` in the chosen format."""
    summary = [
        {
            "scope": "overall",
            "n_pairs": result.n_pairs,
            "n_pairs_defined": result.n_pairs_defined,
            "mean_f1": result.statistic,
            "sd_f1": result.sd,
            "pooled_f1": result.pooled,
            "n_units": result.n_units,
            "reason": result.reason,
        }
    ]
    if result.groups is not None:
        for rec in result.groups.to_dict(orient="records"):
            summary.append(
                {
                    "scope": f"{result.by} {rec[result.by]}",
                    **{k: rec[k] for k in list(summary[0])[1:]},
                }
            )
    if wrote_for_machines(result, summary, fmt, output):
        return
    rows = _pair_rows(result.pairs, "overall", result.statistic, result.sd, result.pooled)
    if result.groups is not None and result.group_pairs is not None:
        for rec in result.groups.to_dict(orient="records"):
            key = rec[result.by]
            table = result.group_pairs[result.group_pairs[result.by] == key]
            rows += _pair_rows(
                table, f"{result.by} {key}", rec["mean_f1"], rec["sd_f1"], rec["pooled_f1"]
            )
    unit = "tokens" if result.match == "token" else "spans"
    title = (
        f"span agreement: {result.n_annotators} annotators, {result.n_documents} documents, "
        f"{result.n_spans} spans; {result.match} matching"
        + (", labels ignored" if result.ignore_label else "")
    )
    caption = [
        f"n_a, n_b: {unit} each annotator marked; matched: one-to-one matches (TP); "
        "precision = matched / n_a, recall = matched / n_b; F1 = 2 TP / (n_a + n_b) = positive "
        "specific agreement; SD: population SD over pairs; pooled: sum 2 TP / sum (n_a + n_b)."
    ]
    if result.annotators_without_spans:
        caption.append(f"Annotators with no spans: {', '.join(result.annotators_without_spans)}.")
    caption += list(result.notes)
    if result.reason:
        caption.append(result.reason)
    print_table(
        rows,
        ["scope", "pair", "n_a", "n_b", "matched", "precision", "recall", "F1", "SD"],
        title=title,
        caption="\n".join(caption),
        output=output,
    )


def _unitizing_rows(result: Any) -> list[dict[str, Any]]:
    """One row per figure of a unitizing alpha result: overall, then per label."""
    if result.name == "unitizing_alpha_1995":
        rows = [
            {"scope": "overall", "measure": "u-alpha (1995)", "alpha": result.statistic,
             "observed": result.observed, "expected": result.expected}
        ]  # fmt: skip
        for rec in result.per_label.to_dict(orient="records"):
            rows.append(
                {"scope": f"label {rec['label']}", "measure": "u-alpha (1995)",
                 "alpha": rec["alpha"], "observed": rec["observed"],
                 "expected": rec["expected"]}
            )  # fmt: skip
        return rows
    rows = [
        {"scope": "overall", "measure": "u-alpha", "alpha": result.statistic},
        {"scope": "overall", "measure": "|u-alpha (marked or not)", "alpha": result.binary},
        {"scope": "overall", "measure": "cu-alpha (labels where units meet)",
         "alpha": result.coding, "coverage": result.coverage},
    ]  # fmt: skip
    for rec in result.per_label.to_dict(orient="records"):
        rows.append(
            {"scope": f"label {rec['label']}", "measure": "(k)u-alpha", "alpha": rec["alpha"],
             "coverage": rec["coverage"]}
        )  # fmt: skip
    if not result.intervals.empty:
        for row, rec in zip(rows, result.intervals.to_dict(orient="records"), strict=True):
            row.update(low=rec["low"], high=rec["high"], SE=rec["standard_error"])
            row.update({"q<0.667": rec["q_0.667"], "q<0.800": rec["q_0.800"]})
    return rows


def render_unitizing(result: Any, fmt: OutputFormat, output: Path | None) -> None:
    """Print or write a unitizing alpha result in the chosen format."""
    rows = _unitizing_rows(result)
    if wrote_for_machines(result, rows, fmt, output):
        return
    columns = ["scope", "measure", "alpha"] + (
        ["observed", "expected"] if result.name == "unitizing_alpha_1995" else ["coverage"]
    )
    if result.name == "unitizing_alpha" and not result.intervals.empty:
        columns += ["low", "high", "SE", "q<0.667", "q<0.800"]
    title = (
        f"unitizing agreement: {result.n_annotators} annotators, {result.n_documents} "
        f"documents, {result.n_spans} units over {result.length} {result.unit}s"
    )
    caption = [str(result.method) + "."]
    if result.name == "unitizing_alpha":
        caption.append(
            "coverage: share of the continuum (cu-alpha) or of the label's stretch ((k)u-alpha) "
            "where units of two annotators meet, the part the figure speaks for."
        )
        if result.n_boot:
            caption.append(
                f"low, high: {result.confidence_level:.0%} percentile interval and SE over "
                f"{result.n_boot} resamples of the documents (seed {result.seed}); q<0.667, "
                "q<0.800: share of the resamples below Krippendorff's smallest acceptable "
                "alphas, the probability of failing to reach each (Hayes & Krippendorff 2007)."
            )
    caption += list(result.notes)
    if result.reason:
        caption.append(result.reason)
    print_table(rows, columns, title=title, caption="\n".join(caption), output=output)


def render_gamma(result: Any, fmt: OutputFormat, output: Path | None) -> None:
    """Print or write a :class:`accord.Gamma` in the chosen format."""
    rows = result.figures()
    if wrote_for_machines(result, rows, fmt, output):
        return
    title = (
        f"gamma: {result.n_annotators} annotators, {result.n_documents} documents, "
        f"{result.n_spans} units"
    )
    caption = [str(result.method) + f"; seed {result.seed}."]
    for reason in (result.reason, result.reason_cat):
        if reason:
            caption.append(reason)
    print_table(rows, ["measure", "value"], title=title, caption="\n".join(caption), output=output)


#: The measures that match spans one to one first (--match applies to them).
MATCHING = (Measure.f1, Measure.relations, Measure.attributes)


def _check_f1_options(measure: Measure, match: str, ignore_label: bool, by: str | None) -> None:
    """--match, --ignore-label and --by choose how F1 matches spans: refuse them otherwise
    (--match also chooses how relations and attributes match their spans)."""
    from .._errors import InvalidInputError

    given = [
        name
        for name, used in (
            ("--match", match != "exact" and measure not in MATCHING),
            ("--ignore-label", ignore_label),
            ("--by", by is not None),
        )
        if used
    ]
    if measure in (Measure.relations, Measure.attributes) and given:
        raise InvalidInputError(
            f"{', '.join(given)} apply only to F1; --measure {measure.value} matches the "
            "spans by --match (exact or overlap) with their labels"
        )
    if measure is not Measure.f1 and given:
        raise InvalidInputError(
            f"{', '.join(given)} apply only to F1 (how it matches spans); "
            f"--measure {measure.value} compares the stretches themselves (pass --measure f1, "
            "or leave them out)"
        )


@app.command(
    "spans",
    epilog=examples(
        "accord spans examples/spans --match overlap --by label",
        "accord spans examples/spans --format json",
        "accord spans examples/spans --measure u-alpha",
        "accord spans examples/spans --measure u-alpha --n-boot 2000",
        "accord spans examples/spans --measure u-alpha-1995 --format csv",
        "accord spans examples/spans --measure gamma",
        "accord spans examples/spans --measure relations --match overlap",
    ),
)
@shared_options("sep", "encoding", "fmt", "output")
def spans(
    path: Path = typer.Argument(
        ...,
        help="A brat folder (one subfolder of .ann files per annotator), a BIO/CoNLL file, a "
        "WebAnno TSV folder or INCEpTION project export (folder or .zip), a Label Studio "
        "JSON export, or a table (CSV, TSV, Parquet, JSON Lines) with one row per span.",
    ),
    input_format: InputFormat = typer.Option(
        InputFormat.auto,
        "--input-format",
        "-i",
        help="brat, bio, table, rttm, label-studio or webanno; auto: a folder of .rttm files "
        "(or an .rttm file) is RTTM, a .zip or a folder with annotation/ (an INCEpTION "
        "project export) or annotator folders of .tsv files WebAnno TSV, another folder brat, "
        ".bio/.iob/.iob2/.bioes/.conll BIO, a JSON export of Label Studio tasks Label "
        "Studio, anything else a table.",
    ),
    measure: Measure = typer.Option(
        Measure.f1,
        "--measure",
        help="f1: pairwise F1 of matched spans; u-alpha: Krippendorff's unitizing alphas "
        "(2016: u, |u, cu, (k)u); u-alpha-1995: the 1995 unitizing alpha per label; gamma: "
        "Mathet et al.'s gamma (30 shuffled continua, seed 0); relations: pairwise F1 of "
        "(head, tail, type) relations between matched spans (brat, Label Studio, WebAnno); "
        "attributes: percent agreement on the attributes of matched spans (brat).",
    ),
    match: str = typer.Option(
        "exact",
        "--match",
        help="exact (same offsets), overlap (one-to-one) or token (F1 only); relations and "
        "attributes match spans exact or overlap.",
    ),
    ignore_label: bool = typer.Option(
        False, "--ignore-label", help="Match on position only (span-only agreement)."
    ),
    by: str | None = typer.Option(
        None,
        "--by",
        help="Breakdown: label, document or none (default: label, or none with --ignore-label).",
    ),
    discontinuous: str = typer.Option(
        "raise", "--discontinuous", help="brat spans in fragments: raise, split or hull."
    ),
    no_text_check: bool = typer.Option(
        False,
        "--no-text-check",
        help="brat: do not compare the text each T line quotes with the .txt at its offsets.",
    ),
    annotators: str | None = typer.Option(
        None, "--annotators", help="BIO: names of the tag columns, comma-separated."
    ),
    layer: str | None = typer.Option(
        None,
        "--layer",
        help="WebAnno TSV: the span or chain layer to read (needed when the files declare "
        "several span layers).",
    ),
    field: str | None = typer.Option(
        None, "--field", help="Label Studio: the labels control (from_name) to read."
    ),
    header: bool = typer.Option(False, "--header", help="BIO: the first line names the columns."),
    annotator: str = typer.Option("annotator", "--annotator", help="Table: annotator column."),
    document: str = typer.Option("document", "--document", help="Table: document column."),
    start: str = typer.Option("start", "--start", help="Table: start offset column."),
    end: str = typer.Option("end", "--end", help="Table: end offset column (exclusive)."),
    label: str = typer.Option(
        "label", "--label", help="Table: label column ('' when spans have no label)."
    ),
    texts: Path | None = typer.Option(
        None, "--texts", help="Table: a folder of <document>.txt files (offset check, tokens)."
    ),
    n_boot: int = typer.Option(
        0,
        "--n-boot",
        help="u-alpha: bootstrap resamples of the documents for percentile intervals (0: none).",
    ),
    seed: int = SEED_OPTION,
    shared: Shared = Shared(),
) -> None:
    """Agreement on text markup: pairwise F1 (= positive specific agreement) across annotators,
    or Krippendorff's unitizing alphas (--measure u-alpha).

    Negatives (phrases nobody marked) cannot be counted, so kappa is unavailable; the mean
    pairwise F1, its SD over pairs and the pooled F1 are reported, overall and per label.
    The unitizing alphas compare the stretches each annotator marked and left unmarked,
    character by character, and correct for chance.
    """
    from .._errors import InvalidInputError
    from ..spans import span_agreement, unitizing_alpha, unitizing_alpha_1995
    from ._common import echo_warnings, user_errors

    chosen_by = by if by is not None else ("none" if ignore_label else "label")
    check_output(shared.output)
    files = shared.files()
    with user_errors(), echo_warnings():
        data = read_input(
            path,
            input_format,
            discontinuous=discontinuous,
            annotators=annotators,
            check_text=not no_text_check,
            header=header,
            columns={
                "annotator": annotator,
                "document": document,
                "start": start,
                "end": end,
                "label": label,
            },
            texts=texts,
            layer=layer,
            field=field,
            **files,
        )
        _check_f1_options(measure, match, ignore_label, by)
        if n_boot and measure is not Measure.u_alpha:
            raise InvalidInputError(
                f"--n-boot applies only to --measure u-alpha; got --measure {measure.value}"
            )
        if measure in (Measure.relations, Measure.attributes):
            fmt = resolve_input_format(path, input_format).value
            links = read_links(
                path, fmt, measure.value, layer=layer, encoding=files.get("encoding")
            )
            _render_links(data, links, measure, match, shared)
            return
        if measure is Measure.u_alpha:
            result_u = unitizing_alpha(data, n_boot=n_boot, rng=seed)
            render_unitizing(result_u, shared.fmt, shared.output)
            return
        if measure is Measure.gamma:
            from ..spans import gamma_agreement

            render_gamma(gamma_agreement(data), shared.fmt, shared.output)
            return
        if measure is Measure.u_alpha_1995:
            render_unitizing(unitizing_alpha_1995(data), shared.fmt, shared.output)
            return
        result = span_agreement(
            data,
            match=match,  # type: ignore[arg-type]
            ignore_label=ignore_label,
            by=None if chosen_by == "none" else chosen_by,  # type: ignore[arg-type]
        )
        render(result, shared.fmt, shared.output)


def _render_links(data: Any, links: Any, measure: Measure, match: str, shared: Shared) -> None:
    """Relation or attribute agreement of the spans ``data`` and their ``links``, shown."""
    from ..spans import attribute_agreement, relation_agreement

    if measure is Measure.relations:
        result = relation_agreement(data, links, match=match)  # type: ignore[arg-type]
        render_relations(result, shared.fmt, shared.output)
    else:
        result_a = attribute_agreement(data, links, match=match)  # type: ignore[arg-type]
        render_attributes(result_a, shared.fmt, shared.output)
