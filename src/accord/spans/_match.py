"""Matching the spans of two annotators: exact, by overlap (one-to-one), or token by token."""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from .._errors import InvalidInputError
from .._types import IntArray
from ..data.spans import Spans

__all__ = ["Side", "match_exact", "match_overlap", "token_units"]

_TOKEN = re.compile(r"\w+|[^\w\s]")
"""Tokens for ``match="token"`` on character offsets: runs of word characters, or one other
non-space character."""


@dataclasses.dataclass(frozen=True, slots=True)
class Side:
    """One annotator's spans: shapes (n,) each."""

    document: IntArray
    label: IntArray
    start: IntArray
    end: IntArray


def match_overlap(a: Side, b: Side) -> tuple[IntArray, IntArray]:
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


def match_exact(a: Side, b: Side) -> tuple[IntArray, IntArray]:
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


def token_units(data: Spans) -> tuple[IntArray, IntArray, IntArray, IntArray]:
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
    if data.unit == "millisecond":
        raise InvalidInputError(
            "match='token' needs text; these spans are stretches of time (milliseconds)"
        )
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
