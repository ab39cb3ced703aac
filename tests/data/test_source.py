"""accord.Source and accord.source(): one way in for every front door and command.

``f(x, **read)`` is ``f(source(x, **read))`` on every engine; a keyword that is no field of a
Source is one line naming it; the front doors' signatures name only what they compute; a
report reads its file once; the commands that read ratings share one set of read flags."""

from __future__ import annotations

import dataclasses
import inspect
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import typer.main
from hypothesis import given
from typer.testing import CliRunner

import accord
from accord import InvalidInputError, Source, source
from accord.cli import app

from .._cli import cli_json
from ..strategies import long_ratings

COLUMNS = {"item": "item", "rater": "rater", "label": "label"}
ROWS = [
    ("i1", "a", "x"), ("i1", "b", "x"), ("i1", "c", "y"),
    ("i2", "a", "y"), ("i2", "b", "y"), ("i2", "c", "y"),
    ("i3", "a", "x"), ("i3", "b", "y"), ("i3", "c", "x"),
    ("i4", "a", "z"), ("i4", "b", "z"),
]  # fmt: skip


def frame() -> pd.DataFrame:
    return pd.DataFrame(ROWS, columns=["item", "rater", "label"])


def numbers(table: Any) -> pd.DataFrame:
    """An agreement table's numbers (every column of its frame)."""
    return table.to_frame().reset_index(drop=True)


# --- the Source -----------------------------------------------------------------------


def test_source_holds_the_data_and_the_fields_given() -> None:
    data = frame()
    s = source(data, **COLUMNS, level="ordinal", engine="memory")
    assert isinstance(s, Source)
    assert s.data is data
    assert (s.item, s.rater, s.label, s.level) == ("item", "rater", "label", "ordinal")
    assert s.given() == ["item", "rater", "label", "level"]


def test_source_of_a_source_replaces_the_fields_given_and_keeps_the_rest() -> None:
    s = source("r.csv", **COLUMNS, sep=";")
    t = source(s, level="ordinal", engine="stream")
    assert (t.item, t.sep, t.level, t.engine, t.data) == ("item", ";", "ordinal", "stream", "r.csv")
    assert s.level == "nominal" and s.engine == "memory"  # frozen: a copy, not an edit
    assert source(s) is s
    assert source(s) == source("r.csv", **COLUMNS, sep=";")
    assert source(Path("r.csv")) == source(Path("r.csv"))
    assert t != s
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.level = "ratio"  # type: ignore[misc]


def test_equal_sources_hold_the_same_frame_object() -> None:
    a, b = frame(), frame()
    assert source(a, **COLUMNS) == source(a, **COLUMNS)
    assert source(a, **COLUMNS) != source(b, **COLUMNS)  # equal contents, another object


