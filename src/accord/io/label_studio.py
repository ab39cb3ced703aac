"""Label Studio's JSON export: tasks, their annotations and each annotation's results."""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Unpack

from .._errors import InvalidInputError
from .._types import Level
from ..data.ratings import Ratings
from ..data.spans import Spans
from .exports import (
    AnswerTable,
    Asked,
    Encode,
    EncodeOptions,
    Record,
    SpanTable,
    choose_asked,
    export_records,
)

__all__ = ["read_label_studio", "read_label_studio_relations"]

#: The result types read, the key of their value, and the level they are read at by default.
_TYPES: dict[str, tuple[str, Level]] = {
    "choices": ("choices", "nominal"),
    "rating": ("rating", "ordinal"),
    "number": ("number", "interval"),
    "labels": ("labels", "nominal"),
}

#: Why a relation between two regions is left out, as the read report counts it.
RELATION = "relation between regions (not read)"

_ASKED = Asked("field", "annotations", "no results for", "no annotation has a result to read")


@dataclasses.dataclass(frozen=True, slots=True)
class _Annotation:
    """One annotation of a task: who made it and the results of the chosen field."""

    task: Any
    rater: Any
    results: list[Mapping[str, Any]]
    ident: Any = None
    user_id: Any = None  # the user's id when the export gives the user as an object

    @property
    def where(self) -> str:
        """``task 12``, or ``task 12 (annotation 203)`` when the annotation has an id."""
        return f"task {self.task!r}" + (
            f" (annotation {self.ident!r})" if self.ident is not None else ""
        )


def read_label_studio(
    path: str | Path,
    *,
    field: str | None = None,
    level: Level | None = None,
    **options: Unpack[EncodeOptions],
) -> Ratings | Spans:
    """Read a Label Studio JSON export: who answered what on each task.

    Each task of the export (``id``, ``data``, ``annotations``) is an item; each of its
    annotations is one annotator's answer, the annotator named by ``completed_by`` (a user
    id, or the user's e-mail when the export gives the user as an object, and then also where
    it gives that user's bare id). The answer is
    the result of one control tag of the labelling interface, its ``from_name``:

    - ``choices``: the label; a control that allows several choices gives a set of labels
      (set-valued ratings, see ``multi_label``);
    - ``rating`` (stars) and ``number``: a score;
    - ``labels`` (text spans with ``start``, ``end`` and ``labels``): :class:`accord.Spans`,
      one per label of a region, the task id as the document, for
      :func:`accord.span_agreement`.

    Parameters
    ----------
    path : str or Path
        The ``.json`` export (``Export`` -> ``JSON`` in Label Studio), possibly compressed.
    field : str, optional
        The ``from_name`` of the control to read; needed when the annotations answer
        several controls (the error lists them).
    level : {"nominal", "ordinal", "interval", "ratio"}, optional
        Level of measurement; default nominal for choices, ordinal for a rating, interval
        for a number.
    **options
        How the answers are encoded, the same keywords for every reader of an annotation
        tool (:func:`accord.read_prodigy`, :func:`accord.read_argilla`, and
        :func:`accord.read_ratings` given an export):

        - ``categories`` (sequence, default None), ``missing`` (``"omit"`` or ``"raise"``,
          default ``"omit"``), ``duplicates`` (``"raise"``, ``"first"``, ``"last"`` or
          ``"mean"``, default ``"raise"``): as in :meth:`accord.Ratings.from_long`;
        - ``multi_label`` (bool, optional): read each answer as a set of labels
          (:meth:`accord.Ratings.from_long` with ``multi_label=True``: ``[]`` is the empty
          set). Default: when some answer chose several labels; False raises then;
        - ``na_values`` (list of text, default None) and ``labels_as`` (default ``"auto"``):
          as in :meth:`accord.Ratings.from_long`, the same missing-value rule as for a CSV
          file (an answer ``N/A`` is a missing label unless ``N/A`` is a declared category).

    Returns
    -------
    Ratings or Spans
        Ratings for choices, ratings and numbers, with ``report`` counting the cancelled
        (skipped) annotations, the drafts (exported with ``drafts``: saved, never submitted)
        and the tasks nobody annotated; an annotation without a result
        for the field is a missing label. Spans for labels, with the same counts in
        ``notes``; an annotation without spans declares an annotator who marked nothing in
        the task. Predictions (a model's pre-annotations) are not read; relations between
        regions (results of type ``relation``) answer no control and are counted as
        skipped (:func:`read_label_studio_relations` reads them).

    Raises
    ------
    InvalidInputError
        A malformed task (no ``id``, an annotation without ``completed_by``, a result without
        its value), naming the task id; a field that is ambiguous or not there (listing the
        fields there are); a result type accord does not read.

    References
    ----------
    .. [1] Label Studio. Label Studio JSON format of annotated tasks.
       https://labelstud.io/guide/task_format
    .. [2] Label Studio. Export annotations. https://labelstud.io/guide/export

    Examples
    --------
    >>> import accord
    >>> exports = accord.datasets.path("annotation-tools")
    >>> r = accord.read_label_studio(exports / "label_studio.json", field="sentiment")
    >>> print(r.report)  # doctest: +NORMALIZE_WHITESPACE
    read 8 rows: 6 ratings of 3 items by 2 raters; dropped 2 (1 cancelled annotation;
    1 unannotated task)
    """
    encode = Encode.of("read_label_studio", options)
    where = str(path)
    annotations, skipped = _annotations(export_records(path, what="Label Studio"), where)
    kinds = _fields(annotations, where)
    name = _choose_field(kinds, field, where)
    kind = kinds[name]
    if kind == "labels":
        return _spans(annotations, name, skipped, where)
    table = AnswerTable(skipped=skipped)
    for ann in annotations:
        results = [r for r in ann.results if r.get("from_name") == name]
        if len(results) > 1:
            raise _task_error(
                where,
                ann.task,
                f"annotator {ann.rater!r} has {len(results)} "
                f"results for {name!r}; one answer per annotation is read",
            )
        value = _value(results[0], kind, ann, where) if results else None
        table.add(ann.task, ann.rater, value, ann.where)
    if level is None:
        level = _TYPES[kind][1]
    return table.ratings(("id", "completed_by", name), source=where, level=level, encode=encode)


