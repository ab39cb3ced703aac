"""What the readers of annotation-tool exports share: the records of an export file, the
tool an export comes from (told by its content), and the ratings built from what the
annotators answered, with what was skipped counted in the read report.

The exports are JSON (one array of records), JSON Lines (one record a line) or Parquet (one
record a row); each record is a dict. A record is named in messages the way the tool names
it (``task 12``, ``line 3``), so that a user can find it in the file.
"""

from __future__ import annotations

import collections
import dataclasses
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeAlias, TypedDict

from .._errors import DuplicateRatingError, InvalidInputError, option, require, shown
from .._types import DUPLICATE_RULES, MISSING_RULES, Duplicates, Level, Missing
from .._validate import check_choice
from ..data.encoder import LABELS_AS, LabelsAs
from ..data.ratings import Ratings
from ..data.spans import Spans
from .files import (
    JsonLineError,
    check_file,
    json_lines,
    json_value,
    plain_suffix,
    reading,
    sniff_csv,
    sniff_text,
    text_lines,
)
from .gathered import SpanColumns

__all__ = [
    "EXPORT_TOOLS",
    "AnswerTable",
    "Asked",
    "Encode",
    "EncodeOptions",
    "ExportTool",
    "Record",
    "SpanTable",
    "accord_output",
    "choose_asked",
    "export_records",
    "export_tool",
    "is_json_array",
    "question_responses",
]

ExportTool: TypeAlias = Literal["label-studio", "prodigy", "argilla", "pairwise"]
"""The annotation tools (and judgment logs) whose exports accord reads."""

EXPORT_TOOLS: tuple[ExportTool, ...] = ("label-studio", "prodigy", "argilla", "pairwise")


@dataclasses.dataclass(frozen=True, slots=True)
class Record:
    """One record of an export, where it is: ``line 3`` (JSON Lines), ``record 3`` (a JSON
    array) or ``row 3`` (Parquet, CSV), counted from 1, and the file, as the user named it.
    """

    where: str
    value: Any
    source: str

    def error(self, message: str) -> InvalidInputError:
        """The error to raise for what is wrong with this record: ``<file>, line 3: ...``.

        >>> print(Record("line 3", {}, "answers.jsonl").error("no 'answer'"))
        answers.jsonl, line 3: no 'answer'
        """
        return InvalidInputError(f"{self.source}, {self.where}: {message}")


def _kind(path: Path) -> Literal["json", "jsonl", "parquet", "csv"]:
    """The container of an export, told by the name's suffix (a compression suffix is
    looked through) and, for ``.json``, by its first character: ``[`` is one JSON array,
    ``{`` a record a line."""
    last = plain_suffix(path)
    if last in (".parquet", ".pq"):
        return "parquet"
    if last in (".csv", ".tsv"):
        return "csv"
    if last in (".jsonl", ".ndjson"):
        return "jsonl"
    if last == ".json":
        head = sniff_text(path, what="JSON").head.lstrip("\ufeff \t\r\n")
        return "json" if head.startswith("[") else "jsonl"
    raise InvalidInputError(
        f"{path}: an export is read from a .json, .jsonl, .parquet or .csv file; cannot tell "
        "the format of this one from its name"
    )


def is_json_array(path: str | Path) -> bool:
    """Whether a ``.json`` file holds one JSON array (an export), not a record a line."""
    p = check_file(path)
    return plain_suffix(p) == ".json" and _kind(p) == "json"


