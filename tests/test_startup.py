"""What a command imports before it runs, and the light distribution functions that keep
scipy.stats out of it.

``import accord`` and the command line's quick paths (``--help``, a usage error) must not
load the heavy modules that only some estimators use; the F and chi-square functions of
:mod:`accord._interval` give the numbers of ``scipy.stats`` to the last bit without loading
it. The time itself is measured in ``benchmarks/startup.py``, not here.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from accord._interval import chi2_quantile, chi2_sf, f_quantile, f_sf

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

#: Modules (and their submodules) that only some estimators, figures or engines use.
HEAVY = (
    "scipy.stats",
    "scipy.optimize",
    "scipy.linalg",
    "scipy.interpolate",
    "matplotlib",
    "jinja2",
    "dask",
    "distributed",
    "pyarrow.dataset",
    "polars",
    "duckdb",
    "statsmodels",
)

#: Run in a fresh interpreter: the command line with the given arguments, then the heavy
#: modules loaded by then (on stdout, as JSON; the command's own output goes to stderr).
PROBE = """
import contextlib, json, sys
heavy = tuple(json.loads(sys.argv[1]))
with contextlib.redirect_stdout(sys.stderr):
    if sys.argv[2] == "import":
        import accord
    else:
        from accord.cli import main
        sys.argv = ["accord", *sys.argv[2:]]
        try:
            main()
        except SystemExit:
            pass
loaded = [m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy)]
print(json.dumps(sorted(loaded)))
"""


def heavy_modules_after(command: str) -> list[str]:
    """The heavy modules a fresh interpreter has loaded after ``accord command`` (or after
    ``import accord`` when ``command`` is ``"import"``), run in the examples folder."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(HEAVY), *command.split()],
        capture_output=True,
        text=True,
        cwd=EXAMPLES,
        check=True,
    )
    loaded: list[str] = json.loads(out.stdout.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    "command",
    [
        pytest.param("import", id="import accord"),
        pytest.param("--help", id="accord --help"),
        pytest.param("agree", id="accord agree (no file)"),
        pytest.param("agree pefr.csv", id="accord agree without its columns"),
        pytest.param(
            "agree pefr.csv --item subject --rater meter --label pefr --level interval",
            id="accord agree at interval level (the F intervals of the ICC)",
        ),
        pytest.param(
            "agree diagnoses.csv --item patient --rater rater --label diagnosis",
            id="accord agree, nominal",
        ),
    ],
)
def test_commands_load_no_heavy_module(command: str) -> None:
    assert heavy_modules_after(command) == []


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(
            "report pefr.csv --item subject --rater meter --label pefr --level interval",
            id="accord report at interval level (Bland-Altman, Passing-Bablok, the CCC)",
        ),
        pytest.param(
            "report diagnoses.csv --item patient --rater rater --label diagnosis",
            id="accord report, nominal",
        ),
    ],
)
def test_report_loads_only_the_page_and_its_figures(command: str, tmp_path: Path) -> None:
    """A report's figures need matplotlib and its page jinja2; nothing else heavy (the exact
    tolerance limits solve by bisection, Passing-Bablok counts its slopes in numpy)."""
    loaded = heavy_modules_after(f"{command} -o {tmp_path / 'page.html'}")
    assert (tmp_path / "page.html").exists()
    assert sorted({m.split(".")[0] for m in loaded}) == ["jinja2", "matplotlib"]


def test_probe_sees_a_heavy_module_when_one_is_loaded() -> None:
    """The probe itself can fail: ``accord plan`` loads scipy.stats (the power of its
    tests)."""
    loaded = heavy_modules_after("plan --coefficient icc --rho0 0.6 --rho1 0.8 --raters 2")
    assert "scipy.stats" in loaded


# The light functions against scipy.stats, the peer they stand in for: equal to the last bit
# (or both NaN), at the ends of the support and for invalid degrees of freedom too.

DF = st.one_of(
    st.floats(min_value=1e-3, max_value=1e6),
    st.integers(min_value=1, max_value=10_000).map(float),
    st.sampled_from([0.0, -1.0, math.nan, math.inf]),
)
X = st.one_of(
    st.floats(min_value=-10.0, max_value=1e4),
    st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 1e-300]),
)
P = st.one_of(
    st.floats(min_value=0.0, max_value=1.0),
    st.sampled_from([0.0, 1.0, 0.5, 0.975, 1e-12, 1 - 1e-12, -0.1, 1.1, math.nan]),
)


def same(a: float, b: float) -> bool:
    """Equal to the last bit, or both NaN."""
    return (math.isnan(a) and math.isnan(b)) or a == b


@given(x=X, dfn=DF, dfd=DF)
def test_f_sf_is_scipy_stats(x: float, dfn: float, dfd: float) -> None:
    assert same(f_sf(x, dfn, dfd), float(stats.f.sf(x, dfn, dfd)))


@given(p=P, dfn=DF, dfd=DF)
def test_f_quantile_is_scipy_stats(p: float, dfn: float, dfd: float) -> None:
    assert same(f_quantile(p, dfn, dfd), float(stats.f.ppf(p, dfn, dfd)))


@given(x=X, df=DF)
def test_chi2_sf_is_scipy_stats(x: float, df: float) -> None:
    assert same(chi2_sf(x, df), float(stats.chi2.sf(x, df)))


@given(p=P, df=DF)
def test_chi2_quantile_is_scipy_stats(p: float, df: float) -> None:
    assert same(chi2_quantile(p, df), float(stats.chi2.ppf(p, df)))


def test_integer_degrees_of_freedom() -> None:
    """The ICC's F intervals pass integer degrees of freedom (n - 1, (n - 1)(k - 1)).

    Table values: F(0.975; 16, 16) = 2.76 and chi-square(0.95; 1) = 3.84.
    """
    assert f_quantile(0.975, 16, 16) == float(stats.f.ppf(0.975, 16, 16))
    assert round(f_quantile(0.975, 16, 16), 2) == 2.76
    assert f_sf(2.5, 16, 16) == float(stats.f.sf(2.5, 16, 16))
    assert chi2_quantile(0.95, 1) == float(stats.chi2.ppf(0.95, 1))
    assert round(chi2_quantile(0.95, 1), 2) == 3.84
    assert chi2_sf(3.0, 2) == float(stats.chi2.sf(3.0, 2))
    assert math.isclose(chi2_sf(3.0, 2), math.exp(-1.5), rel_tol=1e-15)  # exp(-x/2) at 2 df


def test_a_report_on_ratings_loads_no_scipy_stats(tmp_path: Path) -> None:
    # the permutation test's stopping rule (beta quantiles) and the rater model's Wald
    # intervals (normal quantiles) come from scipy.special; the page's figures need matplotlib
    page = tmp_path / "page.html"
    loaded = heavy_modules_after(
        f"report diagnoses.csv --item patient --rater rater --label diagnosis -o {page}"
    )
    assert page.exists()
    assert "matplotlib" in loaded  # the probe saw the report's own imports
    assert [m for m in loaded if m.split(".")[:2] == ["scipy", "stats"]] == []
