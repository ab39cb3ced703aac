"""Reader for span annotations exported by INCEpTION and WebAnno as WebAnno TSV 3."""

from __future__ import annotations

import dataclasses
import itertools
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from .._errors import FileReadError, InvalidInputError
from .._validate import counted
from ..data.spans import Spans
from .files import decode_error_message, read_text_file, text_lines
from .gathered import SpanColumns

__all__ = ["read_webanno_tsv", "read_webanno_tsv_relations"]

_STACK = re.compile(r"(?<!\\)\|")
_INDEXED = re.compile(r"^(.*?)(?:\[(\d+)\])?$", re.S)
_ESCAPED = re.compile(r"\\(.)", re.S)


@dataclasses.dataclass(frozen=True, slots=True)
class _Layer:
    """One layer of the header: its kind (``SP``, ``RL``, ``CH``), name, features, and the
    index of its first column among the annotation columns."""

    kind: str
    name: str
    features: tuple[str, ...]
    first: int
    base: str = ""

    @property
    def short(self) -> str:
        """The name without its package (``Entity`` for ``webanno.custom.Entity``)."""
        return self.name.rsplit(".", 1)[-1]

    @property
    def width(self) -> int:
        """Columns it takes: one per feature (one if it has none), plus the base column of
        a relation."""
        return max(1, len(self.features)) + (1 if self.kind == "RL" else 0)


def read_webanno_tsv(
    path: str | Path,
    *,
    layer: str | None = None,
    feature: str | None = None,
    encoding: str = "utf-8",
) -> Spans:
    """Read the spans of WebAnno TSV 3 files (INCEpTION and WebAnno exports): a folder per
    annotator, or an INCEpTION project export.

    Parameters
    ----------
    path : str or Path
        One of

        - a folder of annotator subfolders, each holding one ``<document>.tsv`` per
          document (the layout :func:`accord.read_brat` reads); the annotator is the
          subfolder's name;
        - an INCEpTION (or WebAnno) project export, as a folder or the ``.zip`` itself,
          exported with WebAnno TSV 3 as the secondary format:
          ``annotation/<document>/<annotator>.tsv``, one folder per document (its name,
          ``doc1.txt``, is the document), one file per annotator (its name without
          ``.tsv``). The export's own files there (``INITIAL_CAS``, ``CURATION_USER``,
          ``CORRECTION_USER``) and files in other formats are left out, and ``notes``
          says so; the other folders of the export (``annotation_ser/``, ``curation/``,
          ``source/``) are not read.
    layer : str, optional
        The span layer (``#T_SP=`` line) or chain layer (``#T_CH=``) to read, by its full
        or short name (``webanno.custom.Entity`` or ``Entity``); needed when the files
        declare several span layers. Files without a span layer are read by their chain
        layer when they have one.
    feature : str, optional
        The feature of the layer that gives the label (default: its first feature; a
        chain layer's label is its first column, ``referenceType``).
    encoding : str, default "utf-8"

    Returns
    -------
    Spans
        Character offsets as the files give them (0-based, end exclusive); each document's
        length is the end of its last token.

    Raises
    ------
    InvalidInputError
        A file that does not start with ``#FORMAT=WebAnno TSV 3``, a token line whose
        offsets are not ``begin-end`` or that has too few columns, a layer or feature
        the files do not declare (each naming the file and line).

    Notes
    -----
    A token line is ``<sentence>-<token>``, ``<begin>-<end>``, the token text, then one
    column per feature of each layer in the order of the header. An empty cell is
    ``_``; annotations stacked on one token are separated by ``|``; an annotation over
    several tokens carries the same number in brackets (``PER[3]``) on each, and runs
    from the first token's begin to the last token's end; ``*`` is an annotation whose
    feature is unset, read with the layer's short name as label. Backslash escapes
    (``\\|``, ``\\_``, ``\\[``) are undone.

    A chain layer (coreference: ``#T_CH=...CoreferenceLink|referenceType|
    referenceRelation``) gives one span per link of a chain: the first column holds its
    type with the chain's number in brackets (``pr[1]``), the second the label of the
    relation to the next link and the link's place (``coref->1-2``: chain 1, link 2);
    the tokens of a link share both. The links of a chain, in order, are relations
    (:func:`read_webanno_tsv_relations`).

    References
    ----------
    .. [1] INCEpTION documentation, "WebAnno TSV 3.3" (file formats appendix).
       https://inception-project.github.io/releases/latest/docs/user-guide.html

    Examples
    --------
    >>> import accord, tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> head = "#FORMAT=WebAnno TSV 3.3\\n#T_SP=webanno.custom.Entity|value\\n\\n\\n"
    >>> for name, tag in (("a", "PER"), ("b", "LOC")):
    ...     (root / name).mkdir()
    ...     _ = (root / name / "d1.tsv").write_text(
    ...         head + "#Text=Ann runs\\n1-1\\t0-3\\tAnn\\t" + tag + "\\n1-2\\t4-8\\truns\\t_\\n")
    >>> accord.read_webanno_tsv(root).to_frame()[["annotator", "start", "end", "label"]]
      annotator  start  end label
    0         a      0    3   PER
    1         b      0    3   LOC
    """
    root = Path(path)
    docs, notes = _documents(root)
    columns = SpanColumns()
    lengths: dict[str, int] = {}
    for doc in docs:
        parsed = _parse(doc, layer, feature, encoding)
        for (start, end), label in zip(parsed.bounds, parsed.labels, strict=True):
            columns.add(doc.annotator, doc.document, start, end, label)
        lengths[doc.document] = max(lengths.get(doc.document, 0), parsed.last)
    return columns.spans(
        sorted({d.annotator for d in docs}),
        sorted(lengths),
        unit="character",
        source=str(root),
        lengths=lengths,
        notes=notes,
    )


