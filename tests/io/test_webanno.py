"""WebAnno TSV 3.3 (INCEpTION, WebAnno exports): spans over several tokens, stacked
annotations, unset features and the choice of layer and feature, on hand-written files."""

from __future__ import annotations

from pathlib import Path

import pytest

import accord
from accord._errors import InvalidInputError

WEBANNO = Path(__file__).resolve().parents[1] / "reference" / "annotation_tools" / "webanno"


def spans_of(spans: accord.Spans) -> set[tuple[str, int, int, str]]:
    frame = spans.to_frame()
    return set(zip(frame.annotator, frame.start, frame.end, frame.label, strict=True))


def test_reads_multi_token_stacked_and_unset_annotations() -> None:
    spans = accord.read_webanno_tsv(WEBANNO)
    # by hand from the files: "mild headache" is DISEASE[1] on tokens 17-21 and 22-30;
    # "Mary Jones" is PERSON[2] on 34-38 and 39-44; ann2 stacks PERSON and * (unset, read
    # as the layer's short name) on "Mary"
    assert spans_of(spans) == {
        ("ann1", 0, 7, "DRUG"), ("ann1", 17, 30, "DISEASE"), ("ann1", 34, 44, "PERSON"),
        ("ann2", 0, 7, "DRUG"), ("ann2", 22, 30, "DISEASE"), ("ann2", 34, 38, "PERSON"),
        ("ann2", 34, 38, "Entity"),
    }  # fmt: skip
    assert spans.unit == "character"
    assert spans.annotators == ("ann1", "ann2")
    # the document runs to the end of its last token, "." at 44-45
    assert dict(spans.lengths) == {"note1": 45}
    # one exact match (DRUG) of 3 + 4 spans: F1 = 2 * 1 / 7
    assert accord.span_agreement(spans).statistic == pytest.approx(2 / 7)


def test_feature_chooses_the_label() -> None:
    spans = accord.read_webanno_tsv(WEBANNO, layer="Entity", feature="certainty")
    # ann1: high on "Aspirin", low[1] on "mild headache", *[2] (unset) on "Mary Jones";
    # ann2 set no certainty: "_" everywhere, and "_|_" on "Mary" is two empty places
    assert spans_of(spans) == {
        ("ann1", 0, 7, "high"), ("ann1", 17, 30, "low"), ("ann1", 34, 44, "Entity"),
    }  # fmt: skip


def test_unknown_layer_or_feature_is_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"note1.tsv: .*not one named 'Chunk'"):
        accord.read_webanno_tsv(WEBANNO, layer="Chunk")
    with pytest.raises(InvalidInputError, match=r"no feature 'kind'; it has \['value', "):
        accord.read_webanno_tsv(WEBANNO, feature="kind")


def test_malformed_files_name_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    bad = tmp_path / "a" / "d.tsv"
    bad.write_text("#FORMAT=WebAnno TSV 2\n")
    with pytest.raises(InvalidInputError, match=r"d.tsv, line 1: expected '#FORMAT=WebAnno"):
        accord.read_webanno_tsv(tmp_path)
    head = "#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Entity|value\n\n\n#Text=A b\n"
    bad.write_text(head + "1-1\t0_1\tA\tX\n")
    with pytest.raises(InvalidInputError, match=r"d.tsv, line 6: .*'begin-end'.*'0_1'"):
        accord.read_webanno_tsv(tmp_path)
    bad.write_text(head + "1-1\t0-1\tA\n")
    with pytest.raises(InvalidInputError, match=r"line 6: a token line needs 4 .*got 3"):
        accord.read_webanno_tsv(tmp_path)
    with pytest.raises(InvalidInputError, match=r"no annotator folders with \.tsv files"):
        accord.read_webanno_tsv(tmp_path / "a")


def test_escaped_separators_are_undone(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    head = "#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Entity|value\n\n\n#Text=A b\n"
    (tmp_path / "a" / "d.tsv").write_text(head + "1-1\t0-1\tA\tX\\|Y|Z\n1-2\t2-3\tb\t_\n")
    assert spans_of(accord.read_webanno_tsv(tmp_path)) == {("a", 0, 1, "X|Y"), ("a", 0, 1, "Z")}


def test_relations_link_the_spans_they_name() -> None:
    rel = accord.read_webanno_tsv_relations(WEBANNO)
    # by hand: both annotators put "treats" on the DISEASE token with base 1-1 (Aspirin);
    # ann1's DISEASE is "mild headache" (17-30), ann2's "headache" (22-30)
    got = set(rel.itertuples(index=False, name=None))
    assert got == {
        ("ann1", "note1", "treats", 0, 7, "DRUG", 17, 30, "DISEASE"),
        ("ann2", "note1", "treats", 0, 7, "DRUG", 22, 30, "DISEASE"),
    }
    # the tails differ in extent: no exact match, one of each: F1 0
    spans = accord.read_webanno_tsv(WEBANNO)
    assert accord.relation_agreement(spans, rel).statistic == 0.0
    # with overlapping spans matched, the tails match: F1 1
    assert accord.relation_agreement(spans, rel, match="overlap").statistic == 1.0


def test_a_relation_to_no_span_is_named(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "d.tsv").write_text(
        "#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Entity|value\n"
        "#T_RL=webanno.custom.Link|type|BT_webanno.custom.Entity\n\n\n#Text=A b\n"
        "1-1\t0-1\tA\t_\t_\t_\n1-2\t2-3\tb\tX\tr\t1-1\n"
    )
    with pytest.raises(InvalidInputError, match=r"d.tsv, line 8: relation '1-1' links a token"):
        accord.read_webanno_tsv_relations(tmp_path)
