"""``report(inference=accord.Inference(...), judge=accord.Judge(...),
regression=accord.Regression(...))`` and the keywords they replaced, deprecated for one
release: the same page from both forms, the warning that spells the new form, the error of
both forms at once, and each bad option named as the user wrote it."""

from __future__ import annotations

import html as html_module
import inspect
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import accord
from accord.cli import app
from accord.report._blocks import fmt

from ..measurements.test_method_regression import lab_frame, lab_ratings
from .test_report import row_values

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DIAGNOSES = {"item": "patient", "rater": "rater", "label": "diagnosis"}
DRIFT = accord.datasets.path("judge-drift.csv")
DRIFT_NAMES = {"item": "item", "rater": "rater", "label": "verdict"}
LOG = accord.datasets.path("judge-pairs.jsonl")
SMALL = accord.datasets.path("annotation-tools") / "pairwise.jsonl"


def _small() -> accord.Ratings:
    return accord.Ratings.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "a", "a"]])


def _moved(caught: list[warnings.WarningMessage]) -> list[str]:
    """The deprecation messages of the report's moved keywords."""
    return [
        str(w.message)
        for w in caught
        if issubclass(w.category, DeprecationWarning) and str(w.message).startswith("report(")
    ]


def test_the_signature_names_at_most_14_parameters() -> None:
    parameters = inspect.signature(accord.report).parameters
    assert len(parameters) <= 14, list(parameters)
    assert {"inference", "judge", "regression"} <= set(parameters)
    moved = {"confidence_level", "n_boot", "seed", "se", "rater_population_size",
             "test_value", "alternative", "humans", "epsilon", "pairwise", "time", "window",
             "error_ratio"}  # fmt: skip
    assert not moved & set(parameters)


def test_the_old_inference_keywords_warn_and_give_the_same_page() -> None:
    options: dict[str, Any] = dict(confidence_level=0.9, n_boot=100, seed=3, se="unconditional",
                                   rater_population_size=60, test_value=0.4,
                                   alternative="greater")  # fmt: skip
    path = EXAMPLES / "diagnoses.csv"
    new = accord.report(path, inference=accord.Inference(**options), progress=False, **DIAGNOSES)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = accord.report(path, progress=False, **DIAGNOSES, **options)
    assert _moved(caught) == [
        "report(confidence_level=..., n_boot=..., seed=..., se=..., rater_population_size=..., "
        "test_value=..., alternative=...) is deprecated: pass inference=accord.Inference("
        "confidence_level=0.9, n_boot=100, seed=3, se='unconditional', "
        "rater_population_size=60, test_value=0.4, alternative='greater')"
    ]
    assert caught[0].filename == __file__  # the warning points at the user's call
    assert old.sections == new.sections and old.html == new.html
    # the options reached the page: the test's heading, the seed, the level
    text = html_module.unescape(new.html)
    assert "p (H0: ≤ 0.4)" in text and "seeded with 3" in text and "90%" in text
    plain = accord.report(path, inference=accord.Inference(n_boot=100), progress=False,
                          **DIAGNOSES)  # fmt: skip
    assert "p (H0:" not in plain.html and "seeded with 0" in html_module.unescape(plain.html)


def test_a_seed_of_none_is_the_report_seed_zero() -> None:
    # Inference's own default seed (None) would draw fresh numbers; the report's default is
    # Inference(seed=0), so the same input gives the same page
    r = _small()
    one = accord.report(r, inference=accord.Inference(n_boot=100), progress=False)
    zero = accord.report(r, inference=accord.Inference(n_boot=100, seed=0), progress=False)
    assert one.html == zero.html
    from accord.report._options import DEFAULT_INFERENCE

    assert accord.Inference(seed=0) == DEFAULT_INFERENCE


def test_the_old_judge_keywords_warn_and_give_the_same_page() -> None:
    judge = accord.Judge("judge", humans=["h1", "h2", "h3"], epsilon=0.15, time="time",
                         window="14d")  # fmt: skip
    fast = accord.Inference(n_boot=50)
    new = accord.report(DRIFT, judge=judge, inference=fast, progress=False, **DRIFT_NAMES)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = accord.report(DRIFT, judge="judge", humans=["h1", "h2", "h3"], epsilon=0.15,
                            time="time", window="14d", inference=fast, progress=False,
                            **DRIFT_NAMES)  # fmt: skip
    assert _moved(caught) == [
        "report(humans=..., epsilon=..., time=..., window=...) is deprecated: pass "
        "judge=accord.Judge(rater='judge', humans=['h1', 'h2', 'h3'], epsilon=0.15, "
        "time='time', window='14d')"
    ]
    assert old.sections == new.sections and old.html == new.html
    assert new.sections[:2] == ("judge", "judge-drift")
    assert "windows of 14d gives" in new.html.split('id="judge-drift"', 1)[1]


