"""Shared test configuration: hypothesis profiles, paths to bundled reference data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# CI draws the same examples on every run, so that a submission passes or fails on its code,
# not on the draw; the dev profile explores fresh examples each run (and keeps what fails in
# the example database).
settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=40, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# pytest-xdist starts its workers with COLUMNS set (80 when the run has no terminal); the
# command-line tests read the width as a serial run does, from the tests that set it.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.pop("COLUMNS", None)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SCLITE = ROOT / "tests" / "reference" / "sclite"


@pytest.fixture
def examples() -> Path:
    """The bundled example data folder."""
    return EXAMPLES


@pytest.fixture
def sclite_data() -> Path:
    """NIST SCTK sclite test3b files bundled under tests/reference/sclite (see its README)."""
    return SCLITE
