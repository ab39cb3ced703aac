"""Panel calibration with confidence, HodgeRank, and a panel simulator."""

from __future__ import annotations

from .panel import PanelCalibration, calibrate_panel
from .ranking import HodgeRank, hodge_rank
from .simulate import SimulatedPanel, simulate_panel
from .stream import PanelStatistics, panel_statistics

__all__ = [
    "HodgeRank",
    "PanelCalibration",
    "PanelStatistics",
    "SimulatedPanel",
    "calibrate_panel",
    "hodge_rank",
    "panel_statistics",
    "simulate_panel",
]