def test_the_old_pairwise_keyword_warns_and_gives_the_same_page() -> None:
    ratings = accord.read_pairwise(SMALL, duplicates="first")
    fast = accord.Inference(n_boot=100)
    new = accord.report(ratings, judge=accord.Judge(pairwise=LOG), inference=fast)
    with pytest.warns(DeprecationWarning, match=r"pass judge=accord\.Judge\(pairwise=Posix"):
        old = accord.report(ratings, pairwise=LOG, inference=fast)
    assert "judge-bias" in new.sections and old.html == new.html
    import pandas as pd

    frame = pd.read_json(LOG, lines=True)
    msg = re.escape(
        "report(pairwise=...) is deprecated: pass judge=accord.Judge(pairwise=<DataFrame>)"
    )
    with pytest.warns(DeprecationWarning, match=msg):
        framed = accord.report(ratings, pairwise=frame, inference=fast)
    assert framed.html == new.html


def test_the_old_error_ratio_warns_and_gives_the_same_deming_fit() -> None:
    new = accord.report(lab_ratings(), regression=accord.Regression("deming", error_ratio=2.0),
                        progress=False)  # fmt: skip
    msg = re.escape("report(error_ratio=...) is deprecated: pass "
                    "regression=accord.Regression(method='deming', error_ratio=2.0)")  # fmt: skip
    with pytest.warns(DeprecationWarning, match=msg):
        old = accord.report(lab_ratings(), regression="deming", error_ratio=2.0, progress=False)
    assert old.html == new.html
    # the ratio reached the fit: the table holds method_regression's Deming fit at lambda = 2
    # (that fit is checked against mcr in tests/measurements/test_method_regression.py)
    want = accord.method_regression(lab_ratings(), method="deming", error_ratio=2.0).fits[0]
    values = row_values(new.html, "x on y")
    assert [values[1], values[3]] == [fmt(want.intercept), fmt(want.slope)]
    other = accord.method_regression(lab_ratings(), method="deming").fits[0]
    assert fmt(other.slope) != fmt(want.slope)  # lambda = 1 gives another line
    assert "in the ratio 2 (x to y)" in new.html


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [
        ({"se": "items"}, {"inference": accord.Inference()}, "got se and inference="),
        ({"epsilon": 0.2}, {"judge": accord.Judge("rater1", epsilon=0.2)},
         "got epsilon and judge="),
        ({"error_ratio": 2.0}, {"regression": accord.Regression("deming")},
         "got error_ratio and regression="),
    ],
)  # fmt: skip
def test_an_old_keyword_with_its_new_object_is_a_one_line_error(
    old: dict[str, Any], new: dict[str, Any], match: str
) -> None:
    with pytest.raises(accord.InvalidInputError, match=re.escape(match)) as caught:
        accord.report(_small(), progress=False, **old, **new)
    assert "\n" not in str(caught.value)
    assert "pass only the latter" in str(caught.value)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: accord.Judge("llm", epsilon=0.2, time="time", window="2 weeks"),
         "The 'window' parameter of accord.Judge must be a length such as '7d', '12h', '2w' or "
         "'30min'. Got '2 weeks' instead."),
        (lambda: accord.Judge("llm", epsilon=1.5),
         "The 'epsilon' parameter of accord.Judge must be a number in [0, 1). Got 1.5 instead."),
        (lambda: accord.Judge("llm", epsilon=0.2, humans="h1,h2"),
         "The 'humans' parameter of accord.Judge must be a list of rater ids. Got 'h1,h2' "
         "instead."),
        (lambda: accord.Judge("llm", epsilon=0.2, pairwise=3),
         "The 'pairwise' parameter of accord.Judge must be a path or a data frame. Got 3 "
         "instead."),
        (lambda: accord.Judge("llm"), "needs epsilon (no safe default"),
        (lambda: accord.Judge(epsilon=0.2), "epsilon is the judge's margin: give the judge too"),
        (lambda: accord.Judge("llm", epsilon=0.2, window="7d"), "give time too"),
        (lambda: accord.Regression("theil-sen"),
         "The 'method' parameter of accord.Regression must be one of {'passing-bablok', "
         "'deming'}. Got 'theil-sen' instead."),
        (lambda: accord.Regression("deming", error_ratio=-1),
         "The 'error_ratio' parameter of accord.Regression must be a positive number. Got -1 "
         "instead."),
        (lambda: accord.Regression(error_ratio=2.0),
         "error_ratio=2.0 is Deming's ratio of the error variances: give "
         "Regression('deming', error_ratio=2.0)"),
        (lambda: accord.report(_small(), inference=accord.Inference(ci="bootstrap")),
         "report: Inference(ci='bootstrap') is an option of accord.agreement"),
        (lambda: accord.report(_small(), inference=accord.Inference(population_size=100)),
         "report: Inference(population_size=100) is an option of accord.agreement"),
        (lambda: accord.report(_small(), inference=accord.Inference(seed=np.random.default_rng())),
         "The 'seed' parameter of report must be an integer"),
        (lambda: accord.report(_small(), inference=accord.Inference(confidence_level=1.5)),
         "The 'confidence_level' parameter of report must be a number in (0, 1). Got 1.5"),
        (lambda: accord.report(_small(), inference={"se": "items"}),
         "report: inference must be an accord.Inference, not dict"),
        (lambda: accord.report(_small(), regression=2),
         "The 'regression' parameter of report must be 'passing-bablok', 'deming' or an "
         "accord.Regression. Got 2 instead."),
        (lambda: accord.report(_small(), regression="theil-sen"),
         "The 'regression' parameter of report must be one of"),
    ],
)  # fmt: skip
def test_a_bad_option_is_one_line_naming_it_as_written(make: Any, message: str) -> None:
    with pytest.raises(accord.InvalidInputError) as caught:
        make()
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_bad_window_given_the_old_way_names_the_judge_option() -> None:
    with pytest.warns(DeprecationWarning), pytest.raises(accord.InvalidInputError) as caught:
        accord.report(DRIFT, judge="judge", epsilon=0.1, time="time", window="2 weeks",
                      progress=False, **DRIFT_NAMES)  # fmt: skip
    assert "'window' parameter of accord.Judge" in str(caught.value)
    assert "agreement_drift" not in str(caught.value)


