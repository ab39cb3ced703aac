"""Every result that came from a read carries its read report, every command prints it and
every ``--format json`` output includes it: a dropped row is counted somewhere."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import accord
from accord.cli import app

from .._cli import cli_json

runner = CliRunner()

#: Four items rated by two raters; the second rating of item 2 is empty (dropped as missing).
FRAME = pd.DataFrame(
    {
        "item": [1, 1, 2, 2, 3, 3, 4, 4],
        "rater": list("abababab"),
        "label": ["x", "x", "y", None, "x", "y", "y", "y"],
    }
)
#: The read report's counts, by hand: 8 rows read, 7 ratings kept, 1 missing label dropped.
EXPECTED = {"rows": 8, "ratings": 7, "items": 4, "raters": 2, "missing": 1, "dropped": 1}


def counts(report: dict[str, object]) -> dict[str, object]:
    return {key: report[key] for key in EXPECTED}


@pytest.fixture
def ratings_csv(tmp_path: Path) -> Path:
    path = tmp_path / "ratings.csv"
    FRAME.to_csv(path, index=False)
    return path


@pytest.fixture
def scores_csv(tmp_path: Path) -> Path:
    """Two methods measuring five subjects; one reading of subject 3 is missing."""
    path = tmp_path / "scores.csv"
    path.write_text(
        "subject,meter,pefr\n1,A,490\n1,B,512\n2,A,397\n2,B,430\n3,A,512\n3,B,\n"
        "4,A,401\n4,B,424\n5,A,470\n5,B,462\n"
    )
    return path


@pytest.mark.parametrize("source", ["frame", "path", "ratings"])
def test_agreement_in_memory_carries_the_read_report(ratings_csv: Path, source: str) -> None:
    data = {
        "frame": FRAME,
        "path": str(ratings_csv),
        "ratings": accord.Ratings.from_long(FRAME, item="item", rater="rater", label="label"),
    }[source]
    columns = {} if source == "ratings" else dict(item="item", rater="rater", label="label")
    table = accord.agreement(data, coefficients=["fleiss_kappa"], **columns)
    assert table.report is not None
    assert counts(table.report.to_dict()) == EXPECTED
    assert counts(table.to_dict()["report"]) == EXPECTED


def test_agreement_memory_and_stream_report_the_same_read(ratings_csv: Path) -> None:
    columns = dict(item="item", rater="rater", label="label", coefficients=["fleiss_kappa"])
    memory = accord.agreement(str(ratings_csv), **columns)
    stream = accord.agreement(str(ratings_csv), engine="stream", **columns)
    assert memory.report is not None and stream.report is not None
    assert counts(memory.report.to_dict()) == counts(stream.report.to_dict()) == EXPECTED


def test_consensus_in_memory_carries_the_read_report() -> None:
    result = accord.consensus(FRAME, item="item", rater="rater", label="label")
    assert result.report is not None
    assert counts(result.to_dict()["report"]) == EXPECTED


def test_counts_given_as_an_array_have_no_read_report() -> None:
    table = accord.agreement([[2, 0], [1, 1], [0, 2]], coefficients=["fleiss_kappa"])
    assert table.report is None
    assert "report" not in table.to_dict()


def test_compare_prints_and_writes_the_read_report(scores_csv: Path) -> None:
    args = ["compare", str(scores_csv), "--item", "subject", "--rater", "meter",
            "--score", "pefr"]  # fmt: skip
    printed = runner.invoke(app, args)
    assert printed.exit_code == 0, printed.output
    # 10 rows, 9 readings kept, the empty one dropped (by hand from the file above)
    assert "read 10 rows: 9 ratings of 5 items by 2 raters; dropped 1 (1 missing" in (
        printed.stdout
    )
    written = runner.invoke(app, [*args, "--format", "json"])
    assert written.exit_code == 0, written.output
    report = cli_json(written.stdout)["report"]
    assert (report["rows"], report["ratings"], report["dropped"]) == (10, 9, 1)


def test_pair_counts_a_dropped_empty_label(ratings_csv: Path) -> None:
    args = ["pair", str(ratings_csv), "--item", "item", "--rater", "rater", "--label",
            "label", "--n-boot", "0"]  # fmt: skip
    printed = runner.invoke(app, args)
    assert printed.exit_code == 0, printed.output
    assert "read 8 rows: 7 ratings of 4 items by 2 raters; dropped 1 (1 missing label)" in (
        printed.stdout
    )
    written = runner.invoke(app, [*args, "--format", "json"])
    assert written.exit_code == 0, written.output
    payload = cli_json(written.stdout)
    assert counts(payload["report"]) == EXPECTED
    assert payload["input"]["n_unpaired"] == 1  # item 2, now rated by a only


def test_pair_of_a_table_of_counts_has_no_read_report() -> None:
    table = str(Path(__file__).parents[2] / "examples" / "birads-table.csv")
    written = runner.invoke(app, ["pair", "--table", table, "--n-boot", "0", "-f", "json"])
    assert written.exit_code == 0, written.output
    assert cli_json(written.stdout)["report"] is None


def test_judge_prints_and_writes_the_read_report(tmp_path: Path) -> None:
    path = tmp_path / "judged.csv"
    rows = [(i, r, "xy"[(i + (r == "h3")) % 2]) for i in range(6) for r in ("h1", "h2", "h3", "m")]
    rows.append((6, "m", ""))  # an empty label: dropped
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    args = ["judge", str(path), "--item", "item", "--rater", "rater", "--label", "label",
            "--judge", "m", "--epsilon", "0.15", "--min-items-per-rater", "3"]  # fmt: skip
    printed = runner.invoke(app, args)
    assert printed.exit_code == 0, printed.output
    # 25 rows: 24 ratings of 6 items by 4 raters, the empty one dropped (by hand)
    assert printed.stdout.startswith(
        "read 25 rows: 24 ratings of 6 items by 4 raters; dropped 1 (1 missing label)"
    )
    written = runner.invoke(app, [*args, "--format", "json"])
    assert written.exit_code == 0, written.output
    report = cli_json(written.stdout)["report"]
    assert (report["rows"], report["ratings"], report["dropped"]) == (25, 24, 1)