def export_records(path: str | Path, *, what: str) -> Iterator[Record]:
    """The records of an export file, in file order.

    Parameters
    ----------
    path : str or Path
        A ``.json`` file holding one array of records (or a record a line), a ``.jsonl``
        file, a ``.parquet`` file or a ``.csv`` file (possibly compressed).
    what : str
        The tool, for messages (``"Label Studio"``).

    Raises
    ------
    FileReadError
        A line or a file that is not JSON (naming the line), a damaged Parquet file.
    InvalidInputError
        A record that is not an object (naming it).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "export.jsonl"
    >>> _ = p.write_text('{"a": 1}\\n\\n{"a": 2}\\n')
    >>> [(r.where, r.value) for r in export_records(p, what="Prodigy")]
    [('line 1', {'a': 1}), ('line 3', {'a': 2})]
    """
    p = check_file(path)
    kind = _kind(p)
    if kind == "parquet":
        pq: Any = require("pyarrow.parquet", "parquet")
        with reading(p, "Parquet"):
            rows = pq.read_table(p).to_pylist()
        yield from (Record(f"row {i}", row, str(path)) for i, row in enumerate(rows, start=1))
        return
    if kind == "csv":
        yield from _csv_records(p, str(path))
        return
    sniff = sniff_text(p, what=what + " JSON")
    with reading(p, "JSON", sniff), sniff.open() as raw:
        text = raw.read().decode(sniff.encoding).lstrip("\ufeff")
    if kind == "json":
        try:
            values = json_value(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(
                f"{p}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
            ) from None
        if not isinstance(values, list):
            raise InvalidInputError(
                f"{p}: a {what} JSON export is an array of records ([...]), got "
                f"{type(values).__name__}"
            )
        for i, value in enumerate(values, start=1):
            yield _checked(p, Record(f"record {i}", value, str(path)), what)
        return
    try:
        for number, value in json_lines(text_lines(text)):
            yield _checked(p, Record(f"line {number}", value, str(path)), what)
    except JsonLineError as exc:
        raise InvalidInputError(
            f"{p}, line {exc.number}: not valid JSON ({exc.error.msg})"
        ) from None


def _csv_records(p: Path, source: str) -> Iterator[Record]:
    """The rows of a CSV file as records of text (empty cells are None)."""
    from .files import read_csv_columns

    dialect = sniff_csv(p)
    table = read_csv_columns(dialect, list(dialect.header))
    for i, row in enumerate(table.to_pylist(), start=1):
        yield Record(f"row {i}", row, source)


def _checked(p: Path, record: Record, what: str) -> Record:
    if not isinstance(record.value, dict):
        raise InvalidInputError(
            f"{p}, {record.where}: each record of a {what} export is a JSON object ({{...}}), "
            f"got {type(record.value).__name__}"
        )
    return record


def _first_record(path: Path) -> Mapping[str, Any] | None:
    """The first record of an export (None when there is none or it is not an object)."""
    kind = _kind(path)
    if kind == "parquet":
        pq: Any = require("pyarrow.parquet", "parquet")
        with reading(path, "Parquet"):
            parquet = pq.ParquetFile(path)
            batch = next(parquet.iter_batches(batch_size=1), None)
        rows = [] if batch is None else batch.to_pylist()
        return rows[0] if rows else dict.fromkeys(parquet.schema_arrow.names)
    if kind == "csv":
        return dict.fromkeys(sniff_csv(path).header)
    try:
        first = next(export_records(path, what="annotation"), None)
    except InvalidInputError:
        return None
    return None if first is None else first.value


def accord_output(path: str | Path) -> str | None:
    """What ``path`` is when it is accord's own ``--format json`` output (the envelope that
    starts with its ``accord``, ``schema`` and ``command`` keys), in words, or None: such a
    file holds results, not ratings, and a reader refuses it naming the command that wrote
    it and the file that command read.

    >>> import json, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "out.json"
    >>> _ = p.write_text(json.dumps({"accord": "0.1.0", "schema": 1, "command": "agree",
    ...                              "options": {"path": "r.csv"}, "input": None}))
    >>> accord_output(p)
    'the --format json output of accord agree (accord 0.1.0), computed from r.csv'
    """
    import json
    import re

    p = Path(path)
    if p.suffix.lower() != ".json" or not p.is_file():
        return None
    with open(p, "rb") as stream:
        head = stream.read(512).decode("utf-8", errors="replace")
    if not re.match(r'\s*\{\s*"accord"\s*:\s*"[^"]*"\s*,\s*"schema"\s*:', head):
        return None
    try:
        envelope = json.loads(p.read_text(encoding="utf-8"))
    except ValueError:
        envelope = {}
    command = envelope.get("command") or "(a command)"
    read = (envelope.get("options") or {}).get("path")
    made = f"the --format json output of accord {command} (accord {envelope.get('accord', '?')})"
    return made + (f", computed from {read}" if read else "")


def export_tool(path: str | Path) -> ExportTool | None:
    """The tool an export comes from, told by its first record, or None.

    A JSON array of tasks with ``annotations`` is a Label Studio export; records with
    ``_annotator_id``, ``_session_id`` or ``_input_hash`` are Prodigy's; records with
    ``responses`` (or ``<question>.responses`` columns) are Argilla's; records with
    ``question_id``, ``model_a``, ``model_b``, ``judge`` and ``winner`` are pairwise
    judgments.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "export.jsonl"
    >>> _ = p.write_text('{"text": "hi", "_input_hash": 1, "answer": "accept"}\\n')
    >>> export_tool(p)
    'prodigy'
    """
    p = check_file(path)
    try:
        kind = _kind(p)
    except InvalidInputError:
        return None
    first = _first_record(p)
    if first is None:
        return None
    keys = set(first)
    if kind in ("json", "jsonl") and "annotations" in keys:
        return "label-studio"
    if keys & {"_annotator_id", "_session_id", "_input_hash", "_task_hash"}:
        return "prodigy"
    if {"question_id", "model_a", "model_b", "judge", "winner"} <= keys:
        return "pairwise"
    if "responses" in keys or any(k.endswith(".responses") for k in keys):
        return "argilla"
    if any(question_responses(v) is not None for v in first.values()):
        return "argilla"
    return None


def question_responses(value: Any) -> list[dict[str, Any]] | None:
    """The responses to one question in a column of an Argilla 1.x Hugging Face export, or
    None when ``value`` is not such a column.

    The column holds a list of ``{"user_id", "value", "status"}`` or, as ``datasets``
    stores a sequence of them, one ``{"user_id": [...], "value": [...], "status": [...]}``.

    >>> question_responses({"user_id": ["u1", "u2"], "value": [5, 3], "status": ["submitted",
    ...                     "discarded"]})  # doctest: +NORMALIZE_WHITESPACE
    [{'user_id': 'u1', 'value': 5, 'status': 'submitted'},
     {'user_id': 'u2', 'value': 3, 'status': 'discarded'}]
    >>> question_responses("a text field") is None
    True
    """
    if isinstance(value, dict) and {"user_id", "value"} <= set(value):
        users, values = value["user_id"], value["value"]
        if not (isinstance(users, list) and isinstance(values, list)):
            return None
        status = value.get("status") or ["submitted"] * len(values)
        if not len(users) == len(values) == len(status):
            raise InvalidInputError(
                f"user_id, value and status must be lists of one length; got {len(users)}, "
                f"{len(values)} and {len(status)}"
            )
        return [
            {"user_id": u, "value": v, "status": st}
            for u, v, st in zip(users, values, status, strict=True)
        ]
    if (
        isinstance(value, list)
        and value
        and all(isinstance(a, dict) and {"user_id", "value"} <= set(a) for a in value)
    ):
        return value
    return None


@dataclasses.dataclass(frozen=True, slots=True)
class Asked:
    """How an export names what its answers answer, for the messages of
    :func:`choose_asked`: the noun (``"question"``), the answers (``"responses"``), how a
    name with no answers is said (``"no responses to"``) and how an export with none is
    (``"no record has a response"``)."""

    noun: str
    answers: str
    absent: str
    none: str


def choose_asked(asked: Mapping[str, str], field: str | None, source: str, words: Asked) -> str:
    """The control or question to read: ``field``, or the only one the answers answer.

    ``asked`` maps each name answered to how it is listed in a message.

    Raises
    ------
    InvalidInputError
        ``field`` is not answered, nothing is, or several are and ``field`` is None (each
        listing the names there are).

    Examples
    --------
    >>> words = Asked("question", "responses", "no responses to", "no record has a response")
    >>> choose_asked({"sentiment": "'sentiment'"}, None, "a.jsonl", words)
    'sentiment'
    >>> choose_asked({"a": "'a'", "b": "'b'"}, None, "a.jsonl", words)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    accord._errors.InvalidInputError: a.jsonl: the responses answer 2 questions: 'a', 'b'; ...
    """
    listed = ", ".join(asked.values())
    if field is not None:
        if field not in asked:
            raise InvalidInputError(
                f"{source}: {words.absent} {words.noun} {field!r}; the {words.noun}s are: "
                f"{listed or 'none'}"
            )
        return field
    if not asked:
        raise InvalidInputError(f"{source}: {words.none}")
    if len(asked) > 1:
        raise InvalidInputError(
            f"{source}: the {words.answers} answer {len(asked)} {words.noun}s: {listed}; pass "
            f"{option('field', *asked)} to choose one"
        )
    return next(iter(asked))


class EncodeOptions(TypedDict, total=False):
    """The keyword arguments ``**options`` of the readers of annotation-tool exports: how
    the answers are encoded (see :func:`accord.read_label_studio` for each one's meaning
    and default; :class:`Encode` holds the defaults)."""

    categories: Sequence[Any] | None
    missing: Missing
    duplicates: Duplicates
    multi_label: bool | None
    na_values: Sequence[str] | None
    labels_as: LabelsAs


@dataclasses.dataclass(frozen=True, slots=True)
class Encode:
    """The :class:`EncodeOptions` of one reading, with the defaults of those not given.

    Examples
    --------
    >>> Encode.of("read_prodigy", {"duplicates": "first"})  # doctest: +NORMALIZE_WHITESPACE
    Encode(categories=None, missing='omit', duplicates='first', multi_label=None,
           na_values=None, labels_as='auto')
    >>> Encode.of("read_prodigy", {"field": "sentiment"})
    Traceback (most recent call last):
    ...
    TypeError: read_prodigy() got an unexpected keyword argument 'field'
    """

    categories: Sequence[Any] | None = None
    missing: Missing = "omit"
    duplicates: Duplicates = "raise"
    multi_label: bool | None = None
    na_values: Sequence[str] | None = None
    labels_as: LabelsAs = "auto"

    @classmethod
    def of(cls, owner: str, options: EncodeOptions) -> Encode:
        """The options given to ``owner``, checked by name and, but for ``categories``
        (checked by :meth:`Ratings.from_long`), by value, whether or not the export needs them.

        Raises
        ------
        TypeError
            An option ``owner`` does not take (as Python names it for a function).
        InvalidInputError
            An option's value is none of its choices.

        Examples
        --------
        >>> Encode.of("read_prodigy", {"duplicates": "frist"})
        Traceback (most recent call last):
        ...
        accord._errors.InvalidInputError: The 'duplicates' parameter of read_prodigy must be one of {'raise', 'first', 'last', 'mean'}. Got 'frist' instead.
        """  # noqa: E501
        known = {f.name for f in dataclasses.fields(cls)}
        for name in options:
            if name not in known:
                raise TypeError(f"{owner}() got an unexpected keyword argument {name!r}")
        out = cls(**options)
        check_choice("missing", out.missing, MISSING_RULES, owner)
        check_choice("duplicates", out.duplicates, DUPLICATE_RULES, owner)
        check_choice("multi_label", out.multi_label, (None, True, False), owner)
        check_choice("labels_as", out.labels_as, LABELS_AS, owner)
        return out


@dataclasses.dataclass
class _Gathered:
    """What a reader left out of what it gathers, and why: counted, never dropped unsaid."""

    skipped: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)

    def skip(self, reason: str) -> None:
        """One more answer left out, for ``reason``."""
        self.skipped[reason] += 1


