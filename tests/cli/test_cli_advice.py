"""Advice a user can follow: every option a message suggests exists on the surface the user
is on, in its dialect, and following it works.

A corpus of bad inputs is run through every command (in process, typer's CliRunner). Every
``--flag`` a message names must be an option of that command, no message may give a Python
keyword (``duplicates='first'``), and re-running with the advised option (the first value
given) must succeed or fail with another error. The same inputs given to the library in
Python must name keywords of the function called, never a ``--flag``.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

import accord
from accord.cli import app

from .._cli import cli_json

runner = CliRunner()
CLICK = typer.main.get_command(app)

#: A ``--flag`` named in a message, and the value after it (quoted as a shell takes it).
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)(?:\s+('[^']*'|[^\s;,()'\"]+))?")
#: A Python keyword given a value in a message (``duplicates='first'``, ``multi_label=True``).
KEYWORD = re.compile(r"(?<![\w.-])([a-z][a-z_]*)=(?:'|\"|True\b|False\b|None\b|\[|\d|$|\s|,)")
#: Words that ask the user to do something with the option that follows.
ADVICE = re.compile(r"\b(?:pass|use|try|give|set|or)\s+$")


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


LABELS = "item,rater,label\n1,a,x\n1,a,y\n1,b,x\n2,a,y\n2,b,y\n3,a,x\n3,b,y\n"
SCORES = "item,rater,score\n1,a,1.0\n1,a,2.0\n1,b,1.5\n2,a,3.0\n2,b,3.1\n3,a,4.0\n3,b,4.2\n"
UNITS = "item,rater,score\n1,a,12 mm\n1,b,13 mm\n2,a,14 mm\n2,b,15 mm\n"
THOUSANDS = 'item,rater,score\n1,a,"1,100"\n1,b,"1,200"\n2,a,"1,300"\n2,b,"1,250"\n'
SEMICOLONS = "item;rater;label\n1;a;x\n1;b;x\n2;a;y\n2;b;x\n"
LATIN1 = "item,rater,label\n1,a,café\n1,b,thé\n2,a,café\n2,b,café\n".encode("latin-1")
CONFIDENCE = "ok,conf\n1,0.9\n0,1.4\n1,0.2\n0,0.5\n"
MISSING = "item,rater,label\n1,a,x\n1,b,\n2,a,y\n2,b,y\n"
SPANS = "document,annotator,start,end,label\nd1,a,0,4,X\nd1,b,2,3,Y\nd1,a,1,2,X\n"


def label_studio_twice() -> str:
    """An export in which annotator 7 answered task 1 twice (and drew a relation)."""
    relation = {"from_id": "r1", "to_id": "r2", "type": "relation", "direction": "right"}

    def answer(who: int, choice: str) -> dict[str, Any]:
        result = {"from_name": "sentiment", "to_name": "text", "type": "choices",
                  "value": {"choices": [choice]}}  # fmt: skip
        return {"completed_by": who, "result": [result, relation]}

    tasks = [
        {"id": 1, "data": {}, "annotations": [answer(7, "a"), answer(7, "b"), answer(9, "a")]},
        {"id": 2, "data": {}, "annotations": [answer(7, "b"), answer(9, "b")]},
    ]
    return json.dumps(tasks)


#: Each case: a name, the files it needs (name -> content) and the command line
#: (``{name}`` is the path of a file).
CASES: list[tuple[str, dict[str, str | bytes], list[str]]] = [
    ("agree duplicates", {"r.csv": LABELS},
     ["agree", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label"]),
    ("agree stream duplicates", {"r.csv": LABELS},
     ["agree", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label",
      "--engine", "stream"]),
    ("agree stream duplicates mean", {"r.csv": LABELS},
     ["agree", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label",
      "--engine", "stream", "--duplicates", "mean"]),
    ("agree semicolons", {"r.csv": SEMICOLONS},
     ["agree", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label"]),
    ("agree stream semicolons", {"r.csv": SEMICOLONS},
     ["agree", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label",
      "--engine", "stream"]),
    ("agree latin-1", {"r.csv": LATIN1},
     ["agree", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label"]),
    ("agree text at interval level", {"r.csv": UNITS},
     ["agree", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "score",
      "--level", "interval"]),
    ("agree spreadsheet", {"r.xlsx": b"PK\x03\x04workbook"},
     ["agree", "{r.xlsx}", "--item", "item", "--rater", "rater", "--label", "label"]),
    ("agree unknown suffix", {"r.dat": LABELS},
     ["agree", "{r.dat}", "--item", "item", "--rater", "rater", "--label", "label"]),
    ("agree export answered twice", {"ls.json": label_studio_twice()},
     ["agree", "{ls.json}", "--from", "label-studio"]),
    ("agree no columns", {"r.csv": LABELS}, ["agree", "{r.csv}"]),
    ("agree text at ordinal level", {"r.csv": SEMICOLONS},
     ["agree", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label", "--sep",
      ";", "--level", "ordinal"]),
    ("agree stream bootstrap", {"r.csv": SEMICOLONS},
     ["agree", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label", "--sep",
      ";", "--engine", "stream", "--ci", "bootstrap", "--coefficients", "conger_kappa"]),
    ("consensus stream ordinal", {"r.csv": SEMICOLONS},
     ["consensus", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label",
      "--sep", ";", "--engine", "stream", "--ordinal"]),
    ("consensus stream missing", {"r.csv": MISSING},
     ["consensus", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label",
      "--engine", "stream", "--missing", "category"]),
    ("agree mean of text", {"r.csv": LABELS},
     ["agree", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label",
      "--duplicates", "mean"]),
    ("pair duplicates", {"r.csv": LABELS},
     ["pair", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label"]),
    ("pair semicolons", {"r.csv": SEMICOLONS},
     ["pair", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label"]),
    ("judge duplicates", {"r.csv": LABELS},
     ["judge", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label",
      "--judge", "a", "--epsilon", "0.1"]),
    ("compare duplicates", {"m.csv": SCORES},
     ["compare", "{m.csv}", "--item", "item", "--rater", "rater", "--score", "score"]),
    ("compare units", {"m.csv": UNITS},
     ["compare", "{m.csv}", "--item", "item", "--rater", "rater", "--score", "score"]),
    ("compare thousands", {"m.csv": THOUSANDS},
     ["compare", "{m.csv}", "--item", "item", "--rater", "rater", "--score", "score"]),
    ("compare semicolons", {"m.csv": SEMICOLONS},
     ["compare", "{m.csv}", "--item", "item", "--rater", "rater", "--score", "label"]),
    ("compare spreadsheet", {"m.xlsx": b"PK\x03\x04workbook"},
     ["compare", "{m.xlsx}", "--item", "item", "--rater", "rater", "--score", "score"]),
    ("consensus duplicates", {"r.csv": LABELS},
     ["consensus", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label"]),
    ("consensus stream duplicates", {"r.csv": LABELS},
     ["consensus", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label",
      "--engine", "stream"]),
    ("calibrate duplicates", {"s.csv": SCORES},
     ["calibrate", "{s.csv}", "--item", "item", "--rater", "rater", "--score", "score"]),
    ("calibrate stream duplicates", {"s.csv": SCORES},
     ["calibrate", "{s.csv}", "--item", "item", "--rater", "rater", "--score", "score",
      "--engine", "stream"]),
    ("calibrate text scores", {"s.csv": UNITS},
     ["calibrate", "{s.csv}", "--item", "item", "--rater", "rater", "--score", "score"]),
    ("calibrate semicolons", {"s.csv": SEMICOLONS},
     ["calibrate", "{s.csv}", "--item", "item", "--rater", "rater", "--score", "label"]),
    ("calibrate stream semicolons", {"s.csv": SEMICOLONS},
     ["calibrate", "{s.csv}", "--item", "item", "--rater", "rater", "--score", "label",
      "--engine", "stream"]),
    ("calibrate latin-1", {"s.csv": LATIN1},
     ["calibrate", "{s.csv}", "--item", "item", "--rater", "rater", "--score", "label"]),
    ("compare latin-1", {"m.csv": LATIN1},
     ["compare", "{m.csv}", "--item", "item", "--rater", "rater", "--score", "label"]),
    ("confidence latin-1", {"c.csv": LATIN1},
     ["confidence", "{c.csv}", "--correct", "rater", "--confidence", "label"]),
    ("confidence out of range", {"c.csv": CONFIDENCE},
     ["confidence", "{c.csv}", "--correct", "ok", "--confidence", "conf"]),
    ("confidence semicolons", {"c.csv": SEMICOLONS},
     ["confidence", "{c.csv}", "--correct", "rater", "--confidence", "label"]),
    ("spans unknown suffix", {"s.dat": SPANS},
     ["spans", "{s.dat}", "-i", "table"]),
    ("report duplicates", {"r.csv": LABELS},
     ["report", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label", "-q",
      "-o", "{out.html}"]),
    ("report stream duplicates", {"r.csv": LABELS},
     ["report", "{r.csv}", "--item", "item", "--rater", "rater", "--label", "label", "-q",
      "--engine", "stream", "-o", "{out.html}"]),
    ("plan prevalence", {},
     ["plan", "--coefficient", "kappa", "--rho", "0.6", "--width", "0.3", "--prevalence", "1.3"]),
    ("demo into a file", {"taken": "a file"}, ["demo", "--examples-dir", "{taken}"]),
]  # fmt: skip


def materialise(folder: Path, files: dict[str, str | bytes], args: list[str]) -> list[str]:
    paths = {name: str(write(folder, name, text)) for name, text in files.items()}
    paths["out.html"] = str(folder / "out.html")
    return [re.sub(r"\{([^}]+)\}", lambda m: paths[m.group(1)], a) for a in args]


def run(args: list[str]) -> tuple[int, str]:
    result = runner.invoke(app, args)
    exc = result.exception
    assert exc is None or isinstance(exc, SystemExit), (
        f"accord {' '.join(args)} raised {type(exc).__name__}: {exc}"
    )
    return result.exit_code, result.stderr


def messages(stderr: str) -> list[str]:
    """The error and warning lines, without their ``accord: error:`` prefix."""
    return [
        line.split(": ", 2)[2]
        for line in stderr.splitlines()
        if line.startswith(("accord: error: ", "accord: warning: "))
    ]


def python_keywords(message: str) -> list[str]:
    """Keywords given a value in ``message``; text the user wrote (quoted, not after ``=``)
    is looked past."""
    unquoted = re.sub(r"(?<!=)'[^']*'", "''", message)
    return KEYWORD.findall(unquoted)


def advised(message: str) -> list[tuple[str, str | None]]:
    """The options ``message`` asks for (after pass, use, try, ...), with the first value."""
    found = []
    for match in FLAG.finditer(message):
        if ADVICE.search(message[: match.start()]):
            value = match.group(2)
            found.append((match.group(1), None if value is None else value.strip("'")))
    return found


def options_of(command: str) -> dict[str, Any]:
    """The command's options by every name they have."""
    return {
        opt: param
        for param in CLICK.commands[command].params  # type: ignore[attr-defined]
        for opt in param.opts
        if param.param_type_name == "option"
    }


