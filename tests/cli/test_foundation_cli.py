"""The command line: help with examples, one-line errors with exit status 2, stable JSON."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli import app

from .._cli import cli_json

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_help_shows_an_example_for_every_command() -> None:
    code, out, _ = invoke("--help")
    assert code == 0
    assert "Examples" in out
    commands = [c.name for c in app.registered_commands]
    assert "agree" in commands
    for name in commands:
        assert name is not None
        code, out, _ = invoke(name, "--help")
        assert code == 0, name
        assert "Example" in out, f"`accord {name} --help` shows no example"


def test_agree_table_and_json(examples: Path) -> None:
    path = str(examples / "diagnoses.csv")
    args = ("agree", path, "--item", "patient", "--rater", "rater", "--label", "diagnosis")
    code, out, _ = invoke(*args)
    assert code == 0
    assert "fleiss_kappa" in out and "0.4302" in out
    code, out, _ = invoke(*args, "--format", "json")
    assert code == 0
    doc = cli_json(out)
    assert doc["report"]["rows"] == 180
    fleiss = next(c for c in doc["coefficients"] if c["name"] == "fleiss_kappa")
    assert abs(fleiss["statistic"] - 0.4302445) < 1e-7  # Fleiss (1971); R irr kappam.fleiss
    assert {"standard_error", "ci_low", "ci_high", "pvalue", "method", "n_items"} <= set(fleiss)


def test_agree_csv_to_file(examples: Path, tmp_path: Path) -> None:
    out_path = tmp_path / "out.csv"
    code, _, _ = invoke(
        "agree", str(examples / "diagnoses.csv"), "--item", "patient", "--rater", "rater",
        "--label", "diagnosis", "--format", "csv", "--output", str(out_path),
    )  # fmt: skip
    assert code == 0
    lines = out_path.read_text().splitlines()
    assert lines[0].startswith("name,")
    assert any(line.startswith("fleiss_kappa,identity,0.4302445") for line in lines[1:])


def _one_line_error(args: list[str], expected: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("accord: error:")
    assert expected in err
    assert "Traceback" not in result.output


def test_error_file_not_found(tmp_path: Path) -> None:
    _one_line_error(
        ["agree", str(tmp_path / "no.csv"), "--item", "i", "--rater", "r", "--label", "l"],
        "file not found",
    )


def test_error_unknown_column_lists_columns(examples: Path) -> None:
    _one_line_error(
        ["agree", str(examples / "diagnoses.csv"), "--item", "patient", "--rater", "judge",
         "--label", "diagnosis"],
        "column 'judge' not found; the columns are: 'patient', 'rater', 'diagnosis'",
    )  # fmt: skip


def test_error_unparseable_interval_label(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("i,r,s\n1,a,3\n1,b,4\n2,a,five\n")
    _one_line_error(
        ["agree", str(path), "--item", "i", "--rater", "r", "--label", "s", "--level", "interval"],
        "label 'five' at row 3 is not a number",
    )


def test_error_empty_input(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("i,r,s\n")
    _one_line_error(["agree", str(path), "--item", "i", "--rater", "r", "--label", "s"], "empty")


def test_error_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("i,r,s\n1,a,x\n1,a,y\n1,b,x\n")
    _one_line_error(
        ["agree", str(path), "--item", "i", "--rater", "r", "--label", "s"],
        "(1, 'a') at rows 1, 2",
    )


def test_demo_runs_on_bundled_examples(
    examples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the demo writes its reports under ./out
    code, out, _ = invoke("demo", "--examples-dir", str(examples))
    assert code == 0
    assert "0.4302" in out  # Fleiss (1971)


LIGHT = textwrap.dedent(
    """
    import sys
    {body}
    names = ("pandas", "scipy.stats", "pyarrow", "dask", "matplotlib")
    heavy = [m for m in names if m in sys.modules]
    print(",".join(heavy))
    """
)


@pytest.mark.parametrize(
    "body",
    [
        "import accord",
        "from typer.testing import CliRunner\nfrom accord.cli import app\n"
        "CliRunner().invoke(app, ['--help'])",
    ],
)
def test_import_and_help_stay_light(body: str) -> None:
    out = subprocess.run(
        [sys.executable, "-c", LIGHT.format(body=body)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert out == "", f"heavy modules imported: {out}"


def test_error_output_into_missing_folder(examples: Path, tmp_path: Path) -> None:
    _one_line_error(
        ["agree", str(examples / "diagnoses.csv"), "--item", "patient", "--rater", "rater",
         "--label", "diagnosis", "--output", str(tmp_path / "nowhere" / "out.txt")],
        "folder not found",
    )  # fmt: skip
