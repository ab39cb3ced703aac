"""The options every command that reads a file shares (accord.cli._common): one definition,
one check, one message, whichever command takes them."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli import app

from .._cli import cli_json

runner = CliRunner()

DIAGNOSES = ["examples/diagnoses.csv", "--item", "patient", "--rater", "rater"]
COMMANDS = {
    "agree": ["agree", *DIAGNOSES, "--label", "diagnosis"],
    "consensus": ["consensus", *DIAGNOSES, "--label", "diagnosis"],
    "calibrate": [
        "calibrate",
        "examples/panel.csv",
        "--item",
        "proposal",
        "--rater",
        "reviewer",
        "--score",
        "score",
    ],
    "confidence": [
        "confidence",
        "examples/sclite-test3b-words.csv",
        "--correct",
        "correct",
        "--confidence",
        "confidence",
    ],
}


@pytest.fixture(autouse=True)
def _in_project(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parents[2])


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_scheduler_outside_dask_is_one_line_naming_the_options(command: str, engine: str) -> None:
    # With --engine stream the library's own message used to reach the user, in its keywords
    # (scheduler= applies to engine='dask'); every command now says it in options.
    res = runner.invoke(app, [*COMMANDS[command], "--engine", engine, "--scheduler", "threads"])
    assert res.exit_code == 2
    assert res.output == "accord: error: --scheduler applies to --engine dask\n"


def test_memory_only_options_are_named_as_given() -> None:
    # consensus named both options whichever was given; --duplicates now works with every
    # engine.
    base = [*COMMANDS["consensus"], "--engine", "stream"]
    res = runner.invoke(app, [*base, "--gold", "patient"])
    assert res.exit_code == 2
    assert res.output.startswith("accord: error: --gold applies to --engine memory (")
    res = runner.invoke(app, [*base, "--duplicates", "first", "--gold", "patient"])
    assert res.output.startswith("accord: error: --gold applies to --engine memory (")


@pytest.mark.parametrize("command", ["agree", "consensus", "calibrate", "report"])
def test_commands_share_the_column_options(command: str) -> None:
    from typer.main import get_command

    group: Any = get_command(app)
    params = {p.name: p for p in group.commands[command].params}
    # agree, consensus and report read an annotation-tool export without columns (--from).
    required = command == "calibrate"
    assert params["item"].opts == ["--item"] and params["item"].required is required
    assert params["rater"].opts == ["--rater"] and params["rater"].required is required
    assert params["item"].help == "Column holding the item ids."
    if command != "calibrate":
        assert params["level"].default == "nominal"
        assert params["categories"].help == "Declared categories in order, comma-separated."


def test_calibrate_sep_reaches_the_stream_engine(tmp_path: Any) -> None:
    # calibrate_panel(engine="stream"|"dask") takes sep=: --sep ';' with --engine stream
    # gives the numbers --engine memory gives, on the same file written with ';'.
    from pathlib import Path

    semi = tmp_path / "panel.csv"
    semi.write_text(Path("examples/panel.csv").read_text().replace(",", ";"))
    base = ["calibrate", str(semi), "--item", "proposal", "--rater", "reviewer"]
    base += ["--score", "score", "--sep", ";", "--format", "json"]
    memory = runner.invoke(app, base)
    stream = runner.invoke(app, [*base, "--engine", "stream"])
    assert memory.exit_code == 0 and stream.exit_code == 0, stream.output
    values = {
        name: {row["item"]: row["value"] for row in cli_json(res.stdout)["values"]}
        for name, res in (("memory", memory), ("stream", stream))
    }
    assert len(values["memory"]) == 40
    assert values["stream"] == pytest.approx(values["memory"], abs=1e-9)


@pytest.mark.parametrize("command", ["calibrate", "confidence"])
def test_encoding_with_a_file_engine_is_refused_in_one_line(command: str) -> None:
    # The stream and dask engines of these commands read UTF-8: --encoding is refused before
    # any work; so is --sep where the command's engine path does not take it.
    res = runner.invoke(app, [*COMMANDS[command], "--engine", "stream", "--encoding", "latin-1"])
    assert res.exit_code == 2
    assert res.output.startswith("accord: error: ")
    assert "--encoding" in res.output and "to --engine memory" in res.output
    assert res.output.count("\n") == 1
    if command != "calibrate":
        res = runner.invoke(app, [*COMMANDS[command], "--engine", "stream", "--sep", ";"])
        assert res.output.startswith("accord: error: --sep and --encoding apply to --engine memory")


@pytest.mark.parametrize("command", ["agree", "consensus"])
def test_sep_and_encoding_reach_the_file_engines(command: str, tmp_path: Any) -> None:
    # A ;-separated Latin-1 export (a label with an accent): the same numbers from every engine.
    import pandas as pd

    frame = pd.read_csv("examples/diagnoses.csv")
    frame["diagnosis"] = frame["diagnosis"].replace({"Neurosis": "Névrose"})
    path = tmp_path / "diagnoses.csv"
    frame.to_csv(path, sep=";", index=False, encoding="latin-1")
    base = [command, str(path), *DIAGNOSES[1:], "--label", "diagnosis", "--format", "json"]
    base += ["--sep", ";", "--encoding", "latin-1"]
    runs = {e: runner.invoke(app, [*base, "--engine", e]) for e in ("memory", "stream", "dask")}
    for engine, res in runs.items():
        assert res.exit_code == 0, (engine, res.output)
    if command == "agree":
        got = {
            e: {c["name"]: c["statistic"] for c in cli_json(r.stdout)["coefficients"]}
            for e, r in runs.items()
        }
        assert got["memory"]["fleiss_kappa"] == pytest.approx(0.4302445, abs=1e-7)  # Fleiss 1971
    else:
        got = {e: cli_json(r.stdout)["summary"]["mean_entropy"] for e, r in runs.items()}
    for engine in ("stream", "dask"):
        assert got[engine] == pytest.approx(got["memory"], rel=1e-12)
