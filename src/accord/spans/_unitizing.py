"""Krippendorff's unitizing alphas: agreement on where units begin and end and on their
labels, over a continuum with gaps."""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping
from typing import Any, Never

import numpy as np
import pandas as pd

from .._bands import KRIPPENDORFF
from .._errors import AccordWarning, InvalidInputError, warn_degenerate
from .._results import Result, to_plain
from .._types import FloatArray, IntArray, RngLike, as_generator
from .._validate import counted
from ..data.source import refuse_read_options
from ..data.spans import Spans
from ._continuum import GAP, Partition, document_lengths, partition

__all__ = [
    "UnitizingAlpha",
    "UnitizingAlpha1995",
    "prepare",
    "unitizing_alpha",
    "unitizing_alpha_1995",
]


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class UnitizingAlpha(Result):
    """The unitizing alphas of Krippendorff, Mathet, Bouvry & Widlöcher (2016).

    Attributes
    ----------
    name : str
        ``"unitizing_alpha"``.
    statistic : float
        :math:`{}_u\\alpha`: agreement on the whole partition of the continuum, units
        and gaps, boundaries and labels together (nominal).
    binary : float
        :math:`{}_{|u}\\alpha`: agreement on what is marked at all (every unit one value,
        against the gaps).
    coding : float
        :math:`{}_{cu}\\alpha`: agreement on the labels where units of two annotators
        intersect (nominal); NaN with fewer than two labels used there.
    coverage : float
        Share of the pairable continuum (:math:`l_{..}`) where units intersect
        (:math:`l^*_{..} / l_{..}`): the part ``coding`` speaks for.
    per_label : DataFrame
        One row per label: ``label``, ``alpha`` (:math:`{}_{(k)u}\\alpha`), ``coverage``
        (:math:`l^*_{k.} / l_{k.}`: share of the label's stretch that meets another
        annotator's unit), ``observed`` (:math:`l^*_{k.}`).
    observed, expected : DataFrame
        The coincidence matrices of lengths :math:`l_{ck}` and :math:`e_{ck}`, the gap
        first (named ``"(gap)"``), then the labels.
    n_annotators, n_documents, n_spans : int
    length : int
        Total length of the continuum (sum over documents).
    annotators, labels : tuple of str
    unit : str
        What the offsets count.
    method : str
    reason : str or None
        Why ``statistic`` is NaN, when it is.
    intervals : DataFrame
        With ``n_boot`` > 0: one row per coefficient (``u``, ``|u``, ``cu``, then
        ``(k)u <label>``), ``estimate``, ``low``, ``high`` (percentile interval at
        ``confidence_level``), ``standard_error`` (SD of the replicates) and ``q_0.667``,
        ``q_0.800`` (the share of replicates below Krippendorff's smallest acceptable
        alphas: the probability of failing to reach each), from resampling the documents
        with replacement; empty without.
    n_boot : int
    confidence_level : float
    seed : int or None
        The seed of the resampling, when given as an integer.
    notes : tuple of str
    """

    name: str
    statistic: float
    binary: float
    coding: float
    coverage: float
    n_annotators: int
    n_documents: int
    n_spans: int
    length: int
    annotators: tuple[str, ...]
    labels: tuple[str, ...]
    unit: str
    method: str
    reason: str | None
    per_label: pd.DataFrame = dataclasses.field(repr=False)
    observed: pd.DataFrame = dataclasses.field(repr=False)
    expected: pd.DataFrame = dataclasses.field(repr=False)
    notes: tuple[str, ...] = ()
    intervals: pd.DataFrame = dataclasses.field(repr=False, default_factory=pd.DataFrame)
    n_boot: int = 0
    confidence_level: float = 0.95
    seed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of every field (tables as lists of records)."""
        out = {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        for key in ("observed", "expected"):
            table = getattr(self, key)
            out[key] = {str(r): [float(x) for x in table.loc[r]] for r in table.index}
        return out


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class UnitizingAlpha1995(Result):
    """Krippendorff's (1995, 2004) unitizing alpha, one label at a time.

    Attributes
    ----------
    name : str
        ``"unitizing_alpha_1995"``.
    statistic : float
        :math:`1 - \\sum_c D_o(c) / \\sum_c D_e(c)` over the labels.
    observed, expected : float
        :math:`\\sum_c D_o(c)` and :math:`\\sum_c D_e(c)`.
    per_label : DataFrame
        ``label``, ``observed`` (:math:`D_o(c)`), ``expected`` (:math:`D_e(c)`),
        ``alpha`` (:math:`{}_u\\alpha_c`), ``n_units``, ``reason``.
    n_annotators, n_documents, n_spans, length : int
    annotators, labels : tuple of str
    unit, method : str
    reason : str or None
    notes : tuple of str
    """

    name: str
    statistic: float
    observed: float
    expected: float
    n_annotators: int
    n_documents: int
    n_spans: int
    length: int
    annotators: tuple[str, ...]
    labels: tuple[str, ...]
    unit: str
    method: str
    reason: str | None
    per_label: pd.DataFrame = dataclasses.field(repr=False)
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of every field (tables as lists of records)."""
        return {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def prepare(
    spans: Spans | Any,
    lengths: Mapping[str, int] | None,
    columns: dict[str, Any],
    owner: str,
) -> tuple[Spans, IntArray, tuple[str, ...]]:
    """The spans (read from a table with ``columns`` if need be), the document lengths
    and the notes on lengths taken from the last end."""
    from ._agreement import spans_of

    data = spans_of(spans, None, **columns)
    if data.n_annotators < 2:
        raise InvalidInputError(
            f"{owner} needs at least two annotators; got {data.n_annotators} "
            f"({', '.join(map(repr, data.annotators)) or 'none'})"
        )
    doc_length, guessed = document_lengths(data, lengths)
    notes = list(data.notes)
    if guessed:
        notes.append(
            f"{counted(len(guessed), 'document')} without a known length (first: {guessed[0]!r}): "
            "the continuum ends at the last end any annotator marked there"
        )
    if int(doc_length.sum()) == 0:
        raise InvalidInputError(f"{owner}: the continuum is empty (no spans, no lengths)")
    return data, doc_length, tuple(notes)


def _coincidences(part: Partition, n_values: int) -> tuple[FloatArray, IntArray, IntArray]:
    """Observed coincidences of lengths, shape (q, q) (value 0 the gap, ``c + 1`` label
    ``c``), and the elementary stretches' lengths (u,) and segment indices (m, u)."""
    _, lengths, segment = part.elementary()
    values = part.value[segment] + 1  # GAP -> 0
    m = part.n_annotators
    ell = np.zeros(n_values * n_values)
    for i in range(m):
        for j in range(m):
            if i != j:
                ell += np.bincount(
                    values[i] * n_values + values[j], weights=lengths, minlength=n_values**2
                )
    return ell.reshape(n_values, n_values) / (m - 1), lengths, segment


def _expected(ell: FloatArray, self_pairs: FloatArray) -> FloatArray:
    """Expected coincidences :math:`e_{ck} = (l_{c.} l_{.k} - [c=k] S_c) / (l_{..} -
    S / l_{..})` from the observed (q, q) and the self-pairing sums ``S_c`` (q,)."""
    margin = ell.sum(axis=1)
    total = float(margin.sum())
    denominator = total - float(self_pairs.sum()) / total
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = (np.outer(margin, margin) - np.diag(self_pairs)) / denominator
    return out


def _alpha(observed: float, expected: float) -> float:
    """``1 - observed / expected``; NaN when the expected disagreement is 0."""
    if not expected > 0:
        return math.nan
    return 1.0 - observed / expected


def _pairable_squares(
    part: Partition, lengths: IntArray, segment: IntArray, n_values: int
) -> FloatArray:
    """:math:`S^*_c = \\frac{1}{m-1}\\sum_i\\sum_{j \\ne i}\\sum_{g}|g \\cap U_j|^2` over
    the units ``g`` of annotator ``i`` valued ``c``, with :math:`U_j` the units of ``j``;
    shape (n_values - 1,)."""
    m = part.n_annotators
    valued = part.value[segment] != GAP  # (m, u)
    out = np.zeros(n_values - 1)
    n_seg = part.start.size
    for i in range(m):
        for j in range(m):
            if i == j:
                continue
            inter = np.bincount(segment[i], weights=lengths * valued[j], minlength=n_seg)
            own = (part.annotator == i) & (part.value != GAP)
            out += np.bincount(part.value[own], weights=inter[own] ** 2, minlength=n_values - 1)
    return out / (m - 1)


def _coding_alphas(
    ell: FloatArray, star_self: FloatArray, labels: tuple[str, ...]
) -> tuple[float, float, pd.DataFrame]:
    """cu-alpha, its coverage and the per-label (k)u-alpha table."""
    star = ell[1:, 1:]
    total_star = float(star.sum())
    total = float(ell.sum())
    margin = ell.sum(axis=1)[1:]
    star_margin = star.sum(axis=1)
    coverage = total_star / total if total > 0 else math.nan
    if total_star > 0:
        e_star = _expected(star, star_self)
        coding = _alpha(total_star - float(np.trace(star)), total_star - float(np.trace(e_star)))
        e_margin = e_star.sum(axis=1)
        e_diag = np.diag(e_star)
    else:
        coding = math.nan
        e_margin = e_diag = np.full(star_margin.size, math.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        per = 1.0 - (e_margin / star_margin) * (star_margin - np.diag(star)) / (e_margin - e_diag)
        cover = np.where(margin > 0, star_margin / np.maximum(margin, 1e-300), np.nan)
    per = np.where((star_margin > 0) & (e_margin - e_diag > 0), per, np.nan)
    table = pd.DataFrame(
        {"label": list(labels), "alpha": per, "coverage": cover, "observed": star_margin}
    )
    return coding, coverage, table


def unitizing_alpha(
    spans: Spans | Any,
    *,
    lengths: Mapping[str, int] | None = None,
    annotator: str = "annotator",
    document: str = "document",
    start: str = "start",
    end: str = "end",
    label: str | None = "label",
    n_boot: int = 0,
    confidence_level: float = 0.95,
    rng: RngLike = 0,
    **read_options: Never,
) -> UnitizingAlpha:
    r"""Krippendorff's unitizing alphas: :math:`{}_u\alpha`, :math:`{}_{|u}\alpha`,
    :math:`{}_{cu}\alpha` and :math:`{}_{(k)u}\alpha` (Krippendorff et al. 2016).

    Each annotator partitions each document into units (the spans, valued by their label)
    and gaps (value :math:`\phi`). With :math:`m` annotators and :math:`|c_{ig} \cap
    k_{jh}|` the length shared by segment :math:`g` of annotator :math:`i` valued
    :math:`c` and segment :math:`h` of :math:`j` valued :math:`k`, the coincidences of
    lengths and their expectation are

    .. math::

        l_{ck} = \frac{1}{m-1}\sum_i\sum_{j\ne i}\sum_g\sum_h |c_{ig} \cap k_{jh}|,
        \qquad
        e_{ck} = l_{..}\,\frac{l_{c.}l_{.k} - [c=k]\sum_{i,g:\,c} w_{ig}}
                               {l_{..}^2 - \sum_{i,g} w_{ig}},

    with :math:`w = l^2` for a unit and :math:`w = l` for a gap (a gap could be cut
    anywhere, so each of its characters stands alone), and :math:`l_{..} = mL`. Then
    :math:`{}_u\alpha = 1 - (l_{..} - \sum_c l_{cc}) / (l_{..} - \sum_c e_{cc})`;
    :math:`{}_{|u}\alpha` is the same on the 2 x 2 collapse (gap against any unit);
    :math:`{}_{cu}\alpha` repeats it on the units' intersections only (:math:`l^*` =
    :math:`l` without the gap row and column, self-pairings
    :math:`S^*_c = \frac{1}{m-1}\sum_i\sum_{j\ne i}\sum_{g:\,c}|g\cap U_j|^2`,
    :math:`e^*_{ck} = (l^*_{c.}l^*_{.k} - [c=k]S^*_c)/(l^*_{..} - S^*/l^*_{..})`), and

    .. math::

        {}_{(k)u}\alpha = 1 - \frac{e^*_{k.}}{l^*_{k.}}\,
                              \frac{l^*_{k.} - l^*_{kk}}{e^*_{k.} - e^*_{kk}}.

    Parameters
    ----------
    spans : Spans or DataFrame
        A :class:`Spans`, or a table with one row per span (read with the column names).
    lengths : mapping of document to int, optional
        Length of each document's continuum (characters, tokens, milliseconds). Default:
        the text length where known, else the last end any annotator marked.
    annotator, document, start, end, label : str
        For a table: the column names.
    n_boot : int, default 0
        Bootstrap resamples for percentile intervals of every coefficient
        (``intervals``); 0 for none. Fewer than 1000 warn: interval ends are tail
        quantiles of the replicates.
    confidence_level : float, default 0.95
        Level of the intervals.
    rng : Generator, int or None, default 0
        Seed of the resampling.

    Returns
    -------
    UnitizingAlpha

    Raises
    ------
    InvalidInputError
        Fewer than two annotators, two units of one annotator that overlap, an empty
        continuum, or bad spans.

    Notes
    -----
    Nominal level: gaps and labels are unordered values. Documents are laid end to end,
    and no segment crosses from one document to the next (two gaps stay two). Every
    annotator is taken to have annotated every document. The self-pairing sum of
    :math:`{}_{cu}\alpha` averages over the other annotators :math:`j` the squared
    stretch of :math:`g` that :math:`j`'s units cover, as the 2016 paper's eq. 10 is
    transcribed by the Python ``kripp_unitized_alpha`` code; with two annotators it
    equals the R quallmer reading (the stretch covered by any other annotator's units),
    and with three or more the two differ (the worked example of Krippendorff 2019,
    Figure 12.11, prints cu-alpha .724: 0.726 here, 0.728 by the quallmer reading).
    With three or more annotators the coincidences of every ordered pair are pooled
    (divided by :math:`m - 1`) before one alpha is taken, as the paper's :math:`l_{ck}`
    and quallmer do; it is not a mean of pairwise alphas.

    **Intervals** resample the documents with replacement (each drawn copy a document of
    its own) and recompute every coefficient: the documents are the independent units of
    a corpus, while characters, units and gaps within one document are not (a unit's
    characters come as one piece), and the annotators are the fixed set whose
    reliability is measured. With a single document there is nothing to resample and the
    interval is NaN (a note says so); cut a long continuum into its natural sections
    (chapters, recordings) to get one.

    References
    ----------
    .. [1] Krippendorff, K., Mathet, Y., Bouvry, S., & Widlöcher, A. (2016). On the
       reliability of unitizing textual continua: Further developments. *Quality &
       Quantity*, 50(6), 2347-2364. https://doi.org/10.1007/s11135-015-0266-1
    .. [2] Krippendorff, K. (2019). *Content Analysis: An Introduction to Its
       Methodology* (4th ed.), section 12.6. Sage. https://doi.org/10.4135/9781071878781

    Examples
    --------
    Three annotators over a continuum of 20 characters (the example that the README of
    the Python transcription ``lindanna/unitized_alpha`` prints: 0.474, 0.433, 0.779 over
    38.33 % of the continuum, and 0.769, 0.787 per label):

    >>> import pandas as pd, accord
    >>> rows = [("Alex", "1", 2, 5), ("Alex", "1", 9, 11), ("Alex", "2", 12, 20),
    ...         ("Paul", "1", 2, 5), ("Paul", "2", 7, 15), ("Susan", "1", 2, 5),
    ...         ("Susan", "2", 10, 15)]
    >>> df = pd.DataFrame(rows, columns=["annotator", "label", "start", "end"])
    >>> df["document"] = "d"
    >>> res = accord.unitizing_alpha(df, lengths={"d": 20})
    >>> round(res.statistic, 3), round(res.binary, 3), round(res.coding, 3)
    (0.474, 0.433, 0.779)
    >>> res.per_label.round(4)
      label   alpha  coverage  observed
    0     1  0.7693    0.9545      10.5
    1     2  0.7870    0.5952      12.5
    """
    from .._bootstrap import check_n_boot
    from .._interval import check_confidence_level

    refuse_read_options("unitizing_alpha", read_options, "spans")
    owner = "unitizing_alpha"
    check_n_boot(n_boot, owner)
    confidence_level = check_confidence_level(confidence_level, owner)
    columns = dict(annotator=annotator, document=document, start=start, end=end, label=label)
    data, doc_length, notes = prepare(spans, lengths, columns, owner)
    family = _family(data, doc_length, owner)
    alpha_u, binary, coding, coverage, per_label, ell, expected = family
    intervals, boot_notes = _bootstrap(
        data, doc_length, family, n_boot, confidence_level, rng, owner
    )
    reason = None
    if math.isnan(alpha_u):
        reason = "no expected disagreement: every annotator's partition is one value"
        warn_degenerate(reason)
    names = ["(gap)", *data.labels]
    return UnitizingAlpha(
        name=owner,
        statistic=alpha_u,
        binary=binary,
        coding=coding,
        coverage=coverage,
        n_annotators=data.n_annotators,
        n_documents=data.n_documents,
        n_spans=data.n_spans,
        length=int(doc_length.sum()),
        annotators=data.annotators,
        labels=data.labels,
        unit=data.unit,
        method=(
            "Krippendorff's unitizing alphas (Krippendorff, Mathet, Bouvry & Widlöcher "
            "2016), nominal: u-alpha on units and gaps, |u-alpha on marked against "
            "unmarked, cu-alpha and (k)u-alpha on the labels where units intersect"
        ),
        reason=reason,
        per_label=per_label,
        observed=pd.DataFrame(ell, index=names, columns=names),
        expected=pd.DataFrame(expected, index=names, columns=names),
        notes=(*notes, *boot_notes),
        intervals=intervals,
        n_boot=n_boot,
        confidence_level=confidence_level,
        seed=rng if isinstance(rng, int) else None,
    )


_Family = tuple[float, float, float, float, pd.DataFrame, FloatArray, FloatArray]


def _family(data: Spans, doc_length: IntArray, owner: str) -> _Family:
    """u-alpha, |u-alpha, cu-alpha, the coverage, the per-label table and the observed and
    expected coincidences of one set of spans."""
    part = partition(data, doc_length, owner=owner)
    n_values = len(data.labels) + 1
    ell, stretch, segment = _coincidences(part, n_values)
    seg_len = part.length.astype(np.float64)
    weight = np.where(part.value == GAP, seg_len, seg_len**2)
    self_pairs = np.bincount(part.value + 1, weights=weight, minlength=n_values).astype(np.float64)
    expected = _expected(ell, self_pairs)
    total = float(ell.sum())
    alpha_u = _alpha(total - float(np.trace(ell)), total - float(np.trace(expected)))
    binary = _alpha(float(ell[0].sum() - ell[0, 0]), float(expected[0].sum() - expected[0, 0]))
    star_self = _pairable_squares(part, stretch, segment, n_values)
    coding, coverage, per_label = _coding_alphas(ell, star_self, data.labels)
    return alpha_u, binary, coding, coverage, per_label, ell, expected


def _resampled(data: Spans, doc_length: IntArray, draw: IntArray) -> tuple[Spans, IntArray]:
    """The spans of the documents ``draw`` (indices, with repeats), each drawn copy a
    document of its own."""
    by_doc = np.argsort(data.document, kind="stable")
    first = np.searchsorted(data.document[by_doc], np.arange(data.n_documents), side="left")
    count = np.bincount(data.document, minlength=data.n_documents)
    take = np.concatenate([by_doc[first[d] : first[d] + count[d]] for d in draw.tolist()])
    new_doc = np.repeat(np.arange(draw.size), count[draw])
    spans = dataclasses.replace(
        data,
        annotator=data.annotator[take],
        document=new_doc.astype(data.document.dtype),
        start=data.start[take],
        end=data.end[take],
        label=data.label[take],
        documents=tuple(str(d) for d in range(draw.size)),
        texts={},
        lengths={},
    )
    return spans, doc_length[draw]


def _bootstrap(
    data: Spans,
    doc_length: IntArray,
    family: _Family,
    n_boot: int,
    level: float,
    rng: RngLike,
    owner: str,
) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Percentile intervals of every coefficient from ``n_boot`` resamples of the
    documents, and a note when there is nothing to resample."""
    from .._bootstrap import bootstrap_interval

    if n_boot == 0:
        return pd.DataFrame(), ()
    names = ["u", "|u", "cu", *(f"(k)u {label}" for label in data.labels)]
    estimate = np.array([*family[:3], *family[4]["alpha"]], dtype=np.float64)
    generator = as_generator(rng, owner)
    reps = np.full((n_boot, estimate.size), np.nan)
    notes: tuple[str, ...] = ()
    if data.n_documents < 2:
        notes = (
            "no interval: the bootstrap resamples documents, and there is one (the "
            "characters within a document are not independent)",
        )
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AccordWarning)
            for b in range(n_boot):
                draw = generator.integers(data.n_documents, size=data.n_documents)
                part = _family(*_resampled(data, doc_length, draw), owner)
                reps[b] = [*part[:3], *part[4]["alpha"]]
    rows = []
    for k, name in enumerate(names):
        ci = bootstrap_interval(estimate[k], reps[:, k], None, level=level, method="percentile")
        finite = reps[np.isfinite(reps[:, k]), k]
        se = float(finite.std(ddof=1)) if finite.size > 1 else math.nan
        rows.append({"coefficient": name, "estimate": estimate[k], "low": ci.low,
                     "high": ci.high, "standard_error": se, **_shortfalls(finite)})  # fmt: skip
    return pd.DataFrame(rows), notes


def _shortfalls(replicates: FloatArray) -> dict[str, float]:
    """The share of the (finite) replicates below each of Krippendorff's (2004) smallest
    acceptable alphas: the probability ``q`` of failing to reach it (Hayes & Krippendorff
    2007, as Krippendorff et al. 2016 add to their intervals); NaN without replicates."""
    return {
        f"q_{edge:.3f}": float(np.mean(replicates < edge)) if replicates.size else math.nan
        for edge, _ in KRIPPENDORFF.edges
    }


def _observed_1995(part: Partition) -> float:
    """:math:`\\sum_{i<j}\\sum_{g,h \\text{ overlapping}} \\delta^2_{ig,jh}` for one label."""
    _, _, segment = part.elementary()
    m = part.n_annotators
    valued = part.value != GAP
    total = 0.0
    for i in range(m):
        for j in range(i + 1, m):
            g, h = segment[i], segment[j]
            new = np.ones(g.size, dtype=bool)
            new[1:] = (g[1:] != g[:-1]) | (h[1:] != h[:-1])
            g, h = g[new], h[new]
            sg, eg = part.start[g].astype(np.float64), part.end[g].astype(np.float64)
            sh, eh = part.start[h].astype(np.float64), part.end[h].astype(np.float64)
            both = valued[g] & valued[h]
            g_in_gap = valued[g] & ~valued[h] & (sg >= sh) & (eg <= eh)
            h_in_gap = ~valued[g] & valued[h] & (sh >= sg) & (eh <= eg)
            delta = np.where(both, (sg - sh) ** 2 + (eg - eh) ** 2, 0.0)
            delta += np.where(g_in_gap, (eg - sg) ** 2, 0.0)
            delta += np.where(h_in_gap, (eh - sh) ** 2, 0.0)
            total += float(delta.sum())
    return total


def _expected_1995(part: Partition) -> float:
    """The numerator of :math:`D_e(c)` before the factor ``2 / L`` and its denominator,
    as their ratio."""
    length = part.length.astype(np.float64)
    valued = part.value != GAP
    units = length[valued]
    gaps = np.sort(length[~valued])
    n_units = units.size
    mL = float(part.n_annotators * part.total)
    within = (n_units - 1) * float(np.sum(2 * units**3 - 3 * units**2 + units)) / 3.0
    suffix = np.concatenate([np.cumsum(gaps[::-1])[::-1], [0.0]])
    at = np.searchsorted(gaps, units, side="left")
    count = gaps.size - at
    placed = float(np.sum(units**2 * (suffix[at] - (units - 1) * count)))
    denominator = mL * (mL - 1) - float(np.sum(units * (units - 1)))
    return float((2.0 / part.total) * (within + placed) / denominator)


def unitizing_alpha_1995(
    spans: Spans | Any,
    *,
    lengths: Mapping[str, int] | None = None,
    annotator: str = "annotator",
    document: str = "document",
    start: str = "start",
    end: str = "end",
    label: str | None = "label",
    **read_options: Never,
) -> UnitizingAlpha1995:
    r"""Krippendorff's (1995) unitizing alpha, per label and over labels.

    For one label :math:`c`, each annotator's continuum is cut into the units of
    :math:`c` and the gaps between them. Two overlapping segments :math:`g` (annotator
    :math:`i`, begin :math:`b`, length :math:`l`) and :math:`h` (annotator :math:`j`)
    differ by

    .. math::

        \delta^2_{ig,jh} = \begin{cases}
            (b_g - b_h)^2 + (b_g + l_g - b_h - l_h)^2 & \text{both units} \\
            l_g^2 & g \text{ a unit inside the gap } h \\
            l_h^2 & h \text{ a unit inside the gap } g \\
            0 & \text{otherwise,}
        \end{cases}
        \qquad D_o(c) = \frac{\sum_i\sum_{j\ne i}\sum_g\sum_h \delta^2_{ig,jh}}
                              {m(m-1)L^2},

    and, over the :math:`N_c` units of all annotators and the gaps :math:`h`,

    .. math::

        D_e(c) = \frac{2}{L}\,
            \frac{\sum_g\left[(N_c - 1)\frac{2l_g^3 - 3l_g^2 + l_g}{3}
                  + l_g^2 \sum_{h:\,l_h \ge l_g}(l_h - l_g + 1)\right]}
                 {mL(mL-1) - \sum_g l_g(l_g - 1)}.

    :math:`{}_u\alpha_c = 1 - D_o(c)/D_e(c)`, and over labels
    :math:`1 - \sum_c D_o(c)/\sum_c D_e(c)`.

    Parameters
    ----------
    spans : Spans or DataFrame
    lengths : mapping of document to int, optional
        As in :func:`unitizing_alpha`.
    annotator, document, start, end, label : str
        For a table: the column names.

    Returns
    -------
    UnitizingAlpha1995

    Raises
    ------
    InvalidInputError
        Fewer than two annotators, two units of one annotator and label that overlap
        (units of different labels may overlap), or an empty continuum.

    Notes
    -----
    The definition of Krippendorff (1995, 2004), as DKPro Agreement computes it
    (``KrippendorffAlphaUnitizingAgreement``, whose tests reproduce the 1995 and 2004
    examples): the labels are measured one at a time, so units of different labels may
    overlap, and the overall figure sums the disagreements over labels (DKPro averages
    them, which gives the same ratio). Krippendorff et al. (2016) found that this
    definition behaves unexpectedly with more than two annotators and replaced it by
    :func:`unitizing_alpha`. Documents are laid end to end as in
    :func:`unitizing_alpha`; ``L`` is the total length. A label with no expected
    disagreement has a NaN alpha (DKPro returns 0).

    References
    ----------
    .. [1] Krippendorff, K. (1995). On the reliability of unitizing continuous data.
       *Sociological Methodology*, 25, 47-76. https://doi.org/10.2307/271061
    .. [2] Krippendorff, K. (2004). *Content Analysis: An Introduction to Its
       Methodology* (2nd ed.), section 11.6. Sage.
    .. [3] DKPro Agreement, ``KrippendorffAlphaUnitizingAgreement``.
       https://github.com/dkpro/dkpro-statistics

    Examples
    --------
    Krippendorff's (2004, p. 254) example, two observers, labels c and k on [150, 450)
    (the book prints 0.8591 from the disagreements rounded to four places, .0144 and
    .0532 + .0490):

    >>> import pandas as pd, accord
    >>> rows = [(0, "c", 225, 295), (0, "c", 370, 400), (1, "c", 220, 300),
    ...         (1, "c", 355, 375), (1, "c", 400, 420), (0, "k", 180, 240),
    ...         (0, "k", 300, 350), (1, "k", 180, 240), (1, "k", 300, 350)]
    >>> df = pd.DataFrame(rows, columns=["annotator", "label", "start", "end"])
    >>> df["start"] -= 150; df["end"] -= 150; df["document"] = "d"
    >>> res = accord.unitizing_alpha_1995(df, lengths={"d": 300})
    >>> round(res.statistic, 4)
    0.8587
    >>> res.per_label[["label", "observed", "expected", "alpha"]].round(4)
      label  observed  expected   alpha
    0     c    0.0144    0.0532  0.7286
    1     k    0.0000    0.0490  1.0000
    """
    refuse_read_options("unitizing_alpha_1995", read_options, "spans")
    owner = "unitizing_alpha_1995"
    columns = dict(annotator=annotator, document=document, start=start, end=end, label=label)
    data, doc_length, notes = prepare(spans, lengths, columns, owner)
    m, total = data.n_annotators, int(doc_length.sum())
    rows = []
    for c, name in enumerate(data.labels):
        part = partition(data, doc_length, data.label == c, owner=owner)
        d_o = 2.0 * _observed_1995(part) / (m * (m - 1) * float(total) ** 2)
        d_e = _expected_1995(part)
        a = _alpha(d_o, d_e)
        rows.append(
            {
                "label": name,
                "observed": d_o,
                "expected": d_e,
                "alpha": a,
                "n_units": int(np.sum(data.label == c)),
                "reason": None if math.isfinite(a) else "no expected disagreement",
            }
        )
    per_label = pd.DataFrame(
        rows, columns=["label", "observed", "expected", "alpha", "n_units", "reason"]
    )
    observed = float(per_label["observed"].sum())
    expected = float(per_label["expected"].sum())
    statistic = _alpha(observed, expected)
    reason = None
    if math.isnan(statistic):
        reason = "no expected disagreement (no units, or no room to place them)"
        warn_degenerate(reason)
    return UnitizingAlpha1995(
        name=owner,
        statistic=statistic,
        observed=observed,
        expected=expected,
        n_annotators=m,
        n_documents=data.n_documents,
        n_spans=data.n_spans,
        length=total,
        annotators=data.annotators,
        labels=data.labels,
        unit=data.unit,
        method=(
            "Krippendorff's (1995) unitizing alpha per label (squared differences of "
            "the boundaries of overlapping units; a unit inside a gap counts its squared "
            "length), 1 - sum D_o / sum D_e over labels"
        ),
        reason=reason,
        per_label=per_label,
        notes=notes,
    )