@dataclasses.dataclass
class AnswerTable(_Gathered):
    """The answers a reader gathers, one row per (item, rater): the item, the rater, the
    label (None: no answer; a list: the choices made), where in the file the answer is
    (``task 12``, ``line 3``), and what was skipped and why."""

    item: list[Any] = dataclasses.field(default_factory=list)
    rater: list[Any] = dataclasses.field(default_factory=list)
    label: list[Any] = dataclasses.field(default_factory=list)
    where: list[str] = dataclasses.field(default_factory=list)

    def add(self, item: Any, rater: Any, label: Any, where: str) -> None:
        """One more answer."""
        self.item.append(item)
        self.rater.append(rater)
        self.label.append(label)
        self.where.append(where)

    def _multi(self, source: str, multi_label: bool | None) -> bool:
        """Whether to read sets of labels: ``multi_label``, or (None) when some answer chose
        several labels; False raises then."""
        several = [i for i, x in enumerate(self.label) if isinstance(x, list) and len(x) > 1]
        if multi_label is False and several:
            first = several[0]
            raise InvalidInputError(
                f"{source}, {self.where[first]}: {len(several)} answers choose several labels "
                f"(first: item {shown(self.item[first])!r}, rater "
                f"{shown(self.rater[first])!r}: {self.label[first]!r}); pass "
                f"{option('multi_label', True)} to read sets of labels"
            )
        return bool(several) if multi_label is None else multi_label

    def _one_each(self, source: str, duplicates: Duplicates) -> tuple[list[int], dict[str, int]]:
        """The answers kept when an (item, rater) answered twice: raise naming where
        (``duplicates="raise"``), or keep the first or last; and the count resolved."""
        rows: dict[tuple[Any, Any], list[int]] = {}
        for i, key in enumerate(zip(self.item, self.rater, strict=True)):
            rows.setdefault(key, []).append(i)
        repeated = [(key, at) for key, at in rows.items() if len(at) > 1]
        if not repeated:
            return list(range(len(self.item))), {}
        if duplicates not in ("first", "last"):
            shown_pairs = "; ".join(
                f"({shown(i)!r}, {shown(r)!r}) at {' and '.join(self.where[n] for n in at)}"
                for (i, r), at in repeated[:3]
            )
            raise DuplicateRatingError(
                f"{source}: {len(repeated)} (item, rater) pairs are answered more than once: "
                f"{shown_pairs}{'; ...' if len(repeated) > 3 else ''}. Pass "
                f"{option('duplicates', 'first', 'last')} to keep one"
            )
        pick = 0 if duplicates == "first" else -1
        keep = sorted(at[pick] for at in rows.values())
        return keep, {f"duplicate (item, rater): kept the {duplicates}": len(self.item) - len(keep)}

    def ratings(
        self, columns: tuple[str, str, str], *, source: str, level: Level, encode: Encode
    ) -> Ratings:
        """The answers as :class:`Ratings`, the skipped answers counted in the report
        (``rows`` counts every answer seen, skipped ones included).

        ``encode.multi_label``: True reads each answer as a set of labels (``[]``: the
        empty set); None does when some answer chose several labels; False raises then. An
        (item, rater) answered twice is raised (naming where) or resolved as
        ``encode.duplicates`` says (``"mean"``: averaged by :meth:`Ratings.from_long`).
        """
        import pandas as pd

        if not self.item:
            skipped = "; ".join(f"{n} {why}" for why, n in self.skipped.items())
            raise InvalidInputError(
                f"{source}: no answers to read" + (f" (skipped: {skipped})" if skipped else "")
            )
        multi = self._multi(source, encode.multi_label)
        duplicates = encode.duplicates
        keep, resolved = (
            (list(range(len(self.item))), {})
            if duplicates == "mean" and not multi
            else self._one_each(source, duplicates)
        )
        item, rater, label = columns
        labels = [self.label[i] for i in keep]
        frame = pd.DataFrame(
            {
                item: [self.item[i] for i in keep],
                rater: [self.rater[i] for i in keep],
                label: pd.Series(
                    [_as_set(x) for x in labels] if multi else [_single(x) for x in labels],
                    dtype=object,
                ),
            }
        )
        ratings = Ratings.from_long(
            frame,
            item=item,
            rater=rater,
            label=label,
            level=level,
            categories=encode.categories,
            missing=encode.missing,
            duplicates=duplicates if duplicates == "mean" and not multi else "raise",
            na_values=encode.na_values,
            labels_as=encode.labels_as,
            multi_label=multi,
        )
        report = ratings.report
        n_skipped = sum(self.skipped.values()) + sum(resolved.values())
        report = dataclasses.replace(
            report,
            rows=report.rows + n_skipped,
            dropped=report.dropped + n_skipped,
            reasons={**dict(self.skipped), **resolved, **dict(report.reasons)},
            source=source,
        )
        return dataclasses.replace(ratings, report=report)


