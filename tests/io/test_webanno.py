"""WebAnno TSV 3.3 (INCEpTION, WebAnno exports): spans over several tokens, stacked
annotations, unset features and the choice of layer and feature, on hand-written files."""

from __future__ import annotations

from pathlib import Path

import pytest

import accord
from accord._errors import FileReadError, InvalidInputError

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


def _project_export(root: Path) -> Path:
    """An INCEpTION project export laid out as the user guide describes it (written by
    hand): ``annotation/<document>/<annotator>.tsv``, the document as imported
    (``INITIAL_CAS``) and the curation beside the annotators' files, and the binary
    ``annotation_ser/`` folder that is not read."""
    for user in ("ann1", "ann2", "INITIAL_CAS"):
        folder = root / "annotation" / "note1.txt"
        folder.mkdir(parents=True, exist_ok=True)
        source = WEBANNO / ("ann1" if user == "INITIAL_CAS" else user) / "note1.tsv"
        (folder / f"{user}.tsv").write_text(source.read_text())
    (root / "annotation" / "note2.txt").mkdir()
    (root / "annotation" / "note2.txt" / "ann2.tsv").write_text(
        "#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Entity|value|certainty\n"
        "#T_RL=webanno.custom.Link|type|BT_webanno.custom.Entity\n\n\n#Text=Ann\n"
        "1-1\t0-3\tAnn\tPERSON\t_\t_\t_\n"
    )
    (root / "annotation" / "note2.txt" / "CURATION_USER.tsv").write_text("not read\n")
    (root / "annotation" / "note2.txt" / "ann2.xmi").write_text("<xmi/>")
    (root / "annotation_ser" / "note1.txt").mkdir(parents=True)
    (root / "annotation_ser" / "note1.txt" / "ann1.ser").write_bytes(b"\x00\xff")
    return root


NOTE1 = {
    ("ann1", "note1.txt", 0, 7, "DRUG"), ("ann1", "note1.txt", 17, 30, "DISEASE"),
    ("ann1", "note1.txt", 34, 44, "PERSON"), ("ann2", "note1.txt", 0, 7, "DRUG"),
    ("ann2", "note1.txt", 22, 30, "DISEASE"), ("ann2", "note1.txt", 34, 38, "PERSON"),
    ("ann2", "note1.txt", 34, 38, "Entity"), ("ann2", "note2.txt", 0, 3, "PERSON"),
}  # fmt: skip


def _with_documents(spans: accord.Spans) -> set[tuple[str, str, int, int, str]]:
    frame = spans.to_frame()
    cols = (frame.annotator, frame.document, frame.start, frame.end, frame.label)
    return set(zip(*cols, strict=True))


def test_project_export_folder_gives_every_document_and_annotator(tmp_path: Path) -> None:
    spans = accord.read_webanno_tsv(_project_export(tmp_path))
    # the spans of note1 are those of the annotator folders above; ann2 alone in note2
    assert _with_documents(spans) == NOTE1
    assert spans.annotators == ("ann1", "ann2")
    assert spans.documents == ("note1.txt", "note2.txt")
    # INITIAL_CAS and CURATION_USER are no annotators; the .xmi is another format
    assert spans.notes == (
        "left out INCEpTION's own files (CURATION_USER, INITIAL_CAS): no annotator's work",
        "left out 1 file under annotation/ that is not .tsv",
    )
    rel = accord.read_webanno_tsv_relations(tmp_path)
    assert sorted(rel["document"]) == ["note1.txt", "note1.txt"]


def test_project_export_zip_reads_as_the_folder(tmp_path: Path) -> None:
    import zipfile

    root = _project_export(tmp_path / "export")
    archive = tmp_path / "project.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for file in sorted(root.rglob("*")):
            if file.is_file():
                out.write(file, file.relative_to(root).as_posix())
    spans = accord.read_webanno_tsv(archive)
    assert _with_documents(spans) == NOTE1
    assert len(spans.notes) == 2
    assert len(accord.read_webanno_tsv_relations(archive)) == 2
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as out:
        out.writestr("source/note1.txt", "Ann")
    with pytest.raises(InvalidInputError, match=r"empty.zip: no annotation/ folder"):
        accord.read_webanno_tsv(empty)


CHAIN_HEAD = (
    "#FORMAT=WebAnno TSV 3.3\n"
    "#T_CH=de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceLink|referenceType|"
    "referenceRelation\n\n\n#Text=He shot himself with his revolver.\n"
)


