"""Relations between spans and span attributes: hand-computed F1 and percent agreement,
the brat readers, and bad input."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from numpy.testing import assert_allclose

import accord


def spans_of(rows: list[tuple[str, str, int, int]]) -> accord.Spans:
    df = pd.DataFrame(rows, columns=["annotator", "label", "start", "end"]).assign(document="d")
    return accord.Spans.from_frame(df)


def relations_of(rows: list[tuple[str, str, int, int, str, int, int, str]]) -> pd.DataFrame:
    cols = ["annotator", "type", "head_start", "head_end", "head_label", "tail_start",
            "tail_end", "tail_label"]  # fmt: skip
    return pd.DataFrame(rows, columns=cols).assign(document="d")


SPANS = [
    ("a", "DRUG", 0, 5), ("a", "ADE", 10, 15), ("a", "ADE", 20, 25),
    ("b", "DRUG", 0, 5), ("b", "ADE", 10, 16), ("b", "ADE", 20, 25),
]  # fmt: skip
RELATIONS = [
    ("a", "causes", 0, 5, "DRUG", 10, 15, "ADE"), ("a", "causes", 0, 5, "DRUG", 20, 25, "ADE"),
    ("b", "causes", 0, 5, "DRUG", 10, 16, "ADE"), ("b", "treats", 0, 5, "DRUG", 20, 25, "ADE"),
]  # fmt: skip


def test_relations_by_hand() -> None:
    spans, rel = spans_of(SPANS), relations_of(RELATIONS)
    # exact: ADE [10,15) and [10,16) do not match, so a's first relation cannot; the second
    # has its type changed: TP 0, F1 0
    res = accord.relation_agreement(spans, rel)
    assert res.pairs[["n_a", "n_b", "matched"]].values.tolist() == [[2, 2, 0]]
    assert res.statistic == 0.0
    # overlap: every span matched; causes(DRUG, ADE1) agrees: TP 1, F1 2/4, P = R = 1/2;
    # per type: causes 2 * 1 / 3 relations, treats 0 / 1
    res = accord.relation_agreement(spans, rel, match="overlap")
    assert_allclose(res.pairs[["precision", "recall", "f1"]].iloc[0], [0.5, 0.5, 0.5])
    assert_allclose(res.by_type["pooled_f1"], [2 / 3, 0.0])
    assert res.by_type["type"].tolist() == ["causes", "treats"]


def test_three_annotators_mean_sd_pooled_by_hand() -> None:
    # c copies a: pairs (a, b) 0.5, (a, c) 1, (b, c) 0.5 (overlap matching);
    # mean 2/3, population SD sqrt(1/18), pooled 2 (1 + 2 + 1) / 12
    spans = spans_of(SPANS + [("c", *r[1:]) for r in SPANS if r[0] == "a"])
    rel = relations_of(RELATIONS + [("c", *r[1:]) for r in RELATIONS if r[0] == "a"])
    res = accord.relation_agreement(spans, rel, match="overlap")
    assert_allclose(res.pairs["f1"], [0.5, 1.0, 0.5])
    assert res.statistic == pytest.approx(2 / 3)
    assert res.sd == pytest.approx(math.sqrt(1 / 18))
    assert res.pooled == pytest.approx(8 / 12)


def test_relations_are_directed() -> None:
    spans = spans_of([("a", "X", 0, 2), ("a", "X", 4, 6), ("b", "X", 0, 2), ("b", "X", 4, 6)])
    rel = relations_of([("a", "r", 0, 2, "X", 4, 6, "X"), ("b", "r", 4, 6, "X", 0, 2, "X")])
    assert accord.relation_agreement(spans, rel).statistic == 0.0


def test_attributes_by_hand() -> None:
    # two matched spans; Negated: true vs absent (no), absent vs absent (yes): 1/2;
    # Severity: absent/absent (yes), mild vs severe (no): 1/2; pooled 2/4
    spans = spans_of([("a", "D", 0, 5), ("a", "D", 10, 15), ("b", "D", 0, 5), ("b", "D", 10, 15)])
    att = pd.DataFrame(
        [("a", 0, 5, "Negated", "true"), ("a", 10, 15, "Severity", "mild"),
         ("b", 10, 15, "Severity", "severe")],
        columns=["annotator", "start", "end", "attribute", "value"],
    ).assign(document="d", label="D")  # fmt: skip
    res = accord.attribute_agreement(spans, att)
    assert res.attributes[["attribute", "n_matched", "n_agree"]].values.tolist() == [
        ["Negated", 2, 1], ["Severity", 2, 1]
    ]  # fmt: skip
    assert res.statistic == 0.5


def write_brat(root: Path) -> Path:
    for ann, lines in {
        "a": ["T1\tDRUG 0 7\tAspirin", "T2\tADE 16 21\tfever", "R1\tcauses Arg1:T1 Arg2:T2",
              "A1\tNegated T2"],
        "b": ["T1\tDRUG 0 7\tAspirin", "T2\tADE 16 21\tfever", "R1\tcauses Arg1:T1 Arg2:T2"],
    }.items():  # fmt: skip
        (root / ann).mkdir(parents=True)
        (root / ann / "doc.ann").write_text("\n".join(lines) + "\n")
        (root / ann / "doc.txt").write_text("Aspirin gave me fever.")
    return root


def test_brat_relations_and_attributes(tmp_path: Path) -> None:
    root = write_brat(tmp_path / "brat")
    spans = accord.read_brat(root)
    rel = accord.read_brat_relations(root)
    assert rel.iloc[0].tolist() == ["a", "doc", "causes", 0, 7, "DRUG", 16, 21, "ADE"]
    assert accord.relation_agreement(spans, rel).statistic == 1.0
    att = accord.read_brat_attributes(root)
    assert att[["attribute", "value"]].values.tolist() == [["Negated", "true"]]
    res = accord.attribute_agreement(spans, att)
    assert res.statistic == 0.5 and res.attributes["n_matched"].tolist() == [2]


def test_bad_input(tmp_path: Path) -> None:
    spans = spans_of(SPANS)
    bad = relations_of([("a", "causes", 0, 5, "DRUG", 11, 15, "ADE")])
    with pytest.raises(accord.InvalidInputError, match=r"relations in row 1 names a span"):
        accord.relation_agreement(spans, bad)
    with pytest.raises(accord.InvalidInputError, match="'match' parameter"):
        accord.relation_agreement(spans, relations_of(RELATIONS), match="token")  # type: ignore[arg-type]
    root = write_brat(tmp_path / "brat")
    (root / "b" / "doc.ann").write_text("T1\tDRUG 0 7\tAspirin\nR1\tcauses Arg1:T1 Arg2:T9\n")
    with pytest.raises(accord.InvalidInputError, match="'T9' is not a text-bound"):
        accord.read_brat_relations(root)


def test_label_studio_relations_with_their_spans(tmp_path: Path) -> None:
    def annotation(who: int, relation_type: str, direction: str) -> dict:
        return {"completed_by": who, "result": [
            {"id": "a", "from_name": "ner", "to_name": "text", "type": "labels",
             "value": {"start": 0, "end": 7, "labels": ["DRUG"]}},
            {"id": "b", "from_name": "ner", "to_name": "text", "type": "labels",
             "value": {"start": 16, "end": 21, "labels": ["ADE"]}},
            {"from_id": "a", "to_id": "b", "type": "relation", "direction": direction,
             "labels": [relation_type]}]}  # fmt: skip

    import json

    task = {"id": 1, "data": {"text": "Aspirin gave me fever."},
            "annotations": [annotation(7, "causes", "right"), annotation(9, "causes", "left"),
                            annotation(11, "causes", "right")]}  # fmt: skip
    path = tmp_path / "ls.json"
    path.write_text(json.dumps([task]))
    spans = accord.read_label_studio(path, field="ner")
    rel = accord.read_label_studio_relations(path)
    # annotator 9 drew the arrow the other way: its head is the ADE
    assert rel.set_index("annotator").loc["9", "head_label"] == "ADE"
    res = accord.relation_agreement(spans, rel)
    # by hand: 7-11 agree (F1 1), 7-9 and 9-11 do not (F1 0): mean 1/3, pooled 2 / 6;
    # annotators sort as names: pairs 11-7, 11-9, 7-9
    assert_allclose(res.pairs["f1"], [1.0, 0.0, 0.0])
    assert res.pooled == pytest.approx(1 / 3)
