"""The engines behind the user-facing functions: ``agreement``, ``consensus``,
``normalized_cross_entropy`` and ``calibration_metrics`` give the memory engine's numbers with
``engine="stream"`` and ``engine="dask"``; so do ``accord agree | consensus | confidence
--engine stream``.

The data are split into uneven files, and a category first appears in the last file. Every
expected value is the memory engine's on the concatenated frame (the reference
implementation, itself checked against published numbers in test_many_raters.py,
test_consensus.py and test_confidence.py); integer statistics agree exactly, coefficients to
1e-12 (float sums in another order).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord.cli import app

from .._cli import cli_json

COLS = {"item": "item", "rater": "rater", "label": "label"}
NUMERIC = ["statistic", "standard_error", "ci_low", "ci_high", "pvalue"]
runner = CliRunner()


def make_frame(seed: int = 3, n_items: int = 150, n_raters: int = 6) -> pd.DataFrame:
    """Ordinal labels 1..4 with some missing; label 5 only in the last 40 items (the last
    file), and two raters who join late."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        truth = int(rng.integers(1, 5))
        for j in range(n_raters):
            if rng.random() < 0.15 or (j >= n_raters - 2 and i < 30):
                continue
            lab: Any = int(np.clip(truth + rng.integers(-1, 2), 1, 4))
            if i >= n_items - 40 and rng.random() < 0.3:
                lab = 5
            if rng.random() < 0.03:
                lab = None
            rows.append((f"it{i:03d}", f"r{j}", lab))
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    frame["label"] = frame["label"].astype("Float64")
    return frame


def write_parts(frame: pd.DataFrame, folder: Path, cuts: tuple[int, ...], fmt: str) -> list[Path]:
    bounds = [0, *cuts, len(frame)]
    paths = []
    for k, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        path = folder / f"part-{k}.{fmt}"
        part = frame.iloc[lo:hi]
        if fmt == "parquet":
            part.to_parquet(path)
        else:
            part.to_csv(path, index=False)
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return make_frame()


