"""One self-contained HTML page that answers "can I trust these raters?".

:func:`report` reads the data (a file, a frame, :class:`~accord.Ratings` or
:class:`~accord.Spans`), runs every analysis that applies to it and renders the page, following
the level of measurement: the headline coefficient read against the usual benchmarks (a
weighted one for ordinal data, the ICC for measurements), what was read, the coefficient table
with a forest plot, the two-rater view (kappa beside informational agreement, specific
agreement, dichotomisation cuts, kappa against the number of negatives), the pairwise heatmap,
contested items, raters against the consensus (named only beyond a permutation test), the
Dawid-Skene rater model (each item's probable label, each rater's accuracy with its interval)
or, for measurements, each rater's mean difference from the others, panel calibration of scores,
confidence calibration, span agreement, and a methods section naming every estimator,
convention and reference used.

The styles are scoped under one root class, so the page shown inline in a notebook
(:attr:`HtmlReport.inline`) restyles nothing around it; the layout adapts to phones and has a
print stylesheet.

The page has inline SVG figures and inline CSS, no script and no external request (its
Content-Security-Policy forbids both), escapes every user string, and is byte-for-byte the
same for the same input. matplotlib and jinja2 (the ``report`` extra) are imported inside.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._errors import InvalidInputError, option, require
from .._names import show_controls
from .._results import Result
from .._validate import counted
from ..agreement.inference import Inference, inference_keywords
from ..data.ratings import Ratings
from ..data.source import Source, as_source
from ..judges.judge import Judge
from ..measurements.regression import Regression
from ._blocks import Section, fmt_int
from ._context import Context, SectionUnavailable
from ._progress import PhaseBar

if TYPE_CHECKING:
    from ._options import ReportOptions

__all__ = ["HtmlReport", "report"]

TEMPLATE = "report.html.j2"


@dataclasses.dataclass(frozen=True, slots=True)
class HtmlReport(Result):
    """A rendered report.

    Attributes
    ----------
    html : str
        The page.
    sections : tuple of str
        Ids of the sections shown, in page order.
    skipped : mapping of str to str
        Sections whose data was present but whose capability was not available, and why.
    path : Path or None
        Where the page was written, when it was.
    inline : str
        The same report as an HTML fragment for a notebook cell (its styles scoped to the
        report, no page-wide rules); what ``_repr_html_`` shows.
    """

    html: str = dataclasses.field(repr=False)
    sections: tuple[str, ...]
    skipped: Mapping[str, str]
    path: Path | None = None
    inline: str = dataclasses.field(default="", repr=False)

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (UTF-8), creating the folder; return the path."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(self.html, encoding="utf-8")
        return target

    def _repr_html_(self) -> str:
        return self.inline or self.html


def _as_pandas(data: Any) -> pd.DataFrame:
    """A pandas frame from pandas, polars, pyarrow or a DuckDB relation."""
    if isinstance(data, pd.DataFrame):
        return data
    for attr in ("to_pandas", "df"):
        convert = getattr(data, attr, None)
        if callable(convert):
            out = convert()
            if isinstance(out, pd.DataFrame):
                return out
    raise InvalidInputError(
        f"report needs a file path, a data frame or Ratings; got a {type(data).__name__}"
    )


def _read(src: Source, extra: Sequence[str]) -> tuple[Ratings | None, pd.DataFrame | None, str]:
    """The ratings (when a label column is given) and the rows read, and the source name:
    a file is read once, for both (:func:`accord.io.ratings.read_ratings_and_rows`)."""
    data, item, rater, label = src.data, src.item, src.rater, src.label
    if isinstance(data, Ratings):
        if extra:
            raise InvalidInputError(
                "score, confidence and correctness columns need the rows: pass a file or a "
                "data frame rather than Ratings"
            )
        return data, None, data.report.source or "ratings"
    if label is not None and (item is None or rater is None):
        raise InvalidInputError("a label column needs the item and rater columns too")
    if isinstance(data, str | os.PathLike):
        ratings, frame = _read_file(src, Path(data), extra)
        source = str(data)
    else:
        frame = _as_pandas(data)
        _require(frame, [c for c in (item, rater, label, *extra) if c])
        source = "pandas.DataFrame"
        ratings = None
        if label is not None:
            from ..front.reading import ratings_of

            ratings = ratings_of(dataclasses.replace(src, data=frame), "report")
    if ratings is not None:
        ratings = dataclasses.replace(
            ratings, report=dataclasses.replace(ratings.report, source=source)
        )
    return ratings, frame, source


def _read_runs(
    src: Source, extra: Sequence[str], judge: Any, trial: str
) -> tuple[Ratings | None, pd.DataFrame | None, str]:
    """The rows of a judge run several times (a file read once, or a frame), and the
    ratings the other sections read: one label per item and rater, the judge's majority
    over its runs (:func:`accord.majority_over_runs`, as the alt-test
    of :func:`accord.judge_consistency` reads it)."""
    from ..front.reading import ratings_of
    from ..io.ratings import read_table
    from ..judges.consistency import majority_over_runs

    assert src.item is not None and src.rater is not None and src.label is not None
    columns = list(dict.fromkeys([src.item, src.rater, src.label, *extra]))
    if isinstance(src.data, str | os.PathLike):
        files = {"file_format": src.file_format, "sep": src.sep, "encoding": src.encoding}
        frame = read_table(Path(src.data), columns, na_values=src.na_values, **files)  # type: ignore[arg-type]
        source = str(src.data)
    else:
        frame = _as_pandas(src.data)
        _require(frame, columns)
        source = "pandas.DataFrame"
    judges = [str(j) for j in (judge if isinstance(judge, list | tuple) else [judge])]
    folded = majority_over_runs(frame, judges, item=src.item, rater=src.rater,
                                label=src.label, trial=trial, level=src.level)  # fmt: skip
    ratings = ratings_of(dataclasses.replace(src, data=folded), "report")
    ratings = dataclasses.replace(
        ratings, report=dataclasses.replace(ratings.report, source=source)
    )
    return ratings, frame, source


def _require(frame: pd.DataFrame, columns: Sequence[str]) -> None:
    """Every one of ``columns`` in ``frame``, or the error naming the first missing."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        from .._errors import ColumnNotFoundError

        raise ColumnNotFoundError(
            f"column {missing[0]!r} not found; the frame has {list(map(str, frame.columns))}"
        )


