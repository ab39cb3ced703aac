"""accord against NIST sclite's own output on its test3b data, the readers, and the CLI."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from typer.testing import CliRunner

import accord
from accord.cli import app

from .._cli import cli_json

REFERENCE = json.loads(
    (Path(__file__).parents[1] / "reference" / "confidence.json").read_text(encoding="utf-8")
)["sclite_test3b"]


@pytest.fixture
def sgml(sclite_data: Path) -> Path:
    return sclite_data / "sclite-test3b.sgml"


def _sys_nce(path: Path) -> dict[str, float]:
    """The NCE column of sclite's summary report, keyed by its row label."""
    out = {}
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and re.fullmatch(r"-?\d+\.\d{3}", cells[-1]):
            out[cells[0]] = float(cells[-1])
    return out


def test_reader_matches_the_extracted_words(sgml: Path, sclite_data: Path):
    words = accord.read_sclite_sgml(sgml)
    # source: tests/reference/sclite/sclite-test3b-words.csv, extracted from the same SGML
    ref = pd.read_csv(sclite_data / "sclite-test3b-words.csv")
    assert len(words) == len(ref) == REFERENCE["n"]
    assert_array_equal(words["speaker"], ref["speaker"])
    assert_array_equal(words["eval"], ref["eval"])
    assert_array_equal(words["correct"], ref["correct"].astype(bool))
    assert_array_equal(words["confidence"], ref["confidence"])
    assert int(words["correct"].sum()) == REFERENCE["n_correct"]
    # an escaped character inside a quoted field: "a\;s;tag1;" in the file
    assert "a;s;tag1;" in set(words["ref"])


def test_nce_reproduces_sclite(sgml: Path, sclite_data: Path):
    words = accord.read_sclite_sgml(sgml)
    r = accord.normalized_cross_entropy(
        words["correct"], words["confidence"], groups=words["speaker"]
    )
    assert list(r.groups["group"]) == REFERENCE["speakers"]
    # source: sclite's summary (sclite-test3b.sys), NCE printed at 3 decimals
    assert [round(v, 3) for v in r.groups["nce"]] == REFERENCE["nce_printed"]
    assert round(r.statistic, 3) == REFERENCE["pooled_printed"]
    assert round(r.mean, 3) == REFERENCE["mean_printed"]
    assert round(r.sd, 3) == REFERENCE["sd_printed"]
    assert round(r.median, 3) == REFERENCE["median_printed"]
    # source: tests/reference/sclite/README.md, the same at 4 decimals
    assert_allclose(r.groups["nce"], REFERENCE["nce_4dp"], atol=5e-5)
    assert_allclose(r.statistic, REFERENCE["pooled_4dp"], atol=5e-5)
    # and the .sys file itself, read in place
    sys_nce = _sys_nce(sclite_data / "sclite-test3b.sys")
    for speaker, value in zip(REFERENCE["speakers"], r.groups["nce"], strict=True):
        assert round(value, 3) == sys_nce[speaker]
    assert round(r.statistic, 3) == sys_nce["Sum/Avg"]
    assert round(r.mean, 3) == sys_nce["Mean"]
    assert round(r.sd, 3) == sys_nce["S.D."]
    assert round(r.median, 3) == sys_nce["Median"]


def _write_sgml(tmp_path: Path, body: str, word_aux: str = "h_t1+t2,h_conf") -> Path:
    p = tmp_path / "x.sgml"
    p.write_text(
        '<SYSTEM title="t">\n<SPEAKER id="s">\n'
        f'<PATH id="(s-000)" labels="<o,na>" word_aux="{word_aux}">\n{body}\n</PATH>\n'
        "</SPEAKER>\n</SYSTEM>\n"
    )
    return p