#: Files of an INCEpTION project export that hold no annotator's work: the document as
#: imported, and the curated (or, in WebAnno, corrected) version.
NOT_ANNOTATORS = ("INITIAL_CAS", "CURATION_USER", "CORRECTION_USER")


@dataclasses.dataclass(frozen=True, slots=True)
class _Doc:
    """One annotator's file of one document: where it is and how to get its text."""

    annotator: str
    document: str
    where: str
    text: Callable[[str], str]  # encoding -> the file's text


def _documents(path: Path) -> tuple[list[_Doc], list[str]]:
    """Every (annotator, document) file of ``path`` (sorted by annotator, then document),
    and notes on the files left out: a folder of annotator subfolders, or an INCEpTION
    project export (a folder or ``.zip`` with ``annotation/<document>/<annotator>.tsv``)."""
    if path.is_file() and zipfile.is_zipfile(path):
        return _zip_documents(path)
    if not path.is_dir():
        raise FileNotFoundError(2, "No such folder or .zip file", str(path))
    if (path / "annotation").is_dir():
        found = [
            (f.relative_to(path / "annotation").as_posix(), f)
            for f in sorted((path / "annotation").rglob("*"))
            if f.is_file()
        ]
        return _export_documents(found, f"{path}/", _file_text)
    return _annotator_files(path), []


def _file_text(file: Path) -> Callable[[str], str]:
    return lambda encoding: read_text_file(file, encoding=encoding)


def _zip_documents(path: Path) -> tuple[list[_Doc], list[str]]:
    """The annotators' files of an INCEpTION project export as a ``.zip``."""
    with zipfile.ZipFile(path) as archive:
        members = sorted(archive.infolist(), key=lambda i: i.filename)
    found = []
    for info in members:
        match = re.fullmatch(r"(?:[^/]+/)?annotation/(.+)", info.filename)
        if match is not None and not info.is_dir():
            found.append((match.group(1), info.filename))

    def text(member: str) -> Callable[[str], str]:
        def read(encoding: str) -> str:
            with zipfile.ZipFile(path) as archive:
                data = archive.read(member)
            try:
                return data.decode(encoding)
            except UnicodeDecodeError as exc:
                where = Path(f"{path}!{member}")
                raise FileReadError(
                    decode_error_message(where, encoding, exc.start, data[exc.start])
                ) from None

        return read

    if not found:
        raise InvalidInputError(
            f"{path}: no annotation/ folder in the archive (an INCEpTION project export "
            "holds annotation/<document>/<annotator>.tsv)"
        )
    return _export_documents(found, f"{path}!", text)


def _export_documents(
    found: list[tuple[str, Any]], where: str, text: Callable[[Any], Callable[[str], str]]
) -> tuple[list[_Doc], list[str]]:
    """The annotators' files among ``annotation/<document>/<file>`` (``found``: the path
    under ``annotation/`` and a handle); files of INCEpTION's own and files in another
    format are left out and said."""
    docs, own, other = [], set(), 0
    for name, handle in found:
        document, _, file = name.rpartition("/")
        user, dot, ext = file.rpartition(".")
        if not document or not dot or ext.lower() != "tsv":
            other += 1
        elif user in NOT_ANNOTATORS:
            own.add(user)
        else:
            docs.append(_Doc(user, document, f"{where}annotation/{name}", text(handle)))
    if not docs:
        raise InvalidInputError(
            f"{where.rstrip('!')}: no annotator's .tsv file under annotation/<document>/ "
            "(export the project with WebAnno TSV 3 as the secondary format)"
        )
    notes = []
    if own:
        notes.append(
            f"left out INCEpTION's own files ({', '.join(sorted(own))}): no annotator's work"
        )
    if other:
        are = "is" if other == 1 else "are"
        notes.append(f"left out {counted(other, 'file')} under annotation/ that {are} not .tsv")
    docs.sort(key=lambda d: (d.annotator, d.document))
    return docs, notes


