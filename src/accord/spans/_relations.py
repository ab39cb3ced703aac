"""Agreement on what annotators say about spans: relations between them (head, tail,
type) and attributes of them, after matching the spans of each pair of annotators."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from typing import Any, Never

import numpy as np
import pandas as pd

from .._errors import InvalidInputError, warn_degenerate
from .._results import Result, to_plain
from .._types import IntArray
from .._validate import at_rows, check_choice, require_columns
from ..data.frames import frame_to_pandas
from ..data.source import refuse_read_options
from ..data.spans import Spans
from ._agreement import SpanMatch
from ._match import Side, match_exact, match_overlap

__all__ = [
    "AttributeAgreement",
    "RelationAgreement",
    "attribute_agreement",
    "relation_agreement",
]

_ENDPOINT = ("start", "end", "label")


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class RelationAgreement(Result):
    """Pairwise F1 of relations ``(head, tail, type)`` between annotators, the spans
    matched first.

    Attributes
    ----------
    name : str
        ``"relation_agreement"``.
    statistic : float
        Mean over annotator pairs of the pairwise relation F1; NaN when no pair has a
        relation.
    sd, pooled : float
        Population SD over pairs; pooled F1 ``sum 2 TP / sum (|A| + |B|)``.
    n_annotators, n_documents, n_relations : int
    match : {"exact", "overlap"}
        How spans were matched before their relations were compared.
    method : str
    reason : str or None
    pairs : DataFrame
        ``annotator_a``, ``annotator_b``, ``n_a``, ``n_b`` (relations), ``matched``,
        ``precision`` (``matched / n_a``), ``recall`` (``matched / n_b``), ``f1``.
    by_type : DataFrame
        Per relation type: ``type``, ``n_relations``, ``pooled_f1``.
    """

    name: str
    statistic: float
    sd: float
    pooled: float
    n_annotators: int
    n_documents: int
    n_relations: int
    match: SpanMatch
    method: str
    reason: str | None
    pairs: pd.DataFrame = dataclasses.field(repr=False)
    by_type: pd.DataFrame = dataclasses.field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of every field (tables as lists of records)."""
        return {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class AttributeAgreement(Result):
    """Agreement on span attributes over the spans two annotators both marked.

    Attributes
    ----------
    name : str
        ``"attribute_agreement"``.
    statistic : float
        Pooled percent agreement: matched span pairs given the same value, over all
        attributes and pairs of annotators; NaN without matched spans.
    n_annotators, n_documents, n_attributes : int
    match : {"exact", "overlap"}
    method : str
    reason : str or None
    table : DataFrame
        One row per attribute and annotator pair: ``attribute``, ``annotator_a``,
        ``annotator_b``, ``n_matched`` (span pairs), ``n_agree``, ``agreement``.
    attributes : DataFrame
        Per attribute, pooled over pairs: ``attribute``, ``n_matched``, ``n_agree``,
        ``agreement``.
    """

    name: str
    statistic: float
    n_annotators: int
    n_documents: int
    n_attributes: int
    match: SpanMatch
    method: str
    reason: str | None
    table: pd.DataFrame = dataclasses.field(repr=False)
    attributes: pd.DataFrame = dataclasses.field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of every field (tables as lists of records)."""
        return {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _span_index(data: Spans, frame: pd.DataFrame, prefix: str, what: str) -> IntArray:
    """The index in ``data`` of the span each row of ``frame`` names by ``annotator``,
    ``document`` and ``<prefix>start``, ``<prefix>end``, ``<prefix>label``."""
    table = data.to_frame()
    keys = {
        (a, d, int(s), int(e), lab): i
        for i, (a, d, s, e, lab) in enumerate(
            table[["annotator", "document", "start", "end", "label"]].itertuples(index=False)
        )
    }
    cols = ["annotator", "document", *(prefix + c for c in _ENDPOINT)]
    out = np.empty(len(frame), dtype=np.int64)
    missing = []
    for r, (a, d, s, e, lab) in enumerate(frame[cols].itertuples(index=False)):
        out[r] = keys.get((str(a), str(d), int(s), int(e), str(lab)), -1)
        if out[r] < 0:
            missing.append(r)
    if missing:
        r = missing[0]
        raise InvalidInputError(
            f"{what} in {at_rows(np.array(missing))} {'names' if len(missing) == 1 else 'name'} "
            "a span that is not among "
            f"the spans (first: annotator {frame['annotator'].iloc[r]!r}, document "
            f"{frame['document'].iloc[r]!r}, {frame[prefix + 'start'].iloc[r]}-"
            f"{frame[prefix + 'end'].iloc[r]} {frame[prefix + 'label'].iloc[r]!r})"
        )
    return out


def _matched_spans(data: Spans, match: SpanMatch) -> dict[tuple[int, int], dict[int, int]]:
    """For each pair of annotators ``i < j``: span of ``i`` (index into ``data``) -> the
    span of ``j`` it is matched with, one to one, by ``match``."""
    matcher = match_overlap if match == "overlap" else match_exact
    members = [np.flatnonzero(data.annotator == i) for i in range(data.n_annotators)]
    sides = [Side(data.document[m], data.label[m], data.start[m], data.end[m]) for m in members]
    out = {}
    for i in range(data.n_annotators):
        for j in range(i + 1, data.n_annotators):
            ia, ib = matcher(sides[i], sides[j])
            out[(i, j)] = dict(zip(members[i][ia].tolist(), members[j][ib].tolist(), strict=True))
    return out


def _read_table(frame: Any, columns: list[str], what: str) -> pd.DataFrame:
    data = frame if isinstance(frame, pd.DataFrame) else frame_to_pandas(frame)
    require_columns(columns, list(data.columns), where=what)
    return data.reset_index(drop=True)


def _f1_row(i: str, j: str, n_a: int, n_b: int, tp: int) -> dict[str, Any]:
    return {
        "annotator_a": i,
        "annotator_b": j,
        "n_a": n_a,
        "n_b": n_b,
        "matched": tp,
        "precision": tp / n_a if n_a else math.nan,
        "recall": tp / n_b if n_b else math.nan,
        "f1": 2 * tp / (n_a + n_b) if n_a + n_b else math.nan,
    }


def relation_agreement(
    spans: Spans,
    relations: Any,
    *,
    match: SpanMatch = "exact",
    **read_options: Never,
) -> RelationAgreement:
    r"""Agreement on relations between spans: pairwise F1 of ``(head, tail, type)`` triples.

    For each pair of annotators A and B the spans are matched one to one (``match``, as
    in :func:`span_agreement`); a relation of A matches one of B when its head is matched
    with B's head, its tail with B's tail, and the types are equal. With ``TP`` such
    pairs (one to one),

    .. math::

        F_1(A, B) = \frac{2\,TP}{|R_A| + |R_B|},

    averaged over pairs (population SD) and pooled, as :func:`span_agreement` does.

    Parameters
    ----------
    spans : Spans
        Every annotator's spans (those the relations point at included).
    relations : DataFrame
        One row per relation: ``annotator``, ``document``, ``type``, and the head and
        tail as ``head_start``, ``head_end``, ``head_label``, ``tail_start``,
        ``tail_end``, ``tail_label`` (:func:`accord.read_brat_relations` gives this).
    match : {"exact", "overlap"}, default "exact"

    Returns
    -------
    RelationAgreement

    Raises
    ------
    InvalidInputError
        A missing column, a relation naming a span not in ``spans``, or an unknown option.

    Notes
    -----
    A relation whose head or tail the other annotator did not mark cannot be matched,
    so span disagreement lowers relation agreement too: the figure answers "do the two
    annotators state the same relations between the same things?". Relations are
    directed: (head, tail) and (tail, head) differ. A relation given twice by one
    annotator counts twice.

    References
    ----------
    .. [1] Hripcsak, G., & Rothschild, A. S. (2005). Agreement, the F-measure, and
       reliability in information retrieval. *JAMIA*, 12(3), 296-298.
       https://doi.org/10.1197/jamia.M1733

    Examples
    --------
    >>> import pandas as pd, accord
    >>> spans = accord.Spans.from_frame(pd.DataFrame({
    ...     "annotator": ["a", "a", "b", "b"], "document": "d", "start": [0, 10, 0, 10],
    ...     "end": [5, 15, 5, 16], "label": ["DRUG", "ADE", "DRUG", "ADE"]}))
    >>> rel = pd.DataFrame({"annotator": ["a", "b"], "document": "d", "type": "causes",
    ...     "head_start": 0, "head_end": 5, "head_label": "DRUG",
    ...     "tail_start": 10, "tail_end": [15, 16], "tail_label": "ADE"})
    >>> accord.relation_agreement(spans, rel).statistic
    0.0
    >>> accord.relation_agreement(spans, rel, match="overlap").statistic
    1.0
    """
    refuse_read_options("relation_agreement", read_options, "spans")
    check_choice("match", match, ("exact", "overlap"), "relation_agreement")
    cols = ["annotator", "document", "type", *("head_" + c for c in _ENDPOINT),
            *("tail_" + c for c in _ENDPOINT)]  # fmt: skip
    table = _read_table(relations, cols, "relations")
    head = _span_index(spans, table, "head_", "relations")
    tail = _span_index(spans, table, "tail_", "relations")
    owner = spans.annotator[head]
    types = table["type"].astype(str).to_numpy()
    maps = _matched_spans(spans, match)
    names = spans.annotators
    rows, by_type = [], Counter[tuple[str, str]]()
    for (i, j), mapping in maps.items():
        mine = np.flatnonzero(owner == i)
        theirs = np.flatnonzero(owner == j)
        ours = Counter(
            (mapping.get(int(head[r]), -1), mapping.get(int(tail[r]), -1), types[r]) for r in mine
        )
        other = Counter((int(head[r]), int(tail[r]), types[r]) for r in theirs)
        common = ours & other
        rows.append(_f1_row(names[i], names[j], mine.size, theirs.size, sum(common.values())))
        for (_, _, t), n in common.items():
            by_type[(t, "tp")] += n
        for r in (*mine, *theirs):
            by_type[(types[r], "n")] += 1
    pairs = pd.DataFrame(rows, columns=list(_f1_row("", "", 0, 0, 0)))
    mean, sd, pooled, reason = _summary(pairs)
    kinds = sorted(set(types.tolist()))
    type_table = pd.DataFrame(
        {
            "type": kinds,
            "n_relations": [int(np.sum(types == t)) for t in kinds],
            "pooled_f1": [
                2 * by_type[(t, "tp")] / by_type[(t, "n")] if by_type[(t, "n")] else math.nan
                for t in kinds
            ],
        }
    )
    return RelationAgreement(
        name="relation_agreement",
        statistic=mean,
        sd=sd,
        pooled=pooled,
        n_annotators=spans.n_annotators,
        n_documents=spans.n_documents,
        n_relations=len(table),
        match=match,
        method=(
            f"pairwise F1 of (head, tail, type) relations after {match} matching of the "
            "spans (one to one); mean and population SD over annotator pairs, pooled "
            "F1 = sum 2 TP / sum (|A| + |B|)"
        ),
        reason=reason,
        pairs=pairs,
        by_type=type_table,
    )


def _summary(pairs: pd.DataFrame) -> tuple[float, float, float, str | None]:
    f1 = pairs["f1"].to_numpy(dtype=np.float64)
    defined = f1[~np.isnan(f1)]
    if defined.size == 0:
        reason = "no annotator pair has a relation to compare (F1 is 0/0 for every pair)"
        warn_degenerate(reason)
        return math.nan, math.nan, math.nan, reason
    pooled = 2.0 * float(pairs["matched"].sum()) / float((pairs["n_a"] + pairs["n_b"]).sum())
    return float(defined.mean()), float(defined.std()), pooled, None


def attribute_agreement(
    spans: Spans,
    attributes: Any,
    *,
    match: SpanMatch = "exact",
    **read_options: Never,
) -> AttributeAgreement:
    r"""Agreement on span attributes: over the spans two annotators both marked, the share
    given the same value of each attribute.

    For annotators A and B with :math:`M` matched span pairs (``match``, one to one) and
    :math:`K` of them given the same value of an attribute (a span without the attribute
    has the value "absent"), the agreement is :math:`K / M`, reported per attribute and
    pair and pooled (:math:`\sum K / \sum M`).

    Parameters
    ----------
    spans : Spans
    attributes : DataFrame
        One row per attribute of a span: ``annotator``, ``document``, ``start``, ``end``,
        ``label`` (the span), ``attribute`` and ``value`` (:func:`accord.read_brat_attributes`
        gives this; brat's binary attributes have the value ``"true"``).
    match : {"exact", "overlap"}, default "exact"

    Returns
    -------
    AttributeAgreement

    Notes
    -----
    Only spans both annotators marked are compared, so the figure answers "given that
    they marked the same thing, do they describe it alike?"; span agreement itself is
    :func:`span_agreement`. Percent agreement, not chance-corrected: attribute values are
    often rare (negation), and a kappa over a few matched spans would be unstable.

    Examples
    --------
    >>> import pandas as pd, accord
    >>> spans = accord.Spans.from_frame(pd.DataFrame({"annotator": ["a", "a", "b", "b"],
    ...     "document": "d", "start": [0, 10, 0, 10], "end": [5, 15, 5, 15],
    ...     "label": "DISEASE"}))
    >>> att = pd.DataFrame({"annotator": ["a", "b"], "document": "d", "start": [0, 10],
    ...     "end": [5, 15], "label": "DISEASE", "attribute": "Negated", "value": "true"})
    >>> accord.attribute_agreement(spans, att).statistic
    0.0
    """
    refuse_read_options("attribute_agreement", read_options, "spans")
    check_choice("match", match, ("exact", "overlap"), "attribute_agreement")
    table = _read_table(attributes, ["annotator", "document", *_ENDPOINT, "attribute", "value"],
                        "attributes")  # fmt: skip
    where = _span_index(spans, table, "", "attributes")
    names = sorted(set(table["attribute"].astype(str)))
    value: dict[tuple[int, str], str] = {
        (int(s), str(a)): str(v)
        for s, a, v in zip(where, table["attribute"], table["value"], strict=True)
    }
    rows = []
    for (i, j), mapping in _matched_spans(spans, match).items():
        for att in names:
            agree = sum(
                value.get((g, att), "(absent)") == value.get((h, att), "(absent)")
                for g, h in mapping.items()
            )
            rows.append(
                {"attribute": att, "annotator_a": spans.annotators[i],
                 "annotator_b": spans.annotators[j], "n_matched": len(mapping),
                 "n_agree": agree}
            )  # fmt: skip
    out = pd.DataFrame(
        rows, columns=["attribute", "annotator_a", "annotator_b", "n_matched", "n_agree"]
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        out["agreement"] = out["n_agree"] / out["n_matched"].where(out["n_matched"] > 0)
    pooled = out.groupby("attribute", sort=True)[["n_matched", "n_agree"]].sum().reset_index()
    pooled["agreement"] = pooled["n_agree"] / pooled["n_matched"].where(pooled["n_matched"] > 0)
    total = int(out["n_matched"].sum())
    reason = None
    if not total:
        reason = (
            "no span is matched between any two annotators"
            if names
            else "no span has an attribute to compare"
        )
    if reason:
        warn_degenerate(reason)
    return AttributeAgreement(
        name="attribute_agreement",
        statistic=float(out["n_agree"].sum()) / total if total else math.nan,
        n_annotators=spans.n_annotators,
        n_documents=spans.n_documents,
        n_attributes=len(names),
        match=match,
        method=(
            f"percent agreement on each attribute over the spans matched ({match}, one "
            "to one) between two annotators; a missing attribute is the value 'absent'"
        ),
        reason=reason,
        table=out,
        attributes=pooled,
    )
