"""The front doors of clustered and stratified agreement (:func:`accord.agreement_by_cluster`,
:func:`accord.kappa_by_stratum`): they read a long table from a Source, and
``accord agree --cluster/--strata`` calls them, so Python and the CLI give the same numbers."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from typer.testing import CliRunner

import accord
from accord import InvalidInputError
from accord.cli import app

from .._cli import cli_json

runner = CliRunner()
COLUMNS = {"item": "item", "rater": "reader", "label": "label"}


def _long(seed: int = 2, n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, n)
    y = np.where(rng.random(n) < 0.7, x, rng.integers(0, 3, n))
    site = np.repeat([f"s{k}" for k in range(n // 15)], 15)
    rows = [(i, "A", int(x[i]), site[i]) for i in range(n)]
    rows += [(i, "B", int(y[i]), site[i]) for i in range(n)]
    return pd.DataFrame(rows, columns=["item", "reader", "label", "site"])


def _file(tmp_path: Path, frame: pd.DataFrame) -> Path:
    path = tmp_path / "clustered.csv"
    frame.to_csv(path, index=False)
    return path


def _cli(path: Path, *extra: str) -> dict[str, object]:
    args = ["agree", str(path), "--item", "item", "--rater", "reader", "--label", "label"]
    res = runner.invoke(app, [*args, *extra, "--format", "json"])
    assert res.exit_code == 0, res.output
    return cli_json(res.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize("coefficient", ["cohen_kappa", "gwet_ac1"])
def test_python_and_the_cli_give_the_same_clustered_agreement(
    tmp_path: Path, coefficient: str
) -> None:
    path = _file(tmp_path, _long())
    python = accord.agreement_by_cluster(
        str(path),
        cluster="site",
        coefficient=coefficient,  # type: ignore[arg-type]
        **COLUMNS,
    )
    out = _cli(path, "--cluster", "site")
    (cli,) = [c for c in out["coefficients"] if c["name"] == python.name]  # type: ignore[attr-defined]
    for field in ("statistic", "standard_error", "standard_error_naive", "design_effect"):
        assert_allclose(cli[field], getattr(python, field), rtol=1e-12)
    assert (cli["n_items"], cli["n_clusters"]) == (python.n_items, python.n_clusters) == (60, 4)


def test_python_and_the_cli_give_the_same_stratified_kappa(tmp_path: Path) -> None:
    path = _file(tmp_path, _long())
    python = accord.kappa_by_stratum(str(path), strata="site", **COLUMNS)
    cli = _cli(path, "--strata", "site")
    for field in ("statistic", "standard_error", "chi_square", "pvalue"):
        assert_allclose(cli[field], getattr(python, field), rtol=1e-12)
    assert cli["df"] == python.df == 3


def test_the_front_door_is_the_estimator_on_the_pivoted_items() -> None:
    # the two raters' labels pivoted by hand, item by item, beside the front door's reading
    frame = _long(seed=5)
    wide = frame.pivot(index="item", columns="reader", values="label")
    site = frame.groupby("item")["site"].first()
    direct = accord.clustered_agreement(wide["A"], wide["B"], site)
    front = accord.agreement_by_cluster(frame, cluster="site", **COLUMNS)
    assert dataclasses.replace(front, report=None) == direct
    assert front.report is not None and front.report.ratings == 120
    strata = accord.stratified_kappa(wide["A"], wide["B"], site)
    assert accord.kappa_by_stratum(frame, strata="site", **COLUMNS).chi_square == strata.chi_square


def test_a_source_is_the_same_as_its_keywords() -> None:
    frame = _long(seed=7)
    src = accord.source(frame, **COLUMNS)
    assert accord.agreement_by_cluster(src, cluster="site") == accord.agreement_by_cluster(
        frame, cluster="site", **COLUMNS
    )


def test_rows_in_any_order_give_the_same_answer() -> None:
    frame = _long(seed=9)
    shuffled = frame.sample(frac=1.0, random_state=1)
    a = accord.agreement_by_cluster(frame, cluster="site", **COLUMNS)
    b = accord.agreement_by_cluster(shuffled, cluster="site", **COLUMNS)
    assert math.isclose(a.statistic, b.statistic, rel_tol=1e-12)
    assert math.isclose(a.standard_error, b.standard_error, rel_tol=1e-12)


def test_an_item_rated_once_is_left_out_with_a_warning() -> None:
    frame = _long()
    frame = frame[~((frame["item"] == 3) & (frame["reader"] == "B"))]
    with pytest.warns(UserWarning, match="1 of 60 items rated by one rater are left out"):
        res = accord.agreement_by_cluster(frame, cluster="site", **COLUMNS)
    assert res.n_items == 59


def test_bad_tables_are_one_line_errors() -> None:
    frame = _long()
    twice = pd.concat([frame, frame.iloc[[0]]])
    with pytest.raises(InvalidInputError, match=r"\(0, 'A'\) at rows 1, 121"):
        accord.agreement_by_cluster(twice, cluster="site", **COLUMNS)
    kept = accord.agreement_by_cluster(twice, cluster="site", duplicates="first", **COLUMNS)
    assert kept.n_items == 60
    three = pd.concat([frame, frame[frame["reader"] == "A"].assign(reader="C")])
    with pytest.raises(InvalidInputError, match="compares two raters; column 'reader' has 3"):
        accord.kappa_by_stratum(three, strata="site", **COLUMNS)
    with pytest.raises(InvalidInputError, match="no column 'ward'"):
        accord.kappa_by_stratum(frame, strata="ward", **COLUMNS)
    with pytest.raises(InvalidInputError, match="item=, rater="):
        accord.agreement_by_cluster(frame, cluster="site", label="label")
    moved = frame.copy()
    moved.loc[0, "site"] = "s3"
    with pytest.raises(InvalidInputError, match="item 0 has more than one value in column"):
        accord.agreement_by_cluster(moved, cluster="site", **COLUMNS)


def test_the_cli_refuses_in_one_line(tmp_path: Path) -> None:
    frame = _long()
    path = _file(tmp_path, pd.concat([frame, frame[frame["reader"] == "A"].assign(reader="C")]))
    args = ["agree", str(path), "--item", "item", "--rater", "reader", "--label", "label"]
    res = runner.invoke(app, [*args, "--cluster", "site"])
    assert res.exit_code == 2
    assert "two raters" in res.output and "Traceback" not in res.output


def _by_hand(frame: pd.DataFrame, keep: str) -> accord.ClusteredAgreement:
    """The estimator on the table pivoted by pandas: repeated ratings kept as ``keep`` says,
    items without both raters' labels left out."""
    kept = frame.dropna(subset=["label"]).drop_duplicates(["item", "reader"], keep=keep)  # type: ignore[call-overload]
    wide = kept.pivot(index="item", columns="reader", values="label").dropna()
    site = frame.groupby("item")["site"].first().reindex(wide.index)
    return accord.clustered_agreement(wide["A"], wide["B"], site)