def _task_error(where: str, task: Any, message: str) -> InvalidInputError:
    """The error to raise for what is wrong in a task: ``<file>: task 12: ...``."""
    return InvalidInputError(f"{where}: task {task!r}: {message}")


def _task_id(record: Record, where: str) -> Any:
    task = record.value
    if "id" not in task:
        raise record.error("a task without an 'id'")
    return task["id"]


def _annotations(records: Any, where: str) -> tuple[list[_Annotation], collections.Counter[str]]:
    """Every annotation that was not cancelled, and the counts of those left out."""
    skipped: collections.Counter[str] = collections.Counter()
    kept: list[_Annotation] = []
    for record in records:
        task_id = _task_id(record, where)
        annotations = record.value.get("annotations")
        if annotations is None:
            raise InvalidInputError(
                f"{where}: task {task_id!r} has no 'annotations': read the JSON export (the "
                "JSON-MIN and CSV exports do not say who annotated)"
            )
        if not isinstance(annotations, list):
            raise _task_error(
                where, task_id, f"'annotations' must be a list, got {type(annotations).__name__}"
            )
        drafts = record.value.get("drafts")
        if isinstance(drafts, list) and drafts:
            skipped["draft (not submitted)"] += len(drafts)
        if not annotations:
            skipped["unannotated task"] += 1
        for ann in annotations:
            if not isinstance(ann, dict):
                raise _task_error(
                    where, task_id, f"an annotation must be an object, got {type(ann).__name__}"
                )
            if ann.get("was_cancelled"):
                skipped["cancelled annotation"] += 1
                continue
            results = ann.get("result", [])
            if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
                raise _task_error(
                    where, task_id, "an annotation's 'result' must be a list of objects"
                )
            results = _without_relations(results, skipped)
            who = ann.get("completed_by")
            user_id = who.get("id") if isinstance(who, dict) else None
            rater = _rater(ann, task_id, where)
            kept.append(_Annotation(task_id, rater, results, ann.get("id"), user_id))
    return _one_name_per_user(kept, _emails(kept)), skipped


def _emails(kept: list[_Annotation]) -> dict[Any, Any]:
    """The e-mail of each user id the export gives as an object somewhere (``{"id": 9,
    "email": ...}``): the name of that user wherever the export gives the bare id."""
    return {a.user_id: a.rater for a in kept if a.user_id is not None and a.rater != a.user_id}


