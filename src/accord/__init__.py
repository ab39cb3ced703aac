"""accord: how far can you trust your raters?

Agreement between two raters and among many, consensus diagnostics, panel calibration with
confidence and confidence calibration, with uncertainty, from ten rows to hundreds of millions.

>>> import accord
>>> r = accord.Ratings.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "a", "a"]])
>>> round(accord.fleiss_kappa(r).statistic, 4)
0.55
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ._errors import (
    AccordError,
    AccordWarning,
    ColumnNotFoundError,
    ConvergenceError,
    DegenerateDataWarning,
    DroppedDataWarning,
    DuplicateRatingError,
    InvalidInputError,
    MissingDependencyError,
)
from ._version import __version__ as __version__

if TYPE_CHECKING:
    from ._interval import ConfidenceInterval
    from ._results import Benchmark, Coefficient
    from .agreement import (
        AgreementComparison,
        AgreementTable,
        CohenKappa,
        Dichotomization,
        FleissKappa,
        ICCResult,
        InformationalAgreement,
        IntraclassCorrelation,
        IntraclassCorrelationREML,
        IntraRaterICC,
        KappaCurve,
        MarginalHomogeneity,
        PairwiseAgreement,
        PairwiseSpecificAgreement,
        PerLabelAgreement,
        PooledSpecificAgreement,
        RaterDifferences,
        RaterPermutationTest,
        SpecificAgreement,
        best_dichotomization,
        brennan_prediger,
        cohen_kappa,
        compare_agreement,
        conger_kappa,
        fleiss_kappa,
        gwet_ac1,
        gwet_ac2,
        icc,
        informational_agreement,
        intrarater_icc,
        kappa_vs_negatives,
        krippendorff_alpha,
        light_kappa,
        marginal_homogeneity,
        multi_valued_alpha,
        pairwise_agreement,
        pairwise_specific_agreement,
        per_label_agreement,
        percent_agreement,
        pooled_specific_agreement,
        rater_differences,
        rater_permutation_test,
        scott_pi,
        specific_agreement,
    )
    from .agreement.clustered import (
        ClusteredAgreement,
        StratifiedKappa,
        clustered_agreement,
        stratified_kappa,
    )
    from .agreement.gtheory import DStudy, GStudy, d_study, g_study
    from .agreement.inference import Inference
    from .agreement.rank import KendallW, kendall_w, mean_spearman
    from .calibration import (
        HodgeRank,
        PanelCalibration,
        SimulatedPanel,
        hodge_rank,
        simulate_panel,
    )
    from .confidence import (
        CalibrationMetrics,
        NormalizedCrossEntropy,
        Recalibration,
        ReliabilityDiagram,
        recalibrate,
        reliability_diagram,
    )
    from .consensus import Consensus, ConsensusSummary
    from .data.ratings import Ratings, ReadReport
    from .data.source import Source, source
    from .data.spans import Spans
    from .data.table import ContingencyTable
    from .engines import RatingStatistics, dask_statistics, stream_statistics
    from .front.agreement import agreement
    from .front.calibration import calibrate_panel, panel_statistics
    from .front.confidence import calibration_metrics, normalized_cross_entropy
    from .front.consensus import consensus
    from .front.designs import agreement_by_cluster, kappa_by_stratum
    from .front.gstudy import g_study_files
    from .front.judged import judge_counts
    from .front.truth import rater_model
    from .information import conditional_entropy, entropy, mutual_information, surprisal
    from .io.argilla import read_argilla
    from .io.confidence import read_confidences, read_sclite_sgml
    from .io.label_studio import read_label_studio, read_label_studio_relations
    from .io.pairwise import read_pairwise, read_pairwise_judgments
    from .io.prodigy import read_prodigy
    from .io.ratings import read_ratings
    from .io.spans import (
        read_bio,
        read_brat,
        read_brat_attributes,
        read_brat_relations,
        read_rttm,
        read_spans,
    )
    from .io.webanno import read_webanno_tsv, read_webanno_tsv_relations
    from .judges import (
        AltTest,
        AltTestRanking,
        JudgeAgreement,
        JudgeVsReference,
        alt_test,
        judge_agreement,
    )
    from .judges.bias import (
        LengthBias,
        PositionBias,
        SelfPreference,
        length_bias,
        position_bias,
        self_preference,
    )
    from .judges.consistency import JudgeConsistency, judge_consistency, majority_over_runs
    from .judges.corrected import (
        CorrectedDistribution,
        CorrectedRate,
        corrected_distribution,
        corrected_distribution_from_counts,
        corrected_rate,
        corrected_rate_from_counts,
    )
    from .judges.drift import AgreementDrift, agreement_drift
    from .judges.judge import Judge
    from .judges.judged_counts import JudgeCounts
    from .judges.ppi import (
        PredictionMoments,
        PredictionPoweredMean,
        prediction_powered_difference,
        prediction_powered_mean,
        prediction_powered_mean_from_moments,
    )
    from .judges.preferences import PairwisePreferenceAgreement, pairwise_preference_agreement
    from .judges.rates import JudgeRates, judge_rates
    from .measurements import (
        BlandAltman,
        ConcordanceCorrelation,
        MethodComparison,
        bland_altman,
        concordance_correlation,
    )
    from .measurements.deming import Deming, deming
    from .measurements.passing_bablok import PassingBablok, passing_bablok
    from .measurements.regression import Regression, RegressionComparison, method_regression
    from .measurements.repeated_concordance import RepeatedConcordance, repeated_concordance
    from .measurements.sample_size import LimitsSampleSize, limits_power, sample_size_limits
    from .planning import (
        RatersPerItem,
        SampleSize,
        SimulatedSampleSize,
        raters_per_item,
        sample_size_alpha,
        sample_size_icc,
        sample_size_kappa,
        sample_size_simulated,
    )
    from .report import HtmlReport, report
    from .report.measurements import bland_altman_plot, concordance_plot
    from .report.planning import d_study_figure, plan_figure
    from .report.rater_models import confusion_grid, rater_quality_plot
    from .report.regression import regression_plot, residual_plot
    from .spans import (
        AttributeAgreement,
        Gamma,
        RelationAgreement,
        SpanAgreement,
        UnitizingAlpha,
        UnitizingAlpha1995,
        attribute_agreement,
        gamma_agreement,
        relation_agreement,
        span_agreement,
        unitizing_alpha,
        unitizing_alpha_1995,
    )
    from .stats import ItemCategoryCounts, PairTables, RaterCategoryCounts
    from .stats.panel import PanelStatistics
    from .truth import ModelReliability, RaterModel, rater_model_from_counts

# Public names and the module that defines each. They are imported on first use, so that
# `import accord` stays light (no pandas, pyarrow, scipy.stats, dask or matplotlib).
_EXPORTS: dict[str, str] = {
    "AgreementTable": ".agreement",
    "CalibrationMetrics": ".confidence",
    "Benchmark": "._results",
    "Coefficient": "._results",
    "CohenKappa": ".agreement",
    "AgreementComparison": ".agreement",
    "compare_agreement": ".agreement",
    "ConfidenceInterval": "._interval",
    "Consensus": ".consensus",
    "ConsensusSummary": ".consensus",
    "ContingencyTable": ".data.table",
    "Dichotomization": ".agreement",
    "FleissKappa": ".agreement",
    "RaterDifferences": ".agreement",
    "RaterPermutationTest": ".agreement",
    "rater_differences": ".agreement",
    "rater_permutation_test": ".agreement",
    "HodgeRank": ".calibration",
    "HtmlReport": ".report",
    "ICCResult": ".agreement",
    "Inference": ".agreement.inference",
    "InformationalAgreement": ".agreement",
    "IntraclassCorrelation": ".agreement",
    "IntraclassCorrelationREML": ".agreement",
    "IntraRaterICC": ".agreement",
    "ItemCategoryCounts": ".stats",
    "KappaCurve": ".agreement",
    "NormalizedCrossEntropy": ".confidence",
    "PairTables": ".stats",
    "PairwiseAgreement": ".agreement",
    "PairwisePreferenceAgreement": ".judges.preferences",
    "Judge": ".judges.judge",
    "PairwiseSpecificAgreement": ".agreement",
    "PanelCalibration": ".calibration",
    "PanelStatistics": ".stats.panel",
    "PerLabelAgreement": ".agreement",
    "PooledSpecificAgreement": ".agreement",
    "RaterCategoryCounts": ".stats",
    "RatingStatistics": ".engines",
    "Ratings": ".data.ratings",
    "AltTest": ".judges",
    "AltTestRanking": ".judges",
    "alt_test": ".judges",
    "JudgeAgreement": ".judges",
    "JudgeVsReference": ".judges",
    "judge_agreement": ".judges",
    "CorrectedDistribution": ".judges.corrected",
    "CorrectedRate": ".judges.corrected",
    "corrected_distribution": ".judges.corrected",
    "corrected_distribution_from_counts": ".judges.corrected",
    "corrected_rate": ".judges.corrected",
    "corrected_rate_from_counts": ".judges.corrected",
    "JudgeCounts": ".judges.judged_counts",
    "judge_counts": ".front.judged",
    "JudgeRates": ".judges.rates",
    "judge_rates": ".judges.rates",
    "PredictionMoments": ".judges.ppi",
    "PredictionPoweredMean": ".judges.ppi",
    "prediction_powered_difference": ".judges.ppi",
    "prediction_powered_mean": ".judges.ppi",
    "prediction_powered_mean_from_moments": ".judges.ppi",
    "JudgeConsistency": ".judges.consistency",
    "judge_consistency": ".judges.consistency",
    "majority_over_runs": ".judges.consistency",
    "LengthBias": ".judges.bias",
    "PositionBias": ".judges.bias",
    "SelfPreference": ".judges.bias",
    "length_bias": ".judges.bias",
    "position_bias": ".judges.bias",
    "self_preference": ".judges.bias",
    "read_pairwise_judgments": ".io.pairwise",
    "AgreementDrift": ".judges.drift",
    "agreement_drift": ".judges.drift",
    "MarginalHomogeneity": ".agreement",
    "marginal_homogeneity": ".agreement",
    "BlandAltman": ".measurements",
    "ConcordanceCorrelation": ".measurements",
    "MethodComparison": ".measurements",
    "bland_altman": ".measurements",
    "bland_altman_plot": ".report.measurements",
    "concordance_plot": ".report.measurements",
    "concordance_correlation": ".measurements",
    "Deming": ".measurements.deming",
    "deming": ".measurements.deming",
    "PassingBablok": ".measurements.passing_bablok",
    "passing_bablok": ".measurements.passing_bablok",
    "Regression": ".measurements.regression",
    "RegressionComparison": ".measurements.regression",
    "method_regression": ".measurements.regression",
    "LimitsSampleSize": ".measurements.sample_size",
    "RepeatedConcordance": ".measurements.repeated_concordance",
    "repeated_concordance": ".measurements.repeated_concordance",
    "limits_power": ".measurements.sample_size",
    "sample_size_limits": ".measurements.sample_size",
    "regression_plot": ".report.regression",
    "residual_plot": ".report.regression",
    "SampleSize": ".planning",
    "SimulatedSampleSize": ".planning",
    "sample_size_alpha": ".planning",
    "sample_size_icc": ".planning",
    "sample_size_kappa": ".planning",
    "sample_size_simulated": ".planning",
    "ReadReport": ".data.ratings",
    "Recalibration": ".confidence",
    "ReliabilityDiagram": ".confidence",
    "SimulatedPanel": ".calibration",
    "SpanAgreement": ".spans",
    "Spans": ".data.spans",
    "SpecificAgreement": ".agreement",
    "agreement": ".front.agreement",
    "agreement_by_cluster": ".front.designs",
    "kappa_by_stratum": ".front.designs",
    "best_dichotomization": ".agreement",
    "brennan_prediger": ".agreement",
    "calibrate_panel": ".front.calibration",
    "calibration_metrics": ".front.confidence",
    "panel_statistics": ".front.calibration",
    "cohen_kappa": ".agreement",
    "conditional_entropy": ".information",
    "conger_kappa": ".agreement",
    "consensus": ".front.consensus",
    "dask_statistics": ".engines",
    "entropy": ".information",
    "fleiss_kappa": ".agreement",
    "gwet_ac1": ".agreement",
    "gwet_ac2": ".agreement",
    "hodge_rank": ".calibration",
    "icc": ".agreement",
    "intrarater_icc": ".agreement",
    "informational_agreement": ".agreement",
    "kappa_vs_negatives": ".agreement",
    "krippendorff_alpha": ".agreement",
    "multi_valued_alpha": ".agreement",
    "per_label_agreement": ".agreement",
    "light_kappa": ".agreement",
    "mutual_information": ".information",
    "normalized_cross_entropy": ".front.confidence",
    "pairwise_agreement": ".agreement",
    "pairwise_preference_agreement": ".judges.preferences",
    "pairwise_specific_agreement": ".agreement",
    "percent_agreement": ".agreement",
    "pooled_specific_agreement": ".agreement",
    "read_argilla": ".io.argilla",
    "read_bio": ".io.spans",
    "read_brat": ".io.spans",
    "read_label_studio": ".io.label_studio",
    "read_pairwise": ".io.pairwise",
    "read_prodigy": ".io.prodigy",
    "read_confidences": ".io.confidence",
    "read_ratings": ".io.ratings",
    "read_sclite_sgml": ".io.confidence",
    "read_spans": ".io.spans",
    "recalibrate": ".confidence",
    "reliability_diagram": ".confidence",
    "report": ".report",
    "Source": ".data.source",
    "source": ".data.source",
    "plan_figure": ".report.planning",
    "scott_pi": ".agreement",
    "simulate_panel": ".calibration",
    "span_agreement": ".spans",
    "specific_agreement": ".agreement",
    "stream_statistics": ".engines",
    "surprisal": ".information",
    # rater models
    "ModelReliability": ".truth",
    "RaterModel": ".truth",
    "rater_model": ".front.truth",
    "rater_model_from_counts": ".truth",
    "RatersPerItem": ".planning",
    "raters_per_item": ".planning",
    "confusion_grid": ".report.rater_models",
    "rater_quality_plot": ".report.rater_models",
    "ClusteredAgreement": ".agreement.clustered",
    "StratifiedKappa": ".agreement.clustered",
    "clustered_agreement": ".agreement.clustered",
    "stratified_kappa": ".agreement.clustered",
    "DStudy": ".agreement.gtheory",
    "GStudy": ".agreement.gtheory",
    "d_study": ".agreement.gtheory",
    "g_study": ".agreement.gtheory",
    "g_study_files": ".front.gstudy",
    "KendallW": ".agreement.rank",
    "kendall_w": ".agreement.rank",
    "mean_spearman": ".agreement.rank",
    "d_study_figure": ".report.planning",
    "UnitizingAlpha": ".spans",
    "UnitizingAlpha1995": ".spans",
    "unitizing_alpha": ".spans",
    "unitizing_alpha_1995": ".spans",
    "read_rttm": ".io.spans",
    "read_webanno_tsv": ".io.webanno",
    "read_webanno_tsv_relations": ".io.webanno",
    "read_brat_attributes": ".io.spans",
    "read_brat_relations": ".io.spans",
    "AttributeAgreement": ".spans",
    "RelationAgreement": ".spans",
    "attribute_agreement": ".spans",
    "relation_agreement": ".spans",
    "Gamma": ".spans",
    "gamma_agreement": ".spans",
    "read_label_studio_relations": ".io.label_studio",
}

# Submodules reached as attributes without an import: `accord.datasets.load_diagnoses()`.
_SUBMODULES = frozenset({"datasets"})

# Functions that share their name with a module of the package: `accord.consensus` is the
# function (defined in accord.front.consensus); the package of its estimators is reached
# with `from accord.consensus import ...`.
_SHADOWED = frozenset({"agreement", "consensus", "report"})


class _Package(ModuleType):
    """The package module: importing a submodule must not rebind a public function's name."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SHADOWED and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

