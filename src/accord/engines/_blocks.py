"""Statistics of blocks of items, shared by the stream and dask engines.

A *block* holds every rating of a set of items (pairs are formed within items, so a block
never splits an item). Blocks come either as long codes (item, rater, label, row) or as a
slice of the items x raters code matrix the stream engine keeps; both give the same partial
statistics, which merge into those of the whole input.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .._results import Result
from .._types import IntArray
from ..data.encoder import n_distinct, order_line
from ..data.ratings import DecodeTables, Ratings, ReadReport
from ..stats import ItemCategoryCounts, PairTables, RaterCategoryCounts
from ..stats.counts import SPARSE_CELLS
from ..stats.pairs import PairCells, pair_statistic
from ..stats.patterns import CountPatterns

__all__ = [
    "STATISTICS",
    "Decoded",
    "DeferredIds",
    "DuplicateInfo",
    "LongPartial",
    "Plan",
    "RatingStatistics",
    "Statistic",
    "assemble",
    "long_partial",
]

#: A statistic an engine computes, by name.
Statistic = Literal["items", "raters", "pairs", "patterns"]
#: The statistics every engine can compute.
STATISTICS: tuple[Statistic, ...] = ("items", "raters", "pairs")
#: And what the stream engine can add: item counts as distinct rows
#: (:class:`~accord.stats.patterns.CountPatterns`).
STREAM_STATISTICS: tuple[Statistic, ...] = (*STATISTICS, "patterns")


@dataclasses.dataclass(frozen=True, slots=True)
class Plan:
    """What a front door asks an engine to count: the typed value that crosses from the
    front door to :func:`~accord.engines._run.scan_ratings` (the engines' public functions
    take the same as names, ``statistics=("items", "raters")``).

    Attributes
    ----------
    items : bool
        Items x categories counts (:class:`~accord.stats.ItemCategoryCounts`).
    raters : bool
        Raters x categories counts.
    pairs : bool
        The rater-pair tables (Light's kappa, Conger's standard error).
    patterns : bool
        Item counts as distinct rows with their multiplicities (the stream engine).

    Examples
    --------
    >>> Plan(items=True, raters=True).statistics
    ('items', 'raters')
    >>> Plan.of(("patterns", "raters")) == Plan(raters=True, patterns=True)
    True
    >>> Plan().statistics
    ()
    """

    items: bool = False
    raters: bool = False
    pairs: bool = False
    patterns: bool = False

    @classmethod
    def of(cls, statistics: Sequence[Statistic]) -> Plan:
        """The plan counting the named statistics."""
        return cls(**{name: True for name in statistics})

    @property
    def statistics(self) -> tuple[Statistic, ...]:
        """The statistics counted, by name, in the engines' order."""
        names: tuple[Statistic, ...] = ("items", "raters", "pairs", "patterns")
        return tuple(name for name in names if getattr(self, name))


#: Item and rater counts: what most front doors ask for.
COUNTS = Plan(items=True, raters=True)

