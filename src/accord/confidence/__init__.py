"""Confidence calibration: is a system's confidence honest?

The estimators behind NCE exactly as NIST sclite computes it
(:func:`accord.normalized_cross_entropy`), its companions (:func:`accord.calibration_metrics`,
:func:`reliability_diagram`) and cross-fitted recalibration (:func:`recalibrate`). Every
number is a function of two mergeable sufficient statistics, :class:`ConfidenceSums` and
:class:`ConfidenceValueCounts`, with estimators on them (:func:`nce_from_sums`,
:func:`calibration_from_statistics`, :func:`reliability_from_value_counts`) for batched or
distributed data. The entry points that read files and pick an engine are in
:mod:`accord.front.confidence`.
"""

from __future__ import annotations

from ..data.scored import OutOfRange
from ..stats.confidence import (
    SCLITE_CEILING,
    SCLITE_FLOOR,
    ConfidenceSums,
    ConfidenceValueCounts,
)
from ._calibration import (
    CalibrationMetrics,
    ReliabilityDiagram,
    calibration_from_statistics,
    reliability_diagram,
    reliability_from_value_counts,
    wilson_interval,
)
from ._nce import NormalizedCrossEntropy, nce_from_sums
from ._options import Binning, RecalibrationMethod
from ._recalibrate import CalibrationMap, Recalibration, fit_calibration_map, recalibrate

__all__ = [
    "SCLITE_CEILING",
    "SCLITE_FLOOR",
    "Binning",
    "CalibrationMap",
    "CalibrationMetrics",
    "ConfidenceSums",
    "ConfidenceValueCounts",
    "NormalizedCrossEntropy",
    "OutOfRange",
    "Recalibration",
    "RecalibrationMethod",
    "ReliabilityDiagram",
    "calibration_from_statistics",
    "fit_calibration_map",
    "nce_from_sums",
    "recalibrate",
    "reliability_diagram",
    "reliability_from_value_counts",
    "wilson_interval",
]
