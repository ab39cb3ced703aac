"""Readers of annotation-tool exports (Label Studio, Prodigy, Argilla, pairwise judgments),
the agreement of pairwise preference judges, read_ratings' recognition of the exports and
``accord agree --from``.

The fixtures under tests/reference/annotation_tools/ are small exports written in each tool's
documented format (the README there cites the documentation); every expected value below is
read off the fixture by hand.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import accord
from accord._results import dumps
from accord.cli import app
from accord.io.exports import export_tool

from .._cli import cli_json

HERE = Path(__file__).resolve().parents[1] / "reference" / "annotation_tools"
ANA = "0c1e8e1a-5b1f-4a55-9f8c-1f3b2a7d0a01"
BEN = "7d2c4f90-3e6b-4b1a-8c2d-6a5e9b1f0b02"


def triples(r: accord.Ratings) -> list[tuple[Any, Any, Any]]:
    """The ratings as sorted (item, rater, label) triples, decoded."""
    return sorted(
        (
            r.items[i].item() if hasattr(r.items[i], "item") else r.items[i],
            r.raters[j].item() if hasattr(r.raters[j], "item") else r.raters[j],
            r.categories[k],
        )
        for i, j, k in zip(r.item_codes, r.rater_codes, r.label_codes, strict=True)
    )


# ----------------------------------------------------------------------------- Label Studio
def test_label_studio_choices() -> None:
    r = accord.read_label_studio(HERE / "label_studio.json", field="sentiment")
    assert isinstance(r, accord.Ratings)
    assert triples(r) == [
        (1, 7, "Positive"),
        (1, 9, "Positive"),
        (2, 7, "Neutral"),
        (2, 9, "Positive"),
        (3, 7, "Negative"),
        (3, 9, "Negative"),
    ]
    assert r.level == "nominal"
    report = r.report
    assert (report.rows, report.ratings, report.items, report.raters) == (8, 6, 3, 2)
    assert report.dropped == 2
    assert dict(report.reasons) == {"cancelled annotation": 1, "unannotated task": 1}
    assert report.source == str(HERE / "label_studio.json")


def test_label_studio_rating_is_ordinal_by_default() -> None:
    r = accord.read_label_studio(HERE / "label_studio.json", field="quality")
    assert isinstance(r, accord.Ratings)
    assert r.level == "ordinal"
    assert triples(r) == [(1, 7, 4), (1, 9, 5), (2, 7, 3), (2, 9, 4), (3, 7, 1), (3, 9, 2)]
    interval = accord.read_label_studio(
        HERE / "label_studio.json", field="quality", level="interval"
    )
    assert interval.level == "interval"


def test_label_studio_number_and_unread_types(tmp_path: Path) -> None:
    def task(i: int, who: int, kind: str, value: dict[str, Any]) -> dict[str, Any]:
        result = {"from_name": "f", "to_name": "text", "type": kind, "value": value}
        return {"id": i, "annotations": [{"completed_by": who, "result": [result]}]}

    path = tmp_path / "export.json"
    path.write_text(
        json.dumps([task(1, 7, "number", {"number": 2.5}), task(1, 9, "number", {"number": 3})])
    )
    r = accord.read_label_studio(path)
    assert isinstance(r, accord.Ratings)
    assert r.level == "interval" and triples(r) == [(1, 7, 2.5), (1, 9, 3.0)]
    path.write_text(json.dumps([task(1, 7, "taxonomy", {"taxonomy": [["a", "b"]]})]))
    with pytest.raises(accord.InvalidInputError, match=r"field 'f' holds 'taxonomy' results"):
        accord.read_label_studio(path)
    path.write_text(json.dumps([task(1, 7, "number", {"number": "2"})]))
    with pytest.raises(accord.InvalidInputError, match=r"task 1: annotator 7: a 'number' result"):
        accord.read_label_studio(path)


def test_label_studio_field_errors_list_the_fields() -> None:
    with pytest.raises(accord.InvalidInputError, match=r"2 fields: 'sentiment' \(choices\), "):
        accord.read_label_studio(HERE / "label_studio.json")
    with pytest.raises(accord.InvalidInputError, match=r"no results for field 'topic'.*'quality'"):
        accord.read_label_studio(HERE / "label_studio.json", field="topic")


def test_label_studio_malformed_task_is_named() -> None:
    with pytest.raises(
        accord.InvalidInputError, match=r"task 32: an annotation without 'completed_by'"
    ):
        accord.read_label_studio(HERE / "label_studio_malformed.json")


def test_label_studio_malformed_results_are_named(tmp_path: Path) -> None:
    tasks = json.loads((HERE / "label_studio.json").read_text())
    tasks[2]["annotations"][0]["result"][0]["value"] = {"choice": "Negative"}  # a typo
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    with pytest.raises(accord.InvalidInputError, match=r"task 3: annotator 7: a 'choices' result"):
        accord.read_label_studio(path, field="sentiment")
    del tasks[1]["id"]
    path.write_text(json.dumps(tasks))
    with pytest.raises(accord.InvalidInputError, match=r"record 2: a task without an 'id'"):
        accord.read_label_studio(path, field="sentiment")
    tasks = json.loads((HERE / "label_studio.json").read_text())
    tasks[3]["drafts"] = [{"id": 9, "user": "ana@example.com", "result": []}]
    path.write_text(json.dumps(tasks))
    r = accord.read_label_studio(path, field="sentiment")
    assert isinstance(r, accord.Ratings)
    assert r.report.reasons["draft (not submitted)"] == 1 and r.report.rows == 9
    path.write_text(json.dumps({"id": 1, "sentiment": "Positive", "annotator": 7}))
    with pytest.raises(accord.InvalidInputError, match="task 1 has no 'annotations'"):
        accord.read_label_studio(path)


def test_label_studio_several_choices_are_sets_of_labels() -> None:
    r = accord.read_label_studio(HERE / "label_studio_multi.json")
    assert isinstance(r, accord.Ratings)
    # Users given as objects are named by their e-mail; task 13's annotation by ana has no
    # result: a missing label, counted.
    assert triples(r) == sorted(
        [
            (11, "ana@example.com", frozenset({"price", "delivery"})),
            (11, "ben@example.com", frozenset({"delivery"})),
            (12, "ana@example.com", frozenset({"staff"})),
            (12, "ben@example.com", frozenset({"staff"})),
            (13, "ben@example.com", frozenset({"price"})),
        ],
        key=lambda t: (t[0], t[1]),
    )
    assert (r.report.rows, r.report.ratings, r.report.missing) == (6, 5, 1)
    with pytest.raises(
        accord.InvalidInputError,
        match=r"item 11, rater 'ana@example.com'.*"
        r"multi_label=True",
    ):
        accord.read_label_studio(HERE / "label_studio_multi.json", multi_label=False)
    single = accord.read_label_studio(
        HERE / "label_studio.json", field="sentiment", multi_label=True
    )
    assert isinstance(single, accord.Ratings)
    assert single.categories == tuple(frozenset({c}) for c in ("Negative", "Neutral", "Positive"))


def test_multi_label_answers_given_twice(tmp_path: Path) -> None:
    tasks = json.loads((HERE / "label_studio_multi.json").read_text())
    again = json.loads(json.dumps(tasks[1]["annotations"][0]))
    again["result"][0]["value"]["choices"] = ["price"]
    again["id"] = 207
    tasks[1]["annotations"].append(again)
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    with pytest.raises(
        accord.DuplicateRatingError,
        match=r"\(12, 'ana@example.com'\) at task 12 \(annotation 203\) and task 12 "
        r"\(annotation 207\)",
    ):
        accord.read_label_studio(path)
    last = accord.read_label_studio(path, duplicates="last")
    assert isinstance(last, accord.Ratings)
    assert (12, "ana@example.com", frozenset({"price"})) in triples(last)
    assert last.report.reasons["duplicate (item, rater): kept the last"] == 1


def test_single_label_answers_given_twice(tmp_path: Path) -> None:
    tasks = json.loads((HERE / "label_studio.json").read_text())
    again = json.loads(json.dumps(tasks[0]["annotations"][1]))
    again["id"], again["result"][0]["value"]["choices"] = 108, ["Neutral"]
    tasks[0]["annotations"].append(again)
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    with pytest.raises(
        accord.DuplicateRatingError,
        match=r"\(1, 9\) at task 1 \(annotation 102\) and task 1 \(annotation 108\)",
    ):
        accord.read_label_studio(path, field="sentiment")
    first = accord.read_label_studio(path, field="sentiment", duplicates="first")
    assert isinstance(first, accord.Ratings)
    assert (1, 9, "Positive") in triples(first) and first.report.rows == 9
    assert first.report.reasons["duplicate (item, rater): kept the first"] == 1
    last = accord.read_label_studio(path, field="sentiment", duplicates="last")
    assert isinstance(last, accord.Ratings)
    assert (1, 9, "Neutral") in triples(last)


def test_label_studio_spans_feed_span_agreement() -> None:
    s = accord.read_label_studio(HERE / "label_studio_spans.json")
    assert isinstance(s, accord.Spans)
    assert s.to_frame().values.tolist() == [
        ["7", "21", 0, 7, "DRUG"],
        ["7", "21", 26, 31, "PERSON"],
        ["9", "21", 0, 7, "DRUG"],
        ["9", "22", 3, 9, "DRUG"],
    ]
    assert s.annotators == ("7", "9")
    assert s.notes == ("skipped 1 cancelled annotation",)
    # One span of each annotator's two matches exactly: precision = recall = F1 = 1/2.
    assert accord.span_agreement(s).statistic == pytest.approx(0.5)


def test_label_studio_relations_are_skipped_and_counted(tmp_path: Path) -> None:
    # A relation between two regions (Label Studio's export format: from_id, to_id, type
    # "relation", no from_name) answers no control.
    relation = {"from_id": "r1", "to_id": "r2", "type": "relation", "direction": "right",
                "labels": ["causes"]}  # fmt: skip
    tasks = json.loads((HERE / "label_studio.json").read_text())
    for task in tasks[:2]:
        task["annotations"][0]["result"].append(relation)
    path = tmp_path / "relations.json"
    path.write_text(json.dumps(tasks))
    r = accord.read_label_studio(path, field="sentiment")
    assert triples(r) == triples(
        accord.read_label_studio(HERE / "label_studio.json", field="sentiment")
    )
    assert dict(r.report.reasons) == {
        "cancelled annotation": 1,
        "unannotated task": 1,
        "relation between regions (not read)": 2,
    }
    spans = json.loads((HERE / "label_studio_spans.json").read_text())
    spans[0]["annotations"][0]["result"].append(relation)
    path.write_text(json.dumps(spans))
    s = accord.read_label_studio(path)
    assert "skipped 1 relation between regions (not read)" in s.notes


# ----------------------------------------------------------------------------------- Prodigy
def test_prodigy_choice() -> None:
    r = accord.read_prodigy(HERE / "prodigy_choice.jsonl")
    assert isinstance(r, accord.Ratings)
    assert triples(r) == [
        (101, "reviews-ana", "POSITIVE"),
        (101, "reviews-ben", "POSITIVE"),
        (102, "reviews-ana", "NEUTRAL"),
        (103, "reviews-ana", "NEGATIVE"),
        (103, "reviews-ben", "NEGATIVE"),
    ]
    report = r.report
    assert (report.rows, report.ratings, report.dropped) == (7, 5, 2)
    assert dict(report.reasons) == {"answer 'ignore'": 1, "answer 'reject'": 1}


def test_prodigy_binary_rates_the_task_with_the_answer() -> None:
    r = accord.read_prodigy(HERE / "prodigy_binary.jsonl")
    assert isinstance(r, accord.Ratings)
    assert triples(r) == [
        (1011, "sentiment-ana", "accept"),
        (1011, "sentiment-ben", "accept"),
        (1021, "sentiment-ana", "reject"),
        (1021, "sentiment-ben", "accept"),
        (1022, "sentiment-ana", "reject"),
    ]
    assert dict(r.report.reasons) == {"answer 'ignore'": 1}
    by_input = accord.read_prodigy(
        HERE / "prodigy_binary.jsonl", item="_input_hash", duplicates="first"
    )
    assert isinstance(by_input, accord.Ratings)
    assert by_input.n_items == 2


def test_prodigy_spans_keep_the_texts() -> None:
    s = accord.read_prodigy(HERE / "prodigy_spans.jsonl")
    assert isinstance(s, accord.Spans)
    assert s.to_frame().values.tolist() == [
        ["drugs-ana", "501", 0, 7, "DRUG"],
        ["drugs-ana", "501", 26, 31, "PERSON"],
        ["drugs-ben", "501", 0, 7, "DRUG"],
        ["drugs-ben", "502", 3, 9, "DRUG"],
    ]
    assert s.texts["502"] == "No entity here."
    assert s.notes == ("skipped 1 answer 'ignore'",)


def test_prodigy_malformed_lines_are_named(tmp_path: Path) -> None:
    with pytest.raises(
        accord.InvalidInputError, match=r"line 3: no '_annotator_id' or '_session_id'"
    ):
        accord.read_prodigy(HERE / "prodigy_malformed.jsonl")
    lines = (HERE / "prodigy_choice.jsonl").read_text().splitlines()
    path = tmp_path / "answers.jsonl"
    path.write_text(
        "\n".join([lines[0], lines[1].replace('"answer": "accept"', '"answer": "maybe"')])
    )
    with pytest.raises(accord.InvalidInputError, match=r"line 2: 'answer' must be .* got 'maybe'"):
        accord.read_prodigy(path)
    path.write_text("\n".join([lines[0], "{not json"]))
    with pytest.raises(accord.InvalidInputError, match=r"line 2: not valid JSON"):
        accord.read_prodigy(path)
    binary = (HERE / "prodigy_binary.jsonl").read_text().splitlines()
    path.write_text("\n".join([lines[0], binary[0]]))
    with pytest.raises(
        accord.InvalidInputError, match=r"different interfaces \(1 choice, 1 binary"
    ):
        accord.read_prodigy(path)


def test_json_lines_keep_line_separators_inside_strings(tmp_path: Path) -> None:
    # JSON lets U+2028, U+2029 and U+0085 stand unescaped in a string (RFC 8259, section 7),
    # as json.dumps(..., ensure_ascii=False) writes them; only "\n" ends a JSON Lines record.
    path = tmp_path / "answers.jsonl"
    records = [
        {"text": f"one{sep}two", "_input_hash": 1, "_annotator_id": rater, "answer": "accept",
         "label": "POS"}
        for sep, rater in (("\u2028", "a"), ("\u2029\x85", "b"))
    ]  # fmt: skip
    path.write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n", encoding="utf-8"
    )
    r = accord.read_prodigy(path, item="_input_hash")
    assert isinstance(r, accord.Ratings)
    assert (r.n_items, r.n_raters, r.report.rows) == (1, 2, 2)


def test_prodigy_multiple_choice_feeds_masi_alpha() -> None:
    r = accord.read_prodigy(HERE / "prodigy_multi.jsonl")
    assert isinstance(r, accord.Ratings)
    assert triples(r) == [
        (101, "reviews-ana", frozenset({"POSITIVE", "NEUTRAL"})),
        (101, "reviews-ben", frozenset({"POSITIVE"})),
        (102, "reviews-ana", frozenset({"NEUTRAL"})),
        (102, "reviews-ben", frozenset({"NEUTRAL", "NEGATIVE"})),
    ]
    # By hand (Krippendorff's alpha, MASI distance, Passonneau 2006): each item pairs a set
    # with a subset of it, Jaccard 1/2, monotonicity 2/3, distance 2/3, so D_o = 2/3. The
    # four sets pooled: distances 2/3, 2/3, 8/9 (one shared label, neither a subset), 1, 1,
    # 2/3 over the six pairs, D_e = (4 + 8/9) / 6. alpha = 1 - D_o / D_e = 2/11.
    alpha = accord.krippendorff_alpha(r, distance="masi")
    assert alpha.statistic == pytest.approx(1 - (2 / 3) / ((4 + 8 / 9) / 6))
    assert alpha.statistic == pytest.approx(2 / 11)


# ----------------------------------------------------------------------------------- Argilla
SENTIMENT = [
    ("rec-1", ANA, "positive"),
    ("rec-1", BEN, "positive"),
    ("rec-2", ANA, "neutral"),
    ("rec-2", BEN, "positive"),
    ("rec-3", ANA, "negative"),
]


@pytest.mark.parametrize(
    "name",
    [
        "argilla_v2.jsonl",
        "argilla_hub.parquet",
        "argilla_v1.json",
        "argilla_v1_hub.parquet",
        "argilla_v1_hub.jsonl",
    ],
)
def test_argilla_shapes_read_alike(name: str) -> None:
    r = accord.read_argilla(HERE / name, field="sentiment")
    assert triples(r) == SENTIMENT
    # Argilla 1.x: cem's discarded response has no values, and is still counted.
    assert dict(r.report.reasons) == {"discarded response": 1, "draft response": 1}
    assert (r.report.rows, r.report.ratings) == (7, 5)
    quality = accord.read_argilla(HERE / name, field="quality")
    assert quality.level == "ordinal"
    assert triples(quality) == [
        ("rec-1", ANA, 4),
        ("rec-1", BEN, 5),
        ("rec-2", ANA, 3),
        ("rec-2", BEN, 4),
        ("rec-3", ANA, 1),
    ]


def test_argilla_errors_name_the_record_and_the_questions() -> None:
    with pytest.raises(accord.InvalidInputError, match=r"line 2: a response without 'user_id'"):
        accord.read_argilla(HERE / "argilla_malformed.jsonl")
    with pytest.raises(accord.InvalidInputError, match=r"2 questions: 'sentiment', 'quality'"):
        accord.read_argilla(HERE / "argilla_v2.jsonl")
    with pytest.raises(accord.InvalidInputError, match=r"no responses to question 'topics'"):
        accord.read_argilla(HERE / "argilla_v2.jsonl", field="topics")
    multi = accord.read_argilla(HERE / "argilla_multi.jsonl")
    assert triples(multi) == [
        ("rec-1", ANA, frozenset({"price", "delivery"})),
        ("rec-1", BEN, frozenset({"delivery"})),
        ("rec-2", ANA, frozenset({"staff"})),
        ("rec-2", BEN, frozenset({"staff"})),
    ]


def test_argilla_v1_hub_columns_must_align(tmp_path: Path) -> None:
    row = {"id": "r1", "label": {"user_id": ["u1"], "value": ["yes", "no"], "status": None}}
    (tmp_path / "hub.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(accord.InvalidInputError, match=r"line 1: 'label': user_id, value .* 1, 2"):
        accord.read_argilla(tmp_path / "hub.jsonl")


def test_argilla_hub_columns_must_align(tmp_path: Path) -> None:
    table = pa.table(
        {
            "id": ["r1"],
            "label.responses": [["yes", "no"]],
            "label.responses.users": [["u1"]],
            "label.responses.status": [["submitted", "submitted"]],
        }
    )
    import pyarrow.parquet as pq

    pq.write_table(table, tmp_path / "hub.parquet")
    with pytest.raises(
        accord.InvalidInputError, match=r"row 1: label.responses, .* got 2, 1 and 2"
    ):
        accord.read_argilla(tmp_path / "hub.parquet")


# ------------------------------------------------------------------------ pairwise judgments
def test_read_pairwise_items_are_unordered_pairs() -> None:
    r = accord.read_pairwise(HERE / "pairwise.jsonl", duplicates="first")
    assert triples(r) == [
        ("81, turn 1: claude-v1 vs gpt-3.5-turbo", "expert_0", "tie"),
        ("81, turn 1: claude-v1 vs gpt-3.5-turbo", "expert_1", "claude-v1"),
        ("81, turn 1: claude-v1 vs gpt-3.5-turbo", "gpt-4-pair", "claude-v1"),
        ("81, turn 1: gpt-4 vs llama-13b", "expert_0", "gpt-4"),
        ("81, turn 1: gpt-4 vs llama-13b", "expert_1", "gpt-4"),
        ("81, turn 1: gpt-4 vs llama-13b", "gpt-4-pair", "gpt-4"),
        ("82, turn 1: alpaca-13b vs vicuna-13b", "expert_0", "vicuna-13b"),
        ("82, turn 1: alpaca-13b vs vicuna-13b", "gpt-4-pair", "tie"),
    ]
    assert dict(r.report.reasons) == {"duplicate (item, rater): kept the first": 2}


def test_read_pairwise_fastchat_judges_and_csv(tmp_path: Path) -> None:
    # FastChat's gpt4_pair_judgments.json names the judge as a list; a CSV log reads alike.
    records = [
        {"question_id": 81, "model_a": "gpt-4", "model_b": "vicuna-13b", "winner": "model_b",
         "judge": ["gpt-4", "pair-v2"], "turn": 2},
        {"question_id": 81, "model_a": "gpt-4", "model_b": "vicuna-13b", "winner": "tie",
         "judge": "expert_7", "turn": 2},
    ]  # fmt: skip
    (tmp_path / "votes.json").write_text(json.dumps(records))
    r = accord.read_pairwise(tmp_path / "votes.json")
    assert triples(r) == [
        ("81, turn 2: gpt-4 vs vicuna-13b", "expert_7", "tie"),
        ("81, turn 2: gpt-4 vs vicuna-13b", "gpt-4/pair-v2", "vicuna-13b"),
    ]
    pd.DataFrame(records).assign(judge=["gpt-4/pair-v2", "expert_7"]).to_csv(
        tmp_path / "votes.csv", index=False
    )
    assert triples(accord.read_pairwise(tmp_path / "votes.csv")) == triples(r)
    assert export_tool(tmp_path / "votes.csv") == "pairwise"


def test_read_pairwise_errors() -> None:
    with pytest.raises(accord.DuplicateRatingError, match=r"'gpt-4-pair'\) at rows 3, 4"):
        accord.read_pairwise(HERE / "pairwise.jsonl")
    with pytest.raises(accord.InvalidInputError, match=r"row 2 is not \(first: 'model_c'\)"):
        accord.read_pairwise(HERE / "pairwise_malformed.jsonl")


def _judgments() -> pd.DataFrame:
    return pd.read_json(HERE / "pairwise.jsonl", lines=True)


def test_pairwise_preference_agreement_by_hand() -> None:
    result = accord.pairwise_preference_agreement(_judgments())
    # Pairs of judgments of one item by two different judges (gpt-4-pair judged items 1 and
    # 2 in both orders, both judgments counted):
    #   gpt-4 vs llama-13b: expert_0, expert_1, gpt-4-pair x2 all prefer gpt-4: 5 pairs, 5 agree;
    #   claude-v1 vs gpt-3.5: expert_0 tie, expert_1 claude, gpt-4-pair claude then gpt-3.5:
    #     5 pairs, 1 agrees (expert_1 with gpt-4-pair's claude);
    #   alpaca vs vicuna: expert_0 vicuna, gpt-4-pair tie: 1 pair, none agrees.
    assert result.n_pairs == 11
    assert result.statistic == pytest.approx(6 / 11)
    # Without ties: 5 pairs on the first item (all agree) and 2 on the second
    # (expert_1 with each of gpt-4-pair's verdicts, one agrees).
    assert result.n_pairs_without_ties == 7
    assert result.agreement_without_ties == pytest.approx(6 / 7)
    # gpt-4-pair in both orders: gpt-4 both times (consistent); claude-v1 when shown first,
    # gpt-3.5-turbo when shown first (inconsistent, favours the first position).
    assert result.n_swapped == 2
    assert result.position_consistency == pytest.approx(1 / 2)
    assert (result.favours_first, result.favours_second) == (1, 0)
    assert (result.n_items, result.n_judges, result.n_judgments) == (3, 3, 10)
    judge = result.judges.set_index("judge").loc["gpt-4-pair"]
    assert judge["position_consistency"] == pytest.approx(0.5)
    assert math.isnan(result.judges.set_index("judge").loc["expert_0", "position_consistency"])
    assert result.reason is None


def test_pairwise_preference_agreement_undefined_has_reasons() -> None:
    one = _judgments().iloc[[0, 4]]  # two items, one judgment each
    result = accord.pairwise_preference_agreement(one)
    assert math.isnan(result.statistic) and math.isnan(result.position_consistency)
    assert result.reason == (
        "no item was judged by two judges; no judge saw a pair of answers in both orders"
    )


def test_pairwise_preference_agreement_takes_any_frame() -> None:
    pandas_result = accord.pairwise_preference_agreement(_judgments(), rng=0)
    arrow_result = accord.pairwise_preference_agreement(pa.Table.from_pandas(_judgments()), rng=0)
    assert dumps(arrow_result) == dumps(pandas_result)
    with pytest.raises(accord.ColumnNotFoundError, match="'verdict'"):
        accord.pairwise_preference_agreement(_judgments(), winner="verdict")


INTERVALS = {
    "statistic": ("ci_low", "ci_high"),
    "agreement_without_ties": ("without_ties_ci_low", "without_ties_ci_high"),
    "position_consistency": ("position_consistency_ci_low", "position_consistency_ci_high"),
}


def _interval_fields(result: accord.PairwisePreferenceAgreement) -> dict[str, Any]:
    keys = [k for pair in INTERVALS.values() for k in pair]
    return {k: getattr(result, k) for k in (*keys, "n_boot", "n_questions", "ci_reason")}


_SWAP = {"model_a": "model_b", "model_b": "model_a"}
_RENAME = {"m1": "zeta", "m2": "alpha", "m3": "mu", "j1": "x", "j2": "judge-c", "j3": "a"}


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 4),
            st.sampled_from([("m1", "m2"), ("m2", "m1"), ("m1", "m3"), ("m3", "m1")]),
            st.sampled_from(["j1", "j2", "j3"]),
            st.sampled_from(["model_a", "model_b", "tie"]),
        ),
        min_size=2,
        max_size=30,
    ),
    st.randoms(use_true_random=False),
    st.integers(0, 2**32 - 1),
)
def test_pairwise_agreement_invariants(rows: list[Any], rand: Any, seed: int) -> None:
    frame = pd.DataFrame(
        [(q, a, b, j, w) for q, (a, b), j, w in rows],
        columns=["question_id", "model_a", "model_b", "judge", "winner"],
    )
    result = accord.pairwise_preference_agreement(frame, n_boot=200, rng=seed)
    # Showing every pair the other way round (the verdict following its model) changes no
    # agreement, and turns a bias for the first position into one for the second.
    swapped = frame.assign(
        model_a=frame["model_b"], model_b=frame["model_a"], winner=frame["winner"].replace(_SWAP)
    )
    other = accord.pairwise_preference_agreement(swapped, n_boot=200, rng=seed)
    shuffled = frame.iloc[rand.sample(range(len(frame)), len(frame))]
    again = accord.pairwise_preference_agreement(shuffled, n_boot=200, rng=seed)
    # The same questions resampled alike whatever the order of the rows, the order each pair
    # was shown in and the names of the models and judges: the same intervals, to the bit.
    renamed = accord.pairwise_preference_agreement(shuffled.replace(_RENAME), n_boot=200, rng=seed)
    for res in (other, again, renamed):
        assert dumps(_interval_fields(res)) == dumps(_interval_fields(result))
    for low, high in INTERVALS.values():
        ends = getattr(result, low), getattr(result, high)
        assert (math.isnan(ends[0]) and math.isnan(ends[1]) and result.ci_reason) or (
            0 <= ends[0] <= ends[1] <= 1
        )
    for name in ("statistic", "agreement_without_ties", "position_consistency"):
        a, b, c = (getattr(x, name) for x in (result, other, again))
        assert (math.isnan(a) and math.isnan(b) and math.isnan(c)) or (a == pytest.approx(b) == c)
        assert math.isnan(a) or 0 <= a <= 1
    assert (other.favours_first, other.favours_second) == (
        result.favours_second,
        result.favours_first,
    )


# ------------------------------------------- intervals of pairwise preference agreement
def _preferred(row: Any) -> str:
    if str(row["winner"]).startswith("tie"):
        return "tie"
    return str(row["model_a"] if row["winner"] == "model_a" else row["model_b"])


def _counts_by_hand(frame: pd.DataFrame) -> np.ndarray:
    """Per question (sorted ids, one row each): agreeing pairs, pairs, the same two without
    ties, consistent cross-order pairs and cross-order pairs, counted pair by pair from the
    definitions of Zheng et al. (2023): every two judgments of one question, turn and
    unordered pair of models by two different judges; every two judgments of one judge on
    one item, shown in opposite orders."""
    rows = frame.to_dict("records")
    questions = sorted({str(r["question_id"]) for r in rows})
    out = np.zeros((len(questions), 6), dtype=np.int64)
    for one, two in itertools.combinations(rows, 2):
        if (one["question_id"], one.get("turn"), {one["model_a"], one["model_b"]}) != (
            two["question_id"],
            two.get("turn"),
            {two["model_a"], two["model_b"]},
        ):
            continue
        q = questions.index(str(one["question_id"]))
        agree = _preferred(one) == _preferred(two)
        if one["judge"] != two["judge"]:
            out[q, :2] += (agree, 1)
            if "tie" not in (_preferred(one), _preferred(two)):
                out[q, 2:4] += (agree, 1)
        elif one["model_a"] != two["model_a"]:
            out[q, 4:] += (agree, 1)
    return out


def _brute_force_bootstrap(counts: np.ndarray) -> list[tuple[np.ndarray, float]]:
    """Every distinct bootstrap resample of the questions (a multiset of n questions drawn
    from n) with its probability n! / (n^n prod m_q!), and the three shares of the judgments
    drawn: the questions' counts, each as many times as it was drawn."""
    n = counts.shape[0]
    out = []
    for draw in itertools.combinations_with_replacement(range(n), n):
        times = np.bincount(draw, minlength=n)
        prob = math.factorial(n) / math.prod(math.factorial(int(m)) for m in times) / n**n
        totals = times @ counts
        with np.errstate(invalid="ignore"):
            out.append((totals[0::2] / totals[1::2], prob))
    return out


