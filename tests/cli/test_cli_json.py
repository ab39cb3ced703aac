"""``--format json``: one envelope for every command, described by the JSON Schema shipped in
the package (``accord/cli/output.schema.json``), and every command's output valid against it.

jsonschema is not a dependency, so :func:`check` is a small validator of the keywords the
schema uses (type, const, enum, required, properties, additionalProperties, items, minimum,
anyOf, allOf, if/then, $ref); its own test below shows it refuses what it should.
"""

from __future__ import annotations

import json
import math
import shlex
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

import accord
from accord.cli import app

runner = CliRunner()
CLICK = typer.main.get_command(app)
SCHEMA = json.loads(resources.files("accord.cli").joinpath("output.schema.json").read_text())

_TYPES: dict[str, Any] = {
    "object": dict, "array": list, "string": str, "boolean": bool, "null": type(None),
    "integer": int, "number": (int, float),
}  # fmt: skip


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[kind])


def _ref(ref: str) -> dict[str, Any]:
    node: Any = SCHEMA
    for token in ref.removeprefix("#/").split("/"):
        node = node[token]
    return node  # type: ignore[no-any-return]


def errors(value: Any, schema: dict[str, Any], at: str = "") -> list[str]:
    """The places where ``value`` breaks ``schema`` (empty: valid)."""
    if "$ref" in schema:
        return errors(value, _ref(schema["$ref"]), at)
    out: list[str] = []
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is(value, k) for k in kinds):
            return [f"{at or '/'}: {type(value).__name__} is not {kinds}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{at}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{at}: {value!r} not in {schema['enum']}")
    if "minimum" in schema and isinstance(value, int | float) and value < schema["minimum"]:
        out.append(f"{at}: {value} < {schema['minimum']}")
    if isinstance(value, dict):
        out += [f"{at}: no {k!r}" for k in schema.get("required", ()) if k not in value]
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                out += errors(item, props[key], f"{at}/{key}")
            elif extra is False:
                out.append(f"{at}: unexpected {key!r}")
            elif isinstance(extra, dict):
                out += errors(item, extra, f"{at}/{key}")
    if isinstance(value, list) and "items" in schema:
        for k, item in enumerate(value):
            out += errors(item, schema["items"], f"{at}/{k}")
    if "anyOf" in schema and all(errors(value, s, at) for s in schema["anyOf"]):
        out.append(f"{at}: matches none of anyOf")
    if "not" in schema and not errors(value, schema["not"], at):
        out.append(f"{at}: matches what 'not' excludes")
    for part in schema.get("allOf", ()):
        out += errors(value, part, at)
    if "if" in schema and not errors(value, schema["if"], at):
        out += errors(value, schema.get("then", {}), at)
    return out


def test_the_checker_refuses_what_it_should() -> None:
    good = {"accord": "1", "schema": 1, "command": "agree", "options": {}, "input": None,
            "result": {"coefficients": [{"name": "k", "statistic": 0.5}]},
            "non_finite": {}}  # fmt: skip
    assert errors(good, SCHEMA) == []
    assert errors({**good, "schema": 2}, SCHEMA)
    assert errors({**good, "extra": 1}, SCHEMA)
    assert errors({**good, "result": {}}, SCHEMA)  # agree without coefficients
    assert errors({**good, "input": {"rows": 1.5}}, SCHEMA)
    bad_count = {"rows": 3, "ratings": -1, "items": 1, "raters": 1, "missing": 0, "dropped": 0,
                 "reasons": {}}  # fmt: skip
    assert errors({**good, "input": bad_count}, SCHEMA)
    assert errors({**good, "non_finite": {"/result/x": "NaN"}}, SCHEMA)
    # the mode's own result: a D-study plan must hold the G-study, another plan its sample size
    plan = {**good, "command": "plan", "options": {"coefficient": "g_theory"}, "result": {}}
    assert any("g_study" in e for e in errors(plan, SCHEMA))
    plan = {**plan, "options": {"coefficient": "kappa"}}
    assert any("n_items" in e for e in errors(plan, SCHEMA))
    assert errors(1, {"not": {"type": "integer"}}) and not errors("a", {"not": {"type": "integer"}})


