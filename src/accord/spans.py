"""Agreement on text markup: span-level F1 across annotators, where negatives cannot be counted.

Annotators mark spans ``(document, start, end, label)`` in the same documents. The phrases that
nobody marked cannot be counted, so a chance-corrected coefficient such as kappa (which needs
the count of cases both annotators called negative) is unavailable. What is available is the
F-measure of one annotator against another, which equals the positive specific agreement
``2a / (2a + b + c)`` (Hripcsak & Rothschild 2005). :func:`span_agreement` reports it per
annotator pair, its mean and population SD over pairs, and the pooled F1, overall and per label
or per document.

The vocabulary follows annotation practice: an *annotator* is what accord elsewhere calls a
rater, a *document* holds many items (the spans), and a span's *label* is its category.
"""

from __future__ import annotations

import dataclasses
import math
import re
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

from ._errors import (
    AccordWarning,
    DroppedDataWarning,
    InvalidInputError,
    warn_degenerate,
)
from ._results import Result, to_plain
from ._types import FloatArray, IntArray
from ._validate import check_choice, format_rows, require_columns
from .data.frames import frame_to_pandas

__all__ = ["SpanAgreement", "SpanBy", "SpanMatch", "SpanUnit", "Spans", "span_agreement"]

SpanMatch: TypeAlias = Literal["exact", "overlap", "token"]
"""How two spans are matched: same offsets, any overlap, or token by token."""

SpanBy: TypeAlias = Literal["label", "document"]
"""The breakdown reported beside the overall figures."""

SpanUnit: TypeAlias = Literal["character", "token"]
"""What the offsets count: characters of the text, or tokens (BIO input)."""

_TOKEN = re.compile(r"\w+|[^\w\s]")
"""Tokens for ``match="token"`` on character offsets: runs of word characters, or one other
non-space character."""


