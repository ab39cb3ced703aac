"""Dawid-Skene (and one-coin) EM in passes over ratings that stay where they are.

Both steps are sums over the ratings given what the last step left: the E step sums, per
item, ``log E_r[c, l]`` over the item's ratings; the M step sums, per (rater, label), the
posteriors ``T_i`` of the items rated. Each step is therefore one pass of an engine over the
ratings (``run(fn, context, merge)``, a :class:`~accord.engines._mapreduce.Rescan`'s
``map_reduce``): ``fn`` sums one batch's or partition's codes, ``merge`` adds two sums.
What stays in memory is O(items x classes): the posteriors and the per-item sums of the
pass (items coded by the engine, so the rows of one item may be spread over any batches),
and the (rater, label) x class counts.

The start (majority vote: one pass counting each item's votes), the steps, the stopping rule
and the tables are those of :func:`accord.truth.rater_model`, so the fit is the memory
engine's to floating-point rounding. One EM iteration is two passes: the E step needs the
parameters of the M step, and the M step the posteriors of the E step. A last pass counts
the tables (the expected counts of the fitted posteriors, and of the gold labels).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError
from .._types import FloatArray, IntArray
from ._em import (
    Fit,
    ModelName,
    Options,
    Params,
    dawid_skene_params,
    iterate,
    log_emission,
    normalised,
    one_coin_params,
    prevalence,
    vote_shares,
)
from ._quality import fleiss_from_counts
from ._tables import code_dtype
from ._tallies import Tallies
from .model import _checked, gold_codes, model_of_fit
from .results import RaterModel

__all__ = ["PASS_MODELS", "Pass", "rater_model_in_passes"]

#: The models whose steps are sums over the ratings given the last step.
PASS_MODELS: tuple[ModelName, ...] = ("dawid-skene", "one-coin")

Pass = Callable[[Callable[..., Any], Any, Callable[[Any, Any], Any]], Any]
"""``run(fn, context, merge)``: ``merge`` of ``fn(context, item, rater, label)`` over the
parts of the ratings (code vectors of one part each); None without ratings."""


@dataclasses.dataclass(frozen=True, slots=True)
class ItemSums:
    """One pass's context: per item, the sum over its ratings of ``table[rater * q +
    label]``; ``table`` has shape (n_raters * q, k).

    With ``sink`` (a (k, n_items) array, a row a class) each part adds its sums into it and
    returns None:
    for passes whose parts are summed one after another in this process (one array over
    items however many parts); without, each part returns its own sums over the items it
    holds, and :func:`merge_items` adds them. ``parts`` keeps what the parts of a fit share
    from pass to pass (:class:`Parts`; None: nothing kept).
    """

    table: FloatArray
    q: int
    sink: FloatArray | None = None
    parts: Parts | None = None


def item_part(
    ctx: ItemSums, item: IntArray, rater: IntArray, label: IntArray
) -> tuple[IntArray, FloatArray] | None:
    """The sums of one part's ratings over its items: (items (m,), sums (m, k)), one
    product of the part's (item, cell) ones with the table (each item's terms added in the
    part's order)."""
    part = (ctx.parts or Parts()).of(item, rater, label, ctx.q, ctx.table.shape[0])
    sums = part.ones @ ctx.table
    if ctx.sink is None:
        return part.items(), sums
    if part.keys is None:
        ctx.sink[:, part.lo : part.lo + sums.shape[0]] += sums.T
    else:
        ctx.sink[:, part.keys] += sums.T
    return None


@dataclasses.dataclass(frozen=True, slots=True)
class _Part:
    """One part's ratings as a CSR array of ones, a row an item of the part (items
    ``lo ..`` when they span a short range, else the distinct codes ``keys``), a column a
    (rater, label) cell; and its ratings per cell."""

    ones: Any
    lo: int
    keys: IntArray | None
    per_cell: IntArray

    def items(self) -> IntArray:
        """The item codes of the rows."""
        if self.keys is not None:
            return self.keys
        return np.arange(self.lo, self.lo + self.ones.shape[0])