def _read_file(
    src: Source, path: Path, extra: Sequence[str]
) -> tuple[Ratings | None, pd.DataFrame | None]:
    """The ratings and rows of one file, read once: a table's named columns, or an
    annotation tool's export (``from_`` or ``field``: its ratings, no rows)."""
    from ..io.ratings import read_ratings_and_rows, read_table

    files = {"file_format": src.file_format, "sep": src.sep, "encoding": src.encoding}
    if src.from_ is not None or src.field is not None:
        if extra:
            raise InvalidInputError(
                "score, confidence, correctness and gold columns need a table; an "
                "annotation-tool export holds only its labels"
            )
        from ..front.reading import ratings_of

        return ratings_of(dataclasses.replace(src, data=str(path)), "report"), None
    from ..front.reading import ratings_at, several_files

    encode = {k: getattr(src, k) for k in ("level", "categories", "missing", "duplicates",
                                           "na_values", "labels_as", "multi_label")}  # fmt: skip
    if several_files(path):  # a glob, a folder: one table of all the files' ratings
        if extra or src.label is None:
            raise InvalidInputError(
                f"{path} names several files: score, confidence, correctness and gold columns "
                "are read from one file"
            )
        names = {"item": src.item, "rater": src.rater, "label": src.label}
        return ratings_at(path, **names, **files, **encode), None
    if src.label is None:
        columns = [c for c in (src.item, src.rater, *extra) if c]
        return None, read_table(path, columns, na_values=src.na_values, **files)  # type: ignore[arg-type]
    assert src.item is not None and src.rater is not None
    if not extra and src.level not in ("interval", "ratio"):  # no section reads the rows
        from ..io.ratings import read_ratings

        names = {"item": src.item, "rater": src.rater, "label": src.label}
        return read_ratings(path, **names, **files, **encode), None  # type: ignore[arg-type]
    return read_ratings_and_rows(path, extra, item=src.item, rater=src.rater, label=src.label,
                                 **files, **encode)  # type: ignore[arg-type]  # fmt: skip


def _steps(total: int, enabled: bool | None) -> PhaseBar:
    """The report's one progress display over its steps (reading, each section, writing the
    page), rows read shown beside it; a bar only when ``enabled`` (by default, when stderr
    is a terminal)."""
    return PhaseBar("reading", shown=enabled, steps=total, unit="rows read")


def _score_confidence(
    scores: tuple[str, ...], given: str | Mapping[str, str] | None
) -> dict[str, str]:
    """The confidence column of each score column that has one."""
    if given is None:
        return {}
    if not scores:
        raise InvalidInputError(
            "score_confidence weights the score columns: give the score columns too"
        )
    if isinstance(given, str):
        return dict.fromkeys(scores, given)
    unknown = [k for k in given if k not in scores]
    if unknown:
        raise InvalidInputError(
            f"score_confidence names {unknown[0]!r}, which is not one of the score columns "
            f"{list(scores)!r}"
        )
    return {k: str(v) for k, v in given.items()}


def _gold_labels(frame: pd.DataFrame | None, item: str | None, gold: str | None) -> Any:
    """The gold label of each item that has one, indexed by item id (None without a gold
    column, or without the rows)."""
    from ..consensus import gold_labels

    if gold is None or frame is None:
        return None
    assert item is not None
    return gold_labels(frame, item, gold)


