r"""Simon's ordinal entropy and surprisal: the categories in their order.

With :math:`F_j = P(X \le j)`, the ordinal entropy is :math:`\sum_{j<q} H_2(F_j)`; a rating
one category off the mode is less surprising than one three categories off.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._types import FloatArray, IntArray
from ._cells import h2
from .results import ConsensusReference

__all__ = ["Ordinal", "ordinal_scores"]


class Ordinal(NamedTuple):
    """Ordinal entropy per item (shape (n_items,)) and, per rating, ordinal surprisal and the
    reference ordinal entropy (shapes (n_ratings,))."""

    item_entropy: FloatArray
    surprisal: FloatArray
    entropy: FloatArray


def ordinal_scores(
    counts: IntArray, item: IntArray, label: IntArray, reference: ConsensusReference, lb: float
) -> Ordinal:
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
        item_entropy = h2(f_all).sum(axis=1) / lb
        item_entropy[n[:, 0] == 0] = np.nan
        if reference == "all":
            below = -np.log2(1.0 - f_all)  # j < i
            above = -np.log2(f_all)  # j >= i
            h_below = h2(f_all)
            h_above = h_below
        else:
            m = n - 1.0
            below = -np.log2(1.0 - cum / m)
            above = -np.log2((cum - 1.0) / m)
            h_below = h2(cum / m)
            h_above = h2((cum - 1.0) / m)
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
    return Ordinal(item_entropy, surprisal, entropy)