def _quantile(dist: list[tuple[float, float]], p: float) -> float:
    """The p-quantile (the smallest value whose cumulative probability reaches p)."""
    total = 0.0
    for value, prob in sorted(dist):
        total += prob
        if total >= p - 1e-12:
            return value
    return sorted(dist)[-1][0]


def _realistic_judgments(n_questions: int = 8, seed: int = 2023) -> pd.DataFrame:
    """MT-Bench-like judgments: each question has two turns, each turn three pairs of models;
    two or three of four experts judge a pair (in a random order), and gpt-4 judges it in
    both orders; a judge picks the better answer with probability 0.6, a tie with 0.2."""
    gen = np.random.default_rng(seed)
    rows = []
    for q in range(81, 81 + n_questions):
        for turn in (1, 2):
            for a, b in (
                ("gpt-4", "vicuna-13b"),
                ("gpt-4", "llama-13b"),
                ("llama-13b", "alpaca-13b"),
            ):
                better = a if gen.random() < 0.7 else b
                judges = [f"expert_{e}" for e in gen.choice(4, gen.integers(2, 4), replace=False)]
                shown = [(j, *((a, b) if gen.random() < 0.5 else (b, a))) for j in judges]
                shown += [("gpt-4", a, b), ("gpt-4", b, a)]
                for judge, first, second in shown:
                    u = gen.random()
                    pick = better if u < 0.6 else "tie" if u < 0.8 else ({a, b} - {better}).pop()
                    winner = "tie" if pick == "tie" else "model_a" if pick == first else "model_b"
                    rows.append((q, turn, first, second, judge, winner))
    return pd.DataFrame(
        rows, columns=["question_id", "turn", "model_a", "model_b", "judge", "winner"]
    )


