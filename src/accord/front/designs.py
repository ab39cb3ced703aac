"""Two raters' agreement over clustered items or across strata, from a :class:`~accord.Source`:
the front doors of :func:`accord.clustered_agreement` and :func:`accord.stratified_kappa`.

The estimators take the two raters' labels of each item and each item's group as arrays; the
front doors read them from a long table (one row per rating, with a column naming each item's
cluster or stratum), so that Python and ``accord agree --cluster/--strata`` compute on the same
items.
"""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import PurePath
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, shown
from .._types import RngLike
from ..agreement.clustered import (
    ClusterCoefficient,
    ClusteredAgreement,
    ClusterMethod,
    StratifiedKappa,
    clustered_agreement,
    stratified_kappa,
)
from ..data.ratings import Ratings, ReadReport
from ..data.source import Source, as_source
from .reading import ratings_of, several_files

__all__ = [
    "GroupedPairs",
    "agreement_by_cluster",
    "clustered_pairs",
    "grouped_pairs",
    "kappa_by_stratum",
]


@dataclasses.dataclass(frozen=True, slots=True)
class GroupedPairs:
    """Two raters' labels of each item rated by both, the item's group, and the read
    report of the table they come from."""

    raters: tuple[Any, Any]
    x: npt.NDArray[Any]
    y: npt.NDArray[Any]
    groups: npt.NDArray[Any]
    report: ReadReport


def agreement_by_cluster(
    data: Source | Any,
    *,
    cluster: str,
    coefficient: ClusterCoefficient = "cohen_kappa",
    method: ClusterMethod = "linearization",
    n_boot: int = 1000,
    rng: RngLike = 0,
    **read_options: Any,
) -> ClusteredAgreement:
    """Cohen's kappa or Gwet's AC1 of two raters with a cluster-robust standard error, from a
    long table whose column ``cluster`` names each item's cluster
    (:func:`accord.clustered_agreement` on the table's items).

    Parameters
    ----------
    data : Source, path or data frame
        A :class:`~accord.Source` (:func:`accord.source`) or what it holds: a CSV/TSV,
        Parquet or JSON Lines file or a pandas frame with one row per rating, read from its
        ``item``, ``rater`` and ``label`` columns (two raters) as :func:`accord.read_ratings`
        reads them (missing values, duplicates, ``labels_as``), read once.
    cluster : str
        The column naming each item's cluster (one value per item).
    coefficient, method, n_boot, rng
        As :func:`accord.clustered_agreement`.
    **read_options
        The fields of :func:`accord.source` (``item=``, ``rater=``, ``label=``, ``sep=``,
        ...).

    Returns
    -------
    ClusteredAgreement
        With the read report of the table as ``report``.

    Examples
    --------
    >>> import pandas as pd
    >>> x = [1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0]
    >>> y = [1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1]
    >>> sites = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    >>> long = pd.DataFrame({"i": list(range(12)) * 2, "r": ["A"] * 12 + ["B"] * 12,
    ...                      "l": x + y, "site": sites * 2})
    >>> res = agreement_by_cluster(long, cluster="site", item="i", rater="r", label="l")
    >>> round(res.statistic, 3), res.n_clusters
    (0.333, 4)
    """
    owner = "agreement_by_cluster"
    pairs = grouped_pairs(as_source(data, owner, **read_options), cluster, owner)
    return clustered_pairs(pairs, coefficient, method=method, n_boot=n_boot, rng=rng)


def clustered_pairs(
    pairs: GroupedPairs,
    coefficient: ClusterCoefficient = "cohen_kappa",
    *,
    method: ClusterMethod = "linearization",
    n_boot: int = 1000,
    rng: RngLike = 0,
) -> ClusteredAgreement:
    """:func:`accord.clustered_agreement` of the pairs read (:func:`grouped_pairs`), with
    their read report: one read serves each coefficient."""
    res = clustered_agreement(
        pairs.x, pairs.y, pairs.groups, coefficient=coefficient, method=method,
        n_boot=n_boot, rng=rng,
    )  # fmt: skip
    return dataclasses.replace(res, report=pairs.report)


def kappa_by_stratum(
    data: Source | Any,
    *,
    strata: str,
    **read_options: Any,
) -> StratifiedKappa:
    """Each stratum's Cohen's kappa, the test of equal kappas and the overall kappa of two
    raters, from a long table whose column ``strata`` names each item's stratum
    (:func:`accord.stratified_kappa` on the table's items).

    Parameters
    ----------
    data : Source, path or data frame
        As :func:`agreement_by_cluster`.
    strata : str
        The column naming each item's stratum (one value per item).
    **read_options
        The fields of :func:`accord.source`.

    Returns
    -------
    StratifiedKappa
        With the read report of the table as ``report``.

    Examples
    --------
    >>> import pandas as pd
    >>> x = [0, 1] * 10 + [0, 1, 1, 0] * 5
    >>> y = [0, 1] * 9 + [0, 0] + [0, 1, 0, 1] * 5
    >>> long = pd.DataFrame({"i": list(range(40)) * 2, "r": ["A"] * 40 + ["B"] * 40,
    ...                      "l": x + y, "s": (["a"] * 20 + ["b"] * 20) * 2})
    >>> res = kappa_by_stratum(long, strata="s", item="i", rater="r", label="l")
    >>> res.table["kappa"].round(3).tolist()  # a: p_o 0.95, p_e 0.5; b: p_o 0.5, p_e 0.5
    [0.9, 0.0]
    """
    owner = "kappa_by_stratum"
    pairs = grouped_pairs(as_source(data, owner, **read_options), strata, owner)
    return dataclasses.replace(
        stratified_kappa(pairs.x, pairs.y, pairs.groups), report=pairs.report
    )


