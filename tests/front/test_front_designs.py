"""The front doors of clustered and stratified agreement (:func:`accord.agreement_by_cluster`,
:func:`accord.kappa_by_stratum`): they read a long table from a Source, and
``accord agree --cluster/--strata`` calls them, so Python and the CLI give the same numbers."""

from __future__ import annotations

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
    assert front == direct
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
    with pytest.raises(InvalidInputError, match="rater 'A' rated item 0 more than once"):
        accord.agreement_by_cluster(twice, cluster="site", **COLUMNS)
    kept = accord.agreement_by_cluster(twice, cluster="site", duplicates="first", **COLUMNS)
    assert kept.n_items == 60
    three = pd.concat([frame, frame.assign(reader="C")])
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
    path = _file(tmp_path, pd.concat([frame, frame.assign(reader="C")]))
    args = ["agree", str(path), "--item", "item", "--rater", "reader", "--label", "label"]
    res = runner.invoke(app, [*args, "--cluster", "site"])
    assert res.exit_code == 2
    assert "two raters" in res.output and "Traceback" not in res.output