def _check_against_brute_force(frame: pd.DataFrame, n_boot: int) -> None:
    """The percentile interval of each share lies where the exact bootstrap distribution
    (every resample, from the pairs counted by hand) puts the 2.5% and 97.5% points; the
    band (1.5% to 3.5%, 96.5% to 98.5%) is the Monte Carlo error of n_boot replicates."""
    counts = _counts_by_hand(frame)
    result = accord.pairwise_preference_agreement(frame, n_boot=n_boot, rng=0)
    assert result.n_questions == counts.shape[0]
    # The point estimates are the hand counts' shares.
    totals = counts.sum(axis=0)
    assert (result.n_pairs, result.n_pairs_without_ties) == (totals[1], totals[3])
    resamples = _brute_force_bootstrap(counts)
    for j, (share, (low, high)) in enumerate(INTERVALS.items()):
        assert getattr(result, share) == pytest.approx(totals[2 * j] / totals[2 * j + 1])
        defined = [(float(v[j]), p) for v, p in resamples if not math.isnan(v[j])]
        mass = sum(p for _, p in defined)
        dist = [(v, p / mass) for v, p in defined]  # the resamples where the share is defined
        assert _quantile(dist, 0.015) <= getattr(result, low) <= _quantile(dist, 0.035)
        assert _quantile(dist, 0.965) <= getattr(result, high) <= _quantile(dist, 0.985)