def grouped_pairs(src: Source, group: str, owner: str) -> GroupedPairs:
    """The two raters' labels of each item rated by both, and its ``group``, from the long
    table ``src`` holds or reads, read once as :func:`accord.read_ratings` reads it (its
    missing values, duplicates policy, ``labels_as`` and read report) with the ``group``
    column beside; errors in the words of ``owner``. An item rated by one rater is left out
    with a warning naming how many."""
    if src.engine != "memory":
        raise InvalidInputError(f"{owner}() computes in memory; got engine={src.engine!r}")
    absent = [f"{k}=" for k in ("item", "rater", "label") if getattr(src, k) is None]
    if absent:
        raise InvalidInputError(f"{owner}() reads a long table: pass {', '.join(absent)}")
    if src.multi_label:
        raise InvalidInputError(f"{owner}() compares one label per rating; got multi_label=True")
    ratings, rows = _read(src, group, owner)
    if ratings.n_raters != 2:
        raise InvalidInputError(
            f"{owner}() compares two raters; column {src.rater!r} has {ratings.n_raters}"
        )
    codes = ratings.code_matrix()
    both = (codes >= 0).all(axis=1)
    if not both.all():
        warnings.warn(
            f"{owner}(): {int((~both).sum())} of {both.size} items rated by one rater are "
            "left out", stacklevel=3,
        )  # fmt: skip
    cats = np.empty(ratings.n_categories, dtype=object)
    cats[:] = list(ratings.categories)
    return GroupedPairs(
        (ratings.raters[0], ratings.raters[1]),
        cats[codes[both, 0]],
        cats[codes[both, 1]],
        _item_groups(rows, str(src.item), group, ratings.items[both]),
        ratings.report,
    )


def _item_groups(
    rows: pd.DataFrame, item: str, group: str, items: npt.NDArray[Any]
) -> npt.NDArray[Any]:
    """The ``group`` of each of ``items``, from the rows read: one value per item."""
    from ..consensus.gold import gold_values

    per_item = rows.dropna(subset=[group]).groupby(item, sort=False)[group]
    n_values = per_item.nunique()
    if (n_values > 1).any():
        bad = n_values.index[n_values > 1][0]
        raise InvalidInputError(f"item {shown(bad)!r} has more than one value in column {group!r}")
    groups = gold_values(per_item.first().to_dict(), items)
    nobody = [i for i, g in enumerate(groups) if g is None]
    if nobody:
        raise InvalidInputError(
            f"item {shown(items[nobody[0]])!r} has no value in column {group!r}"
        )
    return groups


def _read(src: Source, group: str, owner: str) -> tuple[Ratings, pd.DataFrame]:
    """The ratings ``src`` holds or reads and its rows' ``item`` and ``group`` columns: a
    file is read once for both (:func:`accord.io.ratings.read_ratings_and_rows`)."""
    item, data = str(src.item), src.data
    if isinstance(data, str | PurePath):
        if src.from_ is not None or src.field is not None:
            raise InvalidInputError(
                f"{owner}() reads the column {group!r} of a table; an annotation-tool export "
                "holds only its labels"
            )
        if several_files(data):
            raise InvalidInputError(f"{owner}() reads one file; {data} names several")
        from ..io.ratings import read_ratings_and_rows

        options = src.read_options()
        names = {k: options.pop(k) for k in ("item", "rater", "label")}
        ratings, frame = read_ratings_and_rows(str(data), [group], **names, **options)
        return ratings, frame[[item, group]]
    if hasattr(data, "to_pandas") and not isinstance(data, pd.DataFrame):
        data = data.to_pandas()
    if not isinstance(data, pd.DataFrame):
        raise InvalidInputError(
            f"{owner}() reads a long table (a path or a data frame); got {type(data).__name__}"
        )
    missing = [c for c in (item, group) if c not in data.columns]
    if missing:
        raise InvalidInputError(
            f"{owner}(): no column {missing[0]!r} in the frame (its columns: {list(data.columns)})"
        )
    ratings = ratings_of(dataclasses.replace(src, data=data), owner)
    return ratings, data[[item, group]]
