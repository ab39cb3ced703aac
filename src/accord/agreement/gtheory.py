"""Generalizability theory: G-studies (variance components) and D-studies (coefficients).

A G-study estimates the variance of every effect of a design (persons, raters, occasions,
their interactions, the residual); a D-study asks how reliable the mean over ``n'`` raters
and ``n'`` occasions would be: the generalizability coefficient ``E rho^2`` (relative
decisions) and the dependability coefficient ``Phi`` (absolute decisions), with their
standard errors of measurement (Cronbach et al. 1972; Brennan 2001).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, Never

import numpy as np
import pandas as pd

from .._errors import InvalidInputError, warn_degenerate
from .._interval import chi2_quantile
from .._methods import MethodsFormat, g_study_methods
from .._results import Result, plain_fields
from .._types import FloatArray
from .._validate import check_choice
from ..data.source import refuse_read_options
from .gtheory_design import (
    DEFAULT_COLUMNS,
    CodedScores,
    Design,
    Effect,
    code_scores,
    parse_design,
)
from .gtheory_reml import fit_components

__all__ = [
    "DStudy",
    "GMethod",
    "GStudy",
    "anova_from_terms",
    "d_study",
    "g_study",
    "g_study_from_components",
    "g_study_from_scores",
    "g_study_from_terms",
]

GMethod = Literal["auto", "anova", "reml"]
Coefficient = Literal["phi", "g"]


@dataclasses.dataclass(frozen=True, slots=True)
class GStudy(Result):
    """The variance components of a design.

    Attributes
    ----------
    design : str
        The design as written (``"p x r x o"``).
    nesting : str
        What is nested in what, and what is crossed.
    facets : dict of str to str
        Each facet's column.
    object : str
        The object of measurement.
    components : pandas.DataFrame
        One row per effect (Brennan's names, the residual last): ``effect``, ``variance``,
        ``percent``, and with ANOVA ``df``, ``sum_of_squares``, ``mean_square``,
        ``standard_error`` (Brennan 2001, eq. 6.1), ``df_satterthwaite``, ``ci_low``,
        ``ci_high`` (Satterthwaite's interval at ``confidence_level``); with REML
        ``standard_error`` (the inverse observed information of the REML likelihood in the
        variances), ``df_satterthwaite`` (``2 v^2 / se^2``), ``ci_low``, ``ci_high``
        (Satterthwaite's; NaN, with a note, for an estimate at the boundary 0).
    sample_sizes : dict of str to float
        Levels of each facet in the data (within one level of its parents; the harmonic
        mean over objects of an incomplete design's scores per object and facet is not used:
        a D-study names its sizes).
    n_scores : int
    balanced : bool
    method : str
        ``"anova"`` (expected mean squares) or ``"reml"``.
    confidence_level : float
    notes : tuple of str
    """

    design: str
    nesting: str
    facets: Mapping[str, str]
    object: str
    components: pd.DataFrame
    sample_sizes: Mapping[str, float]
    n_scores: int
    balanced: bool
    method: str
    confidence_level: float
    notes: tuple[str, ...]
    effects: tuple[Effect, ...] = dataclasses.field(repr=False, compare=False, default=())
    parents: Mapping[str, frozenset[str]] = dataclasses.field(
        repr=False, compare=False, default_factory=dict
    )

    def variance(self, effect: str) -> float:
        """The variance component of ``effect`` (Brennan's name, e.g. ``"pr"``)."""
        rows = self.components.loc[self.components["effect"] == effect, "variance"]
        if rows.empty:
            names = list(self.components["effect"])
            raise InvalidInputError(f"no effect {effect!r} in the design; effects: {names}")
        return float(rows.iloc[0])

    def to_frame(self) -> pd.DataFrame:
        """The components table."""
        return self.components.copy()

    def methods_text(self, best: pd.Series | None = None, format: MethodsFormat = "text") -> str:
        """A methods paragraph: the design, the estimation and the components, and the
        D-study row ``best`` (:meth:`DStudy.smallest`) when given; with its references.
        ``format``: ``"text"`` or ``"markdown"``."""
        return g_study_methods(self, None if best is None else best.to_dict(), format)

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of the fields."""
        return plain_fields(self, ("effects", "parents"))


def _facet_columns(design: Design, facets: Mapping[str, str] | None) -> dict[str, str]:
    given = dict(facets or {})
    unknown = set(given) - set(design.facets)
    if unknown:
        raise InvalidInputError(
            f"facets names {sorted(unknown)}, which the design {design.text!r} does not have; "
            f"its facets: {list(design.facets)}"
        )
    return {f: given.get(f, DEFAULT_COLUMNS.get(f, f)) for f in design.facets}


def _t_terms(scores: CodedScores) -> dict[tuple[str, ...], float]:
    """Brennan's T terms of a balanced design: ``T(a) = prod_{f not in a} n_f sum mean_a^2``."""
    facets = scores.design.facets
    shape = tuple(scores.per_parent[f] for f in facets)
    cube = np.empty(shape)
    cube[tuple(scores.local[f] for f in facets)] = scores.y
    total = float(np.prod(shape))
    out: dict[tuple[str, ...], float] = {(): total * float(cube.mean()) ** 2}
    for e in scores.design.effects:
        axes = tuple(i for i, f in enumerate(facets) if f not in e.facets)
        means = cube.mean(axis=axes) if axes else cube
        out[e.facets] = total / float(means.size) * float(np.sum(means * means))
    return out


def _anova_table(scores: CodedScores, level: float) -> pd.DataFrame:
    """Sums of squares, mean squares and the components solved from their expectations."""
    return anova_from_terms(scores.design, _t_terms(scores), scores.per_parent, level)


def anova_from_terms(
    design: Design,
    t: Mapping[tuple[str, ...], float],
    n: Mapping[str, int],
    level: float,
) -> pd.DataFrame:
    """The ANOVA table of a balanced design from Brennan's T terms (``t``, keyed by the
    facets of each effect, ``()`` for the grand mean) and the levels ``n`` of each facet
    (within one level of its parents)."""
    effects = design.effects
    ss, df = [], []
    for e in effects:
        s = 0.0
        for size in range(len(e.primary) + 1):
            for drop in itertools.combinations(e.primary, size):
                s += (-1) ** size * t[tuple(f for f in e.facets if f not in drop)]
        ss.append(max(s, 0.0) if e is effects[-1] else s)
        df.append(
            math.prod(n[f] - 1 for f in e.primary)
            * math.prod(n[f] for f in e.facets if f not in e.primary)
        )
    k = np.array(
        [
            [
                math.prod(n[f] for f in design.facets if f not in b.facets)
                if set(a.facets) <= set(b.facets)
                else 0.0
                for b in effects
            ]
            for a in effects
        ],
        dtype=np.float64,
    )
    dfa = np.asarray(df, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        ms = np.asarray(ss) / dfa
        coef = np.asarray(np.linalg.inv(k), dtype=np.float64)  # sigma^2 = K^-1 E[MS]
    return _anova_frame(effects, np.asarray(ss), dfa, ms, coef, level)


def _percent(var: FloatArray) -> FloatArray:
    """Each component's share of their sum, negative estimates counted as 0 (NaN: no
    variance)."""
    positive = np.maximum(var, 0.0)
    total = float(positive.sum())
    out: FloatArray = 100.0 * positive / total if total > 0 else np.full(var.size, np.nan)
    return out


def _anova_frame(
    effects: Sequence[Effect],
    ss: FloatArray,
    df: FloatArray,
    ms: FloatArray,
    coef: FloatArray,
    level: float,
) -> pd.DataFrame:
    var = coef @ ms
    terms = coef * ms[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(np.sum(2.0 * terms**2 / (df[None, :] + 2.0), axis=1))
        nu = var**2 / np.sum(terms**2 / df[None, :], axis=1)
    return _interval_frame(
        effects, var, se, nu, level, {"df": df, "sum_of_squares": ss, "mean_square": ms}
    )


def _interval_frame(
    effects: Sequence[Effect],
    var: FloatArray,
    se: FloatArray,
    nu: FloatArray,
    level: float,
    first: Mapping[str, FloatArray],
) -> pd.DataFrame:
    """The components table: ``effect``, the columns ``first``, ``variance``, ``percent``,
    ``standard_error``, ``df_satterthwaite`` and Satterthwaite's ``ci_low``, ``ci_high``."""
    low, high = _satterthwaite_limits(var, nu, level)
    return pd.DataFrame(
        {
            "effect": [e.name for e in effects],
            **first,
            "variance": var,
            "percent": _percent(var),
            "standard_error": se,
            "df_satterthwaite": nu,
            "ci_low": low,
            "ci_high": high,
        }
    )


def _satterthwaite_limits(
    var: FloatArray, nu: FloatArray, level: float
) -> tuple[list[float], list[float]]:
    """Satterthwaite's interval ``nu v / chi2_{nu, 1 - a/2}`` to ``nu v / chi2_{nu, a/2}`` of
    each component ``v`` with ``nu`` degrees of freedom (NaN: ``v`` or ``nu`` not positive)."""
    alpha = 1.0 - level
    low, high = [], []
    for v, d in zip(var, nu, strict=True):
        ok = v > 0 and math.isfinite(d) and d > 0
        lo_q = chi2_quantile(alpha / 2, d) if ok else 0.0
        low.append(d * v / chi2_quantile(1 - alpha / 2, d) if ok else math.nan)
        high.append(d * v / lo_q if lo_q > 0 else math.nan)
    return low, high


def _start(scores: CodedScores) -> FloatArray | None:
    """Variance ratios to start REML from: the ANOVA of the objects with every cell."""
    complete = scores.complete_objects()
    if complete is None:
        return None
    with np.errstate(all="ignore"):
        var = _anova_table(complete, 0.95)["variance"].to_numpy()
    if not (var[-1] > 0 and np.all(np.isfinite(var))):
        return None
    out: FloatArray = np.maximum(var[:-1] / var[-1], 1e-3)
    return out


def _reml_table(scores: CodedScores, level: float) -> tuple[pd.DataFrame, list[str]]:
    """REML components with Satterthwaite's intervals: ``nu = 2 v^2 / var(v)``, ``var(v)``
    from the inverse observed information (SAS PROC MIXED's ``CL`` option)."""
    effects = scores.design.effects
    fit = fit_components(scores, effects[:-1], _start(scores))
    var = fit.variances
    notes = [] if fit.converged else ["the REML optimiser reported no convergence"]
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(np.diag(fit.covariance))
        nu = 2.0 * var**2 / se**2
    boundary = [e.name for e, s in zip(effects, se, strict=True) if not math.isfinite(s)]
    if boundary:
        notes.append(
            f"REML estimates with no interval ({', '.join(boundary)}): at the boundary 0"
            " or a singular information"
        )
    return _interval_frame(effects, var, se, nu, level, {}), notes


def g_study_from_scores(
    scores: CodedScores,
    *,
    method: GMethod = "auto",
    confidence_level: float = 0.95,
    facets: Mapping[str, str] | None = None,
) -> GStudy:
    """A G-study of coded scores (:func:`accord.agreement.gtheory_design.code_scores`)."""
    check_choice("method", method, ("auto", "anova", "reml"), "g_study")
    design = scores.design
    notes = list(scores.notes)
    if method == "anova" and not scores.balanced:
        raise InvalidInputError(
            "g_study: ANOVA needs a balanced design (one score in every cell, the same number "
            "of nested levels in every parent); pass method='reml'"
        )
    use_anova = method == "anova" or (method == "auto" and scores.balanced)
    if use_anova:
        table = _anova_table(scores, confidence_level)
        notes += _negative_notes(table)
    else:
        table, reml_notes = _reml_table(scores, confidence_level)
        notes += reml_notes
    total = float(table["variance"].clip(lower=0).sum())
    if not total > 0:
        warn_degenerate("every score is the same: no variance to decompose", stacklevel=3)
    return GStudy(
        design=design.text,
        nesting=design.nesting(),
        facets=dict(facets or {f: f for f in design.facets}),
        object=design.object,
        components=table,
        sample_sizes={f: float(scores.per_parent[f]) for f in design.facets},
        n_scores=scores.n_scores,
        balanced=scores.balanced,
        method="anova" if use_anova else "reml",
        confidence_level=confidence_level,
        notes=tuple(notes),
        effects=design.effects,
        parents=design.parents,
    )


def _negative_notes(table: pd.DataFrame) -> list[str]:
    if not (table["variance"] < 0).any():
        return []
    neg = ", ".join(table.loc[table["variance"] < 0, "effect"])
    return [f"negative ANOVA estimates ({neg}) are set to 0 in the D-study"]


def g_study_from_terms(
    design: Design,
    t: Mapping[tuple[str, ...], float],
    per_parent: Mapping[str, int],
    n_scores: int,
    *,
    confidence_level: float = 0.95,
    facets: Mapping[str, str] | None = None,
    notes: Sequence[str] = (),
) -> GStudy:
    """The ANOVA G-study of a balanced design from its T terms (:func:`anova_from_terms`),
    as sums over the scores give them (the stream engine's fold); ``notes``: what was read."""
    table = anova_from_terms(design, t, per_parent, confidence_level)
    if not float(table["variance"].clip(lower=0).sum()) > 0:
        warn_degenerate("every score is the same: no variance to decompose", stacklevel=3)
    return GStudy(
        design=design.text,
        nesting=design.nesting(),
        facets=dict(facets or {f: f for f in design.facets}),
        object=design.object,
        components=table,
        sample_sizes={f: float(per_parent[f]) for f in design.facets},
        n_scores=n_scores,
        balanced=True,
        method="anova",
        confidence_level=confidence_level,
        notes=(*notes, *_negative_notes(table)),
        effects=design.effects,
        parents=design.parents,
    )


def g_study(
    data: pd.DataFrame | Mapping[str, Any],
    *,
    design: str = "p x r",
    score: str = "score",
    facets: Mapping[str, str] | None = None,
    method: GMethod = "auto",
    confidence_level: float = 0.95,
    object_facet: str | None = None,
    **read_options: Never,
) -> GStudy:
    r"""Variance components of a generalizability (G) study.

    For a balanced design the components solve the expected mean squares (Brennan 2001,
    ch. 3): ``E MS(a) = sum_{b >= a} pi(b-bar) s2(b)``, the sum over the effects ``b`` that
    contain every facet of ``a``, ``pi(b-bar)`` the product of the sample sizes of the facets
    not in ``b``. For ``p x r``:

    .. math::

        \hat\sigma^2(p) = \frac{MS_p - MS_{pr}}{n_r}, \quad
        \hat\sigma^2(r) = \frac{MS_r - MS_{pr}}{n_p}, \quad
        \hat\sigma^2(pr,e) = MS_{pr}

    Unbalanced and incomplete designs are fitted by REML (every effect random).

    Parameters
    ----------
    data : DataFrame or mapping of column to values
        One row a score, with a column per facet and the score column.
    design : str, default "p x r"
        Facets crossed with ``x`` and nested with ``:``, grouped with parentheses:
        ``"p x r"``, ``"p x r x o"``, ``"r:p"`` (raters nested in persons), ``"p x (r:o)"``,
        ``"(p:s) x r"``.
    score : str, default "score"
        The score column.
    facets : mapping of facet to column, optional
        The column of each facet; by default ``p`` reads ``item``, ``r`` ``rater``, ``o``
        ``occasion``, ``t`` ``task``, ``s`` ``site``, and any other facet its own name.
    method : {"auto", "anova", "reml"}, default "auto"
        ``"anova"``: expected mean squares (balanced designs only). ``"reml"``: restricted
        maximum likelihood. ``"auto"``: ANOVA when balanced, else REML.
    confidence_level : float, default 0.95
        Of the Satterthwaite intervals of the ANOVA components.
    object_facet : str, optional
        The object of measurement: by default ``p``, or else the first facet written that is
        nested in no other.

    Returns
    -------
    GStudy
        ``components`` (effect, variance, percent; with ANOVA the df, sums of squares, mean
        squares, standard errors and intervals; with REML standard errors and intervals), the
        sizes, ``method`` and ``nesting``.

    Raises
    ------
    InvalidInputError
        A design that cannot be read, a missing column, a non-numeric score, a design that
        crosses facets the data nest (each rater with one person under ``"p x r"``), or
        ``method="anova"`` on an unbalanced design.

    Notes
    -----
    Nested facets are identified within their parents: under ``"r:p"`` rater ``1`` of person
    ``a`` and rater ``1`` of person ``b`` are two raters. ANOVA estimates can be negative;
    they are reported as estimated and set to 0 in a D-study (Brennan 2001, sec. 3.4.3).
    Standard errors are Brennan's eq. (6.1), ``sqrt(sum 2 (c MS)^2 / (df + 2))``, and the
    intervals Satterthwaite's (Brennan 2001, sec. 6.1.2). REML components are not negative;
    their standard errors are the square roots of the diagonal of the inverse observed information
    (half the Hessian of the REML deviance in the variances, by central differences of its analytic
    gradient) and their intervals Satterthwaite's with ``nu = 2 v^2 / se^2`` degrees of freedom,
    ``nu v / chi2_{nu, 1 - a/2}`` to ``nu v / chi2_{nu, a/2}``: the convention of SAS PROC MIXED's
    ``CL`` option for variance components (SAS/STAT User's Guide, "COVTEST and CL"; Satterthwaite
    1946), chosen over a Wald interval ``v -+ z se`` because it stays above 0 and is skewed as a
    variance's sampling distribution is, and because on a balanced design, where REML equals ANOVA
    (no component negative), it is the ANOVA Satterthwaite interval. lme4's ``confint`` profiles the
    likelihood instead and can differ in small samples.
    On a complete one-facet design ``p x r`` the D-study coefficients at ``n'_r = n_r`` are
    the ICCs: ``E rho^2`` = ICC(C,k) and ``Phi`` = ICC(A,k) (McGraw & Wong 1996).

    References
    ----------
    .. [1] Brennan, R. L. (2001). Generalizability Theory. Springer.
       https://doi.org/10.1007/978-1-4757-3456-0
    .. [2] Cronbach, L. J., Gleser, G. C., Nanda, H., & Rajaratnam, N. (1972). The
       Dependability of Behavioral Measurements. Wiley.
    .. [3] Shavelson, R. J., & Webb, N. M. (1991). Generalizability Theory: A Primer. Sage.

    Examples
    --------
    Shrout & Fleiss (1979), 6 targets x 4 judges, as a long table:

    >>> import pandas as pd
    >>> y = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9],
    ...      [6, 2, 4, 7]]
    >>> scores = pd.DataFrame([(i, j, v) for i, row in enumerate(y) for j, v in enumerate(row)],
    ...                       columns=["item", "rater", "score"])
    >>> g = g_study(scores, design="p x r")
    >>> g.components[["effect", "variance"]].round(4).values.tolist()
    [['p', 2.5556], ['r', 5.2444], ['pr', 1.0194]]
    """
    refuse_read_options("g_study", read_options)
    design_ = parse_design(design, object_facet)
    columns = _facet_columns(design_, facets)
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(dict(data))
    scores = code_scores(frame, design_, columns, score)
    return g_study_from_scores(
        scores, method=method, confidence_level=confidence_level, facets=columns
    )


def g_study_from_components(design: str, components: Mapping[str, float]) -> GStudy:
    """A G-study from variance components known beforehand (a published G-study, a pilot),
    for a D-study: ``components`` maps each effect of ``design`` (Brennan's names, e.g.
    ``"pr"``, ``"pr:o"``; the highest effect is the residual) to its variance.

    >>> g = g_study_from_components("p x r", {"p": 2.56, "r": 5.24, "pr": 1.02})
    >>> round(float(d_study(g, {"r": 4}).table["phi"].iloc[0]), 3)
    0.62
    """
    design_ = parse_design(design)
    names = [e.name for e in design_.effects]
    unknown = sorted(set(components) - set(names))
    missing = [n for n in names if n not in components]
    if unknown or missing:
        raise InvalidInputError(
            f"the components of {design!r} are {names}; got "
            + (f"unknown {unknown}" if unknown else f"none for {missing}")
        )
    var = np.array([float(components[n]) for n in names])
    if not np.all(np.isfinite(var)) or (var < 0).any():
        raise InvalidInputError(f"variance components must be finite and >= 0; got {var.tolist()}")
    table = pd.DataFrame({"effect": names, "variance": var, "percent": _percent(var)})
    return GStudy(
        design=design,
        nesting=design_.nesting(),
        facets={f: f for f in design_.facets},
        object=design_.object,
        components=table,
        sample_sizes={f: 1.0 for f in design_.facets},
        n_scores=0,
        balanced=True,
        method="given",
        confidence_level=math.nan,
        notes=(),
        effects=design_.effects,
        parents=design_.parents,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class DStudy(Result):
    """A D-study table: coefficients and SEMs for numbers of levels of the facets.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per combination of sizes: a column ``n_<facet>`` per facet, then
        ``universe_variance``, ``relative_error_variance``, ``absolute_error_variance``,
        ``sem_relative``, ``sem_absolute``, ``g_coefficient`` (E rho^2), ``phi``.
    design : str
    facets : tuple of str
        The facets whose sizes vary (all but the object and what it is nested in).
    """

    table: pd.DataFrame
    design: str
    facets: tuple[str, ...]

    def to_frame(self) -> pd.DataFrame:
        """The table."""
        return self.table.copy()

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dict of the fields."""
        return plain_fields(self)

    def smallest(self, target: float = 0.8, coefficient: Coefficient = "phi") -> pd.Series:
        """The row with the fewest scores per object (the product of the sizes; then the
        fewest levels in all) whose ``coefficient`` reaches ``target``.

        Raises
        ------
        InvalidInputError
            When no row of the table reaches it (name larger sizes).
        """
        check_choice("coefficient", coefficient, ("phi", "g"), "DStudy.smallest")
        column = "phi" if coefficient == "phi" else "g_coefficient"
        hits = self.table[self.table[column] >= target]
        if hits.empty:
            best = float(self.table[column].max())
            raise InvalidInputError(
                f"no design in the D-study reaches {column} >= {target} (the largest is "
                f"{best:.3f}); try larger numbers of levels"
            )
        sizes = hits[[f"n_{f}" for f in self.facets]]
        order = np.lexsort((sizes.sum(axis=1).to_numpy(), sizes.prod(axis=1).to_numpy()))
        return hits.iloc[int(order[0])]


def _divisor(effect: Effect, facets: Sequence[str], sizes: Mapping[str, float]) -> float:
    return math.prod(sizes[f] for f in effect.facets if f in facets)


def _coefficients(g: GStudy, facets: Sequence[str], sizes: Mapping[str, float]) -> list[float]:
    var = dict(zip(g.components["effect"], g.components["variance"].clip(lower=0), strict=True))
    tau = rel = ab = 0.0
    above = set(g.parents.get(g.object, frozenset())) | {g.object}
    for e in g.effects:
        v = float(var[e.name])
        if set(e.facets) <= above:
            tau += v
            continue
        share = v / _divisor(e, facets, sizes)
        ab += share
        if set(e.facets) & above:
            rel += share
    with np.errstate(invalid="ignore", divide="ignore"):
        g_coef = tau / (tau + rel) if tau + rel > 0 else math.nan
        phi = tau / (tau + ab) if tau + ab > 0 else math.nan
    return [tau, rel, ab, math.sqrt(rel), math.sqrt(ab), g_coef, phi]


def d_study(
    g: GStudy,
    sizes: Mapping[str, int | Iterable[int]] | None = None,
) -> DStudy:
    r"""Generalizability and dependability coefficients for numbers of levels of the facets.

    With ``tau`` the universe-score variance (the effects of the object and of what it is
    nested in), each other effect divided by the product of the D-study sizes ``n'`` of its
    facets:

    .. math::

        \sigma^2(\delta) = \sum_{a \ni p} \frac{\sigma^2(a)}{\pi'(a)}, \quad
        \sigma^2(\Delta) = \sum_{a \neq \tau} \frac{\sigma^2(a)}{\pi'(a)}, \quad
        E\rho^2 = \frac{\tau}{\tau + \sigma^2(\delta)}, \quad
        \Phi = \frac{\tau}{\tau + \sigma^2(\Delta)}

    (relative error: the effects that contain the object and a facet; absolute error: every
    effect with a facet). The SEMs are ``sqrt(sigma^2(delta))`` and
    ``sqrt(sigma^2(Delta))``.

    Parameters
    ----------
    g : GStudy
    sizes : mapping of facet to int or iterable of int, optional
        The numbers of levels to tabulate for each facet (a nested facet: per level of its
        parents); every combination is a row. By default 1 to 10 for one facet, 1 to 6 for
        two, 1 to 4 for more, and the G-study's sizes.

    Returns
    -------
    DStudy
        The table and ``smallest(target, coefficient)``: the fewest scores per object
        that reach ``Phi`` (or ``E rho^2``) >= target.

    Examples
    --------
    Shrout & Fleiss (1979): one judge, and four, reproduce their Table 2 (ICC(3,1) = 0.71,
    ICC(2,1) = 0.29, ICC(3,4) = 0.91, ICC(2,4) = 0.62); Phi >= 0.8 needs ten judges:

    >>> import pandas as pd
    >>> y = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9],
    ...      [6, 2, 4, 7]]
    >>> scores = pd.DataFrame([(i, j, v) for i, row in enumerate(y) for j, v in enumerate(row)],
    ...                       columns=["item", "rater", "score"])
    >>> d = d_study(g_study(scores, design="p x r"), {"r": range(1, 21)})
    >>> d.table.loc[[0, 3], ["n_r", "g_coefficient", "phi"]].round(2).values.tolist()
    [[1.0, 0.71, 0.29], [4.0, 0.91, 0.62]]
    >>> int(d.smallest(0.8, "phi")["n_r"])
    10
    """
    above = set(g.parents.get(g.object, frozenset())) | {g.object}
    facets = tuple(f for f in g.sample_sizes if f not in above)
    grid = _grid(g, facets, sizes)
    rows = []
    for combo in itertools.product(*(grid[f] for f in facets)):
        n = dict(zip(facets, (float(c) for c in combo), strict=True))
        rows.append([int(c) for c in combo] + _coefficients(g, facets, n))
    columns = [f"n_{f}" for f in facets] + [
        "universe_variance",
        "relative_error_variance",
        "absolute_error_variance",
        "sem_relative",
        "sem_absolute",
        "g_coefficient",
        "phi",
    ]
    return DStudy(pd.DataFrame(rows, columns=columns), g.design, facets)


def _grid(
    g: GStudy, facets: Sequence[str], sizes: Mapping[str, int | Iterable[int]] | None
) -> dict[str, list[int]]:
    given = dict(sizes or {})
    unknown = set(given) - set(facets)
    if unknown:
        raise InvalidInputError(
            f"d_study sizes name {sorted(unknown)}, not facets of the D-study; its facets: "
            f"{list(facets)}"
        )
    top = {1: 10, 2: 6}.get(len(facets), 4)
    out: dict[str, list[int]] = {}
    for f in facets:
        raw = given.get(f)
        if raw is None:
            values = sorted(set(range(1, top + 1)) | {int(g.sample_sizes[f])})
        else:
            values = [int(raw)] if isinstance(raw, int | np.integer) else [int(v) for v in raw]
        if not values or min(values) < 1:
            raise InvalidInputError(f"d_study sizes for {f!r} must be integers >= 1; got {raw!r}")
        out[f] = values
    return out
