"""Shared test configuration: hypothesis profiles, paths to shared reference data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=40, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture
def examples() -> Path:
    """The bundled example data folder."""
    return EXAMPLES


@pytest.fixture
def shared_data() -> Path:
    """Reference data shared beside the checkout (../shared/data), read in place."""
    if not SHARED_DATA.exists():
        pytest.fail(f"reference data not found at {SHARED_DATA}; CI clones ../shared beside it")
    return SHARED_DATA