def test_reader_quotes_escapes_and_deletions(tmp_path: Path):
    body = (
        'C,"a:b","a:b",1.0+1.5,0.8:S,"x\\"y","z,w",1.5+2.0,0.3:D,"gone",,,:I,,"<unk>",2.0+2.2,0.1'
    )
    words = accord.read_sclite_sgml(_write_sgml(tmp_path, body))
    assert words["eval"].tolist() == ["C", "S", "I"]
    assert words["ref"].tolist() == ["a:b", 'x"y', ""]
    assert words["hyp"].tolist() == ["a:b", "z,w", "<unk>"]
    assert_allclose(words["t1"], [1.0, 1.5, 2.0])
    assert_allclose(words["t2"], [1.5, 2.0, 2.2])
    assert words["correct"].tolist() == [True, False, False]


@pytest.mark.parametrize(
    ("body", "word_aux", "message"),
    [
        ('C,"a","a",1.0+1.5', "h_t1+t2", "no hypothesis confidence"),
        ('X,"a","a",1.0+1.5,0.8', "h_t1+t2,h_conf", "unknown evaluation code 'X'"),
        ('C,"a","a",1.0+1.5,high', "h_t1+t2,h_conf", "confidence 'high' is not a number"),
        ('C,"a","a",1.0+1.5,', "h_t1+t2,h_conf", "missing confidence"),
        ('D,"a",,,', "h_t1+t2,h_conf", "no scored hypothesis words"),
    ],
)
def test_reader_errors_name_the_place(tmp_path: Path, body: str, word_aux: str, message: str):
    with pytest.raises(accord.InvalidInputError, match=re.escape(message)) as info:
        accord.read_sclite_sgml(_write_sgml(tmp_path, body, word_aux))
    if "no scored" not in message:
        assert "line 3, path (s-000)" in str(info.value)


def test_read_confidences(tmp_path: Path):
    p = tmp_path / "u.csv"
    p.write_text("ok,conf,who\ntrue,0.9,a\nfalse,0.2,b\n1,0.6,a\n")
    frame = accord.read_confidences(p, correct="ok", confidence="conf", group="who")
    assert frame["correct"].tolist() == [True, False, True]
    assert frame["group"].tolist() == ["a", "b", "a"]
    p.write_text("ok,conf\n1,0.9\n0,\n")
    with pytest.raises(accord.InvalidInputError, match="column 'conf': missing value at row 2"):
        accord.read_confidences(p, correct="ok", confidence="conf")
    with pytest.raises(accord.ColumnNotFoundError, match="'score' not found"):
        accord.read_confidences(p, correct="ok", confidence="score")


# ---------------------------------------------------------------- CLI

runner = CliRunner()


def test_cli_sclite_table(sgml: Path):
    result = runner.invoke(app, ["confidence", "--sclite-sgml", str(sgml)])
    assert result.exit_code == 0, result.output
    for text in ("0.2564", "0.1738", "0.1447", "0.1973", "0.2048", "0.1930", "0.0474", "0.1855"):
        assert text in result.output


