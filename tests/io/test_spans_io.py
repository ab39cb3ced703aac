"""Span readers: brat standoff folders, BIO token columns, long tables."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from numpy.testing import assert_allclose

import accord

VECTOR = json.loads((Path(__file__).parents[1] / "reference" / "spans.json").read_text())[
    "spec_vector"
]
TEXT = VECTOR["text"]


def write_brat(root: Path, docs: dict[str, dict[str, str]], texts: dict[str, str]) -> Path:
    """docs: annotator -> document -> .ann content; texts written beside each .ann."""
    for annotator, files in docs.items():
        for doc, content in files.items():
            path = root / annotator / f"{doc}.ann"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)
            if doc in texts:
                (root / annotator / f"{doc}.txt").write_text(texts[doc])
    return root


def ann(*spans: tuple[str, int, int]) -> str:
    return "".join(f"T{k}\t{lab} {s} {e}\t{TEXT[s:e]}\n" for k, (lab, s, e) in enumerate(spans, 1))


def spec_brat(root: Path) -> Path:
    docs: dict[str, dict[str, str]] = {}
    for who, lab, s, e in VECTOR["spans"]:
        docs.setdefault(who, {}).setdefault("d1", "")
        docs[who]["d1"] += ann((lab, s, e))
    return write_brat(root, docs, {"d1": TEXT})


# --- brat --------------------------------------------------------------------------------


def test_brat_spec_vector(tmp_path: Path) -> None:
    # the spec's vector written as brat files gives the spec's numbers
    spans = accord.read_brat(spec_brat(tmp_path))
    assert spans.annotators == ("ann1", "ann2", "ann3") and spans.n_spans == 14
    assert spans.texts == {"d1": TEXT}
    res = accord.span_agreement(spans)
    assert_allclose(res.pairs["f1"], VECTOR["exact"]["pair_f1"], atol=5e-7)
    assert_allclose(res.statistic, VECTOR["exact"]["mean"], atol=5e-7)
    res = accord.span_agreement(spans, match="overlap")
    assert_allclose(res.statistic, VECTOR["overlap"]["mean"], atol=5e-7)
    res = accord.span_agreement(spans, match="token")  # texts come with the brat files
    assert_allclose(res.pairs["f1"], [8 / 11, 8 / 11, 6 / 12])


def test_bundled_example(examples: Path) -> None:
    spans = accord.read_brat(examples / "spans")
    assert spans.documents == ("note1", "note2") and spans.n_spans == 25
    assert spans.notes == ("skipped 1 line that is not a text-bound (T) annotation",)
    res = accord.span_agreement(spans)
    # by hand: note1 TP 3, 3, 1 (the spec's vector); note2 TP 2, 2, 2 (Metformin and
    # ibuprofen; Metformin and type 2 diabetes; Metformin and acute kidney injury);
    # sizes ann1 9, ann2 8, ann3 8
    assert res.pairs["matched"].tolist() == [5, 5, 3]
    assert_allclose(res.pairs["f1"], [10 / 17, 10 / 17, 6 / 16])
    assert_allclose(res.pooled, 26 / 50)


def test_brat_discontinuous(tmp_path: Path) -> None:
    content = {"a": {"d": "T1\tX 0 7;16 21\tAspirin fever\n"}, "b": {"d": ann(("X", 0, 7))}}
    root = write_brat(tmp_path, content, {"d": TEXT})
    with pytest.raises(accord.InvalidInputError, match=r"d.ann, line 1: discontinuous span T1"):
        accord.read_brat(root)
    split = accord.read_brat(root, discontinuous="split")
    assert split.to_frame()[["start", "end"]].values.tolist() == [[0, 7], [16, 21], [0, 7]]
    assert split.notes == ("split 1 discontinuous span into one span per fragment",)
    hull = accord.read_brat(root, discontinuous="hull")
    assert hull.to_frame()[["start", "end"]].values.tolist() == [[0, 21], [0, 7]]
    assert accord.span_agreement(split).pairs["matched"].tolist() == [1]
    assert accord.span_agreement(hull).pairs["matched"].tolist() == [0]


def test_brat_errors(tmp_path: Path) -> None:
    root = write_brat(tmp_path / "1", {"a": {"d": ann(("X", 0, 7))}, "b": {"e": ""}}, {"d": TEXT})
    with pytest.raises(accord.InvalidInputError, match=r"'a' has no .ann file for documents e"):
        accord.read_brat(root)
    root = write_brat(tmp_path / "2", {"a": {"d": "T1\tX 7 7\tx\n"}, "b": {"d": ""}}, {})
    with pytest.raises(accord.InvalidInputError, match="line 1: span with end <= start"):
        accord.read_brat(root)
    root = write_brat(tmp_path / "3", {"a": {"d": "T1\tX 70 90\tx\n"}, "b": {"d": ""}}, {"d": TEXT})
    with pytest.raises(accord.InvalidInputError, match=r"ends past the end of the text.*78"):
        accord.read_brat(root)
    root = write_brat(tmp_path / "4", {"a": {"d": "T1\tX 0 x\tx\n"}, "b": {"d": ""}}, {})
    with pytest.raises(accord.InvalidInputError, match="line 1: offsets must be"):
        accord.read_brat(root)
    root = write_brat(tmp_path / "5", {"a": {"d": "T1 X 0 5\n"}, "b": {"d": ""}}, {})
    with pytest.raises(accord.InvalidInputError, match="needs 'ID<TAB>Label START END'"):
        accord.read_brat(root)
    root = write_brat(tmp_path / "6", {"a": {"d": ""}, "b": {"d": ""}}, {})
    (root / "a" / "d.txt").write_text("one text")
    (root / "b" / "d.txt").write_text("another text")
    with pytest.raises(accord.InvalidInputError, match="texts of document 'd' differ"):
        accord.read_brat(root)
    (tmp_path / "7").mkdir()
    with pytest.raises(accord.InvalidInputError, match="no annotator folders"):
        accord.read_brat(tmp_path / "7")
    with pytest.raises(FileNotFoundError):
        accord.read_brat(tmp_path / "missing")
    with pytest.raises(accord.InvalidInputError, match="'discontinuous' parameter of read_brat"):
        accord.read_brat(tmp_path / "7", discontinuous="merge")  # type: ignore[arg-type]


def test_brat_annotator_without_spans_and_other_lines(tmp_path: Path) -> None:
    content = {
        "a": {"d": ann(("X", 0, 7)) + "R1\tRel Arg1:T1 Arg2:T1\n#1\tNote T1\tfine\n"},
        "b": {"d": ann(("X", 0, 7))},
        "c": {"d": "A1\tNegated T1\n"},
    }
    root = write_brat(tmp_path, content, {})
    (root / "notes").mkdir()
    (root / "notes" / "d.txt").write_text(TEXT)  # not an annotator: no .ann files
    (root / "d.txt").write_text(TEXT)  # the text at the top of the folder is used
    spans = accord.read_brat(root)
    assert spans.annotators == ("a", "b", "c")
    assert spans.annotators_without_spans == ("c",)
    assert spans.texts == {"d": TEXT}
    assert any("skipped 3 lines" in n for n in spans.notes)
    assert any("['notes']" in n for n in spans.notes)
    with pytest.warns(accord.AccordWarning, match="annotators with no spans: 'c'"):
        res = accord.span_agreement(spans)
    assert res.pairs["f1"].tolist() == [1.0, 0.0, 0.0]


def test_brat_crlf_offsets_count_both_characters(tmp_path: Path) -> None:
    text = "line one\r\nAspirin"
    root = write_brat(tmp_path, {"a": {"d": "T1\tX 10 17\tAspirin\n"}, "b": {"d": ""}}, {})
    (root / "d.txt").write_bytes(text.encode())
    spans = accord.read_brat(root)
    assert spans.lengths == {"d": 17}
    assert spans.texts["d"][10:17] == "Aspirin"


def test_brat_line_separators_inside_a_quoted_text(tmp_path: Path) -> None:
    # U+2028 and U+0085 are characters of the text, not line ends of the .ann file (brat
    # standoff: one annotation per line, lines end with \n); the span quotes them.
    text = "Aspirin\u2028tablets\x85help"
    for annotator in ("a", "b"):
        (tmp_path / annotator).mkdir()
        ann_line = f"T1\tDRUG 0 20\t{text[:20]}\r\n"
        (tmp_path / annotator / "d.ann").write_text(ann_line, encoding="utf-8", newline="")
        (tmp_path / annotator / "d.txt").write_text(text, encoding="utf-8", newline="")
    spans = accord.read_brat(tmp_path)
    assert spans.n_spans == 2 and spans.notes == ()
    assert accord.span_agreement(spans).statistic == 1.0


def test_brat_same_span_twice_in_one_file_counts_once(tmp_path: Path) -> None:
    twice = ann(("DRUG", 0, 7), ("DISEASE", 16, 21)) + "T3\tDRUG 0 7\tAspirin\n"
    root = write_brat(tmp_path, {"a": {"d": twice}, "b": {"d": ann(("DRUG", 0, 7))}}, {"d": TEXT})
    with pytest.warns(accord.DroppedDataWarning, match="dropped 1 duplicate span"):
        spans = accord.read_brat(root)
    assert spans.n_spans == 3
    assert any("first: annotator 'a', document 'd', 0-7 'DRUG'" in n for n in spans.notes)
    # by hand: a {DRUG 0-7, DISEASE 16-21}, b {DRUG 0-7}: TP 1, F1 = 2 / (2 + 1)
    res = accord.span_agreement(spans, by=None)
    assert_allclose(res.statistic, 2 / 3)
    content = {"a": {"d": ann(("DRUG", 0, 7)) * 2}, "b": {"d": ann(("DRUG", 0, 7))}}
    with pytest.warns(accord.DroppedDataWarning):
        res = accord.span_agreement(accord.read_brat(write_brat(tmp_path / "2", content, {})))
    assert res.statistic == 1.0  # the case: 0.667 when counted twice


def test_brat_quoted_text_is_checked_against_the_txt(tmp_path: Path) -> None:
    right = ann(("DRUG", 0, 7), ("DISEASE", 16, 21), ("DRUG", 26, 33))
    wrong = right + "T4\tDISEASE 44 50\tWrongtext\n"
    root = write_brat(tmp_path, {"a": {"d": wrong}, "b": {"d": right}}, {"d": TEXT})
    with pytest.warns(accord.AccordWarning, match="1 of 7 text-bound annotations quote"):
        spans = accord.read_brat(root)
    note = next(n for n in spans.notes if "quote a text" in n)
    assert "a/d.ann, line 4: T4 44 50 is 'ulcers' in the text but the .ann quotes 'Wrongtext'" in (
        note.replace("\\", "/")
    )
    # white space runs count as one space; a discontinuous span's fragments are joined by one
    spaced = "T1\tDRUG 0 7;16 21\tAspirin  fever\n"
    root = write_brat(tmp_path / "2", {"a": {"d": spaced}, "b": {"d": ""}}, {"d": TEXT})
    with warnings.catch_warnings():
        warnings.simplefilter("error", accord.AccordWarning)
        spans = accord.read_brat(root, discontinuous="split")
    assert not any("quote" in n for n in spans.notes)


def test_brat_offsets_that_miss_the_text_are_an_error(tmp_path: Path) -> None:
    # Offsets made on \n text, read against a .txt with \r\n line ends: every span after the
    # first line end is shifted by one character per line end above it.
    lf = "Patient one\nAspirin daily\nNo fever\n"
    crlf = lf.replace("\n", "\r\n")
    spans_lf = [("DRUG", 12, 19), ("DISEASE", 29, 34)]
    content = "".join(
        f"T{k}\t{lab} {s} {e}\t{lf[s:e]}\n" for k, (lab, s, e) in enumerate(spans_lf, 1)
    )
    root = write_brat(tmp_path, {"a": {"d": content}, "b": {"d": content}}, {})
    (root / "d.txt").write_bytes(crlf.encode())
    with pytest.raises(accord.InvalidInputError) as err:
        accord.read_brat(root)
    message = str(err.value)
    assert message.startswith("4 of 4 text-bound annotations quote a text other than")
    assert "T1 12 19 is '\\nAspiri' in the text but the .ann quotes 'Aspirin'" in message
    assert "4 of them match when each \\r\\n line end counts as one character" in message
    assert "check_text=False" in message and "\n" not in message
    spans = accord.read_brat(root, check_text=False)
    assert spans.n_spans == 4 and not any("quote" in n for n in spans.notes)
    (root / "d.txt").write_bytes(lf.encode())  # the text the offsets were made on
    with warnings.catch_warnings():
        warnings.simplefilter("error", accord.AccordWarning)
        assert accord.read_brat(root).n_spans == 4


# --- BIO -------------------------------------------------------------------------------------


BIO = """\
Aspirin B-DRUG B-DRUG B-DRUG
reduces O O B-DISEASE
fever B-DISEASE B-DISEASE I-DISEASE
and O O O
aspirin B-DRUG B-DRUG O
may O O O
cause O O O
ulcers B-DISEASE B-DISEASE B-DISEASE
in O I-DISEASE O
patients O I-DISEASE B-DRUG
with O O O
gastritis B-DISEASE O B-DISEASE
. O O O
"""


def test_bio_spec_vector_in_tokens(tmp_path: Path) -> None:
    # the spec's sentence as tokens; token spans equal the character spans, so exact and
    # overlap give the spec's values, and token matching the hand count of test_spans
    path = tmp_path / "s.bio"
    path.write_text(BIO)
    spans = accord.read_bio(path, annotators=["ann1", "ann2", "ann3"])
    assert spans.unit == "token" and spans.lengths == {"s": 13} and spans.documents == ("s",)
    res = accord.span_agreement(spans)
    assert_allclose(res.pairs["f1"], VECTOR["exact"]["pair_f1"], atol=5e-7)
    res = accord.span_agreement(spans, match="overlap")
    assert_allclose(res.pairs["f1"], VECTOR["overlap"]["pair_f1"], atol=5e-7)
    res = accord.span_agreement(spans, match="token")
    assert_allclose(res.pairs["f1"], [8 / 11, 8 / 11, 6 / 12])


def test_bio_conventions(tmp_path: Path) -> None:
    path = tmp_path / "x.conll"
    path.write_text(
        "-DOCSTART- O O\n\n"
        "tok name1 name2\n"  # no header flag: a token line with tags that are not tags
    )
    with pytest.raises(accord.InvalidInputError, match="line 3, column 2: 'name1' is not a tag"):
        accord.read_bio(path)
    path.write_text(
        "# a b\n"
        "-DOCSTART- O O\n\n"
        "w1 I-X B-X\n"  # I- after nothing starts a span (conlleval)
        "w2 I-X I-Y\n"  # I-Y after X starts a new span
        "\n"  # a sentence boundary closes spans
        "w3 I-X S-X\n"
        "w4 O E-X\n"  # E- that continues nothing starts (and ends) a span
        "-DOCSTART- O O\n"
        "w1 B-X U-X\n"
        "w2 L-X O\n"
    )
    spans = accord.read_bio(path, header=True)
    assert spans.annotators == ("a", "b") and spans.documents == ("1", "2")
    assert spans.lengths == {"1": 4, "2": 2}
    rows = spans.to_frame().values.tolist()
    assert rows == [
        ["a", "1", 0, 2, "X"],
        ["a", "1", 2, 3, "X"],
        ["a", "2", 0, 2, "X"],
        ["b", "1", 0, 1, "X"],
        ["b", "1", 1, 2, "Y"],
        ["b", "1", 2, 3, "X"],
        ["b", "1", 3, 4, "X"],
        ["b", "2", 0, 1, "X"],
    ]
    assert spans.notes == (
        "4 spans begin with I-, E- or L- (read as a new span, as conlleval does)",
    )


def test_bio_errors(tmp_path: Path) -> None:
    path = tmp_path / "x.bio"
    path.write_text("w1 O O\nw2 O\n")
    with pytest.raises(accord.InvalidInputError, match="line 2: expected 3 columns"):
        accord.read_bio(path)
    path.write_text("w1 O O\n")
    with pytest.raises(accord.InvalidInputError, match="2 tag columns but 1 annotator names"):
        accord.read_bio(path, annotators=["a"])
    with pytest.raises(accord.InvalidInputError, match="repeat"):
        accord.read_bio(path, annotators=["a", "a"])
    path.write_text("w1\n")
    with pytest.raises(accord.InvalidInputError, match="got 1 column"):
        accord.read_bio(path)
    path.write_text("\n\n")
    with pytest.raises(accord.InvalidInputError, match="no token lines"):
        accord.read_bio(path)
    path.write_text("w1 O O\nw2 O O\n")
    spans = accord.read_bio(path)
    assert spans.annotators_without_spans == ("annotator_1", "annotator_2")


# --- tables -----------------------------------------------------------------------------------


def test_read_spans_table_with_texts(tmp_path: Path) -> None:
    lines = ["coder,doc,s,e,tag"] + [f"{w},d1,{s},{e},{lab}" for w, lab, s, e in VECTOR["spans"]]
    (tmp_path / "spans.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "d1.txt").write_text(TEXT)
    spans = accord.read_spans(
        tmp_path / "spans.csv",
        annotator="coder",
        document="doc",
        start="s",
        end="e",
        label="tag",
        texts=tmp_path / "texts",
    )
    assert spans.source == str(tmp_path / "spans.csv")
    res = accord.span_agreement(spans, match="token")
    assert_allclose(res.pairs["f1"], [8 / 11, 8 / 11, 6 / 12])
    with pytest.raises(accord.ColumnNotFoundError, match="'annotator' not found"):
        accord.read_spans(tmp_path / "spans.csv")
    (tmp_path / "texts" / "d1.txt").write_text(TEXT[:50])
    with pytest.raises(accord.InvalidInputError, match=r"spans.csv: spans end past their document"):
        accord.read_spans(
            tmp_path / "spans.csv",
            annotator="coder",
            document="doc",
            start="s",
            end="e",
            label="tag",
            texts=tmp_path / "texts",
        )


def test_read_spans_of_a_folder_names_the_folder_readers(examples: Path) -> None:
    # a brat folder given to the table reader: one line naming the readers of folders
    with pytest.raises(accord.InvalidInputError, match=r"is a folder: accord.read_brat") as err:
        accord.read_spans(examples / "spans")
    assert "\n" not in str(err.value)
