"""Two-rater measures over every pair of raters: the rater x rater matrix and Light's kappa."""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from typing import Any, Never

import numpy as np
import pandas as pd

from .._errors import InvalidInputError, bad_parameter, hint, warn_degenerate
from .._results import Coefficient, Result, to_plain
from .._types import FloatArray, RngLike
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ..data.table import ContingencyTable
from ..stats.pairs import PAIR_TABLE_CELLS, PairTables, pair_agreement
from ._counts import CountsView, pair_tables
from ._shared import rating_counts
from ._tables import (
    LIGHT_MIN_ITEMS,
    cohen_pairs,
    cohen_tables,
    light_fields,
    pair_features,
    pair_mean_bootstrap,
    pair_specific,
    percent_tables,
    positive_index,
)
from .inference import CIKind, check_ci

__all__ = ["PairwiseAgreement", "light_kappa", "pairwise_agreement"]

Measure = Callable[[ContingencyTable], Any]
BUILTIN_MEASURES = ("cohen_kappa", "percent_agreement", "specific_agreement")


#: The note of Light's kappa when its standard error is NaN because none was asked for.
def light_no_analytic_se() -> str:
    """The note of Light's kappa when its standard error is NaN because none was asked for,
    in the caller's words (``ci='bootstrap'``, ``--ci bootstrap``, or no advice on a command
    without that option)."""
    return "no analytic SE" + hint(": {} gives one", "ci", "bootstrap")


def _resolve_measure(
    measure: str | Measure,
    positive: Any = None,
    categories: tuple[Any, ...] = (),
) -> tuple[str, Callable[[FloatArray], FloatArray] | None]:
    if positive is not None and measure != "specific_agreement":
        raise InvalidInputError(
            "The 'positive' parameter of pairwise_agreement applies to "
            f"measure='specific_agreement' only. Got measure={measure!r}."
        )
    if callable(measure):
        return getattr(measure, "__name__", "custom"), None
    if measure == "cohen_kappa":
        return measure, cohen_tables
    if measure == "percent_agreement":
        return measure, percent_tables
    if measure == "specific_agreement":
        k = positive_index(categories, positive, "pairwise_agreement")
        return measure, lambda tables: pair_specific(tables, k)[1]
    raise InvalidInputError(
        "The 'measure' parameter of pairwise_agreement must be one of "
        f"{{'cohen_kappa', 'percent_agreement', 'specific_agreement'}} or a callable. "
        f"Got {measure!r} instead."
    )


