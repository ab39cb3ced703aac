"""The structure of what is read: a header line repeated inside the data, the categories a
column declares itself, files that are no regular files, inputs too large for the memory
engine, and inputs nested or named so that a reader would give a traceback."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord._errors import FileReadError, InvalidInputError
from accord.cli import app
from accord.engines.stream import stream_statistics
from accord.io import files

runner = CliRunner()
COLUMNS = {"item": "item", "rater": "rater", "label": "label"}
FLAGS = ["--item", "item", "--rater", "rater", "--label", "label"]
SRC = str(Path(accord.__file__).resolve().parents[1])


def one_line_error(*args: str) -> str:
    """Run the command: one line on stderr, exit status 2, no traceback; the line."""
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, result.stderr
    assert len(lines) == 1 and lines[0].startswith("accord: error: "), result.stderr
    return lines[0]


# ------------------------------------------------------------- a header line repeated

#: Two exports joined with ``cat``: the second one's header is line 6.
JOINED = "item,rater,label\n1,a,x\n1,b,x\n2,a,y\n2,b,x\nitem,rater,label\n3,a,y\n3,b,y\n"


def _joined(tmp_path: Path, suffix: str) -> Path:
    path = tmp_path / f"joined{suffix}"
    text = JOINED if suffix == ".csv" else JOINED.replace(",", "\t")
    path.write_text(text)
    return path


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_repeated_header_is_an_error_naming_the_line_memory(tmp_path: Path, suffix: str) -> None:
    path = _joined(tmp_path, suffix)
    with pytest.raises(FileReadError, match=r"line 6: the header line .* again"):
        accord.read_ratings(path, **COLUMNS)


@pytest.mark.parametrize("reader", ["pyarrow", "duckdb"])
@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_repeated_header_is_an_error_naming_the_line_stream(
    tmp_path: Path, suffix: str, reader: str
) -> None:
    path = _joined(tmp_path, suffix)
    with pytest.raises(FileReadError, match=r"line 6: the header line .* again"):
        stream_statistics(path, **COLUMNS, reader=reader, batch_size=2)


def test_repeated_header_is_an_error_naming_the_line_dask(tmp_path: Path) -> None:
    from accord.engines.dask import dask_statistics

    path = _joined(tmp_path, ".csv")
    with pytest.raises(FileReadError, match=r"line 6: the header line .* again"):
        dask_statistics(path, **COLUMNS, scheduler="synchronous")


def test_repeated_header_in_the_second_of_several_files_names_that_file(tmp_path: Path) -> None:
    first = tmp_path / "a.csv"
    first.write_text("item,rater,label\n1,a,x\n1,b,x\n")
    second = tmp_path / "b.csv"
    second.write_text(JOINED)
    with pytest.raises(FileReadError, match=r"b\.csv, line 6"):
        stream_statistics([first, second], **COLUMNS)


@pytest.mark.parametrize("engine", ["memory", "stream"])
@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_repeated_header_cli(tmp_path: Path, engine: str, suffix: str) -> None:
    path = _joined(tmp_path, suffix)
    line = one_line_error("agree", str(path), *FLAGS, "--engine", engine)
    assert "line 6" in line and "header" in line


@pytest.mark.parametrize("engine", ["memory", "stream", "dask"])
def test_repeated_header_behind_a_byte_order_mark_is_an_error(tmp_path: Path, engine: str) -> None:
    # Two UTF-8 exports with a BOM each, joined with cat: the second header starts with
    # U+FEFF; it is the header again, not an item named "\ufeffitem" rated "label".
    path = tmp_path / "joined.csv"
    second = "\ufeffitem,rater,label\n3,a,y\n3,b,y\n"
    path.write_bytes(("\ufeff" + JOINED.split("item,rater,label\n3")[0] + second).encode())
    with pytest.raises(FileReadError, match=r"line 6: the header line .* again"):
        if engine == "memory":
            accord.read_ratings(path, **COLUMNS)
        elif engine == "stream":
            stream_statistics(path, **COLUMNS, batch_size=2)
        else:
            from accord.engines.dask import dask_statistics

            dask_statistics(path, **COLUMNS, scheduler="synchronous")


def test_a_row_of_column_names_that_is_not_the_whole_header_is_data(tmp_path: Path) -> None:
    # The named cells spell the column names, the note does not: a rating, not a header.
    path = tmp_path / "r.csv"
    path.write_text("item,rater,label,note\n1,a,x,\nitem,rater,label,odd ids\n")
    ratings = accord.read_ratings(path, **COLUMNS)
    assert ratings.n_ratings == 2 and "label" in ratings.categories
    stats = stream_statistics(path, **COLUMNS)
    assert stats.report.ratings == 2


# ------------------------------------------------------------ declared categories

#: Two raters, three items: (x, x), (y, x), (y, y); category z declared and never used.
LABELS = {"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab")}
PAIRS = ["x", "x", "y", "x", "y", "y"]
# By hand, q = 3 declared categories, observed agreement p_o = 2/3:
# Brennan-Prediger (1981): p_e = 1/q = 1/3, kappa_q = (2/3 - 1/3) / (1 - 1/3) = 1/2.
# Gwet AC1 (2008, eq. 5): pi = (3/6, 3/6, 0), p_e = sum pi (1 - pi) / (q - 1) = 1/4,
# AC1 = (2/3 - 1/4) / (1 - 1/4) = 5/9.
BP_Q3, AC1_Q3 = 1 / 2, 5 / 9


def _frame(label: Any) -> pd.DataFrame:
    return pd.DataFrame({"item": LABELS["item"], "rater": LABELS["rater"], "label": label})


@pytest.mark.parametrize("ordered", [False, True])
def test_a_categoricals_unused_category_is_in_the_domain(ordered: bool) -> None:
    label = pd.Categorical(PAIRS, categories=["x", "y", "z"], ordered=ordered)
    ratings = accord.Ratings.from_long(_frame(label), **COLUMNS)
    assert ratings.categories == ("x", "y", "z")
    assert accord.brennan_prediger(ratings).statistic == pytest.approx(BP_Q3)
    assert accord.gwet_ac1(ratings).statistic == pytest.approx(AC1_Q3)


def test_an_unordered_categorical_gives_no_order() -> None:
    text = pd.Categorical(PAIRS, categories=["x", "y", "z"])
    with pytest.raises(InvalidInputError, match="order"):
        accord.Ratings.from_long(_frame(text), **COLUMNS, level="ordinal")
    numbers = pd.Categorical([3, 3, 1, 3, 1, 1], categories=[3, 1, 2])
    ratings = accord.Ratings.from_long(_frame(numbers), **COLUMNS, level="ordinal")
    assert ratings.categories == (1, 2, 3)  # the numbers' own order, 2 unused


def test_a_polars_enum_is_an_ordered_scale() -> None:
    import polars as pl

    frame = pl.DataFrame(
        {
            "item": LABELS["item"],
            "rater": LABELS["rater"],
            "label": pl.Series(
                ["lo", "lo", "hi", "lo", "hi", "hi"], dtype=pl.Enum(["lo", "mid", "hi"])
            ),
        }
    )
    ratings = accord.Ratings.from_long(frame, **COLUMNS, level="ordinal")
    assert ratings.categories == ("lo", "mid", "hi")
    assert accord.brennan_prediger(ratings).statistic == pytest.approx(BP_Q3)


def test_parquet_from_an_ordered_categorical_is_an_ordered_scale(tmp_path: Path) -> None:
    label = pd.Categorical(
        ["lo", "lo", "hi", "lo", "hi", "hi"], categories=["lo", "mid", "hi"], ordered=True
    )
    path = tmp_path / "r.parquet"
    _frame(label).to_parquet(path)
    memory = accord.read_ratings(path, **COLUMNS, level="ordinal")
    assert memory.categories == ("lo", "mid", "hi")
    assert accord.gwet_ac1(memory).statistic == pytest.approx(AC1_Q3)
    stream = stream_statistics(path, **COLUMNS, level="ordinal")
    assert stream.categories == ("lo", "mid", "hi")
    assert stream.item_counts.counts.tolist() == [[2, 0, 0], [1, 0, 1], [0, 0, 2]]


def test_parquet_from_an_unordered_categorical_keeps_its_categories(tmp_path: Path) -> None:
    path = tmp_path / "r.parquet"
    _frame(pd.Categorical(PAIRS, categories=["x", "y", "z"])).to_parquet(path)
    ratings = accord.read_ratings(path, **COLUMNS)
    assert ratings.categories == ("x", "y", "z")
    assert accord.brennan_prediger(ratings).statistic == pytest.approx(BP_Q3)


# ---------------------------------------------------------------- not a regular file


def _run(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter, killed after 60 s: a read that blocks fails."""
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_a_named_pipe_is_refused_in_one_line(tmp_path: Path, engine: str) -> None:
    fifo = tmp_path / "ratings.csv"
    os.mkfifo(fifo)
    cli = _run(
        "import sys; from accord.cli import main; sys.argv = ['accord', 'agree', "
        f"{str(fifo)!r}, '--item', 'item', '--rater', 'rater', '--label', 'label', "
        f"'--engine', {engine!r}]; main()"
    )
    assert cli.returncode == 2, cli.stderr
    assert cli.stderr.strip().splitlines() == [
        f"accord: error: {fifo} is a named pipe, not a regular file: accord reads a file "
        "more than once (checked, then parsed); save the stream to a file and read that"
    ]
    python = _run(
        "import accord\ntry:\n"
        f"    accord.read_ratings({str(fifo)!r}, item='item', rater='rater', label='label')\n"
        "except accord.InvalidInputError as exc:\n    print(type(exc).__name__)"
    )
    assert python.stdout.strip() == "FileReadError", python.stderr


