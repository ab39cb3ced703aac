"""Unitizing on the command line and the RTTM reader: the 2016 and 1995 alphas through
`accord spans --measure`, RTTM folders, and one-line errors."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from numpy.testing import assert_allclose
from typer.testing import CliRunner

import accord
from accord.cli import app

from .._cli import cli_json

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def write_rttm(folder: Path) -> Path:
    """Two annotators of one recording (times in seconds) and one line of another type."""
    folder.mkdir()
    (folder / "a.rttm").write_text(
        "SPEAKER rec1 1 0.000 2.000 <NA> <NA> alice <NA> <NA>\n"
        "SPEAKER rec1 1 2.500 1.500 <NA> <NA> bob <NA> <NA>\n"
        "SPKR-INFO rec1 1 <NA> <NA> <NA> adult_female alice <NA> <NA>\n"
    )
    (folder / "b.rttm").write_text(
        "SPEAKER rec1 1 0.000 2.200 <NA> <NA> alice <NA> <NA>\n"
        "SPEAKER rec1 1 2.500 1.500 <NA> <NA> bob <NA> <NA>\n"
    )
    return folder


def test_read_rttm_folder(tmp_path: Path) -> None:
    spans = accord.read_rttm(write_rttm(tmp_path / "r"))
    assert spans.unit == "millisecond" and spans.annotators == ("a", "b")
    assert spans.to_frame()[["start", "end", "label"]].values.tolist() == [
        [0, 2000, "alice"], [2500, 4000, "bob"], [0, 2200, "alice"], [2500, 4000, "bob"],
    ]  # fmt: skip
    assert spans.notes == ("skipped 1 line that is not SPEAKER turns",)


def test_rttm_unitizing_by_hand(tmp_path: Path) -> None:
    # continuum [0, 4000) ms (the last end). a: alice [0,2000), gap [2000,2500), bob;
    # b: alice [0,2200), gap [2200,2500), bob. l_aa = 4000, l_bb = 3000, l_ag = l_ga = 200,
    # l_gg = 600 (l_.. = 8000). S_alice = 2000^2 + 2200^2, S_bob = 2 * 1500^2, S_gap = 800:
    # e_cc = 8000 (l_c^2 - S_c) / (8000^2 - S)
    res = accord.unitizing_alpha(accord.read_rttm(write_rttm(tmp_path / "r")))
    s = {"(gap)": 800.0, "alice": 2000.0**2 + 2200.0**2, "bob": 2 * 1500.0**2}
    margin = {"(gap)": 800.0, "alice": 4200.0, "bob": 3000.0}
    denominator = 8000.0**2 - sum(s.values())
    e_diag = sum(8000 * (margin[c] ** 2 - s[c]) / denominator for c in s)
    assert res.statistic == pytest.approx(1 - (8000 - 7600) / (8000 - e_diag), rel=1e-12)
    assert res.length == 4000 and res.unit == "millisecond"


def test_rttm_errors(tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "a.rttm").write_text("SPEAKER rec1 1 zero 2.0 <NA> <NA> alice <NA> <NA>\n")
    with pytest.raises(accord.InvalidInputError, match=r"a.rttm, line 1: onset and duration"):
        accord.read_rttm(folder)
    (folder / "a.rttm").write_text("SPEAKER rec1 1 0.0\n")
    with pytest.raises(accord.InvalidInputError, match="at least 8 fields"):
        accord.read_rttm(folder)
    (tmp_path / "empty").mkdir()
    with pytest.raises(accord.InvalidInputError, match=r"no \.rttm files"):
        accord.read_rttm(tmp_path / "empty")


def test_cli_u_alpha_json_matches_the_library(examples: Path) -> None:
    code, out, _ = invoke("spans", str(examples / "spans"), "--measure", "u-alpha",
                          "--format", "json")  # fmt: skip
    assert code == 0
    data = cli_json(out)
    lib = accord.unitizing_alpha(accord.read_brat(examples / "spans"))
    assert_allclose([data["statistic"], data["binary"], data["coding"]],
                    [lib.statistic, lib.binary, lib.coding], rtol=1e-12)  # fmt: skip
    code, out, _ = invoke("spans", str(examples / "spans"), "--measure", "u-alpha-1995",
                          "--format", "csv")  # fmt: skip
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    old = accord.unitizing_alpha_1995(accord.read_brat(examples / "spans"))
    assert table["scope"].tolist() == ["overall", "label DISEASE", "label DRUG"]
    assert_allclose(table["alpha"], [old.statistic, *old.per_label["alpha"]], rtol=1e-9)


def test_cli_rttm_folder_is_detected(tmp_path: Path) -> None:
    code, out, _ = invoke("spans", str(write_rttm(tmp_path / "r")), "--measure", "u-alpha")
    assert code == 0, out
    assert "over 4000 milliseconds" in out and "(k)u-alpha" in out


def test_cli_errors_are_one_line(examples: Path, tmp_path: Path) -> None:
    code, _, err = invoke("spans", str(examples / "spans"), "--measure", "u-alpha",
                          "--match", "overlap")  # fmt: skip
    assert code == 2 and "--match apply only to F1" in err and "Traceback" not in err
    path = tmp_path / "s.csv"
    path.write_text("annotator,document,start,end,label\na,d,0,5,x\na,d,3,8,y\nb,d,0,5,x\n")
    code, _, err = invoke("spans", str(path), "--measure", "u-alpha")
    assert code == 2 and "mutually exclusive" in err and len(err.strip().splitlines()) == 1


def test_cli_gamma_json_matches_the_library(examples: Path) -> None:
    code, out, _ = invoke("spans", str(examples / "spans"), "--measure", "gamma",
                          "--format", "json")  # fmt: skip
    assert code == 0
    data = cli_json(out)
    lib = accord.gamma_agreement(accord.read_brat(examples / "spans"))  # seed 0 both ways
    assert data["statistic"] == pytest.approx(lib.statistic, rel=1e-12)
    assert data["n_samples"] == 30 and data["seed"] == 0
    assert data["gamma_cat"] == pytest.approx(lib.gamma_cat, rel=1e-12)
    assert [r["label"] for r in data["per_label"]] == ["DISEASE", "DRUG"]
    code, out, _ = invoke("spans", str(examples / "spans"), "--measure", "gamma")
    assert code == 0 and "gamma-cat" in out and "gamma-k, label DRUG" in out


def test_cli_u_alpha_bootstrap_matches_the_library(examples: Path, tmp_path: Path) -> None:
    code, out, err = invoke("spans", str(examples / "spans"), "--measure", "u-alpha",
                            "--n-boot", "50", "--seed", "3", "--format", "csv")  # fmt: skip
    assert code == 0 and "only 50 bootstrap replicates (--n-boot 50)" in err
    table = pd.read_csv(io.StringIO(out))
    with pytest.warns(accord.AccordWarning):
        lib = accord.unitizing_alpha(accord.read_brat(examples / "spans"), n_boot=50, rng=3)
    assert_allclose(table["low"], lib.intervals["low"], rtol=1e-9)
    assert_allclose(table["high"], lib.intervals["high"], rtol=1e-9)
    code, out, _ = invoke("spans", str(examples / "spans"), "--measure", "u-alpha",
                          "--n-boot", "1000")  # fmt: skip
    assert code == 0 and "interval and SE over 1000 resamples of the documents" in out
    code, _, err = invoke("spans", str(examples / "spans"), "--measure", "gamma", "--n-boot", "9")
    assert code == 2 and "--n-boot applies only to --measure u-alpha" in err
