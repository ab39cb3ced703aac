r"""Consensus diagnostics: how contested each item is, how far each rating and rater strays.

For one item rated :math:`n` times, :math:`p_c = n_c / n` is the share of its ratings in
category :math:`c` (the rating being scored included). The item's **entropy**
:math:`e = -\sum_c p_c \log_2 p_c` says how contested it is; a rating in category :math:`c`
has **surprisal** :math:`s = -\log_2 p_c`, and its **deviation** :math:`d = s - e` says how much
more surprising it is than the item's average rating (the entropy is the mean surprisal of the
item's ratings). Each rater's deviations are then summarised, and each rater (a model judge is
one more rater) is set against the leave-one-out consensus of the others and, when known, a
gold label.

The work is two vectorised passes over the ratings: (1) item x category counts, from which
every item's entropy, mode and leave-one-out mode follow; (2) per-rating surprisal and
deviation, aggregated per rater with ``np.bincount``. No Python loop runs over items or raters.

Reference: Simon, S. (2010). Using entropy and the surprisal value to measure the degree of
agreement with the consensus finding. http://www.pmean.com/.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

from ._errors import InvalidInputError, bad_choice
from ._results import Result, to_plain
from ._types import FloatArray, IntArray, Level
from .data.encoder import LabelsAs
from .data.ratings import Ratings, ReadReport
from .engines._pages import engine_pages, small_pages
from .engines._run import Engine, check_engine, ratings_in_memory
from .stats.counts import SPARSE_CELLS, ItemCategoryCounts
from .stats.patterns import count_patterns, index_dtype

__all__ = [
    "CLASSES",
    "MISSING_CATEGORY",
    "Consensus",
    "ConsensusMissing",
    "ConsensusReference",
    "ConsensusSummary",
    "consensus",
]

ConsensusReference: TypeAlias = Literal["all", "others"]
"""Which ratings give ``p``: all ratings of the item, or all but the one being scored."""

ConsensusMissing: TypeAlias = Literal["omit", "category"]
"""An assignment without a label: not a rating, or a category of its own."""

CLASSES: tuple[str, str, str, str] = ("good", "acceptable", "poor", "very poor")
"""The classes of a rating's deviation, from the lowest band to the highest."""

MISSING_CATEGORY = "(no label)"
"""Name of the category given to assignments without a label under ``missing="category"``."""

#: Deviations this close to a band edge count as on the edge: ``s - e`` of a rating that is
#: exactly as surprising as the average (a tie, an evenly split item) is 0 only up to rounding.
_EDGE = 1e-12


# ----------------------------------------------------------------------------- results


@dataclasses.dataclass(frozen=True, slots=True)
class ConsensusSummary(Result):
    """Whole-data figures of a :func:`consensus` analysis.

    Attributes
    ----------
    n_items, n_raters : int
        Items and raters in the data (items whose every label is missing included).
    n_ratings : int
        Ratings scored (assignments without a label included under ``missing="category"``).
    n_missing_as_category : int
        Assignments without a label scored as the category ``"(no label)"``.
    n_undefined : int
        Ratings whose deviation is undefined (under ``reference="others"``, the only rating of
        an item).
    mean_entropy : float
        Mean entropy over the items with at least one rating, in units of ``base``.
    mean_normalized_entropy : float
        Mean of the entropies divided by ``log(q)`` (0: unanimous, 1: evenly spread over all
        ``q`` categories); NaN when ``q = 1``.
    class_shares : mapping of str to float
        Share of the ratings with a defined deviation in each class.
    mean_ordinal_entropy : float
        Mean ordinal entropy over the rated items (NaN unless ``ordinal=True``).
    reason : str or None
        Why a summary value is NaN, when one is for these data (one category: no normalised
        entropy).
    """

    n_items: int
    n_raters: int
    n_ratings: int
    n_missing_as_category: int
    n_undefined: int
    mean_entropy: float
    mean_normalized_entropy: float
    class_shares: Mapping[str, float]
    mean_ordinal_entropy: float = math.nan
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the summary."""
        out = {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return out


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Consensus(Result):
    """The result of :func:`consensus`: per-item, per-rating and per-rater tables.

    Attributes
    ----------
    items : pandas.DataFrame
        One row per item, in the order of ``Ratings.items``: ``item``, ``n_ratings``,
        ``count_<category>`` for each category (when the counts are dense), ``mode`` (the
        first modal category in category order), ``n_modes`` (how many categories tie for
        the mode), ``modal_share``, ``entropy`` (all ratings of the item, units of ``base``),
        ``normalized_entropy`` (``entropy / log(q)``), ``contested_rank`` (1 = highest
        entropy; ties share the lowest rank), and ``ordinal_entropy`` (with ``ordinal=True``)
        and ``gold`` (with ``gold``).
    ratings : pandas.DataFrame
        One row per scored rating: ``item``, ``rater``, ``label``, ``p`` (share of the
        reference ratings in the same category), ``surprisal``, ``deviation``, ``class``
        (ordered categorical of :data:`CLASSES`); with ``ordinal=True`` also
        ``ordinal_surprisal`` and ``ordinal_deviation``.
    raters : pandas.DataFrame
        One row per rater, the raters who stray most first: ``rank``, ``rater``,
        ``n_ratings``, ``mean_deviation``, ``median_deviation``, ``share_good``,
        ``share_acceptable``, ``share_poor``, ``share_very_poor``, ``mean_surprisal``,
        ``consensus_n`` (ratings whose item has a unique leave-one-out modal label),
        ``consensus_agreement`` (share equal to it), ``consensus_kappa`` (Cohen's kappa of
        the rater against it), ``consensus_ia`` (informational agreement); with ``ordinal=True``
        ``mean_ordinal_deviation``; with ``gold`` ``gold_n``, ``gold_accuracy``, ``gold_kappa``.
    summary : ConsensusSummary
    counts : ItemCategoryCounts
        Item x category counts of the scored ratings (the first pass).
    categories : tuple
        The categories scored (``"(no label)"`` last under ``missing="category"``).
    reference, missing : str
    bands : tuple of float
    base : float
    ordinal : bool
    method : str
        The conventions used, in words.
    report : ReadReport or None
        What the stream or dask engine read (rows, ratings, missing labels); None when the
        ratings were given in memory (their report is on the :class:`~accord.Ratings`).
    """

    items: pd.DataFrame
    ratings: pd.DataFrame
    raters: pd.DataFrame
    summary: ConsensusSummary
    counts: ItemCategoryCounts
    categories: tuple[Any, ...]
    reference: ConsensusReference
    missing: ConsensusMissing
    bands: tuple[float, float, float]
    base: float
    ordinal: bool
    method: str
    report: ReadReport | None = None

    def to_dict(self, *, ratings: bool = False) -> dict[str, Any]:
        """Plain-Python dict: the options, the summary and the item and rater tables.

        Parameters
        ----------
        ratings : bool, default False
            Also include the per-rating table (one entry per rating: large).
        """
        out: dict[str, Any] = {
            "reference": self.reference,
            "missing": self.missing,
            "bands": list(self.bands),
            "base": self.base,
            "ordinal": self.ordinal,
            "categories": to_plain(self.categories),
            "method": self.method,
            "summary": self.summary.to_dict(),
            "items": to_plain(self.items),
            "raters": to_plain(self.raters),
        }
        if ratings:
            out["ratings"] = to_plain(self.ratings)
        return out

    def most_contested(self, n: int = 10) -> pd.DataFrame:
        """The ``n`` items with the highest entropy, most contested first."""
        ranked = self.items.dropna(subset=["contested_rank"])
        return ranked.sort_values(["contested_rank", "modal_share"], kind="stable").head(n)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Consensus({s.n_ratings} ratings, {s.n_items} items, {s.n_raters} raters, "
            f"reference={self.reference!r}, mean entropy {s.mean_entropy:.4g})"
        )


# ----------------------------------------------------------------------------- helpers


def _choice(name: str, value: object, allowed: Sequence[object]) -> None:
    if value not in allowed:
        raise InvalidInputError(bad_choice("consensus", name, allowed, value))


def _check_bands(bands: Sequence[float]) -> tuple[float, float, float]:
    try:
        values = tuple(float(b) for b in bands)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"bands must be three increasing numbers (the upper edges of good, acceptable and "
            f"poor, in units of base); got {bands!r}"
        ) from None
    if len(values) != 3 or not all(math.isfinite(v) for v in values):
        raise InvalidInputError(
            f"bands must be three finite numbers (the upper edges of good, acceptable and "
            f"poor); got {bands!r}"
        )
    if not values[0] < values[1] < values[2]:
        raise InvalidInputError(f"bands must be strictly increasing; got {bands!r}")
    return values[0], values[1], values[2]


def _xlogx(x: FloatArray) -> FloatArray:
    """Elementwise ``x log2 x`` with ``0 log 0 = 0``, shape of ``x``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = np.where(x > 0, x * np.log2(np.where(x > 0, x, 1.0)), 0.0)
    return out