# ------------------------------------------------------- too large for the memory engine


def _rows(n: int) -> bytes:
    return ("item,rater,label\n" + "".join(f"{i},r{i % 3},x\n" for i in range(n))).encode()


@pytest.mark.parametrize("opener", ["gzip", "bz2"])
def test_an_input_that_inflates_too_far_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opener: str
) -> None:
    import bz2

    text = _rows(20_000)  # about 250 kB of text, a few kB compressed
    path = tmp_path / f"big.csv.{'gz' if opener == 'gzip' else 'bz2'}"
    path.write_bytes(gzip.compress(text) if opener == "gzip" else bz2.compress(text))
    monkeypatch.setattr(files, "_text_bound", lambda: 20_000)
    with pytest.raises(FileReadError, match=r"inflates to .* of text .*engine='stream'"):
        accord.read_ratings(path, **COLUMNS)
    line = one_line_error("agree", str(path), *FLAGS)
    assert f"inflates to {len(text) / 1e3:.1f} kB of text ({opener}-compressed" in line.replace(
        f"({path.stat().st_size / 1e3:.1f} kB ", "("
    )
    assert "--engine stream" in line
    # The stream engine reads it in batches.
    assert stream_statistics(path, **COLUMNS).report.ratings == 20_000


def test_a_plain_file_too_large_is_refused_and_one_within_the_bound_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.csv"
    path.write_bytes(_rows(2_000))
    monkeypatch.setattr(files, "_text_bound", lambda: 1_000)
    with pytest.raises(FileReadError, match=r"big\.csv is .* of text: too large"):
        accord.read_ratings(path, **COLUMNS)
    monkeypatch.setattr(files, "_text_bound", lambda: 1 << 30)
    assert accord.read_ratings(path, **COLUMNS).n_ratings == 2_000


