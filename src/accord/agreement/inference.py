"""Inference shared by the agreement coefficients: finite-population factor and the bootstrap.

Every coefficient of the many-raters family is a smooth function ``g`` of **item totals**:
``statistic = g(sum_i F[i])`` where ``F`` (items x m) holds per-item features (pair
agreement, number of ratings, category shares, coincidences, ...). Resampling items with
replacement multiplies the rows of ``F`` by multiplicities, so a bootstrap replicate is one row
of ``M @ F`` with ``M`` (replicates x items) the multinomial multiplicities: one matrix product
per chunk of replicates, no loop over items. Leave-one-item-out (jackknife) values, needed for
BCa, are ``g(T - F[i])``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal, TypeAlias

import numpy as np

from .._bootstrap import MAX_REPLICATES, warn_few_replicates
from .._bootstrap import check_n_boot as check_n_boot  # re-exported for the estimators
from .._errors import (
    InvalidInputError,
    bad_choice,
    bad_parameter,
    keywords_within,
    option,
    warn_degenerate,
)
from .._types import FloatArray, RngLike, as_generator
from ..data.ratings import Ratings

__all__ = [
    "NO_REPLICATES",
    "SE_KINDS",
    "BootstrapOnly",
    "CIKind",
    "Inference",
    "SEKind",
    "bootstrap",
    "bootstrap_ci_description",
    "bootstrap_ci_method",
    "bootstrap_drawn",
    "check_ci",
    "default_bootstrap_method",
    "drawn_multiplicities",
    "inference_keywords",
    "leave_one_rater_out",
    "population_factor",
    "rater_variance",
]

CIKind: TypeAlias = Literal["analytic", "bootstrap"]

#: The interval method of a bootstrap-only result asked for no replicates.
NO_REPLICATES = "none (no bootstrap replicates; n_boot=0)"

#: Multiplicity cells (replicates x items) generated per chunk.
CHUNK_CELLS = 8_000_000

Totals: TypeAlias = Callable[[FloatArray], FloatArray]


def check_ci(ci: str, n_boot: int, owner: str) -> None:
    """Validate the ``ci`` and ``n_boot`` options."""
    if ci not in ("analytic", "bootstrap"):
        raise InvalidInputError(bad_choice(owner, "ci", ("analytic", "bootstrap"), ci))
    if ci == "bootstrap" and (
        isinstance(n_boot, bool)
        or not isinstance(n_boot, int | np.integer)
        or not 1 <= n_boot <= MAX_REPLICATES
    ):
        need = f"an integer from 1 to {MAX_REPLICATES:,}"
        raise InvalidInputError(bad_parameter(owner, "n_boot", need, n_boot))
    if ci == "bootstrap":
        warn_few_replicates(int(n_boot), stacklevel=4)


def population_factor(
    n: int,
    population_size: float | None,
    keyword: str = "population_size",
    unit: str = "items",
    done: str = "rated",
) -> float:
    """Gwet's finite-population correction ``1 - n/N`` of the variance (1 when N is infinite).

    Parameters
    ----------
    n : int
        Items (or raters) in the sample.
    population_size : float or None
        Items (or raters) in the population ``N``; None or ``inf`` for an infinite
        population.
    keyword, unit, done : str
        The option's name, what it counts and what the sample did, for the messages.
    """
    if population_size is None or population_size == math.inf:
        return 1.0
    if not population_size > 0:
        raise InvalidInputError(
            f"{keyword} must be a positive number of {unit}; got {population_size!r}"
        )
    if population_size < n:
        raise InvalidInputError(
            f"{keyword} ({population_size:g}) is smaller than the number of {unit}"
            f"{' ' + done if done else ''} ({n})"
        )
    return 1.0 - n / population_size


def default_bootstrap_method(jackknife: Any) -> str:
    """``"bca"`` when leave-one-out values are available (``jackknife``), else
    ``"percentile"``."""
    return "bca" if jackknife is not None else "percentile"


def bootstrap_ci_method(method: str | None, jackknife: Any, owner: str) -> str:
    """The interval method of a result whose only interval is the bootstrap: ``method``, or
    by default ``"bca"`` when leave-one-out values exist (``jackknife``), else
    ``"percentile"``; anything else is refused, naming ``owner``."""
    chosen = default_bootstrap_method(jackknife) if method is None else method
    if chosen not in ("percentile", "bca"):
        raise InvalidInputError(
            f"The 'method' parameter of {owner} must be one of {{'percentile', 'bca'}}. "
            f"Got {method!r} instead."
        )
    return chosen


def bootstrap_ci_description(replicates: Any, jackknife: Any, n_boot: int, none: str) -> str:
    """What the default bootstrap interval is (``none`` without replicates)."""
    if replicates is None:
        return none
    name = "BCa" if default_bootstrap_method(jackknife) == "bca" else "percentile"
    return f"bootstrap {name} over items, {n_boot} replicates"


class BootstrapOnly:
    """Mixin of a coefficient whose only interval is the bootstrap over items (no analytic
    variance): its default interval method and the description of that interval."""

    __slots__ = ()

    #: The description when no replicates were drawn.
    NO_BOOTSTRAP: ClassVar[str] = "none (no bootstrap replicates)"
    replicates: Any
    jackknife: Any
    n_boot: int

    @property
    def default_ci_method(self) -> str:
        """``"bca"`` when leave-one-out values are available, else ``"percentile"``."""
        return default_bootstrap_method(self.jackknife)

    @property
    def ci_description(self) -> str:
        """The interval of :meth:`to_dict`: the default bootstrap interval, or none."""
        return bootstrap_ci_description(
            self.replicates, self.jackknife, self.n_boot, self.NO_BOOTSTRAP
        )


def _matmul(mult: FloatArray, features: Any) -> FloatArray:
    """``mult @ features`` for dense or scipy-sparse features, shape (B, m)."""
    if isinstance(features, np.ndarray):
        out: FloatArray = mult @ features
        return out
    dense: FloatArray = np.asarray((features.T @ mult.T).T, dtype=np.float64)
    return dense


def bootstrap(
    features: Any,
    statistic: Totals,
    *,
    n_boot: int,
    rng: RngLike,
    jackknife: bool = True,
) -> tuple[FloatArray, FloatArray | None]:
    """Bootstrap replicates over items (and jackknife values) of ``statistic(totals)``.

    Parameters
    ----------
    features : ndarray or scipy sparse array, shape (n_items, m)
        Per-item features whose column sums are the statistic's sufficient totals.
    statistic : callable
        Maps totals of shape (B, m) to statistics of shape (B,) (vectorised over rows), or
        to shape (B, k) for k statistics from the same resamples.
    n_boot : int
        Number of replicates B.
    rng : Generator, int or None
        Random source (``numpy.random.default_rng`` seed).
    jackknife : bool
        Also return the leave-one-item-out values (for BCa).

    Returns
    -------
    replicates : ndarray, shape (n_boot,) or (n_boot, k)
    jackknife : ndarray, shape (n_items,) or (n_items, k), or None
    """
    gen = as_generator(rng)
    n = int(features.shape[0])
    probs = np.full(n, 1.0 / n)
    # replicates a chunk: their multiplicities (B x n) and their totals (B x m) both bounded
    # (the draws are those of one call, whatever the chunks)
    chunk = max(1, CHUNK_CELLS // max(n, int(features.shape[1]), 1))
    out: FloatArray | None = None
    with np.errstate(invalid="ignore", divide="ignore"):
        for lo in range(0, n_boot, chunk):
            hi = min(n_boot, lo + chunk)
            mult = gen.multinomial(n, probs, size=hi - lo).astype(np.float64)
            values = statistic(_matmul(mult, features))
            if out is None:
                out = np.empty((n_boot, *values.shape[1:]), dtype=np.float64)
            out[lo:hi] = values
        if out is None:
            out = np.empty(0, dtype=np.float64)
        jk: FloatArray | None = None
        if jackknife and n >= 2:
            total = np.asarray(features.sum(axis=0), dtype=np.float64).ravel()
            jk = np.empty((n, *out.shape[1:]), dtype=np.float64)
            step = max(1, CHUNK_CELLS // max(total.size, 1))
            for lo in range(0, n, step):
                hi = min(n, lo + step)
                rows = features[lo:hi]
                dense = rows if isinstance(rows, np.ndarray) else rows.toarray()
                jk[lo:hi] = statistic(total[None, :] - np.asarray(dense, dtype=np.float64))
    return out, jk


def drawn_multiplicities(gen: np.random.Generator, n: int, size: int) -> FloatArray:
    """Item multiplicities of ``size`` resamples of ``n`` items, shape (size, n).

    Resample ``b`` draws the item indices ``gen.integers(0, n, size=n)`` (one row of
    ``gen.integers(0, n, size=(size, n))``, the same stream) and counts them: the
    multiplicities of resampling those items with replacement. A draw of ``n`` integers is
    far cheaper than ``gen.multinomial`` (``n`` sequential binomial draws per resample).
    """
    idx = gen.integers(0, n, size=(size, n))
    idx += (n * np.arange(size, dtype=np.int64))[:, None]
    counts = np.bincount(idx.ravel(), minlength=size * n).reshape(size, n)
    out: FloatArray = counts.astype(np.float64)
    return out


def bootstrap_drawn(
    features: Sequence[Any], statistics: Sequence[Totals], *, n_boot: int, rng: RngLike
) -> list[FloatArray]:
    """Replicates of several statistics over the same item resamples (drawn indices).

    Each ``statistics[k]`` maps totals of ``features[k]`` (items x m_k, the same items in the
    same order for every k) to values of shape (B,) or (B, j). The resamples come from
    :func:`drawn_multiplicities` in chunks of replicates (bounded memory): for a seed, the
    same item indices as drawing ``gen.integers(0, n, size=n)`` once per replicate.
    """
    gen = as_generator(rng)
    n = int(features[0].shape[0])
    # Small features joined into one dense matrix (one product per chunk for all of them);
    # large sparse ones keep their own sparse product.
    joined = [k for k, f in enumerate(features) if _densify(f, n)]
    apart = [k for k in range(len(features)) if k not in joined]
    edges = np.cumsum([0, *(features[k].shape[1] for k in joined)])
    dense = np.hstack([_dense(features[k]) for k in joined]) if joined else None
    chunk = max(1, CHUNK_CELLS // max(n, 1))
    outs: list[FloatArray] = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for lo in range(0, n_boot, chunk):
            mult = drawn_multiplicities(gen, n, min(n_boot, lo + chunk) - lo)
            totals = {k: _matmul(mult, features[k]) for k in apart}
            if dense is not None:
                both = mult @ dense
                totals |= {k: both[:, edges[j] : edges[j + 1]] for j, k in enumerate(joined)}
            values = [stat(totals[k]) for k, stat in enumerate(statistics)]
            if not outs:
                outs = [np.empty((n_boot, *v.shape[1:]), dtype=np.float64) for v in values]
            for out, v in zip(outs, values, strict=True):
                out[lo : lo + v.shape[0]] = v
    return outs or [np.empty(0, dtype=np.float64) for _ in features]


def _densify(features: Any, n: int) -> bool:
    """Dense already, or sparse and small enough to multiply densely."""
    return isinstance(features, np.ndarray) or n * int(features.shape[1]) <= CHUNK_CELLS


def _dense(features: Any) -> FloatArray:
    """Features as a dense float array (scipy sparse ones densified)."""
    arr = features if isinstance(features, np.ndarray) else features.toarray()
    out: FloatArray = np.asarray(arr, dtype=np.float64)
    return out


# --------------------------------------------------------------------------- sampling of raters

SEKind: TypeAlias = Literal["raters", "items", "unconditional"]

#: The standard errors of the chance-corrected coefficients (kappaetc's ``se()``):
#: conditional on the raters (the items are the sample), conditional on the items (the
#: raters are the sample: a jackknife over raters) and unconditional (both samples).
SE_KINDS: tuple[str, ...] = ("raters", "items", "unconditional")


def leave_one_rater_out(ratings: Ratings, statistic: Callable[[Ratings], float]) -> FloatArray:
    """The coefficient with each rater's ratings left out, in the order of the rater codes
    that rated (shape (r,)).

    ``statistic`` maps ratings to the coefficient; items left without a rating drop out of
    each replicate, and the category domain stays the same (as kappaetc's jackknife over
    raters). The warnings of a replicate that is undefined are not repeated: it is NaN.
    """
    codes = np.flatnonzero(np.bincount(ratings.rater_codes, minlength=ratings.n_raters))
    out = np.empty(codes.size, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for j, g in enumerate(codes):
            out[j] = statistic(ratings.subset(ratings.rater_codes != g))
    return out


def rater_variance(values: FloatArray, rater_population_size: float | None) -> float:
    r"""The jackknife variance over raters of a coefficient (Gwet 2008, Psychometrika):

    .. math::

        v_r = \left(1 - \frac{r}{R}\right)\frac{r - 1}{r}
              \sum_{g=1}^{r} \left(\kappa_{(g)} - \bar\kappa_{(\cdot)}\right)^2

    with :math:`\kappa_{(g)}` the coefficient without rater *g* (``values``), *r* the raters
    and *R* the raters in the population (``rater_population_size``; None: infinite).
    NaN when a leave-one-out value is undefined.

    Examples
    --------
    Three raters whose leave-one-out values are 0.2, 0.4 and 0.6: the mean is 0.4, the
    squares sum to 0.08, and (2/3) 0.08 = 0.05333...

    >>> round(rater_variance(np.array([0.2, 0.4, 0.6]), None), 6)
    0.053333
    >>> round(rater_variance(np.array([0.2, 0.4, 0.6]), 6), 6)  # (1 - 3/6) of it
    0.026667
    """
    r = int(values.size)
    g = population_factor(r, rater_population_size, "rater_population_size", "raters", "")
    if r < 2 or not np.all(np.isfinite(values)):
        return math.nan
    return g * (r - 1) / r * float(np.sum((values - values.mean()) ** 2))


@dataclasses.dataclass(frozen=True, slots=True)
class Inference:
    """The inference options of the agreement coefficients, as one value.

    :func:`accord.agreement` takes it as ``inference=``.

    Parameters
    ----------
    ci : {"analytic", "bootstrap"}, default "analytic"
        ``"bootstrap"`` resamples items ``n_boot`` times and the intervals become BCa
        intervals.
    confidence_level : float, default 0.95
        The level of the intervals (:func:`accord.agreement`'s table is at 95% and refuses
        another level).
    n_boot : int, default 2000
        Bootstrap replicates.
    seed : Generator, int or None, default None
        The random generator of the bootstrap (``None``: a fresh one).
    population_size : float, optional
        Items in the population (finite-population correction).
    se : {"raters", "items", "unconditional"}, default "raters"
        The standard error of the chance-corrected coefficients (kappaetc's ``se()``):
        conditional on the raters, on the items (a jackknife over raters) or both.
    rater_population_size : float, optional
        Raters in the population (kappaetc's ``nraters()``).
    test_value : float, default 0
        The p-values test ``statistic = test_value`` (kappaetc's ``testvalue()``).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The alternative of those tests.

    Examples
    --------
    >>> import accord
    >>> r = accord.datasets.load_diagnoses()
    >>> table = accord.agreement(r, coefficients=["fleiss_kappa"],
    ...                          inference=accord.Inference(test_value=0.4))
    >>> row = table.coefficients[0]
    >>> round(row.statistic, 3), row.test_value
    (0.43, 0.4)
    """

    ci: str = "analytic"
    confidence_level: float = 0.95
    n_boot: int = 2000
    seed: RngLike = None
    population_size: float | None = None
    se: str = "raters"
    rater_population_size: float | None = None
    test_value: float = 0.0
    alternative: str = "two-sided"

    def __repr__(self) -> str:
        """The fields set to other than their default, wrapped at 100 characters.

        >>> Inference(se="items", test_value=0.6)
        Inference(se='items', test_value=0.6)
        """
        import textwrap

        given = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in dataclasses.fields(self)
            if getattr(self, f.name) is not f.default and getattr(self, f.name) != f.default
        ]
        text = "Inference(" + ", ".join(given) + ")"
        return "\n".join(textwrap.wrap(text, width=100, subsequent_indent="    "))

    def check(self, owner: str) -> None:
        """Refuse an unknown ``ci``, ``se`` or ``alternative``, a bad ``n_boot``, a
        confidence level outside (0, 1), a test value that is no finite number, or a rater
        population that is no positive number."""
        check_ci(self.ci, self.n_boot, owner)
        n_boot = self.n_boot  # every bootstrap of a page draws n_boot, whatever ``ci``
        if (
            isinstance(n_boot, bool)
            or not isinstance(n_boot, int | np.integer)
            or not 0 <= n_boot <= MAX_REPLICATES
        ):
            need = f"an integer from 0 (no resamples) to {MAX_REPLICATES:,}"
            raise InvalidInputError(bad_parameter("accord.Inference", "n_boot", need, n_boot))
        level = self.confidence_level
        if isinstance(level, bool) or not isinstance(level, int | float) or not 0 < level < 1:
            raise InvalidInputError(
                bad_parameter(owner, "confidence_level", "a number in (0, 1)", level)
            )
        if self.se not in SE_KINDS:
            raise InvalidInputError(bad_choice(owner, "se", SE_KINDS, self.se))
        alternatives = ("two-sided", "greater", "less")
        if self.alternative not in alternatives:
            raise InvalidInputError(
                bad_choice(owner, "alternative", alternatives, self.alternative)
            )
        value = self.test_value
        if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
            raise InvalidInputError(bad_parameter(owner, "test_value", "a number", value))
        if not math.isfinite(float(value)):
            raise InvalidInputError(bad_parameter(owner, "test_value", "a finite number", value))
        size = self.rater_population_size
        if size is not None and (isinstance(size, bool) or not float(size) > 0):
            raise InvalidInputError(
                bad_parameter(owner, "rater_population_size", "a positive number", size)
            )

    def check_raters(self, ratings: Ratings | None, owner: str) -> Ratings:
        """The ``ratings`` a jackknife over raters needs (with rater ids, three or more
        raters), else the error that says so; nothing is needed with ``se="raters"``."""
        if ratings is None:
            raise InvalidInputError(
                f"{owner}: {option('se', self.se)} jackknifes over the raters, which needs "
                f"the ratings with their rater ids in memory (Ratings, "
                f"{option('engine', 'memory')}), not item x category counts; "
                f"{option('se', 'raters')} needs only the counts"
            )
        n_raters = int(np.count_nonzero(np.bincount(ratings.rater_codes)))
        if n_raters < 3:
            raise InvalidInputError(
                f"{owner}: {option('se', self.se)} jackknifes over the raters, which needs "
                f"three or more raters (each replicate leaves one out); these ratings have "
                f"{n_raters}"
            )
        return ratings

    def fields(
        self,
        result: dict[str, Any],
        ratings: Ratings | None,
        statistic: Callable[[Ratings], float],
        owner: str,
        stacklevel: int = 5,
        jackknife: FloatArray | None = None,
    ) -> dict[str, Any]:
        """The fields of a coefficient's ``result`` (its ``statistic`` and
        ``standard_error``, conditional on the raters) under these options: the standard
        error asked for, its components, and the test. ``statistic`` recomputes the
        coefficient on ratings (for the jackknife over raters), unless ``jackknife``
        already holds the leave-one-rater-out values (in the order of
        :func:`leave_one_rater_out`); ``stacklevel`` of a warning counts from
        :func:`~accord._errors.warn_degenerate` to the user's call."""
        se_raters = float(result.get("standard_error", math.nan))
        size = self.rater_population_size
        out: dict[str, Any] = dict(
            se_kind=self.se,
            test_value=float(self.test_value),
            alternative=self.alternative,
            rater_population_size=math.inf if size is None else float(size),
            standard_error_given_raters=se_raters,
        )
        if self.se == "raters":
            return out
        ratings = self.check_raters(ratings, owner)
        if not math.isfinite(float(result.get("statistic", math.nan))):
            return out | dict(standard_error=math.nan, standard_error_given_items=math.nan)
        values = leave_one_rater_out(ratings, statistic) if jackknife is None else jackknife
        v_over_raters = rater_variance(values, size)  # the variance given the items
        se_items = math.sqrt(v_over_raters) if math.isfinite(v_over_raters) else math.nan
        if self.se == "items":
            se = se_items
        else:  # Gwet (2014), eq. 5.4.4: the two variances summed
            se = math.sqrt(se_raters**2 + v_over_raters) if math.isfinite(se_items) else math.nan
        out.update(standard_error=se, standard_error_given_items=se_items, rater_jackknife=values)
        if result.get("method"):
            how = (
                "conditional on the items (jackknife over raters"
                if self.se == "items"
                else ("unconditional (linearisation over items plus jackknife over raters")
            )
            out["method"] = f"{result['method']}; reported SE: {how}, Gwet 2008)"
        if not math.isfinite(se_items):
            reason = (
                "the coefficient is undefined with some rater left out, so its jackknife "
                f"over raters ({option('se', self.se)}) is undefined"
            )
            warn_degenerate(reason, stacklevel=stacklevel)
            out["reason"] = result.get("reason") or reason
        return out


def inference_keywords(
    taken: Sequence[str] | None = None,
) -> contextlib.AbstractContextManager[None]:
    """Within the block, Python advice names the options of :class:`Inference` as the front
    door running takes them, inside one ``inference=accord.Inference(...)``
    (:func:`accord.agreement` takes every one, :func:`accord.report` those of ``taken``;
    advice to set another is left out).

    >>> from accord._errors import hint, option
    >>> with inference_keywords():
    ...     print(option("ci", "bootstrap"))
    inference=accord.Inference(ci='bootstrap')
    >>> with inference_keywords(taken=["n_boot"]):
    ...     print(repr(hint(": {} gives one", "ci", "bootstrap")))
    ''
    """
    fields = [f.name for f in dataclasses.fields(Inference)]
    taken = fields if taken is None else taken
    refused = [name for name in fields if name not in taken]
    return keywords_within("inference=accord.Inference", taken, refused=refused)