def _annotator_files(root: Path) -> list[_Doc]:
    """The files of each annotator subfolder (sorted) holding .tsv files."""
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    out = [
        _Doc(f.name, p.relative_to(f).with_suffix("").as_posix(), str(p), _file_text(p))
        for f in folders
        for p in sorted(f.rglob("*.tsv"))
    ]
    if not out:
        raise InvalidInputError(
            f"{root}: no annotator folders with .tsv files (expected {root}/<annotator>/*.tsv, "
            f"or an INCEpTION project export with {root}/annotation/<document>/<annotator>.tsv)"
        )
    return out


def _header(lines: list[str], where: str) -> list[_Layer]:
    """The layers declared by the header lines, with their first column."""
    if not lines or not lines[0].startswith("#FORMAT=WebAnno TSV 3"):
        got = lines[0][:40] if lines else "an empty file"
        raise InvalidInputError(f"{where}, line 1: expected '#FORMAT=WebAnno TSV 3.3'; got {got!r}")
    layers: list[_Layer] = []
    first = 0
    for line in lines[1:]:
        match = re.match(r"#T_(SP|RL|CH)=(.*)$", line)
        if match is None:
            continue
        name, *features = match.group(2).split("|")
        base = ""
        if match.group(1) == "RL" and features and features[-1].startswith("BT_"):
            base, features = features[-1][3:], features[:-1]
        lay = _Layer(match.group(1), name, tuple(f for f in features if f), first, base)
        layers.append(lay)
        first += lay.width
    return layers


def _choose(
    layers: list[_Layer], layer: str | None, feature: str | None, where: str
) -> tuple[_Layer, int]:
    """The layer asked for (or the only span layer; the only chain layer when there is
    no span layer) and the column of its label feature."""
    kinds = ("SP", "CH") if layer is not None else ("SP",)
    if layer is None and not any(lay.kind == "SP" for lay in layers):
        kinds = ("CH",)
    spans = [lay for lay in layers if lay.kind in kinds]
    if layer is not None:
        spans = [lay for lay in spans if layer in (lay.name, lay.short)]
    names = [lay.name for lay in layers if lay.kind in ("SP", "CH")]
    if len(spans) != 1:
        asked = "no span or chain layer (#T_SP=, #T_CH=)" if not names else f"layers {names}"
        hint = "; choose one with layer=" if layer is None and len(spans) > 1 else ""
        wanted = f" named {layer!r}" if layer is not None else ""
        raise InvalidInputError(f"{where}: the file declares {asked}, not one{wanted}{hint}")
    chosen = spans[0]
    if chosen.kind == "CH" and (
        len(chosen.features) != 2 or feature not in (None, chosen.features[0])
    ):
        raise InvalidInputError(
            f"{where}: chain layer {chosen.name} is read by its two columns, the link's type "
            f"and its relation (#T_CH=...|referenceType|referenceRelation); got features "
            f"{list(chosen.features)}" + (f" and feature={feature!r}" if feature else "")
        )
    if feature is None or not chosen.features:
        if feature is not None:
            raise InvalidInputError(f"{where}: layer {chosen.name} has no feature {feature!r}")
        return chosen, chosen.first
    if feature not in chosen.features:
        raise InvalidInputError(
            f"{where}: layer {chosen.name} has no feature {feature!r}; it has "
            f"{list(chosen.features)}"
        )
    return chosen, chosen.first + chosen.features.index(feature)


@dataclasses.dataclass(slots=True)
class _File:
    """The spans of one file's chosen layer, where each token's annotations went, and
    the token lines (line number, token id, fields)."""

    bounds: list[list[int]]  # [start, end], one per span
    labels: list[str]
    on_token: dict[str, dict[str | None, int]]  # token -> {index or None: span number}
    rows: list[tuple[int, str, list[str]]]
    layers: list[_Layer]
    chosen: _Layer
    last: int
    chain: dict[tuple[int, int], tuple[int, str]]  # (chain, link) -> span, relation label

    def extend(self, span: int, begin: int, end: int) -> None:
        """Stretch a span over one more token."""
        bounds = self.bounds[span]
        bounds[0], bounds[1] = min(bounds[0], begin), max(bounds[1], end)


