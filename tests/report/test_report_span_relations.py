"""The span report's relation agreement: shown when relations are given, checked against
a hand computation on a brat folder written by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

import accord
from accord._errors import InvalidInputError

from .test_report import section_of
from .test_report_levels import text_of

TEXT = "Aspirin gave me fever and rash."


def brat_folder(root: Path) -> Path:
    """a links Aspirin to fever and to rash, b only to fever (both ``causes``)."""
    files = {
        "a": "T1\tDRUG 0 7\tAspirin\nT2\tADE 16 21\tfever\nT3\tADE 26 30\trash\n"
        "R1\tcauses Arg1:T1 Arg2:T2\nR2\tcauses Arg1:T1 Arg2:T3\n",
        "b": "T1\tDRUG 0 7\tAspirin\nT2\tADE 16 21\tfever\nR1\tcauses Arg1:T1 Arg2:T2\n",
    }
    for name, ann in files.items():
        (root / name).mkdir()
        (root / name / "note.txt").write_text(TEXT)
        (root / name / "note.ann").write_text(ann)
    return root


def test_span_report_shows_relation_agreement(tmp_path: Path) -> None:
    folder = brat_folder(tmp_path)
    spans = accord.read_brat(folder)
    relations = accord.read_brat_relations(folder)
    page = accord.report(spans, relations=relations, progress=False)
    section = text_of(section_of(page.html, "spans"))
    # by hand: 2 relations of a, 1 of b, one in common: F1 = 2 * 1 / (2 + 1) = 0.667
    assert f"mean pairwise F1 {2 / 3:.3f}" in section
    assert "causes 3 0.667" in section  # per type: 3 relations, pooled F1 2 / 3
    assert "Relation agreement" in section_of(page.html, "methods")
    # without relations the section has no relation table
    plain = text_of(section_of(accord.report(spans, progress=False).html, "spans"))
    assert "Relations between the spans" not in plain


def test_relations_need_spans() -> None:
    frame = accord.datasets.load_diagnoses()
    with pytest.raises(InvalidInputError, match=r"relations= are relations between spans"):
        accord.report(frame, item="patient", rater="rater", label="diagnosis", relations=frame)


def test_accord_report_reads_a_label_studio_span_export(tmp_path: Path) -> None:
    """A Label Studio NER export (written from the export format: one task, two annotators)
    gets the span page from the command line, as a brat folder does."""
    import json

    from typer.testing import CliRunner

    from accord.cli import app

    def region(rid: str, start: int, end: int, label: str) -> dict[str, object]:
        return {"id": rid, "from_name": "ner", "to_name": "text", "type": "labels",
                "value": {"start": start, "end": end, "labels": [label]}}  # fmt: skip

    task = {"id": 1, "data": {"text": "Ada Lovelace met Charles Babbage in London."},
            "annotations": [
                {"completed_by": 1, "result": [region("a1", 0, 12, "PER"),
                                               region("a2", 17, 32, "PER"),
                                               region("a3", 36, 42, "LOC")]},
                {"completed_by": 2, "result": [region("b1", 0, 12, "PER"),
                                               region("b2", 36, 42, "ORG")]}]}  # fmt: skip
    path = tmp_path / "ner.json"
    path.write_text(json.dumps([task]))
    out = tmp_path / "ner.html"
    res = CliRunner().invoke(app, ["report", str(path), "-o", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    section = text_of(section_of(out.read_text(encoding="utf-8"), "spans"))
    # by hand: 3 spans of one annotator, 2 of the other, one in common (same place and
    # label): F1 = 2 * 1 / (3 + 2) = 0.400
    assert "1 2 3 2 1 0.333 0.500 0.400" in section  # the pair's row: spans, matched, P, R, F1
    spans = accord.read_label_studio(path)
    assert isinstance(spans, accord.Spans)
    assert accord.span_agreement(spans).statistic == pytest.approx(0.4)
