"""Agreement between two raters, from their q x q contingency table.

Every function takes a :class:`~accord.ContingencyTable` (rows rater X, columns rater Y), a
q x q array of counts, two aligned label vectors ``(x, y)``, or a :class:`~accord.Ratings`
with two raters (or ``raters=(A, B)`` to choose two). The table is the sufficient statistic:
every estimate, standard error and bootstrap replicate is computed from it.

The pipeline is a handful of small vectorised functions on joint proportions of shape
``(..., q, q)`` (a leading batch axis carries bootstrap replicates), composed by the public
functions at the end of the module.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, Never, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError, warn_degenerate
from .._results import (
    Coefficient,
    ConfidenceInterval,
    Result,
    check_level,
    coefficient_fields,
    undefined_fields,
)
from .._types import LEVELS, Alternative, FloatArray, IntArray, Level, RngLike, as_generator
from ..data.ratings import Ratings
from ..data.source import refuse_read_options
from ..data.table import ContingencyTable
from ..information import entropy
from ._tables import specific_ratio
from .inference import (
    BootstrapOnly,
    Inference,
    bootstrap_ci_method,
    check_n_boot,
    population_factor,
)
from .weights import (
    WEIGHT_SCHEMES,
    agreement_weights,
    all_numbers,
    check_diagonal,
    has_order,
    is_scheme,
    square_matrix,
)

__all__ = [
    "CohenKappa",
    "Dichotomization",
    "DichotomyKind",
    "InformationalAgreement",
    "as_table",
    "best_dichotomization",
    "cohen_kappa",
    "cohen_kappa_cells",
    "informational_agreement",
    "scott_pi",
]

TwoRaterData: TypeAlias = ContingencyTable | Ratings | npt.ArrayLike
"""A contingency table, a q x q array of counts, rater X's labels (with ``y``), or ratings."""

#: Chance agreement this close to 1 counts as 1 (kappa 0/0).
_PE_TOL = 1e-12
#: Bootstrap tables drawn per chunk: at most this many cells in memory at once.
_BOOT_CELLS = 2_000_000
#: Largest number of items for which leave-one-out values (BCa) are materialised.
_JACKKNIFE_MAX = 10_000_000


# --------------------------------------------------------------------------- input


def as_table(
    data: TwoRaterData,
    y: npt.ArrayLike | None = None,
    *,
    categories: Sequence[Any] | None = None,
    raters: tuple[Any, Any] | None = None,
    owner: str = "as_table",
) -> ContingencyTable:
    """The two raters' :class:`~accord.ContingencyTable` from any accepted input.

    Parameters
    ----------
    data : ContingencyTable, Ratings, array_like of shape (q, q), or array_like of shape (n,)
        A table; ratings (two raters, or choose two with ``raters``); a q x q array of counts;
        or rater X's labels, with rater Y's labels in ``y``.
    y : array_like of shape (n,), optional
        Rater Y's labels, aligned with ``data``.
    categories : sequence, optional
        The category domain in its declared order (for arrays and label vectors).
    raters : pair, optional
        Which two raters of a :class:`~accord.Ratings` (required when it has more than two);
        names of the two raters for label vectors.
    owner : str
        Function name used in error messages.

    Examples
    --------
    >>> as_table(["a", "b", "b"], ["a", "b", "a"]).counts.tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    if isinstance(data, ContingencyTable):
        if y is not None:
            raise InvalidInputError(
                f"{owner}: pass either a contingency table or two label vectors"
            )
        if categories is None:
            return data
        return ContingencyTable(
            data.counts, categories, raters=data.raters, n_unpaired=data.n_unpaired
        )
    if isinstance(data, Ratings):
        if y is not None:
            raise InvalidInputError(f"{owner}: pass either ratings or two label vectors")
        if categories is not None:
            raise InvalidInputError(
                f"{owner}: the ratings carry their categories; declare them when building the "
                "Ratings (categories=...)"
            )
        return ContingencyTable.from_ratings(data, raters=raters)
    names = ("X", "Y") if raters is None else (str(raters[0]), str(raters[1]))
    if y is not None:
        return ContingencyTable.from_labels(data, y, categories=categories, raters=names)
    arr = np.asarray(data, dtype=object)
    if arr.ndim == 1:
        raise InvalidInputError(
            f"{owner}: one label vector given; pass rater Y's labels as the second argument"
        )
    try:
        return ContingencyTable(data, categories, raters=names)
    except InvalidInputError as exc:
        hint = ""
        if arr.ndim == 2 and arr.shape[1] == 2 and arr.shape[0] != 2:
            hint = " (for an items x 2 array of labels, pass the two columns as x, y)"
        raise InvalidInputError(f"{owner}: {exc}{hint}") from None


def _integer_counts(table: ContingencyTable) -> bool:
    counts = table.counts
    return bool(np.all(counts == np.round(counts)))


def _n_items(table: ContingencyTable) -> int:
    return round(table.n)


# ------------------------------------------------------------------ vectorised cores


def _marginals(p: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Row and column marginals of joint proportions ``p`` of shape (..., q, q)."""
    px: FloatArray = p.sum(axis=-1)
    py: FloatArray = p.sum(axis=-2)
    return px, py


