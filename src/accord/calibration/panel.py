"""Calibration with confidence: item values and rater biases from a panel's scores.

MacKay, Kenna, Low & Parker (2017). Every rater ``a`` scores some items ``o`` with
``s_ao = v_o + b_a + sigma_ao * eps`` and confidence ``c_ao = 1 / sigma_ao^2``; the values and
biases minimise ``sum c_ao (s_ao - v_o - b_a)^2`` subject to a gauge.

The estimator works on :class:`~._input.Assessments` (one row per assessment, or one per
(item, rater) pair with the pair's sums) and never reads a file: :func:`calibrate_assessments`
fits them, :func:`calibrate_panel_from_statistics` fits a panel's merged
:class:`~accord.PanelStatistics`. The fit runs in named steps: the design (components, degrees
of freedom, solver), the noise scale and estimated reliabilities, the final solve in the
gauge, the posterior variances, and the values, biases and residuals tables.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd

from .._errors import ConvergenceError, InvalidInputError, option, warn_degenerate
from .._methods import MethodsFormat, calibration_methods
from .._results import Result, to_plain
from .._types import FloatArray, IntArray, as_generator
from .._validate import SHOW, counted
from ..data.ratings import ReadReport
from ..stats.panel import PanelStatistics
from . import _linalg
from ._input import Assessments, listed
from ._spec import FitOptions

__all__ = [
    "EXACT_LIMIT",
    "FIEDLER_LIMIT",
    "PanelCalibration",
    "calibrate_assessments",
    "calibrate_panel_from_statistics",
]

EXACT_LIMIT = 2000
"""``uncertainty="auto"`` inverts exactly when the smaller side has at most this many members."""

FIEDLER_LIMIT = 1_000_000
"""``connectivity="auto"`` computes the algebraic connectivity up to this many rater-item pairs."""

Method = Literal["full", "schur-raters", "schur-items"]


@dataclasses.dataclass(frozen=True, slots=True)
class PanelCalibration(Result):
    """Result of :func:`calibrate_panel`.

    Attributes
    ----------
    values : pandas.DataFrame
        One row per item: ``item``, ``value`` (calibrated), ``sd`` (posterior standard
        deviation), ``confidence`` (``C_o``, the summed confidence), ``plain_mean`` (the
        unweighted mean score, the baseline), ``n`` (assessments), ``component``.
    biases : pandas.DataFrame
        One row per rater: ``rater``, ``bias``, ``sd``, ``confidence`` (``C_a``), ``n``,
        ``residual_rms`` (root mean square raw residual, score units), ``chi2`` (sum of
        ``c r^2`` divided by ``variance_scale``), ``expected_chi2`` (sum of ``1 - leverage``:
        what ``chi2`` would be on average if the rater's declared confidences were right),
        ``misfit`` (``chi2 / expected_chi2``; well above 1: residuals larger than the declared
        confidence allows), ``misfit_pvalue`` (upper tail of chi-square with
        ``expected_chi2`` degrees of freedom; a screening figure), ``component``.
    residuals : pandas.DataFrame
        One row per assessment, in input order (kept rows): ``item``, ``rater``, ``score``,
        ``confidence`` (``c`` as used), ``fitted`` (``v_o + b_a``), ``residual``,
        ``leverage`` (``c Var(v_o + b_a)``, unscaled) and ``standardized``
        (``residual sqrt(c) / sqrt(variance_scale (1 - leverage))``, NaN where leverage is 1
        or no uncertainty was computed).
    n_items, n_raters, n_assessments, n_components : int
    algebraic_connectivity : float
        Second-smallest eigenvalue of the normalised Laplacian of the confidence-weighted
        rater-item graph, in ``[0, 2]``: 0 for a disconnected design, near 0 for a design held
        together by few links (values then rest on long chains of comparisons). NaN with
        ``connectivity=False`` (and with ``"auto"`` above 1M rater-item pairs).
    residual : float
        ``R = sum c (s - v - b)^2``.
    dof : int
        ``E - n_items - n_raters + n_components``.
    residual_per_dof : float
        ``R / dof``: near 1 when declared (absolute) confidences are right; well above 1 means
        raters are over-confident or the additive model does not fit.
    variance_scale : float
        Factor applied to the unscaled variances (``R / dof`` when confidences are relative,
        else 1).
    confidence_source : str
        ``"confidence"``, ``"sigma"``, ``"range"``, ``"levels"`` or ``"equal"``.
    relative : bool
        Whether confidences were treated as relative (variances scaled by ``R / dof``).
    gauge : str
        ``"sum"`` (``sum b = 0``), ``"weighted"`` (``sum C_a b = 0``), or ``"prior"`` when a
        bias prior fixes the location (then ``sum b = 0`` holds in every component).
    per_component : bool
    reliability : str
    reliability_iterations : int
        Reweighting rounds for ``reliability="estimate"`` (0 otherwise).
    bias_prior : float or None
        The prior standard deviation of the biases, in score units.
    uncertainty : str
        ``"exact"``, ``"sample"`` (perturb and solve, ``n_samples`` draws) or ``"none"``.
    n_samples : int
    solver : str
        ``"full"``, ``"schur-raters"`` or ``"schur-items"``.
    iterations : int
        Conjugate-gradient iterations of the final solve.
    converged : bool
        Always True on return (the solver raises otherwise); kept for reports.
    solver_residual : float
        ``||rhs - N x|| / ||rhs||`` at the returned solution.
    n_dropped : int
        Rows dropped for a missing score or confidence (``missing="omit"``).
    method : str
        The variant, in words.
    report : ReadReport or None
        What was read, used and dropped and why (rows, assessments used, items, raters,
        rows with a missing score or confidence, repeated (item, rater) pairs resolved by
        ``duplicates``), as :attr:`accord.Ratings.report` says it for ratings.
    """

    values: pd.DataFrame
    biases: pd.DataFrame
    residuals: pd.DataFrame
    n_items: int
    n_raters: int
    n_assessments: int
    n_components: int
    algebraic_connectivity: float
    residual: float
    dof: int
    residual_per_dof: float
    variance_scale: float
    confidence_source: str
    relative: bool
    gauge: str
    per_component: bool
    reliability: str
    reliability_iterations: int
    bias_prior: float | None
    uncertainty: str
    n_samples: int
    solver: str
    iterations: int
    converged: bool
    solver_residual: float
    n_dropped: int
    method: str
    report: ReadReport | None = None

    def to_dict(self, *, residuals: bool = False) -> dict[str, Any]:
        """Plain-Python dict of every field (the per-assessment table only if asked)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name == "residuals" and not residuals:
                continue
            out[f.name] = to_plain(getattr(self, f.name))
        return out

    def methods_text(self, format: MethodsFormat = "text") -> str:
        """A methods paragraph for a study report, with its references: the design, the
        model and its weights, the uncertainty, dropped rows, the software. Every number
        comes from this result. ``format``: ``"text"`` or ``"markdown"``."""
        return calibration_methods(self, format)

    def __str__(self) -> str:
        return (
            f"panel calibration: {self.n_items} items, {self.n_raters} raters, "
            f"{self.n_assessments} assessments, {counted(self.n_components, 'component')}; "
            f"R/dof = {self.residual_per_dof:.4g} on {self.dof} dof"
        )


# --------------------------------------------------------------------------- entry points


def calibrate_panel_from_statistics(
    stats: PanelStatistics,
    options: FitOptions,
    *,
    n_rows: int = 0,
    reasons: Mapping[str, int] | None = None,
) -> PanelCalibration:
    """Calibrate a panel from its merged per-pair statistics (one assessment per pair).

    ``n_rows`` and ``reasons`` are what the engine read and dropped, for the result's
    ``report``. The numbers are those of :func:`calibrate_assessments` on the rows.
    """
    return calibrate_assessments(
        Assessments.from_statistics(stats, n_rows=n_rows, reasons=reasons), options
    )


def calibrate_assessments(panel: Assessments, options: FitOptions) -> PanelCalibration:
    """Calibrate checked, encoded assessments (see :func:`accord.calibrate_panel`)."""
    design = _design(panel, options)
    fitter = _Fitter(panel, design, options.tol, options.max_iter)
    c, scale, rounds = _noise_scale(fitter, options)
    fit = _final_fit(fitter, options, c, scale)
    used, var_o, var_a, var_f = _variances(fit, design, panel, options)
    leverage = c * var_f
    dof = design.dof
    return PanelCalibration(
        values=_values_table(panel, fit, design, var_o),
        biases=_biases_table(panel, fit, design, var_a, leverage, used),
        residuals=_residuals_table(panel, fit, c, leverage),
        n_items=panel.n_items,
        n_raters=panel.n_raters,
        n_assessments=panel.n_assessments,
        n_components=design.n_components,
        algebraic_connectivity=_connectivity(fit.system, design.n_components, options),
        residual=fit.residual,
        dof=int(dof),
        residual_per_dof=fit.residual / dof if dof >= 1 else math.nan,
        variance_scale=float(fit.scale),
        confidence_source=panel.source,
        relative=panel.relative,
        gauge="prior" if options.bias_prior is not None else options.gauge,
        per_component=options.per_component,
        reliability=options.reliability,
        reliability_iterations=rounds,
        bias_prior=options.bias_prior,
        uncertainty=used,
        n_samples=options.n_samples if used == "sample" else 0,
        solver=design.method,
        iterations=fit.iterations,
        converged=True,
        solver_residual=fit.solver_residual,
        n_dropped=panel.n_dropped,
        method=_method_words(panel, options, design.n_components, rounds, used),
        report=panel.report(),
    )


# --------------------------------------------------------------------------- the design


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Design:
    """The normal equations with the declared confidences, the rater-item graph's
    components, the residual degrees of freedom and the solver."""

    declared: _linalg.PanelSystem
    n_components: int
    item_component: IntArray
    rater_component: IntArray
    dof: int
    method: Method


def _design(panel: Assessments, options: FitOptions) -> _Design:
    """The design of ``panel``; an error for a disconnected design (unless components are
    calibrated apart or linked by a prior) and for ``dof < 1``."""
    O, A, E = panel.n_items, panel.n_raters, panel.n_assessments  # noqa: E741
    declared = _linalg.build_system(
        panel.item_codes, panel.rater_codes, panel.confidence, O, A, 0.0
    )
    k, item_comp, rater_comp = _linalg.components(None, None, O, A, pattern=declared.CT)
    if k > 1 and not options.per_component and options.bias_prior is None:
        raise InvalidInputError(
            f"the panel is disconnected: {k} components, and values in different components "
            "cannot be compared: "
            + _describe_components(panel, k, item_comp, rater_comp)
            + f". Pass {option('per_component', True)} to calibrate each component on its "
            f"own, or set {option('bias_prior').strip()} to a prior SD of the biases (score "
            "units) to link them by shrinking the biases"
        )
    dof = E - O - A + k
    if dof < 1 and (options.bias_prior is None or panel.relative):
        raise InvalidInputError(
            f"too few assessments: {counted(E, 'assessment')} of {counted(O, 'item')} by "
            f"{counted(A, 'rater')} in "
            f"{counted(k, 'component')} leave dof = {E} - {O} - {A} + {k} = {dof} < 1; the "
            "residual cannot be estimated (each item and rater needs more assessments)"
        )
    method: Method
    if options.solver != "auto":
        method = options.solver
    elif 4 * A <= O:
        method = "schur-raters"
    elif 4 * O <= A:
        method = "schur-items"
    else:
        method = "full"
    return _Design(declared, k, item_comp, rater_comp, dof, method)


def _describe_components(
    panel: Assessments, n_components: int, item_comp: IntArray, rater_comp: IntArray
) -> str:
    parts = []
    for k in range(min(n_components, SHOW)):
        raters = panel.raters[rater_comp == k]
        items = panel.items[item_comp == k]
        parts.append(f"component {k + 1}: raters {listed(raters)}; items {listed(items)}")
    more = f" | and {n_components - SHOW} more components" if n_components > SHOW else ""
    return " | ".join(parts) + more


# --------------------------------------------------------------------------- the fit


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Fitter:
    """Solves the panel's normal equations for given weights and reports the weighted
    squared residuals."""

    panel: Assessments
    design: _Design
    tol: float
    max_iter: int

    def fit(
        self, weights: FloatArray, prior: float
    ) -> tuple[_linalg.PanelSystem, FloatArray, FloatArray, int, float]:
        """``(system, v, b, iterations, relative residual)`` with confidences ``weights``
        and bias prior precision ``prior`` (any solution: the gauge is not applied)."""
        p = self.panel
        ic, rc, O, A = p.item_codes, p.rater_codes, p.n_items, p.n_raters  # noqa: E741
        if prior == 0.0 and weights is p.confidence:
            system = self.design.declared
        else:
            system = _linalg.build_system(ic, rc, weights, O, A, prior)
        r_o, r_a = _linalg.right_hand_side(ic, rc, weights * p.score, O, A)
        v, b, it, rel = _linalg.solve(
            system, r_o, r_a, method=self.design.method, tol=self.tol, max_iter=self.max_iter
        )
        return system, v, b, it, rel

    def chi2(self, weights: FloatArray, v: FloatArray, b: FloatArray) -> FloatArray:
        """``c (s - v - b)^2`` per row (over a pair's rows: within + C (mean - fitted)^2)."""
        p = self.panel
        r = p.score - v[p.item_codes] - b[p.rater_codes]
        out = weights * r * r
        if p.within is not None:
            out += p.within * (weights / p.confidence)
        return np.asarray(out)


def _noise_scale(fitter: _Fitter, options: FitOptions) -> tuple[FloatArray, float, int]:
    """Step 1, the fit with the declared confidences: the confidences to use (reweighted by
    estimated rater precisions with ``reliability="estimate"``), the noise scale ``R / dof``
    of relative confidences (else 1) and the reweighting rounds."""
    panel = fitter.panel
    c = panel.confidence.copy()
    if not (panel.relative or options.reliability == "estimate"):
        return c, 1.0, 0
    _, v, b, _, _ = fitter.fit(panel.confidence, 0.0)
    dof = fitter.design.dof
    s0 = float(fitter.chi2(c, v, b).sum()) / dof if dof >= 1 else math.nan
    if options.reliability != "estimate":
        return c, s0, 0
    if not (s0 > 0):
        warn_degenerate(
            "reliability='estimate': the declared fit has no residual; confidences kept"
        )
        return c, 1.0, 0
    return _estimate_reliability(fitter, c, v, b, s0)


def _estimate_reliability(
    fitter: _Fitter, c: FloatArray, v: FloatArray, b: FloatArray, s0: float
) -> tuple[FloatArray, float, int]:
    """Rater precision multipliers ``w_a = (n_a f + nu_0) / (chi2_a + nu_0 s_0^2)``,
    iterated with the fit to a fixed point: the reweighted confidences, scale 1 and the
    rounds."""
    panel = fitter.panel
    A, rc = panel.n_raters, panel.rater_codes
    nu0 = 2.0
    f = fitter.design.dof / panel.n_assessments
    n_a = np.bincount(rc, weights=panel.count, minlength=A).astype(np.float64)
    w = np.ones(A)
    for rounds in range(1, 501):  # noqa: B007
        ca = np.bincount(rc, weights=fitter.chi2(c, v, b), minlength=A)
        w_new = (n_a * f + nu0) / (ca + nu0 * s0)
        change = float(np.max(np.abs(w_new / w - 1.0)))
        w = w_new
        _, v, b, _, _ = fitter.fit(c * w[rc], 0.0)
        if change <= 1e-8:
            break
    else:
        raise ConvergenceError(
            "reliability='estimate': the precision multipliers did not settle in "
            f"500 rounds (last relative change {change:.3g})"
        )
    return c * w[rc], 1.0, rounds


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class _Fit:
    """The final solution in the gauge and its residual."""

    system: _linalg.PanelSystem
    v: FloatArray
    b: FloatArray
    iterations: int
    solver_residual: float
    h: FloatArray | None
    per_edge: FloatArray
    residual: float
    scale: float
    exact_fit: bool


def _final_fit(fitter: _Fitter, options: FitOptions, c: FloatArray, scale: float) -> _Fit:
    """Step 2: the solve with the bias prior (if any), moved to the gauge, its residual
    ``R``, the variance scale and whether the scores fit exactly."""
    panel, design = fitter.panel, fitter.design
    estimated = options.reliability == "estimate"
    prior = 0.0 if options.bias_prior is None else scale / options.bias_prior**2
    system, v, b, iterations, solver_residual = fitter.fit(
        c if estimated else panel.confidence, prior
    )
    h = None
    if options.bias_prior is None:
        k = design.n_components
        h = _linalg.gauge_weights(system.rater_weight, design.rater_component, k, options.gauge)
        v, b = _linalg.apply_gauge(v, b, h, design.item_component, design.rater_component, k)
    per_edge = fitter.chi2(c, v, b)
    R = float(per_edge.sum())
    if panel.relative and options.bias_prior is None and not estimated:
        scale = R / design.dof
    within = 0.0 if panel.within is None else float(per_edge.sum())
    total_ss = float(np.sum(c * panel.score * panel.score)) + within
    exact_fit = bool(R <= 1e-24 * total_ss)  # noqa: SIM300
    if exact_fit and panel.relative:
        warn_degenerate(
            "the scores fit the additive model exactly (R = 0 up to rounding): with relative "
            "confidences every sd is 0 and rater misfits are undefined"
        )
    return _Fit(system, v, b, iterations, solver_residual, h, per_edge, R, scale, exact_fit)


def _connectivity(system: _linalg.PanelSystem, k: int, options: FitOptions) -> float:
    """The algebraic connectivity, when asked for (``"auto"``: up to :data:`FIEDLER_LIMIT`
    rater-item pairs), else NaN."""
    if options.connectivity == "auto":
        wanted = system.C.nnz <= FIEDLER_LIMIT
    else:
        wanted = bool(options.connectivity)
    return _linalg.algebraic_connectivity(system, k) if wanted else math.nan


def _variances(
    fit: _Fit, design: _Design, panel: Assessments, options: FitOptions
) -> tuple[str, FloatArray, FloatArray, FloatArray]:
    """Step 3: the uncertainty used and the unscaled posterior variances of the values, the
    biases and every fitted value (NaN with ``uncertainty="none"``)."""
    O, A, system = panel.n_items, panel.n_raters, fit.system  # noqa: E741
    m = min(O, A)
    used = options.uncertainty
    if used == "auto":
        work = float(system.C.nnz) * m
        used = "exact" if m <= EXACT_LIMIT and work <= 2e9 else "sample"
    layout = _linalg.Layout(
        design.item_component,
        design.rater_component,
        design.n_components,
        panel.item_codes,
        panel.rater_codes,
    )
    where: dict[str, Any] = {"h": fit.h, "layout": layout}
    if used == "exact":
        side: _linalg.Side = "raters" if A <= O else "items"
        return used, *_linalg.exact_variances(system, side=side, **where)
    if used == "sample":
        var_o, var_a, var_f, _, _ = _linalg.sampled_variances(
            system,
            method=design.method,
            n_samples=options.n_samples,
            rng=as_generator(options.rng),
            tol=max(options.tol, 1e-6),
            max_iter=options.max_iter,
            **where,
        )
        return used, var_o, var_a, var_f
    nan = np.full(O, np.nan), np.full(A, np.nan), np.full(panel.item_codes.size, np.nan)
    return used, *nan


# --------------------------------------------------------------------------- the tables


def _counts(panel: Assessments) -> tuple[IntArray, IntArray, FloatArray]:
    """Assessments per item and per rater, and each item's unweighted mean score."""
    ic, rc, O, A = panel.item_codes, panel.rater_codes, panel.n_items, panel.n_raters  # noqa: E741
    if panel.count is None:
        count_o = np.bincount(ic, minlength=O)
        count_a = np.bincount(rc, minlength=A)
        return count_o, count_a, np.bincount(ic, weights=panel.score, minlength=O) / count_o
    count_o = np.rint(np.bincount(ic, weights=panel.count, minlength=O)).astype(np.int64)
    count_a = np.rint(np.bincount(rc, weights=panel.count, minlength=A)).astype(np.int64)
    return count_o, count_a, np.bincount(ic, weights=panel.raw_sum, minlength=O) / count_o


def _values_table(
    panel: Assessments, fit: _Fit, design: _Design, var_o: FloatArray
) -> pd.DataFrame:
    count_o, _, plain = _counts(panel)
    columns = {
        "item": panel.items,
        "value": fit.v,
        "sd": np.sqrt(fit.scale * var_o),
        "confidence": fit.system.item_weight,
        "plain_mean": plain,
        "n": count_o,
        "component": design.item_component,
    }
    return pd.DataFrame(columns, copy=False)


def _biases_table(
    panel: Assessments,
    fit: _Fit,
    design: _Design,
    var_a: FloatArray,
    leverage: FloatArray,
    used: str,
) -> pd.DataFrame:
    """The rater table: biases, sds, residual sizes and the misfit of the declared
    confidences."""
    ic, rc, A = panel.item_codes, panel.rater_codes, panel.n_raters
    _, count_a, _ = _counts(panel)
    nan_a = np.full(A, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        chi = np.bincount(rc, weights=fit.per_edge, minlength=A) / fit.scale
        if fit.exact_fit and panel.relative:
            chi = nan_a
        if panel.count is None:
            expected = _linalg.wsum(rc, np.clip(1.0 - leverage, 0.0, None), A)
        else:  # sum of 1 - c var_f over the pair's assessments
            expected = _linalg.wsum(rc, np.clip(panel.count - leverage, 0.0, None), A)
        if used == "none":
            expected = nan_a
        misfit = np.where(expected > 1e-9, chi / expected, np.nan)
    if panel.count is None:
        raw_ss = (panel.score - fit.v[ic] - fit.b[rc]) ** 2
    else:  # unweighted sum of squared residuals over each pair's assessments
        assert panel.raw_sum is not None and panel.raw_within is not None
        pair_mean = panel.raw_sum / panel.count
        raw_ss = panel.raw_within + panel.count * (pair_mean - fit.v[ic] - fit.b[rc]) ** 2
    columns = {
        "rater": panel.raters,
        "bias": fit.b,
        "sd": np.sqrt(fit.scale * var_a),
        "confidence": fit.system.rater_weight,
        "n": count_a,
        "residual_rms": np.sqrt(np.bincount(rc, weights=raw_ss, minlength=A) / count_a),
        "chi2": chi,
        "expected_chi2": expected,
        "misfit": misfit,
        "misfit_pvalue": _chi2_upper(chi, expected),
        "component": design.rater_component,
    }
    return pd.DataFrame(columns, copy=False)


def _residuals_table(
    panel: Assessments, fit: _Fit, c: FloatArray, leverage: FloatArray
) -> pd.DataFrame:
    """One row per assessment (per pair, with its count ``n``, from statistics)."""
    ic, rc = panel.item_codes, panel.rater_codes
    resid = panel.score - fit.v[ic] - fit.b[rc]
    with np.errstate(divide="ignore", invalid="ignore"):
        one_minus = 1.0 - leverage
        standardized = np.where(
            one_minus > 1e-9, resid * np.sqrt(c) / np.sqrt(fit.scale * one_minus), np.nan
        )
    columns: dict[str, Any] = {
        "item": panel.items[ic],
        "rater": panel.raters[rc],
        "score": panel.score,
        "confidence": c,
        "fitted": fit.v[ic] + fit.b[rc],
        "residual": resid,
        "leverage": leverage,
        "standardized": standardized,
    }
    if panel.count is not None:
        columns["n"] = np.rint(panel.count).astype(np.int64)
    return pd.DataFrame(columns, copy=False)


def _method_words(panel: Assessments, options: FitOptions, k: int, rounds: int, used: str) -> str:
    """The variant, in words."""
    prior = options.bias_prior
    gauge = {
        "sum": "gauge sum of biases = 0",
        "weighted": "gauge sum of C_a * bias = 0",
    }[options.gauge]
    words = [
        "calibration with confidence (MacKay et al. 2017)",
        f"confidences from {panel.source}" + (" (relative)" if panel.relative else ""),
        gauge if prior is None else f"bias prior N(0, {prior}^2)",
    ]
    if k > 1:
        words.append(
            f"{k} components calibrated separately"
            if prior is None
            else f"{k} components linked by the bias prior"
        )
    if options.reliability == "estimate":
        words.append(f"rater precisions estimated ({rounds} rounds)")
    words.append(
        {
            "exact": "exact posterior sd",
            "sample": f"posterior sd from {options.n_samples} draws",
            "none": "no posterior sd",
        }[used]
    )
    if panel.relative and prior is None and options.reliability != "estimate":
        words.append("variances scaled by R/dof")
    return "; ".join(words)


def _chi2_upper(chi: FloatArray, dof: FloatArray) -> FloatArray:
    from scipy import special

    with np.errstate(invalid="ignore"):
        out = np.where(
            dof > 1e-9, special.gammaincc(np.maximum(dof, 1e-9) / 2.0, chi / 2.0), np.nan
        )
    return np.asarray(out, dtype=np.float64)
