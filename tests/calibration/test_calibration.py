"""Panel calibration with confidence: reference vectors, exact rational checks, errors, CLI."""

from __future__ import annotations

import json
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from typer.testing import CliRunner

import accord
from accord import ConvergenceError, InvalidInputError, calibrate_panel, hodge_rank
from accord.calibration import _linalg

from .._cli import cli_json

REFERENCE = json.loads(
    (Path(__file__).parents[1] / "reference" / "panel_calibration.json").read_text()
)
CASES = {case["name"]: case for case in REFERENCE["cases"]}


def frame_of(assessments: list[list[object]]) -> pd.DataFrame:
    return pd.DataFrame(assessments, columns=["rater", "item", "score", "c"])


def fractions(values: list[str]) -> list[Fraction]:
    return [Fraction(v) for v in values]


# ------------------------------------------------------------------ exact rational elimination


def rational_inverse(matrix: list[list[Fraction]]) -> list[list[Fraction]]:
    """Gauss-Jordan inverse over the rationals (independent of the library's float code)."""
    n = len(matrix)
    a = [row[:] + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[pivot] = a[pivot], a[col]
        p = a[col][col]
        a[col] = [x / p for x in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [row[n:] for row in a]


def rational_calibration(
    assessments: list[list[object]],
) -> tuple[list[Fraction], list[Fraction], list[Fraction], list[Fraction], Fraction]:
    """Values, biases, their variances and R from the bordered normal equations, in rationals.

    Unknowns ``[v (items, sorted); b (raters, sorted); lambda]``; the border row is the gauge
    ``sum b = 0``. The covariance is the top-left block of the bordered matrix's inverse.
    """
    items = sorted({str(a[1]) for a in assessments})
    raters = sorted({str(a[0]) for a in assessments})
    n_o, n_a = len(items), len(raters)
    n = n_o + n_a + 1
    N = [[Fraction(0)] * n for _ in range(n)]
    rhs = [Fraction(0)] * n
    for rater, item, score, c in assessments:
        o, a = items.index(str(item)), n_o + raters.index(str(rater))
        cf, s = Fraction(c), Fraction(score)
        N[o][o] += cf
        N[a][a] += cf
        N[o][a] += cf
        N[a][o] += cf
        rhs[o] += cf * s
        rhs[a] += cf * s
    for a in range(n_o, n_o + n_a):
        N[a][n - 1] = N[n - 1][a] = Fraction(1)
    inv = rational_inverse(N)
    x = [sum((inv[i][j] * rhs[j] for j in range(n)), Fraction(0)) for i in range(n)]
    v, b = x[:n_o], x[n_o : n_o + n_a]
    var = [inv[i][i] for i in range(n_o + n_a)]
    R = sum(
        (
            Fraction(c) * (Fraction(s) - v[items.index(str(i))] - b[raters.index(str(r))]) ** 2
            for r, i, s, c in assessments
        ),
        Fraction(0),
    )
    return v, b, var[:n_o], var[n_o:], R


# ------------------------------------------------------------------ reference vectors


@pytest.mark.parametrize("name", sorted(CASES))
def test_reference_vectors_match_exact_rational_solution(name: str) -> None:
    # source: tests/reference/panel_calibration.json (hand-worked vectors) and the rational
    # elimination above, computed here from the data.
    case = CASES[name]
    v, b, var_v, var_b, R = rational_calibration(case["assessments"])
    assert v == fractions(case["values"])
    assert b == fractions(case["biases"])
    assert var_v == fractions(case["var_values"])
    assert var_b == fractions(case["var_biases"])
    assert fractions([case["residual"]]) == [R]


@pytest.mark.parametrize("solver", ["full", "schur-raters", "schur-items"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_reference_vectors_reproduce(name: str, solver: str) -> None:
    case = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", accord.DegenerateDataWarning)
        result = calibrate_panel(
            frame_of(case["assessments"]),
            item="item",
            rater="rater",
            score="score",
            confidence="c",  # absolute: variances stay in units of 1/c
            solver=solver,  # type: ignore[arg-type]
            uncertainty="exact",
        )
    as_float = lambda xs: [float(Fraction(x)) for x in xs]  # noqa: E731
    assert_allclose(result.values["value"], as_float(case["values"]), rtol=0, atol=1e-9)
    assert_allclose(result.biases["bias"], as_float(case["biases"]), rtol=0, atol=1e-9)
    assert_allclose(result.values["sd"] ** 2, as_float(case["var_values"]), atol=1e-9)
    assert_allclose(result.biases["sd"] ** 2, as_float(case["var_biases"]), atol=1e-9)
    assert result.residual == pytest.approx(float(Fraction(case["residual"])), abs=1e-9)
    assert result.dof == case["dof"]
    if "plain_means" in case:
        assert_allclose(result.values["plain_mean"], as_float(case["plain_means"]), atol=1e-12)
        assert_allclose(result.values["confidence"], as_float(case["item_confidence"]))


def test_bibd_equals_yates_intra_block_estimates() -> None:
    # Yates (1940): intra-block treatment effects in a BIBD are k Q_i / (lambda t), with
    # Q_i = T_i - (1/k) * (sum of the totals of the blocks containing treatment i).
    case = CASES["fisher_bibd_7_7_3_3_1"]
    rows = case["assessments"]
    k, lam, t = 3, 1, 7
    block_total: dict[str, Fraction] = {}
    for blk, _, s, _ in rows:
        block_total[blk] = block_total.get(blk, Fraction(0)) + Fraction(s)
    yates = []
    for i in range(t):
        mine = [r for r in rows if r[1] == f"T{i}"]
        Q = (
            sum((Fraction(r[2]) for r in mine), Fraction(0))
            - sum((block_total[r[0]] for r in mine), Fraction(0)) / k
        )
        yates.append(k * Q / (lam * t))
    result = calibrate_panel(frame_of(rows), item="item", rater="rater", score="score")
    v = result.values["value"].to_numpy()
    assert_allclose(v - v.mean(), [float(y) for y in yates], atol=1e-9)
    # equal confidences are relative: variances scaled by R / dof = (82/7) / 8
    assert result.relative
    assert result.variance_scale == pytest.approx(82 / 7 / 8, rel=1e-12)
    assert_allclose(result.values["sd"] ** 2, 61 / 147 * 82 / 56, rtol=1e-9)


def test_disconnected_names_components() -> None:
    rows = REFERENCE["disconnected"]["assessments"]
    with pytest.raises(InvalidInputError) as info:
        calibrate_panel(frame_of(rows), item="item", rater="rater", score="score", confidence="c")
    message = str(info.value)
    assert "2 components" in message
    assert "component 1: raters A, B; items O1, O2, O3, O4" in message
    assert "component 2: raters C; items O5, O6" in message
    assert "per_component=True" in message


def test_disconnected_per_component() -> None:
    rows = REFERENCE["disconnected"]["assessments"]
    result = calibrate_panel(
        frame_of(rows),
        item="item",
        rater="rater",
        score="score",
        confidence="c",
        per_component=True,
    )
    assert result.n_components == 2
    assert result.algebraic_connectivity == 0.0
    # component 1 is the chain (a hand-worked vector); component 2 is one rater, so b_C = 0 and the
    # values are C's scores (hand computation)
    assert_allclose(result.values["value"], [5, 6, 7, 8, 3, 5], atol=1e-9)
    assert_allclose(result.biases["bias"], [-1, 1, 0], atol=1e-9)
    assert result.values["component"].tolist() == [0, 0, 0, 0, 1, 1]
    assert result.dof == 8 - 6 - 3 + 2


def test_bias_prior_links_disconnected_components() -> None:
    rows = REFERENCE["disconnected"]["assessments"]
    result = calibrate_panel(
        frame_of(rows), item="item", rater="rater", score="score", confidence="c", bias_prior=1.0
    )
    assert result.gauge == "prior"
    assert result.biases["bias"].sum() == pytest.approx(0.0, abs=1e-9)
    # the prior solution is the inverse of the normal matrix with 1/tau^2 on the rater diagonal
    system = _linalg.build_system(*_codes(rows), np.ones(len(rows)), 6, 3, prior_precision=1.0)
    N = _dense_normal(system)
    s = np.array([r[2] for r in rows], dtype=float)
    ic, rc = _codes(rows)
    rhs = np.concatenate([np.bincount(ic, weights=s, minlength=6), np.bincount(rc, weights=s)])
    x = np.linalg.solve(N, rhs)
    cov = np.linalg.inv(N)
    assert_allclose(result.values["value"], x[:6], atol=1e-9)
    assert_allclose(result.biases["bias"], x[6:], atol=1e-9)
    assert_allclose(result.values["sd"] ** 2, np.diag(cov)[:6], atol=1e-9)
    assert_allclose(result.biases["sd"] ** 2, np.diag(cov)[6:], atol=1e-9)


def _codes(rows: list[list[object]]) -> tuple[np.ndarray, np.ndarray]:
    items = sorted({str(r[1]) for r in rows})
    raters = sorted({str(r[0]) for r in rows})
    ic = np.array([items.index(str(r[1])) for r in rows])
    rc = np.array([raters.index(str(r[0])) for r in rows])
    return ic, rc


def _dense_normal(system: _linalg.PanelSystem) -> np.ndarray:
    C = system.C.toarray()
    return np.block([[np.diag(system.item_weight), C.T], [C, np.diag(system.rater_diagonal)]])


# ------------------------------------------------------------------ connectivity


def _normalized_laplacian_lambda2(C: np.ndarray) -> float:
    n_a, n_o = C.shape
    W = np.zeros((n_a + n_o, n_a + n_o))
    W[:n_a, n_a:] = C
    W[n_a:, :n_a] = C.T
    d = W.sum(axis=1)
    L = np.eye(n_a + n_o) - W / np.sqrt(np.outer(d, d))
    return float(np.sort(np.linalg.eigvalsh(L))[1])


def test_algebraic_connectivity_matches_dense_laplacian() -> None:
    # K_{2,2}: normalised Laplacian eigenvalues 0, 1, 1, 2 (Chung 1997, Spectral Graph Theory)
    r = calibrate_panel(
        frame_of(CASES["complete_2x2"]["assessments"]),
        item="item",
        rater="rater",
        score="score",
        confidence="c",
    )
    assert r.algebraic_connectivity == pytest.approx(1.0, abs=1e-12)
    for name in ("chain", "fisher_bibd_7_7_3_3_1"):
        rows = CASES[name]["assessments"]
        r = calibrate_panel(
            frame_of(rows), item="item", rater="rater", score="score", confidence="c"
        )
        C = np.zeros((r.n_raters, r.n_items))
        ic, rc = _codes(rows)
        np.add.at(C, (rc, ic), 1.0)
        assert r.algebraic_connectivity == pytest.approx(
            _normalized_laplacian_lambda2(C), abs=1e-10
        )


def test_algebraic_connectivity_iterative_path() -> None:
    # the Lanczos path (forced with dense_limit=0), checked against a dense eigensolver
    sim = accord.simulate_panel(300, 200, raters_per_item=3, bridges=60, rng=3)
    f = sim.assessments
    ic, items = pd.factorize(f["item"])
    rc, raters = pd.factorize(f["rater"])
    k, _, _ = _linalg.components(ic, rc, items.size, raters.size)
    assert k == 1
    system = _linalg.build_system(ic, rc, f["confidence"].to_numpy(), items.size, raters.size)
    lam = _linalg.algebraic_connectivity(system, 1, dense_limit=0)
    assert lam == pytest.approx(_normalized_laplacian_lambda2(system.C.toarray()), abs=1e-7)


# ------------------------------------------------------------------ confidence inputs


def chain_frame() -> pd.DataFrame:
    return frame_of(CASES["chain"]["assessments"])


@pytest.mark.filterwarnings("ignore::accord.DegenerateDataWarning")
def test_sigma_range_and_levels_convert_to_confidence() -> None:
    f = chain_frame()
    f["sigma"] = [1.0, 2.0, 0.5, 1.0, 1.0, 4.0]
    f["c"] = 1 / f["sigma"] ** 2
    f["lo"] = f["score"] - 1.96 * f["sigma"]
    f["hi"] = f["score"] + 1.96 * f["sigma"]
    f["lo1"] = f["score"] - f["sigma"]
    f["hi1"] = f["score"] + f["sigma"]
    kw = dict(item="item", rater="rater", score="score")
    by_c = calibrate_panel(f, confidence="c", **kw)
    by_sigma = calibrate_panel(f, sigma="sigma", **kw)
    by_range = calibrate_panel(f, score_range=("lo", "hi"), **kw)
    by_sd = calibrate_panel(f, score_range=("lo1", "hi1"), range_convention="sd", **kw)
    for other in (by_sigma, by_range, by_sd):
        assert_allclose(other.residuals["confidence"], by_c.residuals["confidence"], rtol=1e-12)
        assert_allclose(other.values["value"], by_c.values["value"], rtol=1e-12)
    f["level"] = ["H", "m", "low", "High", "M", "l"]
    lev = calibrate_panel(f, levels="level", confidence_factor=2.0, **kw)
    assert_allclose(lev.residuals["confidence"], [4, 1, 0.25, 4, 1, 0.25])
    assert lev.relative and lev.confidence_source == "levels"


def test_exactly_additive_scores_any_confidences() -> None:
    # the chain is exactly additive, so every positive weighting gives v = (5, 6, 7, 8)
    f = chain_frame()
    f["c"] = [0.3, 2.0, 5.0, 1.0, 0.7, 9.0]
    r = calibrate_panel(f, item="item", rater="rater", score="score", confidence="c")
    assert_allclose(r.values["value"], [5, 6, 7, 8], atol=1e-9)


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("change", "kwargs", "match"),
    [
        (lambda f: f.assign(score=["4", "5", "x", 7, 8, 9]), {}, r"'x' at row 3 is not a number"),
        (lambda f: f.assign(c=[1, 1, 1, 0, 1, 1]), {"confidence": "c"}, r"row 4 must be positive"),
        (lambda f: f.assign(c=[1, -2, 1, 1, 1, 1]), {"sigma": "c"}, r"row 2 must be positive"),
        (
            lambda f: f.assign(c=["H", "M", "X", "L", "H", "M"]),
            {"levels": "c"},
            r"level 'X' at row 3 is not one of H, M, L",
        ),
        (lambda f: f.assign(lo=9.0, hi=8.0), {"score_range": ("lo", "hi")}, r"empty or reversed"),
        (lambda f: f, {"confidence": "c", "sigma": "c"}, r"at most one of"),
        (lambda f: f, {"confidence": "nope"}, r"column 'nope' not found"),
        (lambda f: f, {"gauge": "mean"}, r"The 'gauge' parameter of calibrate_panel must be one"),
        (lambda f: f, {"bias_prior": 1.0, "gauge": "weighted"}, r"leave gauge='sum'"),
    ],
)
def test_bad_input(change: object, kwargs: dict[str, object], match: str) -> None:
    f = change(chain_frame())  # type: ignore[operator]
    with pytest.raises(InvalidInputError, match=match):
        calibrate_panel(f, item="item", rater="rater", score="score", **kwargs)  # type: ignore[arg-type]


def test_dof_below_one_is_an_error() -> None:
    # a tree design (each item once, raters linked by one shared item): E - O - A + 1 = 0
    f = pd.DataFrame(
        {"rater": ["A", "A", "B", "B"], "item": ["x", "y", "y", "z"], "score": [1, 2, 3, 4]}
    )
    with pytest.raises(InvalidInputError, match=r"dof = 4 - 3 - 2 \+ 1 = 0 < 1"):
        calibrate_panel(f, item="item", rater="rater", score="score")
    one = pd.DataFrame({"rater": ["A"] * 3, "item": ["x", "y", "z"], "score": [1, 2, 3]})
    singular = "3 assessments of 3 items by 1 rater in 1 component"
    with pytest.raises(InvalidInputError, match=singular):
        calibrate_panel(one, item="item", rater="rater", score="score")


def test_missing_scores_omitted_or_raised() -> None:
    f = chain_frame()
    f.loc[6] = ["B", "O4", None, 1]
    with pytest.warns(accord.DroppedDataWarning, match=r"dropped 1 row with .*\(row 7\)"):
        r = calibrate_panel(f, item="item", rater="rater", score="score", confidence="c")
    assert r.n_dropped == 1
    assert_allclose(r.values["value"], [5, 6, 7, 8], atol=1e-9)
    with pytest.raises(InvalidInputError, match=r"column 'score': 1 row is missing \(row 7\)"):
        calibrate_panel(f, item="item", rater="rater", score="score", missing="raise")


def test_solver_raises_when_not_converged() -> None:
    sim = accord.simulate_panel(60, 12, raters_per_item=3, rng=1)
    with pytest.raises(ConvergenceError, match="did not converge in 1 iterations"):
        calibrate_panel(
            sim.assessments,
            item="item",
            rater="rater",
            score="score",
            solver="full",
            max_iter=1,
        )


# ------------------------------------------------------------------ HodgeRank


def test_hodge_rank_consistent_and_cyclic() -> None:
    # hand computation: differences a-b = 1, b-c = 2, a-c = 3 are consistent with
    # (a, b, c) = (4/3, 1/3, -5/3) (sum 0); a 3-cycle of unit wins is pure curl (score 0).
    pairs = pd.DataFrame({"first": ["a", "b", "a"], "second": ["b", "c", "c"], "m": [1, 2, 3.0]})
    r = hodge_rank(pairs, first="first", second="second", margin="m")
    assert_allclose(r.scores["score"], [4 / 3, 1 / 3, -5 / 3], atol=1e-9)
    assert r.inconsistency == pytest.approx(0.0, abs=1e-18)
    assert r.scores["rank"].tolist() == [1, 2, 3]
    cyc = pd.DataFrame({"first": ["a", "b", "c"], "second": ["b", "c", "a"]})
    r = hodge_rank(cyc, first="first", second="second")
    assert_allclose(r.scores["score"], 0.0, atol=1e-12)
    assert r.inconsistency == pytest.approx(1.0)


def test_hodge_rank_rankings_and_errors() -> None:
    # two raters rank three items identically (1 = best): scores follow the ranking,
    # weights 1*1/3 per within-rater pair, consistent so inconsistency 0.
    f = pd.DataFrame(
        {"rater": ["u"] * 3 + ["w"] * 3, "item": list("pqrpqr"), "rank": [1, 2, 3, 1, 2, 3]}
    )
    r = hodge_rank(f, item="item", rater="rater", score="rank", higher_is_better=False)
    assert_allclose(r.scores["score"], [1, 0, -1], atol=1e-9)
    assert r.n_comparisons == 6
    with pytest.raises(InvalidInputError, match="either first and second"):
        hodge_rank(f)
    split = pd.DataFrame({"first": ["a", "c"], "second": ["b", "d"]})
    with pytest.raises(InvalidInputError, match="2 components"):
        hodge_rank(split, first="first", second="second")
    with pytest.raises(InvalidInputError, match="with itself"):
        hodge_rank(pd.DataFrame({"a": ["x"], "b": ["x"]}), first="a", second="b")


# ------------------------------------------------------------------ simulation and coverage


def test_simulate_panel_design() -> None:
    sim = accord.simulate_panel(40, 12, raters_per_item=3, n_groups=3, bridges=0, rng=5)
    f = sim.assessments
    assert len(f) == 120
    k, _, _ = _linalg.components(f["item"].to_numpy(), f["rater"].to_numpy(), 40, 12)
    assert k == 3
    assert sim.biases.sum() == pytest.approx(0.0, abs=1e-12)
    assert not f.duplicated(["item", "rater"]).any()
    sim = accord.simulate_panel(40, 12, raters_per_item=3, n_groups=3, bridges=4, rng=5)
    assert len(sim.assessments) == 124
    with pytest.raises(InvalidInputError, match="exceeds"):
        accord.simulate_panel(10, 4, raters_per_item=3, n_groups=2)


@pytest.mark.parametrize("uncertainty", ["exact", "sample"])
def test_posterior_sd_coverage(uncertainty: str) -> None:
    # 95% intervals v +- 1.96 sd against the simulation truth (biases centred: the sum gauge)
    rng = np.random.default_rng(20240611)
    hits = total = 0
    for _ in range(12 if uncertainty == "exact" else 4):
        sim = accord.simulate_panel(
            120, 24, raters_per_item=3, bias_sd=1.0, noise_sd=0.6, confidence_spread=0.5, rng=rng
        )
        r = calibrate_panel(
            sim.assessments,
            item="item",
            rater="rater",
            score="score",
            confidence="confidence",
            uncertainty=uncertainty,
            n_samples=64,
            rng=rng,  # type: ignore[arg-type]
        )
        truth = sim.values[r.values["item"].to_numpy(dtype=int)]
        z = np.abs(r.values["value"] - truth) / r.values["sd"]
        hits += int((z <= 1.959964).sum())
        bz = np.abs(r.biases["bias"] - sim.biases[r.biases["rater"].to_numpy(dtype=int)])
        hits += int((bz / r.biases["sd"] <= 1.959964).sum())
        total += r.n_items + r.n_raters
    assert 0.90 <= hits / total <= 0.98


def test_sampled_sd_close_to_exact() -> None:
    sim = accord.simulate_panel(150, 30, raters_per_item=3, rng=11)
    kw = dict(item="item", rater="rater", score="score", confidence="confidence")
    exact = calibrate_panel(sim.assessments, uncertainty="exact", **kw)
    sampled = calibrate_panel(sim.assessments, uncertainty="sample", n_samples=400, rng=2, **kw)
    assert sampled.uncertainty == "sample" and exact.uncertainty == "exact"
    # 400 draws: each variance has relative sd sqrt(2/400) ~ 7%; compare on average
    ratio = (sampled.values["sd"] / exact.values["sd"]) ** 2
    assert abs(float(ratio.mean()) - 1.0) < 0.03
    assert_allclose(
        sampled.residuals["leverage"].mean(), exact.residuals["leverage"].mean(), rtol=0.05
    )


def test_estimated_reliability_helps_when_declared_confidences_are_uninformative() -> None:
    errs_declared, errs_estimated = [], []
    for seed in range(4):
        sim = accord.simulate_panel(
            300,
            30,
            raters_per_item=4,
            bias_sd=0.5,
            noise_sd=0.5,
            rater_noise_spread=0.9,
            rng=seed,
        )
        truth = sim.values - sim.values.mean()
        for rel, errs in (("declared", errs_declared), ("estimate", errs_estimated)):
            r = calibrate_panel(
                sim.assessments,
                item="item",
                rater="rater",
                score="score",
                reliability=rel,
                uncertainty="none",  # type: ignore[arg-type]
            )
            v = r.values["value"].to_numpy()
            errs.append(float(np.sqrt(np.mean((v - v.mean() - truth) ** 2))))
        assert r.reliability_iterations > 0
    assert np.mean(errs_estimated) < 0.9 * np.mean(errs_declared)


def test_bias_prior_helps_weakly_connected_design() -> None:
    errs_exact, errs_prior = [], []
    for seed in range(4):
        sim = accord.simulate_panel(
            120,
            24,
            raters_per_item=2,
            n_groups=6,
            bridges=6,
            bias_sd=0.3,
            noise_sd=1.0,
            rng=seed,
        )
        truth = sim.values - sim.values.mean()
        kw = dict(item="item", rater="rater", score="score", confidence="confidence")
        for prior, errs in ((None, errs_exact), (0.3, errs_prior)):
            r = calibrate_panel(sim.assessments, bias_prior=prior, uncertainty="none", **kw)
            v = r.values["value"].to_numpy()
            errs.append(float(np.sqrt(np.mean((v - v.mean() - truth) ** 2))))
    assert np.mean(errs_prior) < np.mean(errs_exact)


# ------------------------------------------------------------------ CLI


@pytest.mark.filterwarnings("ignore::accord.DegenerateDataWarning")
def test_cli_calibrate(tmp_path: Path) -> None:
    from accord.cli import app

    f = chain_frame()
    f["level"] = ["H", "M", "L", "H", "M", "L"]
    path = tmp_path / "panel.csv"
    f.to_csv(path, index=False)
    runner = CliRunner()
    out, bias = tmp_path / "calibrated.csv", tmp_path / "biases.csv"
    res = runner.invoke(
        app,
        [
            "calibrate",
            str(path),
            "--item",
            "item",
            "--rater",
            "rater",
            "--score",
            "score",
            "--confidence",
            "c",
            "--output",
            str(out),
            "--biases",
            str(bias),
        ],
    )
    assert res.exit_code == 0, res.output
    values = pd.read_csv(out)
    assert_allclose(values["value"], [5, 6, 7, 8], atol=1e-9)
    assert pd.read_csv(bias)["bias"].round(9).tolist() == [-1.0, 1.0]
    res = runner.invoke(
        app,
        [
            "calibrate",
            str(path),
            "--item",
            "item",
            "--rater",
            "rater",
            "--score",
            "score",
            "--levels",
            "level",
            "--format",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output
    data = cli_json(res.stdout)
    assert data["confidence_source"] == "levels" and data["n_items"] == 4
    res = runner.invoke(
        app,
        [
            "calibrate",
            str(path),
            "--item",
            "item",
            "--rater",
            "rater",
            "--score",
            "score",
            "--range",
            "score",
            "c",
            "--format",
            "csv",
        ],
    )
    assert res.exit_code == 2
    assert res.output.strip().count("\n") == 0
    assert "empty or reversed" in res.output
    res = runner.invoke(
        app,
        ["calibrate", str(path), "--item", "item", "--rater", "rater", "--score", "level"],
    )
    assert res.exit_code == 2 and "'H' at row 1 is not a number" in res.output


# ------------------------------------------------------------------ scale paths and streaming


def _panel_frame(duplicates: int = 40) -> pd.DataFrame:
    sim = accord.simulate_panel(
        240, 30, raters_per_item=4, bias_sd=1.0, noise_sd=0.5, confidence_spread=0.5, rng=5
    )
    frame = sim.assessments[["item", "rater", "score", "confidence"]]
    repeated = frame.iloc[:duplicates].assign(score=frame["score"].iloc[:duplicates] + 0.25)
    both = pd.concat([frame, repeated], ignore_index=True)
    return both.sample(frac=1.0, random_state=2).reset_index(drop=True)


@pytest.mark.parametrize("solver", ["schur-raters", "schur-items"])
@pytest.mark.parametrize("kwargs", [{"gauge": "sum"}, {"gauge": "weighted"}, {"bias_prior": 0.7}])
def test_sampled_sds_match_exact_on_either_side(solver: str, kwargs: dict[str, object]) -> None:
    # reference: the exact (dense Schur complement) posterior sds of the same panel
    f = _panel_frame(0)
    common = {"item": "item", "rater": "rater", "score": "score", "confidence": "confidence"}
    exact = calibrate_panel(f, uncertainty="exact", **common, **kwargs)  # type: ignore[arg-type]
    sampled = calibrate_panel(
        f, uncertainty="sample", n_samples=400, rng=7, solver=solver, **common, **kwargs
    )  # type: ignore[arg-type]
    for table in ("values", "biases"):
        ratio = getattr(sampled, table)["sd"] / getattr(exact, table)["sd"]
        # 400 draws: sd relative error about 1/sqrt(800) = 3.5% per entry
        assert abs(float(ratio.mean()) - 1.0) < 0.02
        assert float(np.abs(ratio - 1.0).max()) < 0.15
    lev = sampled.residuals["leverage"] / exact.residuals["leverage"]
    assert abs(float(lev.mean()) - 1.0) < 0.02


def test_components_from_matrix_pattern_equal_components_from_codes() -> None:
    # reference: the codes path (a COO graph of every assessment)
    f = _panel_frame()
    ic, rc = f["item"].to_numpy(), f["rater"].to_numpy()
    system = _linalg.build_system(ic, rc, f["confidence"].to_numpy(), 240, 30)
    by_codes = _linalg.components(ic, rc, 240, 30)
    by_pattern = _linalg.components(None, None, 240, 30, pattern=system.CT)
    assert by_codes[0] == by_pattern[0]
    assert_allclose(by_codes[1], by_pattern[1])
    assert_allclose(by_codes[2], by_pattern[2])


@pytest.mark.parametrize("uncertainty", ["exact", "sample"])
def test_stream_engine_equals_memory(tmp_path: Path, uncertainty: str) -> None:
    # reference: calibrate_panel on the same rows in memory (engine="memory")
    f = _panel_frame()
    f.iloc[:700].to_parquet(tmp_path / "a.parquet")
    f.iloc[700:].to_parquet(tmp_path / "b.parquet")
    common = {
        "item": "item",
        "rater": "rater",
        "score": "score",
        "confidence": "confidence",
        "uncertainty": uncertainty,
        "rng": 3,
        "duplicates": "mean",  # the 40 repeated (item, rater) pairs, averaged by every engine
    }
    memory = calibrate_panel(f, **common)  # type: ignore[arg-type]
    stream = calibrate_panel(
        [tmp_path / "a.parquet", tmp_path / "b.parquet"],
        engine="stream",
        batch_size=137,  # uneven batches that straddle the files
        **common,  # type: ignore[arg-type]
    )
    assert list(stream.values["item"]) == list(memory.values["item"])
    assert list(stream.biases["rater"]) == list(memory.biases["rater"])
    for col in ("value", "sd", "confidence", "plain_mean", "n"):
        assert_allclose(stream.values[col], memory.values[col], rtol=0, atol=1e-10)
    for col in ("bias", "sd", "n", "residual_rms", "chi2", "expected_chi2", "misfit"):
        assert_allclose(stream.biases[col], memory.biases[col], rtol=0, atol=1e-10)
    assert stream.residual == pytest.approx(memory.residual, rel=1e-12)
    assert (stream.dof, stream.n_assessments) == (memory.dof, memory.n_assessments)
    assert int(stream.residuals["n"].sum()) == len(f) - 40 == memory.n_assessments
    assert stream.report == memory.report
    assert memory.report is not None and memory.report.rows == len(f)
    assert dict(memory.report.reasons) == {"duplicate (item, rater): averaged": 40}


def test_stream_engine_csv_levels_and_merge(tmp_path: Path) -> None:
    # reference: the memory engine on the frame pandas reads back from the CSV
    f = _panel_frame()
    f["level"] = np.array(["H", "M", "L"])[np.arange(len(f)) % 3]
    f["item"] = "p" + f["item"].astype(str)
    f.to_csv(tmp_path / "p.csv", index=False)
    back = pd.read_csv(tmp_path / "p.csv")
    common = {
        "item": "item",
        "rater": "rater",
        "score": "score",
        "levels": "level",
        "duplicates": "mean",
    }
    memory = calibrate_panel(back, **common)  # type: ignore[arg-type]
    stream = calibrate_panel(tmp_path / "p.csv", engine="stream", batch_size=101, **common)  # type: ignore[arg-type]
    assert list(stream.values["item"]) == list(memory.values["item"])
    assert_allclose(stream.values["value"], memory.values["value"], rtol=0, atol=1e-10)
    assert_allclose(stream.values["sd"], memory.values["sd"], rtol=0, atol=1e-10)
    assert stream.residual_per_dof == pytest.approx(memory.residual_per_dof, rel=1e-12)
    # merging the statistics of two halves equals the statistics of the whole
    codes = {"item_codes": back["item"].factorize()[0], "rater_codes": back["rater"].to_numpy()}
    meta = {
        "items": np.zeros(0),
        "raters": np.zeros(0),
        "source": "confidence",
        "relative": False,
        "n_dropped": 0,
    }
    s, c = back["score"].to_numpy(float), np.linspace(0.5, 2.0, len(back))
    whole = accord.PanelStatistics.from_codes(
        codes["item_codes"], codes["rater_codes"], s, c, **meta
    )
    half = len(back) // 3
    parts = [
        accord.PanelStatistics.from_codes(
            codes["item_codes"][sl], codes["rater_codes"][sl], s[sl], c[sl], **meta
        )
        for sl in (slice(0, half), slice(half, None))
    ]
    merged = parts[0].merge(parts[1])
    for name in ("item_codes", "rater_codes", "count", "weight", "mean", "within", "raw_sum"):
        assert_allclose(getattr(merged, name), getattr(whole, name), rtol=1e-12, atol=1e-12)
    assert_allclose(merged.raw_within, whole.raw_within, rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ dask engine


def _uneven_dask_frame(f: pd.DataFrame) -> object:
    dd = pytest.importorskip("dask.dataframe")
    # partitions of 7, 293, 11, 589 and the rest rows
    return dd.from_pandas(f, npartitions=1).repartition(divisions=[0, 7, 300, 311, 900, len(f) - 1])


@pytest.mark.parametrize("scheduler", ["synchronous", "local-cluster"])
def test_dask_engine_equals_stream_and_memory(tmp_path: Path, scheduler: str) -> None:
    # reference: calibrate_panel on the same rows in memory (engine="memory") and streamed
    f = _panel_frame()
    f["rater"] = "r" + f["rater"].astype(str)  # text ids, sorted as text by every engine
    f.iloc[:700].to_parquet(tmp_path / "a.parquet")
    f.iloc[700:].to_parquet(tmp_path / "b.parquet")
    common = {
        "item": "item",
        "rater": "rater",
        "score": "score",
        "confidence": "confidence",
        "uncertainty": "exact",
        "duplicates": "mean",
    }
    memory = calibrate_panel(f, **common)  # type: ignore[arg-type]
    stream = calibrate_panel(
        [tmp_path / "a.parquet", tmp_path / "b.parquet"],
        engine="stream",
        batch_size=137,
        **common,  # type: ignore[arg-type]
    )
    ddf = _uneven_dask_frame(f)
    assert ddf.npartitions == 5  # type: ignore[attr-defined]
    if scheduler == "local-cluster":
        distributed = pytest.importorskip("distributed")
        with (
            distributed.LocalCluster(
                n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            dasked = calibrate_panel(ddf, engine="dask", scheduler=client, **common)  # type: ignore[arg-type]
    else:
        dasked = calibrate_panel(ddf, engine="dask", scheduler=scheduler, **common)  # type: ignore[arg-type]
    for other in (stream, dasked):
        assert list(other.values["item"]) == list(memory.values["item"])
        assert list(other.biases["rater"]) == list(memory.biases["rater"])
        for col in ("value", "sd", "confidence", "plain_mean", "n"):
            assert_allclose(other.values[col], memory.values[col], rtol=0, atol=1e-10)
        for col in ("bias", "sd", "n", "residual_rms", "chi2", "expected_chi2", "misfit"):
            assert_allclose(other.biases[col], memory.biases[col], rtol=0, atol=1e-10)
        assert other.residual == pytest.approx(memory.residual, rel=1e-12)
        assert (other.dof, other.n_assessments) == (memory.dof, memory.n_assessments)
        assert int(other.residuals["n"].sum()) == len(f) - 40
        assert other.report == memory.report
    assert_allclose(dasked.residuals["score"], stream.residuals["score"], rtol=0, atol=1e-12)


def test_dask_engine_from_csv_files_with_levels_and_missing(tmp_path: Path) -> None:
    # reference: the memory engine on the frame pandas reads back from the CSV files
    f = _panel_frame()
    f["level"] = np.array(["H", "M", "L"])[np.arange(len(f)) % 3]
    f["item"] = "p" + f["item"].astype(str)
    f.loc[[3, 500, 501], "score"] = np.nan
    f.iloc[:400].to_csv(tmp_path / "a.csv", index=False)
    f.iloc[400:].to_csv(tmp_path / "b.csv", index=False)
    back = pd.concat([pd.read_csv(tmp_path / n) for n in ("a.csv", "b.csv")], ignore_index=True)
    common = {
        "item": "item",
        "rater": "rater",
        "score": "score",
        "levels": "level",
        "duplicates": "mean",
    }
    with pytest.warns(accord.DroppedDataWarning, match="dropped 3 rows"):
        memory = calibrate_panel(back, **common)  # type: ignore[arg-type]
    with pytest.warns(accord.DroppedDataWarning, match="dropped 3 rows"):
        dasked = calibrate_panel(
            str(tmp_path / "*.csv"),
            engine="dask",
            scheduler="synchronous",
            **common,  # type: ignore[arg-type]
        )
    assert list(dasked.values["item"]) == list(memory.values["item"])
    assert list(dasked.biases["rater"]) == list(memory.biases["rater"])  # integers, typed
    assert_allclose(dasked.values["value"], memory.values["value"], rtol=0, atol=1e-10)
    assert_allclose(dasked.biases["sd"], memory.biases["sd"], rtol=0, atol=1e-10)
    assert dasked.n_dropped == 3 and dasked.confidence_source == "levels"
    assert dasked.report == memory.report
    assert memory.report is not None and memory.report.missing == 3


def test_dask_engine_errors_name_rows_of_the_whole_input() -> None:
    f = _panel_frame()
    f["confidence"] = f["confidence"].astype(object)
    # data row 306 (in partition 3 of the uneven frame, rows 301-311)
    f.loc[305, "confidence"] = "high"
    with pytest.raises(InvalidInputError) as info:
        calibrate_panel(
            _uneven_dask_frame(f),
            item="item",
            rater="rater",
            score="score",
            confidence="confidence",
            engine="dask",
            scheduler="synchronous",
        )
    message = str(info.value)
    assert "'high' at row 306 is not a number" in message
    assert "partition" not in message
    with pytest.raises(InvalidInputError, match="give at most one of confidence, sigma"):
        calibrate_panel(
            _uneven_dask_frame(_panel_frame()),
            item="item",
            rater="rater",
            score="score",
            confidence="confidence",
            sigma="confidence",
            engine="dask",
        )
    with pytest.raises(InvalidInputError, match="takes a dask DataFrame"):
        calibrate_panel(_panel_frame(), item="item", rater="rater", score="score", engine="dask")
    with pytest.raises(InvalidInputError, match="scheduler applies to engine='dask'"):
        calibrate_panel(
            _panel_frame(), item="item", rater="rater", score="score", scheduler="threads"
        )
    with pytest.raises(accord.ColumnNotFoundError, match="'who'"):
        calibrate_panel(
            _uneven_dask_frame(_panel_frame()),
            item="item",
            rater="who",
            score="score",
            engine="dask",
        )


@pytest.mark.parametrize("engine", ["stream", "dask"])
def test_cli_calibrate_engines_write_the_memory_csv(tmp_path: Path, engine: str) -> None:
    from accord.cli import app

    f = _panel_frame()
    path = tmp_path / "panel.parquet"
    f.to_parquet(path)
    args = ["--item", "item", "--rater", "rater", "--score", "score"]
    args += ["--confidence", "confidence", "--uncertainty", "exact", "--format", "csv"]
    args += ["--duplicates", "mean"]
    runner = CliRunner()
    memory = runner.invoke(app, ["calibrate", str(path), *args])
    extra = ["--scheduler", "synchronous"] if engine == "dask" else []
    other = runner.invoke(app, ["calibrate", str(path), *args, "--engine", engine, *extra])
    assert memory.exit_code == 0 and other.exit_code == 0, other.output
    assert other.stdout == memory.stdout
    assert memory.stdout.startswith("item,value,sd,confidence,plain_mean,n,component\n")
    bad = runner.invoke(app, ["calibrate", str(path), *args, "--scheduler", "threads"])
    assert (
        bad.exit_code == 2 and bad.stderr == "accord: error: --scheduler applies to --engine dask\n"
    )


# ------------------------------------------------------------------ repeated (item, rater) pairs


def _chain_with_a_repeat() -> pd.DataFrame:
    """The chain of the docstring (A scores O1-O3, B O2-O4, B two points more generous), with
    A's score of O1 given twice: 4 at row 1 and 5 at row 7."""
    return pd.DataFrame(
        {
            "item": ["O1", "O2", "O3", "O2", "O3", "O4", "O1"],
            "rater": ["A", "A", "A", "B", "B", "B", "A"],
            "score": [4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 5.0],
            "c": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0],
        }
    )


CHAIN = {"item": "item", "rater": "rater", "score": "score", "confidence": "c"}


def test_a_repeated_pair_is_an_error_by_default() -> None:
    # Before, the two scores of (O1, A) counted as two assessments; Ratings refuses them.
    with pytest.raises(accord.DuplicateRatingError) as info:
        calibrate_panel(_chain_with_a_repeat(), **CHAIN)  # type: ignore[arg-type]
    assert str(info.value) == (
        "1 (item, rater) pair is scored more than once: ('O1', 'A') at rows 1, 7. "
        "calibrate_panel takes one assessment per rater and item: pass duplicates='first' "
        "or 'last' or 'mean' to resolve"
    )
    with pytest.raises(InvalidInputError, match="'duplicates' parameter of calibrate_panel"):
        calibrate_panel(_chain_with_a_repeat(), duplicates="sum", **CHAIN)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("policy", "o1", "kept"),
    [
        # by hand: O2 and O3 give b_B - b_A = 2, so b_A = -1 (sum gauge) and v_O1 = s_A,O1 + 1
        ("first", 5.0, "kept the first"),  # s = 4: the docstring's values 5, 6, 7, 8
        ("last", 6.0, "kept the last"),  # s = 5
        ("mean", 5.5, "averaged"),  # s = (4 + 5) / 2
    ],
)
def test_duplicates_policy_keeps_one_assessment_per_pair(policy: str, o1: float, kept: str) -> None:
    res = calibrate_panel(_chain_with_a_repeat(), duplicates=policy, **CHAIN)  # type: ignore[arg-type]
    assert_allclose(res.values["value"], [o1, 6.0, 7.0, 8.0], atol=1e-9)
    assert_allclose(res.biases["bias"], [-1.0, 1.0], atol=1e-9)
    assert res.n_assessments == 6 and len(res.residuals) == 6
    assert res.report is not None
    assert str(res.report) == (
        f"read 7 rows: 6 ratings of 4 items by 2 raters; dropped 1 (1 duplicate (item, rater): "
        f"{kept})"
    )
    # the confidence of the kept assessment: first 1, last 3, mean (1 + 3) / 2
    c_o1 = res.residuals.loc[res.residuals["item"] == "O1", "confidence"].iloc[0]
    assert c_o1 == {"first": 1.0, "last": 3.0, "mean": 2.0}[policy]
    assert res.to_dict()["report"]["reasons"] == {f"duplicate (item, rater): {kept}": 1}


def test_duplicates_policy_on_the_stream_engine(tmp_path: Path) -> None:
    frame = _chain_with_a_repeat()
    frame.to_parquet(tmp_path / "chain.parquet")
    path = tmp_path / "chain.parquet"
    with pytest.raises(accord.DuplicateRatingError, match=r"\('O1', 'A'\) 2 times"):
        calibrate_panel(path, engine="stream", **CHAIN)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="duplicates='first' keeps one row"):
        calibrate_panel(path, engine="stream", duplicates="first", **CHAIN)  # type: ignore[arg-type]
    stream = calibrate_panel(path, engine="stream", duplicates="mean", **CHAIN)  # type: ignore[arg-type]
    memory = calibrate_panel(frame, duplicates="mean", **CHAIN)  # type: ignore[arg-type]
    assert_allclose(stream.values["value"], [5.5, 6.0, 7.0, 8.0], atol=1e-9)
    assert_allclose(stream.values["sd"], memory.values["sd"], atol=1e-10)
    assert stream.report == memory.report


def test_hodge_rank_applies_the_same_duplicates_policy() -> None:
    frame = _chain_with_a_repeat()
    cols = {"item": "item", "rater": "rater", "score": "score", "confidence": "c"}
    with pytest.raises(accord.DuplicateRatingError, match=r"hodge_rank takes one assessment"):
        hodge_rank(frame, **cols)
    # reference: the same panel with the repeat resolved by hand (mean score 4.5, mean c 2)
    by_hand = frame.iloc[:6].copy()
    by_hand.loc[0, ["score", "c"]] = [4.5, 2.0]
    assert_allclose(
        hodge_rank(frame, duplicates="mean", **cols).scores["score"],
        hodge_rank(by_hand, **cols).scores["score"],
    )
    last = frame.iloc[1:].reset_index(drop=True)  # row 1 dropped: the last (O1, A) kept
    assert_allclose(
        hodge_rank(frame, duplicates="last", **cols).scores["score"],
        hodge_rank(last, **cols).scores["score"],
    )


def test_cli_calibrate_duplicates_and_the_read_line(tmp_path: Path) -> None:
    from accord.cli import app

    path = tmp_path / "chain.csv"
    frame = _chain_with_a_repeat()
    frame.loc[len(frame)] = ["O4", "A", np.nan, 1.0]  # a row with no score
    frame.to_csv(path, index=False)
    args = ["calibrate", str(path), "--item", "item", "--rater", "rater", "--score", "score"]
    args += ["--confidence", "c"]
    runner = CliRunner()
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and res.stdout == "" and "Traceback" not in res.stderr
    assert res.stderr.startswith("accord: error: 1 (item, rater) pair is scored more than once")
    assert len(res.stderr.strip().splitlines()) == 1
    res = runner.invoke(app, [*args, "--duplicates", "first"])
    assert res.exit_code == 0, res.output
    line = (
        "read 8 rows: 6 ratings of 4 items by 2 raters; dropped 2 (1 missing score or "
        "confidence; 1 duplicate (item, rater): kept the first)"
    )
    assert line in " ".join(res.stdout.split())
    res = runner.invoke(app, [*args, "--duplicates", "mean", "--format", "json"])
    report = cli_json(res.stdout)["report"]
    assert report["rows"] == 8 and report["ratings"] == 6 and report["dropped"] == 2


@pytest.mark.parametrize("policy", ["first", "last", "mean"])
def test_duplicates_policy_equals_the_frame_resolved_by_pandas(policy: str) -> None:
    # reference: pandas resolves the 40 repeated pairs (drop_duplicates keep=first/last, or a
    # groupby mean of score and confidence), then the panel has one row per pair
    f = _panel_frame()
    cols = {"item": "item", "rater": "rater", "score": "score", "confidence": "confidence"}
    if policy == "mean":
        by_pandas = f.groupby(["item", "rater"], as_index=False, sort=False)[
            ["score", "confidence"]
        ].mean()
    else:
        by_pandas = f.drop_duplicates(["item", "rater"], keep=policy)
    assert len(by_pandas) == len(f) - 40
    ours = calibrate_panel(f, duplicates=policy, uncertainty="exact", **cols)  # type: ignore[arg-type]
    ref = calibrate_panel(by_pandas, uncertainty="exact", **cols)  # type: ignore[arg-type]
    for col in ("value", "sd", "confidence", "plain_mean", "n"):
        assert_allclose(ours.values[col], ref.values[col], rtol=0, atol=1e-10)
    assert_allclose(ours.biases["bias"], ref.biases["bias"], rtol=0, atol=1e-10)
    assert ours.residual == pytest.approx(ref.residual, rel=1e-12)
    assert ours.report is not None and ours.report.dropped == 40
