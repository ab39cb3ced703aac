"""Span annotations: who marked which stretch of which document with what label.

The data model of text markup, read by :func:`accord.read_spans`, :func:`accord.read_brat`
and :func:`accord.read_bio` and measured by :func:`accord.span_agreement`. The vocabulary
follows annotation practice: an *annotator* is what accord elsewhere calls a rater, a
*document* holds many items (the spans), and a span's *label* is its category.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import DroppedDataWarning, InvalidInputError
from .._results import Result
from .._types import FloatArray, IntArray
from .._validate import at_rows, check_choice, require_columns
from .frames import frame_to_pandas

__all__ = ["SpanUnit", "Spans", "encode_spans"]

SpanUnit: TypeAlias = Literal["character", "token", "millisecond"]
"""What the offsets count: characters of the text, tokens (BIO input), or milliseconds
(audio, RTTM input)."""


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Spans(Result):
    """Validated span annotations: who marked which stretch of which document with what label.

    Build one with :meth:`Spans.from_frame`, :func:`accord.read_spans`,
    :func:`accord.read_brat` or :func:`accord.read_bio`. Offsets are 0-based and ``end`` is
    exclusive, as in Python slicing and brat standoff. Spans are kept sorted by annotator,
    document, start, end and label; annotators, documents and labels are sorted names.

    Attributes
    ----------
    annotator, document, label : ndarray of int, shape (n_spans,)
        Codes into ``annotators``, ``documents`` and ``labels``.
    start, end : ndarray of int, shape (n_spans,)
        Offsets, ``0 <= start < end`` (and ``end <= length`` where the length is known).
    annotators, documents, labels : tuple of str
        The decode tables. ``annotators`` includes annotators with no spans;
        ``documents`` includes documents nobody marked anything in.
    unit : {"character", "token", "millisecond"}
        What the offsets count.
    texts : mapping of str to str
        Document texts, where known (needed by ``match="token"`` on character offsets).
    lengths : mapping of str to int
        Document lengths in ``unit``, where known; offsets are checked against them.
    source : str or None
        Where the spans came from.
    notes : tuple of str
        What a reader skipped or interpreted, in words (e.g. discontinuous spans split,
        duplicate spans counted once, covered texts that differ from the document text).
    """

    annotator: IntArray
    document: IntArray
    start: IntArray
    end: IntArray
    label: IntArray
    annotators: tuple[str, ...]
    documents: tuple[str, ...]
    labels: tuple[str, ...]
    unit: SpanUnit = "character"
    texts: Mapping[str, str] = dataclasses.field(default_factory=dict)
    lengths: Mapping[str, int] = dataclasses.field(default_factory=dict)
    source: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def n_spans(self) -> int:
        """Number of spans."""
        return int(self.start.size)

    @property
    def n_annotators(self) -> int:
        """Number of annotators, those with no spans included."""
        return len(self.annotators)

    @property
    def n_documents(self) -> int:
        """Number of documents."""
        return len(self.documents)

    @property
    def annotators_without_spans(self) -> tuple[str, ...]:
        """Annotators who marked nothing in any document."""
        used = np.bincount(self.annotator, minlength=len(self.annotators))
        return tuple(a for a, n in zip(self.annotators, used, strict=True) if n == 0)

    def __repr__(self) -> str:
        return (
            f"Spans({self.n_spans} spans by {self.n_annotators} annotators in "
            f"{self.n_documents} documents, {len(self.labels)} labels, {self.unit} offsets)"
        )

    def to_frame(self) -> pd.DataFrame:
        """The spans as a long table: annotator, document, start, end, label."""
        return pd.DataFrame(
            {
                "annotator": np.asarray(self.annotators, dtype=object)[self.annotator],
                "document": np.asarray(self.documents, dtype=object)[self.document],
                "start": self.start,
                "end": self.end,
                "label": np.asarray(self.labels, dtype=object)[self.label],
            }
        )

    @classmethod
    def from_frame(
        cls,
        frame: Any,
        *,
        annotator: str = "annotator",
        document: str = "document",
        start: str = "start",
        end: str = "end",
        label: str | None = "label",
        texts: Mapping[Any, str] | None = None,
        annotators: Sequence[Any] | None = None,
        unit: SpanUnit = "character",
        source: str | None = None,
    ) -> Spans:
        """Spans from a long table, one row per span.

        Parameters
        ----------
        frame : DataFrame
            A pandas, polars, pyarrow or DuckDB table.
        annotator, document, start, end : str
            Column names. Offsets are 0-based integers with ``end`` exclusive.
        label : str or None, default "label"
            Column of span labels; None when the spans carry no label.
        texts : mapping of document to str, optional
            Document texts: offsets are checked against their lengths, and
            ``match="token"`` tokenises them.
        annotators : sequence, optional
            Every annotator who took part. Annotators listed here but absent from the table
            are kept as annotators with no spans.
        unit : {"character", "token", "millisecond"}, default "character"
            What the offsets count.
        source : str, optional
            Where the table came from, for messages.

        Returns
        -------
        Spans

        Raises
        ------
        ColumnNotFoundError
            A named column is missing.
        InvalidInputError
            Non-integer or negative offsets, ``end <= start``, an offset past the end of its
            document's text, a missing annotator, document or label, or an empty table.

        Notes
        -----
        A row whose ``start`` and ``end`` are both missing declares that the annotator saw the
        document and marked nothing in it; it adds the annotator and the document without a
        span. Every annotator is taken to have annotated every document in the input. A span
        given twice by one annotator (same document, offsets and label) is counted once; the
        repeats are counted in ``notes`` and a :class:`~accord.DroppedDataWarning` says so.

        Examples
        --------
        >>> import pandas as pd, accord
        >>> df = pd.DataFrame({"annotator": ["a", "b", "c"], "document": ["d1"] * 3,
        ...                    "start": [0, 0, None], "end": [7, 7, None],
        ...                    "label": ["DRUG", "DRUG", None]})
        >>> s = accord.Spans.from_frame(df)
        >>> s
        Spans(2 spans by 3 annotators in 1 documents, 1 labels, character offsets)
        >>> s.annotators_without_spans
        ('c',)
        """
        check_choice("unit", unit, ("character", "token", "millisecond"), "Spans.from_frame")
        data = frame if isinstance(frame, pd.DataFrame) else frame_to_pandas(frame)
        names = [annotator, document, start, end] + ([label] if label is not None else [])
        require_columns(names, list(data.columns), where=source or None)
        if len(data) == 0 and not annotators:
            raise InvalidInputError("the span table is empty")
        ann_raw = data[annotator].to_numpy(dtype=object)
        doc_raw = data[document].to_numpy(dtype=object)
        lab_raw = (
            data[label].to_numpy(dtype=object)
            if label is not None
            else np.full(len(data), "", dtype=object)
        )
        starts = _offsets(data[start], start)
        ends = _offsets(data[end], end)
        for values, name in ((ann_raw, annotator), (doc_raw, document)):
            bad = np.flatnonzero(pd.isna(values))
            if bad.size:
                raise InvalidInputError(f"column {name!r} is missing in {at_rows(bad)}")
        s_missing, e_missing = np.isnan(starts), np.isnan(ends)
        half = np.flatnonzero(s_missing != e_missing)
        if half.size:
            raise InvalidInputError(
                f"{at_rows(half)} {'has' if len(half) == 1 else 'have'} one of {start!r} and "
                f"{end!r} but not the other; "
                "a row with neither declares an annotator who marked nothing in the document"
            )
        is_span = ~s_missing
        if label is not None:
            bad = np.flatnonzero(is_span & pd.isna(lab_raw))
            if bad.size:
                raise InvalidInputError(f"column {label!r} is missing in {at_rows(bad)}")
        ann_str = np.array([str(a) for a in ann_raw], dtype=object)
        doc_str = np.array([str(d) for d in doc_raw], dtype=object)
        lab_str = np.array(["" if pd.isna(x) else str(x) for x in lab_raw], dtype=object)
        declared = [str(a) for a in annotators] if annotators is not None else []
        annotator_names = tuple(sorted(set(ann_str.tolist()) | set(declared)))
        document_names = tuple(sorted(set(doc_str.tolist())))
        text_map = {str(k): v for k, v in (texts or {}).items()}
        lengths = {d: len(t) for d, t in text_map.items()}
        return encode_spans(
            ann_str[is_span],
            doc_str[is_span],
            starts[is_span],
            ends[is_span],
            lab_str[is_span],
            annotator_names=annotator_names,
            document_names=document_names,
            rows=np.flatnonzero(is_span),
            unit=unit,
            texts=text_map,
            lengths=lengths,
            source=source,
            notes=(),
            columns=(start, end),
        )


def _drop_duplicates(
    ann: IntArray,
    doc: IntArray,
    start: IntArray,
    end: IntArray,
    lab: IntArray,
    *,
    names: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]],
    where: str,
) -> tuple[npt.NDArray[np.bool_], str | None]:
    """Which of the sorted spans to keep (the first of each run of identical spans), and a
    note on those dropped (also a :class:`~accord.DroppedDataWarning`).

    One annotator cannot mark the same stretch with the same label twice: a repeat (a line
    copied twice in a .ann file, a duplicated row) would be counted as a second span and
    lower every F1 that involves the annotator.
    """
    keep = np.ones(ann.size, dtype=bool)
    if ann.size > 1:
        keep[1:] = (
            (ann[1:] != ann[:-1])
            | (doc[1:] != doc[:-1])
            | (start[1:] != start[:-1])
            | (end[1:] != end[:-1])
            | (lab[1:] != lab[:-1])
        )
    n_dropped = int(ann.size - keep.sum())
    if n_dropped == 0:
        return keep, None
    annotators, documents, labels = names
    first = int(np.flatnonzero(~keep)[0])
    label = f" {labels[lab[first]]!r}" if labels[lab[first]] else ""
    note = (
        f"dropped {n_dropped} duplicate span{'' if n_dropped == 1 else 's'} (the same "
        "annotator, document, offsets and label given again; each counted once); first: "
        f"annotator {annotators[ann[first]]!r}, document {documents[doc[first]]!r}, "
        f"{start[first]}-{end[first]}{label}"
    )
    warnings.warn(where + note, DroppedDataWarning, stacklevel=4)
    return keep, note


def _encode(values: npt.NDArray[Any], names: tuple[str, ...]) -> IntArray:
    lookup = {n: i for i, n in enumerate(names)}
    return np.fromiter((lookup[v] for v in values.tolist()), dtype=np.int64, count=values.size)


def _offsets(column: Any, name: str) -> FloatArray:
    """Offsets as floats (NaN where missing); raises on non-integers."""
    values: FloatArray = np.asarray(
        pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan),
        dtype=np.float64,
    )
    raw_missing = pd.isna(column).to_numpy()
    bad = np.flatnonzero(np.isnan(values) & ~raw_missing)
    if bad.size:
        raise InvalidInputError(
            f"column {name!r} must hold integer offsets; {at_rows(bad)} "
            f"{'does' if len(bad) == 1 else 'do'} not "
            f"(first: {column.iloc[bad[0]]!r})"
        )
    finite = ~np.isnan(values)
    bad = np.flatnonzero(finite & (values != np.round(values)))
    if bad.size:
        raise InvalidInputError(
            f"column {name!r} must hold integer offsets; {at_rows(bad)} "
            f"{'does' if len(bad) == 1 else 'do'} not "
            f"(first: {float(values[bad[0]])!r})"
        )
    return values


def encode_spans(
    ann: npt.NDArray[Any],
    doc: npt.NDArray[Any],
    starts: npt.NDArray[Any],
    ends: npt.NDArray[Any],
    labs: npt.NDArray[Any],
    *,
    annotator_names: tuple[str, ...],
    document_names: tuple[str, ...],
    rows: IntArray,
    unit: SpanUnit,
    texts: Mapping[str, str],
    lengths: Mapping[str, int],
    source: str | None,
    notes: tuple[str, ...],
    columns: tuple[str, str] = ("start", "end"),
) -> Spans:
    """Validate decoded span columns and encode them as a :class:`Spans`.

    Parameters
    ----------
    ann, doc, labs : ndarray of str, shape (n,)
        Annotator, document and label of each span.
    starts, ends : ndarray of float or int, shape (n,)
        Offsets, 0-based, ``end`` exclusive.
    annotator_names, document_names : tuple of str
        Every annotator and document (those without spans included), sorted.
    rows : ndarray of int, shape (n,)
        0-based row (or line) of each span in the input, for messages.
    unit, texts, lengths, source, notes
        As the attributes of :class:`Spans`.
    columns : tuple of str
        Names of the offset columns, for messages.

    Returns
    -------
    Spans
        Sorted by annotator, document, start, end and label; a span repeated by one
        annotator is kept once (a note and a :class:`~accord.DroppedDataWarning` say so).

    Raises
    ------
    InvalidInputError
        A negative offset, ``end <= start``, or a span past the end of its document.
    """
    s = np.asarray(starts, dtype=np.float64)
    e = np.asarray(ends, dtype=np.float64)
    where = f"{source}: " if source else ""
    bad = np.flatnonzero(s < 0)
    if bad.size:
        raise InvalidInputError(
            f"{where}negative {columns[0]!r} in {at_rows(rows[bad])} "
            f"(first: {s[bad[0]]:g}); offsets are 0-based"
        )
    bad = np.flatnonzero(e <= s)
    if bad.size:
        raise InvalidInputError(
            f"{where}spans with end <= start in {at_rows(rows[bad])} (first: start "
            f"{s[bad[0]]:g}, end {e[bad[0]]:g}); end is exclusive, so a span needs end > start"
        )
    doc_codes = _encode(doc, document_names)
    if lengths:
        limit = np.array([lengths.get(d, -1) for d in document_names], dtype=np.int64)[doc_codes]
        bad = np.flatnonzero((limit >= 0) & (e > limit))
        if bad.size:
            i = bad[0]
            raise InvalidInputError(
                f"{where}spans end past their document in {at_rows(rows[bad])} (first: "
                f"document {doc[i]!r} has {limit[i]} {unit}s, span ends at {e[i]:g})"
            )
    label_names = tuple(sorted(set(labs.tolist())))
    ann_codes = _encode(ann, annotator_names)
    lab_codes = _encode(labs, label_names)
    s_int, e_int = s.astype(np.int64), e.astype(np.int64)
    order = np.lexsort((lab_codes, e_int, s_int, doc_codes, ann_codes))
    keep, duplicate_note = _drop_duplicates(
        ann_codes[order],
        doc_codes[order],
        s_int[order],
        e_int[order],
        lab_codes[order],
        names=(annotator_names, document_names, label_names),
        where=where,
    )
    if duplicate_note:
        notes = (*notes, duplicate_note)
    order = order[keep]
    return Spans(
        annotator=ann_codes[order],
        document=doc_codes[order],
        start=s_int[order],
        end=e_int[order],
        label=lab_codes[order],
        annotators=annotator_names,
        documents=document_names,
        labels=label_names,
        unit=unit,
        texts=dict(texts),
        lengths=dict(lengths),
        source=source,
        notes=notes,
    )