def _h2(x: FloatArray) -> FloatArray:
    """Binary entropy in bits, ``-x log2 x - (1 - x) log2(1 - x)``, elementwise."""
    return -_xlogx(x) - _xlogx(1.0 - x)


class _Cells(NamedTuple):
    """Non-empty cells of a (group, code) count table.

    keys : int64 (n_cells,), sorted ``group * width + code``
    counts : int64 (n_cells,)
    dense : int64 (n_groups * width,) or None, the whole flat table when it is small
    """

    keys: IntArray
    counts: IntArray
    dense: IntArray | None


def _cells(keys: IntArray, size: int) -> _Cells:
    """Count ``keys`` in ``[0, size)``: by ``bincount`` when ``size`` is small, else by sort."""
    if size <= SPARSE_CELLS:
        flat = np.bincount(keys, minlength=size).astype(np.int64, copy=False)
        nz = np.flatnonzero(flat).astype(np.int64, copy=False)
        return _Cells(nz, flat[nz], flat)
    uniq, counts = np.unique(keys, return_counts=True)
    return _Cells(uniq.astype(np.int64, copy=False), counts.astype(np.int64), None)


def _count_of(cells: _Cells, query: IntArray) -> IntArray:
    """The count of each key in ``query`` (0 where absent), shape of ``query``."""
    if cells.dense is not None:
        out: IntArray = cells.dense[query]
        return out
    pos = np.searchsorted(cells.keys, query)
    pos_c = np.minimum(pos, max(cells.keys.size - 1, 0))
    found = (pos < cells.keys.size) & (cells.keys[pos_c] == query)
    return np.where(found, cells.counts[pos_c], 0).astype(np.int64)


def _group_entropy(cells: _Cells, width: int, n_groups: int) -> tuple[FloatArray, IntArray]:
    """Entropy (bits) of each group's distribution over ``width`` codes, and the number of
    non-empty codes per group. Shapes (n_groups,); NaN entropy for an empty group."""
    group = cells.keys // width
    counts = cells.counts.astype(np.float64)
    total = np.bincount(group, weights=counts, minlength=n_groups)
    slog = np.bincount(group, weights=_xlogx(counts), minlength=n_groups)
    nonempty = np.bincount(group, minlength=n_groups).astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.log2(total) - slog / total
    h = np.where(nonempty == 1, 0.0, np.maximum(h, 0.0))
    h = np.where(total > 0, h, np.nan)
    return h, nonempty


class _PairAgreement(NamedTuple):
    """Per-group agreement of paired labels ``x`` (the rater) and ``y`` (the reference).

    All arrays have shape (n_groups,): n, share agreeing, Cohen's kappa, informational
    agreement (NaN where undefined).
    """

    n: IntArray
    agreement: FloatArray
    kappa: FloatArray
    ia: FloatArray


def _pair_agreement(
    group: IntArray, x: IntArray, y: IntArray, n_groups: int, q: int
) -> _PairAgreement:
    """Percent agreement, Cohen's kappa and IA of ``x`` against ``y`` within each group.

    Cohen (1960): ``kappa = (p_o - p_e) / (1 - p_e)`` with ``p_e = sum_k p_x[k] p_y[k]``.
    Informational agreement (Casagrande, Fabris & Girometti 2020):
    ``IA = MI / min(H(X), H(Y))``, and where a marginal entropy is 0 the authors' continuity
    extension ``1 - m / q`` (``m``: non-empty categories of the other rater). Each group's
    q x q table is never formed when it would be large: counts are taken over non-empty cells.
    """
    return pair_agreement_from_cells(_cells((group * q + x) * q + y, n_groups * q * q), n_groups, q)


def _aggregate(keys: IntArray, counts: IntArray, size: int) -> _Cells:
    """Cells of ``keys`` in ``[0, size)`` weighted by ``counts`` (keys may repeat)."""
    if size <= SPARSE_CELLS:
        flat = np.bincount(keys, weights=counts, minlength=size).astype(np.int64)
        nz = np.flatnonzero(flat).astype(np.int64, copy=False)
        return _Cells(nz, flat[nz], flat)
    uniq, inverse = np.unique(keys, return_inverse=True)
    summed = np.bincount(inverse, weights=counts, minlength=uniq.size).astype(np.int64)
    return _Cells(uniq.astype(np.int64, copy=False), summed, None)


