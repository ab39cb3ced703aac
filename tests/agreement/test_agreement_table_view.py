"""A notebook shows an agreement table compactly: one row per coefficient with its estimate,
SE, interval, p-value and items, the same numbers as ``to_frame()``, not its 30 columns."""

from __future__ import annotations

import re

import accord
from accord.datasets import path as data_path


def test_the_html_view_is_one_short_row_per_coefficient() -> None:
    ratings = accord.read_ratings(
        data_path("diagnoses.csv"), item="patient", rater="rater", label="diagnosis"
    )
    table = accord.agreement(ratings)
    page = table._repr_html_()
    full = table.to_frame()
    heads = re.findall(r"<th>([^<]+)</th>", page)
    assert heads == ["name", "weights", "statistic", "standard_error", "ci_low", "ci_high",
                     "pvalue", "n_items", "reason"]  # fmt: skip
    rows = page.split('class="dataframe"')[1]
    assert rows.count("<tr>") == len(full) == 7  # the header row carries a style
    # the long method text of every row stays in to_frame(), off the view
    assert "linearisation" in " ".join(full["method"]) and "linearisation" not in page
    for value in full["statistic"]:
        assert f"<td>{value:.4g}</td>" in page
