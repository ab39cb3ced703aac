"""What the readers of span annotations gather line by line or record by record before one
validated :class:`accord.Spans` is made of it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..data.spans import Spans, SpanUnit, encode_spans

__all__ = ["SpanColumns"]


@dataclasses.dataclass
class SpanColumns:
    """The spans a reader gathers, one list per column: who marked which stretch of which
    document, with which label.

    Examples
    --------
    >>> columns = SpanColumns()
    >>> columns.add("ann1", "d1", 0, 7, "DRUG")
    >>> columns.spans(["ann1", "ann2"], ["d1"], unit="character", source="a.csv")
    Spans(1 spans by 2 annotators in 1 documents, 1 labels, character offsets)
    """

    annotator: list[Any] = dataclasses.field(default_factory=list)
    document: list[Any] = dataclasses.field(default_factory=list)
    start: list[int] = dataclasses.field(default_factory=list)
    end: list[int] = dataclasses.field(default_factory=list)
    label: list[Any] = dataclasses.field(default_factory=list)

    @property
    def n(self) -> int:
        """Spans gathered."""
        return len(self.start)

    def add(self, annotator: Any, document: Any, start: int, end: int, label: Any) -> None:
        """One more span."""
        self.annotator.append(annotator)
        self.document.append(document)
        self.start.append(start)
        self.end.append(end)
        self.label.append(label)

    def spans(
        self,
        annotators: Sequence[str],
        documents: Sequence[str],
        *,
        unit: SpanUnit,
        source: str,
        texts: Mapping[str, str] | None = None,
        lengths: Mapping[str, int] | None = None,
        notes: Iterable[str] = (),
    ) -> Spans:
        """The spans, validated by :func:`accord.data.spans.encode_spans`, each row of the
        columns its own source row; ``lengths`` default to those of ``texts``."""
        texts = {} if texts is None else texts
        return encode_spans(
            np.array(self.annotator, dtype=object),
            np.array(self.document, dtype=object),
            np.array(self.start, dtype=np.int64),
            np.array(self.end, dtype=np.int64),
            np.array(self.label, dtype=object),
            annotator_names=tuple(annotators),
            document_names=tuple(documents),
            rows=np.arange(self.n, dtype=np.int64),
            unit=unit,
            texts=texts,
            lengths=dict(lengths) if lengths is not None else {d: len(t) for d, t in texts.items()},
            source=source,
            notes=tuple(notes),
        )
