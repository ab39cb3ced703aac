"""The public :func:`rater_model`: picks the engine, gets the counts, fits the model.

With ``engine="memory"`` the ratings (a :class:`~accord.Ratings`, a data frame or a path)
are fitted as they are (:func:`accord.truth.rater_model`). With ``"stream"`` or ``"dask"``
the engine reads the ratings where they are and encodes them with its dictionaries. Then
Dawid-Skene and one-coin without a bootstrap run each EM step as one pass of the engine's
rescan (:mod:`accord.truth.passes`: memory O(items x classes)); the other fits take one
more pass that hands the code vectors over, and EM runs on the item x (rater, label)
counts, which take the memory of the ratings' codes, not of the files.
"""

from __future__ import annotations

from typing import Any

from ..data.ratings import Ratings
from ..data.source import Source, as_source
from ..engines._blocks import Plan
from ..engines._run import check_engine, ratings_in_memory, scan_ratings
from ..truth import RaterModel, rater_model_from_codes
from ..truth import rater_model as fit_ratings
from ..truth.passes import PASS_MODELS, rater_model_in_passes

__all__ = ["in_passes", "rater_model"]


def _codes(_: Any, item: Any, rater: Any, label: Any) -> list[tuple[Any, Any, Any]]:
    return [(item, rater, label)]


def _join(a: list[Any], b: list[Any]) -> list[Any]:
    return a + b


def in_passes(options: dict[str, Any]) -> bool:
    """Whether the stream and dask engines fit in passes over the ratings (Dawid-Skene or
    one-coin without a bootstrap or the observed information), not on their codes gathered
    in memory."""
    return (
        options.get("model", "dawid-skene") in PASS_MODELS
        and options.get("n_bootstrap", 1000) == 0
        and options.get("interval", "bootstrap") == "bootstrap"
    )


