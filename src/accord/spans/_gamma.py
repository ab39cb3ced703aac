"""Mathet, Widlöcher & Métivier's gamma: agreement on units after aligning them, chance
corrected by shuffled continua."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, Never

import numpy as np
import pandas as pd

from .._errors import InvalidInputError, warn_degenerate
from .._results import Result, to_plain
from .._types import FloatArray, IntArray, RngLike, as_generator
from ..data.source import refuse_read_options
from ..data.spans import Spans

__all__ = ["Gamma", "gamma_agreement"]


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Gamma(Result):
    """Gamma (Mathet et al. 2015): 1 - observed disorder / expected disorder.

    Attributes
    ----------
    name : str
        ``"gamma"``.
    statistic : float
        :math:`\\gamma = 1 - \\delta_{best} / \\delta_{expected}`.
    observed : float
        Disorder of the best alignment (total cost over the mean number of units per
        annotator).
    expected : float
        Mean disorder of the best alignments of ``n_samples`` shuffled continua.
    expected_sd : float
        Their standard deviation (divisor n - 1).
    n_samples : int
    seed : int or None
    alpha, beta, delta_empty : float
        Weights of the positional and categorical dissimilarities, and the cost of a unit
        aligned with nothing.
    n_annotators, n_documents, n_spans : int
    n_candidates : int
        Unitary alignments the exact program chose from (after the exact pruning).
    gamma_cat : float
        :math:`\\gamma_{cat} = 1 - \\delta^{cat}_{best} / \\delta^{cat}_{expected}`
        (Mathet 2017): agreement on the labels of the aligned units, each pair weighted by
        how well its units' positions agree; NaN (with ``reason_cat``) when no two units are
        aligned together.
    cat_observed, cat_expected : float
        The categorical disorder of the best alignment, and its mean over the shuffled
        continua.
    per_label : DataFrame
        One row per label: ``label``, ``gamma_k``, ``observed``, ``expected`` (the same
        restricted to the pairs where one unit at least has the label).
    reason_cat : str or None
        Why ``gamma_cat`` is NaN, when it is.
    alignment : DataFrame
        The best alignment: one row per unitary alignment and annotator, ``alignment``
        (its number), ``annotator``, ``document``, ``start``, ``end``, ``label`` (empty
        where the annotator has no unit in it), ``disorder``.
    method : str
    reason : str or None
    """

    name: str
    statistic: float
    observed: float
    expected: float
    expected_sd: float
    n_samples: int
    seed: int | None
    alpha: float
    beta: float
    delta_empty: float
    n_annotators: int
    n_documents: int
    n_spans: int
    n_candidates: int
    method: str
    reason: str | None
    gamma_cat: float
    cat_observed: float
    cat_expected: float
    reason_cat: str | None
    alignment: pd.DataFrame = dataclasses.field(repr=False)
    per_label: pd.DataFrame = dataclasses.field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of every field (tables as lists of records)."""
        return {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def figures(self) -> list[dict[str, Any]]:
        """The figures in words, one ``{"measure", "value"}`` record each: gamma, the
        observed and expected disorder and its SD, gamma-cat and gamma-k of each label.

        Examples
        --------
        >>> import pandas as pd
        >>> import accord
        >>> df = pd.DataFrame({"annotator": ["a", "b"], "document": "d", "start": [0, 0],
        ...                    "end": [5, 5], "label": "x"})
        >>> [r["measure"] for r in accord.gamma_agreement(df, n_samples=5).figures()][:3]
        ['gamma', 'observed disorder (best alignment)', 'expected disorder (5 shuffled continua)']
        """
        return [
            {"measure": "gamma", "value": self.statistic},
            {"measure": "observed disorder (best alignment)", "value": self.observed},
            {"measure": f"expected disorder ({self.n_samples} shuffled continua)",
             "value": self.expected},
            {"measure": "SD of the expected disorder", "value": self.expected_sd},
            {"measure": "gamma-cat (labels of aligned units)", "value": self.gamma_cat},
            *({"measure": f"gamma-k, label {rec['label']}", "value": rec["gamma_k"]}
              for rec in self.per_label.to_dict(orient="records")),
        ]  # fmt: skip


@dataclasses.dataclass(frozen=True, slots=True)
class _Units:
    """Every unit of one continuum: shapes (n,) each, sorted by annotator."""

    annotator: IntArray
    document: IntArray
    start: FloatArray
    end: FloatArray
    label: IntArray
    n_annotators: int


def _pair_costs(
    u: _Units, a: IntArray, b: IntArray, weights: tuple[float, float, float]
) -> FloatArray:
    """Combined dissimilarity of units ``a`` and ``b`` (index arrays of the same shape)."""
    alpha, beta, delta = weights
    width = (u.end[a] - u.start[a]) + (u.end[b] - u.start[b])
    pos = (np.abs(u.start[a] - u.start[b]) + np.abs(u.end[a] - u.end[b])) / width
    cat = (u.label[a] != u.label[b]).astype(np.float64)
    same_doc = u.document[a] == u.document[b]
    return np.where(same_doc, alpha * pos * pos * delta + beta * cat * delta, np.inf)


def _category_disorders(
    u: _Units, tuples: IntArray, weights: tuple[float, float, float], n_labels: int
) -> FloatArray:
    """The categorical disorder of an alignment (Mathet 2017), overall and per label:
    shape (1 + n_labels,), NaN where no pair counts.

    Each pair of units :math:`u, v` aligned together in a unitary alignment of
    :math:`n_v` units weighs :math:`\\max(0, 1 - \\alpha\\,d_{pos}(u, v)) / (n_v - 1)`
    and contributes its weight times :math:`[c_u \\ne c_v]`; the disorder is the weighted
    mean. Per label :math:`k`, only the pairs where one unit at least is labelled
    :math:`k` count. Empty places do not count: a lone unit has no label to compare.
    """
    alpha, _, delta = weights
    present = tuples >= 0
    n_v = present.sum(axis=1)
    base = np.where(n_v > 1, 1.0 / np.maximum(n_v - 1, 1), 0.0)
    total = np.zeros(1 + n_labels)
    weight = np.zeros(1 + n_labels)
    m = tuples.shape[1]
    for i in range(m):
        for j in range(i + 1, m):
            both = present[:, i] & present[:, j]
            a, b = tuples[both, i], tuples[both, j]
            width = (u.end[a] - u.start[a]) + (u.end[b] - u.start[b])
            pos = ((np.abs(u.start[a] - u.start[b]) + np.abs(u.end[a] - u.end[b])) / width) ** 2
            w = base[both] * np.maximum(0.0, 1.0 - alpha * pos * delta)
            differ = (u.label[a] != u.label[b]).astype(np.float64)
            total[0] += float(np.sum(w * differ))
            weight[0] += float(np.sum(w))
            for k in range(n_labels):
                has = (u.label[a] == k) | (u.label[b] == k)
                total[1 + k] += float(np.sum((w * differ)[has]))
                weight[1 + k] += float(np.sum(w[has]))
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(weight > 0, total / np.where(weight > 0, weight, 1.0), np.nan)
    return out


def _candidates(u: _Units, weights: tuple[float, float, float]) -> tuple[IntArray, FloatArray]:
    """Every unitary alignment that can be in a best alignment, shape (k, m) (``-1`` for
    no unit), and its disorder (k,).

    A unitary alignment costs the sum over its pairs of places of :math:`d` (or
    :math:`\\Delta_\\emptyset` where a place is empty), over :math:`\\binom{m}{2}`. Two
    exact prunings (neither changes the optimum): one whose cost exceeds :math:`j
    \\Delta_\\emptyset` for its :math:`j` units is beaten by the units alone; and one where
    taking out a unit :math:`u` and leaving it alone lowers the total, i.e. where the
    places paired with :math:`u` sum to more than :math:`(\\binom{m}{2} + m - 1)
    \\Delta_\\emptyset`, is beaten by that split. Alignments are built from the pairs of
    units within that bound.
    """
    m = u.n_annotators
    delta = weights[2]
    pairs = m * (m - 1) // 2
    bound = (pairs + m - 1) * delta
    members = [np.flatnonzero(u.annotator == i) for i in range(m)]
    admissible: dict[tuple[int, int], Any] = {}
    for i in range(m):
        for j in range(i + 1, m):
            a, b = np.meshgrid(members[i], members[j], indexing="ij")
            admissible[(i, j)] = _pair_costs(u, a, b, weights) <= bound
    # partial alignments over annotators 0..i: local unit index per annotator or -1
    partial = np.concatenate([np.arange(members[0].size), [-1]])[:, None]
    for j in range(1, m):
        ok = np.ones((partial.shape[0], members[j].size), dtype=bool)
        for i in range(j):
            col = partial[:, i]
            mat = admissible[(i, j)]
            has = col >= 0
            ok[has] &= mat[col[has]]
        rows, cols = np.nonzero(ok)
        partial = np.concatenate(
            [
                np.column_stack([partial[rows], cols]),
                np.column_stack([partial, np.full(partial.shape[0], -1)]),
            ]
        )
    partial = partial[(partial >= 0).any(axis=1)]
    glob = np.where(partial >= 0, 0, -1)
    for i in range(m):
        glob[:, i] = np.where(partial[:, i] >= 0, members[i][np.maximum(partial[:, i], 0)], -1)
    total = np.zeros(glob.shape[0])
    contrib = np.zeros((glob.shape[0], m))
    for i in range(m):
        for j in range(i + 1, m):
            both = (glob[:, i] >= 0) & (glob[:, j] >= 0)
            cost = np.full(glob.shape[0], delta)
            cost[both] = _pair_costs(u, glob[both, i], glob[both, j], weights)
            total += cost
            contrib[:, i] += cost
            contrib[:, j] += cost
    disorder = total / pairs
    size = (glob >= 0).sum(axis=1)
    slack = 1e-9 * max(delta, 1.0)
    split_worse = np.all((glob < 0) | (contrib <= bound + slack), axis=1)
    keep = (disorder <= size * delta + slack) & split_worse
    return glob[keep], disorder[keep]


def _best(
    u: _Units, weights: tuple[float, float, float]
) -> tuple[float, IntArray, FloatArray, int]:
    """The disorder of the best alignment, its unitary alignments and their disorders, and
    the number of candidates.

    The set-partitioning program (every unit in exactly one unitary alignment) splits into
    the connected groups of units that share candidates. Its linear relaxation is solved
    first (HiGHS); a group whose relaxed solution is integral is solved by it, and the
    groups left fractional are solved as an integer program (``scipy.optimize.milp``).
    """
    from scipy.optimize import linprog

    tuples, cost = _candidates(u, weights)
    n_units = u.annotator.size
    matrix = _cover(tuples, n_units, np.arange(tuples.shape[0]))
    relaxed = linprog(cost, A_eq=matrix, b_eq=np.ones(n_units), bounds=(0, 1), method="highs")
    if relaxed.x is None:  # the singletons always make a feasible alignment
        raise InvalidInputError(f"the alignment program failed: {relaxed.message}")
    x = relaxed.x
    fractional = np.abs(x - np.round(x)) > 1e-6
    if fractional.any():
        x = np.round(x)
        group = _groups(tuples, n_units)
        hard = np.isin(group, np.unique(group[fractional]))
        x[hard] = _integer_solution(tuples[hard], cost[hard], n_units)
    chosen = np.flatnonzero(x > 0.5)
    mean_units = n_units / u.n_annotators
    return float(cost[chosen].sum()) / mean_units, tuples[chosen], cost[chosen], int(cost.size)


def _cover(tuples: IntArray, n_units: int, columns: IntArray) -> Any:
    """The units x candidates incidence matrix (sparse)."""
    from scipy.sparse import csc_matrix

    sub = tuples[columns]
    rows = sub[sub >= 0]
    cols = np.nonzero(sub >= 0)[0]
    return csc_matrix((np.ones(rows.size), (rows, cols)), shape=(n_units, sub.shape[0]))


def _groups(tuples: IntArray, n_units: int) -> IntArray:
    """The connected group of each candidate: units linked by sharing a candidate."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    first = tuples.max(axis=1)  # a unit of each candidate
    heads, tails = [], []
    for i in range(tuples.shape[1]):
        has = tuples[:, i] >= 0
        heads.append(first[has])
        tails.append(tuples[has, i])
    h, t = np.concatenate(heads), np.concatenate(tails)
    graph = coo_matrix((np.ones(h.size), (h, t)), shape=(n_units, n_units))
    _, label = connected_components(graph, directed=False)
    return np.asarray(label[first], dtype=np.int64)


def _integer_solution(tuples: IntArray, cost: FloatArray, n_units: int) -> FloatArray:
    """0/1 choice of the candidates that cover their units exactly once at least cost."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    matrix = _cover(tuples, n_units, np.arange(tuples.shape[0]))
    covered = np.asarray(matrix.sum(axis=1)).ravel() > 0
    res = milp(
        cost,
        constraints=LinearConstraint(matrix[covered], 1, 1),
        integrality=np.ones(cost.size),
        bounds=Bounds(0, 1),
    )
    if res.x is None:
        raise InvalidInputError(f"the alignment program failed: {res.message}")
    out: FloatArray = np.asarray(res.x, dtype=np.float64).round()
    return out


def _pivots(bounds: FloatArray, apart: float, m: int, rng: np.random.Generator) -> FloatArray:
    """Integer pivots, shape (m, n_documents): uniform on ``[0, L)`` of each document, each
    more than ``apart`` from the earlier ones where room is left (by rejection)."""
    out = np.zeros((m, bounds.size))
    for d, length in enumerate(bounds.tolist()):
        for slot in range(m):
            for _ in range(1000):
                pivot = float(np.floor(rng.uniform(0, length)))
                if np.all(np.abs(out[:slot, d] - pivot) > apart):
                    break
            out[slot, d] = pivot
    return out


def _shuffled(u: _Units, bounds: FloatArray, rng: np.random.Generator) -> _Units:
    """A random continuum: for each annotator, the units of an annotator drawn at random
    (with replacement), shifted in each document by a random pivot and wrapped around
    the document's end."""
    m = u.n_annotators
    pivots = _pivots(bounds, float(np.mean(u.end - u.start)) / 2, m, rng)
    parts = []
    for slot in range(m):
        source = int(rng.integers(m))
        sel = np.flatnonzero(u.annotator == source)
        doc = u.document[sel]
        pivot = pivots[slot][doc]
        start, end = u.start[sel] + pivot, u.end[sel] + pivot
        wrap = start > bounds[doc]
        start = np.where(wrap, start - bounds[doc], start)
        end = np.where(wrap, end - bounds[doc], end)
        parts.append((np.full(sel.size, slot), doc, start, end, u.label[sel]))
    cat = [np.concatenate([p[k] for p in parts]) for k in range(5)]
    return _Units(cat[0], cat[1], cat[2], cat[3], cat[4], m)


def gamma_agreement(
    spans: Spans | Any,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    delta_empty: float = 1.0,
    n_samples: int = 30,
    rng: RngLike = 0,
    lengths: Mapping[str, int] | None = None,
    **read_options: Never,
) -> Gamma:
    r"""Gamma (Mathet, Widlöcher & Métivier 2015): agreement on units, aligned one to one,
    with their positions and labels, corrected for chance.

    Two units :math:`u, v` of different annotators differ by

    .. math::

        d(u, v) = \alpha\left(\frac{|s_u - s_v| + |e_u - e_v|}{l_u + l_v}\right)^2
                  \Delta_\emptyset + \beta\,[c_u \ne c_v]\,\Delta_\emptyset,

    a unit aligned with nothing by :math:`\Delta_\emptyset`. An alignment partitions all
    units into unitary alignments (at most one unit per annotator); one of them costs the
    mean of :math:`d` over its :math:`\binom{m}{2}` pairs of annotators (an empty place
    costs :math:`\Delta_\emptyset`), and the disorder of an alignment is the sum of its
    costs over the mean number of units per annotator. With :math:`\delta_{best}` the
    least disorder and :math:`\delta_e` the mean least disorder of shuffled continua,
    :math:`\gamma = 1 - \delta_{best}/\delta_e`.

    Parameters
    ----------
    spans : Spans or DataFrame
        Each annotator's units (they may overlap).
    alpha, beta, delta_empty : float, default 1, 1, 1
        Weights of the positional and the categorical dissimilarity, and the cost of an
        empty place.
    n_samples : int, default 30
        Shuffled continua for the expected disorder.
    rng : Generator, int or None, default 0
        Seed of the shuffles.
    lengths : mapping of document to int, optional
        The continuum of each document (default: 0 to the last end marked).

    Returns
    -------
    Gamma

    Notes
    -----
    **The alignment is exact.** Every unitary alignment that can be in a best alignment is
    listed (one that costs more than its units alone is dropped, which never changes the
    optimum; section 5.1.1 of the paper prunes with the looser bound :math:`m\Delta_\emptyset`),
    and the set-partitioning program is solved to optimality by HiGHS. Units of different
    documents are never aligned. Listing pairs costs :math:`O(n_i n_j)` per pair of
    annotators and document, so very long continua are slow.

    **The expected disorder** follows the shuffling of the paper's section 5.2 as
    pygamma-agreement's ``ShuffleContinuumSampler`` does: each of the :math:`m` annotators
    of a sampled continuum takes the units of an annotator drawn at random, shifted by a
    random integer pivot on ``[0, L)`` (kept more than half the mean unit length from the
    pivots drawn before, so two sampled annotators are not near copies) and wrapped around
    the end. pygamma's default sampler (``StatisticalContinuumSampler``) draws new units from
    fitted distributions instead, so its gamma differs on the same data; the best
    alignment's disorder does not depend on the sampler, and matches pygamma's.

    **Gamma-cat and gamma-k** (Mathet 2017) read the labels of the best alignment: each
    pair of units :math:`u, v` aligned together in a unitary alignment of :math:`n_v`
    units weighs :math:`\max(0, 1 - \alpha d_{pos}(u, v)\Delta_\emptyset) / (n_v - 1)`
    (a pair placed far apart says little about the labels), and the categorical disorder
    is the weighted share of pairs whose labels differ; :math:`\gamma_{cat} = 1 -` that of
    the best alignment over its mean over the best alignments of the shuffled continua.
    :math:`\gamma_k` keeps the pairs where one unit at least is labelled :math:`k`. A
    unit alone in its unitary alignment has no label to compare and does not count.
    pygamma-agreement 0.5.9 also counts every empty place beside a unit as a pair of
    disorder :math:`\Delta_\emptyset^2` and weight :math:`\Delta_\emptyset` (its code
    calls this case experimental), so its gamma-cat differs wherever a unit is left
    alone; on alignments without empty places the two agree.

    References
    ----------
    .. [1] Mathet, Y., Widlöcher, A., & Métivier, J.-P. (2015). The unified and holistic
       method gamma for inter-annotator agreement measure and alignment. *Computational
       Linguistics*, 41(3), 437-479. https://doi.org/10.1162/COLI_a_00227
    .. [2] Mathet, Y. (2017). The agreement measure gamma-cat: a complement to gamma
       focused on categorization of a continuum. *Computational Linguistics*, 43(3),
       661-681. https://doi.org/10.1162/COLI_a_00296
    .. [3] Titeux, H., & Riad, R. (2021). pygamma-agreement: Gamma gamma_cat and gamma_k
       inter-annotator agreement measures for Python. *JOSS*, 6(62), 2989.
       https://doi.org/10.21105/joss.02989

    Examples
    --------
    pygamma-agreement's ``AlexPaulSuzan`` continuum (its tests: best disorder 0.96 with
    ``alpha=3``):

    >>> import pandas as pd, accord
    >>> rows = [("Alex", "1", 2, 9), ("Alex", "2", 11, 17), ("Alex", "5", 24, 30),
    ...     ("Alex", "6", 32, 36), ("Alex", "6", 36, 44), ("Alex", "7", 44, 60),
    ...     ("Paul", "1", 2, 9), ("Paul", "3", 11, 17), ("Paul", "5", 19, 25),
    ...     ("Paul", "6", 32, 44), ("Suzan", "1", 2, 9), ("Suzan", "4", 11, 17),
    ...     ("Suzan", "5", 21, 27), ("Suzan", "6", 32, 36), ("Suzan", "6", 36, 40),
    ...     ("Suzan", "6", 40, 44)]
    >>> df = pd.DataFrame(rows, columns=["annotator", "label", "start", "end"])
    >>> res = accord.gamma_agreement(df.assign(document="d"), alpha=3)
    >>> round(res.observed, 4)
    0.9606
    """
    refuse_read_options("gamma_agreement", read_options, "spans")
    from ._unitizing import prepare

    if n_samples < 1:
        raise InvalidInputError(f"n_samples must be at least 1; got {n_samples}")
    columns = dict(annotator="annotator", document="document", start="start", end="end",
                   label="label")  # fmt: skip
    data, doc_length, _ = prepare(spans, lengths, columns, "gamma_agreement")
    generator = as_generator(rng)
    weights = (float(alpha), float(beta), float(delta_empty))
    order = np.argsort(data.annotator, kind="stable")
    units = _Units(
        data.annotator[order], data.document[order], data.start[order].astype(np.float64),
        data.end[order].astype(np.float64), data.label[order], data.n_annotators,
    )  # fmt: skip
    observed, tuples, costs, n_candidates = _best(units, weights)
    n_labels = len(data.labels)
    cat_observed = _category_disorders(units, tuples, weights, n_labels)
    samples, cat_samples = _sampled_disorders(
        units, doc_length.astype(np.float64), weights, n_samples, generator, n_labels
    )
    expected = float(samples.mean())
    reason = None
    statistic = 1.0 - observed / expected if expected > 0 else math.nan
    if not expected > 0:
        reason = "the shuffled continua have no disorder"
        warn_degenerate(reason)
    gammas, cat_expected, reason_cat = _category_gammas(cat_observed, cat_samples)
    return Gamma(
        name="gamma",
        statistic=statistic,
        observed=observed,
        expected=expected,
        expected_sd=float(samples.std(ddof=1)) if n_samples > 1 else math.nan,
        n_samples=n_samples,
        seed=rng if isinstance(rng, int) else None,
        alpha=weights[0],
        beta=weights[1],
        delta_empty=weights[2],
        n_annotators=data.n_annotators,
        n_documents=data.n_documents,
        n_spans=data.n_spans,
        n_candidates=n_candidates,
        method=(
            "gamma (Mathet, Widlöcher & Métivier 2015): combined positional and "
            f"categorical dissimilarity (alpha {weights[0]:g}, beta {weights[1]:g}, "
            f"delta_empty {weights[2]:g}); best alignment by an exact set-partitioning "
            f"program; expected disorder over {n_samples} shuffled continua"
        ),
        reason=reason,
        gamma_cat=float(gammas[0]),
        cat_observed=float(cat_observed[0]),
        cat_expected=float(cat_expected[0]),
        reason_cat=reason_cat,
        alignment=_alignment_table(data, order, tuples, costs),
        per_label=pd.DataFrame(
            {
                "label": list(data.labels),
                "gamma_k": gammas[1:],
                "observed": cat_observed[1:],
                "expected": cat_expected[1:],
            }
        ),
    )


def _sampled_disorders(
    units: _Units,
    bounds: FloatArray,
    weights: tuple[float, float, float],
    n_samples: int,
    generator: np.random.Generator,
    n_labels: int,
) -> tuple[FloatArray, FloatArray]:
    """The best disorder (n_samples,) and the categorical disorders (n_samples, 1 +
    n_labels) of shuffled continua."""
    disorder = np.empty(n_samples)
    cat = np.empty((n_samples, 1 + n_labels))
    for b in range(n_samples):
        sample = _shuffled(units, bounds, generator)
        disorder[b], tuples, _, _ = _best(sample, weights)
        cat[b] = _category_disorders(sample, tuples, weights, n_labels)
    return disorder, cat


def _category_gammas(
    observed: FloatArray, samples: FloatArray
) -> tuple[FloatArray, FloatArray, str | None]:
    """Gamma-cat and the gamma-k (1 + n_labels,), the expected categorical disorders (the
    mean over the samples where it is defined) and why gamma-cat is NaN, if it is."""
    defined = np.isfinite(samples).any(axis=0)
    expected = np.full(observed.size, np.nan)
    if defined.any():
        expected[defined] = np.nanmean(samples[:, defined], axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        gammas = np.where(expected > 0, 1.0 - observed / expected, np.nan)
    reason = None
    if not np.isfinite(observed[0]):
        reason = "no two units are aligned together: there are no labels to compare"
    elif not expected[0] > 0:
        reason = "the shuffled continua have no categorical disorder"
    return gammas, expected, reason


def _alignment_table(
    data: Spans, order: IntArray, tuples: IntArray, costs: FloatArray
) -> pd.DataFrame:
    """The best alignment as a long table."""
    k, m = tuples.shape
    number = np.repeat(np.arange(k), m)
    annotator = np.tile(np.arange(m), k)
    unit = tuples.ravel()
    span = np.where(unit >= 0, order[np.maximum(unit, 0)], -1)
    has = span >= 0
    labels = np.asarray(data.labels, dtype=object)
    docs = np.asarray(data.documents, dtype=object)
    return pd.DataFrame(
        {
            "alignment": number,
            "annotator": np.asarray(data.annotators, dtype=object)[annotator],
            "document": pd.Series(docs[data.document[np.maximum(span, 0)]]).where(has),
            "start": pd.Series(data.start[np.maximum(span, 0)], dtype="Int64").where(has),
            "end": pd.Series(data.end[np.maximum(span, 0)], dtype="Int64").where(has),
            "label": pd.Series(labels[data.label[np.maximum(span, 0)]]).where(has),
            "disorder": np.repeat(costs, m),
        }
    )