def _controls_shown(value: Any) -> Any:
    """Every string the page shows, figures included, with its bidirectional controls as
    escapes (:func:`accord._names.show_controls`): a name cannot reorder what a reader
    sees."""
    from markupsafe import Markup

    if isinstance(value, Markup):
        return Markup(show_controls(str(value)))
    return show_controls(value) if isinstance(value, str) else value


def render(
    sections: Sequence[Section], *, title: str, subtitle: str, fragment: bool = False
) -> str:
    """The page for these sections (jinja2 with autoescape: user strings are escaped); with
    ``fragment``, a ``<div>`` for a notebook cell instead of a whole page."""
    from .._version import __version__

    page: str = _template().render(
        sections=sections, title=title, subtitle=subtitle, version=__version__, fragment=fragment
    )
    return page


@functools.cache
def _template() -> Any:
    """The page's jinja2 template, compiled once per process (the page and its notebook
    fragment render the same template)."""
    require("jinja2", "report")
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("accord.report", ""),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
        lstrip_blocks=False,
        keep_trailing_newline=True,
        finalize=_controls_shown,
    )
    return env.get_template(TEMPLATE)


def _build(
    ctx: Context, sections: Sequence[tuple[str, Any]], steps: PhaseBar
) -> tuple[list[Section], dict[str, str]]:
    """Each section that applies, in page order, then the methods section; and the sections
    left out, with why."""
    import pyarrow as pa

    from ..front.reading import read_once
    from .sections import build_methods

    # rows the context let go are returned to the system now, not when the pool decays
    pa.default_memory_pool().release_unused()
    built: list[Section] = []
    skipped: dict[str, str] = {}
    with read_once():
        _build_each(ctx, sections, steps, built, skipped)
    built.append(build_methods(built, ctx))
    return built, skipped


def _build_each(
    ctx: Context,
    sections: Sequence[tuple[str, Any]],
    steps: PhaseBar,
    built: list[Section],
    skipped: dict[str, str],
) -> None:
    """Each section that applies, in page order, into ``built`` (``skipped``: those left
    out, with why). The stream engine reads the files once for every section: its first
    scan also counts what the consensus needs. What no later section reads is let go as
    soon as its last reader is built (:data:`~accord.report.sections.LAST_READ`)."""
    from .sections import LAST_READ

    for name, builder in sections:

        def run(builder: Callable[[Context], Section | None] = builder, key: str = name) -> Any:
            try:
                return builder(ctx)
            except SectionUnavailable as exc:
                skipped[key] = str(exc)
                return None

        section = steps.step(_phase(name), run)
        if section is not None:
            built.append(section)
        for key in LAST_READ.get(name, ()):
            ctx.let_go(key)


def _phase(section: str) -> str:
    """What the progress display says while a section is built.

    >>> _phase("read"), _phase("method-comparison")
    ('summarising what was read', 'computing method comparison')
    """
    return (
        "summarising what was read"
        if section == "read"
        else f"computing {section.replace('-', ' ')}"
    )


def _finish(
    built: list[Section],
    skipped: dict[str, str],
    *,
    heading: str,
    subtitle: str,
    steps: PhaseBar,
    output: str | os.PathLike[str] | None,
) -> HtmlReport:
    """Render the page and its notebook fragment, and write the page when asked."""
    try:
        page = lambda: render(built, title=heading, subtitle=subtitle)  # noqa: E731
        html = steps.step("writing the page", page)
        inline = render(built, title=heading, subtitle=subtitle, fragment=True)
    finally:
        steps.close()
    result = HtmlReport(html, tuple(s.id for s in built), skipped, inline=inline)
    if output is not None:
        result = dataclasses.replace(result, path=result.write(output))
    return result


def _span_report(
    spans: Any,
    *,
    relations: Any,
    title: str | None,
    output: str | os.PathLike[str] | None,
    enabled: bool | None,
) -> HtmlReport:
    """The report of span annotations: the headline, what was read, the span agreement."""
    from .sections import SPAN_SECTIONS

    ctx = Context(
        ratings=None, frame=None, item=None, rater=None, label=None, spans=spans,
        relations=relations,
    )  # fmt: skip
    steps = _steps(4, enabled)
    try:
        built, skipped = _build(ctx, SPAN_SECTIONS, steps)
    except BaseException:
        steps.close()
        raise
    name = Path(spans.source).name if spans.source else "spans"
    subtitle = (
        f"{name}: {spans.n_spans:,} spans by {spans.n_annotators:,} annotators in "
        f"{spans.n_documents:,} documents"
    )
    heading = title or f"Span agreement: {name}"
    return _finish(built, skipped, heading=heading, subtitle=subtitle, steps=steps, output=output)