def _parse(doc: _Doc, layer: str | None, feature: str | None, encoding: str) -> _File:
    """Read one file: its layers, token lines and the spans of the chosen layer."""
    lines = list(text_lines(doc.text(encoding)))
    layers = _header(lines, doc.where)
    chosen, column = _choose(layers, layer, feature, doc.where)
    out = _File([], [], {}, [], layers, chosen, 0, {})
    indexed: dict[str, int] = {}  # multi-token index -> span number
    for number, line in enumerate(lines, start=1):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        where = f"{doc.where}, line {number}"
        needed = 3 + column + (1 if chosen.kind == "CH" else 0)
        begin, end = _offsets(fields, needed, where)
        out.rows.append((number, fields[0], fields))
        out.last = max(out.last, end)
        if chosen.kind == "CH":
            _chain_token(out, fields, column, (begin, end), where)
            continue
        here = out.on_token.setdefault(fields[0], {})
        for value, index in _cell(fields[3 + column]):
            if index is None or index not in indexed:
                out.bounds.append([begin, end])
                out.labels.append(chosen.short if value == "*" else value)
                if index is not None:
                    indexed[index] = len(out.labels) - 1
            at = indexed[index] if index is not None else len(out.labels) - 1
            out.extend(at, begin, end)
            here.setdefault(index, at)
    return out


_CHAIN_LINK = re.compile(r"(.*)->(\d+)-(\d+)", re.S)


def _chain_token(
    out: _File, fields: list[str], column: int, offsets: tuple[int, int], where: str
) -> None:
    """The links of a chain layer on one token: the type column (``pr[1]``, the chain in
    brackets) and the relation column (``coref->1-2``: the label of the relation to the
    next link, chain 1, link 2) name each link; its tokens share the chain and link."""
    types = _STACK.split(fields[3 + column])
    links = _STACK.split(fields[4 + column])
    for kind, link in zip(types, links, strict=False):
        if link == "_":
            continue
        match = _CHAIN_LINK.fullmatch(link)
        if match is None:
            raise InvalidInputError(
                f"{where}: a chain link is 'relation->chain-link' (coref->1-2); got {link!r}"
            )
        key = (int(match.group(2)), int(match.group(3)))
        if key not in out.chain:
            value = _INDEXED.match(kind)
            label = "*" if value is None else _ESCAPED.sub(r"\1", value.group(1))
            out.bounds.append(list(offsets))
            out.labels.append(out.chosen.short if label in ("*", "_", "") else label)
            out.chain[key] = (len(out.labels) - 1, _ESCAPED.sub(r"\1", match.group(1)))
        at = out.chain[key][0]
        out.extend(at, *offsets)
        out.on_token.setdefault(fields[0], {}).setdefault(f"{key[0]}-{key[1]}", at)


def read_webanno_tsv_relations(
    path: str | Path, *, layer: str | None = None, encoding: str = "utf-8"
) -> pd.DataFrame:
    """The relations of WebAnno TSV 3 files, one row per relation, with the spans they link.

    Parameters
    ----------
    path : str or Path
        The folder of annotator subfolders, or the INCEpTION project export (folder or
        ``.zip``), that :func:`accord.read_webanno_tsv` reads.
    layer : str, optional
        The span layer, as for :func:`accord.read_webanno_tsv`; every relation layer
        (``#T_RL=``) whose base (``BT_``) is that layer is read, its first feature as type.
        A chain layer gives the links of each chain: each link is the head of a relation
        to the next link of its chain, the relation's label (``coref`` in ``coref->1-2``)
        its type, the layer's short name when the label is unset (``*``).
    encoding : str, default "utf-8"

    Returns
    -------
    DataFrame
        ``annotator``, ``document``, ``type``, ``head_start``, ``head_end``,
        ``head_label``, ``tail_start``, ``tail_end``, ``tail_label``: the input of
        :func:`accord.relation_agreement`. The head is the relation's source (the token
        its base column names), the tail the span on the line that carries it.

    Raises
    ------
    InvalidInputError
        A base column that names no annotated span, or a chain link that is not
        ``relation->chain-link``, naming the file and line.

    Examples
    --------
    >>> import accord, tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp()); (root / "a").mkdir()
    >>> _ = (root / "a" / "d.tsv").write_text(
    ...     "#FORMAT=WebAnno TSV 3.3\\n#T_SP=webanno.custom.Entity|value\\n"
    ...     "#T_RL=webanno.custom.Link|type|BT_webanno.custom.Entity\\n\\n\\n#Text=A b\\n"
    ...     "1-1\\t0-1\\tA\\tDRUG\\t_\\t_\\n1-2\\t2-3\\tb\\tDISEASE\\ttreats\\t1-1\\n")
    >>> accord.read_webanno_tsv_relations(root)[["type", "head_label", "tail_label"]]
         type head_label tail_label
    0  treats       DRUG    DISEASE
    """
    rows: list[dict[str, object]] = []
    for doc in _documents(Path(path))[0]:
        parsed = _parse(doc, layer, None, encoding)
        for kind, head, tail in _links(parsed, doc.where):
            ends = {**_ends("head", parsed, head), **_ends("tail", parsed, tail)}
            rows.append(
                {"annotator": doc.annotator, "document": doc.document, "type": kind, **ends}
            )
    columns = ["annotator", "document", "type", *(f"{e}_{k}" for e in ("head", "tail")
               for k in ("start", "end", "label"))]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def _ends(end: str, parsed: _File, span: int) -> dict[str, object]:
    """``<end>_start``, ``<end>_end`` and ``<end>_label`` of a span."""
    start, stop = parsed.bounds[span]
    return {f"{end}_start": start, f"{end}_end": stop, f"{end}_label": parsed.labels[span]}


