"""The Source on the other surfaces: calibrate_panel takes a Source and its method options;
``accord compare``, ``calibrate`` and ``confidence`` read through the command's Source; the
fold's errors name the file and the row."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord import InvalidInputError, source
from accord.cli import app

runner = CliRunner()
PANEL = {"item": "proposal", "rater": "reviewer", "score": "score"}


def test_calibrate_panel_names_only_what_it_computes() -> None:
    parameters = inspect.signature(accord.calibrate_panel).parameters
    # 29 before: the columns, the engines and the file options were parameters of their own
    assert len(parameters) <= 20, list(parameters)
    reading = {"item", "rater", "score", "missing", "duplicates", "engine", "scheduler",
               "batch_size", "file_format", "sep", "encoding", "na_values"}  # fmt: skip
    assert not reading & set(parameters)


def test_calibrate_panel_of_a_source_is_calibrate_panel_of_its_keywords(examples: Path) -> None:
    panel = pd.read_csv(examples / "panel.csv")
    by_keywords = accord.calibrate_panel(panel, **PANEL, confidence="confidence", gauge="weighted")
    src = source(panel, **PANEL)
    by_source = accord.calibrate_panel(src, confidence="confidence", gauge="weighted")
    pd.testing.assert_frame_equal(by_source.values, by_keywords.values)
    # a field given beside a Source overrides it
    other = accord.calibrate_panel(src, score="score", duplicates="mean")
    assert other.n_assessments == by_keywords.n_assessments


def test_calibrate_panel_reads_a_file_in_memory_as_its_source_says(
    tmp_path: Path, examples: Path
) -> None:
    """A path with ``sep``, ``encoding`` and ``na_values``: the same fit as the frame read by
    pandas with the same options (the memory engine took no path before)."""
    frame = pd.read_csv(examples / "panel.csv")
    frame.loc[0, "score"] = None
    path = tmp_path / "panel.csv"
    frame.to_csv(path, sep=";", index=False, na_rep="-", encoding="latin-1")
    with pytest.warns(accord.DroppedDataWarning):
        expected = accord.calibrate_panel(frame, **PANEL, confidence="confidence")
    read = source(str(path), **PANEL, sep=";", encoding="latin-1", na_values=["-"])
    with pytest.warns(accord.DroppedDataWarning):
        got = accord.calibrate_panel(read, confidence="confidence")
    pd.testing.assert_frame_equal(got.values, expected.values)
    assert got.report is not None and got.report.dropped == 1


@pytest.mark.parametrize(
    ("read", "words"),
    [
        ({"level": "ordinal"}, "does not read a source's level="),
        ({"score": ("a", "b")}, "one score column at a time"),
        ({"engine": "stream", "na_values": ["-"]}, "na_values= applies to engine='memory'"),
    ],
)
def test_calibrate_panel_refuses_what_it_does_not_read(
    examples: Path, read: dict[str, Any], words: str
) -> None:
    columns = {**PANEL, **read}
    with pytest.raises(InvalidInputError, match=words) as caught:
        accord.calibrate_panel(str(examples / "panel.csv"), **columns)
    assert "\n" not in str(caught.value)


def test_calibrate_panel_needs_its_columns() -> None:
    with pytest.raises(InvalidInputError, match="needs the columns score=") as caught:
        accord.calibrate_panel(pd.DataFrame({"i": [1], "r": [1]}), item="i", rater="r")
    assert "\n" not in str(caught.value)


#: A command of each kind and the module whose command builds its Source.
COMMANDS = {
    "compare": (["compare", "examples/pefr.csv", "--item", "subject", "--rater", "meter",
                 "--score", "pefr", "--format", "json"], "accord.cli._compare"),
    "calibrate": (["calibrate", "examples/panel.csv", "--item", "proposal", "--rater",
                   "reviewer", "--score", "score", "--format", "json"], "accord.cli._calibrate"),
    "calibrate stream": (["calibrate", "examples/panel.csv", "--item", "proposal", "--rater",
                          "reviewer", "--score", "score", "--engine", "stream", "--format",
                          "json"], "accord.cli._calibrate"),
    "confidence": (["confidence", "examples/sclite-test3b-words.csv", "--correct", "correct",
                    "--confidence", "confidence", "--format", "json"], "accord.cli._confidence"),
    "confidence stream": (["confidence", "examples/sclite-test3b-words.csv", "--correct",
                           "correct", "--confidence", "confidence", "--engine", "stream",
                           "--format", "json"], "accord.cli._confidence"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_commands_of_numbers_read_through_the_command_source(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    args, module_name = COMMANDS[name]
    module = importlib.import_module(module_name)
    built: list[Any] = []
    build = module.command_source

    def spy(*a: Any, **k: Any) -> Any:
        built.append(src := build(*a, **k))
        return src

    monkeypatch.setattr(module, "command_source", spy)
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert len(built) == 1
    assert built[0].engine == ("stream" if "stream" in name else "memory")
    assert json.loads(res.stdout)


def test_calibrate_reads_the_separator_and_encoding_it_is_given(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    text = "i;r;s\ncafé;a;1\ncafé;b;2\nthé;a;3\nthé;b;5\nlait;a;4\nlait;b;5\n"
    path.write_bytes(text.encode("latin-1"))
    args = ["calibrate", str(path), "--item", "i", "--rater", "r", "--score", "s",
            "--sep", ";", "--encoding", "latin-1", "--format", "json"]  # fmt: skip
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    values = json.loads(res.stdout)["result"]["values"]
    assert sorted(row["item"] for row in values) == ["café", "lait", "thé"]


def test_the_stream_folds_errors_name_the_file_and_the_row(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("i,r,s\n1,a,1\n1,b,2\n2,a,3\n")
    (tmp_path / "b.csv").write_text("i,r,s\n2,b,x\n3,a,4\n3,b,5\n")
    with pytest.raises(InvalidInputError) as caught:
        accord.calibrate_panel(
            str(tmp_path), item="i", rater="r", score="s", engine="stream", batch_size=2
        )
    message = str(caught.value)
    # row 4 of the input is the first data row of b.csv (3 rows in a.csv before it)
    assert "'x' at row 4 is not a number" in message
    assert f"in {tmp_path / 'b.csv'}, whose row 1 is row 4 of the input" in message
    with pytest.raises(InvalidInputError) as caught:
        accord.calibrate_panel(
            str(tmp_path / "b.csv"), item="i", rater="r", score="s", engine="stream"
        )
    assert str(caught.value).endswith(f"(in {tmp_path / 'b.csv'})")