def test_preference_intervals_mt_bench_against_brute_force() -> None:
    # pairwise.jsonl: two questions. Question 81 alone gives 6 of 10 pairs agreeing (6 of 7
    # without ties, 1 of 2 cross-order pairs consistent); question 82 alone 0 of 1 (no pair
    # without a tie, none in both orders). Resamples: {81, 81} (probability 1/4) 0.6,
    # {81, 82} (1/2) 6/11, {82, 82} (1/4) 0: the 2.5% point is 0, the 97.5% point 0.6.
    frame = _judgments()
    _check_against_brute_force(frame, 2000)
    result = accord.pairwise_preference_agreement(frame, n_boot=2000, rng=0)
    assert (result.ci_low, result.ci_high) == (0.0, 0.6)
    # Without {82, 82}, the other two shares are those of question 81 alone.
    assert result.without_ties_ci_low == result.without_ties_ci_high == 6 / 7
    assert result.position_consistency_ci_low == result.position_consistency_ci_high == 0.5
    assert result.ci_reason is not None
    assert "agreement without ties: from the " in result.ci_reason
    assert "position consistency: from the " in result.ci_reason


def test_preference_intervals_realistic_against_brute_force() -> None:
    _check_against_brute_force(_realistic_judgments(), 20000)


def test_preference_intervals_contain_the_estimate_and_narrow_with_more_questions() -> None:
    frame = _realistic_judgments()
    result = accord.pairwise_preference_agreement(frame, rng=0)
    assert result.n_boot == 2000 and result.confidence_level == 0.95
    assert result.ci_reason is None and "percentile bootstrap over questions" in result.ci_method
    # Every question four times, under new ids: the same shares, a narrower interval (about
    # half as wide: the standard error of a mean of 4n questions).
    copies = pd.concat([frame.assign(question_id=frame["question_id"] * 10 + k) for k in range(4)])
    more = accord.pairwise_preference_agreement(copies, rng=0)
    assert more.n_questions == 4 * result.n_questions
    for share, (low, high) in INTERVALS.items():
        point = getattr(result, share)
        assert getattr(result, low) < point < getattr(result, high)
        assert getattr(more, share) == pytest.approx(point)
        width = getattr(result, high) - getattr(result, low)
        assert 0 < getattr(more, high) - getattr(more, low) < 0.7 * width