def pair_agreement_from_cells(xy_cells: _Cells, n_groups: int, q: int) -> _PairAgreement:
    """:func:`_pair_agreement` from the counts of ``(group * q + x) * q + y`` (sorted cells):
    the statistics are sums, so counts merged from batches give the same numbers."""
    group = xy_cells.keys // (q * q)
    x = (xy_cells.keys // q) % q
    y = xy_cells.keys % q
    cnt = xy_cells.counts
    cntf = cnt.astype(np.float64)
    n = np.bincount(group, weights=cntf, minlength=n_groups).astype(np.int64)
    nf = n.astype(np.float64)
    agree = np.bincount(group, weights=cntf * (x == y), minlength=n_groups)
    x_cells = _aggregate(group * q + x, cnt, n_groups * q)
    y_cells = _aggregate(group * q + y, cnt, n_groups * q)
    # sum_k n_x[g, k] n_y[g, k] = sum over pairs of n_y[g, x]
    cross = np.bincount(
        group,
        weights=_count_of(y_cells, group * q + x).astype(np.float64) * cntf,
        minlength=n_groups,
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        p_o = agree / nf
        p_e = cross / (nf * nf)
        kappa = np.where(p_e < 1.0, (p_o - p_e) / (1.0 - p_e), np.nan)
    kappa = np.where(n > 0, kappa, np.nan)
    p_o = np.where(n > 0, p_o, np.nan)

    hx, mx = _group_entropy(x_cells, q, n_groups)
    hy, my = _group_entropy(y_cells, q, n_groups)
    hxy, _ = _group_entropy(xy_cells, q * q, n_groups)
    mi = np.maximum(hx + hy - hxy, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ia = mi / np.minimum(hx, hy)
    ia = np.where(mx == 1, 1.0 - my / q, np.where(my == 1, 1.0 - mx / q, ia))
    ia = np.where(n > 0, ia, np.nan)
    return _PairAgreement(n, p_o, kappa, ia)


class _ItemStats(NamedTuple):
    """Pass 1: per-item figures from the item x category counts, shapes (n_items,).

    n : ratings; slog : sum_c n_c log2 n_c; m1 : modal count; t1 : categories at the modal count;
    k1, k1b : first and last modal category; m2 : largest count once the cell k1 is set aside.
    """

    n: FloatArray
    slog: FloatArray
    m1: IntArray
    t1: IntArray
    k1: IntArray
    k1b: IntArray
    m2: IntArray


def _item_stats(cells: _Cells, q: int, n_items: int) -> _ItemStats:
    """Per-item statistics from the non-empty (item, category) cells sorted by key."""
    item = cells.keys // q
    cat = cells.keys % q
    cnt = cells.counts
    cntf = cnt.astype(np.float64)
    n: FloatArray = np.asarray(np.bincount(item, weights=cntf, minlength=n_items), np.float64)
    slog: FloatArray = np.asarray(
        np.bincount(item, weights=_xlogx(cntf), minlength=n_items), np.float64
    )
    t1: IntArray = np.zeros(n_items, dtype=np.int64)
    m1 = np.zeros(n_items, dtype=np.int64)
    k1 = np.full(n_items, -1, dtype=np.int64)
    k1b = np.full(n_items, -1, dtype=np.int64)
    m2 = np.zeros(n_items, dtype=np.int64)
    if cnt.size:
        starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
        present = item[starts]
        m1[present] = np.maximum.reduceat(cnt, starts)
        is_max = cnt == m1[item]
        k1[present] = np.minimum.reduceat(np.where(is_max, cat, q), starts)
        k1b[present] = np.maximum.reduceat(np.where(is_max, cat, -1), starts)
        is_k1 = is_max & (cat == k1[item])
        m2[present] = np.maximum.reduceat(np.where(is_k1, 0, cnt), starts)
        t1 = np.bincount(item[is_max], minlength=n_items).astype(np.int64)
    return _ItemStats(n, slog, m1, t1, k1, k1b, m2)


def _leave_one_out_mode(label: IntArray, n_c: IntArray, st: _ItemStats, item: IntArray) -> IntArray:
    """For a rating in category ``label`` of ``item`` (whose count is ``n_c``): the unique
    modal category of the item's *other* ratings, -1 when they tie or there are none.
    Shapes (n,), one entry per (item, category) cell or per rating."""
    n = st.n[item]
    m1 = st.m1[item]
    t1 = st.t1[item]
    k1 = st.k1[item]
    k1b = st.k1b[item]
    m2 = st.m2[item]
    at_max = n_c == m1
    conditions = [
        n <= 1,
        at_max & (t1 == 1) & (m1 - 1 > m2),  # still the unique mode without this rating
        at_max & (t1 == 2),  # the other tied category becomes the unique mode
        ~at_max & (t1 == 1),  # the unique mode stays
    ]
    choices = [np.full_like(label, -1), label, np.where(label == k1, k1b, k1), k1]
    out: IntArray = np.select(conditions, choices, default=-1).astype(np.int64)
    return out


def _classes(d: FloatArray, bands: tuple[float, float, float]) -> npt.NDArray[np.int8]:
    """Class codes 0..3 of the deviations (``d <= b0``: 0, ..., ``d > b2``: 3); -1 for NaN."""
    cls = np.zeros(d.shape, dtype=np.int8)
    for edge in bands:  # three comparisons, vectorised over the ratings
        cls += d > edge + _EDGE
    cls[np.isnan(d)] = -1
    return cls


def gold_labels(frame: pd.DataFrame, item: str, gold: str) -> pd.Series:
    """The gold label of each item that has one, indexed by item id, from a long table.

    The ``gold`` column holds one label per item (repeated on the item's rows, or given on
    some of them); an item with two different gold labels, or no gold label at all, is an
    error naming the column (and the item).
    """
    given = frame[[item, gold]].dropna(subset=[gold])
    if given.empty:
        raise InvalidInputError(f"column {gold!r}: no row has a gold label")
    n_labels = given.groupby(item, sort=False)[gold].nunique()
    conflicting = n_labels[n_labels > 1]
    if len(conflicting):
        first = conflicting.index[0]
        values = sorted(map(str, given.loc[given[item] == first, gold].unique()))
        name = first.item() if hasattr(first, "item") else first
        raise InvalidInputError(
            f"column {gold!r}: item {name!r} has {len(values)} different gold labels "
            f"({', '.join(values)}); items with more than one: {len(conflicting)}"
        )
    labels: pd.Series = given.drop_duplicates(subset=[item]).set_index(item)[gold]
    return labels


def _gold_values(mapping: Mapping[Any, Any], items: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The gold label of each item id (None where there is none): the id itself as a key,
    else a key equal to it as text (gold read from a file keyed by ``"17"`` for item 17).
    Matched by hashing both sides at once, not one lookup per item."""
    keys = list(mapping)
    labels = np.empty(len(keys), dtype=object)
    labels[:] = list(mapping.values())
    values = np.full(items.size, None, dtype=object)
    if not keys or not items.size:
        return values
    # tupleize_cols=False: tuple ids stay ids (not the levels of a MultiIndex)
    at = np.asarray(
        pd.Index(keys, tupleize_cols=False).get_indexer(pd.Index(items, tupleize_cols=False)),
        dtype=np.int64,
    )
    found = at >= 0
    values[found] = labels[at[found]]
    missing = np.flatnonzero(~found)
    kinds = {
        pd.api.types.infer_dtype(keys, skipna=True),
        pd.api.types.infer_dtype(items, skipna=True),
    }
    if len(kinds) == 1 and not next(iter(kinds)).startswith("mixed"):
        # Ids and keys of one type: equal as text only when equal, so no second look.
        return values
    if missing.size:
        text = pd.Index([str(k) for k in keys], dtype=object)
        if text.has_duplicates:  # later keys win, as in a dict built from them
            keep = ~text.duplicated(keep="last")
            text, labels = text[keep], labels[keep]
        wanted = pd.Index([str(i) for i in items[missing].tolist()])
        again = np.asarray(text.get_indexer(wanted), dtype=np.int64)
        hit = again >= 0
        values[missing[hit]] = labels[again[hit]]
    return values


def _gold_codes(gold: Any, ratings: Ratings, categories: tuple[Any, ...]) -> IntArray:
    """Gold category code per item (-1 where none), shape (n_items,)."""
    if isinstance(gold, pd.Series):
        mapping: Mapping[Any, Any] = gold.to_dict()
    elif isinstance(gold, Mapping):
        mapping = gold
    else:
        arr = np.asarray(gold, dtype=object)
        if arr.ndim != 1 or arr.size != ratings.n_items:
            raise InvalidInputError(
                f"gold must be a mapping item -> label, a pandas Series indexed by item, or a "
                f"sequence with one label per item in Ratings.items ({ratings.n_items}); got "
                f"shape {arr.shape}"
            )
        mapping = dict(zip(ratings.items.tolist(), arr.tolist(), strict=True))
    values = _gold_values(mapping, ratings.items)
    present = ~np.asarray(pd.isna(values), dtype=bool)
    if not present.any():
        raise InvalidInputError(
            "gold: no item of the ratings has a gold label (compare the item ids: e.g. "
            f"{ratings.items[:3].tolist()!r} in the ratings, {list(mapping)[:3]!r} in gold)"
        )
    index = pd.Index(list(categories), dtype=object)
    given = values[present]
    codes = np.asarray(index.get_indexer(pd.Index(given, dtype=object)), dtype=np.int64)
    if np.any(codes < 0):
        as_text = pd.Index([str(c) for c in categories], dtype=object)
        retry = np.asarray(
            as_text.get_indexer(pd.Index([str(v) for v in given], dtype=object)), dtype=np.int64
        )
        codes = np.where(codes < 0, retry, codes)
    if np.any(codes < 0):
        bad = int(np.flatnonzero(codes < 0)[0])
        item = ratings.items[np.flatnonzero(present)[bad]]
        raise InvalidInputError(
            f"gold: label {given[bad]!r} of item {item!r} is not among the categories "
            f"{list(categories)!r}; declare the categories when building the Ratings"
        )
    out = np.full(ratings.n_items, -1, dtype=np.int64)
    out[present] = codes
    return out


class _Ordinal(NamedTuple):
    """Ordinal entropy per item (shape (n_items,)) and, per rating, ordinal surprisal and the
    reference ordinal entropy (shapes (n_ratings,))."""

    item_entropy: FloatArray
    surprisal: FloatArray
    entropy: FloatArray


def _ordinal(
    counts: IntArray, item: IntArray, label: IntArray, reference: ConsensusReference, lb: float
) -> _Ordinal:
    r"""Simon's ordinal (cumulative) entropy and surprisal.

    With :math:`F_j = P(X \le j)`, :math:`j = 1..q-1`: ordinal entropy
    :math:`\sum_j H_2(F_j)`; ordinal surprisal of category :math:`i`:
    :math:`\sum_{j<i} -\log(1 - F_j) + \sum_{j \ge i} -\log F_j`. Under ``"others"`` the
    :math:`F_j` of each rating leave that rating out. ``counts`` is dense (n_items, q).
    """
    n_items, q = counts.shape
    n = counts.sum(axis=1).astype(np.float64)[:, None]
    cum = np.cumsum(counts, axis=1)[:, :-1].astype(np.float64)  # N_j, j < q-1
    zeros = np.zeros((n_items, 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        f_all = cum / n
        item_entropy = _h2(f_all).sum(axis=1) / lb
        item_entropy[n[:, 0] == 0] = np.nan
        if reference == "all":
            below = -np.log2(1.0 - f_all)  # j < i
            above = -np.log2(f_all)  # j >= i
            h_below = _h2(f_all)
            h_above = h_below
        else:
            m = n - 1.0
            below = -np.log2(1.0 - cum / m)
            above = -np.log2((cum - 1.0) / m)
            h_below = _h2(cum / m)
            h_above = _h2((cum - 1.0) / m)
        # table[:, i] = sum_{j<i} below[:, j] + sum_{j>=i} above[:, j], i = 0..q-1
        below_cum = np.concatenate([zeros, np.cumsum(below, axis=1)], axis=1)
        above_rev = np.concatenate([np.cumsum(above[:, ::-1], axis=1)[:, ::-1], zeros], axis=1)
        hb_cum = np.concatenate([zeros, np.cumsum(h_below, axis=1)], axis=1)
        ha_rev = np.concatenate([np.cumsum(h_above[:, ::-1], axis=1)[:, ::-1], zeros], axis=1)
    # A category left of the rated one contributes only its own finite terms; a term is
    # infinite only for categories nobody (else) chose, which are never looked up.
    flat = item * q + label
    surprisal = (below_cum.ravel()[flat] + above_rev.ravel()[flat]) / lb
    entropy = (hb_cum.ravel()[flat] + ha_rev.ravel()[flat]) / lb
    if reference == "others":
        single = n[:, 0][item] <= 1
        surprisal[single] = np.nan
        entropy[single] = np.nan
    return _Ordinal(item_entropy, surprisal, entropy)


def _cell_scores(
    cells: _Cells,
    st: _ItemStats,
    q: int,
    reference: ConsensusReference,
    lb: float,
    band_edges: tuple[float, float, float],
) -> tuple[FloatArray, FloatArray, FloatArray, npt.NDArray[np.int8], IntArray]:
    """Pass 2 per non-empty (item, category) cell: p, surprisal, deviation, class and the
    leave-one-out modal category (every rating of a cell shares them). Shapes (n_cells,)."""
    cell_item = cells.keys // q
    n_c = cells.counts.astype(np.float64)
    n_i = st.n[cell_item]
    if reference == "all":
        p_cell = n_c / n_i
        s_cell = (np.log2(n_i) - np.log2(n_c)) / lb
        d_cell = (st.slog[cell_item] / n_i - np.log2(n_c)) / lb  # s - e, in one step
        d_cell[n_c == n_i] = 0.0  # a unanimous item: exactly 0, not 0 up to rounding
    else:
        m = n_i - 1.0
        with np.errstate(divide="ignore", invalid="ignore"):
            p_cell = (n_c - 1.0) / m
            s_cell = -np.log2(p_cell) / lb
            slog_others = st.slog[cell_item] - _xlogx(n_c) + _xlogx(n_c - 1.0)
            e_others = (np.log2(m) - slog_others / m) / lb
            e_others = np.where(n_c == n_i, 0.0, np.maximum(e_others, 0.0))
            d_cell = s_cell - e_others
        single = m <= 0
        p_cell[single] = np.nan
        s_cell[single] = np.nan
        d_cell[single] = np.nan
    cls_cell = _classes(d_cell, band_edges)
    loo_cell = _leave_one_out_mode(
        cells.keys % q, cells.counts, st, cell_item
    )  # the others' unique modal category, -1 if none
    return p_cell, s_cell, d_cell, cls_cell, loo_cell


def _assemble(
    rater_cols: dict[str, Any],
    *,
    mean_dev: FloatArray,
    median_dev: FloatArray,
    n_items: int,
    n_raters: int,
    categories: tuple[Any, ...],
    items: npt.NDArray[Any],
    cells: _Cells,
    st: _ItemStats,
    item_entropy: FloatArray,
    lb: float,
    ordinal_item_entropy: FloatArray | None,
    gold_code: IntArray | None,
    ratings_table: pd.DataFrame,
    n_scored: int,
    n_missing: int,
    n_defined: int,
    class_total: IntArray,
    counts: ItemCategoryCounts,
    reference: ConsensusReference,
    missing: ConsensusMissing,
    band_edges: tuple[float, float, float],
    base: float,
    ordinal: bool,
    note: str,
    report: ReadReport | None = None,
    copy_items: bool = True,
    contested_rank: Any = None,
) -> Consensus:
    """The rater and item tables, the summary and the method, from the per-rater columns
    and the per-item statistics (shared by the memory and the stream/dask engines).
    ``copy_items=False`` puts ``items`` in the table as it is (a caller's own array);
    ``contested_rank`` (an Int64 array) is the ranks of ``item_entropy`` when the caller has
    them (the engines rank the count patterns), else they are ranked here."""
    q = len(categories)
    raters_table = pd.DataFrame(rater_cols)
    order = np.lexsort(
        (
            np.arange(n_raters),
            -np.nan_to_num(median_dev, nan=-np.inf),
            -np.nan_to_num(mean_dev, nan=-np.inf, posinf=np.inf),
        )
    )
    raters_table = raters_table.iloc[order].reset_index(drop=True)
    raters_table.insert(0, "rank", np.arange(1, n_raters + 1))

    # ---- items table
    cat_array = np.empty(q, dtype=object)
    cat_array[:] = list(categories)
    rated = st.n > 0
    # The ranks first: sorting 10M entropies takes a few temporary arrays, which are gone
    # before the table's own columns are made.
    if contested_rank is None:
        contested = pd.Series(item_entropy).rank(method="min", ascending=False)
        contested_rank = contested.astype("Int64").array
        del contested
    with np.errstate(divide="ignore", invalid="ignore"):
        if q > 1:
            normalized = item_entropy * lb
            normalized /= math.log2(q)  # in place: (entropy * lb) / log2(q)
        else:
            normalized = np.full(n_items, np.nan)
    # The means too, while the table's columns are not there yet (nanmean copies).
    mean_entropy = float(np.nanmean(item_entropy)) if rated.any() else math.nan
    mean_normalized = float(np.nanmean(normalized)) if rated.any() and q > 1 else math.nan
    item_cols: dict[str, Any] = {"item": items, "n_ratings": st.n.astype(np.int64, copy=False)}
    if cells.dense is not None:
        dense_counts = cells.dense.reshape(n_items, q)
        for c in range(q):
            item_cols[f"count_{categories[c]}"] = np.ascontiguousarray(dense_counts[:, c])
    mode = cat_array.take(np.maximum(st.k1, 0))
    mode[~rated] = None
    modal_share = np.full(n_items, np.nan)
    np.divide(st.m1, st.n, out=modal_share, where=rated)
    item_cols.update(
        mode=mode,
        n_modes=st.t1,
        modal_share=modal_share,
        entropy=item_entropy,
        normalized_entropy=normalized,
    )
    item_cols["contested_rank"] = contested_rank
    if ordinal_item_entropy is not None:
        item_cols["ordinal_entropy"] = ordinal_item_entropy
    if gold_code is not None:
        gold_labels = np.empty(n_items, dtype=object)
        gold_labels[gold_code >= 0] = cat_array[gold_code[gold_code >= 0]]
        item_cols["gold"] = gold_labels
    # Every column is a fresh array (the item ids copied): no second, consolidated copy of
    # the table while it is built (millions of items with the stream and dask engines).
    if copy_items and isinstance(items, np.ndarray):
        item_cols["item"] = items.copy()
    items_table = pd.DataFrame(item_cols, copy=False)

    summary = ConsensusSummary(
        reason=(
            f"one category ({categories[0]!s}): the normalised entropy, entropy / log q, is 0/0"
            if q == 1
            else None
        ),
        n_items=n_items,
        n_raters=n_raters,
        n_ratings=n_scored,
        n_missing_as_category=n_missing,
        n_undefined=n_scored - n_defined,
        mean_entropy=mean_entropy,
        mean_normalized_entropy=mean_normalized,
        class_shares={
            name: (float(class_total[k]) / n_defined if n_defined else math.nan)
            for k, name in enumerate(CLASSES)
        },
        mean_ordinal_entropy=(
            float(np.nanmean(ordinal_item_entropy))
            if ordinal_item_entropy is not None
            else math.nan
        ),
    )
    method = (
        f"entropy and surprisal in base {base:g} (Simon 2010); p from "
        + (
            "all ratings of the item"
            if reference == "all"
            else "the other ratings of the item (leave-one-out)"
        )
        + "; "
        + (
            "assignments without a label omitted"
            if missing == "omit"
            else f"assignments without a label scored as the category {MISSING_CATEGORY!r}"
        )
        + f"; classes good <= {band_edges[0]:g} < acceptable <= {band_edges[1]:g} < poor <= "
        f"{band_edges[2]:g} < very poor on the deviation; raters against the unique "
        "leave-one-out modal label (Cohen's kappa, informational agreement)" + note
    )
    return Consensus(
        items=items_table,
        ratings=ratings_table,
        raters=raters_table,
        summary=summary,
        counts=counts,
        categories=categories,
        reference=reference,
        missing=missing,
        bands=band_edges,
        base=float(base),
        ordinal=bool(ordinal),
        method=method,
        report=report,
    )


# ----------------------------------------------------------------------------- count patterns


#: Dense accumulators per rater up to this many cells; beyond, sorted (key, count) pairs.
DENSE_CELLS = 20_000_000


#: (pattern, category) cells per chunk of patterns in pass 1, and (item, category) cells
#: per chunk when patterns are formed or gathered: per-cell temporaries stay at a few tens
#: of MB however many items there are.
CHUNK_CELLS = 500_000


def _chunk_cells(counts: Any, lo: int, hi: int, q: int) -> _Cells:
    """The non-empty (row, category) cells of rows ``lo:hi`` (keys local to the chunk)."""
    if isinstance(counts, np.ndarray):
        flat = counts[lo:hi].reshape(-1)
        nz = np.flatnonzero(flat).astype(np.int64, copy=False)
        return _Cells(nz, flat[nz].astype(np.int64, copy=False), None)
    coo = counts[lo:hi].tocoo()
    keys = coo.row.astype(np.int64) * q + coo.col.astype(np.int64)
    order = np.argsort(keys, kind="stable")
    vals = np.asarray(coo.data, dtype=np.int64)[order]
    keys = keys[order]
    present = vals > 0
    return _Cells(keys[present], vals[present], None)


def _dense_rows(counts: Any, rows: IntArray) -> IntArray:
    """Rows of the counts as a dense int64 array."""
    if isinstance(counts, np.ndarray) and rows.size == counts.shape[0]:
        return counts.astype(np.int64, copy=False)  # every row, in order: no copy
    out = counts[rows]
    return np.asarray(out if isinstance(out, np.ndarray) else out.toarray(), dtype=np.int64)


class _PatternStats(NamedTuple):
    """Pass 1, per pattern: arrays of shape (n_patterns + 1,), the last entry that of an
    item without a rating (so that an item's pattern -1 reads it)."""

    st: _ItemStats
    entropy: FloatArray
    ordinal_entropy: FloatArray | None
    d_values: FloatArray


def _pattern_stats(
    counts: Any,
    n_raters: int,
    *,
    reference: Any,
    lb: float,
    bands: tuple[float, float, float],
    ordinal: bool,
) -> _PatternStats:
    """Per-pattern statistics, entropies and the sorted distinct deviations, a chunk of
    patterns at a time (no per-cell table is kept)."""
    n_pat, q = counts.shape
    size = n_pat + 1
    nf = np.zeros(size)
    slog = np.zeros(size)
    # Modal counts (at most one rating per item and rater) and category codes in the
    # smallest integers that hold them.
    small_n = np.int16 if n_raters < np.iinfo(np.int16).max else np.int64
    small_q = np.int8 if q < np.iinfo(np.int8).max else np.int64
    ints = [np.zeros(size, dtype=small_n) for _ in range(3)] + [
        np.full(size, -1, dtype=small_q) for _ in range(2)
    ]
    entropy = np.full(size, np.nan)
    ordinal_entropy = np.full(size, np.nan) if ordinal else None
    distinct: list[FloatArray] = []
    step = max(1, CHUNK_CELLS // max(q, 1))
    for lo in range(0, n_pat, step):
        hi = min(n_pat, lo + step)
        part = _chunk_cells(counts, lo, hi, q)
        sc = _item_stats(part, q, hi - lo)
        nf[lo:hi], slog[lo:hi] = sc.n, sc.slog
        for target, value in zip(ints, (sc.m1, sc.t1, sc.m2, sc.k1, sc.k1b), strict=True):
            target[lo:hi] = value
        with np.errstate(divide="ignore", invalid="ignore"):
            h = np.log2(sc.n) - sc.slog / sc.n
        h = np.where(sc.m1 == sc.n, 0.0, np.maximum(h, 0.0)) / lb
        h[sc.n == 0] = np.nan
        entropy[lo:hi] = h
        _, _, d_part, cls_part, _ = _cell_scores(part, sc, q, reference, lb, bands)
        distinct.append(np.asarray(pd.unique(d_part[cls_part >= 0]), dtype=np.float64))
        if ordinal_entropy is not None:
            res = _ordinal(
                _dense_rows(counts, np.arange(lo, hi)), part.keys // q, part.keys % q, reference, lb
            )
            ordinal_entropy[lo:hi] = res.item_entropy
    m1, t1, m2, k1, k1b = ints
    st = _ItemStats(nf, slog, m1, t1, k1, k1b, m2)
    d_values = np.unique(np.concatenate(distinct)) if distinct else np.zeros(0)
    return _PatternStats(st, entropy, ordinal_entropy, d_values)


def _pattern_ranks(
    entropy: FloatArray, weights: IntArray
) -> tuple[IntArray, npt.NDArray[np.bool_]]:
    """Each pattern's ``contested_rank``: 1 + the number of items with a strictly higher
    entropy (pandas' ``rank(method="min", ascending=False)`` over the items), and whether it
    is missing (NaN entropy). ``entropy`` has the shape of :class:`_PatternStats`' arrays,
    ``weights`` one entry less (no items read the last entry)."""
    w = np.r_[weights, 0].astype(np.float64)
    ok = ~np.isnan(entropy) & (w > 0)
    values, inverse = np.unique(entropy[ok], return_inverse=True)
    per_value = np.bincount(inverse.reshape(-1), weights=w[ok], minlength=values.size)
    above = (per_value.sum() - np.cumsum(per_value)).astype(np.int64)
    rank = np.zeros(entropy.size, dtype=np.int64)
    rank[ok] = 1 + above[inverse.reshape(-1)]
    return rank, ~ok


def _count(keys: IntArray, size: int, weights: FloatArray | None = None) -> Any:
    """Counts of ``keys`` in ``[0, size)`` (each counted ``weights`` times, else once):
    dense, or sorted (keys, counts) when large."""
    if size <= DENSE_CELLS:
        return np.bincount(keys, weights=weights, minlength=size).astype(np.int64, copy=False)
    uniq, inverse = np.unique(keys, return_inverse=True)
    counts = np.bincount(inverse.reshape(-1), weights=weights, minlength=uniq.size)
    return uniq.astype(np.int64), counts.astype(np.int64)


def _merge_counts(a: Any, b: Any) -> Any:
    if isinstance(a, np.ndarray):
        return a + b
    keys = np.concatenate([a[0], b[0]])
    counts = np.concatenate([a[1], b[1]])
    uniq, inverse = np.unique(keys, return_inverse=True)
    return uniq, np.bincount(inverse, weights=counts, minlength=uniq.size).astype(np.int64)


def _as_cells(counts: Any) -> tuple[IntArray, IntArray]:
    """Sorted non-empty (keys, counts)."""
    if isinstance(counts, np.ndarray):
        nz = np.flatnonzero(counts).astype(np.int64)
        return nz, counts[nz]
    keys, vals = counts
    return keys, vals


def _median_from_counts(
    keys: IntArray, counts: IntArray, n_groups: int, values: FloatArray
) -> FloatArray:
    """Median per group from counts of sorted ``group * n_values + code`` keys, ``code``
    the index of a value in the sorted distinct ``values``; NaN for an empty group."""
    n_values = max(values.size, 1)
    group = keys // n_values
    code = keys % n_values
    total = np.bincount(group, weights=counts, minlength=n_groups).astype(np.int64)
    has = total > 0
    lo = (total - 1) // 2
    hi = total // 2
    before = np.cumsum(total) - total
    cum = np.cumsum(counts)
    out = np.full(n_groups, np.nan)
    at_lo = np.searchsorted(cum, (before + lo)[has], side="right")
    at_hi = np.searchsorted(cum, (before + hi)[has], side="right")
    out[has] = (values[code[at_lo]] + values[code[at_hi]]) / 2.0
    return out


def _gather(
    values: npt.NDArray[Any],
    index: npt.NDArray[np.signedinteger[Any]],
    out: npt.NDArray[Any] | None = None,
) -> Any:
    """``values[index]`` per item (index -1 reads the last entry), a chunk at a time, into
    ``out`` when given (shape of ``index``, dtype of ``values``)."""
    if out is None:
        out = np.empty(index.size, dtype=values.dtype)
    step = max(1, CHUNK_CELLS * 8)
    for lo in range(0, index.size, step):
        # "wrap": -1 reads the last entry, and the output is not buffered as with "raise"
        np.take(values, index[lo : lo + step], out=out[lo : lo + step], mode="wrap")
    return out


def _item_columns(
    ps: Any, weights: npt.NDArray[Any], item_pattern: npt.NDArray[np.signedinteger[Any]]
) -> tuple[_ItemStats, FloatArray, Any]:
    """The items' statistics, entropies and contested ranks, gathered from their count
    patterns' (``ps``: the per-pattern statistics; ``weights``: items per pattern)."""
    st_p = ps.st
    unused = np.zeros(0, dtype=np.int64)
    st = _ItemStats(
        _gather(st_p.n.astype(np.int64), item_pattern),
        np.zeros(0),
        _gather(st_p.m1, item_pattern),
        _gather(st_p.t1.astype(np.int64), item_pattern),
        _gather(st_p.k1, item_pattern),
        unused,
        unused,
    )
    rank, no_rank = _pattern_ranks(ps.entropy, weights)
    contested_rank = pd.arrays.IntegerArray(
        _gather(rank, item_pattern), _gather(no_rank, item_pattern)
    )
    return st, _gather(ps.entropy, item_pattern), contested_rank


#: Ratings per chunk of the memory engine's per-rating pass (longer when a per-rater
#: accumulator is larger, so that adding it once per chunk costs less than the chunk).
RATING_CHUNK = 1 << 20

#: (pattern, category) cells up to which the cell scores are laid out densely, so that a
#: rating's key ``pattern * q + category`` is its slot; beyond, the key is located among
#: the non-empty cells.
TABLE_CELLS = 1 << 22


class _CellTables(NamedTuple):
    """Scores of the (pattern, category) cells, one slot per cell, and ``locate``, which maps
    keys ``pattern * q + category`` to slots.

    p, surprisal, deviation : float64; cls : int8 (-1: undefined); loo1 : int64, one more
    than the leave-one-out modal category (0: none); d_code1 : int64, one more than the
    index of the deviation among the sorted distinct deviations (0: undefined). Shifted by
    one, a code needs no mask: the undefined ones are counted apart, in slot 0.
    """

    p: FloatArray
    surprisal: FloatArray
    deviation: FloatArray
    cls: npt.NDArray[np.int8]
    loo1: IntArray
    d_code1: IntArray
    locate: Callable[[IntArray], IntArray]


def _unshift(keys: IntArray, counts: IntArray, width: int) -> tuple[IntArray, IntArray]:
    """Counts of keys ``g * (width + 1) + code + 1`` as counts of ``g * width + code``, the
    entries of slot 0 (no code) left out; ``keys`` sorted, and so is the result."""
    g, slot = np.divmod(keys, width + 1)
    coded = slot > 0
    out: IntArray = g[coded] * width + slot[coded] - 1
    return out, counts[coded]


def _cell_tables(
    counts: Any,
    ps: _PatternStats,
    q: int,
    reference: ConsensusReference,
    lb: float,
    bands: tuple[float, float, float],
) -> _CellTables:
    """Every non-empty (pattern, category) cell scored once (:func:`_cell_scores`)."""
    n_pat = int(counts.shape[0])
    cells = _chunk_cells(counts, 0, n_pat, q)
    p, s, d, cls, loo = _cell_scores(cells, ps.st, q, reference, lb, bands)
    d_code1 = np.where(cls >= 0, np.searchsorted(ps.d_values, d) + 1, 0).astype(np.int64)
    loo1 = loo + 1
    space = n_pat * q
    if space <= TABLE_CELLS:

        def spread(values: npt.NDArray[Any], fill: float) -> npt.NDArray[Any]:
            out = np.full(space, fill, dtype=values.dtype)
            out[cells.keys] = values
            return out

        return _CellTables(
            spread(p, np.nan),
            spread(s, np.nan),
            spread(d, np.nan),
            spread(cls, -1),
            spread(loo1, 0),
            spread(d_code1, 0),
            lambda keys: keys,
        )
    locate: Callable[[IntArray], IntArray]
    if space <= SPARSE_CELLS:
        slot = np.full(space, -1, dtype=index_dtype(cells.keys.size))
        slot[cells.keys] = np.arange(cells.keys.size, dtype=slot.dtype)
        locate = slot.take
    else:
        keys = cells.keys

        def locate(wanted: IntArray) -> IntArray:
            found: IntArray = np.searchsorted(keys, wanted)
            return found

    return _CellTables(p, s, d, cls, loo1, d_code1, locate)


# ----------------------------------------------------------------------------- entry point


@engine_pages
def consensus(
    ratings: Ratings | Any,
    *,
    reference: ConsensusReference = "all",
    missing: ConsensusMissing = "omit",
    bands: Sequence[float] = (0.0, 1.0, 2.0),
    base: float = 2.0,
    gold: Mapping[Any, Any] | pd.Series | Sequence[Any] | npt.ArrayLike | None = None,
    ordinal: bool = False,
    engine: Engine = "memory",
    item: str | None = None,
    rater: str | None = None,
    label: str | None = None,
    level: Level = "nominal",
    categories: Sequence[Any] | None = None,
    scheduler: Any = None,
    progress: Callable[[int, int | None], None] | None = None,
    batch_size: int = 1_000_000,
    na_values: Sequence[str] | None = None,
    labels_as: LabelsAs = "auto",
) -> Consensus:
    r"""Which items are contested, which ratings and raters stray from the consensus.

    For item :math:`i` rated :math:`n_i` times, :math:`n_{ic}` of them in category :math:`c`:

    .. math::

        p_{ic} = \frac{n_{ic}}{n_i}, \qquad
        e_i = -\sum_c p_{ic} \log_b p_{ic}, \qquad
        s = -\log_b p_{ic}, \qquad d = s - e_i

    for a rating in category :math:`c` (entropy :math:`e_i`, surprisal :math:`s`, deviation
    :math:`d`). The entropy is the mean surprisal of the item's ratings, so the deviations of an
    item sum to zero. With ``reference="others"`` the rating is left out:
    :math:`p = (n_{ic} - 1) / (n_i - 1)` and :math:`e` is the entropy of the other ratings.

    Parameters
    ----------
    ratings : Ratings, or where the ratings are
        The ratings (any level; the labels are treated as categories); with the memory
        engine also a long data frame (pandas, polars, pyarrow, DuckDB) or a file path, with
        ``item``, ``rater`` and ``label``. With ``engine="stream"``: Parquet/CSV paths, a
        glob or a folder; with ``engine="dask"`` also a dask DataFrame (pass ``item``,
        ``rater``, ``label``).
    reference : {"all", "others"}, default "all"
        ``"all"``: the rating being scored counts in ``p`` (Simon 2010). ``"others"``:
        leave-one-out, ``p`` is the share of the *other* raters of the item who chose the same
        category; undefined (NaN) for the only rating of an item, and infinite surprisal for a
        rating no other rater shares.
    missing : {"omit", "category"}, default "omit"
        ``"omit"``: an assignment without a label is not a rating. ``"category"``: it is a
        rating in a category of its own, ``"(no label)"`` (Simon 2010, sperm morphology
        example). Needs the assignments to be known: rows with an empty label, kept by
        :class:`Ratings` as ``missing_item_codes`` / ``missing_rater_codes``.
    bands : three increasing numbers, default (0, 1, 2)
        Upper edges of the classes good, acceptable and poor, on the deviation in units of
        ``base``: good :math:`d \le b_0`, acceptable :math:`b_0 < d \le b_1`, poor
        :math:`b_1 < d \le b_2`, very poor :math:`d > b_2`.
    base : float, default 2
        Logarithm base (2: bits).
    gold : mapping, Series or sequence, optional
        A gold label per item: a mapping or Series from item id to label, or a sequence aligned
        with ``ratings.items``. Items without one (missing) are left out of the gold columns.
    ordinal : bool, default False
        Also compute Simon's ordinal entropy and ordinal surprisal (the categories in their
        order; needs level ordinal, interval or ratio and ``missing="omit"``).
    engine : {"memory", "stream", "dask"}, default "memory"
        ``"stream"`` and ``"dask"`` count the items from files (or partitions), then read the
        ratings a second time to sum each rater's surprisals and deviations, without
        collecting them: the ``ratings`` table is then empty (it has one row per rating; use
        the memory engine to get it), every other table is the memory engine's.
    item, rater, label : str, optional
        Column names (stream and dask engines).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of the labels read from files (stream and dask engines).
    categories : sequence, optional
        The declared category domain of labels read from files.
    scheduler : str or distributed.Client, optional
        ``engine="dask"``: a scheduler name, a client or an address.
    progress : callable, optional
        ``engine="stream"``: ``progress(rows_read, total_rows_or_None)`` after each batch.
    batch_size : int, default 1_000_000
        ``engine="stream"``: rows per batch.
    na_values, labels_as
        For ratings read from files or frames: what counts as a missing label and how a text
        file's labels are typed, as in :meth:`accord.Ratings.from_long`.

    Returns
    -------
    Consensus
        ``items``, ``ratings`` and ``raters`` tables, a ``summary``, the item x category
        ``counts``, and the options used. See :class:`Consensus` for every column.

    Raises
    ------
    InvalidInputError
        An option outside its domain, bands not increasing, a gold label outside the
        categories, ``ordinal=True`` on nominal data or with ``missing="category"``.

    Notes
    -----
    *Classes.* The bands are accord's documented choice; Simon (2010) gives examples, not
    thresholds. With the default bands they reproduce every example of Simon (2010): agreeing
    with 80% of the raters (:math:`d = -0.40`) is good; a category chosen by 35% while 55% chose
    the mode (:math:`d \approx 0.18`) acceptable; 20% against 80% (:math:`d = 1.60`) poor;
    10% against 90% (:math:`d = 2.85`) and the 1-of-8 dissenter (:math:`d = 2.46`) very poor.
    A deviation within :math:`10^{-12}` of a band edge counts as on the edge (``s - e`` of a
    rating exactly as surprising as average is 0 only up to rounding).

    *Raters.* ``mean_deviation`` averages a rater's deviations: above 0, the rater's choices
    are more surprising than the panel's average choice on the same items. Raters are sorted by
    it (then by ``median_deviation``), so the raters who stray most come first. Beside it, each
    rating is compared with the **leave-one-out consensus label**, the unique modal category of
    the other ratings of the item (ratings whose others tie, or have no other rating, are left
    out and not counted in ``consensus_n``): percent agreement, Cohen's (1960) kappa and the
    informational agreement of Casagrande, Fabris & Girometti (2020), with the authors'
    continuity extension where a marginal entropy is 0. A model judge is one more rater; its
    row sits beside the humans'. Per-rater values that are undefined (no compared rating,
    kappa with a single category on both sides) are NaN.

    *Agreement with the consensus is not correctness* (Simon 2010): the lone dissenter may be
    the only one who is right. Where a gold label is known, pass ``gold`` and read
    ``gold_accuracy`` and ``gold_kappa``.

    *Ordinal scales* (Simon 2010, "ordinal surprisals"): with :math:`F_j = P(X \le j)`, the
    ordinal entropy is :math:`\sum_{j<q} H_2(F_j)` and the ordinal surprisal of category
    :math:`i` is :math:`\sum_{j<i} -\log(1 - F_j) + \sum_{i \le j < q} -\log F_j`; its
    p-weighted mean is the ordinal entropy, and ``ordinal_deviation`` is the difference. A
    rating one category off the mode is then less surprising than one three categories off.

    References
    ----------
    Simon, S. (2010). Using entropy and the surprisal value to measure the degree of agreement
    with the consensus finding. *P.Mean* (blog), 2010-04-11.

    Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational and
    Psychological Measurement*, 20(1), 37-46. https://doi.org/10.1177/001316446002000104

    Casagrande, A., Fabris, F., & Girometti, R. (2020). Beyond kappa: an informational index
    for diagnostic agreement in dichotomous and multivalue ordered-categorical ratings.
    *Medical & Biological Engineering & Computing*, 58, 3089-3099.
    https://doi.org/10.1007/s11517-020-02261-2

    Examples
    --------
    Simon's panel: three items, four raters; ``W4`` dissents on the first and third item.

    >>> import accord
    >>> r = accord.Ratings.from_wide(
    ...     [["A", "A", "A", "B"], ["B", "B", "C", "C"], ["C", "C", "C", "A"]])
    >>> c = accord.consensus(r)
    >>> c.items["entropy"].round(6).tolist()
    [0.811278, 1.0, 0.811278]
    >>> c.raters[["rater", "mean_deviation"]].round(4).values.tolist()
    [[3, 0.7925], [0, -0.2642], [1, -0.2642], [2, -0.2642]]

    Simon (2010)'s eight raters, four A, two B, one C and one D: entropy 1.75 bits, surprisals
    1, 2, 3, 3, deviations -0.75, 0.25, 1.25, 1.25.

    >>> r = accord.Ratings.from_wide([list("AAAABBCD")])
    >>> c = accord.consensus(r)
    >>> float(c.items["entropy"].iloc[0])
    1.75
    >>> c.ratings.drop_duplicates("label")[["label", "surprisal", "deviation", "class"]]
      label  surprisal  deviation       class
    0     A        1.0      -0.75        good
    4     B        2.0       0.25  acceptable
    6     C        3.0       1.25        poor
    7     D        3.0       1.25        poor
    """
    _choice("reference", reference, ("all", "others"))
    _choice("missing", missing, ("omit", "category"))
    check_engine(engine, "consensus")
    if engine != "memory":
        from .engines._consensus import consensus_from_engine

        return consensus_from_engine(
            ratings,
            engine,
            reference=reference,
            missing=missing,
            bands=bands,
            base=base,
            gold=gold,
            ordinal=ordinal,
            item=item,
            rater=rater,
            label=label,
            level=level,
            categories=categories,
            scheduler=scheduler,
            progress=progress,
            batch_size=batch_size,
            na_values=na_values,
            labels_as=labels_as,
        )
    ratings = ratings_in_memory(
        ratings,
        owner="consensus",
        item=item,
        rater=rater,
        label=label,
        level=level,
        categories=categories,
        na_values=na_values,
        labels_as=labels_as,
    )
    # Its large arrays (the ratings table's columns) are written once, a chunk at a time:
    # without numpy's huge-page advice, as with the other engines (engines/_pages.py).
    with small_pages():
        return _consensus_in_memory(
            ratings,
            reference=reference,
            missing=missing,
            bands=bands,
            base=base,
            gold=gold,
            ordinal=ordinal,
        )


def _consensus_in_memory(
    ratings: Ratings,
    *,
    reference: ConsensusReference,
    missing: ConsensusMissing,
    bands: Sequence[float],
    base: float,
    gold: Mapping[Any, Any] | pd.Series | Sequence[Any] | npt.ArrayLike | None,
    ordinal: bool,
) -> Consensus:
    """:func:`consensus` on ratings in memory."""
    if not isinstance(ratings, Ratings):
        raise InvalidInputError(
            f"consensus needs a Ratings (see Ratings.from_long, Ratings.from_wide, "
            f"read_ratings), or a data frame or path with item=, rater= and label=; got a "
            f"{type(ratings).__name__}"
        )
    band_edges = _check_bands(bands)
    try:
        lb = math.log2(float(base))  # bits per unit of base; 1.0 for bits
    except (TypeError, ValueError):
        lb = math.nan
    if not (math.isfinite(lb) and lb > 0):
        raise InvalidInputError(f"base must be a number greater than 1; got {base!r}")
    if ordinal and ratings.level == "nominal":
        raise InvalidInputError(
            "ordinal=True needs ordered categories: build the Ratings with level='ordinal' "
            "(or interval/ratio); the level is 'nominal'"
        )
    if ordinal and missing == "category" and ratings.missing_item_codes.size:
        raise InvalidInputError(
            "ordinal=True cannot place the category '(no label)' on the ordered scale; use "
            "missing='omit' with ordinal=True"
        )

    # ---- the ratings to score: codes (n,), with missing assignments as category q0
    categories: tuple[Any, ...] = tuple(ratings.categories)
    item, rater, label = ratings.item_codes, ratings.rater_codes, ratings.label_codes
    n_missing = 0
    if missing == "category" and ratings.missing_item_codes.size:
        if any(isinstance(c, str) and c == MISSING_CATEGORY for c in categories):
            raise InvalidInputError(
                f"missing='category' names the category {MISSING_CATEGORY!r}, but the labels "
                "already use that name"
            )
        n_missing = int(ratings.missing_item_codes.size)
        item = np.concatenate([item, ratings.missing_item_codes])
        rater = np.concatenate([rater, ratings.missing_rater_codes])
        label = np.concatenate([label, np.full(n_missing, len(categories), dtype=np.int64)])
        categories = (*categories, MISSING_CATEGORY)
    q = len(categories)
    n_items, n_raters = ratings.n_items, ratings.n_raters

    # ---- pass 1: item x category counts, and their distinct rows (count patterns)
    key = item * q + label
    cells = _cells(key, n_items * q)
    del key
    if cells.dense is not None:
        # Column-major, and read-only: the items table's count columns are views of the
        # result's item counts, not copies (a change to the table copies them).
        counts_any: Any = np.asfortranarray(cells.dense.reshape(n_items, q))
        counts_any.flags.writeable = False
        cells = _Cells(cells.keys, cells.counts, counts_any)
    else:
        from scipy import sparse as sp

        counts_any = sp.csr_array(
            (cells.counts, (cells.keys // q, cells.keys % q)), shape=(n_items, q), dtype=np.int64
        )
    counts = ItemCategoryCounts(counts_any, categories)
    # Every per-item and per-rating score is a function of the item's row of counts: scored
    # once per distinct row (with 10 raters and 5 categories, at most 1,001 of them).
    patterns = count_patterns(counts_any)
    largest = int(cells.counts.max()) if cells.counts.size else 0
    ps = _pattern_stats(
        patterns.counts,
        max(n_raters, largest),
        reference=reference,
        lb=lb,
        bands=band_edges,
        ordinal=False,
    )
    tables = _cell_tables(patterns.counts, ps, q, reference, lb, band_edges)

    # ---- pass 2, a chunk of ratings at a time: each rating's scores are its (pattern,
    # category) cell's, written into the columns of the ratings table; the per-rater
    # counts (deviation values, leave-one-out agreement) are summed chunk by chunk.
    n = int(item.size)
    p = np.empty(n)
    surprisal = np.empty(n)
    deviation = np.empty(n)
    cls = np.empty(n, dtype=np.int8)
    n_values = max(ps.d_values.size, 1)
    median_size = n_raters * (n_values + 1)
    cons_size = n_raters * q * (q + 1)
    # Dense accumulators are added once per chunk: a chunk is at least as long as them.
    dense = [s for s in (median_size, cons_size) if s <= DENSE_CELLS]
    step = max(RATING_CHUNK, min(n, max(dense, default=0)))
    no_codes = np.zeros(0, dtype=np.int64)
    median_counts = _count(no_codes, median_size)
    cons_counts = _count(no_codes, cons_size)
    item_pattern = patterns.item_pattern
    for lo in range(0, n, step):
        part = slice(lo, lo + step)
        at = tables.locate(item_pattern.take(item[part]).astype(np.int64) * q + label[part])
        # mode="clip" (every slot is valid): with the default, numpy buffers ``out``
        np.take(tables.p, at, out=p[part], mode="clip")
        np.take(tables.surprisal, at, out=surprisal[part], mode="clip")
        np.take(tables.deviation, at, out=deviation[part], mode="clip")
        np.take(tables.cls, at, out=cls[part], mode="clip")
        r = rater[part]
        keys = r * (n_values + 1)
        keys += tables.d_code1.take(at)
        median_counts = _merge_counts(median_counts, _count(keys, median_size))
        keys = r * q
        keys += label[part]
        keys *= q + 1
        keys += tables.loo1.take(at)
        cons_counts = _merge_counts(cons_counts, _count(keys, cons_size))
        del at, keys
    del tables

    ordinal_result: _Ordinal | None = None
    if ordinal:
        ordinal_result = _ordinal(counts.dense(), item, label, reference, lb)

    # ---- raters: sums over the ratings in their order (the undefined ones add 0)
    median_keys, median_n = _unshift(*_as_cells(median_counts), n_values)
    value_class = _classes(ps.d_values, band_edges).astype(np.int64)
    class_counts = (
        np.bincount(
            (median_keys // n_values) * 4 + value_class[median_keys % n_values],
            weights=median_n,
            minlength=n_raters * 4,
        )
        .astype(np.int64)
        .reshape(n_raters, 4)
    )
    n_def = class_counts.sum(axis=1).astype(np.float64)
    if n_def.sum() == n:
        dev_sum = np.bincount(rater, weights=deviation, minlength=n_raters)
        sur_sum = np.bincount(rater, weights=surprisal, minlength=n_raters)
    else:
        undefined = cls < 0
        dev_sum = np.bincount(rater, np.where(undefined, 0.0, deviation), minlength=n_raters)
        sur_sum = np.bincount(rater, np.where(undefined, 0.0, surprisal), minlength=n_raters)
        del undefined
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_dev = dev_sum / n_def
        mean_sur = sur_sum / n_def
        shares = class_counts / n_def[:, None]
    median_dev = _median_from_counts(median_keys, median_n, n_raters, ps.d_values)
    cons_keys, cons_n = _unshift(*_as_cells(cons_counts), q)
    cons = pair_agreement_from_cells(_Cells(cons_keys, cons_n, None), n_raters, q)

    rater_cols: dict[str, Any] = {
        "rater": ratings.raters,
        "n_ratings": np.bincount(rater, minlength=n_raters),
        "mean_deviation": mean_dev,
        "median_deviation": median_dev,
    }
    for k, name in enumerate(CLASSES):
        rater_cols[f"share_{name.replace(' ', '_')}"] = shares[:, k]
    rater_cols.update(
        mean_surprisal=mean_sur,
        consensus_n=cons.n,
        consensus_agreement=cons.agreement,
        consensus_kappa=cons.kappa,
        consensus_ia=cons.ia,
    )
    if ordinal_result is not None:
        od = ordinal_result.surprisal - ordinal_result.entropy
        ok = ~np.isnan(od)
        with np.errstate(divide="ignore", invalid="ignore"):
            rater_cols["mean_ordinal_deviation"] = np.bincount(
                rater[ok], weights=od[ok], minlength=n_raters
            ) / np.bincount(rater[ok], minlength=n_raters)
    gold_code: IntArray | None = None
    if gold is not None:
        gold_code = _gold_codes(gold, ratings, categories)
        g = gold_code[item]
        has_gold = g >= 0
        vs_gold = _pair_agreement(rater[has_gold], label[has_gold], g[has_gold], n_raters, q)
        rater_cols.update(
            gold_n=vs_gold.n, gold_accuracy=vs_gold.agreement, gold_kappa=vs_gold.kappa
        )
    # ---- ratings table (categoricals: codes, not copies of the ids; the codes are valid
    # by construction, so pandas need not check them)
    cat_array = np.empty(q, dtype=object)
    cat_array[:] = list(categories)
    rating_cols: dict[str, Any] = {
        "item": pd.Categorical.from_codes(item, categories=_index(ratings.items), validate=False),
        "rater": pd.Categorical.from_codes(
            rater, categories=_index(ratings.raters), validate=False
        ),
        "label": pd.Categorical.from_codes(label, categories=_index(cat_array), validate=False),
        "p": p,
        "surprisal": surprisal,
        "deviation": deviation,
        "class": pd.Categorical.from_codes(
            cls, dtype=pd.CategoricalDtype(list(CLASSES), ordered=True), validate=False
        ),
    }
    if ordinal_result is not None:
        rating_cols["ordinal_surprisal"] = ordinal_result.surprisal
        rating_cols["ordinal_deviation"] = ordinal_result.surprisal - ordinal_result.entropy
    ratings_table = pd.DataFrame(rating_cols, copy=False)

    # ---- the items' columns, gathered from their patterns
    st, item_entropy, contested_rank = _item_columns(ps, patterns.weights, item_pattern)
    del patterns, item_pattern, ps
    return _assemble(
        rater_cols,
        mean_dev=mean_dev,
        median_dev=median_dev,
        n_items=n_items,
        n_raters=n_raters,
        categories=categories,
        items=ratings.items,
        cells=cells,
        st=st,
        item_entropy=item_entropy,
        lb=lb,
        ordinal_item_entropy=(ordinal_result.item_entropy if ordinal_result is not None else None),
        gold_code=gold_code,
        ratings_table=ratings_table,
        n_scored=n,
        n_missing=n_missing,
        n_defined=int(n_def.sum()),
        class_total=class_counts.sum(axis=0),
        counts=counts,
        reference=reference,
        missing=missing,
        band_edges=band_edges,
        base=base,
        ordinal=ordinal,
        note="",
        contested_rank=contested_rank,
    )


def _index(values: npt.NDArray[Any]) -> pd.Index:
    """A pandas Index of decode-table values that keeps their types (ints stay ints): an
    object array stays one (a copy, without a round trip through a list)."""
    out: pd.Index = pd.Index(values, dtype=object if values.dtype == object else None, copy=True)
    return out
