"""What a front door asks an engine to count is a typed value (:class:`Plan`), not a tuple of
names: the front doors pass one, and :func:`scan_ratings` refuses names."""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord.engines import stream_statistics
from accord.engines._blocks import COUNTS, Plan
from accord.engines._run import scan_ratings

SRC = Path(__file__).resolve().parents[2] / "src" / "accord"
NAMES = ("items", "raters", "pairs", "patterns")


@given(st.sets(st.sampled_from(NAMES)))
def test_a_plan_and_its_names_round_trip(names: set[str]) -> None:
    plan = Plan.of(tuple(names))  # type: ignore[arg-type]
    assert set(plan.statistics) == names
    assert Plan.of(plan.statistics) == plan
    assert list(plan.statistics) == [n for n in NAMES if n in names]  # the engines' order


def test_no_caller_outside_the_engines_names_the_statistics() -> None:
    # every call of scan_ratings outside accord/engines passes plan=, never statistics=
    calls = 0
    for path in SRC.rglob("*.py"):
        if "engines" in path.relative_to(SRC).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "scan_ratings":
                calls += 1
                keywords = {k.arg for k in node.keywords}
                assert "statistics" not in keywords, path
    assert calls >= 4  # agreement (twice), consensus, rater_model


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "r.csv"
    frame = pd.DataFrame(
        {"i": [1, 1, 2, 2, 3, 3], "r": list("ababab"), "l": ["x", "y", "y", "y", "x", "x"]}
    )
    frame.to_csv(path, index=False)
    return path


def test_names_are_refused_at_the_boundary(tmp_path: Path) -> None:
    path = str(_file(tmp_path))
    with pytest.raises(TypeError, match="plan=Plan"):
        scan_ratings(path, "stream", owner="t", item="i", rater="r", label="l",
                     statistics=("items",))  # fmt: skip
    with pytest.raises(TypeError, match="plan=Plan"):
        scan_ratings(path, "stream", owner="t", item="i", rater="r", label="l",
                     plan=("items", "raters"))  # type: ignore[arg-type]  # fmt: skip


@pytest.mark.parametrize("engine", ["stream", "dask"])
def test_a_plan_counts_what_its_names_count(tmp_path: Path, engine: str) -> None:
    path = str(_file(tmp_path))
    stats, _ = scan_ratings(path, engine, owner="t", item="i", rater="r", label="l",
                            plan=Plan(items=True, raters=True, pairs=True))  # fmt: skip
    named = stream_statistics(path, item="i", rater="r", label="l",
                              statistics=("items", "raters", "pairs"))  # fmt: skip
    assert stats.item_counts is not None and named.item_counts is not None
    assert (stats.item_counts.counts == named.item_counts.counts).all()
    # items 1..3 by x, y: (1, 1), (0, 2), (2, 0) counted by hand
    assert stats.item_counts.counts.tolist() == [[1, 1], [0, 2], [2, 0]]
    assert stats.pair_tables is not None
    only, _ = scan_ratings(path, engine, owner="t", item="i", rater="r", label="l", plan=COUNTS)
    assert only.pair_tables is None
