"""Panel calibration across its layers: the input specification, the empty-panel error on
every engine, the per-pair statistics' operations, and the imports of the estimator."""

from __future__ import annotations

import ast
import dataclasses
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import accord
from accord import InvalidInputError, calibrate_panel
from accord.calibration._spec import EmptyPanelError, FitOptions, PanelSpec

SRC = Path(accord.__file__).parent
COLUMNS = {"item": "item", "rater": "rater", "score": "score", "confidence": "c"}


def _frame() -> pd.DataFrame:
    # the chain of the calibrate_panel docstring: A scores O1-O3, B scores O2-O4
    return pd.DataFrame(
        {
            "item": ["O1", "O2", "O3", "O2", "O3", "O4"],
            "rater": ["A", "A", "A", "B", "B", "B"],
            "score": [4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
            "c": [1.0] * 6,
        }
    )


def _source(engine: str, frame: pd.DataFrame, tmp_path: Path) -> object:
    if engine == "memory":
        return frame
    path = tmp_path / "panel.parquet"
    frame.to_parquet(path)
    return path if engine == "stream" else str(path)


ENGINES = [
    pytest.param("memory", {}, id="memory"),
    pytest.param("stream", {"batch_size": 2}, id="stream"),
    pytest.param("dask", {"scheduler": "synchronous"}, id="dask"),
]


@pytest.mark.parametrize(("engine", "extra"), ENGINES)
def test_a_panel_without_complete_rows_raises_the_empty_panel_error(
    tmp_path: Path, engine: str, extra: dict[str, object]
) -> None:
    if engine == "dask":
        pytest.importorskip("dask.dataframe")
    frame = _frame().assign(score=np.nan)
    with warnings.catch_warnings(), pytest.raises(EmptyPanelError) as info:
        warnings.simplefilter("ignore", accord.DroppedDataWarning)
        calibrate_panel(_source(engine, frame, tmp_path), engine=engine, **COLUMNS, **extra)  # type: ignore[arg-type]
    # the public type and message stay those of every other input error
    assert isinstance(info.value, InvalidInputError)
    assert str(info.value) == "no assessments to calibrate: the input has no complete rows"


@pytest.mark.parametrize(("engine", "extra"), ENGINES[1:])
def test_a_batch_without_complete_rows_is_counted_as_dropped(
    tmp_path: Path, engine: str, extra: dict[str, object]
) -> None:
    if engine == "dask":
        dd = pytest.importorskip("dask.dataframe")
    # reference: the memory engine on the same rows (the first two have no score)
    frame = pd.concat([_frame().iloc[:2].assign(score=np.nan), _frame()], ignore_index=True)
    with pytest.warns(accord.DroppedDataWarning, match="dropped 2 rows"):
        memory = calibrate_panel(frame, **COLUMNS)  # type: ignore[arg-type]
    source = _source(engine, frame, tmp_path)
    if engine == "dask":  # the first partition holds exactly the two incomplete rows
        source = dd.from_pandas(frame, npartitions=1).repartition(divisions=[0, 2, 5, 7])
    with pytest.warns(accord.DroppedDataWarning, match="dropped 2 rows"):
        other = calibrate_panel(source, engine=engine, **COLUMNS, **extra)  # type: ignore[arg-type]
    assert other.n_dropped == memory.n_dropped == 2
    assert other.report == memory.report
    assert_allclose(other.values["value"], memory.values["value"], rtol=0, atol=1e-12)
    assert_allclose(other.values["value"], [5.0, 6.0, 7.0, 8.0], rtol=0, atol=1e-12)


@pytest.mark.parametrize(("engine", "extra"), ENGINES)
def test_the_dropped_rows_warning_points_at_the_callers_line(
    tmp_path: Path, engine: str, extra: dict[str, object]
) -> None:
    if engine == "dask":
        pytest.importorskip("dask.dataframe")
    frame = pd.concat([_frame().iloc[:1].assign(score=np.nan), _frame()], ignore_index=True)
    source = _source(engine, frame, tmp_path)
    with pytest.warns(accord.DroppedDataWarning) as caught:
        calibrate_panel(source, engine=engine, **COLUMNS, **extra)  # type: ignore[arg-type]
    assert [w.filename for w in caught] == [__file__]
    if engine == "stream":
        with pytest.warns(accord.DroppedDataWarning) as caught:
            accord.panel_statistics(source, **COLUMNS)
        assert [w.filename for w in caught] == [__file__]


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"missing": "bogus"}, "The 'missing' parameter of calibrate_panel must be one of"),
        ({"confidence_factor": -1.0}, "confidence_factor must be positive and finite"),
        ({"score_range": ("c",), "confidence": None}, "score_range must name two columns"),
        ({"sigma": "c"}, "give at most one of confidence, sigma, score_range and levels"),
    ],
)
@pytest.mark.parametrize(("engine", "extra"), ENGINES)
def test_option_errors_are_the_same_on_every_engine(
    tmp_path: Path,
    engine: str,
    extra: dict[str, object],
    option: dict[str, object],
    message: str,
) -> None:
    # an option error names the option, not a row of some batch, and comes before any read
    if engine == "dask":
        pytest.importorskip("dask.dataframe")
    kwargs = {**COLUMNS, **option}
    with pytest.raises(InvalidInputError) as info:
        calibrate_panel(_source(engine, _frame(), tmp_path), engine=engine, **kwargs, **extra)  # type: ignore[arg-type]
    assert str(info.value).startswith(message)
    assert "row numbers count" not in str(info.value)
    assert not isinstance(info.value, accord.ColumnNotFoundError)


