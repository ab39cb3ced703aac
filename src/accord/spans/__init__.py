"""Agreement on text markup: span-level F1 across annotators, where negatives cannot be counted.

Annotators mark spans ``(document, start, end, label)`` in the same documents. The phrases that
nobody marked cannot be counted, so a chance-corrected coefficient such as kappa (which needs
the count of cases both annotators called negative) is unavailable. What is available is the
F-measure of one annotator against another, which equals the positive specific agreement
``2a / (2a + b + c)`` (Hripcsak & Rothschild 2005). :func:`span_agreement` reports it per
annotator pair, its mean and population SD over pairs, and the pooled F1, overall and per label
or per document. The spans themselves are the data model :class:`accord.Spans`.
"""

from __future__ import annotations

from ..data.spans import Spans, SpanUnit
from ._agreement import SpanAgreement, SpanBy, SpanMatch, span_agreement
from ._gamma import Gamma, gamma_agreement
from ._relations import (
    AttributeAgreement,
    RelationAgreement,
    attribute_agreement,
    relation_agreement,
)
from ._unitizing import UnitizingAlpha, UnitizingAlpha1995, unitizing_alpha, unitizing_alpha_1995

__all__ = [
    "AttributeAgreement",
    "Gamma",
    "RelationAgreement",
    "SpanAgreement",
    "SpanBy",
    "SpanMatch",
    "SpanUnit",
    "Spans",
    "UnitizingAlpha",
    "UnitizingAlpha1995",
    "attribute_agreement",
    "gamma_agreement",
    "relation_agreement",
    "span_agreement",
    "unitizing_alpha",
    "unitizing_alpha_1995",
]
