"""Estimators given the keywords of a front door (``item=``, ``engine=``, ...) refuse them in
one line saying which function takes them, not with a bare TypeError."""

from __future__ import annotations

import inspect
from typing import Any

import pandas as pd
import pytest

import accord
from accord import InvalidInputError

#: The packages of the estimators: their public functions compute on data in memory.
ESTIMATORS = (
    "accord.agreement",
    "accord.judges",
    "accord.measurements",
    "accord.calibration",
    "accord.confidence",
    "accord.spans",
    "accord.truth",
)

#: Public functions of those packages that take no data: study designs and simulations
#: (numbers of items, standard deviations, a fitted G study), not estimators.
NOT_ESTIMATORS = {"d_study", "simulate_panel", "limits_power", "sample_size_limits"}

#: What the message says each estimator takes, when it is not ratings.
TAKES = {"ratings", "labels", "counts", "judgments", "spans", "scores", "measurements", "moments"}


def _estimators() -> list[str]:
    out = []
    for name in accord.__all__:
        fn = getattr(accord, name)
        if not inspect.isfunction(fn) or not fn.__module__.startswith(ESTIMATORS):
            continue
        if name not in NOT_ESTIMATORS:
            out.append(name)
    return out


NAMES = _estimators()


def test_every_public_estimator_takes_read_options_to_refuse_them() -> None:
    # each estimator's last parameter is **read_options (typed Never): a front door's keyword
    # given to it is refused in one line, whatever its first parameter is called
    missing = [
        name
        for name in NAMES
        if not any(
            p.kind is p.VAR_KEYWORD and p.name == "read_options"
            for p in inspect.signature(getattr(accord, name)).parameters.values()
        )
    ]
    assert missing == []
    # those whose first parameter is not data/ratings, found by the wider search
    assert {"rater_model_from_counts", "span_agreement", "position_bias", "recalibrate"} <= set(
        NAMES
    )


def _call(name: str, **keywords: Any) -> Any:
    fn = getattr(accord, name)
    frame = pd.DataFrame({"i": [1, 1], "r": ["a", "b"], "l": ["x", "y"]})
    params = inspect.signature(fn).parameters.values()
    needed = [
        p
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    required = {p.name: 0.1 for p in params if p.kind is p.KEYWORD_ONLY and p.default is p.empty}
    return fn(*[frame] * len(needed), **required, **keywords)


def test_the_estimators_are_found() -> None:
    # the five named where a front door's item= met a bare TypeError
    assert {"fleiss_kappa", "cohen_kappa", "icc", "bland_altman", "alt_test"} <= set(NAMES)
    assert len(NAMES) >= 50


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("keyword", ["item", "label", "level", "sep"])
def test_a_column_keyword_is_refused_in_one_line_naming_the_reader(name: str, keyword: str) -> None:
    if keyword in inspect.signature(getattr(accord, name)).parameters:
        return  # an option of its own (krippendorff_alpha's level=, hodge_rank's item=)
    with pytest.raises(InvalidInputError) as caught:
        _call(name, **{keyword: "x"})
    message = str(caught.value)
    assert "\n" not in message
    head, _, rest = message.partition(" takes ")
    assert head == f"{name}()"
    assert rest.split(",")[0] in TAKES
    assert f", not where they are: {keyword}= is" in message
    assert "accord.read_ratings(" in message


@pytest.mark.parametrize("name", ["fleiss_kappa", "icc", "alt_test", "bland_altman"])
def test_an_engine_keyword_names_the_front_doors(name: str) -> None:
    with pytest.raises(InvalidInputError, match="chooses the engine of a front door"):
        _call(name, engine="stream")


def test_any_other_keyword_is_the_type_error_python_gives() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'wieghts'"):
        _call("fleiss_kappa", wieghts="linear")


def test_what_the_message_advises_works(examples: Any) -> None:
    path = str(examples / "diagnoses.csv")
    ratings = accord.read_ratings(path, item="patient", rater="rater", label="diagnosis")
    # Fleiss (1971): kappa = 0.430 on the 30 patients and 6 raters
    assert round(accord.fleiss_kappa(ratings).statistic, 3) == 0.430