def _one_name_per_user(kept: list[_Annotation], emails: dict[Any, Any]) -> list[_Annotation]:
    """The annotations with each user named once: by e-mail when the export gives it."""
    return [
        dataclasses.replace(a, rater=emails[a.rater])
        if a.user_id is None and a.rater in emails
        else a
        for a in kept
    ]


def _without_relations(
    results: list[Mapping[str, Any]], skipped: collections.Counter[str]
) -> list[Mapping[str, Any]]:
    """The results of the controls: a relation between two regions (``type`` "relation",
    ``from_id`` and ``to_id``, no ``from_name``) answers no control; it is counted in
    ``skipped``, not read."""
    relations = sum(1 for r in results if r.get("type") == "relation" and "from_name" not in r)
    if relations:
        skipped[RELATION] += relations
    return [r for r in results if not (r.get("type") == "relation" and "from_name" not in r)]


def _rater(annotation: Mapping[str, Any], task: Any, where: str) -> Any:
    """The annotator: ``completed_by`` (a user id), or the user's e-mail (else id) when the
    export gives the user as an object."""
    who = annotation.get("completed_by")
    if isinstance(who, dict):
        who = who.get("email") or who.get("id")
    if who is None or isinstance(who, list | dict | bool):
        raise _task_error(where, task, "an annotation without 'completed_by' (the annotator)")
    return who


def _fields(annotations: list[_Annotation], where: str) -> dict[str, str]:
    """Each control tag answered (``from_name``) and its result type."""
    kinds: dict[str, str] = {}
    for ann in annotations:
        for result in ann.results:
            name, kind = result.get("from_name"), result.get("type")
            if not isinstance(name, str) or not isinstance(kind, str):
                raise _task_error(where, ann.task, "a result without 'from_name' or 'type'")
            kinds.setdefault(name, kind)
    return kinds


def _choose_field(kinds: dict[str, str], field: str | None, where: str) -> str:
    asked = {name: f"{name!r} ({kind})" for name, kind in kinds.items()}
    name = choose_asked(asked, field, where, _ASKED)
    if kinds[name] not in _TYPES:
        raise InvalidInputError(
            f"{where}: field {name!r} holds {kinds[name]!r} results; accord reads "
            + ", ".join(_TYPES)
        )
    return name


def _value(result: Mapping[str, Any], kind: str, ann: _Annotation, where: str) -> Any:
    """The answer of a choices, rating or number result (a list for choices)."""
    key = _TYPES[kind][0]
    value = result.get("value")
    answer = value.get(key) if isinstance(value, dict) else None
    ok = (
        isinstance(answer, list) and all(isinstance(c, str | int | float) for c in answer)
        if kind == "choices"
        else isinstance(answer, int | float) and not isinstance(answer, bool)
    )
    if not ok:
        raise _task_error(
            where,
            ann.task,
            f"annotator {ann.rater!r}: a {kind!r} result needs "
            f"'value': {{{key!r}: ...}}; got {value!r}",
        )
    return answer


def _spans(
    annotations: list[_Annotation], name: str, skipped: collections.Counter[str], where: str
) -> Spans:
    """The ``labels`` results as spans: one per label of each region, the task as the
    document."""
    table = SpanTable(skipped=skipped)
    for ann in annotations:
        table.saw(ann.rater, ann.task)
        for result in (r for r in ann.results if r.get("from_name") == name):
            value = result.get("value")
            value = value if isinstance(value, dict) else {}
            start, end, labels = value.get("start"), value.get("end"), value.get("labels")
            if not (
                isinstance(start, int)
                and isinstance(end, int)
                and end > start
                and isinstance(labels, list)
            ):
                raise _task_error(
                    where,
                    ann.task,
                    f"annotator {ann.rater!r}: a 'labels' result "
                    "needs 'value': {'start': int, 'end': int (after start), 'labels': [...]}; "
                    f"got {result.get('value')!r}",
                )
            for label in labels:
                table.add(ann.rater, ann.task, start, end, label)
    return table.spans(where)


