"""Argilla records with their annotators' responses, exported to JSON Lines or Parquet
(directly, or through a Hugging Face dataset)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Unpack

from .._errors import InvalidInputError
from .._types import Level
from ..data.ratings import Ratings
from .exports import (
    AnswerTable,
    Asked,
    Encode,
    EncodeOptions,
    Record,
    choose_asked,
    export_records,
    question_responses,
)

__all__ = ["read_argilla"]

#: One response: (question, annotator, value, status).
_Response = tuple[str, Any, Any, Any]

#: The question of an Argilla 1.x response discarded before any question was answered: it
#: is counted with whichever question is read.
_EVERY = ""

_ASKED = Asked("question", "responses", "no responses to", "no record has a response")


def read_argilla(
    path: str | Path,
    *,
    field: str | None = None,
    item: str | None = None,
    level: Level | None = None,
    **options: Unpack[EncodeOptions],
) -> Ratings:
    """Read the responses of an Argilla dataset's records: who answered what question.

    Each record is an item, each submitted response to the chosen question one rating, its
    annotator the response's ``user_id``. Three shapes of record are read, from JSON, JSON
    Lines or Parquet, without the ``datasets`` package:

    - Argilla 2.x records (``dataset.records.to_list(flatten=False)``, ``to_disk``):
      ``"responses": {question: [{"user_id", "value", "status"}, ...]}``;
    - Argilla 2.x records on the Hugging Face Hub (``dataset.to_hub``, or
      ``records.to_datasets()`` saved with ``to_parquet`` / ``to_json``): columns
      ``<question>.responses``, ``<question>.responses.users`` and
      ``<question>.responses.status``, aligned lists;
    - Argilla 1.x records: ``"responses": [{"user_id", "values": {question: {"value"}},
      "status"}, ...]``, or, pushed to the Hugging Face Hub, a column per question holding
      its ``{"user_id", "value", "status"}`` responses.

    A label question gives a label, a rating question a score (ordinal by default), a
    multi-label question a set of labels (set-valued ratings, see ``multi_label``). Responses
    whose status is
    ``discarded`` or ``draft`` are not ratings: they are counted in the read report.

    Parameters
    ----------
    path : str or Path
        The export: ``.json``, ``.jsonl`` or ``.parquet``.
    field : str, optional
        The question to read; needed when the responses answer several (the error lists
        them).
    item : str, optional
        The key of the record id; default ``id``, else (Argilla 1.x) ``external_id``.
    level : {"nominal", "ordinal", "interval", "ratio"}, optional
        Default: ordinal when every value is a number (a rating question), else nominal.
    **options
        ``categories``, ``missing``, ``duplicates``, ``multi_label`` (sets of labels when
        some answer chose several), ``na_values`` and ``labels_as``, as in
        :func:`accord.read_label_studio` (an answer ``N/A`` is a missing label, as in a CSV
        file).

    Returns
    -------
    Ratings
        With the discarded and draft responses counted in ``report``.

    Raises
    ------
    InvalidInputError
        A record without an id or with malformed responses (naming the record), a question
        that is ambiguous or not there, a value that is not a label or a number (text,
        rankings, spans).

    References
    ----------
    .. [1] Argilla. Importing and exporting datasets and records.
       https://docs.argilla.io/latest/how_to_guides/import_export/
    .. [2] Argilla. rg.Response (responses: question, value, user_id, status).
       https://docs.argilla.io/latest/reference/argilla/records/responses/
    .. [3] Argilla 1.x. Export a Feedback Dataset.
       https://docs.argilla.io/en/v1.14.0/guides/llms/practical_guides/export_dataset.html

    Examples
    --------
    >>> import accord
    >>> exports = accord.datasets.path("annotation-tools")
    >>> r = accord.read_argilla(exports / "argilla_v2.jsonl", field="sentiment")
    >>> print(r.report)  # doctest: +NORMALIZE_WHITESPACE
    read 7 rows: 5 ratings of 3 items by 2 raters; dropped 2 (1 discarded response;
    1 draft response)
    """
    encode = Encode.of("read_argilla", options)
    where = str(path)
    responses: list[tuple[Record, Any, _Response]] = []
    key = item
    for record in export_records(path, what="Argilla"):
        if key is None:
            key = "external_id" if "id" not in record.value else "id"
        if record.value.get(key) is None:
            raise record.error(f"a record without {key!r}")
        ident = record.value[key]
        responses.extend((record, ident, r) for r in _responses(record))
    asked = {q: repr(q) for _, _, (q, *_) in responses if q != _EVERY}
    name = choose_asked(asked, field, where, _ASKED)
    table = AnswerTable()
    numbers = True
    for record, ident, (question, user, value, status) in responses:
        if question not in (name, _EVERY):
            continue
        if status in ("discarded", "draft"):
            table.skip(f"{status} response")
            continue
        _check_value(value, record, name)
        numbers = numbers and isinstance(value, int | float) and not isinstance(value, bool)
        table.add(ident, user, value, record.where)
    if level is None:
        level = "ordinal" if numbers else "nominal"
    return table.ratings((key or "id", "user_id", name), source=where, level=level, encode=encode)


def _responses(record: Record) -> Iterator[_Response]:
    """Every response of a record, whatever the shape of the export."""
    value = record.value
    responses = value.get("responses")
    if isinstance(responses, dict):  # Argilla 2.x
        for question, answers in responses.items():
            for answer in _listed(answers, record, f"responses[{question!r}]"):
                yield (
                    question,
                    _user(answer, record),
                    answer.get("value"),
                    answer.get("status", "submitted"),
                )
        return
    if isinstance(responses, list):  # Argilla 1.x
        for answer in _listed(responses, record, "responses"):
            values = answer.get("values")
            if not isinstance(values, dict):
                raise record.error("a response without 'values' ({question: {'value': ...}})")
            status = answer.get("status")
            if not values and status in ("discarded", "draft"):
                yield _EVERY, _user(answer, record), None, status
            for question, given in values.items():
                got = given.get("value") if isinstance(given, dict) else given
                yield question, _user(answer, record), got, status
        return
    yield from _flattened(record)


def _flattened(record: Record) -> Iterator[_Response]:
    """Responses from the columns of a Hub export: ``q.responses``, ``q.responses.users``,
    ``q.responses.status`` (Argilla 2.x), or a column ``q`` of ``{user_id, value, status}``
    (Argilla 1.x)."""
    value = record.value
    questions = [k[: -len(".responses")] for k in value if k.endswith(".responses")]
    if not questions and "responses" in value and value["responses"] is not None:
        raise record.error(
            "'responses' must be a mapping (Argilla 2.x) or a list "
            f"(Argilla 1.x), got {type(value['responses']).__name__}"
        )
    for q in questions:
        values = value.get(f"{q}.responses") or []
        users = value.get(f"{q}.responses.users") or []
        status = value.get(f"{q}.responses.status") or ["submitted"] * len(values)
        if not (len(values) == len(users) == len(status)):
            raise record.error(
                f"{q}.responses, {q}.responses.users and "
                f"{q}.responses.status must be lists of one length; got {len(values)}, "
                f"{len(users)} and {len(status)}"
            )
        yield from ((q, u, v, s) for v, u, s in zip(values, users, status, strict=True))
    for key, column in value.items():  # Argilla 1.x on the Hub: a column per question
        try:
            answers = question_responses(column)
        except InvalidInputError as exc:
            raise record.error(f"{key!r}: {exc}") from None
        for answer in answers or []:
            status = answer.get("status", "submitted")
            yield key, _user(answer, record), answer.get("value"), status


def _listed(answers: Any, record: Record, what: str) -> list[Mapping[str, Any]]:
    if not isinstance(answers, list) or not all(isinstance(a, dict) for a in answers):
        raise record.error(f"{what} must be a list of responses")
    return answers


def _user(answer: Mapping[str, Any], record: Record) -> Any:
    user = answer.get("user_id")
    if user is None:
        raise record.error("a response without 'user_id'")
    return user


def _check_value(value: Any, record: Record, question: str) -> None:
    """A label, a number, or a list of labels (a multi-label question)."""
    scalar = (str, int, float)
    if isinstance(value, scalar) or value is None:
        return
    if isinstance(value, list) and all(isinstance(v, scalar) for v in value):
        return
    raise record.error(
        f"question {question!r}: {value!r} is not a label, a number "
        "or a list of labels (text, ranking and span questions are not read)"
    )