def rater_model(ratings: Source | Ratings | Any, **options: Any) -> RaterModel:
    r"""Fit a rater model: a posterior over labels for each item, a quality for each rater.

    Dawid-Skene: item ``i`` has a latent label ``c`` with prevalence ``pi_c``; rater ``r``
    says ``l`` with probability ``E_r[c, l]``, independently given ``c``, so that

    .. math::

        P(c \mid \text{ratings of } i) \propto \pi_c \prod_{(i, r, l)} E_r[c, l],
        \qquad E_r[c, l] = \frac{\sum_{(i,r,l)} T_{ic}}{\sum_{(i,r,\cdot)} T_{ic}}

    (E step, M step). One-coin: ``E_r[c, c] = s_r``, ``E_r[c, l] = (1 - s_r)/(q - 1)``.
    MACE: ``E_r[c, l] = (1 - theta_r) xi_{rl} + theta_r [l = c]`` with a uniform prior on the
    label, Beta(0.5, 0.5) on theta and Dirichlet(10) on xi, fitted by variational Bayes
    (``mace_method="em"``: EM with crowd-kit's smoothing). GLAD: rater ``r`` is right with
    ``sigma(alpha_r exp(beta_i))`` and otherwise picks any other label evenly, N(1, 1)
    priors on alpha and beta, a uniform prior on the label.

    Parameters
    ----------
    ratings : Ratings, Source, data frame or path
        Nominal labels (the order of ordinal ones is not used). A frame or a path is read
        with the read keywords of :func:`accord.source` (``item``, ``rater``, ``label``,
        ``engine``, ...) given among ``options``. With ``engine="stream"`` or ``"dask"``,
        Dawid-Skene and one-coin with ``n_bootstrap=0`` run each EM step as one pass of the
        engine over the ratings (memory O(items x classes), the ratings left where they
        are); the other fits get the ratings' codes from the engine. Either way the fit is
        the memory engine's to floating-point rounding.
    model : {"dawid-skene", "one-coin", "mace", "glad"}
    gold : mapping or Series, item -> label, optional
        Items whose label is known: their posteriors are clamped at it in every E step
        (semi-supervised EM), and each rater's confusion matrix is also estimated from the
        gold items alone (``gold_confusion``).
    tol : float
        EM stops when the log-likelihood gains less than ``tol`` per rating and no item's
        posterior probability of a label moves by more than ``sqrt(tol)`` in an iteration.
    max_iter : int
        The iteration limit; stopping there warns, naming the model.
    smoothing : float
        Dawid-Skene: a pseudo-count added to every cell of the expected confusion counts
        (0: maximum likelihood).
    mace_method : {"vb", "em"}
    n_bootstrap : int
        Resamples of the items for the intervals (0: none); each refit starts from the fit.
        Fewer than 1000 warn, as every bootstrap interval of accord does: the ends are tail
        quantiles of the replicates (Efron & Tibshirani 1993).
    level : float
        Confidence level of the intervals.
    rng : Generator, int or None
        Seeds the bootstrap; the fit itself is deterministic (from majority vote).
    interval : {"bootstrap", "observed-information"}
        Where the raters' accuracy intervals come from. ``"observed-information"``
        (Dawid-Skene or one-coin): the observed information of the likelihood by Louis's
        (1982) formula (of the penalised likelihood the fit maximises, with ``smoothing``),
        the delta method for each accuracy (``accuracy_se`` in the raters table) and its
        Wald interval clipped to [0, 1], in no time and without a seed; the other
        intervals (items, kappas) still come from the ``n_bootstrap`` resamples
        (``n_bootstrap=0``: none).

    Returns
    -------
    RaterModel
        ``items``, ``raters`` and ``review`` tables (``to_frame()``), the confusion matrices,
        the log-likelihood path and the model-based reliability.

    Raises
    ------
    InvalidInputError
        An unknown model or option, set-valued ratings, fewer than two categories, or a gold
        label that is not a category.

    Notes
    -----
    Initialisation: majority-vote shares (gold clamped) and one M step. The tables hold
    ``confusion[r, c, l]`` with rows the true label (Dawid & Skene's ``pi_{jl}``); crowd-kit's
    ``errors_`` is the transpose. MACE's reported competence is the posterior mean of theta;
    its E step uses the variational weights ``exp(psi(.))`` as crowd-kit's does. ``accuracy``
    is the expected share of a rater's own labels that are right, ``sum_n T[i_n, l_n] / n_r``
    (for one-coin, ``s_r`` itself). The model-based kappas use the prevalence ``mean_i T_i``.

    References
    ----------
    Dawid & Skene (1979), https://doi.org/10.2307/2346806. Louis (1982),
    https://doi.org/10.1111/j.2517-6161.1982.tb01203.x. Hovy et al. (2013),
    https://aclanthology.org/N13-1132. Whitehill et al. (2009), NeurIPS 22. Raykar & Yu
    (2012), JMLR 13:491-518.

    Examples
    --------
    >>> import pandas as pd
    >>> from accord import Ratings
    >>> wide = pd.DataFrame({"a": list("yyynnnyn"), "b": list("yynnnnyn"),
    ...                      "c": list("yyynnyyn")})
    >>> fit = rater_model(Ratings.from_wide(wide), n_bootstrap=0)
    >>> fit.items["label"].tolist()
    ['y', 'y', 'y', 'n', 'n', 'n', 'y', 'n']
    >>> fit.raters[["rater", "n_ratings"]].values.tolist()
    [['a', 8], ['b', 8], ['c', 8]]
    >>> long = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "rater": list("abcabc"),
    ...                      "label": list("yyynny")})
    >>> rater_model(long, item="item", rater="rater", label="label",
    ...             n_bootstrap=0).items["label"].tolist()
    ['y', 'n']
    """
    import numpy as np

    fit_keys = {"model", "gold", "tol", "max_iter", "smoothing", "mace_method",
                "n_bootstrap", "level", "rng", "interval"}  # fmt: skip
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
    # the codes come from the rescan: the scan counts only what the decode tables need (a
    # report's shared scan, which counts more, covers it)
    stats, rescan = scan_ratings(
        src.data, src.engine, owner="rater_model", plan=Plan(raters=True),
        **src.read_options(), **src.engine_options(),
    )  # fmt: skip
    if in_passes(fit):
        # each EM step one pass of the engine over the ratings: memory O(items x classes)
        return rater_model_in_passes(
            rescan.map_reduce, items=stats.items, raters=stats.raters,
            categories=stats.categories, in_place=src.engine == "stream", report=stats.report,
            **{k: v for k, v in fit.items() if k != "interval"},
        )  # fmt: skip
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
