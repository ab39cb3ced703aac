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
from typing import Any, Literal, TypeAlias

from .._errors import DuplicateRatingError, InvalidInputError, option, require, shown
from .._types import Duplicates, Level, Missing
from ..data.ratings import Ratings
from .files import check_file, reading, sniff_csv, sniff_text

__all__ = [
    "EXPORT_TOOLS",
    "AnswerTable",
    "ExportTool",
    "Record",
    "export_records",
    "export_tool",
]

ExportTool: TypeAlias = Literal["label-studio", "prodigy", "argilla", "pairwise"]
"""The annotation tools (and judgment logs) whose exports accord reads."""

EXPORT_TOOLS: tuple[ExportTool, ...] = ("label-studio", "prodigy", "argilla", "pairwise")


@dataclasses.dataclass(frozen=True, slots=True)
class Record:
    """One record of an export and where it is: ``line 3`` (JSON Lines), ``record 3``
    (a JSON array) or ``row 3`` (Parquet, CSV), counted from 1."""

    where: str
    value: Any


def _kind(path: Path) -> Literal["json", "jsonl", "parquet", "csv"]:
    """The container of an export, told by the name's suffix (a compression suffix is
    looked through) and, for ``.json``, by its first character: ``[`` is one JSON array,
    ``{`` a record a line."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".zst", ".xz"):
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
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
        yield from (Record(f"row {i}", row) for i, row in enumerate(rows, start=1))
        return
    if kind == "csv":
        yield from _csv_records(p)
        return
    sniff = sniff_text(p, what=what + " JSON")
    with reading(p, "JSON", sniff), sniff.open() as raw:
        text = raw.read().decode(sniff.encoding).lstrip("\ufeff")
    if kind == "json":
        try:
            values = json.loads(text)
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
            yield _checked(p, Record(f"record {i}", value), what)
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{p}, line {number}: not valid JSON ({exc.msg})") from None
        yield _checked(p, Record(f"line {number}", value), what)


def _csv_records(p: Path) -> Iterator[Record]:
    """The rows of a CSV file as records of text (empty cells are None)."""
    from .files import read_csv_columns

    dialect = sniff_csv(p)
    table = read_csv_columns(dialect, list(dialect.header))
    for i, row in enumerate(table.to_pylist(), start=1):
        yield Record(f"row {i}", row)


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
            names = list(pq.read_schema(path).names)
        return dict.fromkeys(names)
    if kind == "csv":
        return dict.fromkeys(sniff_csv(path).header)
    try:
        first = next(export_records(path, what="annotation"), None)
    except InvalidInputError:
        return None
    return None if first is None else first.value


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
    return None


@dataclasses.dataclass
class AnswerTable:
    """The answers a reader gathers, one row per (item, rater): the item, the rater, the
    label (None: no answer; a list: several choices), and what was skipped and why."""

    item: list[Any] = dataclasses.field(default_factory=list)
    rater: list[Any] = dataclasses.field(default_factory=list)
    label: list[Any] = dataclasses.field(default_factory=list)
    skipped: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)

    def add(self, item: Any, rater: Any, label: Any) -> None:
        """One more answer."""
        self.item.append(item)
        self.rater.append(rater)
        self.label.append(label)

    def skip(self, reason: str) -> None:
        """One more answer left out, for ``reason``."""
        self.skipped[reason] += 1

    def ratings(
        self,
        columns: tuple[str, str, str],
        *,
        source: str,
        multi_label: bool | None,
        level: Level,
        categories: Sequence[Any] | None,
        missing: Missing,
        duplicates: Duplicates,
    ) -> Ratings:
        """The answers as :class:`Ratings`, the skipped answers counted in the report
        (``rows`` counts every answer seen, skipped ones included).

        ``multi_label``: True reads each answer as a set of labels; None does when some
        answer chose several labels; False raises then."""
        import pandas as pd

        several = [i for i, x in enumerate(self.label) if isinstance(x, list) and len(x) > 1]
        if multi_label is False and several:
            first = several[0]
            raise InvalidInputError(
                f"{source}: {len(several)} answers choose several labels (first: item "
                f"{shown(self.item[first])!r}, rater {shown(self.rater[first])!r}: "
                f"{self.label[first]!r}); pass {option('multi_label', True)} to read sets "
                "of labels"
            )
        multi_label = bool(several) if multi_label is None else multi_label

        if not self.item:
            skipped = "; ".join(f"{n} {why}" for why, n in self.skipped.items())
            raise InvalidInputError(
                f"{source}: no answers to read" + (f" (skipped: {skipped})" if skipped else "")
            )
        item, rater, label = columns
        labels = (
            [[x] if x is not None and not isinstance(x, list) else x for x in self.label]
            if multi_label
            else [_single(x) for x in self.label]
        )
        frame = pd.DataFrame(
            {item: self.item, rater: self.rater, label: pd.Series(labels, dtype=object)}
        )
        resolved: dict[str, int] = {}
        if multi_label:
            ratings, resolved = _multi_label_ratings(
                frame, columns, categories=categories, missing=missing, duplicates=duplicates
            )
        else:
            ratings = Ratings.from_long(
                frame,
                item=item,
                rater=rater,
                label=label,
                level=level,
                categories=categories,
                missing=missing,
                duplicates=duplicates,
                na_values=[],
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


def _multi_label_ratings(
    frame: Any,
    columns: tuple[str, str, str],
    *,
    categories: Sequence[Any] | None,
    missing: Missing,
    duplicates: Duplicates,
) -> tuple[Ratings, dict[str, int]]:
    """Set-valued ratings: each label a list of the choices made (``[]``: the empty set,
    None: no answer). An (item, rater) answered twice is raised, or one answer kept, as
    ``duplicates`` says (the set reader would otherwise join the two answers)."""
    item, rater, label = columns
    keys = list(zip(frame[item], frame[rater], strict=True))
    rows: dict[Any, list[int]] = {}
    for i, key in enumerate(keys):
        rows.setdefault(key, []).append(i)
    repeated = {k: v for k, v in rows.items() if len(v) > 1}
    resolved: dict[str, int] = {}
    if repeated:
        if duplicates not in ("first", "last"):
            (i, r), at = next(iter(repeated.items()))
            raise DuplicateRatingError(
                f"{len(repeated)} (item, rater) pairs answered more than once (first: "
                f"({shown(i)!r}, {shown(r)!r}), answers {', '.join(str(n + 1) for n in at)}). "
                f"Pass {option('duplicates', 'first', 'last')} to keep one"
            )
        pick = 0 if duplicates == "first" else -1
        keep = sorted(v[pick] for v in rows.values())
        resolved[f"duplicate (item, rater): kept the {duplicates}"] = len(frame) - len(keep)
        frame = frame.iloc[keep]
    ratings = Ratings.from_long(
        frame,
        item=item,
        rater=rater,
        label=label,
        categories=categories,
        missing=missing,
        na_values=[],
        multi_label=True,
    )
    return ratings, resolved
