"""E and M steps of the four rater models, and the EM loop they share.

Every step is a few array operations over the counts of :mod:`._design`: the E step of the
confusion-matrix models is ``log prior + A @ log E``, their M step ``A.T @ T`` reshaped to one
``q x q`` table of expected counts per rater; GLAD's steps are ``np.bincount`` over the
distinct ratings. No step loops over ratings, items or raters in Python.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from .._errors import AccordWarning, user_stacklevel
from .._types import FloatArray
from ._design import Design

__all__ = [
    "FLOOR",
    "ROWS",
    "Fit",
    "ModelName",
    "Options",
    "Params",
    "column_means",
    "dawid_skene_params",
    "e_step",
    "expected_counts",
    "fit_em",
    "iterate",
    "largest_move",
    "log_emission",
    "majority_posteriors",
    "normalised",
    "one_coin_params",
    "prevalence",
    "vote_shares",
]

ModelName = Literal["dawid-skene", "one-coin", "mace", "glad"]

#: Items per block where a step over items is taken a block at a time.
ROWS = 1 << 16

#: Floor on an expected count (and on a one-coin error rate) that keeps ``log E`` finite;
#: crowd-kit's DawidSkene clips its counts at the same 1e-10.
FLOOR = 1e-10


@dataclasses.dataclass(frozen=True, slots=True)
class Options:
    """How the models fit: EM tolerance (on the log-likelihood per rating) and limit, the
    Dirichlet pseudo-count of Dawid-Skene, and the priors of MACE and GLAD."""

    tol: float = 1e-8
    max_iter: int = 1000
    smoothing: float = 0.0
    mace_method: Literal["vb", "em"] = "vb"
    mace_alpha: float = 0.5
    mace_beta: float = 0.5
    mace_strategy_prior: float = 10.0
    glad_prior_mean: float = 1.0
    glad_prior_sd: float = 1.0


@dataclasses.dataclass(frozen=True, slots=True)
class Params:
    """The parameters of a fitted model.

    ``prior`` (q,) the class prevalence; ``confusion`` (n_raters, q, q) ``P(label l | true
    c)`` in row ``c``, column ``l``; ``emission`` the table the E step uses (the confusion,
    or MACE's variational weights); ``competence`` (n_raters,) MACE's theta or GLAD's alpha;
    ``strategy`` (n_raters, q) MACE's xi; ``difficulty`` (n_items,) GLAD's log inverse
    difficulty beta.
    """

    prior: FloatArray
    confusion: FloatArray
    emission: FloatArray
    competence: FloatArray | None = None
    strategy: FloatArray | None = None
    difficulty: FloatArray | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Fit:
    params: Params
    posterior: FloatArray
    log_likelihood: tuple[float, ...]
    converged: bool


def majority_posteriors(design: Design) -> FloatArray:
    """Each item's share of votes per label (uniform for an unrated item), gold clamped,
    shape (n_items, q)."""
    return vote_shares(design.votes(), design.gold)


def vote_shares(votes: FloatArray, gold: Any) -> FloatArray:
    """The majority-vote start from each item's votes per label (n_items, q): the shares
    (uniform for an unrated item), gold clamped."""
    q = votes.shape[1]
    total = votes.sum(axis=1, keepdims=True)
    shares = np.divide(votes, total, out=np.full_like(votes, 1.0 / q), where=total > 0)
    return _clamp(shares, gold)


def _clamp(posterior: FloatArray, gold: Any) -> FloatArray:
    known = np.flatnonzero(gold >= 0)
    if known.size:
        posterior[known] = 0.0
        posterior[known, gold[known]] = 1.0
    return posterior


def expected_counts(design: Design, posterior: FloatArray) -> FloatArray:
    """``N[r, c, l]``: the expected number of ratings ``l`` by rater ``r`` of items whose
    true label is ``c``, shape (n_raters, q, q)."""
    q = design.q
    flat = np.asarray(design.counts_t @ posterior)  # (n_raters * q, q): row r*q + l, col c
    return flat.reshape(design.n_raters, q, q).transpose(0, 2, 1)


def _logits(design: Design, params: Params) -> FloatArray:
    """Unnormalised log posteriors, shape (n_items, q)."""
    if params.difficulty is not None:
        return _glad_logits(design, params)
    log_e = log_emission(params)
    with np.errstate(divide="ignore"):
        log_prior = np.log(params.prior)
    out: FloatArray = np.asarray(design.counts @ log_e)
    out += log_prior[None, :]
    return out


def _glad_terms(design: Design, params: Params) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per distinct rating: ``z = alpha_r exp(beta_i)``, ``log sigma(z)`` and
    ``log (1 - sigma(z)) / (q - 1)``."""
    assert params.competence is not None and params.difficulty is not None
    z = params.competence[design.rater] * np.exp(params.difficulty[design.item])
    log_right = -np.logaddexp(0.0, -z)
    log_wrong = -np.logaddexp(0.0, z) - math.log(design.q - 1)
    return z, log_right, log_wrong


def _glad_logits(design: Design, params: Params) -> FloatArray:
    q, n = design.q, design.n_items
    _, log_right, log_wrong = _glad_terms(design, params)
    base = np.bincount(design.item, weights=design.weight * log_wrong, minlength=n)
    extra = np.bincount(
        design.item * q + design.label,
        weights=design.weight * (log_right - log_wrong),
        minlength=n * q,
    ).reshape(n, q)
    with np.errstate(divide="ignore"):
        log_prior = np.log(params.prior)
    out: FloatArray = np.asarray(base[:, None] + extra + log_prior[None, :], dtype=np.float64)
    return out


def _row_max(x: FloatArray) -> FloatArray:
    """``x.max(axis=1, keepdims=True)`` a column at a time (a reduction along a short last
    axis is slow in numpy; the maximum is the same)."""
    top = x[:, 0].copy()
    for c in range(1, x.shape[1]):
        np.maximum(top, x[:, c], out=top)
    return top[:, None]


def _row_sum(x: FloatArray) -> FloatArray:
    """``x.sum(axis=1, keepdims=True)``: below 8 columns a column at a time, left to right,
    the order in which numpy adds so few terms (the same sums to the last bit)."""
    q = x.shape[1]
    if q < 2 or q >= 8:
        out: FloatArray = x.sum(axis=1, keepdims=True)
        return out
    total = x[:, 0] + x[:, 1]
    for c in range(2, q):
        total += x[:, c]
    return total[:, None]


def e_step(design: Design, params: Params) -> tuple[FloatArray, float]:
    """Posteriors (gold clamped), shape (n_items, q), and the log-likelihood of the
    ratings (and of the gold labels, which are data)."""
    return normalised(_logits(design, params), design.gold)


def log_emission(params: Params) -> FloatArray:
    """``log E[r, c, l]`` at row ``r * q + l``, column ``c``: the table an E step sums over
    each item's ratings, shape (n_raters * q, q)."""
    n_raters, q, _ = params.emission.shape
    with np.errstate(divide="ignore"):
        out: FloatArray = np.log(params.emission).transpose(0, 2, 1).reshape(n_raters * q, q)
    return out


def normalised(logits: FloatArray, gold: Any) -> tuple[FloatArray, float]:
    """The posteriors of unnormalised log posteriors (n_items, q), gold clamped, and the
    log-likelihood. The logits are normalised in place, :data:`ROWS` items at a time: no
    temporary of more than a block's items."""
    known = np.flatnonzero(gold >= 0)
    ll_gold = float(logits[known, gold[known]].sum())
    ll = 0.0
    for lo in range(0, logits.shape[0], ROWS):
        block = logits[lo : lo + ROWS]
        top = _row_max(block)
        np.subtract(block, top, out=block)
        np.exp(block, out=block)
        total = _row_sum(block)
        np.divide(block, total, out=block)
        norm = top[:, 0] + np.log(total[:, 0])
        ll += float(norm[gold[lo : lo + ROWS] < 0].sum()) if known.size else float(norm.sum())
    return _clamp(logits, gold), ll + ll_gold if known.size else ll


# ----------------------------------------------------------------------- M steps


def _m_dawid_skene(design: Design, posterior: FloatArray, options: Options) -> Params:
    return dawid_skene_params(
        expected_counts(design, posterior), prevalence(posterior, design.rated), options
    )


def dawid_skene_params(counts: FloatArray, prior: FloatArray, options: Options) -> Params:
    """Dawid-Skene's M step from the expected counts ``N[r, c, l]`` and the prevalence."""
    counts = counts + (options.smoothing + FLOOR)
    confusion = counts / counts.sum(axis=2, keepdims=True)
    return Params(prior, confusion, confusion)


def column_means(x: FloatArray) -> FloatArray:
    """``x.mean(axis=0)`` of a C-ordered (n, q) array, the same to the last bit: numpy adds
    its rows one after the other there, as ``einsum`` does, without a loop of q steps per
    row (three times faster at q = 5).

    >>> column_means(np.array([[0.25, 0.75], [0.5, 0.5], [1.0, 0.0]])).tolist()
    [0.5833333333333334, 0.4166666666666667]
    """
    if not x.flags.c_contiguous or x.ndim != 2 or not x.shape[0]:
        mean: FloatArray = x.mean(axis=0)
        return mean
    out: FloatArray = np.einsum("ij->j", x) / x.shape[0]
    return out


def prevalence(posterior: FloatArray, rated: Any) -> FloatArray:
    """The prevalence of the M step: the mean posterior of the rated items, floored."""
    q = posterior.shape[1]
    if rated.all():
        prior = column_means(posterior)
    else:
        prior = column_means(posterior[rated]) if rated.any() else np.full(q, 1 / q)
    out: FloatArray = np.clip(prior, FLOOR, None)
    out = out / out.sum()
    return out


def _one_coin_table(skill: FloatArray, q: int) -> FloatArray:
    off = (1.0 - skill) / (q - 1)
    table = np.repeat(off[:, None, None], q, axis=1).repeat(q, axis=2)
    table[:, np.arange(q), np.arange(q)] = skill[:, None]
    return table


def _m_one_coin(design: Design, posterior: FloatArray, options: Options) -> Params:
    return one_coin_params(expected_counts(design, posterior), prevalence(posterior, design.rated))


def one_coin_params(counts: FloatArray, prior: FloatArray) -> Params:
    """The one-coin M step from the expected counts ``N[r, c, l]`` and the prevalence."""
    total = counts.sum(axis=(1, 2))
    right = np.trace(counts, axis1=1, axis2=2)
    skill = np.clip(np.divide(right, total, out=np.full_like(total, 0.5), where=total > 0),
                    FLOOR, 1 - FLOOR)  # fmt: skip
    confusion = _one_coin_table(skill, counts.shape[1])
    return Params(prior, confusion, confusion, competence=skill)


def _mace_table(knowing: FloatArray, spam: FloatArray, strategy: FloatArray) -> FloatArray:
    """``P(l | c) = spam * xi_l + knowing * [l == c]``, shape (n_raters, q, q)."""
    q = strategy.shape[1]
    table = np.repeat((spam[:, None] * strategy)[:, None, :], q, axis=1)
    table[:, np.arange(q), np.arange(q)] += knowing[:, None]
    out: FloatArray = table
    return out


def _mace_counts(counts: FloatArray, params: Params | None) -> tuple[FloatArray, FloatArray]:
    """Expected knowing ratings per rater (n_raters,) and expected spam ratings per rater and
    label (n_raters, q), from the expected counts ``N[r, c, l]``. From majority vote (no
    parameters yet) a rating is knowing where it is the item's label."""
    q = counts.shape[1]
    diagonal = np.arange(q)
    if params is None:
        known = np.trace(counts, axis1=1, axis2=2)
        spam_l = counts.sum(axis=1) - counts[:, diagonal, diagonal]
        return known, spam_l
    e = params.emission
    knowing_w = e[:, 0, 0] - e[:, 1, 0]  # the weight on [l == c] in every row of E
    share = counts / e
    known = knowing_w * np.trace(share, axis1=1, axis2=2)
    spam_part = e - knowing_w[:, None, None] * np.eye(q)[None]
    return known, (share * spam_part).sum(axis=1)


def _m_mace(
    design: Design, posterior: FloatArray, options: Options, params: Params | None
) -> Params:
    from scipy.special import digamma

    q = design.q
    known, spam_l = _mace_counts(expected_counts(design, posterior), params)
    spam = spam_l.sum(axis=1)
    total = known + spam
    if options.mace_method == "vb":
        a, b, s = options.mace_alpha, options.mace_beta, options.mace_strategy_prior
        norm = digamma(total + a + b)
        know_w = np.exp(digamma(known + b) - norm)
        spam_w = np.exp(digamma(spam + a) - norm)
        xi_w = np.exp(digamma(spam_l + s) - digamma(spam + q * s)[:, None])
        emission = _mace_table(know_w, spam_w, xi_w)
    else:  # crowd-kit's smoothing of the fractional counts, 0.01 / q
        a = b = s = 0.01 / q
        emission = _mace_table((known + b) / (total + a + b), (spam + a) / (total + a + b),
                               (spam_l + s) / (spam + q * s)[:, None])  # fmt: skip
    competence = (known + b) / (total + a + b)
    strategy = (spam_l + s) / (spam + q * s)[:, None]
    confusion = _mace_table(competence, 1 - competence, strategy)
    uniform = np.full(q, 1.0 / q)
    return Params(uniform, confusion, emission, competence=competence, strategy=strategy)


def _glad_objective(
    x: FloatArray, design: Design, target: FloatArray, options: Options
) -> tuple[float, FloatArray]:
    """Minus GLAD's expected complete log posterior and its gradient in ``(alpha, beta)``;
    ``target`` is each distinct rating's posterior probability of being right."""
    n_raters = design.n_raters
    params = _glad_params(x, design)
    z, log_right, log_wrong = _glad_terms(design, params)
    w = design.weight
    mu, var = options.glad_prior_mean, options.glad_prior_sd**2
    value = float(np.sum(w * (target * log_right + (1 - target) * log_wrong)))
    value -= float(np.sum((x - mu) ** 2)) / (2 * var)
    g = w * (target - np.exp(log_right))  # d/dz of each rating's term: t - sigma(z)
    assert params.difficulty is not None
    scale = np.exp(params.difficulty)
    d_alpha = np.bincount(design.rater, weights=g * scale[design.item], minlength=n_raters)
    d_beta = np.bincount(design.item, weights=g * z, minlength=design.n_items)
    grad = np.concatenate([d_alpha, d_beta]) - (x - mu) / var
    return -value, -grad


def _glad_params(x: FloatArray, design: Design) -> Params:
    q = design.q
    alpha, beta = x[: design.n_raters], x[design.n_raters :]
    uniform = np.full(q, 1.0 / q)
    return Params(uniform, np.empty((0, q, q)), np.empty((0, q, q)), alpha, None, beta)


def _m_glad(
    design: Design, posterior: FloatArray, options: Options, params: Params | None
) -> Params:
    """A partial M step (25 L-BFGS iterations from the current point, as crowd-kit's 25
    conjugate-gradient ones): a generalised EM with the same fixed point."""
    from scipy.optimize import minimize

    mu = options.glad_prior_mean
    if params is None:
        x0 = np.full(design.n_raters + design.n_items, mu)
    else:
        assert params.competence is not None and params.difficulty is not None
        x0 = np.concatenate([params.competence, params.difficulty])
    target = posterior[design.item, design.label]
    found = minimize(
        _glad_objective,
        x0,
        args=(design, target, options),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 25},
    )
    fitted = _glad_params(np.asarray(found.x, dtype=np.float64), design)
    return dataclasses.replace(fitted, confusion=glad_confusion(design, fitted))


