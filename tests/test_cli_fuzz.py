"""Every command on broken input: exit status 2 and one line on stderr, never a traceback.

Random bytes under every suffix, good files cut short at any byte (Parquet, CSV, JSON Lines)
and column names that are not in the file are fed to agree, pair, consensus, calibrate,
confidence, spans and report in process (typer's CliRunner). The examples are bounded so the
test runs in seconds.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from accord.cli import app

runner = CliRunner()

#: Each command with the options that read the columns of the base file.
COMMANDS: dict[str, list[str]] = {
    "agree": ["agree", "{path}", "--item", "item", "--rater", "rater", "--label", "label"],
    "pair": ["pair", "{path}", "--item", "item", "--rater", "rater", "--label", "label"],
    "consensus": ["consensus", "{path}", "--item", "item", "--rater", "rater", "--label", "label"],
    "calibrate": ["calibrate", "{path}", "--item", "item", "--rater", "rater", "--score", "score"],
    "confidence": ["confidence", "{path}", "--correct", "ok", "--confidence", "conf"],
    "spans": ["spans", "{path}", "-i", "table", "--annotator", "rater", "--document", "item"],
    "report": ["report", "{path}", "--item", "item", "--rater", "rater", "--label", "label", "-q"],
}
#: The column options of each command, one of which a fuzzed name replaces.
COLUMN_OPTIONS = {
    "--item",
    "--rater",
    "--label",
    "--score",
    "--correct",
    "--confidence",
    "--annotator",
    "--document",
}
SUFFIXES = (".csv", ".tsv", ".parquet", ".jsonl", ".csv.gz")
FUZZ = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def base_frame() -> pd.DataFrame:
    """Ratings with every column the commands read: two raters on four items."""
    rows = []
    for i in range(4):
        for r, rater in enumerate(("a", "b")):
            rows.append(
                {
                    "item": f"i{i}",
                    "rater": rater,
                    "label": ("x", "y")[(i + r * (i == 3)) % 2],
                    "score": float(i + r),
                    "conf": 0.25 + 0.125 * (i + r),
                    "ok": int((i + r) % 2 == 0),
                    "start": 2 * i,
                    "end": 2 * i + 1 + r,
                }
            )
    return pd.DataFrame(rows)


def good_bytes(suffix: str, folder: Path) -> bytes:
    """The base frame written as a file of the given kind."""
    path = folder / f"base{suffix}"
    frame = base_frame()
    if suffix == ".parquet":
        frame.to_parquet(path)
    elif suffix == ".jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_csv(path, index=False, sep="\t" if suffix == ".tsv" else ",")
    return path.read_bytes()


def run(args: list[str]) -> tuple[int, str]:
    result = runner.invoke(app, args)
    exc = result.exception
    assert exc is None or isinstance(exc, SystemExit), (
        f"accord {' '.join(args)} raised {type(exc).__name__}: {exc}"
    )
    return result.exit_code, result.stderr


def assert_one_line_error(code: int, stderr: str, args: list[str]) -> None:
    lines = stderr.strip().splitlines()
    assert code == 2, f"accord {' '.join(args)} exited {code}: {stderr}"
    assert "Traceback" not in stderr
    assert len(lines) == 1, f"accord {' '.join(args)}: {stderr}"
    assert lines[0].startswith("accord: error: ")


def command_args(name: str, path: Path, tmp: Path) -> list[str]:
    args = [a.format(path=path) for a in COMMANDS[name]]
    if name == "report":
        args += ["-o", str(tmp / "out.html")]
    return args


@FUZZ
@given(
    data=st.binary(min_size=0, max_size=400),
    suffix=st.sampled_from(SUFFIXES),
    name=st.sampled_from(sorted(COMMANDS)),
)
def test_random_bytes_are_one_line_errors(
    tmp_path: Path, data: bytes, suffix: str, name: str
) -> None:
    path = tmp_path / f"random{suffix}"
    path.write_bytes(data)
    args = command_args(name, path, tmp_path)
    code, stderr = run(args)
    assert_one_line_error(code, stderr, args)


@FUZZ
@given(
    suffix=st.sampled_from((".csv", ".parquet", ".jsonl")),
    name=st.sampled_from(sorted(COMMANDS)),
    cut=st.floats(min_value=0.0, max_value=0.999),
)
def test_truncated_files_never_give_a_traceback(
    tmp_path: Path, suffix: str, name: str, cut: float
) -> None:
    whole = good_bytes(suffix, tmp_path)
    path = tmp_path / f"cut{suffix}"
    path.write_bytes(whole[: int(len(whole) * cut)])
    args = command_args(name, path, tmp_path)
    code, stderr = run(args)
    # A CSV or JSON Lines file cut at a line end is a shorter good file; anything else is
    # a one-line error.
    if code != 0 or suffix == ".parquet":
        assert_one_line_error(code, stderr, args)


@FUZZ
@given(
    column=st.text(min_size=0, max_size=12).filter(lambda c: c not in base_frame().columns),
    suffix=st.sampled_from((".csv", ".tsv", ".parquet", ".jsonl")),
    name=st.sampled_from(sorted(COMMANDS)),
    which=st.integers(min_value=0, max_value=5),
)
def test_unknown_column_names_are_one_line_errors(
    tmp_path: Path, column: str, suffix: str, name: str, which: int
) -> None:
    path = tmp_path / f"base{suffix}"
    path.write_bytes(good_bytes(suffix, tmp_path))
    args = command_args(name, path, tmp_path)
    positions = [i + 1 for i, a in enumerate(args) if a in COLUMN_OPTIONS]
    args[positions[which % len(positions)]] = column
    code, stderr = run(args)
    assert_one_line_error(code, stderr, args)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_directory_is_a_one_line_error(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "ratings.csv"
    folder.mkdir()
    args = command_args(name, folder, tmp_path)
    code, stderr = run(args)
    assert_one_line_error(code, stderr, args)
    assert "directory" in stderr or "folder" in stderr