def test_preference_intervals_degenerate_when_every_question_agrees_alike() -> None:
    # Question 81 of pairwise.jsonl five times, under new ids: every resample has the same
    # shares, 6/10, 6/7 and 1/2, and so has the interval.
    first = _judgments().query("question_id == 81")
    frame = pd.concat([first.assign(question_id=q) for q in range(5)])
    result = accord.pairwise_preference_agreement(frame, rng=3)
    assert (result.statistic, result.ci_low, result.ci_high) == (0.6, 0.6, 0.6)
    assert result.without_ties_ci_low == result.without_ties_ci_high == 6 / 7
    assert result.position_consistency_ci_low == result.position_consistency_ci_high == 0.5


def test_preference_intervals_undefined_say_why() -> None:
    frame = _judgments()
    none = accord.pairwise_preference_agreement(frame, n_boot=0)
    assert math.isnan(none.ci_low) and math.isnan(none.position_consistency_ci_high)
    assert (none.n_boot, none.ci_reason) == (0, "no bootstrap (n_boot=0)")
    assert none.ci_method == "none (no bootstrap replicates; n_boot=0)"
    # One question: nothing to resample.
    one = accord.pairwise_preference_agreement(frame.query("question_id == 81"), rng=0)
    assert math.isnan(one.ci_low) and not math.isnan(one.statistic)
    assert one.ci_reason == (
        "the bootstrap over questions needs at least two questions; the judgments hold 1"
    )
    # An undefined share has no interval.
    lone = accord.pairwise_preference_agreement(frame.iloc[[0, 4, 8]], rng=0)
    assert lone.ci_reason is not None
    assert "agreement with ties: the share itself is undefined" in lone.ci_reason
    # With three replicates, the share without ties is undefined in two or three of them
    # (question 82 drawn twice) in some runs: the interval is then NaN, and says why.
    undefined = 0
    for seed in range(30):
        res = accord.pairwise_preference_agreement(frame, n_boot=3, rng=seed)
        if math.isnan(res.without_ties_ci_low):
            undefined += 1
            assert res.ci_reason is not None
            assert "agreement without ties: undefined in " in res.ci_reason
            assert "of 3 resamples (no pair of judgments without a tie)" in res.ci_reason
        else:
            assert res.without_ties_ci_low == 6 / 7
    assert undefined > 0