class Parts:
    """What the parts of one fit share from pass to pass: an array of ones for the entries
    of their sparse arrays (grown to the largest part; read, never written), and the
    :class:`_Part` of each part whose code vectors the engine holds (read-only arrays, the
    same in every pass: the stream engine's ratings kept in memory), about four bytes a
    rating."""

    def __init__(self) -> None:
        self._ones = np.ones(0)
        self._held: dict[tuple[int, int, int], _Part] = {}

    def ones(self, n: int) -> FloatArray:
        """``n`` ones."""
        if self._ones.size < n:
            self._ones = np.ones(n)
            self._ones.flags.writeable = False
        return self._ones[:n]

    def of(self, item: Any, rater: Any, label: Any, q: int, n_cells: int) -> _Part:
        """The part of these code vectors, kept while they live when every one is
        read-only (held by the engine)."""
        import weakref

        codes = (item, rater, label)
        held = all(isinstance(c, np.ndarray) and not c.flags.writeable for c in codes)
        key = (id(item), id(rater), id(label))
        if held and key in self._held:
            return self._held[key]
        part = self._part(np.asarray(item), np.asarray(rater), np.asarray(label), q, n_cells)
        if held:  # let go with the first of the arrays to go (its id may then be reused)
            self._held[key] = part
            for c in codes:
                weakref.finalize(c, self._held.pop, key, None)
        return part

    def _part(
        self, item: IntArray, rater: IntArray, label: IntArray, q: int, n_cells: int
    ) -> _Part:
        from scipy import sparse

        kind = np.int32 if n_cells < 2**31 else np.int64
        cell = np.multiply(rater, q, dtype=kind, casting="unsafe")
        np.add(cell, label, out=cell, casting="unsafe")
        lo, hi = (int(item.min()), int(item.max()) + 1) if item.size else (0, 0)
        keys = None
        if hi - lo <= 2 * item.size:
            row, n_rows = item - lo, hi - lo
        else:
            keys, row = np.unique(item, return_inverse=True)
            row, n_rows = row.ravel(), keys.size
        ones, shape = self.ones(cell.size), (n_rows, n_cells)
        if row.size > 1 and bool((row[1:] < row[:-1]).any()):
            matrix = sparse.csr_array((ones, (row, cell)), shape=shape)
        else:  # rows in order (a slice of items in code order): no sort
            indptr = np.zeros(n_rows + 1, dtype=np.int32 if cell.size < 2**31 else np.int64)
            np.cumsum(np.bincount(row, minlength=n_rows), out=indptr[1:])
            matrix = sparse.csr_array((ones, cell, indptr), shape=shape)
        return _Part(matrix, lo, keys, np.bincount(cell, minlength=n_cells))


def _grouped(group: IntArray, values: FloatArray, n: int) -> FloatArray:
    """Sums of the rows of ``values`` (k, m) by ``group`` (m,) into ``n`` groups, (n, k)."""
    out = np.empty((n, values.shape[0]))
    for j in range(values.shape[0]):
        out[:, j] = np.bincount(group, weights=values[j], minlength=n)
    return out


def merge_items(
    a: tuple[IntArray, FloatArray], b: tuple[IntArray, FloatArray]
) -> tuple[IntArray, FloatArray]:
    """Two parts' sums over items added: over the union of their items."""
    keys, inverse = np.unique(np.concatenate([a[0], b[0]]), return_inverse=True)
    values = np.concatenate([a[1], b[1]]).T
    return keys, _grouped(inverse.ravel(), values, keys.size)


@dataclasses.dataclass(frozen=True, slots=True)
class CellSums:
    """One pass's context: per (rater, label), the sum of the rated items' posteriors
    (``posterior``, shape (n_items, k)), the count of ratings and, with ``gold`` (each
    item's gold label code, -1 where none), the count of ratings of gold items by gold
    label; ``parts`` as in :class:`ItemSums`."""

    posterior: FloatArray
    n_raters: int
    q: int
    gold: IntArray | None = None
    parts: Parts | None = None


