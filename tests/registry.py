"""One entry per coefficient with the properties it has, for ``tests/test_registry.py``.

A new coefficient joins the property tests by one :class:`Entry` in :data:`REGISTRY`: its
bounds, whether it is computed from the item counts alone (then partial counts merged give the
same value), and whether :func:`accord.agreement` reports it under every engine. Every entry is
checked for its bounds, for invariance under the order of the rows, under renaming labels,
raters and items, and under exchanging the raters' names among themselves (symmetry).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from accord import (
    brennan_prediger,
    conger_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    light_kappa,
    percent_agreement,
)


@dataclass(frozen=True)
class Entry:
    """A coefficient and the properties the tests check.

    Attributes
    ----------
    compute : callable
        Ratings (or item counts, when ``from_counts``) to a result with ``statistic``.
    bounds : (float, float)
        The closed interval every defined value lies in.
    from_counts : bool
        Computed from :class:`accord.stats.ItemCategoryCounts` alone: counts of two halves of
        the items, merged, give the value of the whole (statistic and standard error).
    in_agreement_table : bool
        A row of :func:`accord.agreement`'s table (named as the key of :data:`REGISTRY`),
        equal under the memory, stream and dask engines.
    """

    compute: Callable[..., Any]
    bounds: tuple[float, float]
    from_counts: bool = False
    in_agreement_table: bool = True


REGISTRY: dict[str, Entry] = {
    "percent_agreement": Entry(percent_agreement, (0.0, 1.0), from_counts=True),
    "fleiss_kappa": Entry(fleiss_kappa, (-math.inf, 1.0), from_counts=True),
    "conger_kappa": Entry(conger_kappa, (-math.inf, 1.0)),
    "light_kappa": Entry(lambda r: light_kappa(r, ci="analytic"), (-1.0, 1.0)),
    "brennan_prediger": Entry(brennan_prediger, (-math.inf, 1.0), from_counts=True),
    "gwet_ac1": Entry(gwet_ac1, (-math.inf, 1.0), from_counts=True),
    "krippendorff_alpha": Entry(krippendorff_alpha, (-math.inf, 1.0), from_counts=True),
}
