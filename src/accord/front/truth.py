"""The public :func:`rater_model`: picks the engine, gets the counts, fits the model.

With ``engine="memory"`` the ratings (a :class:`~accord.Ratings`, a data frame or a path)
are fitted as they are (:func:`accord.truth.rater_model`). With ``"stream"`` or ``"dask"``
the engine reads the ratings where they are, encodes them with its dictionaries, and one
more pass of its rescan hands the code vectors over; EM then runs on the item x (rater,
label) counts, which take the memory of the ratings' codes, not of the files.
"""

from __future__ import annotations

from typing import Any

from ..data.ratings import Ratings
from ..data.source import Source, as_source
from ..engines._run import check_engine, ratings_in_memory, scan_ratings
from ..truth import RaterModel, rater_model_from_codes
from ..truth import rater_model as fit_ratings

__all__ = ["rater_model"]


def _codes(_: Any, item: Any, rater: Any, label: Any) -> list[tuple[Any, Any, Any]]:
    return [(item, rater, label)]


def _join(a: list[Any], b: list[Any]) -> list[Any]:
    return a + b


def rater_model(ratings: Source | Ratings | Any, **options: Any) -> RaterModel:
    """Fit a rater model (Dawid-Skene, one-coin, MACE or GLAD) to ratings anywhere.

    ``ratings`` is a :class:`~accord.Ratings`, a :class:`~accord.Source`, a data frame or a
    path; the read keywords (``item``, ``rater``, ``label``, ``engine``, ...) are those of
    :func:`accord.source`, the others those of ``accord.truth.rater_model``, which
    documents the models, the options and the result. With ``engine="stream"`` or
    ``"dask"`` the fit is the memory engine's to floating-point rounding.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "rater": list("abcabc"),
    ...                       "label": list("yyynny")})
    >>> fit = rater_model(frame, item="item", rater="rater", label="label", n_bootstrap=0)
    >>> fit.items["label"].tolist()
    ['y', 'n']
    """
    import numpy as np

    fit_keys = {"model", "gold", "tol", "max_iter", "smoothing", "mace_method",
                "n_bootstrap", "level", "rng"}  # fmt: skip
    fit = {k: v for k, v in options.items() if k in fit_keys}
    read = {k: v for k, v in options.items() if k not in fit_keys}
    if isinstance(ratings, Ratings) and not read:
        return fit_ratings(ratings, **fit)
    src = as_source(ratings, "rater_model", **read)
    check_engine(src.engine, "rater_model")
    if src.engine == "memory":
        return fit_ratings(
            ratings_in_memory(src.data, owner="rater_model", **src.read_options()), **fit
        )
    stats, rescan = scan_ratings(
        src.data, src.engine, owner="rater_model", **src.read_options(), **src.engine_options()
    )
    parts = rescan.map_reduce(_codes, None, _join) or []
    del rescan
    item, rater, label = (
        np.concatenate([np.asarray(p[k], dtype=np.int64) for p in parts])
        if parts
        else np.zeros(0, dtype=np.int64)
        for k in range(3)
    )
    return rater_model_from_codes(
        item, rater, label, items=stats.items, raters=stats.raters,
        categories=stats.categories, report=stats.report, **fit,
    )  # fmt: skip
