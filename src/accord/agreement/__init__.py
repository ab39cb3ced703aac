"""Agreement coefficients: two raters and many raters."""

from __future__ import annotations

from .many_raters import FleissKappa, fleiss_kappa, krippendorff_alpha

__all__ = ["FleissKappa", "fleiss_kappa", "krippendorff_alpha"]
