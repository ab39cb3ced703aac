"""Prodigy's JSON Lines annotations (``prodigy db-out``): one line per answer."""

from __future__ import annotations

import collections
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Unpack

from .._errors import InvalidInputError
from .._types import Level
from ..data.ratings import Ratings
from ..data.spans import Spans
from .exports import AnswerTable, Encode, EncodeOptions, Record, SpanTable, export_records

__all__ = ["read_prodigy"]

_ANSWERS = ("accept", "reject", "ignore")


def read_prodigy(
    path: str | Path,
    *,
    item: str | None = None,
    level: Level = "nominal",
    **options: Unpack[EncodeOptions],
) -> Ratings | Spans:
    """Read Prodigy annotations (``prodigy db-out DATASET > answers.jsonl``).

    Each line is one annotator's answer to one task: the annotator is ``_annotator_id``
    (``_session_id`` when there is none), the ``answer`` is ``accept``, ``reject`` or
    ``ignore``. What is rated depends on the interface the tasks were made for:

    - **multiple choice** (tasks with ``options``; ``choice``, ``textcat.manual``): the
      label is the chosen option id (``accept``); several chosen options are a set of
      labels (set-valued ratings, see ``multi_label``).
      The item is the input (``_input_hash``); a ``reject`` refuses the question and is
      counted as skipped;
    - **spans** (tasks with ``spans``; ``ner.manual``, ``spans.manual``): the accepted
      spans as :class:`accord.Spans`, the input as the document and its ``text`` kept for
      ``match="token"``; a ``reject`` is counted as skipped;
    - **binary** (a ``label`` to accept or reject; ``textcat.teach``, ``classification``):
      the label is the answer, ``accept`` or ``reject``, and the item is the task
      (``_task_hash``: the input and the label asked about).

    ``ignore`` answers are not ratings: they are counted as skipped.

    Parameters
    ----------
    path : str or Path
        The ``.jsonl`` file (possibly compressed).
    item : str, optional
        The key holding the item id (default ``_input_hash``, or ``_task_hash`` for binary
        tasks).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        As in :meth:`accord.Ratings.from_long`.
    **options
        ``categories``, ``missing``, ``duplicates``, ``multi_label`` (sets of labels when
        some answer chose several), ``na_values`` and ``labels_as``, as in
        :func:`accord.read_label_studio` (an answer ``N/A`` is a missing label, as in a CSV
        file).

    Returns
    -------
    Ratings or Spans
        With the skipped answers counted in ``report`` (``notes`` for spans).

    Raises
    ------
    InvalidInputError
        A line that is not JSON, a task without an annotator, an answer or the item key, an
        answer other than accept, reject and ignore, or a malformed span (each naming the
        line); tasks of different interfaces in one file.

    References
    ----------
    .. [1] Explosion. Prodigy: Annotation interfaces (the JSON task format).
       https://prodi.gy/docs/api-interfaces
    .. [2] Explosion. Prodigy: Command line interface, ``db-out``.
       https://prodi.gy/docs/recipes#db-out

    Examples
    --------
    >>> import accord
    >>> r = accord.read_prodigy(accord.datasets.path("annotation-tools") / "prodigy_choice.jsonl")
    >>> print(r.report)
    read 7 rows: 5 ratings of 3 items by 2 raters; dropped 2 (1 answer 'ignore'; 1 answer 'reject')
    """
    encode = Encode.of("read_prodigy", options)
    where = str(path)
    records = list(export_records(path, what="Prodigy"))
    kind = _kind(records, where)
    key = item if item is not None else ("_task_hash" if kind == "binary" else "_input_hash")
    if kind == "spans":
        return _spans(records, key, where)
    table = AnswerTable()
    for record in records:
        task = record.value
        answer = _answer(record)
        if answer == "ignore" or (kind == "choice" and answer == "reject"):
            table.skip(f"answer {answer!r}")
            continue
        if kind == "binary":
            label: Any = answer
        else:
            label = task.get("accept", [])
            if not isinstance(label, list):
                raise record.error(f"'accept' must be the list of chosen options, got {label!r}")
        table.add(_item(record, key), _rater(record), label, record.where)
    label_key = "accept" if kind == "choice" else "answer"
    return table.ratings(
        (key, "_annotator_id", label_key), source=where, level=level, encode=encode
    )


def _kind(records: list[Record], where: str) -> str:
    """The interface of the tasks: ``choice`` (options), ``spans`` or ``binary``."""
    if not records:
        raise InvalidInputError(f"{where}: the file holds no answers")
    kinds = collections.Counter(
        "choice" if "options" in r.value else "spans" if "spans" in r.value else "binary"
        for r in records
    )
    if len(kinds) > 1:
        listed = ", ".join(f"{n} {k}" for k, n in kinds.items())
        raise InvalidInputError(
            f"{where}: the tasks come from different interfaces ({listed} tasks); export "
            "one dataset per interface"
        )
    return next(iter(kinds))


def _answer(record: Record) -> str:
    answer = record.value.get("answer")
    if answer not in _ANSWERS:
        raise record.error(f"'answer' must be 'accept', 'reject' or 'ignore', got {answer!r}")
    return str(answer)


def _rater(record: Record) -> Any:
    task = record.value
    who = task.get("_annotator_id", task.get("_session_id"))
    if who is None:
        raise record.error("no '_annotator_id' or '_session_id' (the annotator)")
    return who


def _item(record: Record, key: str) -> Any:
    value = record.value.get(key)
    if value is None or isinstance(value, list | dict):
        raise record.error(f"no item id {key!r}")
    return value


def _span(span: Any, record: Record) -> tuple[int, int, str]:
    ok = isinstance(span, Mapping) and all(isinstance(span.get(k), int) for k in ("start", "end"))
    if not ok or span["end"] <= span["start"] or not isinstance(span.get("label"), str):
        raise record.error(f"a span needs integer 'start' < 'end' and a 'label'; got {span!r}")
    return span["start"], span["end"], span["label"]


def _spans(records: list[Record], key: str, where: str) -> Spans:
    """The accepted spans: the input as the document, its text kept."""
    table = SpanTable()
    for record in records:
        answer = _answer(record)
        if answer != "accept":
            table.skip(f"answer {answer!r}")
            continue
        rater, doc = str(_rater(record)), str(_item(record, key))
        table.saw(rater, doc)
        if isinstance(record.value.get("text"), str):
            table.texts.setdefault(doc, record.value["text"])
        spans = record.value.get("spans") or []
        if not isinstance(spans, list):
            raise record.error("'spans' must be a list")
        for span in spans:
            table.add(rater, doc, *_span(span, record))
    return table.spans(where)
