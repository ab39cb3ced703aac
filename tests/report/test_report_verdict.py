"""The verdict wording shared by the report and the command line loads nothing heavy, so the
command line reaches it without the report's dependencies."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("pandas", "scipy.stats", "pyarrow", "dask", "matplotlib", "jinja2", "typer")


def test_verdict_module_imports_no_heavy_module() -> None:
    code = (
        "import sys\nimport accord._verdict\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"heavy modules imported: {out}"


def test_bands_of_both_benchmarks_at_their_edges() -> None:
    from accord._verdict import koo_li, landis_koch

    # Landis & Koch (1977), p. 165: <0 poor, 0-0.20 slight, 0.21-0.40 fair, 0.41-0.60
    # moderate, 0.61-0.80 substantial, 0.81-1 almost perfect (lower edges inclusive here)
    assert [landis_koch(v) for v in (-0.01, 0.0, 0.2, 0.4, 0.6, 0.8, 1.0)] == [
        "poor",
        "slight",
        "fair",
        "moderate",
        "substantial",
        "almost perfect",
        "almost perfect",
    ]
    # Koo & Li (2016), p. 161: <0.5 poor, 0.5-0.75 moderate, 0.75-0.9 good, >0.9 excellent
    assert [koo_li(v) for v in (0.49, 0.5, 0.75, 0.9)] == ["poor", "moderate", "good", "excellent"]
    assert landis_koch(float("nan")) == koo_li(float("nan")) == "undefined"


def test_icc_is_named_by_the_bands_its_interval_spans() -> None:
    from types import SimpleNamespace

    from accord._verdict import icc_reading, verdict

    # Koo & Li (2016), p. 161: ICC 0.932 with 95% CI 0.879 to 0.965 reads "good" to
    # "excellent", where the estimate alone would read excellent.
    assert icc_reading(0.932, 0.879, 0.965).startswith("good to excellent reliability")
    assert "the estimate alone reads excellent" in icc_reading(0.932, 0.879, 0.965)
    # one band at both ends: that band; the level of the interval is named
    assert icc_reading(0.8, 0.76, 0.89, 0.9) == (
        "good reliability of a single measurement (Koo & Li, from the 90% CI)"
    )
    # a wide interval reaching below 0.5 from the upper bands
    assert icc_reading(0.7, 0.2, 0.95).startswith("poor to excellent reliability")
    # no interval: the band of the estimate, and nothing said of an interval
    assert icc_reading(0.62, float("nan"), 0.9) == (
        "moderate reliability of a single measurement (Koo & Li)"
    )
    icc = SimpleNamespace(name="icc", form="ICC(A,1)", statistic=0.932)
    assert verdict(icc, 0.879, 0.965, digits=3) == (
        "ICC(A,1) 0.932 (95% CI 0.879 to 0.965): " + icc_reading(0.932, 0.879, 0.965)
    )
