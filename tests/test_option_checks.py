"""Options outside their domain: one line and exit status 2 (or the right answer), never a
traceback; too few bootstrap replicates warn; a plan says which way its test looks; a judge
named twice is refused."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import accord
from accord import AccordWarning, InvalidInputError
from accord.cli import app

from ._cli import cli_json

runner = CliRunner()
EXAMPLES = Path(__file__).parents[1] / "examples"
DIAGNOSES = [str(EXAMPLES / "diagnoses.csv"), "--item", "patient", "--rater", "rater",
             "--label", "diagnosis"]  # fmt: skip
BIRADS = [str(EXAMPLES / "birads.csv"), "--item", "finding", "--rater", "modality",
          "--label", "birads"]  # fmt: skip


def one_line_error(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"accord {' '.join(args)} raised {result.exception!r}"
    )
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("accord: error: "), result.stderr
    return lines[0]


@pytest.mark.parametrize(
    "args",
    [
        ["agree", *DIAGNOSES, "--seed", "-1", "--ci", "bootstrap", "--n-boot", "1000"],
        ["agree", *DIAGNOSES, "--seed", "-1"],  # refused even where no bootstrap runs
        ["pair", *BIRADS, "--seed", "-5"],
        ["judge", *DIAGNOSES, "--judge", "rater6", "--epsilon", "0.15", "--seed", "-1"],
        ["report", *DIAGNOSES, "--seed", "-1", "-o", "unused.html"],
        [
            "plan",
            "--coefficient",
            "kappa",
            "--rho0",
            "0.4",
            "--rho1",
            "0.6",
            "--prevalence",
            "0.3",
            "--simulate",
            "--seed",
            "-1",
        ],
    ],
)
def test_a_negative_seed_is_a_one_line_error(args: list[str]) -> None:
    assert "--seed must be a non-negative integer; got -" in one_line_error(args)


@pytest.mark.parametrize("rng", [-1, 1.5, "7", True])
def test_the_library_refuses_a_seed_numpy_cannot_take(rng: object) -> None:
    with pytest.raises(InvalidInputError, match="'rng' parameter of agreement"):
        accord.agreement(
            accord.datasets.load_diagnoses(),
            inference=accord.Inference(ci="bootstrap", n_boot=1000, seed=rng),  # type: ignore[arg-type]
        )


def test_an_unknown_scheduler_is_a_one_line_error() -> None:
    line = one_line_error(["agree", *DIAGNOSES, "--engine", "dask", "--scheduler", "bogus"])
    assert "--scheduler must be an address (tcp://host:8786) or one of threads" in line
    assert line.endswith("got bogus")


@pytest.mark.parametrize(
    "args",
    [
        ["agree", *DIAGNOSES, "--n-boot", "abc"],
        ["agree", *DIAGNOSES, "--format", "yaml"],
        ["agree", *DIAGNOSES, "--no-such-option"],
        ["pair", *BIRADS, "--n-boot", "1e3"],
    ],
)
def test_options_that_do_not_parse_are_one_line_errors(args: list[str]) -> None:
    assert f"(see accord {args[0]} --help)" in one_line_error(args)


def test_alpha_option_errors_speak_the_command_line() -> None:
    line = one_line_error(["agree", *DIAGNOSES, "--ci", "bogus"])
    assert line == "accord: error: --ci must be one of analytic, bootstrap; got bogus"


def test_too_few_bootstrap_replicates_warn_with_the_reference() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        accord.fleiss_kappa(accord.datasets.load_diagnoses(), ci="bootstrap", n_boot=5, rng=1)
    messages = [str(w.message) for w in caught if issubclass(w.category, AccordWarning)]
    assert any("only 5 bootstrap replicates (n_boot=5)" in m for m in messages), messages
    assert any("at least 1000 (Efron & Tibshirani 1993)" in m for m in messages)


def test_enough_bootstrap_replicates_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", AccordWarning)
        accord.fleiss_kappa(accord.datasets.load_diagnoses(), ci="bootstrap", n_boot=1000, rng=1)


@pytest.mark.parametrize(
    "args",
    [
        ["agree", *DIAGNOSES, "--ci", "bootstrap", "--n-boot", "5"],
        ["pair", *BIRADS, "--n-boot", "5"],
    ],
)
def test_the_cli_warns_of_too_few_replicates(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "accord: warning: only 5 bootstrap replicates (--n-boot 5)" in result.stderr
    assert "Pass --n-boot 2000" in result.stderr


def test_a_plan_below_the_null_says_it_tests_the_lower_tail() -> None:
    args = ["plan", "--coefficient", "icc", "--rho0", "0.8", "--rho1", "0.6", "--raters", "3"]
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    plan = cli_json(result.stdout)
    test = "H0: rho >= 0.8 against H1: rho = 0.6 (one-sided, lower tail)"
    assert plan["assumptions"]["hypotheses"] == test
    table = runner.invoke(app, args).stdout
    assert test in " ".join(table.split())  # the headline, as wrapped to the terminal
    assert "│ hypotheses" not in table  # words, not a row of the table of numbers
    # Walter, Eliasziw & Donner (1998), eq. (4), by hand for k = 3: C0 = (1 + 3 * 0.8/0.2) /
    # (1 + 3 * 0.6/0.4) = 13 / 5.5; n = 1 + 2 (1.6449 + 0.8416)^2 3 / (ln(C0)^2 2) = 26.07,
    # the same |ln C0| as the upper test of 0.6 against 0.8.
    c0 = 13 / 5.5
    by_hand = 1 + 2 * (1.6448536 + 0.8416212) ** 2 * 3 / (np.log(c0) ** 2 * 2)
    assert plan["n_exact"] == pytest.approx(by_hand, rel=1e-6)


def test_a_plan_above_the_null_says_it_tests_the_upper_tail() -> None:
    plan = accord.sample_size_icc(rho0=0.6, rho1=0.8, n_raters=2)
    assert plan.assumptions["hypotheses"] == (
        "H0: rho <= 0.6 against H1: rho = 0.8 (one-sided, upper tail)"
    )


def test_a_judge_named_twice_is_refused_by_name() -> None:
    line = one_line_error(["judge", *DIAGNOSES, "--judge", "rater6", "--judge", "rater6",
                           "--epsilon", "0.15", "--min-items-per-rater", "20"])  # fmt: skip
    assert line == (
        "accord: error: --judge rater6 is given twice: each judge is tested and ranked once; "
        "name it once"
    )
    with pytest.raises(InvalidInputError, match=r"judge='rater5' is given twice"):
        accord.alt_test(accord.datasets.load_diagnoses(), ["rater5", "rater6", "rater5"],
                        epsilon=0.15, min_items_per_rater=20)  # fmt: skip


def test_options_beyond_what_can_be_computed_are_refused() -> None:
    pefr = [str(EXAMPLES / "pefr.csv"), "--item", "subject", "--rater", "meter", "--score", "pefr"]
    line = one_line_error(["compare", *pefr, "--multiplier", "10"])
    assert line.startswith("accord: error: --multiplier must be a positive number of SDs up to 8")
    line = one_line_error(["agree", *DIAGNOSES, "--ci", "bootstrap", "--n-boot", str(10**20)])
    assert "--n-boot must be an integer from 1 to 10,000,000" in line
    line = one_line_error(["plan", "--coefficient", "icc", "--rho0", "0.6", "--rho1", "0.8",
                           "--raters", str(10**20)])  # fmt: skip
    assert "--raters must be at most 1,000,000,000" in line
    with pytest.raises(InvalidInputError, match="population_size must be a positive number"):
        accord.fleiss_kappa(accord.datasets.load_diagnoses(), population_size=-math.inf)


def test_limits_eight_sd_from_the_bias_still_have_exact_intervals() -> None:
    ratings = accord.datasets.load_pefr()
    ba = accord.bland_altman(ratings, reference="mini-Wright", multiplier=8)
    row = ba.table().iloc[0]
    # The limits by hand: the mean of the 17 differences Wright - mini-Wright (Bland &
    # Altman 1986, Table 1) minus 8 of their SDs (numpy, ddof=1).
    wide = ratings.to_wide()
    diff = (wide["Wright"] - wide["mini-Wright"]).to_numpy(dtype=float)
    assert row["lower"] == pytest.approx(diff.mean() - 8 * diff.std(ddof=1), rel=1e-12)
    assert math.isfinite(row["lower_ci_low"]) and row["lower_ci_low"] < row["lower"]


def test_light_kappa_note_speaks_the_callers_dialect() -> None:
    # Python: the keyword; the command line: the flag, never both in one note.
    light = accord.light_kappa(accord.read_ratings(DIAGNOSES[0], item="patient", rater="rater",
                                                   label="diagnosis"), ci="analytic")  # fmt: skip
    assert light.reason == "no analytic SE: ci='bootstrap' gives one"
    result = runner.invoke(app, ["agree", *DIAGNOSES, "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in cli_json(result.stdout)["coefficients"]}
    assert rows["light_kappa"]["reason"] == "no analytic SE: --ci bootstrap gives one"
    # What was done, in no dialect: the advice is the note's, not the method's
    assert rows["light_kappa"]["method"].endswith("co-rated items; no analytic SE")
    assert "ci=" not in result.stdout


def test_advice_names_the_options_as_the_front_door_called_takes_them() -> None:
    ratings = accord.read_ratings(DIAGNOSES[0], item="patient", rater="rater", label="diagnosis")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = accord.agreement(ratings)
    light = next(c for c in table.coefficients if c.name == "light_kappa")
    # agreement takes ci inside its Inference (ci= alone is deprecated there)
    assert light.reason == "no analytic SE: inference=accord.Inference(ci='bootstrap') gives one"
    assert math.isnan(light.standard_error)
    followed = accord.agreement(ratings, coefficients=["light_kappa"],
                                inference=accord.Inference(ci="bootstrap", n_boot=200))  # fmt: skip
    assert math.isfinite(followed.coefficients[0].standard_error)  # the advice works
    # report refuses ci (an option of accord.agreement): its page gives no advice to set it,
    # though it computes the same table through agreement (the outer front door speaks)
    page = accord.report(ratings, progress=False)
    assert "no analytic SE" in page.html
    assert "ci=" not in page.html and "ci=&#39;" not in page.html
    with pytest.raises(InvalidInputError, match=r"is an option of accord\.agreement"):
        accord.report(ratings, inference=accord.Inference(ci="bootstrap"), progress=False)
    # a function that takes ci itself is advised with the keyword alone, after either
    assert accord.light_kappa(ratings, ci="analytic").reason == (
        "no analytic SE: ci='bootstrap' gives one"
    )