def test_report_spellings_are_fields() -> None:
    assert source("r.csv", scores=["s1", "s2"]).scores == ("s1", "s2")
    assert source("r.csv", score="s1").scores == ("s1",)
    with pytest.raises(InvalidInputError, match="'score' twice"):
        source("r.csv", score="s", scores=["s"])


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: source("r.csv", lable="x"), "'lable'"),
        (lambda: accord.agreement(frame(), itme="item"), "'itme'"),
        (lambda: accord.consensus(frame(), **COLUMNS, engin="stream"), "'engin'"),
        (lambda: accord.report(frame(), **COLUMNS, sep_=";"), "'sep_'"),
    ],
)
def test_a_bad_keyword_is_one_line_naming_it(call: Any, name: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        call()
    message = str(caught.value)
    assert name in message and "\n" not in message


def test_a_file_option_given_with_a_frame_is_refused_not_dropped() -> None:
    with pytest.raises(InvalidInputError, match="sep= applies to a file") as caught:
        accord.agreement(frame(), **COLUMNS, sep=";")
    assert "\n" not in str(caught.value)


def test_an_export_option_is_refused_with_the_engines() -> None:
    with pytest.raises(InvalidInputError, match="from_= applies to engine='memory'"):
        source("r.jsonl", from_="pairwise", engine="stream")


# --- the front doors take it ----------------------------------------------------------


@pytest.mark.parametrize(
    ("front", "most"),
    # agreement: the data, what to compute, and one accord.Inference (the items' population
    # and interval, the standard error, raters' population and test of the coefficients);
    # report (26 before): its sections' inputs, the agreement table's weights, and three
    # options objects: one accord.Inference (every interval's level, the bootstrap, the
    # table's standard error and test), one accord.Judge (the judge and its humans, epsilon,
    # pairwise log, time column and window) and one accord.Regression (the method-comparison
    # regression and Deming's error ratio)
    [(accord.agreement, 10), (accord.consensus, 10), (accord.report, 14)],
)
def test_front_door_signatures_name_what_they_compute(front: Any, most: int) -> None:
    parameters = inspect.signature(front).parameters
    assert len(parameters) <= most, list(parameters)
    reading = {"item", "rater", "label", "sep", "encoding", "engine", "batch_size"}
    assert not reading & set(parameters)


@given(long_ratings(max_items=6, max_raters=4, max_categories=3))
def test_agreement_of_source_is_agreement_of_its_keywords_in_memory(data: pd.DataFrame) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate draws warn the same way on both sides
        by_keywords = accord.agreement(data, **COLUMNS, level="nominal")
        by_source = accord.agreement(source(data, **COLUMNS, level="nominal"))
    pd.testing.assert_frame_equal(numbers(by_source), numbers(by_keywords))
    assert by_source.report == by_keywords.report


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_agreement_and_consensus_of_source_equal_their_keywords_on_a_file(
    tmp_path: Path, engine: str
) -> None:
    path = tmp_path / "r.csv"
    path.write_text("item;rater;label\n" + "".join(f"{i};{r};{c}\n" for i, r, c in ROWS))
    read = dict(COLUMNS, sep=";", engine=engine)
    pd.testing.assert_frame_equal(
        numbers(accord.agreement(source(str(path), **read))),
        numbers(accord.agreement(str(path), **read)),
    )
    a = accord.consensus(str(path), **read)
    b = accord.consensus(source(str(path), **read), reference="all")
    pd.testing.assert_frame_equal(a.items, b.items)
    pd.testing.assert_frame_equal(a.raters, b.raters)
    # a field given beside a Source overrides it
    ordinal = accord.agreement(source(str(path), **read), level="ordinal", categories=list("xyz"))
    assert ordinal.level == "ordinal"


def test_the_old_keywords_stay_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = accord.agreement(frame(), **COLUMNS, coefficients=["fleiss_kappa"])
    assert table.coefficients[0].name == "fleiss_kappa"


def test_an_export_reads_through_the_source(examples: Path) -> None:
    path = examples / "annotation-tools" / "pairwise.jsonl"
    direct = accord.read_pairwise(path, duplicates="first")
    table = accord.agreement(source(path.as_posix(), from_="pairwise", duplicates="first"))
    pd.testing.assert_frame_equal(numbers(table), numbers(accord.agreement(direct)))


# --- the report reads once --------------------------------------------------------------


def test_report_reads_its_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import accord.io.ratings as reader

    path = tmp_path / "r.csv"
    path.write_text(
        "item,rater,label,score\n"
        + "".join(f"{i},{r},{c},{n}\n" for n, (i, r, c) in enumerate(ROWS))
    )
    calls: list[tuple[str, ...]] = []
    read_columns = reader.read_columns

    def counted(p: Any, columns: Any, **files: Any) -> Any:
        calls.append(tuple(columns))
        return read_columns(p, columns, **files)

    monkeypatch.setattr(reader, "read_columns", counted)
    page = accord.report(source(str(path), **COLUMNS, score="score", progress=False))
    assert calls == [("item", "rater", "label", "score")]
    assert "read" in page.sections and "scores" in page.sections
    # the same page as the keywords give
    again = accord.report(str(path), **COLUMNS, scores=["score"], progress=False)
    assert again.html == page.html


# --- the command line --------------------------------------------------------------------

#: The read flags of a command that reads a ratings table.
READ_FLAGS = {"--item", "--rater", "--label", "--level", "--categories", "--na-values",
              "--labels-as", "--duplicates", "--sep", "--encoding"}  # fmt: skip


def flags(command: str) -> set[str]:
    click = typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]
    return {flag for param in click.params for flag in param.opts}


#: The read flags a command's method allows: compare reads interval scores (no --level,
#: --categories or --labels-as), calibrate a panel's numeric scores, confidence scored units
#: (no raters, so no duplicates).
SCORE_FLAGS = READ_FLAGS - {"--label", "--level", "--categories", "--labels-as"}
READS = {"agree": READ_FLAGS, "consensus": READ_FLAGS, "report": READ_FLAGS,
         "judge": READ_FLAGS, "pair": READ_FLAGS, "compare": SCORE_FLAGS,
         "calibrate": SCORE_FLAGS,
         "confidence": SCORE_FLAGS - {"--item", "--rater", "--duplicates"}}  # fmt: skip


@pytest.mark.parametrize("command", sorted(READS))
def test_commands_that_read_ratings_share_the_read_flags(command: str) -> None:
    assert flags(command) >= READS[command], sorted(READS[command] - flags(command))
    # the flags the method does not allow are refused by the command line's parser
    refused = READ_FLAGS - READS[command]
    assert not refused & flags(command), sorted(refused & flags(command))