def _subtitle(ctx: Context) -> str:
    """What the page is about, in one line: the source, the ratings, items and raters."""
    name = Path(ctx.source).name if ctx.source else "ratings"
    if not ctx.has_labels:
        return f"{name}: {fmt_int(0 if ctx.frame is None else len(ctx.frame))} rows"
    rep = ctx.read_report
    numeric = ctx.numeric
    return (
        f"{name}: {fmt_int(rep.ratings)} {'measurements' if numeric else 'ratings'} "
        f"of {counted(rep.items, 'item')} by {counted(rep.raters, 'rater')}"
        + ("" if numeric else f" in {len(ctx.label_categories)} categories")
        + f" ({ctx.level})"
    )


def report(
    data: Any,
    *,
    score_confidence: str | Mapping[str, str] | None = None,
    gold: str | None = None,
    positive: Any = None,
    judge: Any = None,
    trial: str | None = None,
    relations: Any = None,
    facets: str | Sequence[str] | None = None,
    title: str | None = None,
    output: str | os.PathLike[str] | None = None,
    weights: str | None = None,
    inference: Inference | None = None,
    regression: str | Regression = "passing-bablok",
    **read_options: Any,
) -> HtmlReport:
    """Build the HTML report that answers "can I trust these raters?".

    Each section appears when its data is present: labels give the agreement sections
    (``gold`` adds each rater's accuracy and kappa against the gold labels; three raters or
    more in categories, the Dawid-Skene rater model of :func:`accord.rater_model`, fitted
    with the ``inference``'s replicates, seed and level and anchored on ``gold``), ``scores`` the
    panel calibration (weighted by ``score_confidence`` when given), ``confidence`` with
    ``correct`` the confidence calibration. Measurements (interval and ratio levels) that
    a rater took more than once on an item (repeated rows, read by the other sections as
    ``duplicates`` says; numbered by ``trial`` when given) add the replicates'
    repeated-measures CCC (:func:`accord.repeated_concordance`) and each pair's Deming
    regression with the error ratio estimated from the replicates (:func:`accord.deming`).

    Parameters
    ----------
    data : Source, str, path, DataFrame, Ratings or Spans
        A :class:`~accord.Source` (:func:`accord.source`), or what it holds: a ratings file (CSV,
        TSV, Parquet, JSON Lines), a long frame (one row per rating: pandas, polars, pyarrow,
        DuckDB), or :class:`~accord.Ratings`; or :class:`~accord.Spans` (from
        :func:`accord.read_brat` and the other span readers) for a report on span agreement (the
        column options do not apply).
    **read_options
        The fields of :class:`~accord.Source`, as :func:`accord.source` takes them
        (``report(x, item="i", ...)`` is ``report(source(x, item="i", ...))``), of which:

    item, rater, label : str, optional
        Column names. ``label`` is needed for the agreement sections; ``item`` and ``rater``
        for everything but the confidence section.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement of the labels.
    categories : sequence, optional
        The declared category domain, in order.
    duplicates : {"raise", "first", "last", "mean"}, default "raise"
        As in :meth:`accord.Ratings.from_long`; with the stream and dask engines "first" or
        "last" (the agreement and consensus sections).
    score : str or sequence of str, optional
        Numeric score columns (also spelled ``scores``); each is calibrated over the panel
        (item values and rater biases, :func:`accord.calibrate_panel`).
    score_confidence : str or mapping of str to str, optional
        Confidence columns for the scores: ``c > 0``, the inverse variance of each score
        (absolute, as ``calibrate_panel(confidence=...)`` takes them; not the probabilities of
        ``confidence``). A column name applies to every score column; a mapping gives the
        column of each score that has one. Scores without one are calibrated with equal
        confidences (relative: variances scaled by the residual).
    gold : str, optional
        A column holding a gold label per item (repeated on the item's rows, or given on some
        of them; two different gold labels for one item are an error). The raters section
        then shows each rater's accuracy and Cohen's kappa against it
        (:func:`accord.consensus` with ``gold``). Needs ``label``.
    confidence, correct : str, optional
        A confidence column in [0, 1] and a correctness column (0/1, true/false): NCE, the
        reliability diagram and the calibration metrics, per rater and pooled.
    positive : category, optional
        The positive class of a two-category scale (default: the last category, e.g. 1,
        True or "yes").
    judge : rater id or Judge, optional
        A rater whose place is in question (a model, a device, a cheaper annotator), as
        :class:`accord.Judge` holds it with the options of its sections (its panel of
        ``humans``, the alternative annotator test's margin ``epsilon``, a ``pairwise``
        judge log, the ``time`` column and its ``window``); a rater id alone is
        ``Judge(rater)``. The judge adds the section "Can the judge replace a rater?"
        (:func:`accord.alt_test` and :func:`accord.judge_agreement` against the other
        raters; needs ``label`` and ``epsilon``). A list of raters names several judges:
        the section is on the first, and the others are not counted as humans. When a judge
        is given, its sections come first. ``Judge(pairwise=log)`` adds the section "Is the
        judge biased?": :func:`accord.position_bias`, position consistency
        (:func:`accord.pairwise_preference_agreement`) and, when the log has ``length_a``
        and ``length_b``, :func:`accord.length_bias`. ``Judge(rater, time=column)`` adds
        "Does the judge drift over time?" (:func:`accord.agreement_drift`: the judge's
        agreement with the humans' majority label and the humans' agreement among
        themselves per window of ``window`` (default ``"7d"``) with their standard errors
        and intervals, Fleiss's test of equal agreement across windows, the trend test, and
        their figure; with ``trial``, the judge's majority over runs on the row of its
        earliest run), read from the rows in memory.
    trial : str, optional
        The column naming the run of each label, for a judge run several times on the same
        items (as ``accord judge --trial`` reads it): the section "Does the judge agree with
        itself?" (:func:`accord.judge_consistency`: each judge's test-retest agreement with
        its interval, the share of items whose label flips, the most fragile items, beside
        the humans' agreement, and with the judge's ``epsilon`` the alternative annotator
        test of the judge's majority label over its runs). The other sections take one label per
        (item, rater): for the judge, its majority label over its runs (a tie going to the
        label of the earliest run; the mean at interval and ratio level), the label that
        alt-test reads (:func:`accord.majority_over_runs`); ``duplicates="first"`` or
        ``"last"`` reads the judge's first or last row instead. The section says which.
        Without ``judge``, at the interval and ratio levels: the replicate (occasion) of
        each measurement, for the section "Replicate measurements" (which, without this
        column, numbers the repeated rows of an item by a rater in their order); then
        ``duplicates`` says which measurement the other sections read (``"mean"``,
        ``"first"``, ``"last"``).
    relations : DataFrame, optional
        With :class:`~accord.Spans` as the data: the relations between the spans, one row
        per relation, as :func:`accord.read_brat_relations` and the other relation readers
        give them. The span section then adds the agreement on relations
        (:func:`accord.relation_agreement`, spans matched exactly).
    facets : str or sequence of str, optional
        Columns naming one more facet of the design each (an occasion, a site, a reading
        session), for the section "Designs with several facets": the G-study of items x
        raters x facet (:func:`accord.g_study`: the variance components with their
        intervals, and E rho^2 and Phi at the study's numbers of levels; numeric labels at
        the ordinal level or above), its design read from the data (items nested in the
        facet's levels: ``(p:s) x r``; raters nested: ``p x (r:o)``; else ``p x r x o``);
        and, items nested in the facet and two raters labelling them, the clustered
        agreement (:func:`accord.agreement_by_cluster`, :func:`accord.kappa_by_stratum`).
        A crossed facet repeats each (item, rater): ``duplicates`` says which label the
        other sections read (``"mean"`` for scores). Each is written ``"COLUMN"`` or
        ``"FACET=COLUMN"`` as ``accord agree --facet`` takes it: ``"o=site"`` calls the
        facet ``o`` in its design (``(p:o) x r``) instead of ``s``.
    title : str, optional
        Title of the page (default: the name of the source).
    output : str or path, optional
        Also write the page there (the folder is created).
    weights : str, optional
        Weights of the weighted rows of the agreement table, as :func:`accord.agreement`
        takes them (``"linear"``, ``"power:1.5"``, ``"circular:0.5"``, ...; default
        quadratic above the nominal level).
    inference : Inference, optional
        The level of every interval, the bootstrap and the agreement table's inference, as
        one :class:`accord.Inference`: ``confidence_level`` (default 0.95); ``n_boot``
        (default 2000), the bootstrap replicates where a statistic has no analytic SE
        (informational agreement, the rater model's intervals); ``seed``, an integer that
        seeds every bootstrap: the report's default is ``Inference(seed=0)``, and
        ``seed=None`` (Inference's own default) means ``seed=0`` here, so the same input
        gives the same page; ``se``, the standard error of the chance-corrected coefficients as
        :func:`accord.agreement` takes it (kappaetc's ``se()``: ``"raters"``, ``"items"``
        or ``"unconditional"``); ``rater_population_size``, the finite-population
        correction of the variance over raters (kappaetc's ``nraters()``); ``test_value``
        and ``alternative``, the test of ``coefficient = test_value`` (any other value than
        0, or a one-sided alternative, adds a p column to the table). ``ci`` and
        ``population_size`` are options of :func:`accord.agreement` alone: the report
        refuses them.
    regression : {"passing-bablok", "deming"} or Regression, default "passing-bablok"
        The regression of the method-comparison section (interval and ratio levels):
        :func:`accord.passing_bablok` or :func:`accord.deming`;
        ``accord.Regression("deming", error_ratio=2.0)`` gives Deming's ratio of the error
        variances (x to y; default 1).
    progress : bool or callable, optional
        Show a progress bar on stderr; default: when stderr is a terminal. A callable is
        the stream engine's ``progress(rows_read, total_or_None)`` (no bar then).
    missing, sep, encoding, file_format, from_, field
        As in :func:`accord.read_ratings` (``from_`` and ``field``: an annotation tool's
        export, read in memory).
    na_values, labels_as
        What counts as a missing label and how a text file's labels are typed, as in
        :meth:`accord.Ratings.from_long` (e.g. ``na_values=[]`` keeps a category named
        ``"None"``).
    engine : {"memory", "stream", "dask"}, default "memory"
        Where the statistics are computed (see the engines page of the docs). With
        ``"stream"`` or ``"dask"`` the ratings are read from ``data``, a path, by the engine
        and never held in memory: the coefficients, what was read and the contested items are
        computed as with the memory engine; the sections that need per-rating data (two
        raters, pairs of raters, raters, scores, confidence) say so in one sentence instead.

    multi_label : bool, default False
        Each (item, rater) has a set of labels (its repeated rows, or a list in a Parquet or
        JSON Lines label column), as :meth:`accord.Ratings.from_long` reads them: the page
        is headlined by Krippendorff's alpha with the MASI distance, beside the
        multi-valued alpha, and shows each set as ``{a, b}``.

    Returns
    -------
    HtmlReport
        ``html``, the ids of the ``sections`` shown, the ``skipped`` sections with their
        reason, and ``path`` when written.

    Raises
    ------
    InvalidInputError
        Unknown columns, bad labels or scores (as the readers raise), or no column to report
        on.

    Notes
    -----
    The keywords that the options objects replaced still work in this release, each with a
    :class:`DeprecationWarning` that spells the value to pass: ``confidence_level``,
    ``n_boot``, ``seed``, ``se``, ``rater_population_size``, ``test_value`` and
    ``alternative`` (``inference=accord.Inference(...)``); ``humans``, ``epsilon``,
    ``pairwise``, ``time`` and ``window`` (``judge=accord.Judge(...)``); ``error_ratio``
    (``regression=accord.Regression(...)``). An old keyword given with the value that
    replaced it is an error.

    References
    ----------
    Every estimator's own references are listed on the page, in its Methods section. The
    headline's interpretation bands and thresholds come from:

    .. [1] Landis, J. R., & Koch, G. G. (1977). The measurement of observer agreement for
       categorical data. Biometrics, 33(1), 159-174. https://doi.org/10.2307/2529310
    .. [2] Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology,
       2nd ed. Sage.

    Examples
    --------
    >>> import accord
    >>> r = accord.Ratings.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "a", "a"]])
    >>> page = accord.report(r, title="Three raters", progress=False)
    >>> page.sections[:3]
    ('summary', 'read', 'coefficients')
    >>> "<svg" in page.html and "<script" not in page.html
    True

    The options of the judge's sections, of the inference and of the regression each
    travel as one value:

    >>> import pandas as pd
    >>> votes = accord.Ratings.from_wide(pd.DataFrame(
    ...     [["a", "a", "a", "b"], ["b", "b", "b", "b"], ["a", "a", "b", "a"],
    ...      ["b", "b", "b", "b"], ["a", "b", "a", "a"], ["b", "b", "a", "b"]],
    ...     columns=["h1", "h2", "h3", "llm"]))
    >>> page = accord.report(votes, judge=accord.Judge("llm", epsilon=0.2),
    ...                      inference=accord.Inference(n_boot=200, seed=1), progress=False)
    >>> page.sections[0]
    'judge'
    """
    from ._options import INFERENCE_FIELDS, report_options
    from .sections import SECTIONS

    opts = report_options(judge, inference, regression, read_options)
    src = as_source(data, "report", **read_options)
    score_conf = _score_confidence(src.scores, score_confidence)
    _check(src, gold)
    _check_inference(src, weights, opts.inference)
    _check_judge(src, opts.judge, trial)
    facet_columns, facet_names = _check_facets(src, facets)
    rater = None if opts.judge is None else opts.judge.rater
    time = None if opts.judge is None else opts.judge.time
    from ..data.spans import Spans

    bar = src.progress if src.progress is None or isinstance(src.progress, bool) else False
    if isinstance(src.data, Spans):
        return _span_report(src.data, relations=relations, title=title, output=output, enabled=bar)
    if relations is not None:
        raise InvalidInputError(
            "relations= are relations between spans: give the spans (accord.Spans) as the data"
        )
    extra = [
        *src.scores,
        *dict.fromkeys(score_conf.values()),
        *([src.confidence, src.correct] if src.confidence and src.correct else []),
        *([gold] if gold else []),
        *([trial] if trial else []),
        *([time] if time else []),
        *facet_columns,
    ]
    steps = _steps(len(SECTIONS) + 2, bar)
    try:
        if src.engine == "memory" and trial is not None and src.duplicates == "raise":
            reading = lambda: _read_runs(src, extra, rater, trial)  # noqa: E731
            ratings, frame, source = steps.step("reading", reading)
        elif src.engine == "memory":
            read = functools.partial(_read_facets, src, extra, facet_columns)
            ratings, frame, source = steps.step("reading", read)
        else:  # the engine reads the file(s) itself, section by section
            ratings, frame, source = None, None, str(src.data)
        ctx = Context(
            ratings=ratings,
            frame=frame,
            score_confidence=score_conf,
            positive=positive,
            source=source,
            gold=gold,
            gold_labels=_gold_labels(frame, src.item, gold),
            trial=trial,
            facets=facet_columns,
            facet_names=facet_names,
            weights=weights,
            **_option_fields(opts),
            **_context_options(src, steps),
        )
        del frame  # the context keeps the rows while a section reads them
        with inference_keywords(INFERENCE_FIELDS):  # advice names them as report takes them
            built, skipped = _build(ctx, _judge_first(SECTIONS, rater), steps)
        subtitle = _subtitle(ctx)
    except BaseException:
        steps.close()
        raise
    name = Path(source).name if source else "ratings"
    heading = title or f"Rater agreement: {name}"
    return _finish(built, skipped, heading=heading, subtitle=subtitle, steps=steps, output=output)