def test_preference_intervals_bad_options() -> None:
    with pytest.raises(accord.InvalidInputError, match="'confidence_level' parameter of pairwise"):
        accord.pairwise_preference_agreement(_judgments(), confidence_level=1.0)
    with pytest.raises(accord.InvalidInputError, match="'n_boot' parameter of pairwise"):
        accord.pairwise_preference_agreement(_judgments(), n_boot=-1)


def test_preference_intervals_in_json() -> None:
    result = accord.pairwise_preference_agreement(
        _realistic_judgments(), confidence_level=0.9, n_boot=500, rng=1
    )
    data = json.loads(dumps(result))
    for share, (low, high) in INTERVALS.items():
        assert data[low] == getattr(result, low) < data[share] < data[high]
    assert (data["confidence_level"], data["n_boot"], data["n_questions"]) == (0.9, 500, 8)
    assert data["ci_method"].startswith("percentile bootstrap over questions (500 replicates)")
    assert data["ci_reason"] is None
    none = json.loads(dumps(accord.pairwise_preference_agreement(_judgments(), n_boot=0)))
    assert none["ci_low"] is None and none["ci_reason"] == "no bootstrap (n_boot=0)"


# --------------------------------------------------------------- read_ratings recognition
@pytest.mark.parametrize(
    ("name", "tool"),
    [
        ("label_studio.json", "label-studio"),
        ("prodigy_choice.jsonl", "prodigy"),
        ("argilla_v2.jsonl", "argilla"),
        ("argilla_hub.parquet", "argilla"),
        ("argilla_v1.json", "argilla"),
        ("argilla_v1_hub.parquet", "argilla"),
        ("argilla_v1_hub.jsonl", "argilla"),
        ("pairwise.jsonl", "pairwise"),
    ],
)
def test_export_tool_is_told_by_content(name: str, tool: str) -> None:
    assert export_tool(HERE / name) == tool


