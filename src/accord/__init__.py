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
    from .information import conditional_entropy, entropy, mutual_information, surprisal
    from .io.argilla import read_argilla
    from .io.confidence import read_confidences, read_sclite_sgml
    from .io.label_studio import read_label_studio
    from .io.pairwise import read_pairwise
    from .io.prodigy import read_prodigy
    from .io.ratings import read_ratings
    from .io.spans import read_bio, read_brat, read_spans
    from .judges import (
        AltTest,
        AltTestRanking,
        JudgeAgreement,
        JudgeVsReference,
        alt_test,
        judge_agreement,
    )
    from .judges.preferences import PairwisePreferenceAgreement, pairwise_preference_agreement
    from .measurements import (
        BlandAltman,
        ConcordanceCorrelation,
        MethodComparison,
        bland_altman,
        concordance_correlation,
    )
    from .measurements.deming import Deming, deming
    from .measurements.passing_bablok import PassingBablok, passing_bablok
    from .measurements.regression import RegressionComparison, method_regression
    from .measurements.repeated_concordance import RepeatedConcordance, repeated_concordance
    from .measurements.sample_size import LimitsSampleSize, limits_power, sample_size_limits
    from .planning import (
        SampleSize,
        SimulatedSampleSize,
        sample_size_alpha,
        sample_size_icc,
        sample_size_kappa,
        sample_size_simulated,
    )
    from .report import HtmlReport, report
    from .report.measurements import bland_altman_plot, concordance_plot
    from .report.planning import plan_figure
    from .report.regression import regression_plot, residual_plot
    from .spans import SpanAgreement, span_agreement
    from .stats import ItemCategoryCounts, PairTables, RaterCategoryCounts
    from .stats.panel import PanelStatistics

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
    "AgreementTable",
    "AltTest",
    "AltTestRanking",
    "Benchmark",
    "BlandAltman",
    "CalibrationMetrics",
    "Coefficient",
    "CohenKappa",
    "ColumnNotFoundError",
    "ConcordanceCorrelation",
    "ConfidenceInterval",
    "Consensus",
    "ConsensusSummary",
    "ContingencyTable",
    "ConvergenceError",
    "DegenerateDataWarning",
    "Deming",
    "Dichotomization",
    "DroppedDataWarning",
    "DuplicateRatingError",
    "FleissKappa",
    "HodgeRank",
    "HtmlReport",
    "ICCResult",
    "InformationalAgreement",
    "IntraRaterICC",
    "IntraclassCorrelation",
    "IntraclassCorrelationREML",
    "InvalidInputError",
    "ItemCategoryCounts",
    "JudgeAgreement",
    "JudgeVsReference",
    "KappaCurve",
    "LimitsSampleSize",
    "MarginalHomogeneity",
    "MethodComparison",
    "MissingDependencyError",
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
    "RaterCategoryCounts",
    "RaterDifferences",
    "RaterPermutationTest",
    "RatingStatistics",
    "Ratings",
    "ReadReport",
    "Recalibration",
    "RegressionComparison",
    "ReliabilityDiagram",
    "RepeatedConcordance",
    "SampleSize",
    "SimulatedPanel",
    "SimulatedSampleSize",
    "Source",
    "SpanAgreement",
    "Spans",
    "SpecificAgreement",
    "__version__",
    "agreement",
    "alt_test",
    "best_dichotomization",
    "bland_altman",
    "bland_altman_plot",
    "brennan_prediger",
    "calibrate_panel",
    "calibration_metrics",
    "cohen_kappa",
    "compare_agreement",
    "concordance_correlation",
    "concordance_plot",
    "conditional_entropy",
    "conger_kappa",
    "consensus",
    "dask_statistics",
    "datasets",
    "deming",
    "entropy",
    "fleiss_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "hodge_rank",
    "icc",
    "informational_agreement",
    "intrarater_icc",
    "judge_agreement",
    "kappa_vs_negatives",
    "krippendorff_alpha",
    "light_kappa",
    "limits_power",
    "marginal_homogeneity",
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
    "rater_differences",
    "rater_permutation_test",
    "read_argilla",
    "read_bio",
    "read_brat",
    "read_confidences",
    "read_label_studio",
    "read_pairwise",
    "read_prodigy",
    "read_ratings",
    "read_sclite_sgml",
    "read_spans",
    "recalibrate",
    "regression_plot",
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
    "simulate_panel",
    "source",
    "span_agreement",
    "specific_agreement",
    "stream_statistics",
    "surprisal",
]


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'accord' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS) | _SUBMODULES)
