"""Agreement of each rater with a reference label: percent agreement, kappa and IA.

The reference is the leave-one-out consensus label of a rating's item, or the item's gold
label. The statistics are sums over the (rater, label, reference) cells, so counts merged
from batches give the same numbers as counts of all ratings at once.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._types import FloatArray, IntArray
from ._cells import Cells, as_cells, count_cells, count_of, group_entropy

__all__ = [
    "PairAgreement",
    "pair_agreement",
    "pair_agreement_from_cells",
    "pair_agreement_from_counts",
]


class PairAgreement(NamedTuple):
    """Per-group agreement of paired labels ``x`` (the rater) and ``y`` (the reference).

    All arrays have shape (n_groups,): n, share agreeing, Cohen's kappa, informational
    agreement (NaN where undefined).
    """

    n: IntArray
    agreement: FloatArray
    kappa: FloatArray
    ia: FloatArray


def pair_agreement(
    group: IntArray, x: IntArray, y: IntArray, n_groups: int, q: int
) -> PairAgreement:
    """Percent agreement, Cohen's kappa and IA of ``x`` against ``y`` within each group.

    Cohen (1960): ``kappa = (p_o - p_e) / (1 - p_e)`` with ``p_e = sum_k p_x[k] p_y[k]``.
    Informational agreement (Casagrande, Fabris & Girometti 2020):
    ``IA = MI / min(H(X), H(Y))``, and where a marginal entropy is 0 the authors' continuity
    extension ``1 - m / q`` (``m``: non-empty categories of the other rater). Each group's
    q x q table is never formed when it would be large: counts are taken over non-empty cells.
    """
    cells = count_cells((group * q + x) * q + y, n_groups * q * q)
    return pair_agreement_from_cells(cells, n_groups, q)


def pair_agreement_from_cells(xy_cells: Cells, n_groups: int, q: int) -> PairAgreement:
    """:func:`pair_agreement` from the counts of ``(group * q + x) * q + y`` (sorted cells):
    the statistics are sums, so counts merged from batches give the same numbers."""
    group = xy_cells.keys // (q * q)
    x = (xy_cells.keys // q) % q
    y = xy_cells.keys % q
    cnt = xy_cells.counts
    cntf = cnt.astype(np.float64)
    n = np.bincount(group, weights=cntf, minlength=n_groups).astype(np.int64)
    nf = n.astype(np.float64)
    agree = np.bincount(group, weights=cntf * (x == y), minlength=n_groups)
    x_cells = count_cells(group * q + x, n_groups * q, cnt)
    y_cells = count_cells(group * q + y, n_groups * q, cnt)
    # sum_k n_x[g, k] n_y[g, k] = sum over pairs of n_y[g, x]
    cross = np.bincount(
        group,
        weights=count_of(y_cells, group * q + x).astype(np.float64) * cntf,
        minlength=n_groups,
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        p_o = agree / nf
        p_e = cross / (nf * nf)
        kappa = np.where(p_e < 1.0, (p_o - p_e) / (1.0 - p_e), np.nan)
    kappa = np.where(n > 0, kappa, np.nan)
    p_o = np.where(n > 0, p_o, np.nan)

    hx, mx = group_entropy(x_cells, q, n_groups)
    hy, my = group_entropy(y_cells, q, n_groups)
    hxy, _ = group_entropy(xy_cells, q * q, n_groups)
    mi = np.maximum(hx + hy - hxy, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ia = mi / np.minimum(hx, hy)
    ia = np.where(mx == 1, 1.0 - my / q, np.where(my == 1, 1.0 - mx / q, ia))
    ia = np.where(n > 0, ia, np.nan)
    return PairAgreement(n, p_o, kappa, ia)


def pair_agreement_from_counts(counts: Any, n_groups: int, q: int) -> PairAgreement:
    """:func:`pair_agreement_from_cells` from counts of ``(group * q + x) * q + y`` as
    :func:`~accord.consensus._cells.count_keys` gives them (dense, or sorted pairs)."""
    keys, n = as_cells(counts)
    return pair_agreement_from_cells(Cells(keys, n, None), n_groups, q)