def test_export_tool_of_a_plain_table_is_none() -> None:
    assert export_tool(Path(__file__).parents[2] / "examples" / "diagnoses.csv") is None


def test_read_ratings_reads_exports_without_columns() -> None:
    direct = accord.read_prodigy(HERE / "prodigy_choice.jsonl")
    assert isinstance(direct, accord.Ratings)
    recognised = accord.read_ratings(HERE / "prodigy_choice.jsonl")
    assert triples(recognised) == triples(direct)
    assert recognised.report == direct.report
    ls = accord.read_ratings(HERE / "label_studio.json", field="sentiment")
    assert ls.report.ratings == 6
    pairs = accord.read_ratings(HERE / "pairwise.jsonl", duplicates="last")
    assert pairs.n_items == 3


def test_read_ratings_errors_on_exports_and_columns() -> None:
    csv = Path(__file__).parents[2] / "examples" / "diagnoses.csv"
    with pytest.raises(accord.InvalidInputError, match="not an annotation-tool export"):
        accord.read_ratings(csv)
    with pytest.raises(accord.InvalidInputError, match="pass item=, rater= and label= together"):
        accord.read_ratings(csv, item="patient")
    with pytest.raises(accord.InvalidInputError, match="field= names the control"):
        accord.read_ratings(csv, item="patient", rater="rater", label="diagnosis", field="x")
    with pytest.raises(accord.InvalidInputError, match="text spans, not ratings"):
        accord.read_ratings(HERE / "label_studio_spans.json")
    with pytest.raises(accord.InvalidInputError, match="sep=';' does not apply"):
        accord.read_ratings(HERE / "prodigy_choice.jsonl", sep=";")
    with pytest.raises(accord.InvalidInputError, match="holds one JSON array, not JSON Lines"):
        accord.read_ratings(HERE / "label_studio.json", item="id", rater="x", label="y")
    with pytest.raises(accord.InvalidInputError, match="does not apply to a prodigy export"):
        accord.read_ratings(HERE / "prodigy_choice.jsonl", field="x")


# -------------------------------------------------------------------------------------- CLI
runner = CliRunner()


def test_cli_agree_from_label_studio() -> None:
    path = str(HERE / "label_studio.json")
    out = runner.invoke(
        app, ["agree", path, "--from", "label-studio", "--field", "sentiment", "-f", "json"]
    )
    assert out.exit_code == 0, out.output
    data = cli_json(out.stdout)
    assert data["report"]["reasons"] == {"cancelled annotation": 1, "unannotated task": 1}
    rows = {c["name"]: c for c in data["coefficients"]}
    # Items 1 and 3 agree, item 2 does not.
    assert rows["percent_agreement"]["statistic"] == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("args", "tool"),
    [
        (["prodigy_choice.jsonl", "--from", "prodigy"], "prodigy"),
        (["argilla_hub.parquet", "--from", "argilla", "--field", "sentiment"], "argilla"),
        (["pairwise.jsonl", "--from", "pairwise", "--duplicates", "first"], "pairwise"),
        (["prodigy_choice.jsonl"], "recognised"),
    ],
)
def test_cli_agree_from_each_tool(args: list[str], tool: str) -> None:
    out = runner.invoke(app, ["agree", str(HERE / args[0]), *args[1:], "-f", "json"])
    assert out.exit_code == 0, (tool, out.output)
    assert cli_json(out.stdout)["report"]["ratings"] > 0


def test_cli_agree_on_multiple_choices_gives_set_coefficients() -> None:
    path = str(HERE / "prodigy_multi.jsonl")
    for extra in ([], ["--multi-label"]):
        out = runner.invoke(app, ["agree", path, "--from", "prodigy", *extra, "-f", "json"])
        assert out.exit_code == 0, out.output
        rows = {c["name"]: c for c in cli_json(out.stdout)["coefficients"]}
        # The MASI alpha worked by hand in test_prodigy_multiple_choice_feeds_masi_alpha.
        assert rows["krippendorff_alpha"]["statistic"] == pytest.approx(2 / 11)


def test_cli_consensus_from_label_studio() -> None:
    path = str(HERE / "label_studio.json")
    args = ["consensus", path, "--from", "label-studio", "--field", "sentiment", "-f", "json"]
    out = runner.invoke(app, args)
    assert out.exit_code == 0, out.output
    data = cli_json(out.stdout)
    assert data["report"]["reasons"] == {"cancelled annotation": 1, "unannotated task": 1}
    # Items 1 and 3: both raters agree (0 bits); item 2: two labels, one each (1 bit).
    assert data["summary"]["mean_entropy"] == pytest.approx(1 / 3)
    assert data["most_contested"][0]["entropy"] == pytest.approx(1.0)
    # Recognised by its content without --from, as accord agree does.
    same = runner.invoke(app, ["consensus", path, "--field", "sentiment", "-f", "json"])
    assert cli_json(same.stdout)["summary"] == data["summary"]


