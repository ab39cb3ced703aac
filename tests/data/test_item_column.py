"""The item column that the per-item tables of the consensus and the rater model share."""

from __future__ import annotations

import numpy as np
import pandas as pd

import accord
from accord.data.ratings import item_column


def _ratings() -> accord.Ratings:
    gen = np.random.default_rng(5)
    items = np.repeat([f"case-{i:03d}" for i in range(40)], 4)
    raters = np.tile(["ann", "bo", "cy", "di"], 40)
    labels = gen.choice(["low", "mid", "high"], items.size)
    return accord.Ratings.from_arrays(items, raters, labels)


def test_text_ids_are_typed_once_and_shared_by_both_tables() -> None:
    r = _ratings()
    consensus = accord.consensus(r)
    model = accord.rater_model(r)
    # the same ids, in the same dtype a frame built from the decode table gets
    want = pd.DataFrame({"item": r.items})["item"]
    for table in (consensus.items, model.items):
        assert table["item"].dtype == want.dtype
        assert table["item"].tolist() == want.tolist()
    assert item_column(r).tolist() == want.tolist()


def test_changing_one_table_changes_neither_the_other_nor_the_ratings() -> None:
    r = _ratings()
    consensus = accord.consensus(r)
    model = accord.rater_model(r)
    consensus.items.loc[0, "item"] = "renamed"
    assert model.items["item"].iloc[0] == "case-000"
    assert r.items[0] == "case-000"
    assert item_column(r)[0] == "case-000"


def test_number_ids_are_the_decode_table_each_table_copies() -> None:
    r = accord.Ratings.from_wide([["y", "n"], ["n", "n"], ["y", "y"]])
    assert item_column(r) is r.items
    table = accord.consensus(r).items
    table.loc[0, "item"] = 99
    assert r.items.tolist() == [0, 1, 2]