def glad_confusion(design: Design, params: Params) -> FloatArray:
    """Each rater's average of GLAD's item-specific tables over the items they rated:
    ``sigma(alpha_r exp(beta_i))`` on the diagonal, the rest shared evenly, (n_raters, q, q)."""
    _, log_right, _ = _glad_terms(design, params)
    w = design.weight
    n = np.bincount(design.rater, weights=w, minlength=design.n_raters)
    right = np.bincount(design.rater, weights=w * np.exp(log_right), minlength=design.n_raters)
    skill = np.divide(right, n, out=np.full_like(n, np.nan), where=n > 0)
    return _one_coin_table(skill, design.q)


def _glad_log_prior(params: Params, options: Options) -> float:
    if params.difficulty is None or params.competence is None:
        return 0.0
    x = np.concatenate([params.competence, params.difficulty]) - options.glad_prior_mean
    return -float(np.sum(x**2)) / (2 * options.glad_prior_sd**2)


def m_step(
    design: Design,
    posterior: FloatArray,
    model: ModelName,
    options: Options,
    params: Params | None,
) -> Params:
    """The parameters that maximise the expected complete log-likelihood given
    ``posterior`` (MACE's variational step, GLAD's partial step)."""
    if model == "dawid-skene":
        return _m_dawid_skene(design, posterior, options)
    if model == "one-coin":
        return _m_one_coin(design, posterior, options)
    if model == "mace":
        return _m_mace(design, posterior, options, params)
    return _m_glad(design, posterior, options, params)