def follow(args: list[str], flag: str, value: str | None, command: str) -> list[str]:
    """``args`` with ``flag value`` set (a switch: the flag alone)."""
    param = options_of(command)[flag]
    out = list(args)
    for name in param.opts:
        while name in out:
            at = out.index(name)
            del out[at : at + (1 if param.is_flag else 2)]
    if param.is_flag:
        return [*out, flag]
    value = "\t" if value == "\\t" else value
    return [*out, flag, "" if value is None else value]


@pytest.mark.slow
@pytest.mark.parametrize(("case", "files", "args"), CASES, ids=[c[0] for c in CASES])
def test_every_option_advised_exists_and_following_it_works(
    tmp_path: Path, case: str, files: dict[str, str | bytes], args: list[str]
) -> None:
    argv = materialise(tmp_path, files, args)
    command = argv[0]
    code, stderr = run(argv)
    said = messages(stderr)
    assert said, f"{case}: accord {' '.join(argv)} said nothing (exit {code})"
    flags = options_of(command)
    for message in said:
        assert not python_keywords(message), f"{case}: a Python keyword on the CLI: {message}"
        for match in FLAG.finditer(message):
            assert match.group(1) in flags, f"{case}: accord {command} has no {match.group(1)}"
        for flag, value in advised(message):
            again = follow(argv, flag, value, command)
            code2, stderr2 = run(again)
            after = messages(stderr2)
            assert code2 == 0 or message not in after, (
                f"{case}: following {flag} {value or ''} gives the same error: {message}"
            )


