"""Estimators given the keywords of a front door (``item=``, ``engine=``, ...) refuse them in
one line saying which function takes them, not with a bare TypeError."""

from __future__ import annotations

import inspect
from typing import Any

import pandas as pd
import pytest

import accord
from accord import InvalidInputError

#: The packages of the estimators: their public functions take ratings in memory.
ESTIMATORS = ("accord.agreement", "accord.judges", "accord.measurements", "accord.calibration")


def _estimators() -> list[str]:
    out = []
    for name in accord.__all__:
        fn = getattr(accord, name)
        if not inspect.isfunction(fn) or not fn.__module__.startswith(ESTIMATORS):
            continue
        first = next(iter(inspect.signature(fn).parameters), None)
        if first in ("data", "ratings", "ratings1", "x"):
            out.append(name)
    return out


NAMES = _estimators()


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
    assert len(NAMES) >= 25


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("keyword", ["item", "label", "level", "sep"])
def test_a_column_keyword_is_refused_in_one_line_naming_the_reader(name: str, keyword: str) -> None:
    if keyword in inspect.signature(getattr(accord, name)).parameters:
        return  # an option of its own (krippendorff_alpha's level=, hodge_rank's item=)
    with pytest.raises(InvalidInputError) as caught:
        _call(name, **{keyword: "x"})
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{name}() takes ratings, not where they are: {keyword}= is")
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