def cell_part(ctx: CellSums, item: IntArray, rater: IntArray, label: IntArray) -> FloatArray:
    """One part's sums, shape (n_raters * q, k + 1) (with gold, (n_raters * q, k + q + 1)):
    row ``rater * q + label``; the posterior sums (one product of the part's (item, cell)
    ones with the posteriors of its items), then the gold counts, and in the last column
    the count of ratings."""
    size, k = ctx.n_raters * ctx.q, ctx.posterior.shape[1]
    part = (ctx.parts or Parts()).of(item, rater, label, ctx.q, size)
    extra = 0 if ctx.gold is None else ctx.q
    out = np.empty((size, k + extra + 1))
    if part.keys is None:
        posterior = ctx.posterior[part.lo : part.lo + part.ones.shape[0]]
    else:
        posterior = ctx.posterior[part.keys]
    out[:, :k] = part.ones.T @ posterior
    if ctx.gold is not None:
        item = np.asarray(item)
        truth = ctx.gold[item]
        known = truth >= 0
        at = (np.asarray(rater)[known] * ctx.q + np.asarray(label)[known]) * ctx.q
        out[:, k:-1] = np.bincount(at + truth[known], minlength=size * ctx.q).reshape(size, ctx.q)
    out[:, -1] = part.per_cell
    return out


def add(a: FloatArray, b: FloatArray) -> FloatArray:
    """Two parts' cell sums added."""
    return a + b


@dataclasses.dataclass(frozen=True, slots=True)
class _Passes:
    """The two sums of EM over the ratings ``run`` passes over."""

    run: Pass
    n_items: int
    n_raters: int
    q: int
    in_place: bool
    #: what the parts share from pass to pass when they are summed in this process (with
    #: the dask engine each worker makes its own for each part)
    parts: Parts | None = dataclasses.field(init=False, default=None)

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", Parts() if self.in_place else None)

    def items(self, table: FloatArray) -> FloatArray:
        """Per item, the sum over its ratings of ``table[rater * q + label]``, (n_items, k)."""
        k = table.shape[1]
        sink = np.zeros((k, self.n_items)) if self.in_place else None
        context = ItemSums(np.ascontiguousarray(table), self.q, sink, self.parts)
        total = self.run(item_part, context, merge_items)
        if sink is not None:
            return np.ascontiguousarray(sink.T)
        out = np.zeros((self.n_items, k))
        if total is not None:
            out[total[0]] = total[1]
        return out

    def cells(
        self, posterior: FloatArray, gold: IntArray | None = None
    ) -> tuple[FloatArray, FloatArray | None, FloatArray]:
        """``N[r, c, l]`` of ``posterior`` (n_raters, k, q), the same counts of the gold
        labels ``gold`` (None without), and each rater's ratings."""
        r, q, k = self.n_raters, self.q, posterior.shape[1]
        context = CellSums(np.ascontiguousarray(posterior), r, q, gold, self.parts)
        total = self.run(cell_part, context, add)
        width = k + 1 + (0 if gold is None else q)
        flat = np.zeros((r * q, width)) if total is None else np.asarray(total)

        def counts(block: FloatArray) -> FloatArray:
            n = block.shape[1]
            return np.ascontiguousarray(block.reshape(r, q, n).transpose(0, 2, 1))

        golden = None if gold is None else counts(flat[:, k:-1])
        return counts(flat[:, :k]), golden, flat[:, -1].reshape(r, q).sum(axis=1)


@dataclasses.dataclass(frozen=True, slots=True)
class _Start:
    """What the start's pass counts besides the majority vote: the items rated, the number
    of ratings, and Fleiss' kappa of the votes (the votes themselves are not kept)."""

    rated: Any
    n_ratings: float
    observed_fleiss: float