def test_the_property_sees_the_advice_it_checks() -> None:
    message = (
        "1 (item, rater) pairs are rated more than once: (1, 'a') at rows 1, 2. Pass "
        "duplicates='first' or 'last' or 'mean' (mean: interval/ratio) to resolve"
    )
    assert python_keywords(message) == ["duplicates"]
    assert python_keywords("the header is one column ('sep=;')") == []
    assert advised("not ',': pass --sep ';'") == [("--sep", ";")]
    assert advised("--gold applies to --engine memory") == []
    assert advised("try --encoding latin-1 or cp1252") == [("--encoding", "latin-1")]


# ------------------------------------------------------------------------ the Python surface
#: Each case: the files, the call (given the paths) and the function whose keywords the
#: advice must name.
PY_CASES: list[tuple[str, dict[str, str | bytes], Callable[[dict[str, Path]], Any], Any]] = [
    ("read_ratings duplicates", {"r.csv": LABELS},
     lambda p: accord.read_ratings(p["r.csv"], item="item", rater="rater", label="label"),
     accord.read_ratings),
    ("agreement stream duplicates", {"r.csv": LABELS},
     lambda p: accord.agreement(str(p["r.csv"]), item="item", rater="rater", label="label",
                                engine="stream"),
     accord.agreement),
    ("consensus stream duplicates", {"r.csv": LABELS},
     lambda p: accord.consensus(str(p["r.csv"]), item="item", rater="rater", label="label",
                                engine="stream"),
     accord.consensus),
    ("read_ratings semicolons", {"r.csv": SEMICOLONS},
     lambda p: accord.read_ratings(p["r.csv"], item="item", rater="rater", label="label"),
     accord.read_ratings),
    ("read_ratings spreadsheet", {"r.xlsx": b"PK\x03\x04"},
     lambda p: accord.read_ratings(p["r.xlsx"], item="item", rater="rater", label="label"),
     accord.read_ratings),
    ("read_ratings unknown suffix", {"r.dat": LABELS},
     lambda p: accord.read_ratings(p["r.dat"], item="item", rater="rater", label="label"),
     accord.read_ratings),
    ("read_ratings latin-1", {"r.csv": LATIN1},
     lambda p: accord.read_ratings(p["r.csv"], item="item", rater="rater", label="label"),
     accord.read_ratings),
    ("read_ratings units", {"r.csv": UNITS},
     lambda p: accord.read_ratings(p["r.csv"], item="item", rater="rater", label="score",
                                   level="interval"),
     accord.read_ratings),
]  # fmt: skip


