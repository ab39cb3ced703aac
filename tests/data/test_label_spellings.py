"""How labels are spelled: one rule for booleans whatever the other rows, near-duplicate
spellings and float noise warned about in the read report (never merged unsaid), and one
missing-value rule for every reader. Every engine and every input gives the same report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sklearn.metrics import cohen_kappa_score
from typer.testing import CliRunner

import accord
from accord.cli import app
from accord.engines import dask_statistics, stream_statistics

from .._cli import cli_json

COLS = {"item": "item", "rater": "rater", "label": "label"}

# r1 writes TRUE/FALSE, r2 writes True/False for the same answers (the file).
BOOLEAN_ROWS = [
    ("1", "r1", "TRUE"), ("1", "r2", "True"),
    ("2", "r1", "FALSE"), ("2", "r2", "False"),
    ("3", "r1", "TRUE"), ("3", "r2", "True"),
    ("4", "r1", "FALSE"), ("4", "r2", "False"),
]  # fmt: skip


def _csv(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    path.write_text("item,rater,label\n" + "".join(",".join(r) + "\n" for r in rows))
    return path


def _kappa(r: accord.Ratings) -> float:
    return float(accord.cohen_kappa(r).statistic)


def _every_engine(path: Path, **options: Any) -> list[Any]:
    """The categories and report of the memory, stream and dask engines on one file."""
    memory = accord.read_ratings(path, **COLS, **options)
    out = [(memory.categories, memory.report.notes)]
    for stats in (
        stream_statistics(path, **COLS, **options, batch_size=3),
        dask_statistics(path, **COLS, **options, scheduler="synchronous"),
    ):
        out.append((stats.categories, stats.report.notes))
    return out


# ------------------------------------------------------------------ (1) booleans


def test_boolean_spellings_read_alike_whatever_the_other_rows(tmp_path: Path) -> None:
    alone = _csv(tmp_path / "alone.csv", BOOLEAN_ROWS)
    with_yes = _csv(tmp_path / "yes.csv", [*BOOLEAN_ROWS, ("5", "r1", "yes"), ("5", "r2", "yes")])
    a = accord.read_ratings(alone, **COLS)
    b = accord.read_ratings(with_yes, **COLS)
    # Labels as written in both files: TRUE and True are two categories.
    assert a.categories == ("FALSE", "False", "TRUE", "True")
    assert b.categories == ("FALSE", "False", "TRUE", "True", "yes")
    assert b.label_codes[:8].tolist() == a.label_codes.tolist()
    # Hand computation. Alone: r1 uses FALSE/TRUE, r2 False/True: p_o = 0, p_e = 0, kappa 0.
    assert _kappa(a) == pytest.approx(0.0, abs=1e-12)
    # With yes: p_o = 1/5; p_e = (1/5)(1/5) = 0.04; kappa = (0.2 - 0.04) / 0.96 = 1/6.
    assert _kappa(b) == pytest.approx(1 / 6, rel=1e-12)
    # sklearn: cohen_kappa_score(r1, r2) on the labels as written gives the same 1/6.
    r1, r2 = ([v for _, r, v in BOOLEAN_ROWS if r == w] + ["yes"] for w in ("r1", "r2"))
    assert cohen_kappa_score(r1, r2) == pytest.approx(1 / 6, rel=1e-12)
    assert accord.percent_agreement(b).statistic == pytest.approx(0.2, rel=1e-12)
    for r in (a, b):  # and the report says so, naming the spellings and the option
        assert len(r.report.notes) == 2
        false, true = r.report.notes  # in the order of the labels
        assert "'FALSE' and 'False' differ only in case" in false
        assert "'TRUE' and 'True' differ only in case" in true
        assert "pass labels_as='normalized' to read them as one" in true


def test_boolean_spellings_merged_whatever_the_other_rows(tmp_path: Path) -> None:
    alone = _csv(tmp_path / "alone.csv", BOOLEAN_ROWS)
    with_yes = _csv(tmp_path / "yes.csv", [*BOOLEAN_ROWS, ("5", "r1", "yes"), ("5", "r2", "yes")])
    a = accord.read_ratings(alone, **COLS, labels_as="normalized")
    b = accord.read_ratings(with_yes, **COLS, labels_as="normalized")
    assert a.categories == ("FALSE", "TRUE") and b.categories == ("FALSE", "TRUE", "yes")
    # Hand computation: every item agreed, so p_o = 1 and kappa = 1 (p_e = 0.5 alone,
    # 0.4^2 + 0.4^2 + 0.2^2 = 0.36 with yes).
    assert _kappa(a) == pytest.approx(1.0) and _kappa(b) == pytest.approx(1.0)
    for r in (a, b):
        assert (
            "'TRUE' and 'True' (differing only in case) are read as one category, 'TRUE'"
            in (r.report.notes[1])
        )


def test_one_spelling_each_is_still_read_as_booleans(tmp_path: Path) -> None:
    rows = [(i, r, v.lower()) for i, r, v in BOOLEAN_ROWS]
    r = accord.read_ratings(_csv(tmp_path / "b.csv", rows), **COLS)
    assert r.categories == (False, True) and r.report.notes == ()
    assert _kappa(r) == pytest.approx(1.0)  # every item agreed


def test_boolean_spellings_on_every_engine_and_input(tmp_path: Path) -> None:
    rows = [*BOOLEAN_ROWS, ("5", "r1", "yes"), ("5", "r2", "yes")]
    path = _csv(tmp_path / "b.csv", rows)
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    parquet = tmp_path / "b.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), parquet)
    for labels_as in ("auto", "normalized"):
        seen = _every_engine(path, labels_as=labels_as) + _every_engine(
            parquet, labels_as=labels_as
        )
        framed = accord.Ratings.from_long(frame, **COLS, labels_as=labels_as)
        seen.append((framed.categories, framed.report.notes))
        assert all(s == seen[0] for s in seen), (labels_as, seen)


# ------------------------------------------------------------------ (2) near duplicates

NEAR = ["yes", "yes ", "Yes", "caf\u00e9", "cafe\u0301"]


def _near_frame() -> pd.DataFrame:
    # Items 1-3: the same answer yes spelled three ways; item 4: café in NFC and NFD;
    # item 5: no and no.
    return pd.DataFrame(
        {
            "item": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
            "rater": ["a", "b"] * 5,
            "label": ["yes", "yes ", "Yes", "yes", "yes", "yes", NEAR[3], NEAR[4], "no", "no"],
        }
    )


def test_near_duplicate_labels_are_warned_about_not_merged() -> None:
    r = accord.Ratings.from_long(_near_frame(), **COLS)
    assert len(r.categories) == 6
    # Hand computation: items 3 and 5 agree as written, 2 of 5.
    assert accord.percent_agreement(r).statistic == pytest.approx(0.4, rel=1e-12)
    yes, cafe = r.report.notes  # in the order of the labels
    assert (
        "labels 'Yes', 'yes' and 'yes ' differ only in surrounding spaces and case and are "
        "read as different categories; pass labels_as='normalized' to read them as one"
    ) in yes
    # The two forms of café print alike: named with their code points.
    assert "labels 'cafe\\u0301' and 'caf\\xe9' differ only in Unicode form" in cafe


def test_labels_as_normalized_merges_them_and_says_so() -> None:
    r = accord.Ratings.from_long(_near_frame(), **COLS, labels_as="normalized")
    assert r.categories == ("Yes", "café", "no")
    # Hand computation: every item agrees once the spellings are one, 5 of 5.
    assert accord.percent_agreement(r).statistic == pytest.approx(1.0)
    yes, cafe = r.report.notes
    assert "labels 'Yes', 'yes' and 'yes ' (differing only in surrounding spaces and case)" in yes
    assert "read as one category, 'Yes'" in yes
    assert "read as one category, 'caf\\xe9'" in cafe


def test_near_duplicates_on_every_engine(tmp_path: Path) -> None:
    path = tmp_path / "near.csv"
    _near_frame().to_csv(path, index=False)
    for labels_as in ("auto", "normalized", "text"):
        seen = _every_engine(path, labels_as=labels_as)
        assert all(s == seen[0] for s in seen), seen
        assert len(seen[0][1]) == 2


def test_cli_names_the_flag_that_merges(tmp_path: Path) -> None:
    path = tmp_path / "near.csv"
    _near_frame().to_csv(path, index=False)
    base = ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "label"]
    out = CliRunner().invoke(app, [*base, "-f", "json"])
    assert out.exit_code == 0, out.output
    notes = cli_json(out.stdout)["report"]["notes"]
    assert "pass --labels-as normalized to read them as one" in notes[0]
    out = CliRunner().invoke(app, [*base, "-f", "json", "--labels-as", "normalized"])
    assert out.exit_code == 0, out.output
    report = cli_json(out.stdout)["report"]
    assert "read as one category" in report["notes"][0]
    coefficients = {c["name"]: c for c in cli_json(out.stdout)["coefficients"]}
    assert coefficients["percent_agreement"]["statistic"] == pytest.approx(1.0)


def _label_studio(path: Path, answers: list[tuple[int, int, str]]) -> Path:
    tasks: dict[int, list[Any]] = {}
    for task, user, choice in answers:
        result = {"from_name": "answer", "type": "choices", "value": {"choices": [choice]}}
        tasks.setdefault(task, []).append({"completed_by": user, "result": [result]})
    records = [{"id": t, "data": {}, "annotations": a} for t, a in tasks.items()]
    path.write_text(json.dumps(records))
    return path


def _prodigy(path: Path, answers: list[tuple[int, int, str]]) -> Path:
    lines = [
        {"_input_hash": task, "_task_hash": task, "_annotator_id": f"u{user}", "answer": "accept",
         "options": [{"id": "yes"}, {"id": "no"}, {"id": "N/A"}], "accept": [choice]}
        for task, user, choice in answers
    ]  # fmt: skip
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _argilla(path: Path, answers: list[tuple[int, int, str]]) -> Path:
    records: dict[int, list[Any]] = {}
    for task, user, choice in answers:
        records.setdefault(task, []).append(
            {"value": choice, "user_id": f"u{user}", "status": "submitted"}
        )
    lines = [{"id": f"rec-{t}", "responses": {"answer": r}} for t, r in records.items()]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


ANSWERS = [(1, 1, "yes"), (1, 2, "yes"), (2, 1, "N/A"), (2, 2, "no"), (3, 1, "no"), (3, 2, "no")]


@pytest.mark.parametrize("write", [_label_studio, _prodigy, _argilla])
def test_exports_read_missing_values_as_a_csv_does(tmp_path: Path, write: Any) -> None:
    csv = _csv(tmp_path / "a.csv", [(str(t), f"u{u}", c) for t, u, c in ANSWERS])
    table = accord.read_ratings(csv, **COLS)
    export = accord.read_ratings(write(tmp_path / "export.json", ANSWERS))
    # N/A is a missing label in both: 5 ratings, categories no and yes.
    assert table.report.missing == export.report.missing == 1
    assert table.categories == export.categories == ("no", "yes")
    # Hand computation: items 1 and 3 agree; item 2 has one rating left: 2 of 2 pairs.
    assert accord.percent_agreement(export).statistic == pytest.approx(1.0)
    # The same options as for a table: N/A a category when no text is a missing value.
    kept = accord.read_ratings(write(tmp_path / "export.json", ANSWERS), na_values=[])
    assert kept.categories == ("N/A", "no", "yes") and kept.report.missing == 0


def test_cli_na_values_apply_to_an_export(tmp_path: Path) -> None:
    path = _prodigy(tmp_path / "p.jsonl", ANSWERS)
    base = ["agree", str(path), "--from", "prodigy", "-f", "json"]
    out = CliRunner().invoke(app, base)
    assert out.exit_code == 0, out.output
    assert cli_json(out.stdout)["report"]["missing"] == 1
    out = CliRunner().invoke(app, [*base, "--na-values", ""])
    assert out.exit_code == 0, out.output
    assert cli_json(out.stdout)["report"]["missing"] == 0


# ------------------------------------------------------------------ (3) float noise


def _noisy_frame() -> pd.DataFrame:
    # Items 1-4 agree, item 1's two values differ only by float noise; item 5 disagrees.
    return pd.DataFrame(
        {
            "item": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5],
            "rater": ["a", "b"] * 5,
            "label": [0.3, 0.1 + 0.2, 0.5, 0.5, 0.7, 0.7, 0.9, 0.9, 1.1, 1.3],
        }
    )


def test_numbers_that_differ_by_float_noise_are_warned_about() -> None:
    r = accord.Ratings.from_long(_noisy_frame(), **COLS)
    # Hand computation: 0.3 and 0.30000000000000004 are two categories, items 2-4 agree:
    # 3 of 5 (0.8 if the noise were one category).
    assert accord.percent_agreement(r).statistic == pytest.approx(0.6, rel=1e-12)
    (note,) = r.report.notes
    assert "labels 0.3 and 0.30000000000000004 differ by less than a relative 1e-09" in note


def test_float_noise_on_every_engine_and_level(tmp_path: Path) -> None:
    path = tmp_path / "noisy.csv"
    _noisy_frame().to_csv(path, index=False)
    for level in ("nominal", "interval"):
        seen = _every_engine(path, level=level)
        assert all(s == seen[0] for s in seen), seen
        assert len(seen[0][1]) == 1 and "0.30000000000000004" in seen[0][1][0]


def test_float_noise_threshold_is_a_relative_1e_9() -> None:
    from accord.data.encoder import close_number_notes

    # 1 + 5e-10 is within a relative 1e-9 of 1; 1 + 2e-9 is not; 1e-20 and 2e-20 are far
    # apart relative to their size.
    assert close_number_notes(np.array([1.0, 1.0 + 5e-10]), "x")
    assert close_number_notes(np.array([1.0, 1.0 + 2e-9]), "x") == ()
    assert close_number_notes(np.array([1e-20, 2e-20]), "x") == ()
    assert close_number_notes(np.array([-1.0, -1.0 + 5e-10]), "x")
