"""Rater models: what each rater is worth and what each item's label probably is.

``rater_model`` fits Dawid & Skene's (1979) latent class model by EM, its one-coin variant,
MACE (Hovy et al. 2013) or GLAD (Whitehill et al. 2009) to ratings; ``rater_model_from_counts``
to Dawid & Skene's own statistic, the counts ``n[i, r, l]`` (repeated assessments allowed).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any, Literal, Never

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._bootstrap import warn_few_replicates
from .._errors import InvalidInputError, bad_parameter, user_stacklevel
from .._interval import check_confidence_level
from .._types import FloatArray, IntArray, RngLike, as_generator
from .._validate import check_choice
from ..data.ratings import Ratings, item_column
from ..data.source import refuse_read_options
from ._design import Design, design_from_codes
from ._em import ACCELERATED, PLAIN_STEPS, Fit, ModelName, Options, fit_em
from ._information import (
    MAX_INFORMATION_PARAMETERS,
    accuracy_standard_errors,
    information_parameters,
)
from ._quality import (
    Replicates,
    bootstrap,
    confusion_of_counts,
    implied_agreement,
    quality_from_counts,
)
from ._tables import item_columns, items_table, review_table
from ._tallies import Tallies, tallies_of
from .results import ModelReliability, RaterModel

__all__ = [
    "MAX_INFORMATION_PARAMETERS",
    "MODELS",
    "gold_codes",
    "model_of_fit",
    "rater_model",
    "rater_model_from_codes",
    "rater_model_from_counts",
]

MODELS: tuple[ModelName, ...] = ("dawid-skene", "one-coin", "mace", "glad")
IntervalMethod = Literal["bootstrap", "observed-information"]
#: How the raters' accuracies get their intervals.
INTERVALS: tuple[IntervalMethod, ...] = ("bootstrap", "observed-information")
OWNER = "rater_model"


def rater_model(
    ratings: Ratings,
    *,
    model: ModelName = "dawid-skene",
    gold: Mapping[Any, Any] | pd.Series | None = None,
    tol: float = 1e-8,
    max_iter: int = 1000,
    smoothing: float = 0.0,
    mace_method: str = "vb",
    n_bootstrap: int = 1000,
    level: float = 0.95,
    rng: RngLike = 0,
    interval: IntervalMethod = "bootstrap",
) -> RaterModel:
    """:func:`accord.rater_model` on :class:`~accord.Ratings` (the memory engine), which
    documents the models, the options and the result.

    >>> import pandas as pd
    >>> from accord import Ratings
    >>> wide = pd.DataFrame({"a": list("yyynnnyn"), "b": list("yynnnnyn"),
    ...                      "c": list("yyynnyyn")})
    >>> fit = rater_model(Ratings.from_wide(wide), n_bootstrap=0)
    >>> fit.items["label"].tolist()
    ['y', 'y', 'y', 'n', 'n', 'n', 'y', 'n']
    """
    if not isinstance(ratings, Ratings):
        raise InvalidInputError(f"rater_model takes Ratings; got {type(ratings).__name__}")
    if ratings.multi_label:
        raise InvalidInputError("rater_model takes one label per rating, not sets of labels")
    codes = gold_codes(gold, ratings.items, ratings.categories)
    design = design_from_codes(
        ratings.item_codes,
        ratings.rater_codes,
        ratings.label_codes,
        n_items=ratings.n_items,
        n_raters=ratings.n_raters,
        q=ratings.n_categories,
        gold=codes,
    )
    checked = _checked(
        model, tol, max_iter, smoothing, mace_method, n_bootstrap, level, rng, interval
    )
    return _fit(
        design,
        item_column(ratings),
        ratings.raters,
        ratings.categories,
        report=ratings.report,
        **checked,
    )


def _checked(
    model: Any, tol: Any, max_iter: Any, smoothing: Any, mace_method: Any,
    n_bootstrap: Any, level: Any, rng: Any, interval: Any = "bootstrap",
) -> dict[str, Any]:  # fmt: skip
    """The options of both doors, checked."""
    check_choice("model", model, MODELS, OWNER)
    check_choice("interval", interval, INTERVALS, OWNER)
    if interval == "observed-information" and model not in ("dawid-skene", "one-coin"):
        raise InvalidInputError(
            "rater_model: interval='observed-information' is the information of the "
            "Dawid-Skene likelihood: it needs model='dawid-skene' or 'one-coin' (got "
            f"model={model!r}); the bootstrap covers every model"
        )
    check_choice("mace_method", mace_method, ("vb", "em"), OWNER)
    _positive_number("tol", tol, strict=True)
    _positive_number("smoothing", smoothing, strict=False)
    for name, value, low in (("max_iter", max_iter, 1), ("n_bootstrap", n_bootstrap, 0)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise InvalidInputError(bad_parameter(OWNER, name, f"an integer >= {low}", value))
    return {
        "model": model,
        "options": Options(float(tol), int(max_iter), float(smoothing), mace_method),
        "n_bootstrap": int(n_bootstrap),
        "level": check_confidence_level(level, OWNER),
        "rng": as_generator(rng, OWNER),
        "interval": interval,
    }


def _positive_number(name: str, value: Any, *, strict: bool) -> None:
    ok = not isinstance(value, bool) and isinstance(value, int | float | np.floating)
    if ok and math.isfinite(float(value)) and (value > 0 if strict else value >= 0):
        return
    need = "a positive number" if strict else "a number >= 0"
    raise InvalidInputError(bad_parameter(OWNER, name, need, value))


def rater_model_from_counts(
    counts: npt.ArrayLike,
    *,
    items: npt.ArrayLike | None = None,
    raters: npt.ArrayLike | None = None,
    categories: tuple[Any, ...] | list[Any] | None = None,
    model: ModelName = "dawid-skene",
    gold: Mapping[Any, Any] | pd.Series | None = None,
    tol: float = 1e-8,
    max_iter: int = 1000,
    smoothing: float = 0.0,
    mace_method: str = "vb",
    n_bootstrap: int = 1000,
    level: float = 0.95,
    rng: RngLike = 0,
    interval: IntervalMethod = "bootstrap",
    **read_options: Never,
) -> RaterModel:
    """:func:`rater_model` on Dawid & Skene's counts ``n[i, r, l]``: how often rater ``r``
    gave item ``i`` label ``l``, shape (n_items, n_raters, q). A rater may rate an item more
    than once (repeated assessments); ``items``, ``raters`` and ``categories`` name the axes
    (default 0, 1, ...).

    References
    ----------
    .. [1] Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer error-
       rates using the EM algorithm. Journal of the Royal Statistical Society, Series C
       (Applied Statistics), 28(1), 20-28. https://doi.org/10.2307/2346806

    Examples
    --------
    >>> import numpy as np
    >>> n = np.zeros((4, 3, 2)); n[[0, 1], :, 1] = 1; n[[2, 3], :, 0] = 1; n[3, 2] = [0, 2]
    >>> fit = rater_model_from_counts(n, n_bootstrap=0)
    >>> fit.items["label"].tolist(), fit.raters["n_ratings"].tolist()
    ([1, 1, 0, 0], [4, 4, 5])
    """
    refuse_read_options("rater_model_from_counts", read_options, "counts")
    n = np.asarray(counts, dtype=np.float64)
    if n.ndim != 3 or n.shape[2] < 2 or not np.all(np.isfinite(n)) or np.any(n < 0):
        raise InvalidInputError(
            "counts must be an array of non-negative counts, shape (n_items, n_raters, q) "
            f"with q >= 2; got shape {n.shape}"
        )
    item_ids = np.arange(n.shape[0]) if items is None else np.asarray(items, dtype=object)
    rater_ids = np.arange(n.shape[1]) if raters is None else np.asarray(raters, dtype=object)
    labels = tuple(range(n.shape[2])) if categories is None else tuple(categories)
    if item_ids.size != n.shape[0] or rater_ids.size != n.shape[1] or len(labels) != n.shape[2]:
        raise InvalidInputError(f"items, raters and categories must match counts {n.shape}")
    i, r, lab = np.nonzero(n)
    design = design_from_codes(
        i, r, lab, n_items=n.shape[0], n_raters=n.shape[1], q=n.shape[2],
        weight=n[i, r, lab], gold=gold_codes(gold, item_ids, labels),
    )  # fmt: skip
    checked = _checked(
        model, tol, max_iter, smoothing, mace_method, n_bootstrap, level, rng, interval
    )
    return _fit(design, item_ids, rater_ids, labels, **checked)


def rater_model_from_codes(
    item: IntArray,
    rater: IntArray,
    label: IntArray,
    *,
    items: npt.NDArray[Any],
    raters: npt.NDArray[Any],
    categories: tuple[Any, ...],
    gold: Mapping[Any, Any] | pd.Series | None = None,
    report: Any = None,
    **options: Any,
) -> RaterModel:
    """:func:`rater_model` on code vectors (one entry per rating, each (item, rater) pair at
    most once) into the decode tables ``items``, ``raters`` and ``categories``: what an
    engine that counts the ratings where they are hands over."""
    design = design_from_codes(
        item, rater, label, n_items=len(items), n_raters=len(raters), q=len(categories),
        gold=gold_codes(gold, np.asarray(items, dtype=object), tuple(categories)),
    )  # fmt: skip
    defaults = {
        "model": "dawid-skene", "tol": 1e-8, "max_iter": 1000, "smoothing": 0.0,
        "mace_method": "vb", "n_bootstrap": 1000, "level": 0.95, "rng": 0,
        "interval": "bootstrap",
    }  # fmt: skip
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        raise InvalidInputError(f"rater_model got unexpected options {unknown}")
    chosen = {**defaults, **options}
    return _fit(design, np.asarray(items), np.asarray(raters), tuple(categories),
                report=report, **_checked(*(chosen[k] for k in defaults)))  # fmt: skip


def gold_codes(gold: Any, items: npt.NDArray[Any], categories: tuple[Any, ...]) -> IntArray:
    """The code of each item's gold label (-1 where none), shape (n_items,); ids and labels
    matched as given, else as text."""
    out = np.full(items.size, -1, dtype=np.int64)
    if gold is None:
        return out
    if not isinstance(gold, Mapping | pd.Series):
        raise InvalidInputError(
            "gold must be a mapping item -> label or a pandas Series indexed by item; got "
            f"{type(gold).__name__}"
        )
    series = pd.Series(dict(gold) if isinstance(gold, Mapping) else gold).dropna()
    where = _match(pd.Index(series.index, tupleize_cols=False), items)
    found = where >= 0
    if not found.any():
        raise InvalidInputError(
            f"gold: no item of the ratings has a gold label (e.g. {items[:3].tolist()!r} in "
            f"the ratings, {series.index[:3].tolist()!r} in gold)"
        )
    values = series.to_numpy(dtype=object)[where[found]]
    codes = _match(pd.Index(list(categories), dtype=object), values)
    if np.any(codes < 0):
        bad = values[int(np.flatnonzero(codes < 0)[0])]
        raise InvalidInputError(
            f"gold: label {bad!r} is not among the categories {list(categories)!r}"
        )
    out[found] = codes
    return out


def _match(index: pd.Index, values: npt.NDArray[Any]) -> IntArray:
    """Position of each value in ``index`` (-1 where absent), as given, else as text."""
    at = np.asarray(index.get_indexer(pd.Index(values, dtype=object, tupleize_cols=False)))
    if np.any(at < 0):
        text = pd.Index([str(v) for v in index], dtype=object)
        again = np.asarray(text.get_indexer(pd.Index([str(v) for v in values], dtype=object)))
        at = np.where(at < 0, again, at)
    return at.astype(np.int64)


def _fit(
    design: Design,
    items: npt.NDArray[Any] | pd.api.extensions.ExtensionArray,
    raters: npt.NDArray[Any],
    categories: tuple[Any, ...],
    *,
    model: ModelName,
    options: Options,
    n_bootstrap: int,
    level: float,
    rng: np.random.Generator,
    interval: IntervalMethod = "bootstrap",
    report: Any = None,
) -> RaterModel:
    if design.q < 2:
        raise InvalidInputError("rater_model needs at least two categories")
    p = information_parameters(design.n_raters, design.q, model == "one-coin")
    if interval == "observed-information" and p > MAX_INFORMATION_PARAMETERS:
        raise InvalidInputError(
            f"rater_model: interval='observed-information' inverts the information matrix of "
            f"{p:,} parameters ({design.n_raters:,} raters in {design.q} categories), more than "
            f"the {MAX_INFORMATION_PARAMETERS:,} it forms; use interval='bootstrap'"
        )
    warn_few_replicates(n_bootstrap, name="n_bootstrap", stacklevel=user_stacklevel() + 1)
    fit = fit_em(design, model, options)
    reps = bootstrap(design, fit, model, options, n_bootstrap, rng) if n_bootstrap else None
    se = None
    if interval == "observed-information":  # Dawid-Skene (with its pseudo-count) or one coin
        one_coin = model == "one-coin"
        smoothing = 0.0 if one_coin else options.smoothing
        se = accuracy_standard_errors(design, fit.params, fit.posterior, smoothing, one_coin)
    return model_of_fit(
        fit, tallies_of(design, fit.posterior), items, raters, categories, model=model,
        options=options, level=level, reps=reps, n_bootstrap=n_bootstrap, se=se, report=report,
    )  # fmt: skip


def model_of_fit(
    fit: Fit,
    tallies: Tallies,
    items: npt.NDArray[Any] | pd.api.extensions.ExtensionArray,
    raters: npt.NDArray[Any],
    categories: tuple[Any, ...],
    *,
    model: ModelName,
    options: Options,
    level: float,
    reps: Replicates | None = None,
    n_bootstrap: int = 0,
    se: FloatArray | None = None,
    report: Any = None,
) -> RaterModel:
    """The :class:`RaterModel` of a fit and the tallies of its ratings (``se``: the
    accuracies' standard errors from the observed information, else bootstrap intervals
    from ``reps``, or none)."""
    prevalence = _prevalence(tallies, fit)
    implied = implied_agreement(fit.params.confusion[tallies.n_per_rater > 0], prevalence)
    alpha = (1 - level) / 2
    reliability = ModelReliability(
        float(np.nanmean(implied["kappa_truth"])),
        implied["pairwise"],
        *_interval(reps.agreement["pairwise"] if reps else None, alpha),
        implied["fleiss"],
        *_interval(reps.agreement["fleiss"] if reps else None, alpha),
        tallies.observed_fleiss,
    )
    gold = tallies.gold_counts
    cols = item_columns(fit.params, fit.posterior, tallies.n_per_rater.astype(np.float64))
    difficulty = fit.params.difficulty
    item_frame = items_table(
        cols,
        fit.posterior,
        items,
        categories,
        gold=tallies.gold,
        bounds=_interval(reps.items if reps else None, alpha),
        difficulty=None if difficulty is None else np.exp(-difficulty),
    )
    # the review's ids taken from the items table's column where pandas gave it a type
    # (text: one take, not the ids converted again); as given where it holds objects
    ids = item_frame["item"].array
    review_ids = items if ids.dtype == object else ids
    return RaterModel(
        model=model,
        categories=categories,
        items=item_frame,
        raters=_raters_table(tallies, fit, raters, prevalence, reps, alpha, se),
        review=review_table(cols, review_ids, categories, tallies.gold),
        confusion=fit.params.confusion,
        gold_confusion=None if gold is None else confusion_of_counts(gold),
        prevalence=prevalence,
        reliability=reliability,
        log_likelihood=fit.log_likelihood,
        converged=fit.converged,
        n_items=tallies.n_items,
        n_raters=int(tallies.n_per_rater.size),
        n_gold=int((tallies.gold >= 0).sum()),
        n_bootstrap=n_bootstrap,
        n_ratings=float(tallies.n_per_rater.sum()),
        level=level,
        method=_method_words(model, options),
        report=report,
        interval="bootstrap" if se is None else "observed-information",
    )


def _method_words(model: ModelName, options: Options) -> str:
    words = f"EM tolerance {options.tol:g} per rating, at most {options.max_iter} iterations"
    if model in ACCELERATED:
        words += f" (SQUAREM steps after {PLAIN_STEPS} plain ones)"
    if model == "dawid-skene" and options.smoothing:
        words += f", pseudo-count {options.smoothing:g}"
    if model == "mace":
        words += f", {'variational Bayes' if options.mace_method == 'vb' else 'EM'}"
    return words


def _prevalence(tallies: Tallies, fit: Fit) -> FloatArray:
    """The mean posterior of the rated items (no copy of the posteriors when every item is
    rated)."""
    rated = tallies.rated
    out: FloatArray = (fit.posterior if rated.all() else fit.posterior[rated]).mean(axis=0)
    return out


def _interval(replicates: FloatArray | None, alpha: float) -> tuple[Any, Any]:
    """Percentile bounds along the first axis (NaN without replicates)."""
    if replicates is None or not len(replicates):
        return float("nan"), float("nan")
    with warnings.catch_warnings():  # a rater absent from every resample: NaN, quietly
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(replicates, [alpha, 1 - alpha], axis=0)
    if np.ndim(low) == 0:
        return float(low), float(high)
    return low, high


def _raters_table(
    tallies: Tallies,
    fit: Fit,
    raters: npt.NDArray[Any],
    prevalence: FloatArray,
    reps: Replicates | None,
    alpha: float,
    se: FloatArray | None,
) -> pd.DataFrame:
    quality = quality_from_counts(tallies.counts, fit.params, prevalence)
    quality.pop("n_ratings")
    n = tallies.n_per_rater
    whole = bool(np.all(n == np.round(n)))
    frame = pd.DataFrame({"rater": raters, "n_ratings": n.astype(np.int64) if whole else n})
    for key in ("accuracy", "sensitivity", "specificity", "competence", "kappa_truth"):
        if key not in quality:
            continue
        frame[key] = quality[key]
        frame[f"{key}_low"], frame[f"{key}_high"] = _interval(
            reps.raters[key] if reps else None, alpha
        )
    if se is not None:
        _information_interval(frame, se, alpha)
    frame["spammer_score"] = quality["spammer_score"]
    gold = tallies.gold_counts
    if gold is not None:
        n_gold = gold.sum(axis=(1, 2))
        right = np.trace(gold, axis1=1, axis2=2)
        frame["gold_n"] = n_gold.astype(np.int64) if whole else n_gold
        with np.errstate(divide="ignore", invalid="ignore"):
            frame["gold_accuracy"] = np.where(n_gold > 0, right / n_gold, np.nan)
    return frame


def _information_interval(frame: pd.DataFrame, se: FloatArray, alpha: float) -> None:
    """The accuracy's standard error from the observed information (Louis 1982) and its
    Wald interval, clipped to [0, 1], in place of the bootstrap's."""
    from scipy import special

    z = float(special.ndtri(1 - alpha))
    acc = frame["accuracy"].to_numpy(dtype=np.float64)
    frame["accuracy_low"] = np.clip(acc - z * se, 0.0, 1.0)
    frame["accuracy_high"] = np.clip(acc + z * se, 0.0, 1.0)
    frame.insert(list(frame.columns).index("accuracy") + 1, "accuracy_se", se)
