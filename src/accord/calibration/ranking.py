"""HodgeRank: scores from pairwise comparisons, or from per-rater scores or rankings.

Jiang, Lim, Yao & Ye (2011). Given comparisons ``y_ij`` (how much item ``i`` beats item ``j``)
with weights ``w_ij``, HodgeRank finds the scores ``x`` whose differences fit them best,

.. math::

    \\min_x \\sum_{(i,j)} w_{ij} (x_i - x_j - y_{ij})^2,

the weighted least-squares projection of the comparisons onto gradient flows. What is left,
the residual, is the inconsistency of the comparisons (cyclic and harmonic parts together).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Never

import numpy as np
import pandas as pd

from .._errors import InvalidInputError, warn_degenerate
from .._results import Result, to_plain
from .._types import DUPLICATE_RULES, Duplicates, FloatArray, IntArray
from .._validate import check_choice, format_rows
from ..data.encoder import missing_mask
from ..data.frames import columns_of
from ..data.source import refuse_read_options
from . import _linalg
from ._input import check_finite, factorize_ids, listed, numeric_column, resolve_duplicates

__all__ = ["HodgeRank", "hodge_rank"]


@dataclasses.dataclass(frozen=True, slots=True)
class HodgeRank(Result):
    """Result of :func:`hodge_rank`.

    Attributes
    ----------
    scores : pandas.DataFrame
        One row per item: ``item``, ``score`` (mean 0 in every component), ``weight`` (summed
        weight of the item's comparisons), ``n_comparisons``, ``rank`` (1 = best, ties share the
        lowest rank), ``component``.
    residual : float
        ``sum w (y - (x_i - x_j))^2``: the inconsistency left after the best fit.
    total : float
        ``sum w y^2``.
    inconsistency : float
        ``residual / total`` in ``[0, 1]``: 0 when the comparisons are consistent with some
        scores, 1 when no scores explain any of them (NaN when ``total`` is 0).
    n_items, n_comparisons, n_components : int
    iterations : int
        Conjugate-gradient iterations.
    method : str
    """

    scores: pd.DataFrame
    residual: float
    total: float
    inconsistency: float
    n_items: int
    n_comparisons: int
    n_components: int
    iterations: int
    method: str

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of every field."""
        return {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _within_rater_pairs(rater_codes: IntArray) -> tuple[IntArray, IntArray]:
    """All pairs ``(e, e')``, ``e < e'`` in sorted order, of assessments by the same rater.

    Returns positions into ``np.argsort(rater_codes, kind="stable")`` order's original indices.
    """
    order = np.argsort(rater_codes, kind="stable")
    sorted_r = rater_codes[order]
    n = sorted_r.size
    ends = np.searchsorted(sorted_r, sorted_r, side="right")
    counts = ends - np.arange(n) - 1
    total = int(counts.sum())
    first = np.repeat(np.arange(n), counts)
    starts = np.cumsum(counts) - counts
    offset = np.arange(total) - np.repeat(starts, counts) + 1
    second = first + offset
    return order[first], order[second]


def hodge_rank(
    data: Any,
    *,
    first: str | None = None,
    second: str | None = None,
    margin: str | None = None,
    weight: str | None = None,
    item: str | None = None,
    rater: str | None = None,
    score: str | None = None,
    confidence: str | None = None,
    higher_is_better: bool = True,
    duplicates: Duplicates = "raise",
    tol: float = 1e-10,
    max_iter: int = 5000,
    **read_options: Never,
) -> HodgeRank:
    """HodgeRank scores with their inconsistency (Jiang, Lim, Yao & Ye 2011).

    .. math::

        \\hat x = \\arg\\min_x \\sum_{(i,j)} w_{ij} (x_i - x_j - y_{ij})^2, \\quad
        \\sum x = 0, \\qquad
        \\text{inconsistency} = \\frac{\\sum w (y - \\hat x_i + \\hat x_j)^2}{\\sum w y^2}.

    Two kinds of input:

    * pairwise comparisons: ``first``, ``second`` (item ids) and ``margin`` (how much
      ``first`` beats ``second``; default 1, i.e. ``first`` won) with optional ``weight``;
    * per-rater scores or rankings: ``item``, ``rater``, ``score`` (with optional
      ``confidence``): every pair of items scored by one rater is a comparison
      ``y = s_o - s_o'`` with weight ``c_o c_o' / C_a`` (``C_a`` the rater's summed
      confidence). For ranks (1 = best) pass ``higher_is_better=False``.

    Parameters
    ----------
    data : DataFrame
        Long table, one row per comparison or per assessment.
    first, second, margin, weight : str, optional
        Columns for pairwise comparisons.
    item, rater, score, confidence : str, optional
        Columns for per-rater scores.
    higher_is_better : bool, default True
        Whether a larger ``score`` is better (False for ranks).
    duplicates : {"raise", "first", "last", "mean"}, default "raise"
        Per-rater scores: a rater who scored one item more than once, as in
        :func:`accord.calibrate_panel` (``"mean"`` averages the scores and the confidences).
    tol, max_iter
        Conjugate-gradient settings.

    Returns
    -------
    HodgeRank

    Raises
    ------
    InvalidInputError
        Neither or both kinds of columns; non-numeric margins or scores; non-positive weights;
        a comparison of an item with itself; a disconnected comparison graph (components named);
        a rater who scored one item twice with ``duplicates="raise"``.

    Notes
    -----
    With per-rater scores, HodgeRank's scores equal calibration with confidence's values up to
    one constant: eliminating the biases ``b_a`` from MacKay et al.'s least squares leaves
    exactly this objective with weights ``c c' / C_a`` (their Section 3 draws the link to
    Hodge theory). Raters who scored a single item compare nothing and drop out.

    References
    ----------
    .. [1] Jiang, X., Lim, L.-H., Yao, Y. and Ye, Y. (2011). Statistical ranking and
       combinatorial Hodge theory. Mathematical Programming 127, 203-244.
       doi:10.1007/s10107-010-0419-x
    .. [2] MacKay, R. S., Kenna, R., Low, R. J. and Parker, S. (2017). Calibration with
       confidence: a principled method for panel assessment. Royal Society Open Science 4,
       160760. doi:10.1098/rsos.160760

    Examples
    --------
    Three consistent comparisons (a beats b by 1, b beats c by 2, a beats c by 3) and then a
    cycle (a > b > c > a by 1 each), which no scores can explain:

    >>> import pandas as pd, accord
    >>> pairs = pd.DataFrame({"first": ["a", "b", "a"], "second": ["b", "c", "c"],
    ...                       "margin": [1.0, 2.0, 3.0]})
    >>> r = accord.hodge_rank(pairs, first="first", second="second", margin="margin")
    >>> r.scores[["item", "score"]].round(4).to_dict("list")
    {'item': ['a', 'b', 'c'], 'score': [1.3333, 0.3333, -1.6667]}
    >>> round(r.inconsistency, 12)
    0.0
    >>> cycle = pd.DataFrame({"first": ["a", "b", "c"], "second": ["b", "c", "a"]})
    >>> r = accord.hodge_rank(cycle, first="first", second="second")
    >>> r.scores["score"].round(12).abs().tolist(), r.inconsistency
    ([0.0, 0.0, 0.0], 1.0)
    """
    refuse_read_options("hodge_rank", read_options)
    check_choice("duplicates", duplicates, DUPLICATE_RULES, "hodge_rank")
    pairwise = first is not None or second is not None
    scored = item is not None or rater is not None or score is not None
    if pairwise == scored:
        raise InvalidInputError(
            "hodge_rank needs either first and second (pairwise comparisons) or item, rater "
            "and score (per-rater scores), not both and not neither"
        )
    if pairwise:
        if first is None or second is None:
            raise InvalidInputError("pairwise comparisons need both first and second columns")
        names = [first, second] + [c for c in (margin, weight) if c is not None]
        arrays, _, _ = columns_of(data, tuple(names))
        positions = np.arange(arrays[0].size, dtype=np.int64)
        both = np.concatenate([arrays[0], arrays[1]])
        codes, items = factorize_ids(both, np.concatenate([positions, positions]), first)
        i, j = codes[: positions.size], codes[positions.size :]
        col = 2
        if margin is not None:
            y = numeric_column(arrays[col], positions, margin)
            check_finite(y, positions, margin, positive=False)
            col += 1
        else:
            y = np.ones(positions.size)
        if weight is not None:
            w = numeric_column(arrays[col], positions, weight)
            check_finite(w, positions, weight, positive=True)
        else:
            w = np.ones(positions.size)
        same = np.flatnonzero(i == j)
        if same.size:
            raise InvalidInputError(
                f"an item cannot be compared with itself: {items[i[same[0]]]!r} at row "
                f"{int(same[0]) + 1} ({same.size} such rows: {format_rows(same)})"
            )
        how = "pairwise comparisons"
    else:
        if item is None or rater is None or score is None:
            raise InvalidInputError("per-rater scores need item, rater and score columns")
        names = [item, rater, score] + ([confidence] if confidence is not None else [])
        arrays, _, _ = columns_of(data, tuple(names))
        positions = np.arange(arrays[0].size, dtype=np.int64)
        miss = missing_mask(arrays[2])
        if miss.any():
            raise InvalidInputError(
                f"column {score!r}: {int(miss.sum())} rows are missing (rows "
                f"{format_rows(np.flatnonzero(miss))})"
            )
        s = numeric_column(arrays[2], positions, score)
        check_finite(s, positions, score, positive=False)
        if not higher_is_better:
            s = -s
        if confidence is not None:
            c = numeric_column(arrays[3], positions, confidence)
            check_finite(c, positions, confidence, positive=True)
        else:
            c = np.ones_like(s)
        codes, items = factorize_ids(arrays[0], positions, item)
        rcodes, rater_names = factorize_ids(arrays[1], positions, rater)
        codes, rcodes, s, c, _ = resolve_duplicates(
            codes,
            rcodes,
            positions,
            s,
            c,
            duplicates=duplicates,
            ids=(items, rater_names),
            owner="hodge_rank",
        )
        ea, eb = _within_rater_pairs(rcodes)
        C_a = np.bincount(rcodes, weights=c)
        i, j = codes[ea], codes[eb]
        y = s[ea] - s[eb]
        w = c[ea] * c[eb] / C_a[rcodes[ea]]
        keep = i != j
        i, j, y, w = i[keep], j[keep], y[keep], w[keep]
        how = "within-rater score differences, weights c c'/C_a"
    return _hodge(i, j, y, w, items, how, tol, max_iter)


def _hodge(
    i: IntArray,
    j: IntArray,
    y: FloatArray,
    w: FloatArray,
    items: Any,
    how: str,
    tol: float,
    max_iter: int,
) -> HodgeRank:
    from scipy import sparse
    from scipy.sparse import csgraph

    n = len(items)
    adj = sparse.csr_matrix((w, (i, j)), shape=(n, n))
    adj = (adj + adj.T).tocsr()
    k, labels = csgraph.connected_components(adj, directed=False)
    if k > 1:
        sizes = np.bincount(labels)
        order = np.argsort(-sizes, kind="stable")
        parts = [
            f"component {r + 1}: items {listed(np.asarray(items)[labels == comp])}"
            for r, comp in enumerate(order[:5])
        ]
        raise InvalidInputError(
            f"the comparison graph is disconnected: {k} components, whose scores cannot be "
            "compared: " + " | ".join(parts)
        )
    degree = np.asarray(adj.sum(axis=1)).ravel()
    div = np.asarray(
        np.bincount(i, weights=w * y, minlength=n) - np.bincount(j, weights=w * y, minlength=n),
        dtype=np.float64,
    )

    def apply(x: FloatArray) -> FloatArray:
        return np.asarray(degree[:, None] * x - adj @ x)

    inv = np.divide(1.0, degree, out=np.zeros_like(degree), where=degree > 0)
    x, iterations, _ = _linalg.pcg(apply, inv, div, tol=tol, max_iter=max_iter)
    x = x - x.mean()
    fitted = x[i] - x[j]
    residual = float(np.sum(w * (y - fitted) ** 2))
    total = float(np.sum(w * y * y))
    if total > 0:
        inconsistency = min(1.0, residual / total)
    else:
        inconsistency = math.nan
        warn_degenerate("hodge_rank: every comparison is 0, so inconsistency is undefined")
    counts = np.bincount(i, minlength=n) + np.bincount(j, minlength=n)
    scores = pd.DataFrame(
        {
            "item": np.asarray(items),
            "score": x,
            "weight": degree,
            "n_comparisons": counts,
            "rank": pd.Series(-x).rank(method="min").astype(np.int64).to_numpy(),
            "component": labels.astype(np.int64),
        }
    )
    return HodgeRank(
        scores=scores,
        residual=residual,
        total=total,
        inconsistency=inconsistency,
        n_items=n,
        n_comparisons=int(y.size),
        n_components=int(k),
        iterations=iterations,
        method=f"HodgeRank (Jiang et al. 2011) on {how}; scores sum to 0",
    )
