"""Annotations as partitions of a continuum: every annotator's units and the gaps between
them, laid end to end over the documents, and the elementary stretches where nobody's
segment changes."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np

from .._errors import InvalidInputError
from .._types import IntArray
from .._validate import counted
from ..data.spans import Spans

__all__ = ["GAP", "Partition", "document_lengths", "partition"]

GAP = -1
"""The value of a gap (a stretch an annotator left unmarked)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Partition:
    """Every annotator's segments (units and gaps) on one global axis; shapes (n,) each.

    Documents are laid end to end (document ``d`` starts at ``offset[d]``), so a segment
    never crosses a document boundary: a gap at the end of one document and one at the
    start of the next stay two gaps. Segments are sorted by annotator, then start; each
    annotator's segments cover ``[0, total)`` exactly once.
    """

    annotator: IntArray
    start: IntArray
    end: IntArray
    value: IntArray
    n_annotators: int
    total: int

    @property
    def length(self) -> IntArray:
        """Segment lengths, shape (n,)."""
        return self.end - self.start

    def elementary(self) -> tuple[IntArray, IntArray, IntArray]:
        """The elementary stretches between consecutive boundaries of all annotators.

        Returns ``(starts, lengths, segment)``: shapes (u,), (u,) and (m, u), where
        ``segment[i, t]`` indexes the segment of annotator ``i`` covering stretch ``t``.
        """
        bounds = np.unique(np.concatenate([self.start, [self.total]]))
        starts = bounds[:-1]
        lengths = np.diff(bounds)
        first = np.searchsorted(self.annotator, np.arange(self.n_annotators), side="left")
        last = np.searchsorted(self.annotator, np.arange(self.n_annotators), side="right")
        segment = np.empty((self.n_annotators, starts.size), dtype=np.int64)
        for i in range(self.n_annotators):
            own = self.start[first[i] : last[i]]
            segment[i] = first[i] + np.searchsorted(own, starts, side="right") - 1
        return starts, lengths, segment


def document_lengths(
    data: Spans, lengths: Mapping[str, int] | None
) -> tuple[IntArray, tuple[str, ...]]:
    """The length of each document's continuum: ``lengths`` where given, else the known
    text length (``Spans.lengths``), else the last end any annotator marked there.

    Returns the lengths, shape (n_documents,), and the documents whose length was taken
    from the last end.
    """
    given = {str(k): int(v) for k, v in (lengths or {}).items()}
    unknown = set(given) - set(data.documents)
    if unknown:
        raise InvalidInputError(
            f"lengths names documents that are not in the spans: {sorted(unknown)[:5]}"
        )
    last = np.zeros(data.n_documents, dtype=np.int64)
    if data.n_spans:
        np.maximum.at(last, data.document, data.end)
    out = np.empty(data.n_documents, dtype=np.int64)
    guessed = []
    for d, name in enumerate(data.documents):
        if name in given:
            if given[name] < last[d]:
                raise InvalidInputError(
                    f"document {name!r} is given length {given[name]}, but a span ends at {last[d]}"
                )
            out[d] = given[name]
        elif name in data.lengths:
            out[d] = data.lengths[name]
        else:
            out[d] = last[d]
            guessed.append(name)
    return out, tuple(guessed)


def partition(
    data: Spans,
    doc_length: IntArray,
    keep: np.ndarray | None = None,
    *,
    owner: str,
) -> Partition:
    """The partition of the continuum by each annotator: the spans selected by ``keep``
    (all by default) as units valued by their label code, and the gaps between them.

    Raises when two units of one annotator overlap (unitizing measures take each
    annotator's units to be mutually exclusive).
    """
    sel = np.ones(data.n_spans, dtype=bool) if keep is None else keep
    offset = np.concatenate([[0], np.cumsum(doc_length)[:-1]]).astype(np.int64)
    total = int(doc_length.sum())
    m, n_docs = data.n_annotators, data.n_documents
    ann, doc = data.annotator[sel], data.document[sel]
    start = data.start[sel] + offset[doc]
    end = data.end[sel] + offset[doc]
    value = data.label[sel]
    order = np.lexsort((end, start, ann))
    ann, doc, start, end, value = ann[order], doc[order], start[order], end[order], value[order]
    _check_no_overlap(data, ann, doc, start, end, offset, owner, value)
    # each (annotator, document) cell: the first unit's gap starts at the document start,
    # every other one at the end of the previous unit; the last unit leaves a trailing gap
    cell = ann * n_docs + doc
    first = np.ones(ann.size, dtype=bool)
    first[1:] = cell[1:] != cell[:-1]
    last = np.ones(ann.size, dtype=bool)
    last[:-1] = cell[1:] != cell[:-1]
    gap_start = np.where(first, offset[doc], np.roll(end, 1))
    cell_end = offset[doc] + doc_length[doc]
    empty = np.setdiff1d(np.arange(m * n_docs), cell)
    empty_ann, empty_doc = empty // n_docs, empty % n_docs
    parts = (
        (ann, start, end, value),
        (ann, gap_start, start, np.full(ann.size, GAP)),
        (ann[last], end[last], cell_end[last], np.full(int(last.sum()), GAP)),
        (
            empty_ann,
            offset[empty_doc],
            offset[empty_doc] + doc_length[empty_doc],
            np.full(empty.size, GAP),
        ),
    )
    a = np.concatenate([p[0] for p in parts]).astype(np.int64)
    s = np.concatenate([p[1] for p in parts]).astype(np.int64)
    e = np.concatenate([p[2] for p in parts]).astype(np.int64)
    v = np.concatenate([p[3] for p in parts]).astype(np.int64)
    nonempty = e > s
    a, s, e, v = a[nonempty], s[nonempty], e[nonempty], v[nonempty]
    order = np.lexsort((s, a))
    return Partition(a[order], s[order], e[order], v[order], m, total)


def _check_no_overlap(
    data: Spans,
    ann: IntArray,
    doc: IntArray,
    start: IntArray,
    end: IntArray,
    offset: IntArray,
    owner: str,
    value: IntArray,
) -> None:
    """Raise naming the first two units of one annotator that overlap: the unitizing
    alphas partition each annotator's continuum into units and gaps, every stretch one
    value (Krippendorff et al. 2016; Krippendorff 2019, section 12.6)."""
    if ann.size < 2:
        return
    same = (ann[1:] == ann[:-1]) & (doc[1:] == doc[:-1])
    bad = np.flatnonzero(same & (start[1:] < end[:-1]))
    if bad.size == 0:
        return
    i = int(bad[0])
    shift = int(offset[doc[i]])
    first = f"{data.labels[value[i]]!r} {start[i] - shift}-{end[i] - shift}"
    second = f"{data.labels[value[i + 1]]!r} {start[i + 1] - shift}-{end[i + 1] - shift}"
    raise InvalidInputError(
        f"{owner} takes each annotator's units to be mutually exclusive (a partition of "
        f"the continuum into units and gaps), but {counted(bad.size, 'unit')} "
        f"{'overlaps' if bad.size == 1 else 'overlap'} the one "
        f"before; first: annotator {data.annotators[ann[i]]!r}, document "
        f"{data.documents[doc[i]]!r}, {first} and {second} (merge or drop overlapping "
        "units, or measure per label)"
    )