def test_cli_report_from_label_studio(tmp_path: Path) -> None:
    path = str(HERE / "label_studio.json")
    page = tmp_path / "page.html"
    args = ["report", path, "--from", "label-studio", "--field", "sentiment", "-o", str(page)]
    out = runner.invoke(app, args)
    assert out.exit_code == 0, out.output
    assert "coefficients" in out.stdout
    html = page.read_text()
    # Items 1 and 3 agree, item 2 does not: percent agreement 2/3 on the page.
    assert "0.667" in html or "66.7%" in html
    for extra, message in (
        (["--score", "s"], "--score: an annotation"),
        (["--engine", "stream"], "read with --engine memory"),
    ):
        bad = runner.invoke(app, [*args, *extra])
        assert bad.exit_code == 2
        assert message in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1
    # without --from the export is recognised by its content, as accord agree recognises it
    told = runner.invoke(app, ["report", path, "--field", "sentiment", "-o", str(page)])
    assert told.exit_code == 0, told.output
    assert "0.667" in page.read_text() or "66.7%" in page.read_text()
    table = runner.invoke(app, ["report", path, "--item", "id", "--rater", "r", "--field",
                                "sentiment", "-o", str(page)])  # fmt: skip
    assert table.exit_code == 2
    assert "--field names the control" in table.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "label-studio", "--item", "x"], "--item: an annotation"),
        (["--from", "label-studio", "--field", "sentiment", "--engine", "stream"], "needed with"),
        (["--from", "label-studio", "--field", "sentiment", "--gold", "g"], "--gold names a"),
        (["--from", "label-studio", "--field", "sentiment", "--sep", ";"], "--sep: an"),
    ],
)
def test_cli_consensus_from_errors_are_one_line(args: list[str], message: str) -> None:
    out = runner.invoke(app, ["consensus", str(HERE / "label_studio.json"), *args])
    assert out.exit_code == 2
    assert message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["label_studio.json", "--from", "label-studio"], "pass --field sentiment or quality"),
        (["label_studio.json", "--from", "prodigy"], "record 1: 'answer' must be"),
        (["label_studio.json", "--from", "label-studio", "--item", "x"], "--item: an annotation"),
        (["prodigy_choice.jsonl", "--from", "pairwise"], "line 1: no 'question_id'"),
        (["label_studio.json", "--engine", "stream"], "needed with --engine stream"),
        (["prodigy_choice.jsonl", "--from", "prodigy", "--encoding", "latin-1"], "--encoding: an"),
        (["prodigy_choice.jsonl", "--sep", ";"], "--sep ';' does not apply"),
        (["label_studio_malformed.json", "--from", "label-studio"], "task 32"),
    ],
)
def test_cli_agree_from_errors_are_one_line(args: list[str], message: str) -> None:
    out = runner.invoke(app, ["agree", str(HERE / args[0]), *args[1:]])
    assert out.exit_code == 2
    errors = [line for line in out.stderr.splitlines() if line.startswith("accord: error:")]
    assert len(errors) == 1 and message in errors[0], out.stderr
    assert "Traceback" not in out.output


def test_fixture_readme_cites_each_tool() -> None:
    text = (HERE / "README.md").read_text()
    for url in (
        "https://labelstud.io/guide/task_format",
        "https://prodi.gy/docs/api-interfaces",
        "https://docs.argilla.io/latest/how_to_guides/import_export",
        "https://huggingface.co/datasets/lmsys/mt_bench_human_judgments",
    ):
        assert url in text


# ------------------------------------------------------------------ properties of the readers
_ANSWERS = st.dictionaries(
    st.tuples(st.integers(1, 6), st.sampled_from([3, 5, 8])),
    st.one_of(st.none(), st.sampled_from(["yes", "no", "maybe"])),
    min_size=1,
    max_size=18,
)


@settings(max_examples=30, deadline=None)
@given(_ANSWERS, st.integers(0, 3))
def test_label_studio_reads_back_what_was_written(
    answers: dict[tuple[int, int], str | None], n_cancelled: int
) -> None:
    # A None answer is a cancelled annotation; n_cancelled more are added to task 1.
    tasks: dict[int, list[dict[str, Any]]] = {}
    for (task, user), choice in answers.items():
        result = [{"from_name": "f", "type": "choices", "value": {"choices": [choice]}}]
        tasks.setdefault(task, []).append(
            {
                "completed_by": user,
                "was_cancelled": choice is None,
                "result": [] if choice is None else result,
            }
        )
    if n_cancelled:
        tasks.setdefault(1, []).extend(
            {"completed_by": 99, "was_cancelled": True} for _ in range(n_cancelled)
        )
    kept = sorted((t, u, c) for (t, u), c in answers.items() if c is not None)
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "export.json"
        path.write_text(json.dumps([{"id": t, "annotations": a} for t, a in tasks.items()]))
        if not kept:
            with pytest.raises(accord.InvalidInputError):
                accord.read_label_studio(path)
            return
        r = accord.read_label_studio(path)
    assert isinstance(r, accord.Ratings)
    assert triples(r) == kept
    cancelled = len(answers) - len(kept) + n_cancelled
    assert r.report.rows == len(answers) + n_cancelled
    assert r.report.reasons.get("cancelled annotation", 0) == cancelled
    assert r.report.ratings + r.report.dropped == r.report.rows


@pytest.mark.parametrize(
    ("reader", "path"),
    [
        (accord.read_label_studio, "label_studio.json"),
        (accord.read_prodigy, "prodigy_choice.jsonl"),
        (accord.read_argilla, "argilla_v2.jsonl"),
    ],
)
@pytest.mark.parametrize(
    ("keyword", "value"), [("duplicates", "frist"), ("multi_label", "yes"), ("missing", "drop")]
)
def test_readers_refuse_an_encoding_option_that_is_none_of_its_choices(
    reader: Any, path: str, keyword: str, value: str
) -> None:
    # Refused whether or not the export has a duplicate or a multi-label answer: an option
    # the export happens not to need is no less mistyped.
    with pytest.raises(
        accord.InvalidInputError,
        match=rf"'{keyword}' parameter of {reader.__name__}.*Got '{value}'",
    ):
        reader(HERE / path, **{keyword: value})


def test_label_studio_names_a_user_once_when_the_export_also_gives_the_email(
    tmp_path: Path,
) -> None:
    # user 9 is a bare id on task 1 and an object with an e-mail on task 2: one rater
    tasks = [
        {"id": 1, "annotations": [
            {"completed_by": 7, "result": [_choice("yes")]},
            {"completed_by": 9, "result": [_choice("no")]}]},
        {"id": 2, "annotations": [
            {"completed_by": 7, "result": [_choice("yes")]},
            {"completed_by": {"id": 9, "email": "bo@example.org"}, "result": [_choice("yes")]}]},
    ]  # fmt: skip
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    r = accord.read_label_studio(path)
    assert sorted(map(str, r.raters)) == ["7", "bo@example.org"]
    assert r.n_ratings == 4 and r.n_items == 2


def _choice(label: str) -> dict[str, Any]:
    return {"from_name": "answer", "to_name": "text", "type": "choices",
            "value": {"choices": [label]}}  # fmt: skip