def fit_em(
    design: Design,
    model: ModelName,
    options: Options,
    start: Params | None = None,
    *,
    warn: bool = True,
    accelerate: bool = True,
) -> Fit:
    """EM from majority vote (or from ``start``) until it settles, or ``options.max_iter``
    iterations; a warning naming the model when it stops at the limit (see
    :func:`iterate`; ``accelerate=False``: plain EM steps only, as the bootstrap's refits
    from the fit take them)."""
    posterior = majority_posteriors(design) if start is None else e_step(design, start)[0]
    return iterate(
        lambda post, params: m_step(design, post, model, options, params),
        lambda params: e_step(design, params),
        posterior,
        start,
        model=model,
        options=options,
        n_ratings=design.n_ratings,
        warn=warn,
        accelerate=accelerate,
    )


def largest_move(after: FloatArray, before: FloatArray, rows: int = 1 << 16) -> float:
    """``max |after - before|`` over two arrays of the same shape, ``rows`` rows at a time
    (no temporary of their shape).

    >>> largest_move(np.array([[0.5, 0.5], [0.9, 0.1]]), np.array([[0.4, 0.6], [0.9, 0.1]]))
    0.09999999999999998
    """
    top = 0.0
    for lo in range(0, after.shape[0], rows):
        diff = after[lo : lo + rows] - before[lo : lo + rows]
        top = max(top, float(np.max(np.abs(diff, out=diff), initial=0.0)))
    return top


