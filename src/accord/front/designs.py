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
from ..data.source import Source, as_source

__all__ = ["GroupedPairs", "agreement_by_cluster", "grouped_pairs", "kappa_by_stratum"]


@dataclasses.dataclass(frozen=True, slots=True)
class GroupedPairs:
    """Two raters' labels of each item rated by both, and the item's group."""

    raters: tuple[Any, Any]
    x: npt.NDArray[Any]
    y: npt.NDArray[Any]
    groups: npt.NDArray[Any]


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
        ``item``, ``rater`` and ``label`` columns (two raters).
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
    return clustered_agreement(
        pairs.x, pairs.y, pairs.groups, coefficient=coefficient, method=method,
        n_boot=n_boot, rng=rng,
    )  # fmt: skip


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
    return stratified_kappa(pairs.x, pairs.y, pairs.groups)


def grouped_pairs(src: Source, group: str, owner: str) -> GroupedPairs:
    """The two raters' labels of each item rated by both, and its ``group``, from the long
    table ``src`` holds or reads; errors in the words of ``owner``. An item rated by one
    rater is left out with a warning naming how many."""
    if src.engine != "memory":
        raise InvalidInputError(f"{owner}() computes in memory; got engine={src.engine!r}")
    absent = [f"{k}=" for k in ("item", "rater", "label") if getattr(src, k) is None]
    if absent:
        raise InvalidInputError(f"{owner}() reads a long table: pass {', '.join(absent)}")
    item, rater, label = str(src.item), str(src.rater), str(src.label)
    frame = _table(src, [item, rater, label, group], owner)
    raters = list(dict.fromkeys(frame[rater]))
    if len(raters) != 2:
        raise InvalidInputError(
            f"{owner}() compares two raters; column {rater!r} has {len(raters)}"
        )
    per_item = frame.groupby(item, sort=False)[group].nunique()
    if (per_item > 1).any():
        bad = per_item.index[per_item > 1][0]
        raise InvalidInputError(f"item {shown(bad)!r} has more than one value in column {group!r}")
    twice = frame.duplicated([item, rater])
    if twice.any() and src.duplicates == "raise":
        row = frame[twice].iloc[0]
        raise InvalidInputError(
            f"rater {shown(row[rater])!r} rated item {shown(row[item])!r} more than once "
            "(duplicates='first' or 'last' keeps one)"
        )
    kept = frame.drop_duplicates(
        [item, rater], keep="last" if src.duplicates == "last" else "first"
    )
    wide = kept.pivot(index=item, columns=rater, values=label)
    both = wide.notna().all(axis=1)
    if not both.all():
        warnings.warn(
            f"{owner}(): {int((~both).sum())} of {len(wide)} items rated by one rater are "
            "left out", stacklevel=3,
        )  # fmt: skip
    wide = wide[both]
    groups = kept.groupby(item, sort=False)[group].first().reindex(wide.index)
    return GroupedPairs(
        (raters[0], raters[1]),
        wide[raters[0]].to_numpy(),
        wide[raters[1]].to_numpy(),
        np.asarray(groups.to_numpy()),
    )


def _table(src: Source, columns: list[str], owner: str) -> pd.DataFrame:
    """The named columns of the file or frame ``src`` holds, as pandas."""
    data = src.data
    if isinstance(data, str | PurePath):
        from ..io.ratings import FileOptions, read_table

        files: FileOptions = {"sep": src.sep, "encoding": src.encoding,
                              "file_format": src.file_format}  # fmt: skip
        return read_table(str(data), columns, na_values=src.na_values, **files)
    if hasattr(data, "to_pandas") and not isinstance(data, pd.DataFrame):
        data = data.to_pandas()
    if not isinstance(data, pd.DataFrame):
        raise InvalidInputError(
            f"{owner}() reads a long table (a path or a data frame); got {type(data).__name__}"
        )
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise InvalidInputError(
            f"{owner}(): no column {missing[0]!r} in the frame (its columns: {list(data.columns)})"
        )
    return data[columns]