def read_label_studio_relations(path: str | Path) -> Any:
    """The relations between text regions of a Label Studio JSON export, one row per
    relation, with the regions they link.

    A relation is a result of ``type`` ``"relation"`` with ``from_id`` and ``to_id`` (the
    ``id`` of two ``labels`` regions of the same annotation) and optional ``labels`` (its
    types; none is the type ``""``, several give one row each). ``direction`` ``"left"``
    swaps head and tail; ``"right"`` and ``"bi"`` keep ``from_id`` as the head.

    Parameters
    ----------
    path : str or Path
        The ``.json`` export, as :func:`read_label_studio` reads it.

    Returns
    -------
    DataFrame
        ``annotator``, ``document`` (the task id), ``type``, ``head_start``, ``head_end``,
        ``head_label``, ``tail_start``, ``tail_end``, ``tail_label`` (a region's first
        label): the input of :func:`accord.relation_agreement` beside the spans
        ``read_label_studio(path, field=...)`` reads. Cancelled annotations are left out.

    Raises
    ------
    InvalidInputError
        A relation naming a region the annotation does not have, naming the task.

    References
    ----------
    .. [1] Label Studio. Relations between regions.
       https://labelstud.io/tags/relations

    Examples
    --------
    >>> import accord, json, tempfile, pathlib
    >>> task = {"id": 1, "data": {"text": "Aspirin gave me fever."}, "annotations": [
    ...     {"completed_by": 7, "result": [
    ...         {"id": "a", "from_name": "ner", "to_name": "text", "type": "labels",
    ...          "value": {"start": 0, "end": 7, "labels": ["DRUG"]}},
    ...         {"id": "b", "from_name": "ner", "to_name": "text", "type": "labels",
    ...          "value": {"start": 16, "end": 21, "labels": ["ADE"]}},
    ...         {"from_id": "a", "to_id": "b", "type": "relation", "direction": "right",
    ...          "labels": ["causes"]}]}]}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "ls.json"
    >>> _ = path.write_text(json.dumps([task]))
    >>> rel = accord.read_label_studio_relations(path)
    >>> rel[["annotator", "document", "type", "head_label", "tail_start", "tail_label"]]
      annotator document    type head_label  tail_start tail_label
    0         7        1  causes       DRUG          16        ADE
    """
    import pandas as pd

    where = str(path)
    rows: list[dict[str, Any]] = []
    for record in export_records(path, what="Label Studio"):
        task = _task_id(record, where)
        for ann in record.value.get("annotations") or []:
            if not isinstance(ann, dict) or ann.get("was_cancelled"):
                continue
            rater = str(_rater(ann, task, where))
            results: list[Mapping[str, Any]] = [
                r for r in ann.get("result") or [] if isinstance(r, dict)
            ]
            regions = _regions(results)
            for r in (r for r in results if r.get("type") == "relation"):
                rows.extend(_relation_rows(r, regions, rater, str(task), where))
    columns = ["annotator", "document", "type", "head_start", "head_end", "head_label",
               "tail_start", "tail_end", "tail_label"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def _regions(results: list[Mapping[str, Any]]) -> dict[Any, tuple[int, int, str]]:
    """The ``labels`` regions of one annotation by ``id``: start, end and first label."""
    out = {}
    for r in results:
        value = r.get("value")
        if r.get("type") == "labels" and isinstance(value, dict) and value.get("labels"):
            out[r.get("id")] = (int(value["start"]), int(value["end"]), str(value["labels"][0]))
    return out


def _relation_rows(
    result: Mapping[str, Any],
    regions: dict[Any, tuple[int, int, str]],
    rater: str,
    task: str,
    where: str,
) -> list[dict[str, Any]]:
    """The rows of one relation result (one per type)."""
    ends = []
    for key in ("from_id", "to_id"):
        if result.get(key) not in regions:
            raise _task_error(
                where, task, f"annotator {rater!r}: a relation's {key} {result.get(key)!r} "
                "is not a labelled text region of the annotation",
            )  # fmt: skip
        ends.append(regions[result[key]])
    if result.get("direction") == "left":
        ends.reverse()
    (hs, he, hl), (ts, te, tl) = ends
    types = [str(t) for t in result.get("labels") or []] or [""]
    return [
        {"annotator": rater, "document": task, "type": t, "head_start": hs, "head_end": he,
         "head_label": hl, "tail_start": ts, "tail_end": te, "tail_label": tl}
        for t in types
    ]  # fmt: skip