def _single(label: Any) -> Any:
    """A label given as a list of one choice: the choice (no choice: None)."""
    if isinstance(label, list):
        return label[0] if len(label) == 1 else None
    return label


def _as_set(label: Any) -> Any:
    """A label as a list of labels (None, no answer, stays None)."""
    return label if label is None or isinstance(label, list) else [label]


@dataclasses.dataclass
class SpanTable(_Gathered):
    """The spans a reader gathers: who marked which stretch of which document, every
    annotator and document seen (those without spans too), the document texts where
    known, and what was skipped and why."""

    columns: SpanColumns = dataclasses.field(default_factory=SpanColumns)
    annotators: set[str] = dataclasses.field(default_factory=set)
    documents: set[str] = dataclasses.field(default_factory=set)
    texts: dict[str, str] = dataclasses.field(default_factory=dict)

    def saw(self, annotator: Any, document: Any) -> None:
        """An annotator answered on a document (with or without spans)."""
        self.annotators.add(str(annotator))
        self.documents.add(str(document))

    def add(self, annotator: Any, document: Any, start: int, end: int, label: Any) -> None:
        """One more span."""
        self.saw(annotator, document)
        self.columns.add(str(annotator), str(document), start, end, str(label))

    def spans(self, source: str) -> Spans:
        """The spans, validated (:func:`accord.data.spans.encode_spans`); what was skipped
        in ``notes``."""
        if not self.annotators:
            raise InvalidInputError(f"{source}: no answers to read")
        return self.columns.spans(
            sorted(self.annotators),
            sorted(self.documents),
            unit="character",
            source=source,
            texts=self.texts,
            notes=(f"skipped {n} {why}" for why, n in self.skipped.items()),
        )