@pytest.mark.parametrize("keep", ["first", "last"])
def test_repeated_and_missing_ratings_give_the_pivot_by_hand(tmp_path: Path, keep: str) -> None:
    frame = _long(seed=11).sample(frac=1.0, random_state=3)
    frame = pd.concat([frame, frame.iloc[[0, 4]].assign(label=9)], ignore_index=True)
    frame.loc[7, "label"] = None
    frame = frame.drop(index=[12])
    expected = _by_hand(frame, keep)
    for data in (frame, str(_file(tmp_path, frame))):
        with pytest.warns(UserWarning, match="rated by one rater are left out"):
            res = accord.agreement_by_cluster(data, cluster="site", duplicates=keep, **COLUMNS)
        assert res.n_items == expected.n_items == 58
        for field in ("statistic", "standard_error", "standard_error_naive", "design_effect"):
            assert_allclose(getattr(res, field), getattr(expected, field), rtol=1e-12)


def test_the_reader_s_missing_values_and_spellings_apply(tmp_path: Path) -> None:
    # read as accord.read_ratings reads: "-" is a missing value when na_values says so,
    # missing="raise" refuses it, and labels spelled two ways are noted or read as one
    frame = _long(seed=13)
    frame["label"] = frame["label"].map({0: "no", 1: "yes", 2: "maybe"})
    dashed = frame.copy()
    dashed.loc[0, "label"] = "-"
    with pytest.warns(UserWarning, match="1 of 60 items rated by one rater are left out"):
        res = accord.kappa_by_stratum(dashed, strata="site", na_values=["-"], **COLUMNS)
    assert res.report is not None and res.report.missing == 1
    with pytest.raises(InvalidInputError, match="missing"):
        accord.kappa_by_stratum(dashed, strata="site", na_values=["-"], missing="raise", **COLUMNS)
    cased = frame.copy()
    cased.loc[(cased["reader"] == "B") & (cased["label"] == "yes"), "label"] = "Yes"
    path = _file(tmp_path, cased)
    apart = accord.kappa_by_stratum(str(path), strata="site", **COLUMNS)
    assert apart.report is not None
    assert any("differ only in case" in note for note in apart.report.notes)
    one = accord.kappa_by_stratum(str(path), strata="site", labels_as="normalized", **COLUMNS)
    same = accord.kappa_by_stratum(frame, strata="site", **COLUMNS)
    assert math.isclose(one.statistic, same.statistic, rel_tol=1e-12)
    assert apart.statistic != one.statistic


