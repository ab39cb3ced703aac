"""Readers of scored units: a long table, and NIST sclite's SGML alignment output."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .._errors import InvalidInputError, located
from .._validate import format_rows, require_columns
from ..data.scored import OutOfRange, coerce_units
from .files import read_text_file
from .ratings import FileFormat, read_table

__all__ = ["confidences_of", "read_confidences", "read_sclite_sgml"]


def read_confidences(
    path: str | Path,
    *,
    correct: str,
    confidence: str,
    group: str | None = None,
    file_format: FileFormat | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    out_of_range: OutOfRange | None = None,
    na_values: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Read scored units (one row each) from a CSV/TSV, Parquet or JSON Lines file.

    Parameters
    ----------
    path : str or Path
        The file.
    correct : str
        Column saying whether the unit is correct: 0/1, true/false (also yes/no, t/f).
    confidence : str
        Column with the confidence in the unit, a number (its range is checked by the
        functions that use it, see ``out_of_range``).
    group : str, optional
        Column with the group (speaker, system, data set).
    file_format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Overrides the format guessed from the suffix (the formats are cited by
        :func:`accord.read_ratings`).
    sep, encoding : str, optional
        Field separator and text encoding of a CSV/TSV file, as in
        :func:`accord.read_ratings`.
    out_of_range : {"raise", "clip"}, optional
        With ``"raise"``, a confidence outside [0, 1] is an error here too, so that the
        message names the first row at fault in file order whatever its fault; by default
        the range is left to the functions that use the confidences.
    na_values : sequence of str, optional
        The spellings of a missing value in a CSV/TSV file, as in :func:`accord.read_ratings`
        (``[]``: empty cells only).

    Returns
    -------
    pandas.DataFrame
        Columns ``correct`` (bool), ``confidence`` (float64) and, with ``group``, ``group``.

    Raises
    ------
    ColumnNotFoundError
        When a column is not in the file (the message lists those there are).
    InvalidInputError
        On a missing value or a value that is not 0/1/true/false or a number, naming the
        column and the 1-based data rows.

    Examples
    --------
    >>> import accord, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "w.csv").write_text("ok,conf\\n1,0.9\\n0,0.2\\nyes,0.6\\n")
    >>> accord.read_confidences(d / "w.csv", correct="ok", confidence="conf").correct.tolist()
    [True, False, True]
    """
    columns = [correct, confidence] + ([group] if group is not None else [])
    frame = read_table(
        path, columns, na_values=na_values, file_format=file_format, sep=sep, encoding=encoding
    )
    with located(f"in {path}"):
        return confidences_of(frame, correct, confidence, group, out_of_range)


def confidences_of(
    frame: pd.DataFrame,
    correct: str,
    confidence: str,
    group: str | None = None,
    out_of_range: OutOfRange | None = None,
    *,
    row0: int = 0,
) -> pd.DataFrame:
    """The scored units of ``frame``'s columns, checked and typed as
    :func:`read_confidences` gives them (a column not in the frame is named); errors name
    rows ``row0 + k + 1`` (the frame starts at row ``row0`` of a larger input).

    >>> confidences_of(pd.DataFrame({"ok": ["yes", "no"], "p": [0.9, 0.2]}), "ok", "p").correct.tolist()
    [True, False]
    """  # noqa: E501
    columns = [correct, confidence] + ([group] if group is not None else [])
    require_columns(columns, list(frame.columns), where="source=")
    y, c = coerce_units(
        frame[correct].to_numpy(),
        frame[confidence].to_numpy(),
        names=(f"column {correct!r}", f"column {confidence!r}"),
        out_of_range=out_of_range,
        row0=row0,
    )
    out = pd.DataFrame({"correct": y, "confidence": c})
    if group is not None:
        values = frame[group]
        missing = values.isna().to_numpy()
        if missing.any():
            at = missing.nonzero()[0]
            rows = ("row " if at.size == 1 else "rows ") + format_rows(at + row0)
            raise InvalidInputError(f"column {group!r}: missing value at {rows}")
        out["group"] = values.to_numpy()
    return out