def _kappa_core(p: FloatArray, w: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Weighted kappa of joint proportions.

    Parameters
    ----------
    p : ndarray, shape (..., q, q)
        Joint proportions (each table sums to 1).
    w : ndarray, shape (q, q)
        Agreement weights.

    Returns
    -------
    kappa, p_o, p_e : ndarray, shape (...)
        Kappa is NaN where ``p_e`` is 1.
    """
    px, py = _marginals(p)
    po: FloatArray = (p * w).sum(axis=(-2, -1))
    pe: FloatArray = np.einsum("...i,ij,...j->...", px, w, py)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa: FloatArray = np.where(pe < 1.0 - _PE_TOL, (po - pe) / (1.0 - pe), np.nan)
    return kappa, po, pe


def _scott_core(p: FloatArray, w: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Weighted Scott's pi (chance from the pooled marginals); shapes as :func:`_kappa_core`."""
    px, py = _marginals(p)
    pooled = (px + py) / 2.0
    po: FloatArray = (p * w).sum(axis=(-2, -1))
    pe: FloatArray = np.einsum("...i,ij,...j->...", pooled, w, pooled)
    with np.errstate(invalid="ignore", divide="ignore"):
        pi: FloatArray = np.where(pe < 1.0 - _PE_TOL, (po - pe) / (1.0 - pe), np.nan)
    return pi, po, pe


@dataclasses.dataclass(frozen=True, slots=True)
class _Information:
    """Information quantities of a batch of tables (all in bits), shapes (...)."""

    ia: FloatArray
    mi: FloatArray
    hx: FloatArray
    hy: FloatArray
    hxy: FloatArray
    rows_used: npt.NDArray[np.int64]
    cols_used: npt.NDArray[np.int64]


def _information_core(p: FloatArray) -> _Information:
    """IA with the continuity extension (Casagrande, Fabris & Girometti, BIBM 2020).

    Parameters
    ----------
    p : ndarray, shape (..., q, q)
        Joint proportions.

    Returns
    -------
    _Information
        ``ia`` is MI / min(H(X), H(Y)) when both entropies are positive; when X uses one
        category it is ``1 - m/q`` (``m`` the categories Y uses), when Y uses one category
        ``1 - l/q`` (``l`` those X uses), and ``1 - 1/q`` for a single non-empty cell.
    """
    q = p.shape[-1]
    px, py = _marginals(p)
    hx = np.asarray(entropy(px, base=2.0, axis=-1), dtype=np.float64)
    hy = np.asarray(entropy(py, base=2.0, axis=-1), dtype=np.float64)
    flat = p.reshape(*p.shape[:-2], q * q)
    hxy = np.asarray(entropy(flat, base=2.0, axis=-1), dtype=np.float64)
    mi = np.maximum(hx + hy - hxy, 0.0)
    rows_used = np.count_nonzero(px > 0, axis=-1).astype(np.int64)
    cols_used = np.count_nonzero(py > 0, axis=-1).astype(np.int64)
    x_constant = rows_used == 1
    y_constant = cols_used == 1
    with np.errstate(invalid="ignore", divide="ignore"):
        regular = np.clip(mi / np.minimum(hx, hy), 0.0, 1.0)
    ia = np.where(
        x_constant,
        1.0 - cols_used / q,
        np.where(y_constant, 1.0 - rows_used / q, regular),
    )
    return _Information(
        np.asarray(ia, dtype=np.float64),
        mi,
        hx,
        hy,
        hxy,
        rows_used,
        cols_used,
    )


def _ia_values(p: FloatArray) -> FloatArray:
    return _information_core(p).ia


def _linearized_se(p: FloatArray, gradient: FloatArray, n: float, factor: float) -> float:
    """Delta-method (linearisation) SE of a statistic of multinomial proportions.

    ``Var = f / n * (sum p g^2 - (sum p g)^2)`` with ``g`` the gradient of the statistic
    with respect to the cell proportions ``p`` (both of shape (q, q)).
    """
    if n < 2:
        return math.nan
    mean = float(np.sum(p * gradient))
    second = float(np.sum(p * gradient**2))
    excess = second - mean**2  # a difference of sums: within round-off of 0 it is 0
    return math.sqrt(factor / n * excess) if excess > 1e-12 * second else 0.0


# ------------------------------------------------------------------------ bootstrap


def bootstrap_table(
    table: ContingencyTable,
    statistic: Callable[[FloatArray], FloatArray],
    *,
    n_boot: int,
    rng: RngLike,
) -> tuple[FloatArray, FloatArray | None]:
    """Bootstrap over items on the contingency table, and leave-one-item-out values.

    Resampling the items of a two-rater study with replacement is drawing a multinomial table
    with the observed cell proportions and the same number of items; each replicate table is
    a row of one vectorised batch (no loop over items).

    Parameters
    ----------
    table : ContingencyTable
        Integer counts.
    statistic : callable
        Maps joint proportions of shape (B, q, q) to values of shape (B,).
    n_boot : int
        Number of replicates (>= 1).
    rng : Generator, int or None

    Returns
    -------
    replicates : ndarray, shape (n_boot,)
    jackknife : ndarray, shape (n_items,) or None
        Leave-one-item-out values (for BCa), or None above 10 million items.
    """
    if n_boot < 1:
        raise InvalidInputError(f"n_boot must be a positive number of replicates, got {n_boot}")
    if not _integer_counts(table):
        raise InvalidInputError(
            "a bootstrap over items needs a table of item counts (whole numbers), not proportions"
        )
    gen = as_generator(rng)
    q = table.q
    n = _n_items(table)
    cells = table.counts.ravel()
    probs = cells / cells.sum()
    chunk = max(1, _BOOT_CELLS // (q * q))
    parts: list[FloatArray] = []
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        draws = gen.multinomial(n, probs, size=size).astype(np.float64).reshape(size, q, q)
        parts.append(np.asarray(statistic(draws / n), dtype=np.float64))
    replicates = np.concatenate(parts)
    jackknife: FloatArray | None = None
    if 2 <= n <= _JACKKNIFE_MAX:
        used = np.flatnonzero(cells > 0)
        loo = np.repeat(cells[None, :], used.size, axis=0)
        loo[np.arange(used.size), used] -= 1.0
        values = np.asarray(statistic(loo.reshape(-1, q, q) / (n - 1)), dtype=np.float64)
        jackknife = np.repeat(values, cells[used].astype(np.int64))
    return replicates, jackknife


# ------------------------------------------------------------------------ weights


def _weight_matrix(
    table: ContingencyTable,
    weights: str | None,
    agreement: npt.ArrayLike | None,
    disagreement: npt.ArrayLike | None,
    owner: str,
    declared: bool = True,
    ordered: bool = True,
) -> tuple[FloatArray, str]:
    """The agreement-weight matrix and its name, from exactly one way of giving it;
    ``declared`` False for a bare q x q array given without ``categories=``, ``ordered``
    False for text labels sorted only alphabetically (:func:`_ordered`)."""
    given = sum(v is not None for v in (weights, agreement, disagreement))
    if given > 1:
        raise InvalidInputError(
            f"{owner}: give at most one of weights=, agreement_weights= and disagreement_weights="
        )
    q = table.q
    if agreement is not None:
        return agreement_weights(agreement, table.categories, owner=owner), "agreement matrix"
    if disagreement is not None:
        d = square_matrix(disagreement, q, "disagreement weight matrix", owner)
        if not np.all(np.isfinite(d)) or np.any(d < 0):
            raise InvalidInputError(
                f"disagreement weights of {owner} must be finite and >= 0; got values from "
                f"{np.nanmin(d):g} to {np.nanmax(d):g}"
            )
        check_diagonal(d, 0.0, owner, "use agreement_weights=")
        top = float(d.max())
        if top <= 0:
            raise InvalidInputError(
                f"disagreement weights of {owner} are all 0: no disagreement is penalised"
            )
        return 1.0 - d / top, "disagreement matrix"
    if weights is None or (isinstance(weights, str) and weights == "identity"):
        return np.eye(q), "identity"
    if not isinstance(weights, str):
        raise InvalidInputError(
            f"{owner}: pass an explicit weight matrix as agreement_weights= (1 on the diagonal) "
            "or disagreement_weights= (0 on the diagonal), so that its meaning is stated"
        )
    if not is_scheme(weights):
        options = ", ".join(repr(s) for s in (None, *WEIGHT_SCHEMES, "power:<a>", "circular:<u>"))
        raise InvalidInputError(
            f"The 'weights' parameter of {owner} must be one of {{{options}}}. "
            f"Got {weights!r} instead."
        )
    w = agreement_weights(
        weights, table.categories, owner=owner, declared=declared, ordered=ordered
    )
    return w, weights


def _ordered(data: Any, y: Any, categories: Sequence[Any] | None, table: ContingencyTable) -> bool:
    """Whether the table's category order means something (:func:`has_order`): ratings by
    their level and declaration; two label vectors when ``categories=`` orders them or the
    labels are numbers; a table of counts or an array in its own order."""
    if isinstance(data, Ratings):
        return has_order(data.categories, data.level, data.categories_declared)
    if y is not None and categories is None:
        return has_order(table.categories, "nominal", declared=False)
    return True


def _declared(data: Any, y: Any, categories: Sequence[Any] | None) -> bool:
    """Whether the categories of the table ``as_table`` makes are values someone gave (False
    for a q x q array or a :class:`~accord.ContingencyTable` built without ``categories=``,
    whose categories default to 0..q-1)."""
    if categories is not None or y is not None or isinstance(data, Ratings):
        return True
    return isinstance(data, ContingencyTable) and data.categories_declared


def _kappa_max(px: FloatArray, py: FloatArray, w: FloatArray, pe: float) -> float:
    """Largest kappa the marginals allow (Cohen 1960; weighted: a transportation problem)."""
    if pe >= 1.0 - _PE_TOL:
        return math.nan
    if np.array_equal(w, np.eye(w.shape[0])):
        best = float(np.minimum(px, py).sum())
    else:
        from scipy.optimize import linprog

        q = w.shape[0]
        rows = np.kron(np.eye(q), np.ones((1, q)))
        cols = np.kron(np.ones((1, q)), np.eye(q))
        res = linprog(
            -w.ravel(),
            A_eq=np.vstack([rows, cols]),
            b_eq=np.r_[px, py],
            bounds=(0, None),
            method="highs",
        )
        if not res.success:  # pragma: no cover - the problem is always feasible and bounded
            return math.nan
        best = float(-res.fun)
    return (best - pe) / (1.0 - pe)


# ------------------------------------------------------------------------ results


@dataclasses.dataclass(frozen=True, slots=True)
class CohenKappa(Coefficient):
    """Cohen's kappa (weighted or not) with the indices that explain it.

    Attributes
    ----------
    percent_agreement : float
        Unweighted observed agreement (share of items on the diagonal).
    kappa_max : float
        The largest kappa the two raters' marginal distributions allow (with the same
        weights).
    pabak : float
        Prevalence- and bias-adjusted kappa, ``(q p_o - 1) / (q - 1)`` on the unweighted
        ``p_o`` (``2 p_o - 1`` for two categories; Byrt, Bishop & Carlin 1993).
    prevalence_index, bias_index : float
        ``|p_11 - p_22|`` and ``|p_12 - p_21|`` (2 x 2 tables only; NaN otherwise).
    weight_matrix : ndarray, shape (q, q)
        The agreement weights used (1 on the diagonal).
    table : ndarray, shape (q, q)
        The contingency table (rows rater X, columns rater Y).
    raters : tuple of str
        Names of rater X and rater Y.
    """

    percent_agreement: float = math.nan
    kappa_max: float = math.nan
    pabak: float = math.nan
    prevalence_index: float = math.nan
    bias_index: float = math.nan
    weight_matrix: FloatArray = dataclasses.field(
        default_factory=lambda: np.zeros((0, 0)), repr=False, compare=False
    )
    table: FloatArray = dataclasses.field(
        default_factory=lambda: np.zeros((0, 0)), repr=False, compare=False
    )
    raters: tuple[str, str] = ("X", "Y")


def _weighted_table(
    owner: str,
    data: TwoRaterData,
    y: npt.ArrayLike | None,
    categories: Sequence[Any] | None,
    raters: tuple[Any, Any] | None,
    weights: str | None,
    agreement_weights: npt.ArrayLike | None,
    disagreement_weights: npt.ArrayLike | None,
    population_size: float | None,
) -> tuple[ContingencyTable, FloatArray, str, FloatArray, int, float]:
    """The two raters' table, the agreement weights with their name, the table's
    proportions, the number of items and the finite-population factor of the variance."""
    table = as_table(data, y, categories=categories, raters=raters, owner=owner)
    w, wname = _weight_matrix(
        table,
        weights,
        agreement_weights,
        disagreement_weights,
        owner,
        _declared(data, y, categories),
        _ordered(data, y, categories, table),
    )
    n = _n_items(table)
    return table, w, wname, table.proportions, n, population_factor(n, population_size)


def _chance_corrected_fields(
    name: str,
    table: ContingencyTable,
    n: int,
    method: str,
    po: float,
    pe: float,
    wname: str,
    population_size: float | None,
) -> dict[str, Any]:
    """The result fields shared by the two-rater chance-corrected coefficients."""
    return dict(
        name=name,
        n_items=n,
        n_raters=2,
        categories=table.categories,
        method=method,
        observed_agreement=po,
        chance_agreement=pe,
        weights=wname,
        n_items_unpairable=table.n_unpaired,
        population_size=math.inf if population_size is None else float(population_size),
    )


def cohen_kappa(
    data: TwoRaterData,
    y: npt.ArrayLike | None = None,
    /,
    *,
    weights: str | None = None,
    agreement_weights: npt.ArrayLike | None = None,
    disagreement_weights: npt.ArrayLike | None = None,
    categories: Sequence[Any] | None = None,
    raters: tuple[Any, Any] | None = None,
    population_size: float | None = None,
    test_value: float = 0.0,
    alternative: Alternative = "two-sided",
    **read_options: Never,
) -> CohenKappa:
    r"""Cohen's kappa for two raters, unweighted or weighted.

    .. math::

        \kappa_w = \frac{p_o - p_e}{1 - p_e}, \quad
        p_o = \sum_{x,y} w_{xy}\, p_{xy}, \quad
        p_e = \sum_{x,y} w_{xy}\, p_{x\cdot}\, p_{\cdot y}

    with joint proportions :math:`p_{xy}` (rows rater X, columns rater Y) and agreement
    weights :math:`w` (the identity when unweighted).

    Parameters
    ----------
    data : ContingencyTable, Ratings, array_like of shape (q, q), or labels of shape (n,)
        The two raters' table, a q x q array of counts, ratings with two raters, or rater X's
        labels (with rater Y's in ``y``).
    y : array_like of shape (n,), optional
        Rater Y's labels, aligned with ``data``.
    weights : {None, "linear", "quadratic", "ordinal", "radical", "ratio", "circular", \
"bipolar", "power:<a>", "circular:<u>"}, optional
        A named weighting scheme (see :func:`~accord.agreement.weights.agreement_weights`),
        computed on the declared category scale: the categories' values when they are
        numbers, else their positions. Default: unweighted.
    agreement_weights : array_like of shape (q, q), optional
        An explicit agreement-weight matrix: 1 on the diagonal, values in [0, 1].
    disagreement_weights : array_like of shape (q, q), optional
        An explicit disagreement-weight matrix: 0 on the diagonal, values >= 0 (any scale;
        kappa is invariant to it). Used as :math:`w = 1 - v / \max v`.
    categories : sequence, optional
        The category domain in its declared order (arrays and label vectors).
    raters : pair, optional
        Which two raters of a :class:`~accord.Ratings`.
    population_size : float, optional
        Number of items in the population, for the finite-population correction
        :math:`1 - n/N` of the variance. Default: infinite.
    test_value : float, default 0
        The p-value tests ``kappa = test_value`` (kappaetc's ``testvalue()``); its t
        statistic is ``test_statistic``.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The alternative of that test (``"greater"``: H0 ``kappa <= test_value``). With two
        raters the standard error is conditional on them: the jackknife over raters
        (``se=`` of :func:`~accord.conger_kappa`) needs three or more.

    Returns
    -------
    CohenKappa
        ``statistic`` (kappa), ``standard_error`` (general, Fleiss, Cohen & Everitt 1969),
        ``standard_error_null`` (under kappa = 0, same paper), ``observed_agreement``
        (:math:`p_o`, weighted), ``chance_agreement`` (:math:`p_e`), ``percent_agreement``,
        ``kappa_max``, ``pabak``, ``prevalence_index``, ``bias_index``, ``weight_matrix``,
        ``table``, and the fields of :class:`~accord.Coefficient`
        (``confidence_interval()``, ``pvalue``, ``to_dict()``).

    Raises
    ------
    InvalidInputError
        A table that is not square, has negative cells or is empty; more than one way of
        giving weights; a bare matrix in ``weights=``; a misshapen or invalid weight matrix.

    Notes
    -----
    The general variance is that of Fleiss, Cohen & Everitt (1969), as SAS PROC FREQ and
    R irrCAC report it:

    .. math::

        \widehat{\mathrm{Var}}(\kappa_w) = \frac{\sum_{xy} p_{xy}\,[w_{xy} -
        (\bar w_{x\cdot} + \bar w_{\cdot y})(1 - \kappa_w)]^2 - [\kappa_w - p_e(1 -
        \kappa_w)]^2}{n (1 - p_e)^2},

    :math:`\bar w_{x\cdot} = \sum_y w_{xy} p_{\cdot y}`, :math:`\bar w_{\cdot y} = \sum_x
    w_{xy} p_{x\cdot}`; the null variance replaces :math:`p_{xy}` by :math:`p_{x\cdot}
    p_{\cdot y}` and sets :math:`\kappa_w = 0`. The confidence interval is
    :math:`\kappa \pm t_{1-\alpha/2,\,n-1}\,SE`, truncated to [-1, 1]; the p-value uses the
    same t reference with the general SE.

    Peers read a bare weight matrix differently (statsmodels as disagreement weights, irrCAC
    and psych as agreement weights), so a matrix must be passed through the parameter that
    names its meaning. Linear and quadratic weights use the declared category scale, never
    the observed levels only.

    ``kappa_max`` is :math:`(\max p_o - p_e)/(1 - p_e)` over tables with the observed
    marginals: :math:`\sum_k \min(p_{k\cdot}, p_{\cdot k})` unweighted, a transportation
    problem (solved exactly by linear programming) when weighted.

    When both raters use one and the same category, :math:`p_e = 1` and kappa is 0/0: NaN
    with a ``reason`` and a :class:`~accord.DegenerateDataWarning`. A table of proportions
    gives the right kappa, but standard errors need counts of items.

    References
    ----------
    .. [1] Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
       Psychological Measurement, 20(1), 37-46. https://doi.org/10.1177/001316446002000104
    .. [2] Cohen, J. (1968). Weighted kappa: Nominal scale agreement with provision for
       scaled disagreement or partial credit. Psychological Bulletin, 70(4), 213-220.
       https://doi.org/10.1037/h0026256
    .. [3] Fleiss, J. L., Cohen, J., & Everitt, B. S. (1969). Large sample standard errors of
       kappa and weighted kappa. Psychological Bulletin, 72(5), 323-327.
       https://doi.org/10.1037/h0028106
    .. [4] Byrt, T., Bishop, J., & Carlin, J. B. (1993). Bias, prevalence and kappa. Journal
       of Clinical Epidemiology, 46(5), 423-429. https://doi.org/10.1016/0895-4356(93)90018-V

    Examples
    --------
    The BI-RADS readings of Casagrande, Fabris & Girometti (2020), Table 2 (kappa 0.821):

    >>> birads = [[51, 4, 0, 1, 1], [3, 78, 1, 0, 0], [0, 0, 13, 4, 0],
    ...           [0, 1, 1, 16, 7], [0, 0, 0, 0, 5]]
    >>> round(cohen_kappa(birads).statistic, 6)
    0.820757

    The SAS PROC FREQ example (kappa 0.4842, ASE 0.1380, ASE under H0 0.1484):

    >>> res = cohen_kappa([[0, 4, 1], [0, 8, 0], [0, 1, 5]])
    >>> round(res.statistic, 4), round(res.standard_error, 4), round(res.standard_error_null, 4)
    (0.4842, 0.138, 0.1484)

    Cohen (1968) with disagreement weights (weighted kappa 0.3478):

    >>> p = [[0.44, 0.07, 0.09], [0.05, 0.20, 0.05], [0.01, 0.03, 0.06]]
    >>> round(cohen_kappa(p, disagreement_weights=[[0, 1, 3], [1, 0, 6], [3, 6, 0]]).statistic, 4)
    0.3478
    """
    refuse_read_options("cohen_kappa", read_options)
    sampling = Inference(test_value=test_value, alternative=alternative)
    sampling.check("cohen_kappa")
    res = _cohen_kappa(data, y, weights, agreement_weights, disagreement_weights, categories,
                       raters, population_size)  # fmt: skip
    return dataclasses.replace(res, test_value=float(test_value), alternative=alternative)


def _cohen_kappa(
    data: TwoRaterData,
    y: npt.ArrayLike | None,
    weights: str | None,
    agreement_weights: npt.ArrayLike | None,
    disagreement_weights: npt.ArrayLike | None,
    categories: Sequence[Any] | None,
    raters: tuple[Any, Any] | None,
    population_size: float | None,
) -> CohenKappa:
    """:func:`cohen_kappa` testing kappa = 0 (two-sided)."""
    owner = "cohen_kappa"
    if _sparse_case(data, y, raters, agreement_weights, disagreement_weights, weights=weights):
        assert isinstance(data, Ratings)
        return _cohen_many_categories(data, population_size, weights)
    table, w, wname, p, n, factor = _weighted_table(
        owner,
        data,
        y,
        categories,
        raters,
        weights,
        agreement_weights,
        disagreement_weights,
        population_size,
    )
    kappa_a, po_a, pe_a = _kappa_core(p, w)
    kappa, po, pe = float(kappa_a), float(po_a), float(pe_a)
    px, py = _marginals(p)
    q = table.q
    p_raw = table.observed_agreement
    prevalence = bias = math.nan
    if q == 2:
        prevalence = abs(float(p[0, 0] - p[1, 1]))
        bias = abs(float(p[0, 1] - p[1, 0]))
    label = "unweighted" if wname == "identity" else f"{wname} weights"
    method = (
        f"Cohen's kappa ({label}; Cohen 1960, 1968); chance agreement from each rater's own "
        "marginals; SE: Fleiss, Cohen & Everitt (1969) general variance; SE under H0 in "
        "standard_error_null"
    )
    common = _chance_corrected_fields(owner, table, n, method, po, pe, wname, population_size)
    common.update(
        percent_agreement=p_raw,
        pabak=(q * p_raw - 1.0) / (q - 1.0),
        prevalence_index=prevalence,
        bias_index=bias,
        weight_matrix=w,
        table=table.counts,
        raters=table.raters,
    )
    if math.isnan(kappa):
        reason = (
            "both raters used one and the same category: chance agreement is 1 and kappa is "
            "0/0 (undefined)"
            if wname == "identity"
            else "chance agreement is 1 under these weights, so kappa is 0/0 (undefined)"
        )
        return CohenKappa(**undefined_fields(reason, common))
    wbar_x = w @ py  # (q,): sum_y w[x, y] p_.y
    wbar_y = w.T @ px  # (q,): sum_x w[x, y] p_x.
    both = wbar_x[:, None] + wbar_y[None, :]
    gradient = (w - (1.0 - kappa) * both) / (1.0 - pe)
    se = _linearized_se(p, gradient, n, factor)
    se0 = math.nan
    if n >= 2:
        expected = np.outer(px, py)
        var0 = (float(np.sum(expected * (w - both) ** 2)) - pe**2) / (n * (1.0 - pe) ** 2)
        se0 = math.sqrt(max(var0 * factor, 0.0))
    return CohenKappa(
        statistic=kappa,
        standard_error=se,
        standard_error_null=se0,
        kappa_max=_kappa_max(px, py, w, pe),
        **common,
    )


#: Above this many cells (q x q), unweighted Cohen's kappa of two raters' ratings is
#: computed from the table's filled cells and margins (:func:`_cohen_many_categories`).
SPARSE_TABLE_CELLS = 20_000_000


def _sparse_case(data: Any, y: Any, raters: Any, *matrices: Any, weights: Any) -> bool:
    """Whether :func:`cohen_kappa` takes the path without a table, on ratings of exactly two
    raters: unweighted when their q x q table would exceed :data:`SPARSE_TABLE_CELLS` cells;
    any named weights on one category (every scheme is then the 1 x 1 identity, kappa 0/0,
    and no contingency table has a single category)."""
    if not (isinstance(data, Ratings) and y is None and raters is None and data.n_raters == 2):
        return False
    if any(m is not None for m in matrices):
        return False
    q = data.n_categories
    return (q < 2 and (weights is None or is_scheme(weights))) or (
        weights is None and q**2 > SPARSE_TABLE_CELLS
    )


def _paired_labels(ratings: Ratings) -> tuple[IntArray, IntArray, int]:
    """The label codes of raters 0 and 1 on the items both rated, and how many items only
    one of them rated (as :meth:`~accord.ContingencyTable.from_ratings` pairs them)."""
    labels = np.full((2, ratings.n_items), -1, dtype=np.int64)
    labels[ratings.rater_codes, ratings.item_codes] = ratings.label_codes
    both = (labels >= 0).all(axis=0)
    either = (labels >= 0).any(axis=0)
    if not both.any():
        raise InvalidInputError(
            f"raters {ratings.raters[0]!r} and {ratings.raters[1]!r} rated no item in common"
        )
    return labels[0, both], labels[1, both], int(either.sum() - both.sum())


def _cohen_many_categories(
    ratings: Ratings, population_size: float | None, weights: str | None = None
) -> CohenKappa:
    """Unweighted Cohen's kappa of two raters on many categories (:func:`cohen_kappa_cells`
    on the filled cells of their table)."""
    x, yy, n_unpaired = _paired_labels(ratings)
    q = ratings.n_categories
    cells, freq = np.unique(x * q + yy, return_counts=True)
    raters = (str(ratings.raters[0]), str(ratings.raters[1]))
    return cohen_kappa_cells(cells // q, cells % q, freq, ratings.categories, raters,
                             n_items_unpairable=n_unpaired, population_size=population_size,
                             weights=weights)  # fmt: skip


def cohen_kappa_cells(
    x: IntArray,
    y: IntArray,
    count: IntArray,
    categories: tuple[Any, ...],
    raters: tuple[str, str],
    *,
    n_items_unpairable: int = 0,
    population_size: float | None = None,
    weights: str | None = None,
) -> CohenKappa:
    r"""Unweighted Cohen's kappa of two raters from the filled cells of their table:
    ``count[j]`` items labelled ``categories[x[j]]`` by the first rater and
    ``categories[y[j]]`` by the second; nothing q x q. The same formulas as
    :func:`cohen_kappa`, with the null variance's double sum in closed form,
    :math:`\sum_{xy} a_x b_y ([x = y] - b_x - a_y)^2 = p_e + 2 p_e^2 - \sum_x a_x b_x (a_x +
    b_x)` (``a``, ``b`` the margins, each summing to 1). ``table`` and ``weight_matrix`` are
    left empty (0 x 0). On one category (``weights`` then named only in the result) kappa
    is 0/0: NaN with the reason.

    Examples
    --------
    The SAS PROC FREQ table of :func:`cohen_kappa` (kappa 0.4842, ASE 0.1380), as cells:

    >>> res = cohen_kappa_cells(np.array([0, 0, 1, 2, 2]), np.array([1, 2, 1, 1, 2]),
    ...                         np.array([4, 1, 8, 1, 5]), ("a", "b", "c"), ("r1", "r2"))
    >>> round(res.statistic, 4), round(res.standard_error, 4)
    (0.4842, 0.138)
    """
    q = len(categories)
    cx, cy = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)
    freq = np.asarray(count, dtype=np.float64)
    n = int(freq.sum())
    pxy = freq / n
    a = np.bincount(cx, weights=freq, minlength=q) / n
    b = np.bincount(cy, weights=freq, minlength=q) / n
    po, pe = float(pxy[cx == cy].sum()), float(np.dot(a, b))
    wname = weights or "identity"
    method = (
        "Cohen's kappa (unweighted; Cohen 1960); chance agreement from each rater's own "
        "marginals; SE: Fleiss, Cohen & Everitt (1969) general variance; SE under H0 in "
        "standard_error_null"
    )
    common: dict[str, Any] = dict(
        name="cohen_kappa", n_items=n, n_raters=2, categories=categories,
        method=method, observed_agreement=po, chance_agreement=pe, weights=wname,
        n_items_unpairable=n_items_unpairable, percent_agreement=po,
        pabak=(q * po - 1.0) / (q - 1.0) if q >= 2 else math.nan,
        population_size=math.inf if population_size is None else float(population_size),
        raters=raters,
    )  # fmt: skip
    if pe >= 1.0 - _PE_TOL:
        reason = (
            "both raters used one and the same category: chance agreement is 1 and kappa is "
            "0/0 (undefined)"
        )
        return CohenKappa(**undefined_fields(reason, common))
    kappa = (po - pe) / (1.0 - pe)
    factor = population_factor(n, population_size)
    gradient = ((cx == cy) - (1.0 - kappa) * (b[cx] + a[cy])) / (1.0 - pe)
    se = _linearized_se(pxy, gradient, n, factor)
    se0 = math.nan
    if n >= 2:
        s0 = pe + 2.0 * pe**2 - float(np.sum(a * b * (a + b)))
        excess = s0 - pe**2  # a difference of sums: within round-off of 0 it is 0
        excess = 0.0 if excess <= 1e-12 * max(s0, pe**2) else excess
        se0 = math.sqrt(excess / (n * (1.0 - pe) ** 2) * factor)
    best = float(np.minimum(a, b).sum())
    return CohenKappa(
        statistic=kappa,
        standard_error=se,
        standard_error_null=se0,
        kappa_max=(best - pe) / (1.0 - pe),
        **common,
    )


def scott_pi(
    data: TwoRaterData,
    y: npt.ArrayLike | None = None,
    /,
    *,
    weights: str | None = None,
    agreement_weights: npt.ArrayLike | None = None,
    disagreement_weights: npt.ArrayLike | None = None,
    categories: Sequence[Any] | None = None,
    raters: tuple[Any, Any] | None = None,
    population_size: float | None = None,
    **read_options: Never,
) -> Coefficient:
    r"""Scott's pi for two raters: chance agreement from the pooled marginals.

    .. math::

        \pi = \frac{p_o - p_e}{1 - p_e}, \quad p_e = \sum_{k,l} w_{kl}\, \bar p_k \bar p_l,
        \quad \bar p_k = \frac{p_{k\cdot} + p_{\cdot k}}{2}

    Parameters
    ----------
    data, y, weights, agreement_weights, disagreement_weights, categories, raters, \
population_size
        As for :func:`cohen_kappa`.

    Returns
    -------
    Coefficient
        ``statistic`` (pi), ``standard_error`` (general, by linearisation as in Gwet 2014
        and irrCAC ``scott2.table``), ``observed_agreement``, ``chance_agreement``.

    Notes
    -----
    Scott's pi assumes both raters share one distribution over the categories; Cohen's kappa
    lets each rater have their own. With two raters it equals Fleiss' kappa's chance model.
    The variance is the delta-method (linearisation) variance
    :math:`\frac{1}{n(1-p_e)^2}\{\sum_{kl} p_{kl}[w_{kl} - (1-\pi)(\tilde p_k + \tilde
    p_l)]^2 - [p_o - 2(1-\pi)p_e]^2\}` with :math:`\tilde p = \frac{1}{2}(W + W^T)\bar p`.
    Undefined (NaN with a reason) when every rating is in one category.

    References
    ----------
    .. [1] Scott, W. A. (1955). Reliability of content analysis: The case of nominal scale
       coding. Public Opinion Quarterly, 19(3), 321-325. https://doi.org/10.1086/266577
    .. [2] Artstein, R., & Poesio, M. (2008). Inter-coder agreement for computational
       linguistics. Computational Linguistics, 34(4), 555-596.
       https://doi.org/10.1162/coli.07-034-R2
    .. [3] Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed. Advanced
       Analytics.

    Examples
    --------
    Artstein & Poesio (2008), section 2.4 (pi 0.7995, kappa 0.8013):

    >>> round(scott_pi([[46, 0, 0], [6, 32, 6], [0, 0, 10]]).statistic, 6)
    0.799532
    """
    refuse_read_options("scott_pi", read_options)
    owner = "scott_pi"
    table, w, wname, p, n, factor = _weighted_table(
        owner,
        data,
        y,
        categories,
        raters,
        weights,
        agreement_weights,
        disagreement_weights,
        population_size,
    )
    pi_a, po_a, pe_a = _scott_core(p, w)
    pi, po, pe = float(pi_a), float(po_a), float(pe_a)
    label = "unweighted" if wname == "identity" else f"{wname} weights"
    method = (
        f"Scott's pi ({label}; Scott 1955); chance agreement from the pooled marginals; "
        "SE: linearisation (Gwet 2014, as in irrCAC scott2.table)"
    )
    common = _chance_corrected_fields(owner, table, n, method, po, pe, wname, population_size)
    if math.isnan(pi):
        reason = "every rating is in one category: chance agreement is 1 and pi is 0/0"
        return Coefficient(**undefined_fields(reason, common))
    px, py = _marginals(p)
    pooled = (px + py) / 2.0
    tilde = (w + w.T) @ pooled / 2.0
    gradient = (w - (1.0 - pi) * (tilde[:, None] + tilde[None, :])) / (1.0 - pe)
    return Coefficient(
        statistic=pi, standard_error=_linearized_se(p, gradient, n, factor), **common
    )


# ------------------------------------------------------------- informational agreement


@dataclasses.dataclass(frozen=True, slots=True)
class InformationalAgreement(BootstrapOnly, Coefficient):
    """Informational agreement (IA) and the information quantities behind it.

    Attributes
    ----------
    mutual_information : float
        MI(X; Y) in bits.
    mutual_information_base_q : float
        MI(X; Y) with logarithms to base q (the paper's unit; 1 is the most a q-category
        scale can carry).
    entropy_x, entropy_y, joint_entropy : float
        H(X), H(Y) and H(X, Y) in bits.
    conditional_entropy_y_given_x, conditional_entropy_x_given_y : float
        H(Y | X) and H(X | Y) in bits.
    channel : ndarray, shape (q, q)
        The agreement channel Gamma: ``channel[x, y] = p(y | x)`` (rows of rater X; a row
        is NaN when rater X never used that category).
    input_distribution : ndarray, shape (q,)
        P_X, rater X's distribution over the categories (the channel input).
    output_distribution : ndarray, shape (q,)
        P_Y, rater Y's distribution.
    kappa : float
        Cohen's unweighted kappa of the same table, shown beside IA because IA measures
        dependence, not agreement on the diagonal.
    continuity_case : str
        Which case of the continuity extension applied: ``"regular"`` (both entropies
        positive), ``"H(X) = 0"``, ``"H(Y) = 0"`` or ``"one non-empty cell"``.
    g_statistic : float
        Likelihood-ratio statistic ``G = 2 N ln(2) MI_bits`` of the test of independence.
    n_boot : int
        Bootstrap replicates behind ``standard_error`` and the interval (0: none).
    """

    mutual_information: float = math.nan
    mutual_information_base_q: float = math.nan
    entropy_x: float = math.nan
    entropy_y: float = math.nan
    joint_entropy: float = math.nan
    conditional_entropy_y_given_x: float = math.nan
    conditional_entropy_x_given_y: float = math.nan
    channel: FloatArray = dataclasses.field(
        default_factory=lambda: np.zeros((0, 0)), repr=False, compare=False
    )
    input_distribution: FloatArray = dataclasses.field(
        default_factory=lambda: np.zeros(0), repr=False, compare=False
    )
    output_distribution: FloatArray = dataclasses.field(
        default_factory=lambda: np.zeros(0), repr=False, compare=False
    )
    kappa: float = math.nan
    continuity_case: str = "regular"
    g_statistic: float = math.nan
    n_boot: int = 0

    def test(self, alternative: Alternative = "two-sided") -> float:
        """p-value of IA = 0 (independence): the likelihood-ratio G-test, chi-square on
        ``(l - 1)(m - 1)`` df for the ``l`` rows and ``m`` columns in use.

        The test is one-sided by nature (G >= 0), so "two-sided" and "greater" give the same
        p-value; NaN when the table is degenerate or holds proportions.
        """
        if alternative == "less":
            raise InvalidInputError(
                "informational agreement is >= 0: test IA = 0 against 'greater' (or "
                "'two-sided', the same G-test)"
            )
        rows = int(np.count_nonzero(self.input_distribution > 0))
        cols = int(np.count_nonzero(self.output_distribution > 0))
        dof = (rows - 1) * (cols - 1)
        if dof < 1 or not math.isfinite(self.g_statistic):
            return math.nan
        from scipy import special

        return float(special.chdtrc(dof, self.g_statistic))

    def confidence_interval(
        self, level: float = 0.95, method: str | None = None
    ) -> ConfidenceInterval:
        """Bootstrap interval over items: ``"bca"`` (default) or ``"percentile"``.

        IA has no published analytic variance, so the interval comes from the bootstrap
        replicates (computed with ``n_boot > 0``). BCa is the default because the plug-in
        mutual information is biased upwards in small samples, and the percentile interval
        carries that bias; without leave-one-out values (above 10 million items) the default
        falls back to the percentile interval.
        """
        check_level(level)
        owner = "InformationalAgreement.confidence_interval"
        chosen = bootstrap_ci_method(method, self.jackknife, owner)
        return Coefficient.confidence_interval(self, level, chosen)  # type: ignore[arg-type]

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Plain dict of the result, with the default bootstrap interval."""
        out = coefficient_fields(self, level)
        ci = (
            ConfidenceInterval(math.nan, math.nan)
            if self.replicates is None
            else self.confidence_interval(level)
        )
        out.update(ci_method=self.ci_description, ci_low=ci.low, ci_high=ci.high)
        return out


def informational_agreement(
    data: TwoRaterData,
    y: npt.ArrayLike | None = None,
    /,
    *,
    categories: Sequence[Any] | None = None,
    raters: tuple[Any, Any] | None = None,
    n_boot: int = 2000,
    rng: RngLike = None,
    **read_options: Never,
) -> InformationalAgreement:
    r"""Informational agreement (IA): the normalised information the raters share.

    .. math::

        IA = \frac{MI(X; Y)}{\min\{H(X), H(Y)\}}, \quad
        MI(X; Y) = \sum_{x,y} p_{xy} \log \frac{p_{xy}}{p_{x\cdot}\, p_{\cdot y}}

    with :math:`0 \log 0 = 0`; the ratio does not depend on the base of the logarithm.

    Parameters
    ----------
    data, y, categories, raters
        As for :func:`cohen_kappa`.
    n_boot : int, default 2000
        Bootstrap replicates over items for the standard error and the interval (0: none).
    rng : numpy.random.Generator, int or None
        Random source of the bootstrap.

    Returns
    -------
    InformationalAgreement
        ``statistic`` (IA, in [0, 1]), ``standard_error`` (bootstrap SD of IA),
        ``mutual_information`` (bits), ``mutual_information_base_q``, ``entropy_x``,
        ``entropy_y``, ``joint_entropy``, ``conditional_entropy_y_given_x``,
        ``conditional_entropy_x_given_y``, ``channel`` (p(y | x)), ``input_distribution``
        (P_X), ``output_distribution`` (P_Y), ``kappa``, ``continuity_case``,
        ``g_statistic``, ``replicates`` and ``jackknife`` (for
        ``confidence_interval(method="bca" | "percentile")``), and ``pvalue`` (the G-test of
        independence).

    Notes
    -----
    **IA measures dependence, not agreement on the diagonal.** ``[[0, 10], [10, 0]]``
    (the raters always disagree) has IA = 1 and kappa = -1, and a rater who merges two of
    the other's categories has IA = 1. Read IA beside kappa (``kappa`` is in the result).

    Zero cells and degenerate marginals follow the continuity extension of the authors
    (Casagrande, Fabris & Girometti, IEEE BIBM 2020): the limit of IA as every zero cell
    tends to :math:`\epsilon \to 0^+`. With q the declared number of categories:

    ==============================  ==============================================
    case                            IA
    ==============================  ==============================================
    H(X) > 0 and H(Y) > 0           MI / min(H) with 0 log 0 = 0 (the limit itself)
    H(X) = 0 (X uses one category)  1 - m/q, m = categories Y uses
    H(Y) = 0                        1 - l/q, l = categories X uses
    one non-empty cell              1 - 1/q
    ==============================  ==============================================

    The authors' Python package pyagree 0.0.4 counts the empty categories instead of the
    used ones in the degenerate cases; accord follows the theorem. Rounding can put
    MI / min(H) a hair above 1 for a perfectly dependent table; it is clipped to [0, 1].

    No analytic standard error of IA is published, so inference is by bootstrap over items
    (multinomial resampling of the table, which is resampling items): ``standard_error`` is
    the SD of the replicates and the default interval is BCa (the plug-in MI is biased
    upwards in small samples and BCa corrects for it; ``method="percentile"`` is available).
    The p-value is that of the likelihood-ratio (G) test of independence,
    :math:`G = 2 N \ln 2 \cdot MI_{bits}`, which tests IA = 0 when both entropies are
    positive. Entropies and MI are reported in bits; ``mutual_information_base_q`` uses
    base q as the paper does.

    References
    ----------
    .. [1] Casagrande, A., Fabris, F., & Girometti, R. (2020). Beyond kappa: an informational
       index for diagnostic agreement in dichotomous and multivalued ordered-categorical
       ratings. Medical & Biological Engineering & Computing, 58, 3089-3099.
       https://doi.org/10.1007/s11517-020-02261-2
    .. [2] Casagrande, A., Fabris, F., & Girometti, R. (2020). Extending information
       agreement by continuity. IEEE International Conference on Bioinformatics and
       Biomedicine (BIBM), 1432-1439. https://doi.org/10.1109/BIBM49941.2020.9313173

    Examples
    --------
    The BI-RADS readings of Table 2 in Casagrande et al. (2020) (IA 0.729, kappa 0.821):

    >>> birads = [[51, 4, 0, 1, 1], [3, 78, 1, 0, 0], [0, 0, 13, 4, 0],
    ...           [0, 1, 1, 16, 7], [0, 0, 0, 0, 5]]
    >>> res = informational_agreement(birads, n_boot=0)
    >>> round(res.statistic, 10), round(res.kappa, 3)
    (0.7291088595, 0.821)

    Perfect disagreement is perfect dependence:

    >>> res = informational_agreement([[0, 10], [10, 0]], n_boot=0)
    >>> res.statistic, res.kappa
    (1.0, -1.0)
    """
    refuse_read_options("informational_agreement", read_options)
    owner = "informational_agreement"
    check_n_boot(n_boot, owner)
    table = as_table(data, y, categories=categories, raters=raters, owner=owner)
    p = table.proportions
    q = table.q
    n = _n_items(table)
    info = _information_core(p)
    hx, hy, hxy = float(info.hx), float(info.hy), float(info.hxy)
    mi = float(info.mi)
    rows_used, cols_used = int(info.rows_used), int(info.cols_used)
    if rows_used == 1 and cols_used == 1:
        case = "one non-empty cell"
    elif rows_used == 1:
        case = "H(X) = 0"
    elif cols_used == 1:
        case = "H(Y) = 0"
    else:
        case = "regular"
    px, py = _marginals(p)
    with np.errstate(invalid="ignore", divide="ignore"):
        channel = np.where(px[:, None] > 0, p / np.where(px > 0, px, 1.0)[:, None], np.nan)
    kappa = float(_kappa_core(p, np.eye(q))[0])
    method = (
        "informational agreement MI / min(H(X), H(Y)) (Casagrande, Fabris & Girometti 2020) "
        "with the continuity extension for zero cells and degenerate marginals; "
    )
    replicates = jackknife = None
    boot = 0
    if n_boot > 0 and _integer_counts(table):
        replicates, jackknife = bootstrap_table(table, _ia_values, n_boot=n_boot, rng=rng)
        boot = n_boot
        se = float(np.std(replicates[np.isfinite(replicates)], ddof=1)) if n_boot > 1 else math.nan
        method += (
            f"no analytic SE is published: SE and interval by bootstrap over items ({n_boot} "
            "replicates)"
        )
    else:
        se = math.nan
        method += "no analytic SE is published and no bootstrap was run" + (
            "" if _integer_counts(table) else " (the table holds proportions, not counts)"
        )
    integer = _integer_counts(table)
    return InformationalAgreement(
        name="informational_agreement",
        statistic=float(info.ia),
        standard_error=se,
        n_items=n,
        n_raters=2,
        categories=table.categories,
        method=method,
        observed_agreement=table.observed_agreement,
        n_items_unpairable=table.n_unpaired,
        bounds=(0.0, 1.0),
        replicates=replicates,
        jackknife=jackknife,
        mutual_information=mi,
        mutual_information_base_q=mi / math.log2(q),
        entropy_x=hx,
        entropy_y=hy,
        joint_entropy=hxy,
        conditional_entropy_y_given_x=max(hxy - hx, 0.0),
        conditional_entropy_x_given_y=max(hxy - hy, 0.0),
        channel=channel,
        input_distribution=px,
        output_distribution=py,
        kappa=kappa,
        continuity_case=case,
        g_statistic=2.0 * table.n * math.log(2.0) * mi if integer else math.nan,
        n_boot=boot,
    )


# ------------------------------------------------------------------ dichotomisation

DichotomyKind: TypeAlias = Literal["cuts", "one-vs-rest"]
"""How a scale is split in two: cuts of its order, or each category against the rest."""


@dataclasses.dataclass(frozen=True, slots=True)
class Dichotomization(Result):
    r"""Kappa and IA of every two-way split of the categories.

    On an ordered scale the splits are its cuts into low | high; on nominal labels, each
    category against the rest (``kind`` says which).

    Attributes
    ----------
    kind : {"cuts", "one-vs-rest"}
        ``"cuts"``: every cut of the ordered scale into low | high; ``"one-vs-rest"``: each
        category against all the others (nominal labels have no order to cut).
    cuts : pandas.DataFrame
        One row per split. Both kinds: ``cut`` (the split's number: for cuts, the number of
        categories in the low group, ``1 .. q-1``; for one-vs-rest, the category's position,
        ``1 .. q``), ``split`` (e.g. ``"1-2 | 3-5"`` or ``"Depression | rest"``),
        ``observed_agreement``, ``kappa`` and ``informational_agreement`` of the 2 x 2 table.
        Cuts add ``last_low`` (the highest category of the low group) and the 2 x 2 counts
        ``n_low_low``, ``n_low_high``, ``n_high_low``, ``n_high_high`` (rater X first).
        One-vs-rest adds ``category``, the counts ``n_in_in``, ``n_in_rest``, ``n_rest_in``,
        ``n_rest_rest`` (rater X first) and ``specific_agreement`` (the category's
        :math:`2 n_{kk} / (n_{k\cdot} + n_{\cdot k})`, as :func:`~accord.specific_agreement`).
    best_kappa, best_informational_agreement : int or None
        The split (value of ``cut``) that maximises each index (the first on ties; None if the
        index is undefined at every split).
    categories : tuple
        The categories, in the order used.
    n_items : int
        Items in the table.
    method : str
        Which splits were made and why (the order used, or why the labels were read as
        nominal).
    """

    cuts: pd.DataFrame
    best_kappa: int | None
    best_informational_agreement: int | None
    categories: tuple[Any, ...]
    n_items: int
    kind: DichotomyKind = "cuts"
    method: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the result."""
        from .._results import to_plain

        return {
            "kind": self.kind,
            "method": self.method,
            "cuts": to_plain(self.cuts),
            "best_kappa": self.best_kappa,
            "best_informational_agreement": self.best_informational_agreement,
            "categories": to_plain(self.categories),
            "n_items": self.n_items,
        }


def _span(categories: Sequence[Any]) -> str:
    first, last = str(categories[0]), str(categories[-1])
    return first if len(categories) == 1 else f"{first}-{last}"


def _dichotomy_kind(
    data: TwoRaterData,
    y: npt.ArrayLike | None,
    categories: Sequence[Any] | None,
    level: Level | None,
    table: ContingencyTable,
) -> tuple[DichotomyKind, str]:
    """Cuts or one-vs-rest, and the reason, from the declared level and the categories.

    An ordered scale (cuts) is: an explicit ordered ``level``; ratings at an ordered level or
    with declared categories; categories passed here; or categories that are all numbers.
    Anything else is nominal (one-vs-rest).
    """
    if level is not None and level not in LEVELS:
        raise InvalidInputError(
            "The 'level' parameter of best_dichotomization must be one of "
            f"{{{', '.join(map(repr, LEVELS))}}} or None. Got {level!r} instead."
        )
    order = ", ".join(map(str, table.categories))
    numeric = all_numbers(table.categories)
    if level == "nominal":
        return "one-vs-rest", "each category against the rest (level nominal)"
    if level is not None:
        sorted_labels = (
            categories is None
            and not numeric
            and (
                (isinstance(data, Ratings) and not data.categories_declared)
                or (y is not None and not isinstance(data, ContingencyTable | Ratings))
            )
        )
        if sorted_labels:
            raise InvalidInputError(
                f"best_dichotomization: level {level!r} cuts the scale in its order, but the "
                f"text labels ({order}) are only sorted alphabetically; declare their order "
                "on the scale (categories=[...])"
            )
        return "cuts", f"cuts of the ordered scale {order} (level {level})"
    if isinstance(data, Ratings) and data.level != "nominal":
        return "cuts", f"cuts of the ordered scale {order} (level {data.level})"
    if categories is not None or (isinstance(data, Ratings) and data.categories_declared):
        return "cuts", f"cuts of the declared order {order}"
    if numeric:
        return "cuts", f"cuts of the numeric scale {order}"
    return "one-vs-rest", (
        f"each category against the rest: the labels ({order}) are text with no declared "
        "order, so there is no scale to cut (declare the order, categories=[...], or pass "
        "level='ordinal' to cut a table in its row order)"
    )


#: The cell columns of a cut's and of a category-against-the-rest 2 x 2 table (rater X first).
_CUT_CELLS = ("n_low_low", "n_low_high", "n_high_low", "n_high_high")
_ONE_VS_REST_CELLS = ("n_in_in", "n_in_rest", "n_rest_in", "n_rest_rest")


def _two_by_two(
    both: FloatArray, row: FloatArray, col: FloatArray, total: float, splits: Sequence[str]
) -> tuple[tuple[FloatArray, ...], FloatArray, FloatArray, FloatArray]:
    """The 2 x 2 tables of a stack of splits (one per name in ``splits``) from the items both
    raters put in the first group (``both``), those rater X and rater Y put there (``row``,
    ``col``) and all items: their cells (X first, first group first), kappa, observed
    agreement and IA; a warning names each split where kappa is undefined."""
    cells = (both, row - both, col - both, total - row - col + both)
    tables = np.stack(cells, axis=-1).reshape(-1, 2, 2)
    props = tables / tables.sum(axis=(-2, -1), keepdims=True)
    kappa, po, _ = _kappa_core(props, np.eye(2))
    ia = _ia_values(props)
    for k in np.flatnonzero(np.isnan(kappa)).tolist():
        warn_degenerate(
            f"{splits[k]}: both raters put every item on one side, so kappa is 0/0 (undefined)",
            stacklevel=4,
        )
    return cells, kappa, po, ia


def _cut_table(table: ContingencyTable) -> pd.DataFrame:
    """Every cut of the ordered scale into low | high (one row per cut)."""
    counts = table.counts
    q = table.q
    cum = counts.cumsum(axis=0).cumsum(axis=1)  # cum[i, j] = sum of counts[:i+1, :j+1]
    total = float(counts.sum())
    cut_idx = np.arange(q - 1)
    cats = table.categories
    splits = [f"cut after {cats[c]!r}" for c in cut_idx]
    low_low, row_low, col_low = cum[cut_idx, cut_idx], cum[cut_idx, q - 1], cum[q - 1, cut_idx]
    cells, kappa, po, ia = _two_by_two(low_low, row_low, col_low, total, splits)
    return pd.DataFrame(
        {
            "cut": cut_idx + 1,
            "last_low": [cats[c] for c in cut_idx],
            "split": [f"{_span(cats[: c + 1])} | {_span(cats[c + 1 :])}" for c in cut_idx],
            **dict(zip(_CUT_CELLS, cells, strict=True)),
            "observed_agreement": po,
            "kappa": kappa,
            "informational_agreement": ia,
        }
    )


def _one_vs_rest_table(table: ContingencyTable) -> pd.DataFrame:
    """Each category against the rest (one row per category)."""
    counts = table.counts
    total = float(counts.sum())
    in_in = np.diag(counts).astype(np.float64)
    cats = table.categories
    splits = [f"{c!r} against the rest" for c in cats]
    cells, kappa, po, ia = _two_by_two(in_in, counts.sum(axis=1), counts.sum(axis=0), total, splits)
    sa = specific_ratio(in_in, cells[1] + cells[2])
    return pd.DataFrame(
        {
            "cut": np.arange(1, table.q + 1),
            "category": list(cats),
            "split": [f"{c} | rest" for c in cats],
            **dict(zip(_ONE_VS_REST_CELLS, cells, strict=True)),
            "observed_agreement": po,
            "kappa": kappa,
            "specific_agreement": sa,
            "informational_agreement": ia,
        }
    )


def best_dichotomization(
    data: TwoRaterData,
    y: npt.ArrayLike | None = None,
    /,
    *,
    categories: Sequence[Any] | None = None,
    raters: tuple[Any, Any] | None = None,
    level: Level | None = None,
    **read_options: Never,
) -> Dichotomization:
    r"""Kappa and IA at every two-way split of the scale, and the split that maximises each.

    On an ordered scale, for each cut :math:`c = 1, \dots, q-1`, categories :math:`\le c`
    become "low" and :math:`> c` "high" for both raters; Cohen's kappa and the informational
    agreement are computed on the 2 x 2 table (Casagrande, Fabris & Girometti 2020, Fig. 2).
    Nominal labels have no order to cut: each category is set against the rest instead, with
    its kappa, specific agreement and IA (``kind="one-vs-rest"``).

    Parameters
    ----------
    data, y, categories, raters
        As for :func:`cohen_kappa`; ``categories`` declares the order on the scale.
    level : {"nominal", "ordinal", "interval", "ratio"}, optional
        ``"nominal"``: one-vs-rest; an ordered level: cuts of the categories in the table's
        order. By default the scale is ordered when the ratings are at an ordered level,
        the categories are declared (``categories=`` here or when the ratings were built), or
        the categories are all numbers; otherwise (text labels with no declared order) it is
        nominal.

    Returns
    -------
    Dichotomization
        ``kind`` (``"cuts"`` or ``"one-vs-rest"``), ``cuts`` (a table, one row per split),
        ``best_kappa``, ``best_informational_agreement`` and ``method`` (which splits, why).

    Raises
    ------
    InvalidInputError
        An ordered ``level`` for text labels whose order is only alphabetical (two label
        vectors, or ratings, without declared categories).

    Notes
    -----
    A split where both raters put every item on one side leaves kappa undefined (NaN, with a
    :class:`~accord.DegenerateDataWarning`) and IA at its continuity value. A table of counts
    with text categories (from :meth:`~accord.ContingencyTable.read_csv`, say) carries no
    level: pass ``level="ordinal"`` to cut it in its row order.

    References
    ----------
    .. [1] Casagrande, A., Fabris, F., & Girometti, R. (2020). Beyond kappa: an informational
       index for diagnostic agreement in dichotomous and multivalued ordered-categorical
       ratings. Medical & Biological Engineering & Computing, 58, 3089-3099.
       https://doi.org/10.1007/s11517-020-02261-2

    Examples
    --------
    On the BI-RADS table the cut BR1-2 | BR3-5 maximises both (Fig. 2; Table 3):

    >>> birads = [[51, 4, 0, 1, 1], [3, 78, 1, 0, 0], [0, 0, 13, 4, 0],
    ...           [0, 1, 1, 16, 7], [0, 0, 0, 0, 5]]
    >>> res = best_dichotomization(birads, categories=[1, 2, 3, 4, 5])
    >>> res.kind, res.best_kappa, res.best_informational_agreement
    ('cuts', 2, 2)
    >>> res.cuts[["split", "kappa", "informational_agreement"]].round(4)
         split   kappa  informational_agreement
    0  1 | 2-5  0.8845                   0.7017
    1  1-2 | 3-5  0.9438                   0.8364
    2  1-3 | 4-5  0.8491                   0.6776
    3  1-4 | 5  0.5376                   0.6236

    Text labels with no declared order are nominal: each category against the rest.

    >>> x = ["flu", "flu", "cold", "cold", "covid", "flu"]
    >>> y = ["flu", "cold", "cold", "cold", "covid", "flu"]
    >>> res = best_dichotomization(x, y)
    >>> res.kind
    'one-vs-rest'
    >>> res.cuts[["split", "kappa", "specific_agreement"]].round(4)
             split   kappa  specific_agreement
    0   cold | rest  0.6667                 0.8
    1  covid | rest  1.0000                 1.0
    2    flu | rest  0.6667                 0.8
    """
    refuse_read_options("best_dichotomization", read_options)
    table = as_table(data, y, categories=categories, raters=raters, owner="best_dichotomization")
    kind, method = _dichotomy_kind(data, y, categories, level, table)
    cuts = _cut_table(table) if kind == "cuts" else _one_vs_rest_table(table)

    def best(values: FloatArray) -> int | None:
        if np.all(np.isnan(values)):
            return None
        return int(cuts["cut"].iloc[int(np.nanargmax(values))])

    return Dichotomization(
        cuts=cuts,
        best_kappa=best(cuts["kappa"].to_numpy(dtype=np.float64)),
        best_informational_agreement=best(
            cuts["informational_agreement"].to_numpy(dtype=np.float64)
        ),
        categories=table.categories,
        n_items=_n_items(table),
        kind=kind,
        method=method,
    )
