"""``accord plan``: the closed forms and the simulated plan on the command line."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import accord
from accord.cli import app

from .._cli import cli_json

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["plan", *args])
    return result.exit_code, result.stdout, result.stderr


def test_icc_test_table_prints_the_plan() -> None:
    code, out, err = run("--coefficient", "icc", "--rho0", "0.6", "--rho1", "0.8", "--raters", "2")
    assert code == 0, err
    assert out.splitlines()[0].startswith("39 items rated by 2 raters")
    assert "Walter, Eliasziw & Donner (1998)" in " ".join(out.split())


def test_icc_width_with_assurance() -> None:
    args = ["--coefficient", "icc", "--rho", "0.8", "--width", "0.2", "--raters", "3"]
    code, out, err = run(*args, "--assurance", "0.8", "--format", "json")
    assert code == 0, err
    data = cli_json(out)
    expected = accord.sample_size_icc(rho=0.8, width=0.2, n_raters=3, assurance=0.8)
    assert data["n_items"] == expected.n_items == 48
    assert data["assumptions"]["assurance"] == 0.8
    code, out, err = run(*args)
    assert code == 0, err
    assert out.startswith("36 items")  # Bonett's expected width: 35.6 by eq. 5
    code, _, err = run("--coefficient", "kappa", "--rho", "0.6", "--width", "0.3",
                       "--prevalence", "0.3", "--assurance", "0.8")  # fmt: skip
    assert code == 2 and "--assurance does not apply to --coefficient kappa" in err


def test_json_is_the_result_of_the_library() -> None:
    code, out, err = run("--coefficient", "alpha", "--alpha-min", "0.8", "--p-c", "0.25",
                         "--format", "json")  # fmt: skip
    assert code == 0, err
    data = cli_json(out)
    expected = accord.sample_size_alpha(alpha_min=0.8, p_c=0.25)
    assert data["n_items"] == expected.n_items == 70 and data["n_values"] == 139
    assert data["curve"][0]["n_items"] == 2


def test_kappa_methods_and_csv_curve() -> None:
    cantor = ["--coefficient", "kappa", "--rho0", "0.85", "--rho1", "0.7", "--prevalence", "0.5",
              "--method", "cantor"]  # fmt: skip
    code, out, err = run(*cantor, "--format", "csv")
    assert code == 0, err
    assert out.splitlines()[0] == "n_items,power"
    code, out, _ = run(*cantor)
    assert out.startswith("96 items")


def test_simulated_plan_with_seed_is_reproducible() -> None:
    args = ["--simulate", "--coefficient", "fleiss_kappa", "--raters", "3", "--prevalence",
            "0.5,0.3,0.2", "--accuracy", "0.85", "--rho0", "0.4", "--n-items", "30,60",
            "--simulations", "30", "--seed", "1", "--format", "json"]  # fmt: skip
    code, first, err = run(*args)
    assert code == 0, err
    _, second, _ = run(*args)
    assert cli_json(first)["curve"] == cli_json(second)["curve"]
    assert cli_json(first)["n_simulations"] == 30


def test_simulated_plan_without_seed_is_the_plan_of_seed_0() -> None:
    # The default --seed is 0: every run of the same command prints the same plan.
    args = ["--simulate", "--coefficient", "icc", "--raters", "3", "--rho", "0.6", "--width",
            "0.5", "--n-items", "10,20,40", "--simulations", "8", "--format", "json"]  # fmt: skip
    code, first, err = run(*args)
    assert code == 0, err
    _, second, _ = run(*args)
    _, seeded, _ = run(*args, "--seed", "0")
    assert cli_json(first)["curve"] == cli_json(second)["curve"] == cli_json(seeded)["curve"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--coefficient", "kappa2", "--rho0", "0.4", "--rho1", "0.6"], "--coefficient must be"),
        (["--coefficient", "icc", "--rho0", "0.6"], "--rho1 is missing"),
        (["--coefficient", "icc", "--rho0", "0.6", "--rho1", "0.8", "--power", "1.2"],
         "--power must be a number strictly between 0 and 1; got 1.2"),
        (["--coefficient", "icc", "--rho0", "0.6", "--rho1", "0.8", "--raters", "1"],
         "--raters must be an integer of at least 2; got 1"),
        (["--coefficient", "kappa", "--rho0", "0.4", "--rho1", "0.6"], "needs --prevalence"),
        (["--coefficient", "kappa", "--rho0", "0.4", "--rho1", "0.6", "--prevalence", "a"],
         "--prevalence takes numbers"),
        (["--coefficient", "alpha", "--alpha-min", "0.8"], "needs --alpha-min and --p-c"),
        (["--coefficient", "alpha", "--alpha-min", "0.8", "--p-c", "0.9"], "--p-c must be"),
        (["--simulate", "--coefficient", "kappa", "--rho0", "0.4"], "--coefficient must be one of"),
        (["--simulate", "--coefficient", "icc", "--rho", "0.7", "--rho0", "0.5",
          "--n-items", "20.5"], "--n-items must be an integer"),
        (["--coefficient", "icc", "--rho", "0.6", "--width", "0.2", "--power", "0.9"],
         "--power belongs to a test (--rho0, --rho1), and this plan is for an interval"),
        (["--coefficient", "alpha", "--alpha-min", "0.8", "--p-c", "0.25", "--raters", "3"],
         "--raters does not apply to --coefficient alpha"),
        (["--coefficient", "icc", "--rho0", "0.6", "--rho1", "0.8", "--seed", "1"],
         "--seed does not apply to --coefficient icc"),
        (["--simulate", "--coefficient", "icc", "--rho", "0.7", "--rho0", "0.5", "--rho1", "0.8"],
         "--rho1 does not apply to --simulate"),
        (["--simulate", "--coefficient", "icc", "--rho", "0.7", "--rho0", "0.5",
          "--accuracy", "0.9"], "accuracy= applies to"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    code, _, err = run(*args)
    assert code == 2
    assert message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_help_shows_examples() -> None:
    result = runner.invoke(app, ["plan", "--help"])
    assert result.exit_code == 0
    assert "accord plan --coefficient icc --rho0 0.6 --rho1 0.8 --raters 2" in result.stdout


def test_plan_errors_name_the_command_lines_options() -> None:
    # The command line names its flags; Python (tests/planning/test_planning.py) names keywords.
    result = runner.invoke(app, ["plan", "--coefficient", "icc", "--rho0", "0.6"])
    assert result.exit_code == 2
    assert "needs both --rho0 and --rho1; --rho1 is missing" in result.stderr
    assert "rho0=" not in result.stderr