@dataclasses.dataclass(frozen=True, slots=True)
class PairwiseAgreement(Result):
    """A two-rater measure for every pair of raters that co-rated enough items.

    Attributes
    ----------
    measure : str
        Name of the measure.
    matrix : pandas.DataFrame
        Raters x raters, symmetric; NaN on the diagonal and for pairs below ``min_items``.
    n_common : pandas.DataFrame
        Raters x raters: items each pair co-rated.
    pairs : pandas.DataFrame
        One row per pair kept: ``rater_a``, ``rater_b``, ``n_items``, ``statistic``.
    mean, sd : float
        Mean and standard deviation (ddof=1) of the measure over the kept pairs (NaN
        values excluded).
    n_pairs : int
        Pairs kept.
    min_items : int
        Minimum co-rated items for a pair to be kept.
    """

    measure: str
    matrix: pd.DataFrame
    n_common: pd.DataFrame
    pairs: pd.DataFrame
    mean: float
    sd: float
    n_pairs: int
    min_items: int

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (the matrix as nested lists with the rater names)."""
        return {
            "measure": self.measure,
            "raters": [str(r) for r in self.matrix.index],
            "matrix": to_plain(self.matrix.to_numpy()),
            "n_common": to_plain(self.n_common.to_numpy()),
            "pairs": to_plain(self.pairs),
            "mean": self.mean,
            "sd": self.sd,
            "n_pairs": self.n_pairs,
            "min_items": self.min_items,
        }


def _pair_tables(data: Ratings | PairTables) -> PairTables:
    if isinstance(data, PairTables):
        return data
    if isinstance(data, Ratings):
        return PairTables.from_ratings(data)
    raise InvalidInputError(
        f"pairwise measures need Ratings or PairTables; got a {type(data).__name__}"
    )


def pairwise_agreement(
    data: Ratings | PairTables,
    *,
    measure: str | Measure = "cohen_kappa",
    min_items: int = 1,
    positive: Any = None,
    **read_options: Never,
) -> PairwiseAgreement:
    """A two-rater measure over every rater pair that co-rated at least ``min_items`` items.

    Parameters
    ----------
    data : Ratings or PairTables
        Ratings, or the rater-pair contingency tables (:class:`~accord.PairTables`).
    measure : {"cohen_kappa", "percent_agreement", "specific_agreement"} or callable
        A built-in measure (computed on all pair tables at once), or any callable that takes
        a :class:`~accord.ContingencyTable` and returns an object with a ``.statistic``
        (e.g. ``accord.cohen_kappa``, ``accord.informational_agreement``) or a number.
        Default ``"cohen_kappa"``. ``"specific_agreement"`` is the positive specific
        agreement ``2a / (2a + b + c)`` (= F1) of the ``positive`` category.
    min_items : int, default 1
        Pairs that co-rated fewer items are left out (NaN in the matrix).
    positive : category, optional
        The positive category of ``measure="specific_agreement"`` (default: the first
        category); an error with any other measure.

    Returns
    -------
    PairwiseAgreement
        The rater x rater ``matrix``, ``n_common``, the long ``pairs`` table, and the
        ``mean`` and ``sd`` over pairs.

    Notes
    -----
    Each pair uses only the items both raters rated (missing is missing). The mean of
    Cohen's kappa over pairs is Light's (1971) kappa (:func:`light_kappa`). The mean of
    specific agreement over pairs is :func:`~accord.pairwise_specific_agreement`, which adds
    NSA, every category and a bootstrap SE; its SD over pairs is the population SD (ddof=0),
    where ``sd`` here is the sample SD (ddof=1).

    References
    ----------
    .. [1] Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
       Psychological Measurement, 20(1), 37-46. https://doi.org/10.1177/001316446002000104
    .. [2] Light, R. J. (1971). Measures of response agreement for qualitative data: some
       generalizations and alternatives. Psychological Bulletin, 76(5), 365-377.
       https://doi.org/10.1037/h0031643

    Examples
    --------
    >>> import accord
    >>> r = accord.Ratings.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "a", "a"],
    ...                               ["b", "a", "b"]])
    >>> pw = pairwise_agreement(r, measure="percent_agreement")
    >>> pw.matrix.round(2).values.tolist()
    [[nan, 0.75, 0.75], [0.75, nan, 0.5], [0.75, 0.5, nan]]
    """
    refuse_read_options("pairwise_agreement", read_options)
    if not isinstance(min_items, int | np.integer) or min_items < 1:
        raise InvalidInputError(
            f"The 'min_items' parameter of pairwise_agreement must be an integer >= 1. "
            f"Got {min_items!r} instead."
        )
    pt = _pair_tables(data)
    name, vectorised = _resolve_measure(measure, positive, pt.categories)
    raters = np.asarray(pt.raters, dtype=object)
    n_r = raters.size
    n_items = pt.tables.sum(axis=(1, 2))
    keep = n_items >= min_items
    tables = pt.tables[keep].astype(np.float64)
    pairs = pt.pairs[keep]
    if vectorised is not None:
        values = vectorised(tables)
    else:
        out = []
        for p, t in zip(pairs, tables, strict=True):  # one call per rater pair
            res = measure(  # type: ignore[operator]
                ContingencyTable(t, pt.categories, raters=(str(raters[p[0]]), str(raters[p[1]])))
            )
            out.append(float(getattr(res, "statistic", res)))
        values = np.asarray(out, dtype=np.float64)
    mat = np.full((n_r, n_r), np.nan)
    mat[pairs[:, 0], pairs[:, 1]] = values
    mat[pairs[:, 1], pairs[:, 0]] = values
    common = np.zeros((n_r, n_r), dtype=np.int64)
    common[pt.pairs[:, 0], pt.pairs[:, 1]] = n_items
    common[pt.pairs[:, 1], pt.pairs[:, 0]] = n_items
    labels = pd.Index([str(r) for r in raters], name="rater")
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        warn_degenerate(
            f"pairwise_agreement: no rater pair co-rated {min_items} or more items with a "
            f"defined {name}"
        )
    return PairwiseAgreement(
        measure=name,
        matrix=pd.DataFrame(mat, index=labels, columns=labels),
        n_common=pd.DataFrame(common, index=labels, columns=labels),
        pairs=pd.DataFrame(
            {
                "rater_a": [str(raters[a]) for a in pairs[:, 0]],
                "rater_b": [str(raters[b]) for b in pairs[:, 1]],
                "n_items": n_items[keep],
                "statistic": values,
            }
        ),
        mean=float(finite.mean()) if finite.size else math.nan,
        sd=float(finite.std(ddof=1)) if finite.size >= 2 else math.nan,
        n_pairs=int(keep.sum()),
        min_items=int(min_items),
    )


def light_kappa(
    data: Ratings,
    *,
    min_items: int = LIGHT_MIN_ITEMS,
    ci: CIKind = "bootstrap",
    n_boot: int = 2000,
    rng: RngLike = None,
    **read_options: Never,
) -> Coefficient:
    r"""Light's kappa: the mean of Cohen's kappa over rater pairs.

    .. math::

        \kappa_L = \frac{1}{|P|}\sum_{(a,b) \in P} \kappa_{ab}

    over the pairs *P* that co-rated at least ``min_items`` items (each pair on the items
    both rated) and whose kappa is defined.

    Parameters
    ----------
    data : Ratings
        Ratings with rater ids.
    min_items : int, default 2
        Pairs that co-rated fewer items are left out, and counted in the ``reason``. The
        default is the fewest on which a pair's kappa measures anything: on one item it is
        0/0 when the two agree and 0 whatever they said when they disagree.
    ci : {"bootstrap", "analytic"}, default "bootstrap"
        There is no analytic SE for Light's kappa: the default bootstraps items (``n_boot``
        replicates, on the per-item pair tables) and reports the replicates' standard
        deviation as ``standard_error``; ``"analytic"`` returns a NaN SE, with a ``reason``
        saying so.
    n_boot : int, default 2000
    rng : Generator, int or None

    Returns
    -------
    Coefficient
        ``statistic``, ``standard_error`` (bootstrap SD, or NaN), the bootstrap replicates
        and the fields of :class:`~accord.Coefficient`; ``n_items`` counts the items with two
        or more ratings.

    Notes
    -----
    Pairs whose kappa is undefined (one category used by both, chance agreement 1) are left
    out of the mean, as are pairs with fewer than ``min_items`` co-rated items; the
    ``reason`` counts both (``"1 rater pair left out: 1 co-rated fewer than 2 items"``),
    and when no pair remains the statistic is NaN with the reason. Pairs that share no item
    are not pairs of the design and are not counted. With two raters it is Cohen's kappa.
    Every pair's kappa comes from its contingency table (:class:`~accord.PairTables`) in
    one vectorised pass over the stacked tables.

    References
    ----------
    .. [1] Light, R. J. (1971). Measures of response agreement for qualitative data: some
       generalizations and alternatives. Psychological Bulletin, 76(5), 365-377.
       https://doi.org/10.1037/h0031643

    Examples
    --------
    Pairwise kappas by hand: raters 1-2 and 1-3 agree on 3 of 4 items with chance 1/2
    (kappa 0.5); raters 2-3 on 2 of 4 with chance 3/8 (kappa 0.2); the mean is 0.4.

    >>> import accord
    >>> r = accord.Ratings.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "a", "a"],
    ...                               ["b", "a", "b"]])
    >>> round(light_kappa(r, ci="analytic").statistic, 4)
    0.4
    """
    refuse_read_options("light_kappa", read_options)
    check_ci(ci, n_boot, "light_kappa")
    if isinstance(min_items, bool) or not isinstance(min_items, int | np.integer) or min_items < 2:
        requirement = "an integer >= 2 (a rater pair's kappa needs two co-rated items)"
        raise InvalidInputError(bad_parameter("light_kappa", "min_items", requirement, min_items))
    shared: CountsView | None = None
    if isinstance(data, CountsView) and data.ratings is not None:  # agreement()'s counts view
        shared, data = data, data.ratings
    if not isinstance(data, Ratings):
        raise InvalidInputError(
            "light_kappa needs ratings with rater ids (Ratings), not item x category counts"
        )
    n_r, q = data.n_raters, data.n_categories
    pt: PairTables | None = None
    if ci == "analytic" and n_r * (n_r - 1) // 2 * q * q > PAIR_TABLE_CELLS:
        # Many categories: each pair's kappa from its trace and marginal products, with
        # memory proportional to the pairs of ratings (no q x q table per rater pair).
        kappas, kept, pair_items = cohen_pairs(pair_agreement(data), min_items)
    else:
        pt = PairTables.from_ratings(data) if shared is None else pair_tables(shared)
        kappas, kept, pair_items = cohen_pairs(pt, min_items)
    if shared is None:
        n_pairable, n_single, n_raters = rating_counts(data)
    else:
        it = shared.items
        n_pairable, n_single = it.n2, int(np.count_nonzero(it.r == 1))
        n_raters = shared.n_raters
    out = light_fields(
        kappas,
        f"SE: bootstrap over items ({n_boot} replicates)"
        if ci == "bootstrap"
        else "no analytic SE",
        pair_items=pair_items,
        min_items=min_items,
        n_items=n_pairable,
        n_raters=n_raters,
        categories=data.categories,
        n_items_unpairable=n_single,
    )
    if math.isnan(out["statistic"]):  # no pair with a defined kappa
        return Coefficient(**out)
    if ci == "analytic":
        out["reason"] = "; ".join(filter(None, (light_no_analytic_se(), out.get("reason"))))
    if ci == "bootstrap":
        assert pt is not None  # the bootstrap resamples the per-item pair tables
        reps, jk = _light_bootstrap(data, pt, kept, n_boot, rng)
        good = reps[np.isfinite(reps)]
        se = float(good.std(ddof=1)) if good.size >= 2 else math.nan
        out.update(standard_error=se, replicates=reps, jackknife=jk)
    return Coefficient(**out)


def _light_bootstrap(
    data: Ratings, pt: PairTables, keep: Any, n_boot: int, rng: RngLike
) -> tuple[FloatArray, FloatArray | None]:
    """Replicates of Light's kappa over items, from the per-item pair tables of the kept
    pairs (positions ``keep``; their jackknife too)."""
    feats = pair_features(data, pt, keep)
    rated = np.bincount(data.item_codes, minlength=data.n_items) > 0
    feats = feats[rated]
    q = data.n_categories
    n_kept = int(keep.size)

    def stat(t: FloatArray) -> FloatArray:
        k = cohen_tables(t.reshape(t.shape[0], n_kept, q, q))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res: FloatArray = np.nanmean(k, axis=1)
        return res

    def per_pair(t: FloatArray) -> FloatArray:
        return cohen_tables(t)[:, None]

    return pair_mean_bootstrap(feats, stat, per_pair, n_kept, q, n_boot=n_boot, rng=rng)
