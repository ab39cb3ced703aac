"""How many raters per item: from a fitted rater model, simulate the accuracy of the
aggregate label and the width of the agreement interval as the panel per item grows."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._errors import InvalidInputError, bad_parameter
from .._results import Record
from .._types import FloatArray, IntArray, RngLike, as_generator
from ..truth import RaterModel
from .simulation import sample_size_simulated

__all__ = ["RatersPerItem", "raters_per_item"]


@dataclasses.dataclass(frozen=True, slots=True)
class RatersPerItem(Record):
    """Simulated labelling with ``k`` raters per item, for each ``k``.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per ``k``: ``n_raters``, ``accuracy`` (share of items whose aggregate label,
        the posterior mode under the fitted model, is the true one), ``accuracy_majority``
        (the same for a majority vote, ties broken at random), ``fleiss_width`` (mean width
        of the Fleiss' kappa interval at ``level`` for ``n_items`` items, k >= 2; NaN for
        k = 1) and ``cost`` (``k * n_items * cost_per_label``).
    n_items : int
        Items per simulated study.
    n_simulations : int
    model : str
        The fitted model the labels are drawn from.
    method : str
    """

    table: pd.DataFrame
    n_items: int
    n_simulations: int
    model: str
    method: str

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()


def _panels(gen: np.random.Generator, n: int, k: int, weights: FloatArray) -> IntArray:
    """``k`` distinct raters per item, drawn in proportion to ``weights`` (Gumbel top-k),
    shape (n, k)."""
    keys = np.log(weights)[None, :] + gen.gumbel(size=(n, weights.size))
    out: IntArray = np.argpartition(-keys, k - 1, axis=1)[:, :k].astype(np.int64)
    return out


def _one_study(
    gen: np.random.Generator, fit: RaterModel, n: int, k: int, weights: FloatArray
) -> tuple[float, float]:
    conf, prior = fit.confusion, fit.prevalence
    q = prior.size
    truth = gen.choice(q, size=n, p=prior / prior.sum())
    panel = _panels(gen, n, k, weights)
    cum = conf[panel, truth[:, None], :].cumsum(axis=2)  # (n, k, q)
    labels = np.minimum((gen.random((n, k))[:, :, None] > cum).sum(axis=2), q - 1)
    with np.errstate(divide="ignore"):
        log_conf = np.log(conf)
        logits = np.log(prior)[None, :] + log_conf[panel, :, labels].sum(axis=1)
    votes = np.zeros((n, q))
    np.add.at(votes, (np.repeat(np.arange(n), k), labels.ravel()), 1.0)
    majority = (votes + gen.random((n, q)) * 0.5).argmax(axis=1)
    return float((logits.argmax(axis=1) == truth).mean()), float((majority == truth).mean())


def raters_per_item(
    fit: RaterModel,
    *,
    raters: Sequence[int] | None = None,
    n_items: int | None = None,
    n_simulations: int = 100,
    cost_per_label: float = 1.0,
    level: float = 0.95,
    rng: RngLike = 0,
) -> RatersPerItem:
    """Simulate studies of ``n_items`` items (default: the fitted model's), each labelled by
    ``k`` raters drawn from the fitted panel (in proportion to how much each rated), for
    each ``k`` of ``raters`` (default 1 to 7, at most the panel's size).

    Labels are drawn from the fitted confusion matrices and prevalence; the aggregate label
    is the posterior mode under the same parameters (the model known, not refitted). The
    Fleiss' kappa interval width comes from :func:`accord.sample_size_simulated` with
    ``k`` raters who each have the panel's rating-weighted mean confusion matrix.

    References
    ----------
    .. [1] Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer error-
       rates using the EM algorithm. Journal of the Royal Statistical Society, Series C
       (Applied Statistics), 28(1), 20-28. https://doi.org/10.2307/2346806

    Examples
    --------
    >>> import numpy as np
    >>> from accord import rater_model_from_counts
    >>> n = np.zeros((40, 5, 2)); n[:20, :, 0] = 1; n[20:, :, 1] = 1; n[::7, 0] = n[::7, 0, ::-1]
    >>> plan = raters_per_item(rater_model_from_counts(n, n_bootstrap=0), raters=(1, 3),
    ...                        n_simulations=20)
    >>> plan.table["n_raters"].tolist()
    [1, 3]
    """
    if not isinstance(fit, RaterModel):
        raise InvalidInputError(f"raters_per_item takes a RaterModel; got {type(fit).__name__}")
    chosen = range(1, min(fit.n_raters, 7) + 1) if raters is None else raters
    ks = [int(k) for k in chosen]
    if not ks or any(k < 1 or k > fit.n_raters for k in ks):
        need = f"integers from 1 to the panel's {fit.n_raters} raters"
        raise InvalidInputError(bad_parameter("raters_per_item", "raters", need, list(chosen)))
    n = fit.n_items if n_items is None else int(n_items)
    gen = as_generator(rng, "raters_per_item")
    weights = np.maximum(fit.raters["n_ratings"].to_numpy(dtype=np.float64), 1e-12)
    mean_conf = np.einsum("r,rcl->cl", weights / weights.sum(), fit.confusion)
    rows: list[dict[str, Any]] = []
    for k in ks:
        draws = np.array([_one_study(gen, fit, n, k, weights) for _ in range(n_simulations)])
        width = float("nan")
        if k >= 2:
            plan = sample_size_simulated(
                "fleiss_kappa", n_raters=k, prevalence=list(fit.prevalence),
                confusion=mean_conf, width=1.0, level=level, n_items=[n],
                n_simulations=n_simulations, seed=gen,
            )  # fmt: skip
            width = float(plan.curve["mean_width"].iloc[0])
        rows.append({
            "n_raters": k, "accuracy": float(draws[:, 0].mean()),
            "accuracy_majority": float(draws[:, 1].mean()), "fleiss_width": width,
            "cost": k * n * cost_per_label,
        })  # fmt: skip
    method = (
        f"{n_simulations} simulated studies of {n} items per panel size, labels drawn from "
        f"the fitted {fit.model} model"
    )
    return RatersPerItem(pd.DataFrame(rows), n, n_simulations, fit.model, method)