def _check_inference(src: Source, weights: str | None, inference: Inference) -> None:
    """The agreement table's options are refused, naming them, on a page without labels,
    where nothing would use them."""
    given = {
        "weights": weights is not None,
        "se": inference.se != "raters",
        "rater_population_size": inference.rater_population_size is not None,
        "test_value": inference.test_value != 0,
        "alternative": inference.alternative != "two-sided",
    }
    named = [option(name).strip().rstrip("=") for name, on in given.items() if on]
    if named and src.label is None and not isinstance(src.data, Ratings):
        raise InvalidInputError(
            f"{', '.join(named)}: options of the agreement coefficients, "
            "which need the labels; give the label column too"
        )


def _option_fields(opts: ReportOptions) -> dict[str, Any]:
    """The fields of the report's :class:`Context` that come from its options objects."""
    sampling, judge, regression = opts.inference, opts.judge, opts.regression
    table = ("se", "rater_population_size", "test_value", "alternative")
    fields: dict[str, Any] = {
        "confidence_level": sampling.confidence_level,
        "n_boot": sampling.n_boot,
        "seed": int(sampling.seed),  # type: ignore[arg-type]  # an integer: report_options
        "inference": {name: getattr(sampling, name) for name in table},
        "regression": regression.method,
        "error_ratio": regression.error_ratio,
    }
    if judge is not None:
        fields |= {
            "judge": judge.rater,
            "humans": judge.humans,
            "epsilon": judge.epsilon,
            "pairwise": _pairwise_log(judge.pairwise),
            "time": judge.time,
            "window": "7d" if judge.window is None else judge.window,
        }
    return fields