def test_chain_links_are_spans_and_relations(tmp_path: Path) -> None:
    """Coreference chains written by hand from the format description (the chain example
    of the WebAnno TSV 3 documentation): ``pr[1]`` is type pr in chain 1, ``coref->1-2``
    the relation to the next link and the link's place (chain 1, link 2)."""
    for name, rows in {
        "a": ["1-1\t0-2\tHe\tpr[1]\tcoref->1-1", "1-2\t3-7\tshot\t_\t_",
              "1-3\t8-15\thimself\tpr[1]\tcoref->1-2", "1-4\t16-20\twith\t_\t_",
              "1-5\t21-24\this\tpr[1]\t*->1-3", "1-6\t25-33\trevolver\t_\t_"],
        # b: He -> himself, and "his revolver" alone in chain 2 over two tokens
        "b": ["1-1\t0-2\tHe\tpr[1]\tcoref->1-1", "1-2\t3-7\tshot\t_\t_",
              "1-3\t8-15\thimself\tpr[1]\t*->1-2", "1-4\t16-20\twith\t_\t_",
              "1-5\t21-24\this\tnam[2]\t*->2-1", "1-6\t25-33\trevolver\tnam[2]\t*->2-1"],
    }.items():  # fmt: skip
        (tmp_path / name).mkdir()
        (tmp_path / name / "d.tsv").write_text(CHAIN_HEAD + "\n".join(rows) + "\n")
    spans = accord.read_webanno_tsv(tmp_path)
    assert spans_of(spans) == {
        ("a", 0, 2, "pr"), ("a", 8, 15, "pr"), ("a", 21, 24, "pr"),
        ("b", 0, 2, "pr"), ("b", 8, 15, "pr"), ("b", 21, 33, "nam"),
    }  # fmt: skip
    rel = accord.read_webanno_tsv_relations(tmp_path)
    got = set(rel[["annotator", "type", "head_start", "tail_start"]].itertuples(index=False))
    # a: He -> himself -> his (both coref); b: He -> himself; chain 2 has one link
    assert got == {("a", "coref", 0, 8), ("a", "coref", 8, 21), ("b", "coref", 0, 8)}
    # by hand: one relation in common, 2 of a and 1 of b: F1 = 2 * 1 / (2 + 1)
    assert accord.relation_agreement(spans, rel).statistic == pytest.approx(2 / 3, abs=1e-12)


def test_malformed_chain_link_is_named(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "d.tsv").write_text(CHAIN_HEAD + "1-1\t0-2\tHe\tpr[1]\tcoref-1-1\n")
    with pytest.raises(InvalidInputError, match=r"d.tsv, line 6: a chain link is .*'coref-1-1'"):
        accord.read_webanno_tsv(tmp_path)
    with pytest.raises(InvalidInputError, match=r"chain layer .* feature='referenceRelation'"):
        accord.read_webanno_tsv(tmp_path, feature="referenceRelation")


def test_undecodable_file_in_a_zip_names_the_member(tmp_path: Path) -> None:
    import zipfile

    archive = tmp_path / "project.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("annotation/note1.txt/ann1.tsv", b"#FORMAT=WebAnno TSV 3.3\n\xff\n")
    with pytest.raises(FileReadError, match=r"project.zip!annotation/note1.txt/ann1.tsv"):
        accord.read_webanno_tsv(archive)


def test_stacked_chain_links_are_read_apart(tmp_path: Path) -> None:
    """Two chains on one token, written by hand from the format description: the type
    and relation columns stack their links in the same order (``pr[1]|nam[2]``)."""
    (tmp_path / "a").mkdir()
    rows = [
        "1-1\t0-2\tHe\tpr[1]\tcoref->1-1", "1-2\t3-7\tshot\t_\t_",
        "1-3\t8-15\thimself\tpr[1]|nam[2]\t*->1-2|anaphor->2-1", "1-4\t16-20\twith\t_\t_",
        "1-5\t21-24\this\tnam[2]\t*->2-2",
    ]  # fmt: skip
    (tmp_path / "a" / "d.tsv").write_text(CHAIN_HEAD + "\n".join(rows) + "\n")
    assert spans_of(accord.read_webanno_tsv(tmp_path)) == {
        ("a", 0, 2, "pr"), ("a", 8, 15, "pr"), ("a", 8, 15, "nam"), ("a", 21, 24, "nam"),
    }  # fmt: skip
    rel = accord.read_webanno_tsv_relations(tmp_path)
    got = set(rel[["type", "head_start", "head_label", "tail_start"]].itertuples(index=False))
    # chain 1: He -> himself (coref); chain 2: himself -> his (anaphor)
    assert got == {("coref", 0, "pr", 8), ("anaphor", 8, "nam", 21)}