def test_available_memory_is_a_positive_number_on_linux() -> None:
    if not Path("/proc/meminfo").exists():
        pytest.skip("no /proc/meminfo")
    memory = files.available_memory()
    assert memory is not None and memory > 0


# ---------------------------------------------- no traceback: deep JSON, duplicate names

DEPTH = 100_000


def test_json_nested_too_deep_is_one_line(tmp_path: Path) -> None:
    lines = tmp_path / "deep.jsonl"
    lines.write_text('{"item": 1, "rater": "a", "label": ' + "[" * DEPTH + "]" * DEPTH + "}\n")
    with pytest.raises(FileReadError, match=r"line 1: .*nested too deeply"):
        accord.read_ratings(lines, **COLUMNS)
    assert "nested too deeply" in one_line_error("agree", str(lines), *FLAGS)
    export = tmp_path / "deep.json"
    export.write_text("[" * DEPTH + "]" * DEPTH + "\n")
    with pytest.raises(InvalidInputError):
        accord.read_ratings(export)
    one_line_error("agree", str(export))


def test_a_frame_naming_two_columns_alike_is_one_error() -> None:
    frame = pd.DataFrame([[1, "a", "x", "y"], [1, "b", "x", "y"]])
    frame.columns = ["item", "rater", "label", "label"]
    with pytest.raises(InvalidInputError, match=r"2 columns named 'label' \(columns 3, 4"):
        accord.Ratings.from_long(frame, **COLUMNS)


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_a_parquet_file_naming_two_columns_alike_is_one_line(tmp_path: Path, engine: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_arrays(
        [pa.array([1, 1]), pa.array(["a", "b"]), pa.array(["x", "x"]), pa.array(["y", "x"])],
        names=["item", "rater", "label", "label"],
    )
    path = tmp_path / "dup.parquet"
    pq.write_table(table, path)
    line = one_line_error("agree", str(path), *FLAGS, "--engine", engine)
    assert "2 columns named 'label' (columns 3, 4" in line


def test_a_wide_frame_of_categoricals_keeps_the_unused_category() -> None:
    kinds = pd.CategoricalDtype(["x", "y", "z"])
    wide = pd.DataFrame({"a": ["x", "y", "y"], "b": ["x", "x", "y"]}, dtype=kinds)
    ratings = accord.Ratings.from_wide(wide)
    assert ratings.categories == ("x", "y", "z")
    assert accord.brennan_prediger(ratings).statistic == pytest.approx(BP_Q3)


def test_a_json_lines_key_given_twice_is_an_error_naming_the_line(tmp_path: Path) -> None:
    # {"label": "x", "label": "y"}: pandas (like json.loads) keeps "y" and drops "x" silently
    path = tmp_path / "r.jsonl"
    path.write_text(
        '{"item": 1, "rater": "a", "label": "x"}\n'
        '{"item": 1, "rater": "b", "meta": {"label": "nested"}, "label": "x"}\n'
        '{"item": 2, "rater": "a", "label": "x", "label": "y"}\n'
    )
    with pytest.raises(FileReadError, match=r'line 3 gives "label" twice \("x", then "y"\)'):
        accord.read_ratings(path, **COLUMNS)
    line = one_line_error("agree", str(path), *FLAGS)
    assert "line 3" in line and "twice" in line
    # a key nested in a value is not a repeat: the file without line 3 reads
    path.write_text("\n".join(path.read_text().splitlines()[:2]) + "\n")
    assert accord.read_ratings(path, **COLUMNS).n_ratings == 2


# ------------------------------------------------------------- several files in memory


def _two_exports(tmp_path: Path) -> Path:
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "a.csv").write_text("item,rater,label\n1,a,x\n1,b,x\n2,a,y\n")
    (folder / "b.csv").write_text("item,rater,label\n2,b,x\n3,a,y\n3,b,y\n4,a,x\n4,b,x\n")
    return folder