def test_cli_sclite_json_and_recalibration(sgml: Path):
    result = runner.invoke(
        app,
        [
            "confidence",
            "--sclite-sgml",
            str(sgml),
            "--format",
            "json",
            "--recalibrate",
            "isotonic",
            "--binning",
            "mass",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = cli_json(result.output)
    assert round(payload["nce"]["statistic"], 3) == REFERENCE["pooled_printed"]
    assert [round(g["nce"], 3) for g in payload["nce"]["groups"]] == REFERENCE["nce_printed"]
    assert payload["reliability"]["binning"] == "mass"
    assert payload["recalibration"]["before"]["statistic"] == payload["nce"]["statistic"]
    assert math.isfinite(payload["recalibration"]["after"]["statistic"])


def test_cli_file_csv_and_output(tmp_path: Path):
    data = tmp_path / "units.csv"
    rng = np.random.default_rng(0)
    y = rng.random(200) < 0.6
    pd.DataFrame({"ok": y.astype(int), "conf": rng.random(200), "g": np.arange(200) % 3}).to_csv(
        data, index=False
    )
    out = tmp_path / "out.csv"
    result = runner.invoke(
        app,
        [
            "confidence",
            str(data),
            "--correct",
            "ok",
            "--confidence",
            "conf",
            "--group",
            "g",
            "--format",
            "csv",
            "--output",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out)
    pooled = table[(table["metric"] == "nce") & (table["group"] == "pooled")]["value"].item()
    direct = accord.normalized_cross_entropy(y, pd.read_csv(data)["conf"]).statistic
    assert_allclose(pooled, direct, rtol=1e-9)
    text_out = tmp_path / "out.txt"
    result = runner.invoke(
        app,
        [
            "confidence",
            str(data),
            "--correct",
            "ok",
            "--confidence",
            "conf",
            "--recalibrate",
            "bins",
            "--output",
            str(text_out),
        ],
    )
    assert result.exit_code == 0, result.output
    text = text_out.read_text()
    assert "Normalized cross-entropy" in text and "Reliability diagram" in text
    assert "cross-fitted" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--correct", "ok", "--confidence", "nope"], "column 'nope' not found"),
        (["--correct", "ok"], "--correct and --confidence are required"),
        (["--correct", "ok", "--confidence", "conf", "--binning", "odd"], "--binning must be"),
        (["--correct", "ok", "--confidence", "conf"], "found 1.5 at row 2"),
    ],
)
def test_cli_errors_are_one_line(tmp_path: Path, args: list[str], message: str):
    data = tmp_path / "bad.csv"
    data.write_text("ok,conf\n1,0.5\n0,1.5\n")
    result = runner.invoke(app, ["confidence", str(data), *args])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_cli_clip_and_conflicting_inputs(tmp_path: Path, sgml: Path):
    data = tmp_path / "bad.csv"
    data.write_text("ok,conf\n1,0.5\n0,1.5\n1,0.7\n")
    result = runner.invoke(
        app,
        [
            "confidence",
            str(data),
            "--correct",
            "ok",
            "--confidence",
            "conf",
            "--out-of-range",
            "clip",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert cli_json(result.output)["nce"]["n_out_of_range"] == 1
    result = runner.invoke(app, ["confidence", str(data), "--sclite-sgml", str(sgml)])
    assert result.exit_code == 2 and "--sclite-sgml reads its own columns" in result.output
    result = runner.invoke(app, ["confidence"])
    assert result.exit_code == 2 and "--sclite-sgml FILE" in result.output


def test_cli_prints_the_read_line(sgml: Path, sclite_data: Path, tmp_path: Path):
    # the bundled word list is the alignment's scored words, one row each (1724 of them)
    words = pd.read_csv(sclite_data / "sclite-test3b-words.csv")
    n, speakers = len(words), words["speaker"].nunique()
    result = runner.invoke(app, ["confidence", "--sclite-sgml", str(sgml)])
    line = (
        f"read {n:,} hypothesis words: {n:,} scored words (C, S, I; deletions are not scored) "
        f"in {speakers} speakers; nothing dropped"
    )
    assert line in " ".join(result.stdout.split())
    data = tmp_path / "units.csv"
    data.write_text("ok,conf,g\n1,0.9,a\n0,0.2,a\n1,1.5,b\n")
    args = ["confidence", str(data), "--correct", "ok", "--confidence", "conf", "--group", "g"]
    result = runner.invoke(app, [*args, "--out-of-range", "clip"])
    assert result.exit_code == 0, result.output
    line = (
        "read 3 rows: 3 scored units in 2 groups; nothing dropped; 1 confidence outside "
        "[0, 1] clipped"
    )
    assert line in " ".join(result.stdout.split())
    result = runner.invoke(app, [*args, "--out-of-range", "clip", "--format", "json"])
    report = cli_json(result.stdout)["report"]
    assert (report["rows"], report["units"], report["dropped"]) == (3, 3, 0)
    assert report["out_of_range_clipped"] == 1
