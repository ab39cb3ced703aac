"""Panel calibration with confidence, HodgeRank, and a panel simulator."""

from __future__ import annotations

from .panel import PanelCalibration, calibrate_panel
from .ranking import HodgeRank, hodge_rank
from .simulate import SimulatedPanel, simulate_panel

__all__ = [
    "HodgeRank",
    "PanelCalibration",
    "SimulatedPanel",
    "calibrate_panel",
    "hodge_rank",
    "simulate_panel",
]
