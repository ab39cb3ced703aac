"""Pairwise F1 across annotators of spans: the estimator and its tables."""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping
from typing import Any, Literal, Never, TypeAlias

import numpy as np
import pandas as pd

from .._errors import AccordWarning, InvalidInputError, warn_degenerate
from .._results import Result, to_plain
from .._types import IntArray
from .._validate import check_choice
from ..data.source import refuse_read_options
from ..data.spans import Spans, SpanUnit
from ._match import Side, match_exact, match_overlap, token_units

__all__ = ["SpanAgreement", "SpanBy", "SpanMatch", "span_agreement", "spans_of"]

SpanMatch: TypeAlias = Literal["exact", "overlap", "token"]
"""How two spans are matched: same offsets, any overlap, or token by token."""

SpanBy: TypeAlias = Literal["label", "document"]
"""The breakdown reported beside the overall figures."""


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
    unit : {"character", "token", "millisecond"}
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
    **read_options: Never,
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
    refuse_read_options("span_agreement", read_options, "spans")
    _check_options(match, by, ignore_label)
    data = spans_of(
        spans,
        texts,
        annotator=annotator,
        document=document,
        start=start,
        end=end,
        label=label,
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
    units = _units(data, match, ignore_label, by)
    pair_list = [(i, j) for i in range(n_ann) for j in range(i + 1, n_ann)]
    sizes, matched = _count_matches(units, n_ann, pair_list, match)
    names = data.annotators
    size_a = sizes[[i for i, _ in pair_list]]
    size_b = sizes[[j for _, j in pair_list]]
    overall = _pair_table(names, pair_list, size_a.sum(1), size_b.sum(1), matched.sum(1))
    mean, sd, pooled, n_defined, reason = _summarise(overall)
    if reason is not None:
        warn_degenerate(reason)
    groups = group_pairs = None
    if by is not None:
        groups, group_pairs = _group_tables(
            by, units.group_names, names, pair_list, sizes, size_a, size_b, matched
        )
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
        n_units=units.n,
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


def _check_options(match: Any, by: Any, ignore_label: Any) -> None:
    owner = "span_agreement"
    check_choice("match", match, ("exact", "overlap", "token"), owner)
    check_choice("by", by, ("label", "document", None), owner)
    check_choice("ignore_label", ignore_label, (False, True), owner)
    if ignore_label and by == "label":
        raise InvalidInputError(
            "by='label' needs labels, but ignore_label=True matches spans across labels; "
            "pass by=None or by='document'"
        )


def spans_of(
    spans: Spans | Any,
    texts: Mapping[Any, str] | None,
    *,
    annotator: str,
    document: str,
    start: str,
    end: str,
    label: str | None,
) -> Spans:
    """``spans`` itself, or the spans of a table read with the column names."""
    if isinstance(spans, Spans):
        if texts is not None:
            raise InvalidInputError(
                "texts is for a table; a Spans carries its own texts (Spans.from_frame(texts=))"
            )
        return spans
    return Spans.from_frame(
        spans,
        annotator=annotator,
        document=document,
        start=start,
        end=end,
        label=label,
        texts=texts,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class _Units:
    """What is matched: spans, or (span, token) units; shapes (n,) each.

    ``group`` codes the ``by`` breakdown (label, document, or 0 for all), into
    ``group_names``.
    """

    annotator: IntArray
    document: IntArray
    start: IntArray
    end: IntArray
    label: IntArray
    group: IntArray
    group_names: tuple[str, ...]

    @property
    def n(self) -> int:
        return int(self.annotator.size)


def _units(data: Spans, match: SpanMatch, ignore_label: bool, by: SpanBy | None) -> _Units:
    """The units to match: the spans, or each span's tokens (``match="token"``)."""
    if match == "token":
        span_of, doc_u, start_u, end_u = token_units(data)
    else:
        span_of = np.arange(data.n_spans)
        doc_u, start_u, end_u = data.document, data.start, data.end
    lab_u = np.zeros(span_of.size, np.int64) if ignore_label else data.label[span_of]
    if by == "label":
        group_u, group_names = lab_u, data.labels
    elif by == "document":
        group_u, group_names = doc_u, data.documents
    else:
        group_u, group_names = np.zeros(span_of.size, np.int64), ("",)
    return _Units(data.annotator[span_of], doc_u, start_u, end_u, lab_u, group_u, group_names)


def _count_matches(
    units: _Units, n_ann: int, pair_list: list[tuple[int, int]], match: SpanMatch
) -> tuple[IntArray, IntArray]:
    """Units per annotator and group, shape (n_ann, n_groups), and matched units per pair
    and group (counted on the first annotator's side), shape (n_pairs, n_groups)."""
    n_groups = len(units.group_names)
    ann_u, group_u = units.annotator, units.group
    sizes = np.bincount(ann_u * n_groups + group_u, minlength=n_ann * n_groups).reshape(
        n_ann, n_groups
    )
    matched = np.zeros((len(pair_list), n_groups), dtype=np.int64)
    matcher = match_overlap if match == "overlap" else match_exact
    sides = []
    for i in range(n_ann):
        sel = ann_u == i
        sides.append(Side(units.document[sel], units.label[sel], units.start[sel], units.end[sel]))
    group_of = [group_u[ann_u == i] for i in range(n_ann)]
    for p, (i, j) in enumerate(pair_list):
        ia, _ = matcher(sides[i], sides[j])
        matched[p] = np.bincount(group_of[i][ia], minlength=n_groups)
    return sizes, matched


def _group_tables(
    by: SpanBy,
    group_names: tuple[str, ...],
    names: tuple[str, ...],
    pair_list: list[tuple[int, int]],
    sizes: IntArray,
    size_a: IntArray,
    size_b: IntArray,
    matched: IntArray,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``groups`` summary (one row per label or document) and the ``group_pairs`` table."""
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
    return pd.DataFrame(rows), pd.concat(tables, ignore_index=True)


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
