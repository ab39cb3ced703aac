"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import strategies as st

import accord


@st.composite
def long_ratings(
    draw: st.DrawFn, max_items: int = 12, max_raters: int = 5, max_categories: int = 4
) -> pd.DataFrame:
    """A long frame of ratings (item, rater, label) with random missingness, no duplicates."""
    n_items = draw(st.integers(1, max_items))
    n_raters = draw(st.integers(1, max_raters))
    q = draw(st.integers(1, max_categories))
    cells = draw(
        st.lists(
            st.one_of(st.none(), st.integers(0, q - 1)),
            min_size=n_items * n_raters,
            max_size=n_items * n_raters,
        )
    )
    rows = [
        (f"i{i}", f"r{j}", f"c{cells[i * n_raters + j]}")
        for i in range(n_items)
        for j in range(n_raters)
        if cells[i * n_raters + j] is not None
    ]
    if not rows:
        rows = [("i0", "r0", "c0")]
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


def ratings_of(frame: pd.DataFrame) -> accord.Ratings:
    return accord.Ratings.from_long(frame, item="item", rater="rater", label="label")


@st.composite
def splits(draw: st.DrawFn, n: int) -> np.ndarray:
    """A boolean mask splitting n rows in two (either side may be empty)."""
    bits = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return np.array(bits, dtype=bool)
