"""Entry points that do what their help says: ``accord report`` recognises an annotation
tool's export (as ``accord agree`` does) and refuses accord's own JSON output in one line;
at 80 columns every line of every table and footnote fits, notes are numbered footnotes
printed once, and a pair of limits is never split."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import typer
from rich.cells import cell_len
from typer.testing import CliRunner

from accord.cli import app

runner = CliRunner()
CLICK = typer.main.get_command(app)
TOOLS = Path("examples/annotation-tools")


@pytest.mark.parametrize(
    ("export", "extra"),
    [
        ("label_studio.json", ["--field", "sentiment"]),
        ("prodigy_choice.jsonl", []),
        ("pairwise.jsonl", ["--duplicates", "first"]),
    ],
)
def test_report_recognises_an_export_by_its_content(
    tmp_path: Path, export: str, extra: list[str]
) -> None:
    page = tmp_path / "page.html"
    res = runner.invoke(app, ["report", str(TOOLS / export), *extra, "-q", "-o", str(page)])
    assert res.exit_code == 0, res.output
    assert page.stat().st_size > 0
    # the same ratings as with --from, and as accord agree reads them
    agree = runner.invoke(app, ["agree", str(TOOLS / export), *extra])
    assert agree.exit_code == 0, agree.output


def test_accords_own_json_output_is_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "agree.json"
    made = runner.invoke(app, ["agree", "examples/diagnoses.csv", "--item", "patient",
                               "--rater", "rater", "--label", "diagnosis", "--format", "json",
                               "-o", str(out)])  # fmt: skip
    assert made.exit_code == 0, made.output
    for command in (["report", str(out), "-q", "-o", str(tmp_path / "p.html")],
                    ["agree", str(out)]):  # fmt: skip
        res = runner.invoke(app, command)
        assert res.exit_code == 2
        line = res.output.strip()
        assert "\n" not in line
        assert "is the --format json output of accord agree" in line
        assert "computed from examples/diagnoses.csv" in line


def _table_examples() -> list[list[str]]:
    out = []
    for name, command in CLICK.commands.items():  # type: ignore[attr-defined]
        if name in ("demo", "report"):
            continue
        text = (command.epilog or "").split("\b")[-1].replace("\\\n", " ")
        for line in filter(None, (line.strip() for line in text.splitlines())):
            args, skip = [], False
            for word in shlex.split(line)[1:]:
                if skip or word in ("-o", "--output", "--output-dir", "--biases", "--format", "-f"):
                    skip = not skip
                    continue
                args.append(word)
            out.append(args)
    return out


EXAMPLES = _table_examples()


@pytest.mark.parametrize("args", EXAMPLES, ids=[" ".join(a)[:60] for a in EXAMPLES])
def test_every_table_fits_80_columns(args: list[str]) -> None:
    res = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    wide = [line for line in res.stdout.splitlines() if cell_len(line) > 80]
    assert not wide, wide[:3]


INTERVAL = ["agree", "examples/birads.csv", "--item", "finding", "--rater", "modality",
            "--label", "birads", "--level", "interval"]  # fmt: skip


def test_notes_become_footnotes_printed_once_at_80_columns() -> None:
    res = runner.invoke(app, INTERVAL, env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    out = res.stdout
    # the six ICC rows share one note: printed once, under the table, numbered
    assert out.count("inference by the F test") == 1, out
    assert "[1] " in out
    assert "Left out to fit" not in out  # items and p are shown, the note takes little room
    header = next(line for line in out.splitlines() if "coefficient" in line)
    assert " items " in header and " p " in header
    # a wide terminal keeps the notes in their column
    wide = runner.invoke(app, INTERVAL, env={"COLUMNS": "200"}).stdout
    assert "[1] " not in wide


def test_a_pair_of_limits_is_never_split_at_80_columns() -> None:
    args = ["compare", "examples/pefr.csv", "--item", "subject", "--rater", "meter",
            "--score", "pefr", "--reference", "mini-Wright"]  # fmt: skip
    out = runner.invoke(app, args, env={"COLUMNS": "80"}).stdout
    header = "\n".join(line for line in out.splitlines() if "┃" in line)
    assert ("lower limit" in header) == ("upper limit" in header), out
    assert "lower limit" in header, out  # both shown: the limits are what is compared


def test_report_on_a_brat_folder_writes_the_span_page(tmp_path: Path) -> None:
    out = tmp_path / "spans.html"
    res = runner.invoke(app, ["report", "examples/spans", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "(summary, read, spans, methods)" in res.stdout
    # by hand from the brat files (tests/report/test_report_levels.py): mean pairwise F1
    # over 3 pairs
    mean = (2 * 5 / 17 + 2 * 5 / 17 + 2 * 3 / 16) / 3
    assert f"mean pairwise F1 {mean:.3f} over 3 pairs" in out.read_text(encoding="utf-8")