_SHOW = 5


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class DeferredIds:
    """A decode table of ``size`` ids made when it is first read (``decode()``): the ids of
    a scan stay in the encoder's Arrow arrays until a caller asks for them (10M text ids
    are about 0.7 GB as Python strings, 0.16 GB as Arrow strings; the coefficients never
    read them)."""

    size: int
    decode: Callable[[], npt.NDArray[Any]]


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class RatingStatistics(Result, DecodeTables):
    """The sufficient statistics of a set of ratings, computed by an engine.

    Every field holds exactly what the memory engine computes from
    ``Ratings.from_long(whole_input, ...)``: the same codes, the same category order, the
    same integer counts.

    Attributes
    ----------
    item_counts : ItemCategoryCounts or None
        Items x categories counts (``None`` unless ``"items"`` was requested). Feeds
        Fleiss, Krippendorff, Gwet, Brennan-Prediger, percent agreement, entropy per item.
    rater_counts : RaterCategoryCounts or None
        Raters x categories counts (``None`` unless ``"raters"`` was requested).
    pair_tables : PairTables or None
        Every co-rating rater pair's q x q table (``None`` unless ``"pairs"`` was requested).
    items, raters : ndarray
        Decode tables: ``items[code]`` is the item id of code ``code`` (numbered by first
        appearance, as :class:`accord.Ratings` numbers them). Kept in the column's own dtype
        (int64 ids stay int64) to keep them small. The stream engine decodes the item ids
        when ``items`` is first read (``item_ids`` holds them, or the way to decode them
        until then).
    categories : tuple
        The ordered category domain.
    level : {"nominal", "ordinal", "interval", "ratio"}
    categories_declared : bool
        Whether the domain was declared by the user.
    report : ReadReport
        Rows read, ratings kept, missing labels and duplicates dropped.
    engine : {"stream", "dask"}
    passes : int
        How many times the input was read.
    item_patterns : CountPatterns or None
        The item counts as distinct rows and multiplicities (the stream engine, when
        ``"patterns"`` was requested; what :func:`accord.agreement` computes the item-count
        coefficients from).
    """

    item_counts: ItemCategoryCounts | None
    rater_counts: RaterCategoryCounts | None
    pair_tables: PairTables | PairCells | None
    item_ids: npt.NDArray[Any] | DeferredIds
    raters: npt.NDArray[Any]
    categories: tuple[Any, ...]
    level: str
    categories_declared: bool
    report: ReadReport
    engine: str
    passes: int = 1
    item_patterns: CountPatterns | None = None

    @property
    def items(self) -> npt.NDArray[Any]:  # type: ignore[override]
        """The item decode table (decoded when first read)."""
        ids = self.item_ids
        if isinstance(ids, DeferredIds):
            ids = ids.decode()
            object.__setattr__(self, "item_ids", ids)
        return ids

    @property
    def n_items(self) -> int:
        """Number of items in the decode table (without decoding it)."""
        return int(self.item_ids.size)

    @property
    def n_ratings(self) -> int:
        """Number of ratings kept."""
        return int(self.report.ratings)

    def to_dict(self) -> dict[str, Any]:
        """A plain summary: sizes, categories, the report and which statistics are present."""
        return {
            "engine": self.engine,
            "passes": self.passes,
            "n_items": self.n_items,
            "n_raters": self.n_raters,
            "n_ratings": self.n_ratings,
            "categories": list(self.categories),
            "level": self.level,
            "statistics": [
                name
                for name, stat in zip(
                    STATISTICS, (self.item_counts, self.rater_counts, self.pair_tables), strict=True
                )
                if stat is not None
            ],
            "report": self.report.to_dict(),
        }

    def __repr__(self) -> str:
        have = [k for k in self.to_dict()["statistics"]]
        return (
            f"RatingStatistics({self.n_ratings} ratings, {self.n_items} items, "
            f"{self.n_raters} raters, {self.n_categories} categories,\n"
            f"                 engine={self.engine!r}, statistics={have!r})"
        )


@dataclasses.dataclass(frozen=True, slots=True)
class DuplicateInfo:
    """(item, rater) pairs rated more than once: the first few, and how many there are."""

    examples: tuple[tuple[int, int, tuple[int, ...]], ...]  # item code, rater code, rows
    n_pairs: int

    def merge(self, other: DuplicateInfo | None) -> DuplicateInfo:
        if other is None:
            return self
        return DuplicateInfo((self.examples + other.examples)[:_SHOW], self.n_pairs + other.n_pairs)


def _stub_ratings(
    item: IntArray,
    rater: IntArray,
    label: IntArray,
    raters: Any,
    categories: tuple[Any, ...],
    n_groups: int,
) -> Ratings:
    """A Ratings holding only codes, enough for :meth:`PairTables.from_ratings` (the item
    decode table is a placeholder of the right size: ``n_items`` is ``n_groups``)."""
    n = int(item.size)
    return Ratings(
        item_codes=item,
        rater_codes=rater,
        label_codes=label,
        items=np.zeros(n_groups, dtype=np.int8),
        raters=raters,
        categories=categories,
        level="nominal",
        values=None,
        report=ReadReport(n, n, 0, 0, 0, 0, {}),
    )


def code_pairs(
    item: IntArray,
    rater: IntArray,
    label: IntArray,
    raters: Any,
    categories: tuple[Any, ...],
    n_items: int,
) -> PairTables | PairCells:
    """The rater pairs' tables of long codes holding one rating a (item, rater) cell."""
    return pair_statistic(_stub_ratings(item, rater, label, raters, categories, n_items))


def empty_pairs(raters: Any, categories: tuple[Any, ...]) -> PairTables:
    q = len(categories)
    return PairTables(np.zeros((0, 2), np.int64), np.zeros((0, q, q), np.int64), raters, categories)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class LongPartial:
    """Partial statistics of one block of long codes (see :func:`long_partial`)."""

    item_counts: Any  # (n_groups, q) dense int64 or sparse CSR, or None
    rater_counts: IntArray | None  # (n_raters, q)
    pair_tables: PairTables | PairCells | None
    kept: int
    dropped: int
    duplicates: DuplicateInfo | None
    rated: int | None = None  # items with a rating, when asked for without item counts

    def merge(self, other: LongPartial) -> LongPartial:
        """Sum two partials over disjoint sets of items (same dictionaries)."""
        return LongPartial(
            item_counts=_add(self.item_counts, other.item_counts),
            rater_counts=_add(self.rater_counts, other.rater_counts),
            pair_tables=(
                None
                if self.pair_tables is None or other.pair_tables is None
                else self.pair_tables.merge(other.pair_tables)
            ),
            kept=self.kept + other.kept,
            dropped=self.dropped + other.dropped,
            duplicates=(
                other.duplicates
                if self.duplicates is None
                else self.duplicates.merge(other.duplicates)
            ),
            rated=_add(self.rated, other.rated),
        )