def _as_str_tuple(values: npt.NDArray[Any]) -> tuple[str, ...]:
    return tuple(str(v) for v in values)


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
    unit : {"character", "token"}
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
        unit : {"character", "token"}, default "character"
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
        check_choice("unit", unit, ("character", "token"), "Spans.from_frame")
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
                raise InvalidInputError(f"column {name!r} is missing in rows {format_rows(bad)}")
        s_missing, e_missing = np.isnan(starts), np.isnan(ends)
        half = np.flatnonzero(s_missing != e_missing)
        if half.size:
            raise InvalidInputError(
                f"rows {format_rows(half)} have one of {start!r} and {end!r} but not the other; "
                "a row with neither declares an annotator who marked nothing in the document"
            )
        is_span = ~s_missing
        if label is not None:
            bad = np.flatnonzero(is_span & pd.isna(lab_raw))
            if bad.size:
                raise InvalidInputError(f"column {label!r} is missing in rows {format_rows(bad)}")
        ann_str = np.array([str(a) for a in ann_raw], dtype=object)
        doc_str = np.array([str(d) for d in doc_raw], dtype=object)
        lab_str = np.array(["" if pd.isna(x) else str(x) for x in lab_raw], dtype=object)
        declared = [str(a) for a in annotators] if annotators is not None else []
        annotator_names = tuple(sorted(set(ann_str.tolist()) | set(declared)))
        document_names = tuple(sorted(set(doc_str.tolist())))
        text_map = {str(k): v for k, v in (texts or {}).items()}
        lengths = {d: len(t) for d, t in text_map.items()}
        return cls._build(
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

    @classmethod
    def _build(
        cls,
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
        """Validate decoded columns (strings and float or int offsets) and encode them."""
        s = np.asarray(starts, dtype=np.float64)
        e = np.asarray(ends, dtype=np.float64)
        where = f"{source}: " if source else ""
        bad = np.flatnonzero(s < 0)
        if bad.size:
            raise InvalidInputError(
                f"{where}negative {columns[0]!r} in rows {format_rows(rows[bad])} "
                f"(first: {s[bad[0]]:g}); offsets are 0-based"
            )
        bad = np.flatnonzero(e <= s)
        if bad.size:
            raise InvalidInputError(
                f"{where}spans with end <= start in rows {format_rows(rows[bad])} (first: start "
                f"{s[bad[0]]:g}, end {e[bad[0]]:g}); end is exclusive, so a span needs end > start"
            )
        doc_codes = _encode(doc, document_names)
        if lengths:
            limit = np.array([lengths.get(d, -1) for d in document_names], dtype=np.int64)[
                doc_codes
            ]
            bad = np.flatnonzero((limit >= 0) & (e > limit))
            if bad.size:
                i = bad[0]
                raise InvalidInputError(
                    f"{where}spans end past their document in rows {format_rows(rows[bad])} "
                    f"(first: document {doc[i]!r} has {limit[i]} {unit}s, span ends at {e[i]:g})"
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
        return cls(
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
            f"column {name!r} must hold integer offsets; rows {format_rows(bad)} do not "
            f"(first: {column.iloc[bad[0]]!r})"
        )
    finite = ~np.isnan(values)
    bad = np.flatnonzero(finite & (values != np.round(values)))
    if bad.size:
        raise InvalidInputError(
            f"column {name!r} must hold integer offsets; rows {format_rows(bad)} do not "
            f"(first: {float(values[bad[0]])!r})"
        )
    return values


# ----------------------------------------------------------------------------------------
# matching


@dataclasses.dataclass(frozen=True, slots=True)
class _Side:
    """One annotator's spans: shapes (n,) each."""

    document: IntArray
    label: IntArray
    start: IntArray
    end: IntArray


def _match_overlap(a: _Side, b: _Side) -> tuple[IntArray, IntArray]:
    """One-to-one matching of overlapping spans with equal document and label.

    Maximises the total overlap (in offset units), then the number of matched pairs.
    Returns index arrays ``(ia, ib)`` into ``a`` and ``b``, one entry per matched pair.

    Spans are swept in (document, label, start) order and cut into clusters of chained
    overlaps: spans in different clusters cannot overlap, so each cluster is solved on its
    own, a 1 x 1 cluster directly and larger ones with an assignment problem whose weights
    are ``K * overlap + 1`` for overlapping pairs (``K`` larger than any possible number of
    pairs, so total overlap comes first and the count breaks ties).
    """
    n_a, n_b = a.start.size, b.start.size
    empty = np.zeros(0, dtype=np.int64)
    if n_a == 0 or n_b == 0:
        return empty, empty
    doc = np.concatenate([a.document, b.document])
    lab = np.concatenate([a.label, b.label])
    start = np.concatenate([a.start, b.start])
    end = np.concatenate([a.end, b.end])
    side = np.concatenate([np.zeros(n_a, np.int64), np.ones(n_b, np.int64)])
    index = np.concatenate([np.arange(n_a), np.arange(n_b)])
    order = np.lexsort((end, start, lab, doc))
    doc, lab, start, end = doc[order], lab[order], start[order], end[order]
    side, index = side[order], index[order]
    new_group = np.ones(order.size, dtype=bool)
    new_group[1:] = (doc[1:] != doc[:-1]) | (lab[1:] != lab[:-1])
    group = np.cumsum(new_group) - 1
    # shift each (document, label) group past the previous one so one running max serves all
    shift = group * (int(end.max()) + 1)
    reach = np.maximum.accumulate(end + shift)
    new_cluster = np.ones(order.size, dtype=bool)
    new_cluster[1:] = (start[1:] + shift[1:]) >= reach[:-1]
    cluster = np.cumsum(new_cluster) - 1
    n_clusters = int(cluster[-1]) + 1
    count_a = np.bincount(cluster, weights=(side == 0), minlength=n_clusters).astype(np.int64)
    count_b = np.bincount(cluster, weights=(side == 1), minlength=n_clusters).astype(np.int64)
    first = np.flatnonzero(new_cluster)
    out_a: list[IntArray] = []
    out_b: list[IntArray] = []
    # 1 x 1 clusters: the two spans overlap (they chain), so they match
    simple = np.flatnonzero((count_a == 1) & (count_b == 1))
    if simple.size:
        p, q = first[simple], first[simple] + 1
        out_a.append(np.where(side[p] == 0, index[p], index[q]))
        out_b.append(np.where(side[p] == 1, index[p], index[q]))
    hard = np.flatnonzero((count_a >= 1) & (count_b >= 1) & (count_a + count_b > 2))
    if hard.size:
        from scipy.optimize import linear_sum_assignment

        bounds = np.append(first, order.size)
        for c in hard.tolist():
            sl = slice(int(bounds[c]), int(bounds[c + 1]))
            s_side, s_index = side[sl], index[sl]
            s_start, s_end = start[sl], end[sl]
            in_a, in_b = s_side == 0, s_side == 1
            overlap = np.minimum.outer(s_end[in_a], s_end[in_b]) - np.maximum.outer(
                s_start[in_a], s_start[in_b]
            )
            overlap = np.maximum(overlap, 0)
            k = min(int(in_a.sum()), int(in_b.sum())) + 1
            weight = np.where(overlap > 0, overlap * k + 1, 0).astype(np.float64)
            rows, cols = linear_sum_assignment(weight, maximize=True)
            keep = overlap[rows, cols] > 0
            out_a.append(s_index[in_a][rows[keep]])
            out_b.append(s_index[in_b][cols[keep]])
    if not out_a:
        return empty, empty
    return np.concatenate(out_a).astype(np.int64), np.concatenate(out_b).astype(np.int64)


def _match_exact(a: _Side, b: _Side) -> tuple[IntArray, IntArray]:
    """One-to-one matching of identical spans (document, start, end, label).

    A span marked twice by one annotator can match twice only if the other annotator also
    marked it twice (multiset intersection). Returns index arrays ``(ia, ib)``.
    """
    empty = np.zeros(0, dtype=np.int64)
    if a.start.size == 0 or b.start.size == 0:
        return empty, empty
    keys_a = np.stack([a.document, a.label, a.start, a.end], axis=1)
    keys_b = np.stack([b.document, b.label, b.start, b.end], axis=1)
    both = np.concatenate([keys_a, keys_b])
    _, key = np.unique(both, axis=0, return_inverse=True)
    key = key.reshape(-1)
    ka, kb = key[: a.start.size], key[a.start.size :]
    # rank of each span among the equal spans of its annotator: the r-th copy pairs with
    # the r-th copy on the other side
    oa, ob = np.argsort(ka, kind="stable"), np.argsort(kb, kind="stable")
    ra, rb = _rank_within(ka[oa]), _rank_within(kb[ob])
    code_a = ka[oa] * (max(ra.max(), rb.max()) + 1) + ra
    code_b = kb[ob] * (max(ra.max(), rb.max()) + 1) + rb
    _, ia, ib = np.intersect1d(code_a, code_b, assume_unique=True, return_indices=True)
    return oa[ia].astype(np.int64), ob[ib].astype(np.int64)


def _rank_within(sorted_keys: IntArray) -> IntArray:
    """0, 1, 2, ... within each run of equal values of a sorted array."""
    n = sorted_keys.size
    new = np.ones(n, dtype=bool)
    new[1:] = sorted_keys[1:] != sorted_keys[:-1]
    starts = np.flatnonzero(new)
    run_start: IntArray = starts[np.cumsum(new) - 1]
    return np.arange(n, dtype=np.int64) - run_start


def _token_units(data: Spans) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Expand spans to one unit per token: (span index, document, unit start, unit end).

    Token offsets (``unit="token"``) expand directly. Character offsets need the document
    texts, tokenised with ``\\w+|[^\\w\\s]``; a span covers every token it overlaps.
    """
    if data.unit == "token":
        width = data.end - data.start
        span = np.repeat(np.arange(data.n_spans), width)
        offset = np.arange(span.size) - np.repeat(np.cumsum(width) - width, width)
        unit = data.start[span] + offset
        return span, data.document[span], unit, unit + 1
    spans_out: list[IntArray] = []
    units_out: list[IntArray] = []
    for d in np.unique(data.document).tolist():
        name = data.documents[d]
        if name not in data.texts:
            raise InvalidInputError(
                f"match='token' on character offsets needs the text of every document; "
                f"there is none for document {name!r} (give texts, or .txt files beside the "
                ".ann files)"
            )
        bounds = np.array(
            [(m.start(), m.end()) for m in _TOKEN.finditer(data.texts[name])], dtype=np.int64
        ).reshape(-1, 2)
        members = np.flatnonzero(data.document == d)
        lo = np.searchsorted(bounds[:, 1], data.start[members], side="right")
        hi = np.searchsorted(bounds[:, 0], data.end[members], side="left")
        width = np.maximum(hi - lo, 0)
        span = np.repeat(members, width)
        offset = np.arange(span.size) - np.repeat(np.cumsum(width) - width, width)
        spans_out.append(span)
        units_out.append(np.repeat(lo, width) + offset)
    span = np.concatenate(spans_out) if spans_out else np.zeros(0, np.int64)
    unit = np.concatenate(units_out) if units_out else np.zeros(0, np.int64)
    return span, data.document[span], unit, unit + 1


# ----------------------------------------------------------------------------------------
# the estimator


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class SpanAgreement(Result):
    """Pairwise F1 (= positive specific agreement) between annotators of spans.

    Attributes
    ----------
    name : str
        ``"span_agreement"``.
    statistic : float
        Mean over annotator pairs of the pairwise F1 (all labels and documents): the
        "average F-measure" of Hripcsak & Rothschild (2005). NaN when no pair has a span
        (see ``reason``).
    sd : float
        Population standard deviation of the pairwise F1 over pairs (divisor = number of
        pairs with a defined F1; 0 with a single pair).
    pooled : float
        Pooled F1: ``sum 2 TP / sum (|A| + |B|)`` over all pairs.
    n_pairs, n_pairs_defined : int
        Annotator pairs, and those with at least one span between them.
    n_annotators, n_documents, n_spans : int
        As read (annotators without spans and documents without spans included).
    n_units : int
        What was matched: spans (``exact``, ``overlap``) or span tokens (``token``).
    annotators, labels : tuple of str
    annotators_without_spans : tuple of str
        Annotators who marked nothing; they are kept, and their pairs have F1 0 (or NaN
        against another annotator who marked nothing).
    match : {"exact", "overlap", "token"}
    ignore_label : bool
    by : {"label", "document"} or None
    unit : {"character", "token"}
        What the offsets count.
    method : str
        The estimator and matching, in words.
    reason : str or None
        Why ``statistic`` is NaN, when it is.
    pairs : DataFrame
        One row per annotator pair: ``annotator_a``, ``annotator_b``, ``n_a``, ``n_b`` (units
        each marked), ``matched`` (TP), ``precision`` (``matched / n_a``: a judged against b
        as reference), ``recall`` (``matched / n_b``), ``f1`` (``2 matched / (n_a + n_b)``,
        NaN for 0/0).
    groups : DataFrame or None
        With ``by``: one row per label or document: the ``by`` column, ``n_units``,
        ``n_pairs``, ``n_pairs_defined``, ``mean_f1``, ``sd_f1``, ``pooled_f1``, ``reason``.
    group_pairs : DataFrame or None
        With ``by``: the ``pairs`` table per label or document (the ``by`` column first).
    notes : tuple of str
        What the reader skipped or interpreted.
    """

    name: str
    statistic: float
    sd: float
    pooled: float
    n_pairs: int
    n_pairs_defined: int
    n_annotators: int
    n_documents: int
    n_spans: int
    n_units: int
    annotators: tuple[str, ...]
    labels: tuple[str, ...]
    annotators_without_spans: tuple[str, ...]
    match: SpanMatch
    ignore_label: bool
    by: SpanBy | None
    unit: SpanUnit
    method: str
    reason: str | None
    pairs: pd.DataFrame = dataclasses.field(repr=False)
    groups: pd.DataFrame | None = dataclasses.field(default=None, repr=False)
    group_pairs: pd.DataFrame | None = dataclasses.field(default=None, repr=False)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of every field (tables as lists of records)."""
        return {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def span_agreement(
    spans: Spans | Any,
    *,
    match: SpanMatch = "exact",
    ignore_label: bool = False,
    by: SpanBy | None = "label",
    texts: Mapping[Any, str] | None = None,
    annotator: str = "annotator",
    document: str = "document",
    start: str = "start",
    end: str = "end",
    label: str | None = "label",
) -> SpanAgreement:
    r"""Agreement among annotators who mark spans: pairwise F1, its mean and SD, pooled F1.

    For annotators A and B with ``TP`` matched pairs of spans, summed over documents (micro
    within the pair),

    .. math::

        F_1(A, B) = \frac{2\,TP}{|A| + |B|}, \qquad
        \text{precision} = \frac{TP}{|A|}, \qquad \text{recall} = \frac{TP}{|B|},

    which is the positive specific agreement :math:`2a / (2a + b + c)` of the 2 x 2 table
    whose negative cell ``d`` is unknown. Over the :math:`m` annotator pairs,

    .. math::

        \bar F_1 = \frac{1}{m}\sum_{p} F_1(p), \qquad
        \mathrm{SD} = \sqrt{\frac{1}{m}\sum_p (F_1(p) - \bar F_1)^2}, \qquad
        F_1^{\text{pooled}} = \frac{\sum_p 2\,TP_p}{\sum_p (|A_p| + |B_p|)}.

    Parameters
    ----------
    spans : Spans or DataFrame
        A :class:`Spans`, or a long table with one row per span (pandas, polars, pyarrow or
        DuckDB) read with the column names below.
    match : {"exact", "overlap", "token"}, default "exact"
        ``"exact"``: same document, start, end and label. ``"overlap"``: same document and
        label and at least one shared offset unit, one-to-one, maximising the total overlap.
        ``"token"``: every span is expanded to the tokens it covers and the two multisets of
        (document, token, label) are intersected.
    ignore_label : bool, default False
        Match on position only (span-only agreement).
    by : {"label", "document"} or None, default "label"
        Also report the figures per label or per document. ``"label"`` cannot be combined
        with ``ignore_label=True``.
    texts : mapping of document to str, optional
        For a table: the document texts (offset check; tokens for ``match="token"``).
    annotator, document, start, end, label : str
        For a table: the column names (``label=None`` when spans carry no label).

    Returns
    -------
    SpanAgreement
        ``statistic`` (mean pairwise F1), ``sd``, ``pooled``, the ``pairs`` table, and with
        ``by`` the ``groups`` and ``group_pairs`` tables; see :class:`SpanAgreement`.

    Raises
    ------
    InvalidInputError
        Fewer than two annotators, an unknown option, or bad spans (see
        :meth:`Spans.from_frame`).

    Warns
    -----
    AccordWarning
        Some annotators marked no span at all (they are kept, not dropped).
    DegenerateDataWarning
        No pair has a span, so the mean F1 is 0/0.

    Notes
    -----
    **Why F1 and not kappa.** Kappa needs ``d``, the number of phrases both annotators left
    unmarked, which is undefined in text markup. Hripcsak & Rothschild (2005) show that the
    F-measure of one annotator against another equals positive specific agreement, is the
    same whichever annotator is the reference, and that kappa approaches it as ``d`` grows;
    with a modest ``d`` kappa would be lower, because F1 is not corrected for chance.

    **Conventions.** Offsets are 0-based, ``end`` exclusive. Every annotator is taken to have
    annotated every document in the input, so an annotator with no spans disagrees with
    every span of the others. TP, ``|A|`` and ``|B|`` are summed over documents before
    dividing (micro-averaging within a pair); the pair F1 is then averaged over pairs with
    equal weight and the population SD reported (the "average F-measure among
    pairs"), as the bratiaa tool computes it [4]_. Pairs where neither annotator marked
    anything have a NaN F1 (0/0) and are left out of the mean and SD, which
    ``n_pairs_defined`` counts (bratiaa's ``np.mean`` returns NaN instead). The
    pooled F1 weights pairs by how much they marked. With ``by="label"`` the matching is
    the same (it is always within a label), so per-label TP sum to the overall TP.

    ``"overlap"`` matching is one-to-one: a span is never matched twice. Among all
    one-to-one matchings of overlapping same-label spans it takes one with the largest total
    overlap, and among those one with the most pairs (an assignment problem per cluster of
    chained overlaps, solved exactly; greedy matching by largest overlap can give fewer
    pairs). ``"token"`` matching tokenises the texts with the regular expression
    ``\w+|[^\w\s]`` (BIO input is already in tokens); a token counts once per span covering
    it, so nested spans of one label count their shared tokens twice.

    No standard error is given: pairs share annotators, so they are not independent, and
    the natural resampling unit (documents) is often a single one.

    References
    ----------
    .. [1] Hripcsak, G., & Rothschild, A. S. (2005). Agreement, the F-measure, and
       reliability in information retrieval. *Journal of the American Medical Informatics
       Association*, 12(3), 296-298. https://doi.org/10.1197/jamia.M1733
    .. [2] Fleiss, J. L. (1975). Measuring agreement between two judges on the presence or
       absence of a trait. *Biometrics*, 31(3), 651-659. https://doi.org/10.2307/2529549
    .. [3] Brants, T. (2000). Inter-annotator agreement for a German newspaper corpus.
       *Proceedings of LREC 2000*.
    .. [4] bratiaa, inter-annotator agreement for brat projects, ``bratiaa/agree.py``
       (``F1Agreement.mean_sd_total``). https://github.com/kldtz/bratiaa

    Examples
    --------
    Three annotators mark drugs and diseases in one sentence (the vector of accord's span
    specification; the pair F1 are 6/9, 6/10 and 2/9):

    >>> import pandas as pd, accord
    >>> rows = [("ann1", "DRUG", 0, 7), ("ann1", "DISEASE", 16, 21), ("ann1", "DRUG", 26, 33),
    ...         ("ann1", "DISEASE", 44, 50), ("ann1", "DISEASE", 68, 77),
    ...         ("ann2", "DRUG", 0, 7), ("ann2", "DISEASE", 16, 21), ("ann2", "DRUG", 26, 33),
    ...         ("ann2", "DISEASE", 44, 62),
    ...         ("ann3", "DRUG", 0, 7), ("ann3", "DISEASE", 8, 21), ("ann3", "DISEASE", 44, 50),
    ...         ("ann3", "DISEASE", 68, 77), ("ann3", "DRUG", 54, 62)]
    >>> df = pd.DataFrame(rows, columns=["annotator", "label", "start", "end"])
    >>> df["document"] = "d1"
    >>> res = accord.span_agreement(df)
    >>> res.pairs[["annotator_a", "annotator_b", "matched", "f1"]].round(6)
      annotator_a annotator_b  matched        f1
    0        ann1        ann2        3  0.666667
    1        ann1        ann3        3  0.600000
    2        ann2        ann3        1  0.222222
    >>> round(res.statistic, 6), round(res.sd, 6), res.pooled
    (0.496296, 0.195701, 0.5)
    >>> res.groups[["label", "mean_f1", "sd_f1"]].round(3)
         label  mean_f1  sd_f1
    0  DISEASE    0.356  0.274
    1     DRUG    0.667  0.236
    >>> res = accord.span_agreement(df, match="overlap")
    >>> round(res.statistic, 6), round(res.pooled, 6)
    (0.785185, 0.785714)
    """
    owner = "span_agreement"
    check_choice("match", match, ("exact", "overlap", "token"), owner)
    check_choice("by", by, ("label", "document", None), owner)
    check_choice("ignore_label", ignore_label, (False, True), owner)
    if ignore_label and by == "label":
        raise InvalidInputError(
            "by='label' needs labels, but ignore_label=True matches spans across labels; "
            "pass by=None or by='document'"
        )
    if isinstance(spans, Spans):
        if texts is not None:
            raise InvalidInputError(
                "texts is for a table; a Spans carries its own texts (Spans.from_frame(texts=))"
            )
        data = spans
    else:
        data = Spans.from_frame(
            spans,
            annotator=annotator,
            document=document,
            start=start,
            end=end,
            label=label,
            texts=texts,
        )
    n_ann = data.n_annotators
    if n_ann < 2:
        raise InvalidInputError(
            f"span agreement needs at least two annotators; got {n_ann} "
            f"({', '.join(map(repr, data.annotators)) or 'none'})"
        )
    silent = data.annotators_without_spans
    if silent:
        warnings.warn(
            f"annotators with no spans: {', '.join(map(repr, silent))}; they are kept, and "
            "every span of the others counts as a disagreement with them",
            AccordWarning,
            stacklevel=2,
        )

    # units to match: spans, or (span, token) units
    if match == "token":
        span_of, doc_u, start_u, end_u = _token_units(data)
    else:
        span_of = np.arange(data.n_spans)
        doc_u, start_u, end_u = data.document, data.start, data.end
    ann_u = data.annotator[span_of]
    lab_u = np.zeros(span_of.size, np.int64) if ignore_label else data.label[span_of]
    if by == "label":
        group_u, group_names = lab_u, data.labels
    elif by == "document":
        group_u, group_names = doc_u, data.documents
    else:
        group_u, group_names = np.zeros(span_of.size, np.int64), ("",)
    n_groups = len(group_names)

    sizes = np.bincount(ann_u * n_groups + group_u, minlength=n_ann * n_groups).reshape(
        n_ann, n_groups
    )
    pair_list = [(i, j) for i in range(n_ann) for j in range(i + 1, n_ann)]
    matched = np.zeros((len(pair_list), n_groups), dtype=np.int64)
    matcher = _match_overlap if match == "overlap" else _match_exact
    sides = []
    for i in range(n_ann):
        sel = ann_u == i
        sides.append(_Side(doc_u[sel], lab_u[sel], start_u[sel], end_u[sel]))
    group_of = [group_u[ann_u == i] for i in range(n_ann)]
    for p, (i, j) in enumerate(pair_list):
        ia, _ = matcher(sides[i], sides[j])
        matched[p] = np.bincount(group_of[i][ia], minlength=n_groups)

    names = data.annotators
    size_a = sizes[[i for i, _ in pair_list]]
    size_b = sizes[[j for _, j in pair_list]]
    overall = _pair_table(names, pair_list, size_a.sum(1), size_b.sum(1), matched.sum(1))
    mean, sd, pooled, n_defined, reason = _summarise(overall)
    if reason is not None:
        warn_degenerate(reason)
    groups = group_pairs = None
    if by is not None:
        tables = []
        rows = []
        for g, gname in enumerate(group_names):
            table = _pair_table(names, pair_list, size_a[:, g], size_b[:, g], matched[:, g])
            g_mean, g_sd, g_pooled, g_defined, g_reason = _summarise(table)
            rows.append(
                {
                    by: gname,
                    "n_units": int(sizes[:, g].sum()),
                    "n_pairs": len(pair_list),
                    "n_pairs_defined": g_defined,
                    "mean_f1": g_mean,
                    "sd_f1": g_sd,
                    "pooled_f1": g_pooled,
                    "reason": g_reason,
                }
            )
            table.insert(0, by, gname)
            tables.append(table)
        groups = pd.DataFrame(rows)
        group_pairs = pd.concat(tables, ignore_index=True)
    return SpanAgreement(
        name="span_agreement",
        statistic=mean,
        sd=sd,
        pooled=pooled,
        n_pairs=len(pair_list),
        n_pairs_defined=n_defined,
        n_annotators=n_ann,
        n_documents=data.n_documents,
        n_spans=data.n_spans,
        n_units=int(span_of.size),
        annotators=data.annotators,
        labels=() if ignore_label else data.labels,
        annotators_without_spans=silent,
        match=match,
        ignore_label=ignore_label,
        by=by,
        unit=data.unit,
        method=_method(match, ignore_label),
        reason=reason,
        pairs=overall,
        groups=groups,
        group_pairs=group_pairs,
        notes=data.notes,
    )


def _pair_table(
    names: tuple[str, ...],
    pair_list: list[tuple[int, int]],
    n_a: IntArray,
    n_b: IntArray,
    tp: IntArray,
) -> pd.DataFrame:
    """Per-pair counts and precision, recall, F1 (NaN for 0/0); shapes (n_pairs,)."""
    n_a = np.asarray(n_a, dtype=np.int64)
    n_b = np.asarray(n_b, dtype=np.int64)
    tp = np.asarray(tp, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(n_a > 0, tp / np.maximum(n_a, 1), np.nan)
        recall = np.where(n_b > 0, tp / np.maximum(n_b, 1), np.nan)
        total = n_a + n_b
        f1 = np.where(total > 0, 2 * tp / np.maximum(total, 1), np.nan)
    return pd.DataFrame(
        {
            "annotator_a": [names[i] for i, _ in pair_list],
            "annotator_b": [names[j] for _, j in pair_list],
            "n_a": n_a,
            "n_b": n_b,
            "matched": tp,
            "precision": precision,
            "recall": recall,
            "f1": f1,
        }
    )


def _summarise(table: pd.DataFrame) -> tuple[float, float, float, int, str | None]:
    """Mean and population SD of the defined pair F1, pooled F1, count, reason."""
    f1 = table["f1"].to_numpy(dtype=np.float64)
    defined = f1[~np.isnan(f1)]
    total = int((table["n_a"] + table["n_b"]).sum())
    if defined.size == 0:
        reason = "no annotator pair has a span to compare (F1 is 0/0 for every pair)"
        return math.nan, math.nan, math.nan, 0, reason
    pooled = 2.0 * float(table["matched"].sum()) / total
    return float(defined.mean()), float(defined.std()), pooled, int(defined.size), None


def _method(match: SpanMatch, ignore_label: bool) -> str:
    what = "start and end" if ignore_label else "start, end and label"
    rule = {
        "exact": f"exact matching (same document, {what})",
        "overlap": (
            "overlap matching (same document"
            + ("" if ignore_label else " and label")
            + ", any shared offset; one-to-one, maximising total overlap, then pairs)"
        ),
        "token": (
            "token matching (spans expanded to tokens; multiset intersection of "
            + ("(document, token))" if ignore_label else "(document, token, label))")
        ),
    }[match]
    return (
        "pairwise F1 = 2 TP / (|A| + |B|) = positive specific agreement (Hripcsak & "
        "Rothschild 2005), TP summed over documents within each pair; mean and population "
        f"SD over annotator pairs; pooled F1 = sum 2 TP / sum (|A| + |B|); {rule}"
    )
