"""Results print short: every public result type has a repr of at most 10 lines of at most 100
characters, and an HTML table for notebooks."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import accord
from accord._results import REPR_LINES, REPR_WIDTH, Result
from accord.agreement.raters import rater_differences, rater_permutation_test

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _diagnoses() -> accord.Ratings:
    return accord.read_ratings(
        EXAMPLES / "diagnoses.csv", item="patient", rater="rater", label="diagnosis"
    )


def _birads() -> accord.Ratings:
    return accord.read_ratings(
        EXAMPLES / "birads.csv", item="finding", rater="modality", label="birads", level="ordinal"
    )


def _measurements() -> accord.Ratings:
    gen = np.random.default_rng(0)
    return accord.Ratings.from_wide(
        gen.normal(20, 5, (12, 1)) + gen.normal(0, 1, (12, 3)), level="interval"
    )


def _panel_frame() -> pd.DataFrame:
    sim = accord.simulate_panel(30, 6, raters_per_item=3, rng=1)
    return sim.assessments


def _confidence() -> tuple[np.ndarray, np.ndarray]:
    gen = np.random.default_rng(2)
    conf = gen.uniform(0.5, 1.0, 300)
    return (gen.uniform(size=300) < conf).astype(int), conf


def _spans() -> accord.Spans:
    return accord.read_brat(EXAMPLES / "spans")


def _judge_pairs() -> pd.DataFrame:
    return pd.read_json(EXAMPLES / "judge-pairs.jsonl", lines=True)


def _write(frame: pd.DataFrame, path: Path) -> Path:
    frame.to_csv(path, index=False)
    return path


def _rating_statistics(tmp: Path) -> Any:
    path = tmp / "d.csv"
    pd.read_csv(EXAMPLES / "diagnoses.csv").to_csv(path, index=False)
    return accord.stream_statistics(path, item="patient", rater="rater", label="diagnosis")


#: One instance of every public result type (a new public type fails the test below until it
#: is added here).
FACTORIES: dict[str, Callable[[Path], Any]] = {
    "AgreementComparison": lambda _: accord.compare_agreement(_diagnoses(), _diagnoses()),
    "AgreementTable": lambda _: accord.agreement(_diagnoses()),
    "Benchmark": lambda _: accord.fleiss_kappa(_diagnoses()).benchmark("fleiss"),
    "CalibrationMetrics": lambda _: accord.calibration_metrics(*_confidence()),
    "Coefficient": lambda _: accord.conger_kappa(_diagnoses()),
    "CohenKappa": lambda _: accord.cohen_kappa(_birads()),
    "ConfidenceInterval": lambda _: accord.fleiss_kappa(_diagnoses()).confidence_interval(),
    "Consensus": lambda _: accord.consensus(_diagnoses()),
    "ConsensusSummary": lambda _: accord.consensus(_diagnoses()).summary,
    "ContingencyTable": lambda _: accord.ContingencyTable.from_ratings(_birads()),
    "Dichotomization": lambda _: accord.best_dichotomization(_birads()),
    "FleissKappa": lambda _: accord.fleiss_kappa(_diagnoses()),
    "HodgeRank": lambda _: accord.hodge_rank(
        _panel_frame(), item="item", rater="rater", score="score"
    ),
    "HtmlReport": lambda _: accord.report(_diagnoses(), progress=False),
    "ICCResult": lambda _: accord.icc(_measurements()),
    "InformationalAgreement": lambda _: accord.informational_agreement(_birads(), n_boot=50, rng=0),
    "IntraclassCorrelation": lambda _: accord.icc(_measurements())["ICC(A,1)"],
    "IntraclassCorrelationREML": lambda _: accord.icc(_measurements(), method="reml")["ICC(A,1)"],
    "IntraRaterICC": lambda _: accord.intrarater_icc(
        pd.DataFrame(
            {"item": [1, 2, 1, 2], "rater": "a", "trial": [1, 1, 2, 2], "score": [1, 2, 1.5, 2]}
        )
    ),
    "ItemCategoryCounts": lambda _: accord.ItemCategoryCounts.from_ratings(_diagnoses()),
    "KappaCurve": lambda _: accord.kappa_vs_negatives(_birads(), positive=5),
    "NormalizedCrossEntropy": lambda _: accord.normalized_cross_entropy(*_confidence()),
    "PairTables": lambda _: accord.PairTables.from_ratings(_diagnoses()),
    "PairwiseAgreement": lambda _: accord.pairwise_agreement(_diagnoses()),
    "PairwiseSpecificAgreement": lambda _: accord.pairwise_specific_agreement(_diagnoses()),
    "PanelCalibration": lambda _: accord.calibrate_panel(
        _panel_frame(), item="item", rater="rater", score="score", rng=0
    ),
    "PanelStatistics": lambda tmp: accord.panel_statistics(
        _write(_panel_frame(), tmp / "panel.csv"), item="item", rater="rater", score="score"
    ),
    "PerLabelAgreement": lambda _: accord.per_label_agreement(
        accord.Ratings.from_arrays(
            [1, 1, 2, 2, 3, 3],
            ["a", "b"] * 3,
            [["x", "y"], ["x"], ["y"], ["y"], [], ["x"]],
            multi_label=True,
        )
    ),
    "PooledSpecificAgreement": lambda _: accord.pooled_specific_agreement(_diagnoses()),
    "RaterCategoryCounts": lambda _: accord.RaterCategoryCounts.from_ratings(_diagnoses()),
    "RatingStatistics": _rating_statistics,
    "Ratings": lambda _: _diagnoses(),
    "Judge": lambda _: accord.Judge(
        "llm", humans=["a", "b"], epsilon=0.2, time="time", window="7d"
    ),
    "Regression": lambda _: accord.Regression("deming", error_ratio=2.0),
    "Inference": lambda _: accord.Inference(
        se="items", rater_population_size=20, test_value=0.6, alternative="greater"
    ),
    "Source": lambda _: accord.source(
        EXAMPLES / "diagnoses.csv",
        item="patient",
        rater="rater",
        label="diagnosis",
        level="nominal",
        sep=",",
        na_values=["NA", "n/a"],
        batch_size=10_000,
    ),
    "ReadReport": lambda _: _diagnoses().report,
    "Recalibration": lambda _: accord.recalibrate(*_confidence(), rng=0),
    "ReliabilityDiagram": lambda _: accord.reliability_diagram(*_confidence()),
    "SimulatedPanel": lambda _: accord.simulate_panel(30, 6, rng=1),
    "SpanAgreement": lambda _: accord.span_agreement(_spans()),
    "Spans": lambda _: _spans(),
    "UnitizingAlpha": lambda _: accord.unitizing_alpha(_spans()),
    "UnitizingAlpha1995": lambda _: accord.unitizing_alpha_1995(_spans()),
    "Gamma": lambda _: accord.gamma_agreement(_spans(), n_samples=3),
    "RelationAgreement": lambda _: accord.relation_agreement(
        _spans(), accord.read_brat_relations(EXAMPLES / "spans")
    ),
    "AttributeAgreement": lambda _: accord.attribute_agreement(
        _spans(), accord.read_brat_attributes(EXAMPLES / "spans")
    ),
    "SpecificAgreement": lambda _: accord.specific_agreement(_birads()),
    "RaterDifferences": lambda _: rater_differences(_measurements()),
    "PairwisePreferenceAgreement": lambda _: accord.pairwise_preference_agreement(
        pd.read_json(
            Path(__file__).parent / "reference" / "annotation_tools" / "pairwise.jsonl", lines=True
        )
    ),
    "AltTest": lambda _: accord.alt_test(
        _diagnoses(), "rater6", epsilon=0.15, min_items_per_rater=20
    ),
    "AltTestRanking": lambda _: accord.alt_test(
        _diagnoses(), ["rater5", "rater6"], epsilon=0.15, min_items_per_rater=20
    ),
    "RaterPermutationTest": lambda _: rater_permutation_test(_diagnoses(), n_permutations=99),
    "JudgeAgreement": lambda _: accord.judge_agreement(_diagnoses(), "rater6", n_boot=50, rng=0),
    "JudgeConsistency": lambda _: accord.judge_consistency(
        pd.read_csv(EXAMPLES / "judge-pair-runs.csv"),
        "judge-model",
        item="question_id",
        rater="judge",
        label="preferred",
        trial="order",
    ),
    "PositionBias": lambda _: accord.position_bias(_judge_pairs()),
    "LengthBias": lambda _: accord.length_bias(_judge_pairs()),
    "SelfPreference": lambda _: accord.self_preference(
        pd.read_json(EXAMPLES / "annotation-tools" / "pairwise.jsonl", lines=True),
        "gpt-4-pair",
        "gpt-4",
    ),
    "AgreementDrift": lambda _: accord.agreement_drift(
        pd.read_csv(EXAMPLES / "judge-drift.csv"),
        "judge",
        label="verdict",
        time="time",
        window="14d",
    ),
    "JudgeVsReference": lambda _: (
        accord.judge_agreement(_diagnoses(), "rater6", n_boot=0).consensus
    ),
    "MarginalHomogeneity": lambda _: accord.marginal_homogeneity(
        [[20, 3, 4], [5, 30, 2], [9, 1, 12]]
    ),
    "BlandAltman": lambda _: accord.bland_altman([1.0, 2.5, 3.0, 4.5], [1.2, 2.0, 3.3, 4.1]),
    "ConcordanceCorrelation": lambda _: accord.concordance_correlation(_measurements()),
    "MethodComparison": lambda _: accord.bland_altman(_measurements()),
    "SampleSize": lambda _: accord.sample_size_icc(rho0=0.6, rho1=0.8, n_raters=2),
    "SimulatedSampleSize": lambda _: accord.sample_size_simulated(
        "icc", rho=0.7, rho0=0.5, n_items=[20, 40], n_simulations=10, seed=0
    ),
    "CorrectedRate": lambda _: accord.corrected_rate([1, 1, 0, 0, 1], [1, 0, 0, 0, 1], [1, 0]),
    "CorrectedDistribution": lambda _: accord.corrected_distribution(
        ["a", "b", "c", "a"], ["a", "b", "c", "b"], ["a", "c"]
    ),
    "JudgeCounts": lambda _: accord.JudgeCounts.from_labels([1, 0], [1, 1], [0, 1, 1]),
    "JudgeRates": lambda _: accord.judge_rates(
        accord.read_ratings(
            accord.datasets.path("pandalm-judged.csv"),
            item="item",
            rater="rater",
            label="preference",
        ),
        "gpt-3.5-turbo",
    ),
    "PredictionMoments": lambda _: accord.PredictionMoments.from_arrays([1, 0], [1, 1], [0, 1]),
    "PredictionPoweredMean": lambda _: accord.prediction_powered_mean([1, 0, 1], [1, 1, 1], [0, 1]),
    # rater models
    "RaterModel": lambda _: accord.rater_model(_diagnoses(), n_bootstrap=0),
    "ModelReliability": lambda _: accord.rater_model(_diagnoses(), n_bootstrap=0).reliability,
    "RatersPerItem": lambda _: accord.raters_per_item(
        accord.rater_model(_diagnoses(), n_bootstrap=0), raters=(1, 2), n_simulations=5
    ),
    "GStudy": lambda _: accord.g_study(_long_scores()),
    "DStudy": lambda _: accord.d_study(accord.g_study(_long_scores())),
    "KendallW": lambda _: accord.kendall_w([[1, 2, 1], [2, 1, 3], [3, 3, 2], [4, 4, 4]]),
    "ClusteredAgreement": lambda _: accord.clustered_agreement(
        [1, 1, 0, 0, 1, 0, 1, 0], [1, 0, 0, 0, 1, 1, 1, 0], [1, 1, 2, 2, 3, 3, 4, 4]
    ),
    "StratifiedKappa": lambda _: accord.stratified_kappa(
        [1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0],
        [1, 1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0],
        [1] * 6 + [2] * 6,
    ),
    "PassingBablok": lambda _: accord.passing_bablok([1.0, 2.5, 3.0, 4.5], [1.2, 2.0, 3.3, 4.1]),
    "Deming": lambda _: accord.deming([1.0, 2.5, 3.0, 4.5], [1.2, 2.0, 3.3, 4.1]),
    "RegressionComparison": lambda _: accord.method_regression(_measurements()),
    "LimitsSampleSize": lambda _: accord.sample_size_limits(2.5, 7, mean=0.5),
    "RepeatedConcordance": lambda _: accord.repeated_concordance(
        [10, 11, 10, 12, 20, 21, 22, 21, 15, 14, 16, 16],
        [1] * 4 + [2] * 4 + [3] * 4,
        ["a", "a", "b", "b"] * 3,
    ),
}


def _long_scores() -> pd.DataFrame:
    """Shrout & Fleiss (1979): 6 targets x 4 judges as a long table."""
    y = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    rows = [(i, j, v) for i, row in enumerate(y) for j, v in enumerate(row)]
    return pd.DataFrame(rows, columns=["item", "rater", "score"])


def _public_types() -> set[str]:
    out = set()
    for name in accord.__all__:
        obj = getattr(accord, name)
        if isinstance(obj, type) and not issubclass(obj, BaseException | Warning):
            out.add(name)
    return out


def test_every_public_result_type_is_covered() -> None:
    missing = _public_types() - set(FACTORIES)
    assert not missing, f"add a factory for {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_repr_is_short(name: str, tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = FACTORIES[name](tmp_path)
    text = repr(obj)
    lines = text.splitlines()
    assert 1 <= len(lines) <= REPR_LINES, text
    assert max(map(len, lines)) <= REPR_WIDTH, text
    assert type(obj).__name__ in lines[0]
    if isinstance(obj, Result):
        html = obj._repr_html_()
        assert html.startswith("<div") and "<table" in html
        assert "<style" not in html or "accord-report" in html


def test_repr_names_the_estimate_and_interval() -> None:
    r = _diagnoses()
    kappa = accord.fleiss_kappa(r)
    ci = kappa.confidence_interval()
    first = repr(kappa).splitlines()[0]
    assert first == (
        f"FleissKappa: fleiss_kappa = {kappa.statistic:.4g} (95% CI {ci.low:.4g} to {ci.high:.4g})"
    )
    # a table of coefficients lists each on its own line
    table = repr(accord.agreement(r, coefficients=["fleiss_kappa", "percent_agreement"]))
    assert "    fleiss_kappa = 0.4302" in table and "    percent_agreement = 0.5556" in table


def test_html_table_of_a_result_shows_its_frame() -> None:
    table = accord.agreement(_diagnoses(), coefficients=["fleiss_kappa"])
    html = table._repr_html_()
    assert "<b>AgreementTable</b>" in html
    assert "fleiss_kappa" in html and "0.4302" in html  # the to_frame() rows


def test_long_repr_is_cut_and_says_so() -> None:
    text = repr(accord.icc(_measurements()))
    assert len(text.splitlines()) == REPR_LINES
    assert text.splitlines()[-1].startswith("  ... ") and "to_dict()" in text


def test_a_long_headline_is_wrapped_not_cut() -> None:
    # Before: "JudgeAgreement: pandalm-7b: kappa with humans 0.436 vs among humans 0.671,
    # difference -0.235 (95% C…", the interval cut off at 100 characters.
    r = accord.read_ratings(accord.datasets.path("pandalm.csv"), item="item", rater="rater",
                            label="preference")  # fmt: skip
    res = accord.judge_agreement(r, judge="pandalm-7b", humans=["annotator1", "annotator2",
                                 "annotator3"], n_boot=0)  # fmt: skip
    text = repr(res)
    headline = res._headline()
    assert " ".join(" ".join(text.splitlines()[:3]).split()).find(headline) >= 0
    assert "\u2026" not in text.splitlines()[0]
    assert max(map(len, text.splitlines())) <= REPR_WIDTH
    assert len(text.splitlines()) <= REPR_LINES


def test_a_judge_without_resamples_says_it_has_no_interval() -> None:
    # Before: "(95% CI nan to nan)" with n_boot=0.
    r = accord.read_ratings(accord.datasets.path("pandalm.csv"), item="item", rater="rater",
                            label="preference")  # fmt: skip
    res = accord.judge_agreement(r, judge="pandalm-7b", n_boot=0)
    assert res._headline().endswith("(no interval: n_boot=0)")
    assert "nan" not in res._headline()