def _add(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    return a + b


def dedupe(
    key: IntArray, row: IntArray, duplicates: str
) -> tuple[IntArray | None, int, tuple[IntArray, IntArray] | None]:
    """Resolve (item, rater) repeats among long codes.

    Parameters
    ----------
    key : ndarray of int64, shape (n,)
        ``item * n_raters + rater``.
    row : ndarray of int64, shape (n,)
        Input row of each rating (its order decides "first" and "last").
    duplicates : {"raise", "first", "last"}

    Returns
    -------
    chosen : ndarray of int64 or None
        Positions kept (None when there is no repeat: keep all).
    dropped : int
    repeats : (keys, rows) or None
        Under ``"raise"``, the repeated keys and the rows of each repeat, sorted by key.
    """
    order = np.lexsort((row, key))
    sorted_key = key[order]
    dup_next = sorted_key[1:] == sorted_key[:-1]
    if not dup_next.any():
        return None, 0, None
    if duplicates == "raise":
        involved = np.zeros(key.size, dtype=bool)
        involved[1:] |= dup_next
        involved[:-1] |= dup_next
        return None, 0, (sorted_key[involved], row[order][involved])
    starts = np.flatnonzero(np.r_[True, ~dup_next])
    ends = np.r_[starts[1:], key.size] - 1
    chosen = order[starts] if duplicates == "first" else order[ends]
    return np.sort(chosen), int(key.size - chosen.size), None


def repeats_info(keys: IntArray, rows: IntArray, n_raters: int) -> DuplicateInfo:
    """Examples of repeated (item, rater) keys (sorted by key) with their rows."""
    uniq, starts = np.unique(keys, return_index=True)
    ends = np.r_[starts[1:], keys.size]
    order = np.argsort(rows[starts], kind="stable")  # the earliest repeats first
    examples = []
    for j in order[:_SHOW]:
        k = int(uniq[j])
        examples.append(
            (k // n_raters, k % n_raters, tuple(int(r) for r in np.sort(rows[starts[j] : ends[j]])))
        )
    return DuplicateInfo(tuple(examples), int(uniq.size))


def long_partial(
    item: IntArray,
    rater: IntArray,
    label: IntArray,
    row: IntArray,
    *,
    n_groups: int,
    raters: Any,
    categories: tuple[Any, ...],
    duplicates: str,
    statistics: Sequence[str],
    sparse: bool,
    report: bool = False,
) -> LongPartial:
    """Partial statistics of a block of ratings holding every rating of its items.

    Parameters
    ----------
    item : ndarray of int64, shape (n,)
        Item codes, relative to the block (``0 .. n_groups-1``).
    rater, label : ndarray of int64, shape (n,)
        Global rater codes and domain label codes (no missing labels).
    row : ndarray of int64, shape (n,)
        Input row of each rating.
    n_groups : int
        Rows of the block's item counts.
    raters : ndarray
        The rater decode table (its size is the number of raters).
    duplicates : {"raise", "first", "last"}
    statistics : sequence of {"items", "raters", "pairs"}
    sparse : bool
        Item counts as a sparse CSR array (else dense).
    report : bool, default False
        Also what the read report needs and ``statistics`` does not give: without
        ``"raters"``, the ratings per rater (``rater_counts`` of one column); without
        ``"items"``, the items with a rating (``rated``). Nothing is counted by category.
    """
    n_raters = len(raters)
    q = len(categories)
    key = item * max(n_raters, 1) + rater
    chosen, dropped, repeats = dedupe(key, row, duplicates)
    if repeats is not None:
        return LongPartial(None, None, None, 0, 0, repeats_info(*repeats, max(n_raters, 1)))
    if chosen is not None:
        item, rater, label = item[chosen], rater[chosen], label[chosen]
    item_counts = None
    rater_counts = None
    pairs = None
    if "items" in statistics:
        item_counts = ItemCategoryCounts.from_codes(
            item, label, n_groups=n_groups, categories=categories, sparse=sparse
        ).counts
    if "raters" in statistics:
        rater_counts = np.bincount(rater * q + label, minlength=n_raters * q).reshape(n_raters, q)
    elif report:
        rater_counts = np.bincount(rater, minlength=n_raters)[:, None]
    if "pairs" in statistics:
        pairs = pair_statistic(_stub_ratings(item, rater, label, raters, categories, n_groups))
    rated = None
    if report and item_counts is None:
        rated = n_distinct(item, n_groups)
    return LongPartial(item_counts, rater_counts, pairs, int(item.size), dropped, None, rated)


def use_sparse(n_items: int, q: int) -> bool:
    """The memory engine's choice of representation for item counts."""
    return n_items * q > SPARSE_CELLS


def as_item_counts(counts: Any, categories: tuple[Any, ...], n_items: int) -> ItemCategoryCounts:
    """Wrap counts in the representation the memory engine would choose."""
    q = len(categories)
    sparse = use_sparse(n_items, q)
    if sparse and isinstance(counts, np.ndarray):
        from scipy import sparse as sp

        counts = sp.csr_array(counts, dtype=np.int64)
    elif not sparse and not isinstance(counts, np.ndarray):
        counts = np.asarray(counts.toarray(), dtype=np.int64)
    return ItemCategoryCounts(counts, categories)


def as_rater_counts(counts: IntArray, categories: tuple[Any, ...]) -> RaterCategoryCounts:
    """Wrap rater counts in the representation the memory engine would choose."""
    out: Any = counts
    if use_sparse(counts.shape[0], len(categories)):
        from scipy import sparse as sp

        out = sp.csr_array(counts, dtype=np.int64)
    return RaterCategoryCounts(out, categories)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Decoded:
    """What the dictionaries of a run give: decode tables, the category domain and how it
    was ordered and typed (for the read report)."""

    items: npt.NDArray[Any] | DeferredIds
    raters: npt.NDArray[Any]
    categories: tuple[Any, ...]
    level: str
    declared: bool
    notes: tuple[str, ...]
    order: str


def assemble(
    decoded: Decoded,
    *,
    item_counts: Any,
    rater_counts: IntArray,
    pairs: PairTables | PairCells | None,
    patterns: CountPatterns | None,
    rated_items: int | None = None,
    statistics: Sequence[str],
    keep_items: bool,
    rows: int,
    missing: int,
    dropped: int,
    duplicates: str,
    source: str,
    engine: str,
    passes: int,
    combined: int = 0,
) -> RatingStatistics:
    """The :class:`RatingStatistics` of an engine run and its read report.

    ``item_counts`` (raw counts or None), ``rater_counts`` (always counted) and ``pairs`` are
    wrapped as the memory engine would; ``statistics`` are those asked for, ``keep_items``
    whether the item counts are returned; ``dropped`` counts ratings dropped as repeats,
    ``combined`` rows joined into the set of labels of their item and rater (not dropped);
    ``rated_items`` the items with a rating when neither item counts nor patterns were
    counted (``rater_counts`` may then be the ratings per rater, one column).
    """
    domain = decoded.categories
    kept = int(rater_counts.sum())
    reasons: dict[str, int] = {}
    if missing:
        reasons["missing label"] = int(missing)
    if dropped:
        reasons[f"duplicate (item, rater): kept the {duplicates}"] = int(dropped)
    n_items = int(decoded.items.size)
    item_stat = None if item_counts is None else as_item_counts(item_counts, domain, n_items)
    if item_stat is not None:
        n_rated = int(np.count_nonzero(item_stat.totals()))
    elif rated_items is not None:
        n_rated = rated_items
    else:
        n_rated = patterns.n_rated if patterns is not None else 0
    report = ReadReport(
        rows=rows,
        ratings=kept,
        items=n_rated,
        raters=int(np.count_nonzero(rater_counts.sum(axis=1))),
        missing=int(missing),
        dropped=rows - kept - combined,
        reasons=reasons,
        source=source,
        notes=decoded.notes,
        order=order_line(decoded.level, domain, decoded.order),
    )
    return RatingStatistics(
        item_counts=item_stat if keep_items else None,
        rater_counts=as_rater_counts(rater_counts, domain) if "raters" in statistics else None,
        pair_tables=(pairs if pairs is not None else empty_pairs(decoded.raters, domain))
        if "pairs" in statistics
        else None,
        item_ids=decoded.items,
        raters=decoded.raters,
        categories=domain,
        level=decoded.level,
        categories_declared=decoded.declared,
        report=report,
        engine=engine,
        passes=passes,
        item_patterns=patterns,
    )
