"""Reader for span annotations exported by INCEpTION and WebAnno as WebAnno TSV 3."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pandas as pd

from .._errors import InvalidInputError
from ..data.spans import Spans
from .files import read_text_file, text_lines
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
    """Read the spans of WebAnno TSV 3 files (INCEpTION and WebAnno exports), one folder
    per annotator.

    Parameters
    ----------
    path : str or Path
        A folder of annotator subfolders, each holding one ``<document>.tsv`` per
        document (the layout :func:`accord.read_brat` reads); the annotator is the
        subfolder's name.
    layer : str, optional
        The span layer (``#T_SP=`` line) to read, by its full or short name
        (``webanno.custom.Entity`` or ``Entity``); needed when the files declare several.
    feature : str, optional
        The feature of the layer that gives the label (default: its first feature).
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
    if not root.is_dir():
        raise FileNotFoundError(2, "No such folder", str(root))
    files = _annotator_files(root)
    columns = SpanColumns()
    lengths: dict[str, int] = {}
    for annotator, docs in files.items():
        for doc, file in docs.items():
            end = _read_file(file, annotator, doc, layer, feature, encoding, columns)
            lengths[doc] = max(lengths.get(doc, 0), end)
    return columns.spans(
        list(files),
        sorted(lengths),
        unit="character",
        source=str(root),
        lengths=lengths,
    )


def _annotator_files(root: Path) -> dict[str, dict[str, Path]]:
    """Per annotator subfolder (sorted) holding .tsv files: document name -> file."""
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    found = {f.name: sorted(f.rglob("*.tsv")) for f in folders}
    out = {
        a: {p.relative_to(root / a).with_suffix("").as_posix(): p for p in tsv}
        for a, tsv in found.items()
        if tsv
    }
    if not out:
        raise InvalidInputError(
            f"{root}: no annotator folders with .tsv files (expected {root}/<annotator>/*.tsv)"
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
    """The span layer asked for (or the only one) and the column of its label feature."""
    spans = [lay for lay in layers if lay.kind == "SP"]
    if layer is not None:
        spans = [lay for lay in spans if layer in (lay.name, lay.name.rsplit(".", 1)[-1])]
    names = [lay.name for lay in layers if lay.kind == "SP"]
    if len(spans) != 1:
        asked = "no span layer (#T_SP=)" if not names else f"span layers {names}"
        hint = "; choose one with layer=" if layer is None and len(spans) > 1 else ""
        wanted = f" named {layer!r}" if layer is not None else ""
        raise InvalidInputError(f"{where}: the file declares {asked}, not one{wanted}{hint}")
    chosen = spans[0]
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


def _parse(file: Path, layer: str | None, feature: str | None, encoding: str) -> _File:
    """Read one file: its layers, token lines and the spans of the chosen layer."""
    lines = list(text_lines(read_text_file(file, encoding=encoding)))
    layers = _header(lines, str(file))
    chosen, column = _choose(layers, layer, feature, str(file))
    short = chosen.name.rsplit(".", 1)[-1]
    out = _File([], [], {}, [], layers, chosen, 0)
    indexed: dict[str, int] = {}  # multi-token index -> span number
    for number, line in enumerate(lines, start=1):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        begin, end = _offsets(fields, 3 + column, f"{file}, line {number}")
        out.rows.append((number, fields[0], fields))
        out.last = max(out.last, end)
        here = out.on_token.setdefault(fields[0], {})
        for value, index in _cell(fields[3 + column]):
            label = short if value == "*" else value
            if index is None or index not in indexed:
                out.bounds.append([begin, end])
                out.labels.append(label)
                if index is not None:
                    indexed[index] = len(out.labels) - 1
            at = indexed[index] if index is not None else len(out.labels) - 1
            span = out.bounds[at]
            span[0], span[1] = min(span[0], begin), max(span[1], end)
            here.setdefault(index, at)
    return out


def _read_file(
    file: Path,
    annotator: str,
    doc: str,
    layer: str | None,
    feature: str | None,
    encoding: str,
    columns: SpanColumns,
) -> int:
    """Add the spans of one file to ``columns``; the end of its last token."""
    parsed = _parse(file, layer, feature, encoding)
    for (start, end), label in zip(parsed.bounds, parsed.labels, strict=True):
        columns.add(annotator, doc, start, end, label)
    return parsed.last


def read_webanno_tsv_relations(
    path: str | Path, *, layer: str | None = None, encoding: str = "utf-8"
) -> pd.DataFrame:
    """The relations of WebAnno TSV 3 files, one row per relation, with the spans they link.

    Parameters
    ----------
    path : str or Path
        The folder of annotator subfolders that :func:`accord.read_webanno_tsv` reads.
    layer : str, optional
        The span layer, as for :func:`accord.read_webanno_tsv`; every relation layer
        (``#T_RL=``) whose base (``BT_``) is that layer is read, its first feature as type.
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
        A base column that names no annotated span, naming the file and line.

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
    for annotator, docs in _annotator_files(Path(path)).items():
        for doc, file in docs.items():
            parsed = _parse(file, layer, None, encoding)
            for kind, head, tail in _links(parsed, str(file)):
                ends = {**_ends("head", parsed, head), **_ends("tail", parsed, tail)}
                rows.append({"annotator": annotator, "document": doc, "type": kind, **ends})
    columns = ["annotator", "document", "type", *(f"{e}_{k}" for e in ("head", "tail")
               for k in ("start", "end", "label"))]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def _ends(end: str, parsed: _File, span: int) -> dict[str, object]:
    """``<end>_start``, ``<end>_end`` and ``<end>_label`` of a span."""
    start, stop = parsed.bounds[span]
    return {f"{end}_start": start, f"{end}_end": stop, f"{end}_label": parsed.labels[span]}


def _links(parsed: _File, file: str) -> list[tuple[str, int, int]]:
    """(type, head span, tail span) of every relation on the chosen span layer."""
    out = []
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
                label = lay.name.rsplit(".", 1)[-1] if kind in ("*", "_") else kind
                out.append((_ESCAPED.sub(r"\1", label), head, tail))
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