def _cli(args: list[str]) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = CliRunner().invoke(app, args)
    return res, _moved(caught)


def test_the_command_builds_the_new_objects_without_a_warning(tmp_path: Path) -> None:
    out = tmp_path / "drift.html"
    res, moved = _cli(["report", str(DRIFT), "--item", "item", "--rater", "rater", "--label",
                       "verdict", "--judge", "judge", "--humans", "h1,h2,h3", "--epsilon",
                       "0.15", "--time", "time", "--window", "14d", "--seed", "0",
                       "--se", "items", "-o", str(out), "--quiet"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert moved == []
    written = out.read_text(encoding="utf-8")
    assert 'id="judge-drift"' in written and "windows of 14d gives" in written
    assert "standard error conditional on the items" in html_module.unescape(written)
    lab_frame().to_csv(tmp_path / "lab.csv", index=False)
    res, moved = _cli(["report", str(tmp_path / "lab.csv"), "--item", "sample", "--rater",
                       "method", "--label", "value", "--level", "ratio", "--regression",
                       "deming", "--error-ratio", "2", "-o", str(tmp_path / "lab.html"),
                       "--quiet"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert moved == []
    assert "in the ratio 2 (x to y)" in (tmp_path / "lab.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--judge", "judge", "--epsilon", "0.1", "--time", "time", "--window", "2weeks"],
         "--window must be a length such as '7d', '12h', '2w' or '30min'; got 2weeks"),
        (["--judge", "judge", "--epsilon", "1.5"], "--epsilon must be a number in [0, 1); got 1.5"),
        (["--error-ratio", "2"], "--error-ratio is Deming's ratio of the error variances: give "
         "--regression deming too"),
    ],
)  # fmt: skip
def test_bad_command_options_are_one_line_and_exit_2(
    flags: list[str], message: str, tmp_path: Path
) -> None:
    base = ["report", str(DRIFT), "--item", "item", "--rater", "rater", "--label", "verdict",
            "-o", str(tmp_path / "x.html"), "--quiet"]  # fmt: skip
    res = CliRunner().invoke(app, [*base, *flags])
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("n_boot", [-3, 2.5, True])
def test_a_bad_n_boot_is_refused_before_any_section(n_boot: Any) -> None:
    # n_boot serves every bootstrap of the page, with analytic intervals as well
    with pytest.raises(accord.InvalidInputError, match=r"'n_boot' parameter of accord\.Inference"):
        accord.report(
            accord.datasets.path("diagnoses.csv"), item="patient", rater="rater",
            label="diagnosis", progress=False, inference=accord.Inference(n_boot=n_boot),
        )  # fmt: skip


def test_the_report_command_takes_n_boot(tmp_path: Path) -> None:
    page = str(tmp_path / "p.html")
    args = ["report", str(accord.datasets.path("diagnoses.csv")), "--item", "patient",
            "--rater", "rater", "--label", "diagnosis", "-o", page, "-q"]  # fmt: skip
    bad = CliRunner().invoke(app, [*args, "--n-boot", "-3"])
    assert bad.exit_code == 2 and "--n-boot must be an integer from 0" in bad.output
    assert "Traceback" not in bad.output
    ok = CliRunner().invoke(app, [*args, "--n-boot", "0"])
    assert ok.exit_code == 0, ok.output
    # without resamples Light's kappa has no SE; the page advises no option the report lacks
    text = (tmp_path / "p.html").read_text()
    assert "no analytic SE" in text and "ci=" not in text and "--ci" not in text


def test_judge_without_label_names_only_what_is_missing(tmp_path: Path) -> None:
    args = ["report", str(accord.datasets.path("diagnoses.csv")), "--item", "patient",
            "--rater", "rater", "--score", "diagnosis", "--judge", "rater6", "--epsilon",
            "0.1", "-o", str(tmp_path / "p.html")]  # fmt: skip
    bad = CliRunner().invoke(app, args)
    assert bad.exit_code == 2 and "--judge needs --label" in bad.output
    assert "--epsilon is" not in bad.output  # it was given