def test_the_cli_reads_the_file_once_and_shows_the_read_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import accord.io.ratings as reading

    calls: list[object] = []
    read_columns = reading.read_columns

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(args[0])
        return read_columns(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(reading, "read_columns", counted)
    frame = _long()
    frame.loc[0, "label"] = None
    path = _file(tmp_path, frame)
    out = _cli(path, "--cluster", "site")
    assert len(calls) == 1
    assert out["report"]["missing"] == 1  # type: ignore[index]
    assert [c["n_items"] for c in out["coefficients"]] == [59, 59]  # type: ignore[attr-defined]
    args = ["agree", str(path), "--item", "item", "--rater", "reader", "--label", "label"]
    res = runner.invoke(app, [*args, "--strata", "site"])
    assert res.exit_code == 0, res.output
    assert "1 missing label" in res.stdout and len(calls) == 2


def test_the_cli_prints_sas_proc_freqs_stratum_kappas(tmp_path: Path) -> None:
    # SAS/STAT 9.22 PROC FREQ Example 36.10 "Cochran's Q Test" (Agresti's three drugs): drug B
    # (reader A) by drug C (reader B) in the strata of drug A; Outputs 36.10.2 and 36.10.3
    # print kappa -0.0328 (ASE 0.1167) and -0.1538 (ASE 0.2230)
    counts = {"FFF": 6, "FFU": 16, "FUF": 2, "FUU": 4, "UFF": 2, "UFU": 4, "UUF": 6, "UUU": 6}
    cells = {tuple(abc): n for abc, n in counts.items()}
    patients = [abc for abc, n in cells.items() for _ in range(n)]
    rows = [(i, reader, abc[k], abc[0]) for i, abc in enumerate(patients)
            for reader, k in (("A", 1), ("B", 2))]  # fmt: skip
    path = _file(tmp_path, pd.DataFrame(rows, columns=["item", "reader", "label", "drug_a"]))
    cli = _cli(path, "--strata", "drug_a")
    table = pd.DataFrame(cli["table"])  # type: ignore[arg-type]
    assert table["stratum"].tolist() == ["F", "U"]
    assert_allclose(table["kappa"], [-0.0328, -0.1538], atol=5e-5)
    assert_allclose(table["standard_error"], [0.1167, 0.2230], atol=5e-5)
    assert cli["df"] == 1
