"""The version of accord, in one place (the package root and the methods paragraph read it)."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