_TAG = re.compile(r'<(/?)([A-Za-z]+)((?:[^>"]|"[^"]*")*)>')
_ATTR = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="([^"]*)"')
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[,:]|[^,:"]+', re.DOTALL)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_EVALS = {"C": 1, "S": 0, "I": 0, "D": None}


def _unquote(field: str) -> str:
    field = field.strip()
    if len(field) >= 2 and field[0] == '"' and field[-1] == '"':
        return _ESCAPE.sub(r"\1", field[1:-1])
    return field


def _split_words(body: str) -> list[list[str]]:
    """``EVAL,"ref","hyp",aux...:EVAL,...`` -> fields per word (quotes and escapes honoured)."""
    words: list[list[str]] = []
    fields: list[str] = []
    current = ""
    for token in _TOKEN.findall(body):
        if token == ",":
            fields.append(current)
            current = ""
        elif token == ":":
            fields.append(current)
            words.append(fields)
            fields, current = [], ""
        else:
            current += token
    fields.append(current)
    if any(f.strip() for f in fields):
        words.append(fields)
    return words


def _float(text: str, where: str, what: str) -> float:
    text = text.strip()
    if not text:
        return math.nan
    try:
        return float(text)
    except ValueError:
        raise InvalidInputError(f"{where}: {what} {text!r} is not a number") from None


def read_sclite_sgml(path: str | Path) -> pd.DataFrame:
    """Read the scored hypothesis words of a NIST sclite SGML alignment (``sclite -o sgml``).

    Inside each ``<SPEAKER id=...>``, each ``<PATH ...>`` holds one segment's aligned words
    separated by ``:``, each ``EVAL,"ref","hyp",aux...`` with the auxiliary fields named by the
    path's ``word_aux`` attribute (``h_t1+t2,h_conf`` for a CTM with confidences). Quoted
    fields may contain backslash-escaped characters.

    Parameters
    ----------
    path : str or Path
        The ``.sgml`` file.

    Returns
    -------
    pandas.DataFrame
        One row per scored hypothesis word, in file order, with columns ``speaker``,
        ``segment`` (the path id), ``eval`` (``C`` correct, ``S`` substitution, ``I``
        insertion), ``ref``, ``hyp``, ``t1``, ``t2`` (the hypothesis word's times, NaN when
        absent), ``confidence`` and ``correct`` (True for ``C``).

    Raises
    ------
    InvalidInputError
        On a path without an ``h_conf`` auxiliary field, an unknown evaluation code, a
        missing or non-numeric confidence, or no scored words; the message names the line
        and the path.

    Notes
    -----
    As in sclite's NCE (``compute_SCORE_nce`` in SCTK ``scores.c``): correct words,
    substitutions and insertions are scored; deletions (``D``) have no hypothesis word and
    are left out, as is any word whose hypothesis text is empty.

    References
    ----------
    .. [1] NIST. SCTK, the NIST Scoring Toolkit: sclite and its documentation
       (``doc/sclite.htm``; the ``sgml`` output format in ``doc/outputs.htm``), and
       ``src/sclite/scores.c`` (``compute_SCORE_nce``). https://github.com/usnistgov/SCTK

    Examples
    --------
    >>> import accord, tempfile, pathlib
    >>> sgml = '''<SYSTEM title="x">
    ... <SPEAKER id="s1">
    ... <PATH id="(s1-000)" word_aux="h_t1+t2,h_conf">
    ... C,"a","a",0.1+0.3,0.9:S,"b","c",0.3+0.5,0.4:D,"d",,,:I,,"e",0.6+0.7,0.2
    ... </PATH>
    ... </SPEAKER>
    ... </SYSTEM>'''
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.sgml"
    >>> _ = p.write_text(sgml)
    >>> words = accord.read_sclite_sgml(p)
    >>> print(words[["speaker", "eval", "hyp", "confidence", "correct"]].to_string(index=False))
    speaker eval hyp  confidence  correct
         s1    C   a         0.9     True
         s1    S   c         0.4    False
         s1    I   e         0.2    False
    """
    p = Path(path)
    text = read_text_file(p, what="sclite SGML")
    rows: dict[str, list[Any]] = {
        k: [] for k in ("speaker", "segment", "eval", "ref", "hyp", "t1", "t2", "confidence")
    }
    speaker: str | None = None
    path_attrs: dict[str, str] | None = None
    body_start = 0
    for match in _TAG.finditer(text):
        closing, name, attrs = match.group(1), match.group(2).upper(), match.group(3)
        line = text.count("\n", 0, match.start()) + 1
        if name == "SPEAKER":
            speaker = None if closing else dict(_ATTR.findall(attrs)).get("id", "")
        elif name == "PATH" and not closing:
            if speaker is None:
                raise InvalidInputError(f"{p}, line {line}: <PATH> outside a <SPEAKER>")
            path_attrs = dict(_ATTR.findall(attrs))
            path_attrs["_line"] = str(line)
            body_start = match.end()
        elif name == "PATH" and closing:
            if path_attrs is None or speaker is None:
                raise InvalidInputError(f"{p}, line {line}: </PATH> without a <PATH>")
            _parse_path(text[body_start : match.start()], speaker, path_attrs, p, rows)
            path_attrs = None
    if not rows["eval"]:
        raise InvalidInputError(f"{p}: no scored hypothesis words found (is it sclite -o sgml?)")
    frame = pd.DataFrame(rows)
    frame["correct"] = frame["eval"] == "C"
    return frame


def _parse_path(
    body: str, speaker: str, attrs: dict[str, str], p: Path, rows: dict[str, list[Any]]
) -> None:
    segment = attrs.get("id", "")
    where = f"{p}, line {attrs['_line']}, path {segment}"
    aux = [a.strip() for a in attrs.get("word_aux", "").split(",") if a.strip()]
    if "h_conf" not in aux:
        raise InvalidInputError(
            f"{where}: the words carry no hypothesis confidence (word_aux={attrs.get('word_aux')!r}"
            "); score a CTM with confidences"
        )
    conf_at = 3 + aux.index("h_conf")
    times_at = 3 + aux.index("h_t1+t2") if "h_t1+t2" in aux else None
    for number, fields in enumerate(_split_words(body.strip()), start=1):
        code = fields[0].strip()
        if code not in _EVALS:
            raise InvalidInputError(
                f"{where}, word {number}: unknown evaluation code {code!r} (expected C, S, I or D)"
            )
        if len(fields) <= conf_at:
            raise InvalidInputError(
                f"{where}, word {number}: expected {conf_at + 1} fields, found {len(fields)}"
            )
        hyp = _unquote(fields[2])
        if code == "D" or not hyp:
            continue
        confidence = _float(fields[conf_at], f"{where}, word {number}", "confidence")
        if math.isnan(confidence):
            raise InvalidInputError(f"{where}, word {number}: missing confidence")
        t1 = t2 = math.nan
        if times_at is not None and fields[times_at].strip():
            parts = fields[times_at].split("+")
            t1 = _float(parts[0], f"{where}, word {number}", "time")
            t2 = _float(parts[1], f"{where}, word {number}", "time") if len(parts) > 1 else t2
        rows["speaker"].append(speaker)
        rows["segment"].append(segment)
        rows["eval"].append(code)
        rows["ref"].append(_unquote(fields[1]))
        rows["hyp"].append(hyp)
        rows["t1"].append(t1)
        rows["t2"].append(t2)
        rows["confidence"].append(confidence)