@pytest.mark.parametrize("form", ["glob", "folder", "list"])
def test_the_memory_engine_reads_a_glob_a_folder_or_a_list_as_the_stream_engine(
    tmp_path: Path, form: str
) -> None:
    folder = _two_exports(tmp_path)
    data: Any = {
        "glob": str(folder / "*.csv"),
        "folder": str(folder),
        "list": [folder / "a.csv", folder / "b.csv"],
    }[form]
    memory = accord.agreement(data, **COLUMNS)
    stream = accord.agreement(data, engine="stream", **COLUMNS)
    # the same 8 ratings of 4 items as one table (hand count: items 1, 3, 4 agree, 2 splits)
    assert memory.report.ratings == 8 and memory.report.items == 4
    got = {c.name: c.statistic for c in memory.coefficients}
    want = {c.name: c.statistic for c in stream.coefficients}
    assert got["percent_agreement"] == pytest.approx(0.75)
    for name, value in want.items():
        assert got[name] == pytest.approx(value, rel=1e-12, nan_ok=True), name


def test_a_label_at_fault_in_the_second_file_is_named_by_file_and_row(tmp_path: Path) -> None:
    folder = _two_exports(tmp_path)
    (folder / "b.csv").write_text("item,rater,label\n2,b,1\n3,a,oops\n")
    (folder / "a.csv").write_text("item,rater,label\n1,a,1\n1,b,2\n2,a,1\n")
    with pytest.raises(accord.InvalidInputError, match=r"row 5 \(row 2 of .*b\.csv\)"):
        accord.agreement(str(folder / "*.csv"), level="interval", **COLUMNS)
    line = one_line_error("agree", str(folder / "*.csv"), *FLAGS, "--level", "interval")
    assert "row 2 of" in line and "b.csv" in line


def test_commands_read_a_quoted_glob_in_memory(tmp_path: Path) -> None:
    folder = _two_exports(tmp_path)
    for command in (["agree"], ["consensus"], ["report", "-o", str(tmp_path / "page.html")]):
        result = runner.invoke(app, [*command, str(folder / "*.csv"), *FLAGS])
        assert result.exit_code == 0, result.stderr
    assert (tmp_path / "page.html").stat().st_size > 0


def test_several_paths_on_the_command_line_say_how_to_give_several_files(tmp_path: Path) -> None:
    folder = _two_exports(tmp_path)
    line = one_line_error("agree", str(folder / "a.csv"), str(folder / "b.csv"), *FLAGS)
    assert "unexpected extra argument" in line and "quote a glob" in line
