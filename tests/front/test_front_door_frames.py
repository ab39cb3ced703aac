"""The front doors take a long data frame with its column names, as they take a path."""

from __future__ import annotations

from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from numpy.testing import assert_allclose

import accord
from accord import InvalidInputError

COLUMNS = dict(item="patient", rater="rater", label="diagnosis")


def _frames() -> list[Any]:
    df = pd.read_csv("examples/diagnoses.csv")
    return [df, pl.from_pandas(df), pa.Table.from_pandas(df)]


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_agreement_on_a_frame_with_column_names(kind: str) -> None:
    frame = dict(zip(["pandas", "polars", "pyarrow"], _frames(), strict=True))[kind]
    table = accord.agreement(frame, **COLUMNS, coefficients=["fleiss_kappa", "conger_kappa"])
    # Fleiss (1971): kappa = .430 on his 30 patients x 6 psychiatrists.
    assert_allclose(table.coefficients[0].statistic, 0.4302, atol=5e-5)
    r = accord.read_ratings("examples/diagnoses.csv", **COLUMNS)
    expected = accord.agreement(r, coefficients=["fleiss_kappa", "conger_kappa"])
    assert_allclose(
        [c.statistic for c in table.coefficients], [c.statistic for c in expected.coefficients]
    )


def test_agreement_frame_keeps_level_and_categories() -> None:
    df = pd.DataFrame({"i": [1, 1, 2, 2, 3, 3], "r": ["a", "b"] * 3, "y": [1, 2, 2, 2, 3, 1]})
    t = accord.agreement(df, item="i", rater="r", label="y", level="ordinal",
                         categories=[1, 2, 3, 4], coefficients=["brennan_prediger"])  # fmt: skip
    assert t.level == "ordinal"
    assert t.coefficients[0].categories == (1, 2, 3, 4)  # q = 4 declared, not 3 observed


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_consensus_on_a_frame_with_column_names(kind: str) -> None:
    frame = dict(zip(["pandas", "polars", "pyarrow"], _frames(), strict=True))[kind]
    ours = accord.consensus(frame, **COLUMNS)
    r = accord.read_ratings("examples/diagnoses.csv", **COLUMNS)
    expected = accord.consensus(r)
    assert_allclose(ours.items["entropy"], expected.items["entropy"])


def test_a_frame_without_column_names_says_which_are_missing() -> None:
    df = _frames()[0]
    with pytest.raises(InvalidInputError, match=r"agreement on a DataFrame needs the column "
                       r"names: pass item=, rater=, label="):  # fmt: skip
        accord.agreement(df)
    with pytest.raises(InvalidInputError, match=r"pass rater=, label=$"):
        accord.consensus(df, item="patient")
