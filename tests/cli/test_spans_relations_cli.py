"""`accord spans --measure relations|attributes`: the CLI gives the numbers of
:func:`accord.relation_agreement` and :func:`accord.attribute_agreement` on brat, Label
Studio and WebAnno TSV exports written by hand, each checked against a hand computation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import accord
from accord.cli import app

from .._cli import cli_json

runner = CliRunner()

WEBANNO = Path(__file__).resolve().parents[1] / "reference" / "annotation_tools" / "webanno"
TEXT = "Aspirin gave me fever and rash."


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def brat(tmp_path: Path) -> Path:
    """Two annotators of one note: a links Aspirin to fever and to rash, b only to fever;
    a calls fever mild, b severe."""
    files = {
        "a": "T1\tDRUG 0 7\tAspirin\nT2\tADE 16 21\tfever\nT3\tADE 26 30\trash\n"
        "R1\tcauses Arg1:T1 Arg2:T2\nR2\tcauses Arg1:T1 Arg2:T3\nA1\tSeverity T2 mild\n",
        "b": "T1\tDRUG 0 7\tAspirin\nT2\tADE 16 21\tfever\nR1\tcauses Arg1:T1 Arg2:T2\n"
        "A1\tSeverity T2 severe\n",
    }
    for name, ann in files.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "note.txt").write_text(TEXT)
        (tmp_path / name / "note.ann").write_text(ann)
    return tmp_path


def test_relations_of_brat_match_python_and_hand(brat: Path) -> None:
    code, out, err = invoke("spans", str(brat), "--measure", "relations", "--format", "json")
    assert code == 0, err
    got = cli_json(out)
    spans = accord.read_brat(brat)
    expected = accord.relation_agreement(spans, accord.read_brat_relations(brat))
    # by hand: a states 2 relations, b 1, one in common: F1 = 2 * 1 / (2 + 1);
    # precision of a against b 1/2, recall 1
    assert got["statistic"] == pytest.approx(2 / 3, abs=1e-12)
    assert got["statistic"] == pytest.approx(expected.statistic, abs=1e-12)
    assert got["pooled"] == pytest.approx(expected.pooled, abs=1e-12)
    assert (got["pairs"][0]["precision"], got["pairs"][0]["recall"]) == (0.5, 1.0)
    assert got["n_documents"] == 1 and got["n_relations"] == 3
    code, out, _ = invoke("spans", str(brat), "--measure", "relations")
    assert code == 0 and "relation agreement: 2 annotators" in out and "a ~ b" in out
    assert "type causes" in out and "0.6667" in out


def test_attributes_of_brat_match_python_and_hand(brat: Path) -> None:
    code, out, _ = invoke("spans", str(brat), "--measure", "attributes", "--format", "json")
    assert code == 0
    got = cli_json(out)
    spans = accord.read_brat(brat)
    expected = accord.attribute_agreement(spans, accord.read_brat_attributes(brat))
    # by hand: Aspirin and fever matched; Severity absent on both Aspirins (agree), mild
    # against severe on fever (disagree): 1 / 2
    assert got["statistic"] == pytest.approx(0.5, abs=1e-12)
    assert got["statistic"] == pytest.approx(expected.statistic, abs=1e-12)
    code, out, _ = invoke("spans", str(brat), "--measure", "attributes", "--format", "csv")
    assert code == 0 and "Severity" in out and "(all)" in out


def label_studio_export(tmp_path: Path) -> Path:
    """Annotator 7 links Aspirin to fever; 8 states it both ways ("left" makes fever the
    head)."""

    def region(ident: str, start: int, end: int, label: str) -> dict[str, object]:
        return {"id": ident, "from_name": "ner", "to_name": "text", "type": "labels",
                "value": {"start": start, "end": end, "labels": [label]}}  # fmt: skip

    def relation(direction: str) -> dict[str, object]:
        return {"from_id": "x", "to_id": "y", "type": "relation", "direction": direction,
                "labels": ["causes"]}  # fmt: skip

    regions = [region("x", 0, 7, "DRUG"), region("y", 16, 21, "ADE")]
    task = {"id": 1, "data": {"text": TEXT}, "annotations": [
        {"completed_by": 7, "result": [*regions, relation("right")]},
        {"completed_by": 8, "result": [*regions, relation("right"), relation("left")]},
    ]}  # fmt: skip
    path = tmp_path / "ls.json"
    path.write_text(json.dumps([task]))
    return path


def test_relations_of_label_studio(tmp_path: Path) -> None:
    path = label_studio_export(tmp_path)
    code, out, err = invoke("spans", str(path), "--measure", "relations", "--format", "json")
    assert code == 0, err
    expected = accord.relation_agreement(
        accord.read_label_studio(path), accord.read_label_studio_relations(path)
    )
    # by hand: 1 relation of 7, 2 of 8, one in common: F1 = 2 / 3
    assert cli_json(out)["statistic"] == pytest.approx(2 / 3, abs=1e-12)
    assert expected.statistic == pytest.approx(2 / 3, abs=1e-12)


def test_relations_of_webanno_and_inception_zip(tmp_path: Path) -> None:
    # the tails differ in extent (see tests/io/test_webanno.py): exact F1 0, overlap F1 1
    for match, f1 in (("exact", 0.0), ("overlap", 1.0)):
        code, out, _ = invoke(
            "spans", str(WEBANNO), "--measure", "relations", "--match", match, "--format", "json"
        )
        assert code == 0 and cli_json(out)["statistic"] == f1
    import zipfile

    archive = tmp_path / "project.zip"
    with zipfile.ZipFile(archive, "w") as out_zip:
        for user in ("ann1", "ann2"):
            out_zip.write(WEBANNO / user / "note1.tsv", f"annotation/note1.txt/{user}.tsv")
    code, out, _ = invoke("spans", str(archive), "--measure", "relations", "--match", "overlap")
    assert code == 0 and "1 documents, 2 relations; overlap matching" in out
    code, out, _ = invoke("spans", str(archive), "--format", "json")
    # span F1 of the two annotators: one exact match of 3 + 4 spans
    assert code == 0 and cli_json(out)["statistic"] == pytest.approx(2 / 7, abs=1e-12)


def test_relation_errors_are_one_line(tmp_path: Path, brat: Path) -> None:
    table = tmp_path / "s.csv"
    table.write_text("annotator,document,start,end,label\na,d,0,3,X\nb,d,0,3,X\n")
    for args, message in (
        ((str(table), "--measure", "relations"), "reads the relations of a brat or "),
        ((str(table), "--measure", "attributes"), "reads the attributes of a brat export"),
        ((str(brat), "--measure", "relations", "--match", "token"), "--match must be one of"),
        ((str(brat), "--measure", "relations", "--ignore-label"), "--ignore-label apply only"),
    ):
        code, _, err = invoke("spans", *args)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_report_on_a_brat_folder_shows_its_relations(brat: Path, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    code, _, err = invoke("report", str(brat), "-o", str(out), "--quiet")
    assert code == 0, err
    html = out.read_text()
    # the relation table of the spans section, with the F1 computed by hand above (2 / 3)
    assert "Relations between the spans: mean pairwise F1 0.667" in html


def test_report_on_an_inception_zip_shows_its_relations(tmp_path: Path) -> None:
    import zipfile

    archive = tmp_path / "project.zip"
    with zipfile.ZipFile(archive, "w") as out_zip:
        for user in ("ann1", "ann2"):
            out_zip.write(WEBANNO / user / "note1.tsv", f"annotation/note1.txt/{user}.tsv")
    out = tmp_path / "page.html"
    code, _, err = invoke("report", str(archive), "-o", str(out), "--quiet")
    assert code == 0, err
    html = out.read_text()
    # the reference files: the tails of the one relation each differ in extent, exact F1 0
    assert "Relations between the spans: mean pairwise F1 0.000" in html
    assert "project.zip: 7 spans by 2 annotators in 1 documents" in html