def _examples() -> list[tuple[str, list[str]]]:
    """Every ``--help`` example of every command with ``--format``, as ``--format json``
    (files it would write left out)."""
    out = []
    for name, command in CLICK.commands.items():  # type: ignore[attr-defined]
        flags = {flag for param in command.params for flag in param.opts}
        if "--format" not in flags:
            continue
        text = (command.epilog or "").split("\b")[-1].replace("\\\n", " ")
        for line in filter(None, (line.strip() for line in text.splitlines())):
            words, args, skip = shlex.split(line)[1:], [], False
            for word in words:
                if skip or word in ("-o", "--output", "--output-dir", "--biases", "--format", "-f"):
                    skip = not skip
                    continue
                args.append(word)
            out.append((name, [*args, "--format", "json"]))
    return out


EXAMPLES = _examples()


def test_every_command_with_a_format_has_examples() -> None:
    names = {name for name, _ in EXAMPLES}
    assert {"agree", "pair", "judge", "compare", "consensus", "calibrate", "confidence", "spans",
            "plan"} <= names  # fmt: skip


def _walk(value: Any, at: str = "") -> Any:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, f"{at}/{k}")
    elif isinstance(value, list):
        for k, v in enumerate(value):
            yield from _walk(v, f"{at}/{k}")
    else:
        yield at, value


@pytest.mark.parametrize(("name", "args"), EXAMPLES, ids=[" ".join(a) for _, a in EXAMPLES])
def test_every_commands_json_is_valid_against_the_schema(name: str, args: list[str]) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)  # strict: no NaN or Infinity tokens
    assert errors(out, SCHEMA) == []
    assert out["command"] == name and out["accord"] == accord.__version__
    assert out["options"]["fmt"] == "json"
    for at, value in _walk(out):
        assert not (isinstance(value, str) and value in ("Infinity", "-Infinity", "NaN")) or (
            at.startswith("/non_finite")
        ), at
        last = at.rsplit("/", 1)[-1]
        if last in ("n", "n_items", "n_raters", "rows", "ratings", "items", "raters"):
            assert not isinstance(value, float), f"{at} is a float count: {value}"


def test_an_infinity_is_null_and_named(examples: Path) -> None:
    """A coefficient's population size is infinite by default: null in the result, and its
    pointer in non_finite (it was the string "Infinity" before)."""
    args = ["agree", str(examples / "diagnoses.csv"), "--item", "patient", "--rater", "rater",
            "--label", "diagnosis", "--coefficients", "fleiss_kappa",
            "--format", "json"]  # fmt: skip
    out = json.loads(runner.invoke(app, args).stdout)
    row = out["result"]["coefficients"][0]
    assert row["population_size"] is None
    assert out["non_finite"]["/result/coefficients/0/population_size"] == "Infinity"
    table = accord.agreement(
        str(examples / "diagnoses.csv"), item="patient", rater="rater", label="diagnosis"
    )
    fleiss = next(c for c in table.coefficients if c.name == "fleiss_kappa")
    assert math.isclose(row["statistic"], fleiss.statistic)  # the same number as in Python
    assert out["input"]["items"] == 30 and out["input"]["raters"] == 6  # Fleiss (1971)


def test_the_read_report_is_the_input_of_the_envelope(examples: Path) -> None:
    args = ["compare", str(examples / "pefr.csv"), "--item", "subject", "--rater", "meter",
            "--score", "pefr", "--format", "json"]  # fmt: skip
    out = json.loads(runner.invoke(app, args).stdout)
    assert "report" not in out["result"]
    # Bland & Altman (1986): 17 subjects, 2 meters
    assert (out["input"]["items"], out["input"]["raters"], out["input"]["ratings"]) == (17, 2, 34)


def test_the_envelope_is_strict_json_whatever_the_options_hold() -> None:
    from accord.cli._app import COMMAND_OPTIONS
    from accord.cli._common import json_envelope

    class Odd:
        def __str__(self) -> str:
            return "odd"

    token = COMMAND_OPTIONS.set({"path": Path("r.csv"), "limit": float("nan"),
                                 "high": float("inf"), "thing": Odd(), "n": 3.0})  # fmt: skip
    try:
        text = json.dumps(json_envelope({"n_items": 4.0, "x": float("nan")}), allow_nan=False)
    finally:
        COMMAND_OPTIONS.reset(token)
    out = json.loads(text)
    assert out["options"] == {"path": "r.csv", "limit": None, "high": None, "thing": "odd",
                              "n": 3}  # fmt: skip
    assert out["result"] == {"n_items": 4, "x": None}
    assert out["non_finite"] == {"/options/high": "Infinity"}