@pytest.mark.parametrize(("case", "files", "call", "function"), PY_CASES,
                         ids=[c[0] for c in PY_CASES])  # fmt: skip
def test_python_advice_names_keywords_of_the_function(
    tmp_path: Path, case: str, files: dict[str, str | bytes], call: Any, function: Any
) -> None:
    paths = {name: write(tmp_path, name, text) for name, text in files.items()}
    with pytest.raises(accord.InvalidInputError) as caught:
        call(paths)
    message = str(caught.value)
    assert not FLAG.search(message), f"{case}: a command-line flag in Python: {message}"
    parameters = inspect.signature(function).parameters
    keywords = set(parameters)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        # the front door's **read_options: the fields of accord.Source
        keywords |= {f.name for f in dataclasses.fields(accord.Source)}
    for keyword in python_keywords(message):
        assert keyword in keywords, f"{case}: {function.__name__} has no {keyword}="


# ------------------------------------------------------------------ each case of the issue
def test_compare_takes_the_duplicates_it_advises(tmp_path: Path) -> None:
    path = write(tmp_path, "m.csv", SCORES)
    args = ["compare", str(path), "--item", "item", "--rater", "rater", "--score", "score"]
    code, stderr = run(args)
    assert code == 2 and "--duplicates first or last or mean" in stderr
    assert "duplicates=" not in stderr
    result = runner.invoke(app, [*args, "--duplicates", "mean", "--format", "json"])
    assert result.exit_code == 0, result.stderr
    limits = cli_json(result.stdout)["pairs"][0]["bland_altman"]
    # By hand: item 1 of rater a averages 1.0 and 2.0 to 1.5; the differences a - b are
    # 1.5 - 1.5, 3.0 - 3.1 and 4.0 - 4.2, so the bias is -0.3 / 3 = -0.1.
    assert limits["n_pairs"] == 3
    assert limits["bias"] == pytest.approx(-0.1)


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_the_stream_engine_resolves_the_duplicates_it_advises(tmp_path: Path, engine: str) -> None:
    path = write(tmp_path, "r.csv", LABELS)
    args = ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "label",
            "--engine", engine]  # fmt: skip
    code, stderr = run(args)
    assert code == 2 and "--duplicates first or last" in stderr
    result = runner.invoke(app, [*args, "--duplicates", "first", "--format", "json"])
    assert result.exit_code == 0, result.stderr
    out = cli_json(result.stdout)
    stats = {c["name"]: c["statistic"] for c in out["coefficients"]}
    # By hand, keeping rater a's first label of item 1 (x): the pairs are (x, x), (y, y),
    # (x, y); agreement 2/3; both categories have share 1/2, so chance 1/2 and Fleiss'
    # kappa (2/3 - 1/2) / (1 - 1/2) = 1/3.
    assert stats["percent_agreement"] == pytest.approx(2 / 3)
    assert stats["fleiss_kappa"] == pytest.approx(1 / 3)
    assert out["report"]["reasons"] == {"duplicate (item, rater): kept the first": 1}