def _pairwise_log(pairwise: Any) -> Any:
    """A pairwise judge log: a path read by :func:`accord.read_pairwise_judgments`, a frame
    as given, or None."""
    if pairwise is None or hasattr(pairwise, "columns"):
        return pairwise
    from ..io.pairwise import read_pairwise_judgments

    return read_pairwise_judgments(pairwise)


def _context_options(src: Source, steps: PhaseBar) -> dict[str, Any]:
    """The fields of the report's :class:`Context` that come from the source: its columns,
    how its labels read, and (stream and dask) the source the engines read, which report the
    rows they read to the report's progress display (or to the callback given)."""
    names = ("item", "rater", "label", "confidence", "correct", "level", "categories",
             "na_values", "labels_as", "multi_label", "engine", "duplicates")  # fmt: skip
    in_memory = src.engine == "memory"
    callback: Any = steps if steps.progress is not None else None
    if not isinstance(src.progress, bool | None):
        callback = src.progress
    origin = None
    if not in_memory:
        origin = as_source(src, "report", score=(), confidence=None, correct=None,
                           progress=callback)  # fmt: skip
    return {name: getattr(src, name) for name in names} | {
        "scores": src.scores,
        "path": None if in_memory else src.data,
        "origin": origin,
    }


def _judge_first(sections: Sequence[tuple[str, Any]], judge: Any) -> list[tuple[str, Any]]:
    """The sections in page order; a report asked about a judge answers about it first."""
    if judge is None:
        return list(sections)
    first = ("judge", "judge-rates", "judge-consistency", "judge-drift")
    return sorted(sections, key=lambda s: s[0] not in first)