def _fit_in_passes(
    passes: _Passes, gold: IntArray, model: ModelName, options: Options
) -> tuple[Fit, _Start]:
    """EM from majority vote, each step one pass: the fit and what the start counted."""
    q = passes.q
    votes = passes.items(np.tile(np.eye(q), (passes.n_raters, 1)))
    begun = _Start(votes.sum(axis=1) > 0, float(votes.sum()), fleiss_from_counts(votes))
    # handed over to the loop, no name kept here: each array of posteriors is freed as soon
    # as the loop is done with it (and the votes right after the start)
    start = [vote_shares(votes, gold)]
    del votes
    rated = begun.rated

    def m_step(posterior: FloatArray, _: Params | None) -> Params:
        counts, _gold, _n = passes.cells(posterior)
        prior = prevalence(posterior, rated)
        if model == "dawid-skene":
            return dawid_skene_params(counts, prior, options)
        return one_coin_params(counts, prior)

    def e_step(params: Params) -> tuple[FloatArray, float]:
        logits = passes.items(log_emission(params))
        with np.errstate(divide="ignore"):
            logits += np.log(params.prior)[None, :]
        return normalised(logits, gold)

    fit = iterate(m_step, e_step, start.pop(), None, model=model, options=options,
                  n_ratings=begun.n_ratings)  # fmt: skip
    return fit, begun


def rater_model_in_passes(
    run: Pass,
    *,
    items: npt.NDArray[Any],
    raters: npt.NDArray[Any],
    categories: tuple[Any, ...],
    in_place: bool = False,
    gold: Mapping[Any, Any] | pd.Series | None = None,
    report: Any = None,
    **options: Any,
) -> RaterModel:
    """:func:`accord.truth.rater_model` (Dawid-Skene or one-coin, ``n_bootstrap=0``) on
    ratings an engine passes over: ``run(fn, context, merge)`` runs one pass over the
    ratings' codes into the decode tables ``items``, ``raters`` and ``categories``.
    ``in_place``: the parts of a pass are summed one after another in this process (the
    stream engine), so the per-item sums of a pass are added into one array.

    Examples
    --------
    Two parts of the ratings of :func:`accord.truth.rater_model`'s example, passed over by
    hand; the fit is the one in memory:

    >>> import numpy as np
    >>> item = np.repeat(np.arange(8), 3); rater = np.tile(np.arange(3), 8)
    >>> label = np.array([1, 1, 1] * 3 + [0, 0, 0] * 2 + [0, 0, 1, 1, 1, 1, 0, 0, 0])
    >>> def run(fn, ctx, merge):
    ...     parts = [fn(ctx, item[s], rater[s], label[s]) for s in (slice(0, 10), slice(10, None))]
    ...     return merge(*parts)
    >>> fit = rater_model_in_passes(run, items=np.arange(8), raters=np.array(list("abc")),
    ...                             categories=("n", "y"), n_bootstrap=0)
    >>> fit.items["label"].tolist()
    ['y', 'y', 'y', 'n', 'n', 'n', 'y', 'n']
    """
    defaults = {"model": "dawid-skene", "tol": 1e-8, "max_iter": 1000, "smoothing": 0.0,
                "mace_method": "vb", "n_bootstrap": 0, "level": 0.95, "rng": 0}  # fmt: skip
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        raise InvalidInputError(f"rater_model got unexpected options {unknown}")
    checked = _checked(*(options.get(k, v) for k, v in defaults.items()))
    model, n_boot = checked["model"], checked["n_bootstrap"]
    if model not in PASS_MODELS or n_boot:
        raise InvalidInputError(
            f"rater_model in passes over the ratings fits {' or '.join(PASS_MODELS)} without "
            f"a bootstrap; got model={model!r}, n_bootstrap={n_boot}"
        )
    q = len(categories)
    if q < 2:
        raise InvalidInputError("rater_model needs at least two categories")
    # one byte an item, not eight: the codes are kept through the fit
    codes = gold_codes(gold, np.asarray(items), tuple(categories)).astype(code_dtype(q))
    passes = _Passes(run, len(items), len(raters), q, in_place)
    fit, begun = _fit_in_passes(passes, codes, model, checked["options"])
    counts, gold_counts, n_per_rater = passes.cells(
        fit.posterior, codes if (codes >= 0).any() else None
    )
    tallies = Tallies(counts, gold_counts, n_per_rater, begun.rated, begun.observed_fleiss,
                      codes)  # fmt: skip
    return model_of_fit(fit, tallies, np.asarray(items), np.asarray(raters), tuple(categories),
                        model=model, options=checked["options"], level=checked["level"],
                        report=report)  # fmt: skip