MStep = Callable[[FloatArray, "Params | None"], Params]
EStep = Callable[[Params], tuple[FloatArray, float]]


#: Models whose EM :func:`iterate` accelerates (SQUAREM): those of closed-form M steps,
#: whose parameters are the prevalence and the confusion matrices.
ACCELERATED: frozenset[str] = frozenset({"dawid-skene", "one-coin"})

#: EM steps taken plain before SQUAREM's: a fit that settles within them is that of plain
#: EM, step for step (on 10M realistic ratings, 9 steps; a jump there only costs passes).
PLAIN_STEPS = 10


def iterate(
    m: MStep,
    e: EStep,
    posterior: FloatArray,
    start: Params | None,
    *,
    model: ModelName,
    options: Options,
    n_ratings: float,
    warn: bool = True,
    accelerate: bool = True,
) -> Fit:
    """The EM loop of every model and engine: ``params = m(posterior, params)``, then
    ``posterior, ll = e(params)``, from ``posterior``, until it settles or
    ``options.max_iter`` iterations.

    EM has settled when both hold between two iterations: the log-likelihood gains less
    than ``options.tol`` per rating, and no item's posterior probability of any label moves
    by more than ``sqrt(options.tol)``. The second guards against a flat stretch of the
    likelihood, where the log-likelihood barely moves while the posteriors still do; near
    the optimum the log-likelihood changes with the square of the parameters' change, hence
    the square root.

    Dawid-Skene and one-coin (:data:`ACCELERATED`) take SQUAREM's steps (Varadhan & Roland
    2008, scheme S3) between pairs of EM steps once :data:`PLAIN_STEPS` plain ones have not
    settled: from the parameters ``t0`` and their two EM steps ``t1``, ``t2``, ``r = t1 -
    t0``, ``v = t2 - 2 t1 + t0`` and ``alpha = -|r| / |v|``, the parameters ``t0 - 2 alpha
    r + alpha^2 v`` (probabilities kept above 0 and rows summing to 1), kept only when
    their log-likelihood is at least that of ``t2`` (else EM goes on from ``t2``). EM then
    runs from the parameters kept: the fixed point and the rule that says it is reached are
    those of plain EM, in fewer steps where EM crawls (many raters with few ratings each:
    231 EM steps become 142 on 1M realistic ratings). Each log-likelihood kept is recorded:
    the path never falls. ``options.max_iter`` bounds the E steps, those of the steps not
    kept included. ``accelerate=False``: plain EM steps only.
    """
    scale = options.tol * max(n_ratings, 1.0)
    step = math.sqrt(options.tol)
    params, posterior, path, converged = _loop(
        m,
        e,
        posterior,
        start,
        (scale, step),
        options.max_iter,
        jumps=accelerate and model in ACCELERATED,
        log_prior=lambda params: _glad_log_prior(params, options),
    )
    if not converged and warn:
        warnings.warn(
            f"{model}: EM stopped at max_iter={options.max_iter} before the log-likelihood "
            f"and the posteriors settled (tol={options.tol:g} per rating, "
            f"{step:.2g} on a posterior); raise max_iter or tol",
            AccordWarning,
            stacklevel=user_stacklevel(),
        )
    assert params is not None
    return Fit(params, posterior, tuple(path), converged)