def _links(parsed: _File, file: str) -> list[tuple[str, int, int]]:
    """(type, head span, tail span) of every relation on the chosen span layer."""
    out = _chain_links(parsed) if parsed.chosen.kind == "CH" else []
    short = parsed.chosen.name
    for lay in (x for x in parsed.layers if x.kind == "RL" and x.base == short):
        for number, token, fields in parsed.rows:
            where = f"{file}, line {number}"
            kinds = _STACK.split(fields[3 + lay.first])
            bases = _STACK.split(fields[3 + lay.first + lay.width - 1])
            for kind, base in zip(kinds, bases, strict=False):
                if base == "_":
                    continue
                match = re.fullmatch(r"([\d.-]+)(?:\[(\d+)_(\d+)\])?", base)
                if match is None:
                    raise InvalidInputError(
                        f"{where}: a relation's base is a token id; got {base!r}"
                    )
                src, tgt = (None if g in (None, "0") else g for g in match.group(2, 3))
                head, tail = _span_at(parsed, match.group(1), src), _span_at(parsed, token, tgt)
                if head is None or tail is None:
                    raise InvalidInputError(
                        f"{where}: relation {base!r} links a token with no {short} span"
                    )
                label = lay.short if kind in ("*", "_") else kind
                out.append((_ESCAPED.sub(r"\1", label), head, tail))
    return out


def _chain_links(parsed: _File) -> list[tuple[str, int, int]]:
    """(type, head span, tail span) of each link of a chain to the next one: the type is
    the relation label the earlier link carries (the layer's name when it is unset)."""
    out = []
    links = sorted(parsed.chain.items())
    for ((chain, _), (head, kind)), ((other, _), (tail, _)) in itertools.pairwise(links):
        if chain == other:
            out.append((parsed.chosen.short if kind in ("*", "_", "") else kind, head, tail))
    return out


def _span_at(parsed: _File, token: str, index: str | None) -> int | None:
    """The span on ``token`` with that multi-token index (None: the token's only span)."""
    here = parsed.on_token.get(token, {})
    if index in here:
        return here[index]
    only = set(here.values())
    return only.pop() if index is None and len(only) == 1 else None


def _offsets(fields: list[str], needed: int, where: str) -> tuple[int, int]:
    """Begin and end of a token line with at least ``needed + 1`` columns."""
    if len(fields) <= needed:
        raise InvalidInputError(
            f"{where}: a token line needs {needed + 1} tab-separated columns for the "
            f"layers of the header; got {len(fields)}"
        )
    match = re.fullmatch(r"(\d+)-(\d+)", fields[1])
    if match is None:
        raise InvalidInputError(
            f"{where}: the second column is the token's 'begin-end' offsets; got {fields[1]!r}"
        )
    return int(match.group(1)), int(match.group(2))


def _cell(cell: str) -> list[tuple[str, str | None]]:
    """The annotations of a cell: (value, multi-token index or None) per stacked value."""
    if cell == "_":
        return []
    out: list[tuple[str, str | None]] = []
    for piece in _STACK.split(cell):
        if piece == "_":  # an empty place in a stack of another layer's annotations
            continue
        match = _INDEXED.match(piece)
        assert match is not None  # the pattern matches every string
        value, index = match.group(1), match.group(2)
        out.append((_ESCAPED.sub(r"\1", value), index))
    return out