__all__ = [
    "AccordError",
    "AccordWarning",
    "AgreementComparison",
    "AgreementDrift",
    "AgreementTable",
    "AltTest",
    "AltTestRanking",
    "AttributeAgreement",
    "Benchmark",
    "BlandAltman",
    "CalibrationMetrics",
    "ClusteredAgreement",
    "Coefficient",
    "CohenKappa",
    "ColumnNotFoundError",
    "ConcordanceCorrelation",
    "ConfidenceInterval",
    "Consensus",
    "ConsensusSummary",
    "ContingencyTable",
    "ConvergenceError",
    "CorrectedDistribution",
    "CorrectedRate",
    "DStudy",
    "DegenerateDataWarning",
    "Deming",
    "Dichotomization",
    "DroppedDataWarning",
    "DuplicateRatingError",
    "FleissKappa",
    "GStudy",
    "Gamma",
    "HodgeRank",
    "HtmlReport",
    "ICCResult",
    "Inference",
    "InformationalAgreement",
    "IntraRaterICC",
    "IntraclassCorrelation",
    "IntraclassCorrelationREML",
    "InvalidInputError",
    "ItemCategoryCounts",
    "Judge",
    "JudgeAgreement",
    "JudgeConsistency",
    "JudgeCounts",
    "JudgeRates",
    "JudgeVsReference",
    "KappaCurve",
    "KendallW",
    "LengthBias",
    "LimitsSampleSize",
    "MarginalHomogeneity",
    "MethodComparison",
    "MissingDependencyError",
    # rater models
    "ModelReliability",
    "NormalizedCrossEntropy",
    "PairTables",
    "PairwiseAgreement",
    "PairwisePreferenceAgreement",
    "PairwiseSpecificAgreement",
    "PanelCalibration",
    "PanelStatistics",
    "PassingBablok",
    "PerLabelAgreement",
    "PooledSpecificAgreement",
    "PositionBias",
    "PredictionMoments",
    "PredictionPoweredMean",
    "RaterCategoryCounts",
    "RaterDifferences",
    "RaterModel",
    "RaterPermutationTest",
    "RatersPerItem",
    "RatingStatistics",
    "Ratings",
    "ReadReport",
    "Recalibration",
    "Regression",
    "RegressionComparison",
    "RelationAgreement",
    "ReliabilityDiagram",
    "RepeatedConcordance",
    "SampleSize",
    "SelfPreference",
    "SimulatedPanel",
    "SimulatedSampleSize",
    "Source",
    "SpanAgreement",
    "Spans",
    "SpecificAgreement",
    "StratifiedKappa",
    "UnitizingAlpha",
    "UnitizingAlpha1995",
    "__version__",
    "agreement",
    "agreement_by_cluster",
    "agreement_drift",
    "alt_test",
    "attribute_agreement",
    "best_dichotomization",
    "bland_altman",
    "bland_altman_plot",
    "brennan_prediger",
    "calibrate_panel",
    "calibration_metrics",
    "clustered_agreement",
    "cohen_kappa",
    "compare_agreement",
    "concordance_correlation",
    "concordance_plot",
    "conditional_entropy",
    "confusion_grid",
    "conger_kappa",
    "consensus",
    "corrected_distribution",
    "corrected_distribution_from_counts",
    "corrected_rate",
    "corrected_rate_from_counts",
    "d_study",
    "d_study_figure",
    "dask_statistics",
    "datasets",
    "deming",
    "entropy",
    "fleiss_kappa",
    "g_study",
    "g_study_files",
    "gamma_agreement",
    "gwet_ac1",
    "gwet_ac2",
    "hodge_rank",
    "icc",
    "informational_agreement",
    "intrarater_icc",
    "judge_agreement",
    "judge_consistency",
    "judge_counts",
    "judge_rates",
    "kappa_by_stratum",
    "kappa_vs_negatives",
    "kendall_w",
    "krippendorff_alpha",
    "length_bias",
    "light_kappa",
    "limits_power",
    "majority_over_runs",
    "marginal_homogeneity",
    "mean_spearman",
    "method_regression",
    "multi_valued_alpha",
    "mutual_information",
    "normalized_cross_entropy",
    "pairwise_agreement",
    "pairwise_preference_agreement",
    "pairwise_specific_agreement",
    "panel_statistics",
    "passing_bablok",
    "per_label_agreement",
    "percent_agreement",
    "plan_figure",
    "pooled_specific_agreement",
    "position_bias",
    "prediction_powered_difference",
    "prediction_powered_mean",
    "prediction_powered_mean_from_moments",
    "rater_differences",
    "rater_model",
    "rater_model_from_counts",
    "rater_permutation_test",
    "rater_quality_plot",
    "raters_per_item",
    "read_argilla",
    "read_bio",
    "read_brat",
    "read_brat_attributes",
    "read_brat_relations",
    "read_confidences",
    "read_label_studio",
    "read_label_studio_relations",
    "read_pairwise",
    "read_pairwise_judgments",
    "read_prodigy",
    "read_ratings",
    "read_rttm",
    "read_sclite_sgml",
    "read_spans",
    "read_webanno_tsv",
    "read_webanno_tsv_relations",
    "recalibrate",
    "regression_plot",
    "relation_agreement",
    "reliability_diagram",
    "repeated_concordance",
    "report",
    "residual_plot",
    "sample_size_alpha",
    "sample_size_icc",
    "sample_size_kappa",
    "sample_size_limits",
    "sample_size_simulated",
    "scott_pi",
    "self_preference",
    "simulate_panel",
    "source",
    "span_agreement",
    "specific_agreement",
    "stratified_kappa",
    "stream_statistics",
    "surprisal",
    "unitizing_alpha",
    "unitizing_alpha_1995",
]


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'accord' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    # the words the results show in a notebook (registered by the module that writes them)
    importlib.import_module("._verdict", __name__)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS) | _SUBMODULES)
