"""The options every command that reads a file shares (accord.cli._common): one definition,
one check, one message, whichever command takes them."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from accord.cli import app

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

    monkeypatch.chdir(Path(__file__).resolve().parents[1])


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_scheduler_outside_dask_is_one_line_naming_the_options(command: str, engine: str) -> None:
    # With --engine stream the library's own message used to reach the user, in its keywords
    # (scheduler= applies to engine='dask'); every command now says it in options.
    res = runner.invoke(app, [*COMMANDS[command], "--engine", engine, "--scheduler", "threads"])
    assert res.exit_code == 2
    assert res.output == "accord: error: --scheduler applies to --engine dask\n"


def test_memory_only_options_are_named_as_given() -> None:
    # consensus named both options whichever was given.
    base = [*COMMANDS["consensus"], "--engine", "stream"]
    res = runner.invoke(app, [*base, "--duplicates", "first"])
    assert res.exit_code == 2
    assert res.output.startswith("accord: error: --duplicates applies to --engine memory (")
    res = runner.invoke(app, [*base, "--duplicates", "first", "--gold", "patient"])
    assert res.output.startswith("accord: error: --gold and --duplicates apply to --engine memory")


@pytest.mark.parametrize("command", ["agree", "consensus", "calibrate", "report"])
def test_commands_share_the_column_options(command: str) -> None:
    from typer.main import get_command

    group: Any = get_command(app)
    params = {p.name: p for p in group.commands[command].params}
    assert params["item"].opts == ["--item"] and params["item"].required
    assert params["rater"].opts == ["--rater"] and params["rater"].required
    assert params["item"].help == "Column holding the item ids."
    if command != "calibrate":
        assert params["level"].default == "nominal"
        assert params["categories"].help == "Declared categories in order, comma-separated."
