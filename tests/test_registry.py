"""Properties every coefficient of ``tests/registry.py`` has: bounds, invariance under row
order and under renaming labels, raters and items, symmetry in the raters, merged partial
counts, and the same value under every engine. A coefficient joins by one registry entry."""

from __future__ import annotations

import functools
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from numpy.testing import assert_allclose

import accord
from accord import DegenerateDataWarning
from accord.stats import ItemCategoryCounts

from .registry import REGISTRY, Entry
from .strategies import long_ratings, ratings_of, splits

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NAMES = sorted(REGISTRY)
FROM_COUNTS = sorted(name for name, entry in REGISTRY.items() if entry.from_counts)
IN_TABLE = sorted(name for name, entry in REGISTRY.items() if entry.in_agreement_table)
DIAGNOSES = {"item": "patient", "rater": "rater", "label": "diagnosis"}


def _quiet(entry: Entry, data: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return entry.compute(data)


def _value(name: str, frame: pd.DataFrame) -> float:
    return float(_quiet(REGISTRY[name], ratings_of(frame)).statistic)


@pytest.mark.parametrize("name", NAMES)
@given(frame=long_ratings())
def test_bounds(name: str, frame: pd.DataFrame) -> None:
    lo, hi = REGISTRY[name].bounds
    value = _value(name, frame)
    if not math.isnan(value):
        assert lo - 1e-12 <= value <= hi + 1e-12


@pytest.mark.parametrize("name", NAMES)
@given(frame=long_ratings())
def test_row_order_does_not_matter(name: str, frame: pd.DataFrame) -> None:
    shuffled = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
    assert_allclose(_value(name, shuffled), _value(name, frame), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
@given(frame=long_ratings())
def test_renaming_labels_raters_and_items_does_not_matter(name: str, frame: pd.DataFrame) -> None:
    renamed = frame.assign(
        label=frame["label"].map(lambda s: "z" + s[::-1]),
        rater=frame["rater"].map(lambda s: "R" + s[::-1]),
        item=frame["item"].map(lambda s: s + "x"),
    )
    assert_allclose(_value(name, renamed), _value(name, frame), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
@given(frame=long_ratings())
def test_symmetric_in_the_raters(name: str, frame: pd.DataFrame) -> None:
    # The raters' names exchanged among themselves (reversed order): who rated what is the
    # same panel, so the value is the same.
    names = sorted(frame["rater"].unique())
    swapped = frame.assign(rater=frame["rater"].map(dict(zip(names, names[::-1], strict=True))))
    assert_allclose(_value(name, swapped), _value(name, frame), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", FROM_COUNTS)
@given(frame=long_ratings(max_items=10), mask=splits(10))
def test_merged_partial_counts_equal_the_whole(
    name: str, frame: pd.DataFrame, mask: np.ndarray
) -> None:
    # Split items in two, count each half with the same dictionaries, merge the counts.
    r = ratings_of(frame)
    side = mask[: r.n_items][r.item_codes] if r.n_items <= mask.size else r.item_codes % 2 == 0
    merged = ItemCategoryCounts.from_ratings(r.subset(side)).merge(
        ItemCategoryCounts.from_ratings(r.subset(~side))
    )
    whole, parts = _quiet(REGISTRY[name], r), _quiet(REGISTRY[name], merged)
    assert_allclose(parts.statistic, whole.statistic, rtol=1e-12, equal_nan=True)
    assert_allclose(parts.standard_error, whole.standard_error, rtol=1e-12, equal_nan=True)


@functools.cache
def _table(engine: str) -> dict[str, float]:
    path = EXAMPLES / "diagnoses.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        if engine == "memory":
            table = accord.agreement(accord.read_ratings(path, **DIAGNOSES))
        else:
            table = accord.agreement(path, engine=engine, **DIAGNOSES)
    return {c.name: float(c.statistic) for c in table.coefficients}


def _value_of(name: str) -> float:
    """The coefficient computed on its own, as the registry computes it."""
    return float(
        _quiet(
            REGISTRY[name], accord.read_ratings(EXAMPLES / "diagnoses.csv", **DIAGNOSES)
        ).statistic
    )


@pytest.mark.parametrize("engine", ["stream", "dask"])
@pytest.mark.parametrize("name", IN_TABLE)
def test_every_engine_gives_the_value_of_the_memory_engine(name: str, engine: str) -> None:
    memory = _table("memory")
    assert memory[name] == pytest.approx(_value_of(name), rel=1e-12)
    assert _table(engine)[name] == pytest.approx(memory[name], rel=1e-12, abs=1e-15)