def test_the_specifications_are_frozen_and_checked_when_made() -> None:
    spec = PanelSpec(item="i", rater="r", score="s", score_range=["lo", "hi"])
    assert spec.score_range == ("lo", "hi")  # a list becomes a tuple
    assert spec.source == "range"
    assert spec.file_columns == ["i", "r", "s", "lo", "hi"]
    assert PanelSpec(item="i", rater="i", score="s", levels="s").file_columns == ["i", "s"]
    assert PanelSpec(item="i", rater="r", score="s").source == "equal"
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.item = "other"  # type: ignore[misc]
    with pytest.raises(InvalidInputError, match="n_samples must be at least 2, got 1"):
        FitOptions(n_samples=1)
    with pytest.raises(InvalidInputError, match="leave gauge='sum'"):
        FitOptions(bias_prior=1.0, gauge="weighted")


def test_panel_statistics_average_recode_and_sort_by_hand() -> None:
    # hand computation: rater x scores item a twice (4 with c=1, 2 with c=3), rater y once
    meta = {
        "items": np.array(["a", "b"]),
        "raters": np.array(["x", "y"]),
        "source": "confidence",
        "relative": False,
        "n_dropped": 0,
    }
    stats = accord.PanelStatistics.from_codes(
        np.array([1, 0, 0]),
        np.array([1, 0, 0]),
        np.array([6.0, 4.0, 2.0]),
        np.array([1.0, 1.0, 3.0]),
        **meta,
    )
    assert stats.count.tolist() == [2.0, 1.0]
    assert stats.mean.tolist() == [2.5, 6.0]  # (4 * 1 + 2 * 3) / 4
    assert stats.within.tolist() == [3.0, 0.0]  # 1 * 1.5^2 + 3 * 0.5^2
    assert stats.raw_within.tolist() == [2.0, 0.0]  # 1^2 + 1^2 about the mean 3
    one = stats.averaged()  # as duplicates="mean": the mean score and the mean confidence
    assert one.count.tolist() == [1.0, 1.0]
    assert one.mean.tolist() == [3.0, 6.0]
    assert one.weight.tolist() == [2.0, 1.0]
    assert one.within.tolist() == one.raw_within.tolist() == [0.0, 0.0]
    flipped = stats.recoded(
        np.array([1, 0]), np.array([1, 0]), items=np.array(["b", "a"]), raters=np.array(["y", "x"])
    )
    assert flipped.item_codes.tolist() == [1, 0]
    ordered = flipped.sorted_pairs()
    assert ordered.item_codes.tolist() == [0, 1]
    assert ordered.mean.tolist() == [6.0, 2.5]
    assert ordered.items[ordered.item_codes].tolist() == ["b", "a"]


def _imported_modules(path: Path) -> set[str]:
    """The absolute names of the ``accord`` modules a source file imports (anywhere in it)."""
    package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m.startswith("accord")}


def test_the_estimator_reads_no_file_and_picks_no_engine() -> None:
    forbidden = ("accord.engines", "accord.io", "accord.front")
    for path in sorted((SRC / "calibration").glob("*.py")):
        imported = _imported_modules(path)
        assert not {m for m in imported if m.startswith(forbidden)}, path.name
    # the panel sums are a statistic: they import the core only
    stats = _imported_modules(SRC / "stats" / "panel.py")
    assert stats <= {"accord._results", "accord._types"} | {
        f"accord._results.{n}" for n in ("Result",)
    } | {f"accord._types.{n}" for n in ("FloatArray", "IntArray")}