def _loop(
    m: MStep,
    e: EStep,
    posterior: FloatArray,
    start: Params | None,
    rule: tuple[float, float],
    most: int,
    *,
    jumps: bool,
    log_prior: Callable[[Params], float],
) -> tuple[Params | None, FloatArray, list[float], bool]:
    """:func:`iterate`'s loop, at most ``most`` E steps, with SQUAREM's steps between pairs
    of EM steps when ``jumps``: the parameters, posteriors and path it ends on, and whether
    EM settled (``rule``: the largest gain of the log-likelihood and move of a posterior;
    ``log_prior``: what the path adds to each log-likelihood, GLAD's log prior)."""
    scale, step = rule
    path: list[float] = []
    params, base = start, start  # base: where the pair of EM steps started (t0)
    pair: list[Params] = []
    evaluations = 0
    while evaluations < most:
        params = m(posterior, params)
        before, (posterior, ll) = posterior, e(params)
        evaluations += 1
        path.append(ll + log_prior(params))
        settled = len(path) > 1 and abs(path[-1] - path[-2]) <= scale
        if settled and largest_move(posterior, before) <= step:
            return params, posterior, path, True
        del before  # two arrays of posteriors during a step, not three
        if not jumps:
            continue
        pair.append(params)
        if len(pair) < 2:
            continue
        jump = None
        if base is not None and len(path) >= PLAIN_STEPS:  # EM crawls: a jump is tried
            jump = squarem_step(base, pair[0], pair[1])
        pair = []
        base = params
        if jump is None or evaluations >= most:
            continue
        jumped, ll_jump = e(jump)
        evaluations += 1
        if ll_jump >= ll:  # the jump kept: EM goes on from it
            posterior, params, base = jumped, jump, jump
            path.append(ll_jump)
        del jumped
    return params, posterior, path, False