def test_confidence_and_calibrate_read_missing_values_as_told(tmp_path: Path) -> None:
    """``--na-values ''``: only empty cells are missing, so a group named NA is a group."""
    units = tmp_path / "units.csv"
    units.write_text("ok,p,g\n1,0.9,NA\n0,0.2,NA\n1,0.6,b\n0,0.3,b\n")
    args = ["confidence", str(units), "--correct", "ok", "--confidence", "p", "--group", "g"]
    default = CliRunner().invoke(app, [*args, "--format", "json"])
    assert default.exit_code == 2 and "column 'g': missing value at rows 1, 2" in default.output
    res = CliRunner().invoke(app, [*args, "--na-values", "", "--format", "json"])
    assert res.exit_code == 0, res.output
    groups = cli_json(res.output)["nce"]["groups"]
    assert sorted(str(g["group"]) for g in groups) == ["NA", "b"]
    streamed = CliRunner().invoke(app, [*args, "--na-values", "", "--engine", "stream"])
    assert streamed.exit_code == 2 and "--na-values applies to --engine memory" in streamed.output
    panel = tmp_path / "panel.csv"
    panel.write_text("i,r,s\n1,a,-\n1,b,2\n2,a,3\n2,b,4\n3,a,5\n3,b,7\n")
    cal = ["calibrate", str(panel), "--item", "i", "--rater", "r", "--score", "s"]
    default = CliRunner().invoke(app, cal)
    assert default.exit_code == 2 and "column 's': '-' at row 1 is not a number" in default.output
    res = CliRunner().invoke(app, [*cal, "--na-values", "-"])
    assert res.exit_code == 0, res.output
    assert "dropped 1 (1 missing score or confidence)" in res.output


@pytest.mark.parametrize("command", ["agree", "consensus", "report", "judge"])
def test_commands_that_read_ratings_read_annotation_tool_exports(command: str) -> None:
    assert {"--from", "--field"} <= flags(command)


def test_judge_reads_an_annotation_tool_export() -> None:
    export = "examples/annotation-tools/pairwise.jsonl"
    args = ["judge", export, "--from", "pairwise", "--duplicates", "first", "--judge",
            "gpt-4-pair", "--epsilon", "0.2", "--min-items-per-rater", "1",
            "--format", "json"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    expected = accord.alt_test(
        accord.read_pairwise(export, duplicates="first"),
        "gpt-4-pair",
        epsilon=0.2,
        min_items_per_rater=1,
    )
    out = cli_json(res.output)
    assert out["report"]["ratings"] == 8 and out["report"]["raters"] == 3
    assert out["winning_rate"] == expected.winning_rate
    refused = CliRunner().invoke(app, [*args[:4], "--item", "x", *args[4:]])
    assert refused.exit_code == 2
    assert "--item: an annotation-tool export (--from) has no columns" in refused.output


def test_pair_refuses_read_flags_with_a_table_of_counts() -> None:
    res = CliRunner().invoke(
        app, ["pair", "--table", "examples/birads-table.csv", "--na-values", "NA"]
    )
    assert res.exit_code == 2
    assert "--na-values" in res.output and "apply to a ratings file only" in res.output


# --- the other front doors --------------------------------------------------------------


def test_calibrate_panel_takes_a_source(examples: Path) -> None:
    panel = pd.read_csv(examples / "panel.csv")
    columns = {"item": "proposal", "rater": "reviewer", "score": "score"}
    by_keywords = accord.calibrate_panel(panel, **columns, confidence="confidence")
    by_source = accord.calibrate_panel(source(panel, **columns), confidence="confidence")
    pd.testing.assert_frame_equal(by_source.values, by_keywords.values)
    pd.testing.assert_frame_equal(by_source.biases, by_keywords.biases)
    with pytest.raises(InvalidInputError, match="does not read a source's level=") as caught:
        accord.calibrate_panel(source(panel, **columns, level="ordinal"))
    assert "\n" not in str(caught.value)
    with pytest.raises(InvalidInputError, match="encoding= applies to a file"):
        accord.calibrate_panel(source(panel, **columns, encoding="latin-1"))


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_confidence_front_doors_take_a_source(examples: Path, engine: str) -> None:
    path = str(examples / "sclite-test3b-words.csv")
    src = source(path, correct="correct", confidence="confidence", engine=engine)
    columns = ("correct", "confidence")
    expected = accord.normalized_cross_entropy(
        *columns, groups="speaker", source=path, engine=engine
    )
    got = accord.normalized_cross_entropy(src, groups="speaker")
    assert got.statistic == expected.statistic
    pd.testing.assert_frame_equal(got.groups, expected.groups)
    metrics = accord.calibration_metrics(src, bins=7)
    assert metrics == accord.calibration_metrics(*columns, bins=7, source=path, engine=engine)