def test_consensus_and_report_resolve_duplicates_with_the_stream_engine(tmp_path: Path) -> None:
    path = write(tmp_path, "r.csv", LABELS)
    columns = ["--item", "item", "--rater", "rater", "--label", "label", "--engine", "stream"]
    result = runner.invoke(
        app, ["consensus", str(path), *columns, "--duplicates", "last", "--format", "json"]
    )
    assert result.exit_code == 0, result.stderr
    # Rater a's last label of item 1 is y: the items are (y, x), (y, y), (x, y).
    assert cli_json(result.stdout)["report"]["ratings"] == 6
    page = tmp_path / "r.html"
    result = runner.invoke(
        app, ["report", str(path), *columns, "--duplicates", "first", "-q", "-o", str(page)]
    )
    assert result.exit_code == 0, result.stderr
    assert page.exists()


def test_python_stream_engine_takes_duplicates(tmp_path: Path) -> None:
    path = str(write(tmp_path, "r.csv", LABELS))
    columns = {"item": "item", "rater": "rater", "label": "label", "duplicates": "first"}
    table = accord.agreement(path, engine="stream", coefficients=["fleiss_kappa"], **columns)
    assert table.coefficients[0].statistic == pytest.approx(1 / 3)  # by hand, above
    c = accord.consensus(path, engine="stream", **columns)
    assert c.report.ratings == 6


@pytest.mark.parametrize("text", [UNITS, THOUSANDS])
def test_compare_on_text_scores_does_not_advise_a_level(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, "m.csv", text)
    code, stderr = run(["compare", str(path), "--item", "item", "--rater", "rater",
                        "--score", "score"])  # fmt: skip
    assert code == 2
    assert "level" not in stderr.split("(4 such rows")[1]
    assert "plain number" in stderr


@pytest.mark.parametrize("name", ["r.xlsx", "/dev/stdin", "/dev/null"])
def test_files_of_no_format_are_told_what_the_command_line_reads(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, name, b"PK\x03\x04") if not name.startswith("/") else Path(name)
    code, stderr = run(["agree", str(path), "--item", "item", "--rater", "rater",
                        "--label", "label"])  # fmt: skip
    assert code == 2 and len(stderr.strip().splitlines()) == 1
    assert "file_format" not in stderr
    # A spreadsheet is told to save the sheet as CSV; standard input and devices, which are
    # not regular files (accord reads a file more than once), to save the stream to a file.
    assert ("save the sheet as CSV" if name.endswith(".xlsx") else "save the stream") in stderr


EXCEL = "sep=;\nitem;rater;label\n1;a;x\n1;b;x\n2;a;y\n2;b;x\n"


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_a_spreadsheet_separator_line_is_honoured(tmp_path: Path, engine: str) -> None:
    path = write(tmp_path, "excel.csv", EXCEL)
    args = ["agree", str(path), "--item", "item", "--rater", "rater", "--label", "label"]
    result = runner.invoke(app, [*args, "--engine", engine, "--format", "json"])
    assert result.exit_code == 0, result.stderr
    out = cli_json(result.stdout)
    assert (out["report"]["ratings"], out["report"]["items"]) == (4, 2)
    # By hand: item 1 (x, x) agrees, item 2 (y, x) does not.
    stats = {c["name"]: c["statistic"] for c in out["coefficients"]}
    assert stats["percent_agreement"] == pytest.approx(0.5)


def test_a_spreadsheet_separator_line_counts_in_line_numbers(tmp_path: Path) -> None:
    path = write(tmp_path, "excel.csv", EXCEL + "3;a;x;extra\n")
    with pytest.raises(accord.InvalidInputError, match=r"line 7: an extra field"):
        accord.read_ratings(path, item="item", rater="rater", label="label")


def test_the_separator_hint_is_in_the_callers_words(tmp_path: Path) -> None:
    path = write(tmp_path, "r.csv", SEMICOLONS)
    with pytest.raises(accord.InvalidInputError, match=r"pass sep=';'$"):
        accord.read_ratings(path, item="item", rater="rater", label="label")
    code, stderr = run(["agree", str(path), "--item", "item", "--rater", "rater",
                        "--label", "label"])  # fmt: skip
    assert code == 2 and stderr.rstrip().endswith("pass --sep ';'")