def _check_judge(src: Source, judge: Judge | None, trial: str | None) -> None:
    """A judge is compared on labels; its time column and a trial column are read from the
    rows in memory."""
    rater = None if judge is None else judge.rater
    if rater is not None and src.label is None and not isinstance(src.data, Ratings):
        raise InvalidInputError("a judge is compared on the raters' labels: give the label column")
    _check_trial(src, rater, trial)
    if judge is not None and judge.time is not None:
        _check_time(src)


def _check_trial(src: Source, judge: Any, trial: str | None) -> None:
    """A trial column names the runs of a judge or, without one, the replicate of each
    measurement (interval and ratio levels), read from the rows in memory."""
    if trial is None:
        return
    measured = src.level in ("interval", "ratio")
    if judge is None and not measured:
        raise InvalidInputError(
            "trial names the runs of a judge (give the judge too) or, at the interval and "
            f"ratio levels, the replicate of each measurement (the level is {src.level!r})"
        )
    if src.engine != "memory" or isinstance(src.data, Ratings):
        raise InvalidInputError(
            "trial is read from the rows: give a file or a data frame, with engine='memory'"
        )
    if src.label is None or src.item is None or src.rater is None:
        raise InvalidInputError(
            "trial names the runs of a judge's labels or the replicates of measurements: "
            "give the item, rater and label columns"
        )
    if src.duplicates == "raise" and judge is None:
        raise InvalidInputError(
            f"trial: each rater measures an item once per replicate (column {trial!r}), and "
            "the other sections take one measurement per item and rater: give duplicates "
            "('mean', 'first', 'last') to say which they read"
        )
    if src.from_ is not None or src.field is not None:
        raise InvalidInputError(
            "trial is a column of a table: an annotation-tool export (from_) has none"
        )