@pytest.fixture(scope="module")
def files(frame: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return write_parts(frame, tmp_path_factory.mktemp("parts"), (7, 300, 311), "parquet")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def assert_same_table(expected: pd.DataFrame, got: pd.DataFrame) -> None:
    assert list(expected.columns) == list(got.columns)
    assert len(expected) == len(got)
    numeric = [c for c in NUMERIC if c in expected.columns]
    np.testing.assert_allclose(
        got[numeric].to_numpy(float), expected[numeric].to_numpy(float), rtol=1e-12, atol=1e-12
    )
    rest = [c for c in expected.columns if c not in numeric]
    for col in rest:
        for a, b in zip(expected[col], got[col], strict=True):
            if isinstance(a, pd.DataFrame):
                pd.testing.assert_frame_equal(a, b, rtol=1e-12, atol=1e-12)
            elif isinstance(a, list) and a and isinstance(a[0], dict):
                # Per-category rows: the same keys, numbers to 1e-12.
                assert [list(x) for x in a] == [list(y) for y in b], col
                for x, y in zip(a, b, strict=True):
                    for key, value in x.items():
                        if isinstance(value, float):
                            assert (math.isnan(value) and math.isnan(y[key])) or math.isclose(
                                value, y[key], rel_tol=1e-12, abs_tol=1e-12
                            ), (col, key)
                        else:
                            assert value == y[key], (col, key)
            elif isinstance(a, float) or a is None:
                # NaN and None both mean "not given" in an object column of to_frame()
                assert (pd.isna(a) and pd.isna(b)) or a == pytest.approx(b, rel=1e-12), col
            else:
                assert a == b, (col, a, b)


def engine_frame(table: Any, expected: pd.DataFrame) -> pd.DataFrame:
    """An engine's agreement table as a frame, its note on Light's kappa checked and set to
    the memory engine's (no analytic SE on any engine; the bootstrap the memory engine's
    note offers needs the memory engine, and the engines' note says so)."""
    frame = table.to_frame()
    light = frame["name"] == "light_kappa"
    if light.any():
        # in agreement's words: its ci is an option of the Inference it takes
        assert frame.loc[light, "reason"].tolist() == [
            "no analytic SE: a bootstrap interval (inference=accord.Inference(ci='bootstrap')) "
            "needs the memory engine"
        ]
        frame.loc[light, "reason"] = expected.loc[expected["name"] == "light_kappa", "reason"]
    return frame


# ---------------------------------------------------------------------- agreement


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_agreement_stream_and_dask_match_memory(
    frame: pd.DataFrame, files: list[Path], client: Any, level: str
) -> None:
    ratings = accord.Ratings.from_long(frame, **COLS, level=level)  # type: ignore[arg-type]
    expected = accord.agreement(ratings).to_frame()
    streamed = accord.agreement(files, engine="stream", **COLS, level=level, batch_size=50)
    dasked = accord.agreement(files, engine="dask", **COLS, level=level, scheduler=client)
    names = expected["name"].tolist()
    assert {"conger_kappa", "light_kappa", "krippendorff_alpha"} <= set(names)
    assert 5.0 in ratings.categories  # the late category is in the domain
    for table in (streamed, dasked):
        assert_same_table(expected, engine_frame(table, expected))
    # Conger's SE comes from the second pass: it is a real number, equal to memory's
    conger = expected[expected["name"] == "conger_kappa"]["standard_error"].to_numpy()
    assert np.all(np.isfinite(conger)) and np.all(conger > 0)
    assert streamed.report is not None and streamed.report.ratings == ratings.n_ratings
    assert streamed.report.missing == ratings.report.missing > 0


def test_chunked_item_terms_match_unchunked(
    frame: pd.DataFrame, files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The estimators sum per-item terms a chunk of items at a time, and consensus scores
    items and ratings by chunks: tiny chunks (several per file and batch, uneven) give the
    one-chunk numbers to 1e-12 (float sums in another order), and integers exactly."""
    from accord.agreement import _shared
    from accord.consensus import _cells, _items, _statistics

    ratings = accord.Ratings.from_long(frame, **COLS, level="ordinal")
    whole = accord.agreement(ratings).to_frame()
    assert len(frame) > 7 * 50  # many chunks
    whole_stream = accord.agreement(files, engine="stream", **COLS, level="ordinal")
    opts: dict[str, Any] = dict(reference="others", ordinal=True)
    cons = accord.consensus(files, engine="stream", **COLS, level="ordinal", **opts)
    monkeypatch.setattr(_shared, "CHUNK_ITEMS", 7)
    monkeypatch.setattr(_cells, "CHUNK_CELLS", 11)
    monkeypatch.setattr(_items, "CHUNK_CELLS", 11)
    monkeypatch.setattr(_statistics, "CHUNK_CELLS", 11)
    monkeypatch.setattr(_statistics, "RATINGS_PER_CALL", 13)
    assert _close(whole.to_dict("list"), accord.agreement(ratings).to_frame().to_dict("list"))
    chunked = accord.agreement(files, engine="stream", **COLS, level="ordinal", batch_size=50)
    assert _close(whole_stream.to_frame().to_dict("list"), chunked.to_frame().to_dict("list"))
    small = accord.consensus(files, engine="stream", **COLS, level="ordinal", **opts)
    pd.testing.assert_frame_equal(small.items, cons.items, rtol=1e-12, atol=1e-12)
    pd.testing.assert_frame_equal(small.raters, cons.raters, rtol=1e-12, atol=1e-12)
    assert small.summary.class_shares == cons.summary.class_shares


def test_agreement_from_statistics_keeps_integer_counts(files: list[Path]) -> None:
    from accord.agreement._statistics import data_from_statistics

    stats = accord.stream_statistics(files, **COLS)
    d = data_from_statistics(stats, None)
    assert d.counts.dtype == np.int64  # no float copy of the items x categories counts
    assert np.shares_memory(d.counts, stats.item_counts.counts)


def test_agreement_engine_errors(frame: pd.DataFrame, files: list[Path]) -> None:
    ratings = accord.Ratings.from_long(frame, **COLS)
    with pytest.raises(accord.InvalidInputError, match="reads the data where it is stored"):
        accord.agreement(ratings, engine="stream")
    with pytest.raises(accord.InvalidInputError, match="needs the column names: pass label="):
        accord.agreement(files, engine="stream", item="item", rater="rater")
    with pytest.raises(accord.InvalidInputError, match="'engine' parameter of agreement"):
        accord.agreement(ratings, engine="spark")  # type: ignore[arg-type]
    with pytest.raises(accord.InvalidInputError, match="Conger's and Light's kappa"):
        accord.agreement(
            files,
            engine="stream",
            **COLS,
            coefficients=["conger_kappa"],
            inference=accord.Inference(ci="bootstrap"),
        )


def test_agreement_memory_engine_reads_a_path(frame: pd.DataFrame, files: list[Path]) -> None:
    one = files[0].parent / "whole.parquet"
    frame.to_parquet(one)
    expected = accord.agreement(accord.Ratings.from_long(frame, **COLS)).to_frame()
    assert_same_table(expected, accord.agreement(one, **COLS).to_frame())


# ---------------------------------------------------------------------- consensus


@pytest.mark.parametrize("reference", ["all", "others"])
def test_consensus_stream_and_dask_match_memory(
    frame: pd.DataFrame, files: list[Path], client: Any, reference: str
) -> None:
    ratings = accord.Ratings.from_long(frame, **COLS, level="ordinal")
    gold = {f"it{i:03d}": 1 + i % 4 for i in range(0, 150, 3)}
    opts: dict[str, Any] = dict(reference=reference, ordinal=True, gold=gold)
    expected = accord.consensus(ratings, **opts)
    for result in (
        accord.consensus(files, engine="stream", **COLS, level="ordinal", batch_size=40, **opts),
        accord.consensus(files, engine="dask", **COLS, level="ordinal", scheduler=client, **opts),
    ):
        pd.testing.assert_frame_equal(result.items, expected.items, rtol=1e-12, atol=1e-12)
        pd.testing.assert_frame_equal(result.raters, expected.raters, rtol=1e-12, atol=1e-12)
        assert result.summary.n_ratings == expected.summary.n_ratings
        assert result.summary.class_shares == pytest.approx(expected.summary.class_shares)
        assert result.summary.mean_entropy == pytest.approx(expected.summary.mean_entropy)
        assert result.counts.equals(expected.counts)
        assert len(result.ratings) == 0 and "per-rating table is not produced" in result.method
        assert result.report is not None and result.report.ratings == ratings.n_ratings
    assert "gold_kappa" in expected.raters and "mean_ordinal_deviation" in expected.raters


def test_consensus_engine_errors(files: list[Path], tmp_path: Path) -> None:
    with pytest.raises(accord.InvalidInputError, match="missing='category'"):
        accord.consensus(files, engine="stream", **COLS, missing="category")
    frame = pd.DataFrame(
        {"item": [1, 1, 1, 2], "rater": ["a", "b", "a", "a"], "label": list("xyxy")}
    )
    frame.to_parquet(tmp_path / "dups.parquet")
    with pytest.raises(accord.InvalidInputError, match="duplicates"):
        accord.consensus(tmp_path / "dups.parquet", engine="stream", **COLS)


# --------------------------------------------------------------------- confidence


@pytest.fixture(scope="module")
def units(tmp_path_factory: pytest.TempPathFactory) -> tuple[pd.DataFrame, list[Path]]:
    rng = np.random.default_rng(11)
    n = 1500
    frame = pd.DataFrame(
        {
            "ok": rng.random(n) < 0.7,
            "conf": np.round(rng.random(n), 3),
            "speaker": rng.choice(["b", "a", "c"], n),
        }
    )
    frame.loc[1400:, "speaker"] = "late"  # a group that first appears in the last file
    frame.loc[5, "conf"] = 0.0  # clipped by sclite's floor
    return frame, write_parts(frame, tmp_path_factory.mktemp("units"), (9, 700, 1390), "csv")


def test_nce_and_calibration_stream_and_dask_match_memory(
    units: tuple[pd.DataFrame, list[Path]], client: Any
) -> None:
    frame, paths = units
    nce = accord.normalized_cross_entropy(frame["ok"], frame["conf"], groups=frame["speaker"])
    cal = accord.calibration_metrics(frame["ok"], frame["conf"], bins=7)
    columns = dict(correct="ok", confidence="conf")
    for engine, extra in (("stream", {"batch_size": 100}), ("dask", {"scheduler": client})):
        got = accord.normalized_cross_entropy(
            **columns, groups="speaker", source=paths, engine=engine, **extra
        )
        assert got.statistic == pytest.approx(nce.statistic, rel=1e-12)
        assert got.n_clipped == nce.n_clipped >= 1
        pd.testing.assert_frame_equal(got.groups, nce.groups, rtol=1e-12, atol=1e-12)
        assert list(got.groups["group"]) == ["a", "b", "c", "late"]
        got_cal = accord.calibration_metrics(
            **columns, bins=7, source=paths, engine=engine, **extra
        )
        for key, value in cal.to_dict().items():
            if isinstance(value, float):
                assert getattr(got_cal, key) == pytest.approx(value, rel=1e-12, abs=1e-15), key
            else:
                assert getattr(got_cal, key) == value, key


def test_confidence_engine_errors(units: tuple[pd.DataFrame, list[Path]]) -> None:
    frame, paths = units
    with pytest.raises(accord.InvalidInputError, match="pass source="):
        accord.normalized_cross_entropy(frame["ok"], frame["conf"], engine="stream")
    with pytest.raises(accord.InvalidInputError, match="takes column names"):
        accord.calibration_metrics(frame["ok"], "conf", source=paths, engine="stream")


# ---------------------------------------------------------------------------- CLI


def _json(args: list[str]) -> Any:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return cli_json(res.stdout)


def test_cli_agree_and_consensus_stream_json_equals_memory(
    frame: pd.DataFrame, tmp_path: Path
) -> None:
    path = tmp_path / "ratings.parquet"
    frame.to_parquet(path)
    base = [str(path), "--item", "item", "--rater", "rater", "--label", "label"]
    for command in (["agree", "--level", "ordinal"], ["consensus"]):
        memory = _json([command[0], *base, *command[1:], "--format", "json"])
        stream = _json([command[0], *base, *command[1:], "--format", "json", "--engine", "stream"])
        if command[0] == "consensus":
            assert "per-rating table is not produced" in stream.pop("method")
            memory.pop("method")
        else:  # Light's kappa: the note on its missing SE names the memory engine
            note_cli = (
                "no analytic SE: a bootstrap interval (--ci bootstrap) needs the memory engine"
            )
            for result, note in ((stream, note_cli), (memory, None)):
                light = [c for c in result["coefficients"] if c["name"] == "light_kappa"]
                assert len(light) == 1
                reason = light[0].pop("reason")
                assert note is None or reason == note
        assert json.dumps(stream, sort_keys=True) == json.dumps(memory, sort_keys=True) or (
            _close(stream, memory)
        )


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-15)
    return bool(a == b)


def test_cli_confidence_stream_json_equals_memory(units: tuple[pd.DataFrame, list[Path]]) -> None:
    frame, _ = units
    path = _one_file(frame, units[1][0].parent / "all.csv")
    base = ["confidence", str(path), "--correct", "ok", "--confidence", "conf"]
    memory = _json([*base, "--group", "speaker", "--format", "json"])
    stream = _json([*base, "--group", "speaker", "--format", "json", "--engine", "stream"])
    assert _close(stream, memory)


def _one_file(frame: pd.DataFrame, path: Path) -> Path:
    frame.to_csv(path, index=False)
    return path


def test_cli_engine_errors_are_one_line(files: list[Path]) -> None:
    base = ["agree", str(files[0]), "--item", "item", "--rater", "rater", "--label", "label"]
    res = runner.invoke(app, [*base, "--scheduler", "tcp://nowhere:1"])
    assert res.exit_code == 2 and "--scheduler applies to --engine dask" in res.output
    res = runner.invoke(app, [*base, "--engine", "stream", "--duplicates", "mean"])
    assert res.exit_code == 2 and "--duplicates mean is not available" in res.output
    res = runner.invoke(app, ["agree", "--help"])
    assert "--engine" in res.output and "Examples" in res.output


# ------------------------------------------------------------------ dask processes


@pytest.mark.slow
def test_agreement_dask_worker_processes_match_memory(
    frame: pd.DataFrame, files: list[Path]
) -> None:
    distributed = pytest.importorskip("distributed")
    expected = accord.agreement(accord.Ratings.from_long(frame, **COLS)).to_frame()
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        got = accord.agreement(files, engine="dask", **COLS, scheduler=c)
    assert_same_table(expected, engine_frame(got, expected))


def test_progress_false_means_no_progress_and_true_is_a_clear_error(tmp_path: Path) -> None:
    # Before: progress=False (as accord.report takes it) crashed the stream engine with
    # "TypeError: 'bool' object is not callable" after its first batch.
    import pandas as pd

    import accord
    from accord._errors import InvalidInputError

    path = tmp_path / "r.csv"
    pd.DataFrame(
        {"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"], "label": ["x", "x", "y", "x"]}
    ).to_csv(path, index=False)
    names = {"item": "item", "rater": "rater", "label": "label"}
    quiet = accord.agreement(path, engine="stream", progress=False, **names)
    memory = accord.agreement(accord.read_ratings(path, **names))
    # two raters: both tables open with Cohen's kappa and give the same rows
    assert quiet.to_frame()["name"].tolist() == memory.to_frame()["name"].tolist()
    assert quiet.to_frame()["name"].iloc[0] == "cohen_kappa"
    assert quiet.to_frame()["statistic"].tolist() == pytest.approx(
        memory.to_frame()["statistic"].tolist(), nan_ok=True
    )
    with pytest.raises(InvalidInputError, match="progress of agreement must be a function"):
        accord.agreement(path, engine="stream", progress=True, **names)
