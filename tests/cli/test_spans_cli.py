"""`accord spans`: brat, BIO and table input; table, JSON and CSV output; one-line errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
from numpy.testing import assert_allclose
from typer.testing import CliRunner

from accord.cli import app

from .._cli import cli_json

runner = CliRunner()

VECTOR = json.loads((Path(__file__).parents[1] / "reference" / "spans.json").read_text())[
    "spec_vector"
]


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_spans_on_the_bundled_brat_example(examples: Path) -> None:
    code, out, _ = invoke("spans", str(examples / "spans"), "--match", "overlap")
    assert code == 0
    assert "overlap matching" in out and "ann1 ~ ann2" in out and "label DRUG" in out
    code, out, _ = invoke("spans", str(examples / "spans"), "--format", "json")
    assert code == 0
    data = cli_json(out)
    assert data["match"] == "exact" and data["by"] == "label"
    # by hand (see test_spans_io.test_bundled_example): F1 10/17, 10/17, 6/16
    assert_allclose([p["f1"] for p in data["pairs"]], [10 / 17, 10 / 17, 6 / 16])
    assert data["notes"] == ["skipped 1 line that is not a text-bound (T) annotation"]


def test_spans_table_input_csv_output(tmp_path: Path) -> None:
    rows = [f"{w},d1,{s},{e},{lab}" for w, lab, s, e in VECTOR["spans"]]
    path = tmp_path / "spans.csv"
    path.write_text("annotator,document,start,end,label\n" + "\n".join(rows) + "\n")
    code, out, _ = invoke("spans", str(path), "-f", "csv")
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    assert table["scope"].tolist() == ["overall", "label DISEASE", "label DRUG"]
    assert_allclose(table["mean_f1"].iloc[0], VECTOR["exact"]["mean"], atol=5e-7)
    assert_allclose(table["sd_f1"].iloc[0], VECTOR["exact"]["sd"], atol=5e-7)
    out_file = tmp_path / "out.json"
    code, _, _ = invoke(
        "spans",
        str(path),
        "--match",
        "overlap",
        "--ignore-label",
        "-f",
        "json",
        "-o",
        str(out_file),
    )
    assert code == 0
    data = cli_json(out_file.read_text())
    assert data["by"] is None and data["ignore_label"] is True and data["groups"] is None
    code, _, _ = invoke("spans", str(path), "--by", "document", "-o", str(tmp_path / "t.txt"))
    assert code == 0 and "document d1" in (tmp_path / "t.txt").read_text()


def test_spans_bio_input(tmp_path: Path) -> None:
    path = tmp_path / "s.iob"
    path.write_text("tok ann1 ann2\nAspirin B-DRUG B-DRUG\nreduces O B-DRUG\n")
    code, out, _ = invoke("spans", str(path), "--header", "-f", "json", "--by", "none")
    assert code == 0
    data = cli_json(out)
    assert data["annotators"] == ["ann1", "ann2"] and data["unit"] == "token"
    assert data["pairs"][0]["f1"] == 2 * 1 / (1 + 2)  # TP 1 of sizes 1 + 2 (hand count)
    path2 = tmp_path / "s.txt"
    path2.write_text(path.read_text())
    code, _, _ = invoke("spans", str(path2), "--input-format", "bio", "--header")
    assert code == 0


def test_spans_errors_are_one_line(tmp_path: Path, examples: Path) -> None:
    code, _, err = invoke("spans", str(tmp_path / "nope.csv"))
    assert code == 2 and err.startswith("accord: error: file not found")
    path = tmp_path / "bad.csv"
    path.write_text("annotator,document,start,end,label\na,d,5,3,X\nb,d,0,3,X\n")
    code, _, err = invoke("spans", str(path))
    assert code == 2 and "end <= start in row 1" in err and len(err.strip().splitlines()) == 1
    code, _, err = invoke("spans", str(examples / "spans"), "--ignore-label", "--by", "label")
    assert code == 2 and "by='label' needs labels" in err
    code, _, err = invoke("spans", str(examples / "spans"), "--match", "fuzzy")
    assert code == 2 and "--match must be one of exact, overlap, token; got fuzzy" in err


def test_spans_warns_about_annotators_without_spans(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("annotator,document,start,end,label\na,d,0,3,X\nb,d,0,3,X\nc,d,,,\n")
    code, out, err = invoke("spans", str(path))
    assert code == 0
    assert "annotators with no spans: 'c'" in err
    assert "Annotators with no spans: c" in out


def _brat(root: Path, files: dict[str, str], text: bytes) -> Path:
    for annotator, content in files.items():
        (root / annotator).mkdir(parents=True)
        (root / annotator / "d.ann").write_text(content)
    (root / "d.txt").write_bytes(text)
    return root


def test_spans_brat_duplicate_is_counted_once_and_said(tmp_path: Path) -> None:
    line = "T1\tDRUG 0 7\tAspirin\n"
    root = _brat(tmp_path, {"a": line + line.replace("T1", "T2"), "b": line}, b"Aspirin daily")
    code, out, err = invoke("spans", str(root), "--format", "json")
    assert code == 0
    data = cli_json(out)
    assert data["statistic"] == 1.0  # 2 * 1 / (1 + 1); counted twice it was 2/3
    assert any("dropped 1 duplicate span" in n for n in data["notes"])
    assert err.startswith("accord: warning: ") and "dropped 1 duplicate span" in err


def test_spans_brat_shifted_offsets_exit_2(tmp_path: Path) -> None:
    lf = "Patient one\nAspirin daily\n"
    ann = "T1\tDRUG 12 19\tAspirin\n"
    root = _brat(tmp_path, {"a": ann, "b": ann}, lf.replace("\n", "\r\n").encode())
    code, out, err = invoke("spans", str(root))
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("accord: error: 2 of 2 text-bound annotations quote a text other")
    assert "--no-text-check" in err and "line ends" in err
    code, out, err = invoke("spans", str(root), "--no-text-check", "--format", "json")
    assert code == 0 and cli_json(out)["statistic"] == 1.0