def _check_time(src: Source) -> None:
    """A time column dates the ratings of a judge and its humans, read from the rows in
    memory (its window is checked by :class:`~accord.Judge`)."""
    if src.engine != "memory" or isinstance(src.data, Ratings):
        raise InvalidInputError(
            "time is read from the rows: give a file or a data frame, with engine='memory'"
        )
    if src.from_ is not None or src.field is not None:
        raise InvalidInputError(
            "time is a column of a table: an annotation-tool export (from_) has none"
        )


def _read_facets(
    src: Source, extra: Sequence[str], facets: tuple[str, ...]
) -> tuple[Ratings | None, pd.DataFrame | None, str]:
    """:func:`_read`; a label repeated for an (item, rater) is explained by a facet column
    (an occasion) when the report has one."""
    from .._errors import DuplicateRatingError

    try:
        return _read(src, extra)
    except DuplicateRatingError as exc:
        if not facets:
            raise
        raise DuplicateRatingError(
            f"{exc} (a facet crossed with the items and raters, such as {facets[0]!r}, repeats "
            "each item and rater: duplicates says which label the sections other than the "
            "facets' read)"
        ) from None


def _check_facets(
    src: Source, facets: str | Sequence[str] | None
) -> tuple[tuple[str, ...], dict[str, str]]:
    """Facet columns, read from the rows in memory with the labels, and the facet each was
    named (``o=occasion``; :func:`accord.agreement.gtheory_design.facet_specs`)."""
    from ..agreement.gtheory_design import FACET_SPELLING, facet_specs

    if facets is None:
        return (), {}
    specs = facet_specs(facets, "facets")
    if not specs:
        raise InvalidInputError(f"facets takes {FACET_SPELLING} (or a list); got {facets!r}")
    if src.label is None:
        raise InvalidInputError("facets are read with the labels: give the label column too")
    if src.engine != "memory" or isinstance(src.data, Ratings):
        raise InvalidInputError(
            "facets are read from the rows: give a file or a data frame, with engine='memory'"
        )
    names: dict[str, str] = {}
    for name, column in specs:
        if name is not None and names.setdefault(column, name) != name:
            raise InvalidInputError(
                f"facets name the column {column!r} twice: {names[column]!r} and {name!r}"
            )
    return tuple(dict.fromkeys(column for _, column in specs)), names


def _check(src: Source, gold: str | None) -> None:
    """The options of :func:`report` that go together, and the engine's needs."""
    data, label, engine, duplicates = src.data, src.label, src.engine, src.duplicates
    if gold is not None and label is None:
        raise InvalidInputError(
            "a gold column is compared with the raters' labels: give the label column too"
        )
    if (src.confidence is None) != (src.correct is None):
        raise InvalidInputError("confidence and correct go together: give both columns or neither")
    nothing = label is None and not src.scores and src.confidence is None
    if nothing and not isinstance(data, Ratings) and src.from_ is None and src.field is None:
        from ..data.spans import Spans

        if not isinstance(data, Spans):
            raise InvalidInputError(
                "nothing to report on: give a label column, score columns, or confidence and "
                "correct columns"
            )
    if engine not in ("memory", "stream", "dask"):
        raise InvalidInputError(f"engine must be 'memory', 'stream' or 'dask'; got {engine!r}")
    if engine != "memory":
        if not isinstance(data, str | os.PathLike):
            raise InvalidInputError(
                f"engine={engine!r} reads the ratings from files: pass a path, or use the "
                "memory engine"
            )
        if duplicates == "mean":
            raise InvalidInputError(
                f"{option('duplicates', 'mean')} applies to the memory engine; with "
                f"{option('engine', engine)} pass {option('duplicates', 'first', 'last')}"
            )
