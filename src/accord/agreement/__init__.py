"""Agreement coefficients: two raters and many raters."""

from __future__ import annotations

from .compare import AgreementComparison, compare_agreement
from .homogeneity import MarginalHomogeneity, marginal_homogeneity
from .icc import (
    ICCResult,
    IntraclassCorrelation,
    IntraclassCorrelationREML,
    icc,
    icc_from_statistics,
)
from .icc_intrarater import IntraRaterICC, intrarater_icc
from .krippendorff import krippendorff_alpha
from .many_raters import (
    FleissKappa,
    brennan_prediger,
    conger_kappa,
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    percent_agreement,
)
from .multi_valued import multi_valued_alpha
from .pairwise import PairwiseAgreement, light_kappa, pairwise_agreement
from .per_label import PerLabelAgreement, per_label_agreement
from .raters import (
    RaterDifferences,
    RaterPermutationTest,
    rater_differences,
    rater_permutation_test,
)
from .specific import KappaCurve, SpecificAgreement, kappa_vs_negatives, specific_agreement
from .specific_many import (
    PairwiseSpecificAgreement,
    PooledSpecificAgreement,
    pairwise_specific_agreement,
    pooled_specific_agreement,
)
from .summary import AgreementTable, agreement_from_statistics, agreement_table
from .two_raters import (
    CohenKappa,
    Dichotomization,
    InformationalAgreement,
    as_table,
    best_dichotomization,
    cohen_kappa,
    informational_agreement,
    scott_pi,
)
from .weights import agreement_weights

__all__ = [
    "AgreementComparison",
    "AgreementTable",
    "CohenKappa",
    "Dichotomization",
    "FleissKappa",
    "ICCResult",
    "InformationalAgreement",
    "IntraRaterICC",
    "IntraclassCorrelation",
    "IntraclassCorrelationREML",
    "KappaCurve",
    "MarginalHomogeneity",
    "PairwiseAgreement",
    "PairwiseSpecificAgreement",
    "PerLabelAgreement",
    "PooledSpecificAgreement",
    "RaterDifferences",
    "RaterPermutationTest",
    "SpecificAgreement",
    "agreement_from_statistics",
    "agreement_table",
    "agreement_weights",
    "as_table",
    "best_dichotomization",
    "brennan_prediger",
    "cohen_kappa",
    "compare_agreement",
    "conger_kappa",
    "fleiss_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "icc",
    "icc_from_statistics",
    "informational_agreement",
    "intrarater_icc",
    "kappa_vs_negatives",
    "krippendorff_alpha",
    "light_kappa",
    "marginal_homogeneity",
    "multi_valued_alpha",
    "pairwise_agreement",
    "pairwise_specific_agreement",
    "per_label_agreement",
    "percent_agreement",
    "pooled_specific_agreement",
    "rater_differences",
    "rater_permutation_test",
    "scott_pi",
    "specific_agreement",
]
