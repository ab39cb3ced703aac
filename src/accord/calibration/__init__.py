"""Panel calibration with confidence, HodgeRank, and a panel simulator (the estimators).

:func:`accord.calibrate_panel` and :func:`accord.panel_statistics`, which choose an engine
and read files, live in :mod:`accord.front.calibration`; the panel's mergeable sums,
:class:`accord.PanelStatistics`, in :mod:`accord.stats.panel`.
"""

from __future__ import annotations

from .panel import PanelCalibration, calibrate_assessments, calibrate_panel_from_statistics
from .ranking import HodgeRank, hodge_rank
from .simulate import SimulatedPanel, simulate_panel

__all__ = [
    "HodgeRank",
    "PanelCalibration",
    "SimulatedPanel",
    "calibrate_assessments",
    "calibrate_panel_from_statistics",
    "hodge_rank",
    "simulate_panel",
]