def squarem_step(t0: Params, t1: Params, t2: Params) -> Params | None:
    """SQUAREM's extrapolation (scheme S3) from parameters ``t0`` and their two EM steps;
    None when it would not move past ``t2`` (``alpha`` at least -1).

    The prevalence and every row of the confusion matrices stay probabilities: an entry the
    extrapolation would take below half its value at ``t2`` is held there and the rows are
    summed to 1 again (one-coin: the accuracy is extrapolated, within ``FLOOR`` of 0 and 1,
    and its table rebuilt).

    >>> import numpy as np
    >>> def params(prior):
    ...     p = np.array(prior)
    ...     return Params(p, np.eye(2)[None] * 0.8 + 0.1, np.eye(2)[None] * 0.8 + 0.1)
    >>> t = [params([0.5, 0.5]), params([0.6, 0.4]), params([0.65, 0.35])]
    >>> step = squarem_step(*t)
    >>> step.prior.round(3).tolist()  # EM halves its step: the limit 0.7 is reached at once
    [0.7, 0.3]
    """

    one_coin = t2.competence is not None  # a skill a rater, its table rebuilt from it

    def flat(p: Params) -> FloatArray:
        skill = p.competence if one_coin else p.confusion.ravel()
        assert skill is not None
        return np.concatenate([p.prior, skill])

    x0, x1, x2 = flat(t0), flat(t1), flat(t2)
    r, v = x1 - x0, x2 - 2 * x1 + x0
    size = float(np.sqrt(v @ v))
    if not size or not np.isfinite(size):
        return None
    alpha = -float(np.sqrt(r @ r)) / size
    if alpha >= -1.0:
        return None
    x = x0 - 2 * alpha * r + alpha**2 * v
    if not np.all(np.isfinite(x)):
        return None
    q = t2.prior.size
    prior = _held_above(x[:q], t2.prior)
    if one_coin:
        skill = np.clip(x[q:], FLOOR, 1 - FLOOR)
        table = _one_coin_table(skill, q)
        return Params(prior, table, table, competence=skill)
    confusion = _held_above(x[q:].reshape(t2.confusion.shape), t2.confusion)
    return Params(prior, confusion, confusion)


def _held_above(x: FloatArray, reached: FloatArray) -> FloatArray:
    """``x`` held at half of ``reached`` or above, its last axis summed to 1."""
    held = np.maximum(x, 0.5 * reached)
    out: FloatArray = held / held.sum(axis=-1, keepdims=True)
    return out
