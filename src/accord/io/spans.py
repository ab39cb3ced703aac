"""Readers for span annotations: long tables, brat standoff folders and BIO token columns.

Each reader returns a validated :class:`accord.Spans`; what a reader skipped or interpreted is
listed in ``Spans.notes``. Errors name the file and line (brat, BIO) or the row (tables).
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, TypeAlias

import pandas as pd

from .._errors import AccordWarning, InvalidInputError
from .._validate import check_choice, counted
from ..data.spans import Spans
from .files import read_text_file, text_lines
from .gathered import SpanColumns
from .ratings import FileFormat, read_table

__all__ = [
    "Discontinuous",
    "read_bio",
    "read_brat",
    "read_brat_attributes",
    "read_brat_relations",
    "read_rttm",
    "read_spans",
    "read_texts",
]

Discontinuous: TypeAlias = Literal["raise", "split", "hull"]
"""What to do with a brat span made of several fragments."""


def read_texts(folder: str | Path, *, encoding: str = "utf-8") -> dict[str, str]:
    """Document texts from a folder of ``<document>.txt`` files (searched recursively).

    The document name is the path below ``folder`` without the ``.txt`` suffix, with ``/``
    separators. Line ends are kept as they are in the file, so offsets count ``\\r\\n`` as two
    characters, as brat does.

    References
    ----------
    .. [1] brat standoff format (see :func:`read_brat`). https://brat.nlplab.org/standoff.html
    """
    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(2, "No such folder", str(root))
    return {
        p.relative_to(root).with_suffix("").as_posix(): read_text_file(p, encoding=encoding)
        for p in sorted(root.rglob("*.txt"))
    }


def read_spans(
    path: str | Path,
    *,
    annotator: str = "annotator",
    document: str = "document",
    start: str = "start",
    end: str = "end",
    label: str | None = "label",
    texts: str | Path | None = None,
    file_format: FileFormat | None = None,
    sep: str | None = None,
    encoding: str | None = None,
) -> Spans:
    """Read spans from a long table (CSV, TSV, Parquet or JSON Lines), one row per span.

    Parameters
    ----------
    path : str or Path
        The table.
    annotator, document, start, end, label : str
        Column names; ``label=None`` when spans carry no label. Offsets are 0-based,
        ``end`` exclusive.
    texts : str or Path, optional
        A folder of ``<document>.txt`` files (see :func:`read_texts`): offsets are checked
        against the texts, and ``match="token"`` tokenises them.
    file_format, sep, encoding
        As in :func:`accord.read_ratings` (which cites the formats: CSV, TSV, Parquet, JSON
        Lines).

    Returns
    -------
    Spans
        Rows with both offsets missing declare an annotator who marked nothing in a
        document (see :meth:`accord.Spans.from_frame`).

    Examples
    --------
    >>> import accord, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "s.csv").write_text("annotator,document,start,end,label\\n"
    ...     "a,d1,0,7,DRUG\\nb,d1,0,7,DRUG\\nb,d1,8,12,DRUG\\n")
    >>> accord.read_spans(d / "s.csv")
    Spans(3 spans by 2 annotators in 1 documents, 1 labels, character offsets)
    """
    if Path(path).is_dir():
        raise InvalidInputError(
            f"read_spans reads one table of spans (CSV, TSV, Parquet, JSON Lines), and {path} "
            "is a folder: accord.read_brat reads a folder of brat files, accord.read_rttm one "
            "of .rttm files, accord.read_webanno_tsv an INCEpTION or WebAnno export"
        )
    columns = [annotator, document, start, end] + ([label] if label is not None else [])
    frame = read_table(path, columns, file_format=file_format, sep=sep, encoding=encoding)
    text_map = read_texts(texts, encoding=encoding or "utf-8") if texts is not None else None
    return Spans.from_frame(
        frame,
        annotator=annotator,
        document=document,
        start=start,
        end=end,
        label=label,
        texts=text_map,
        source=str(path),
    )


_OFFSETS = re.compile(r"^\d+ \d+(;\d+ \d+)*$")

#: Mismatched texts named in a message.
_SHOWN = 3


@dataclasses.dataclass(frozen=True, slots=True)
class _Mismatch:
    """A ``T`` line whose quoted text differs from the document text at its offsets."""

    where: str
    ident: str
    offsets: str
    at: str
    quoted: str
    document: str


def _fragment_text(text: str, offsets: str) -> str:
    """The text at brat offsets ``"S E;S E"``, fragments joined by a space."""
    pairs = (fragment.split(" ") for fragment in offsets.split(";"))
    return " ".join(text[int(s) : int(e)] for s, e in pairs)


def _text_mismatch_message(
    mismatches: list[_Mismatch], n_checked: int, texts: dict[str, str]
) -> str:
    """The count and first few mismatches, and why when it can tell; raises when most of
    the checked lines mismatch, warns otherwise."""
    k = len(mismatches)
    shown = "; ".join(
        f"{m.where}: {m.ident} {m.offsets} is {m.at!r} in the text but the .ann quotes {m.quoted!r}"
        for m in mismatches[:_SHOWN]
    )
    more = f" and {k - _SHOWN} more" if k > _SHOWN else ""
    n_lf = sum(
        "\r\n" in texts[m.document]
        and _fragment_text(texts[m.document].replace("\r\n", "\n"), m.offsets).split()
        == m.quoted.split()
        for m in mismatches
    )
    hint = (
        f"; {n_lf} of them match when each \\r\\n line end counts as one character: the "
        ".txt files have \\r\\n (Windows) line ends but the offsets were made on \\n "
        "text, so convert the .txt files to \\n line ends"
        if n_lf
        else ""
    )
    message = (
        f"{k} of {n_checked} text-bound annotation{'' if n_checked == 1 else 's'} quote a text "
        f"other than the one at their offsets (first: {shown}{more}){hint}"
    )
    if 2 * k > n_checked:
        raise InvalidInputError(
            message + "; the offsets do not point at the annotated text (to read them anyway, "
            "skip the check: check_text=False, or --no-text-check on the command line)"
        )
    warnings.warn(message, AccordWarning, stacklevel=4)
    return message


def read_brat(
    path: str | Path,
    *,
    discontinuous: Discontinuous = "raise",
    encoding: str = "utf-8",
    check_text: bool = True,
) -> Spans:
    """Read brat standoff annotations: a folder per annotator of ``.ann`` files.

    ``path/<annotator>/<document>.ann`` (documents may sit in subfolders); the text-bound
    ``T`` lines are the spans (``T1<TAB>Label START END<TAB>text``). Texts are taken from
    ``<document>.txt`` beside the ``.ann`` file or at ``path/<document>.txt``.

    Parameters
    ----------
    path : str or Path
        The folder that holds one subfolder per annotator.
    discontinuous : {"raise", "split", "hull"}, default "raise"
        A ``T`` line with several fragments (``0 5;9 14``): ``"raise"`` names it in an
        error; ``"split"`` makes each fragment a span; ``"hull"`` makes one span from the
        first start to the last end. Both alternatives are counted in ``Spans.notes``.
    encoding : str, default "utf-8"
    check_text : bool, default True
        Compare the text each ``T`` line quotes with the document text at its offsets (see
        Notes); False skips the comparison.

    Returns
    -------
    Spans
        Character offsets; annotators are the subfolder names (sorted), documents the
        ``.ann`` paths below each annotator folder without the suffix. ``texts`` holds the
        texts found.

    Raises
    ------
    InvalidInputError
        Annotator folders with different sets of documents, a malformed ``T`` line,
        ``end <= start``, an offset past the end of the text, a discontinuous span with
        ``discontinuous="raise"``, texts of one document that differ between annotators,
        fewer than one annotator folder, or (with ``check_text``) most ``T`` lines quoting a
        text other than the one at their offsets.

    Notes
    -----
    Lines that are not text-bound annotations (relations ``R``, events ``E``, attributes
    ``A``/``M``, normalisations ``N``, notes ``#``, equivalences ``*``) are skipped and
    counted in ``notes``; the ``T`` lines that events use as triggers are read as spans.
    An annotator whose ``.ann`` files hold no ``T`` line is kept as an annotator with no
    spans. Subfolders with no ``.ann`` file are not annotators; ``notes`` names them.

    Where the document text is known, the text a ``T`` line quotes after its offsets is
    compared with the text at those offsets (runs of white space count as one space, and the
    fragments of a discontinuous span are joined by a space, as brat writes them). Offsets
    that do not point at the quoted text are counted in ``notes`` with the first few, and an
    :class:`~accord.AccordWarning` says so; when most of the quoted texts differ, the offsets
    are taken to be wrong and an error names the first ones. A ``.txt`` file with ``\\r\\n``
    line ends read with offsets made on ``\\n`` text is the usual cause, and the message says
    so when it is. A span given twice by one annotator is counted once (see
    :meth:`accord.Spans.from_frame`).

    References
    ----------
    .. [1] brat standoff format. https://brat.nlplab.org/standoff.html
    .. [2] Stenetorp, P., Pyysalo, S., Topić, G., Ohta, T., Ananiadou, S., & Tsujii, J.
       (2012). brat: a web-based tool for NLP-assisted text annotation. Proceedings of the
       Demonstrations at EACL 2012, 102-107. https://aclanthology.org/E12-2021/

    Examples
    --------
    >>> import accord
    >>> s = accord.read_brat(accord.datasets.path("spans"))
    >>> s.annotators, s.documents
    (('ann1', 'ann2', 'ann3'), ('note1', 'note2'))
    """
    check_choice("discontinuous", discontinuous, ("raise", "split", "hull"), "read_brat")
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(2, "No such folder", str(root))
    if not root.is_dir():
        raise InvalidInputError(f"{root}: brat input is a folder with one subfolder per annotator")
    notes: list[str] = []
    docs_of = _brat_annotators(root, notes)
    annotators = list(docs_of)
    all_docs = sorted(set().union(*(set(d) for d in docs_of.values())))
    _check_same_documents(root, docs_of, all_docs)
    texts = _brat_texts(root, docs_of, all_docs, encoding)
    no_text = [d for d in all_docs if d not in texts]
    if no_text:
        notes.append(f"{len(no_text)} documents without a .txt file: offsets not checked")
    reader = _AnnReader(texts, encoding, discontinuous, check_text)
    for a in annotators:
        for d in all_docs:
            reader.read(docs_of[a][d], a, d)
    notes.extend(reader.notes())
    return reader.columns.spans(
        annotators, all_docs, unit="character", source=str(root), texts=texts, notes=notes
    )


def _brat_annotators(root: Path, notes: list[str]) -> dict[str, dict[str, Path]]:
    """Per annotator folder (sorted) holding .ann files: document name -> .ann file."""
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    ann_files = {f.name: sorted(f.rglob("*.ann")) for f in folders}
    skipped = [name for name, files in ann_files.items() if not files]
    if skipped:
        notes.append(f"subfolders without .ann files, not read as annotators: {skipped}")
    annotators = [name for name, files in ann_files.items() if files]
    if not annotators:
        raise InvalidInputError(
            f"{root}: no annotator folders with .ann files (expected {root}/<annotator>/*.ann)"
        )
    return {
        a: {p.relative_to(root / a).with_suffix("").as_posix(): p for p in ann_files[a]}
        for a in annotators
    }


def _check_same_documents(
    root: Path, docs_of: dict[str, dict[str, Path]], all_docs: list[str]
) -> None:
    for a, docs in docs_of.items():
        missing = [d for d in all_docs if d not in docs]
        if missing:
            shown = ", ".join(missing[:5]) + (
                f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            )
            raise InvalidInputError(
                f"{root}: annotator {a!r} has no .ann file for documents {shown}; every "
                "annotator folder must hold the same documents (an empty .ann file means "
                "nothing marked)"
            )


def _brat_texts(
    root: Path, docs_of: dict[str, dict[str, Path]], all_docs: list[str], encoding: str
) -> dict[str, str]:
    """The text of each document that has one: ``<document>.txt`` beside an annotator's
    .ann file or at ``root``; the copies must agree."""
    texts: dict[str, str] = {}
    for d in all_docs:
        found: dict[str, str] = {}
        for docs in docs_of.values():
            candidate = docs[d].with_suffix(".txt")
            if candidate.is_file():
                found[str(candidate)] = read_text_file(candidate, encoding=encoding)
        shared = root / f"{d}.txt"
        if shared.is_file():
            found[str(shared)] = read_text_file(shared, encoding=encoding)
        if len(set(found.values())) > 1:
            raise InvalidInputError(
                f"the texts of document {d!r} differ between {sorted(found)}; offsets would "
                "point at different characters"
            )
        if found:
            texts[d] = next(iter(found.values()))
    return texts


@dataclasses.dataclass
class _AnnReader:
    """Reads the ``T`` lines of .ann files into span columns, and tallies what else the
    files held, for ``Spans.notes``."""

    texts: dict[str, str]
    encoding: str
    discontinuous: Discontinuous
    check_text: bool
    columns: SpanColumns = dataclasses.field(default_factory=SpanColumns)
    mismatches: list[_Mismatch] = dataclasses.field(default_factory=list)
    n_checked: int = 0
    n_split: int = 0
    n_hull: int = 0
    n_other: int = 0

    def read(self, file: Path, annotator: str, document: str) -> None:
        """Add the spans of the ``T`` lines of one .ann file."""
        text = self.texts.get(document)
        lines = text_lines(read_text_file(file, encoding=self.encoding))
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            if not line.startswith("T"):
                self.n_other += 1
                continue
            where = f"{file}, line {number}"
            fields = line.split("\t")
            kind, offsets, fragments = _text_bound(where, line, fields, document, text)
            if self.check_text and text is not None and len(fields) > 2:
                self.n_checked += 1
                at = _fragment_text(text, offsets)
                quoted = "\t".join(fields[2:])
                if at.split() != quoted.split():
                    self.mismatches.append(
                        _Mismatch(where, fields[0], offsets, at, quoted, document)
                    )
            for s, e in self._joined(fragments, where, fields[0], offsets):
                self.columns.add(annotator, document, s, e, kind)

    def _joined(
        self, fragments: list[tuple[int, int]], where: str, ident: str, offsets: str
    ) -> list[tuple[int, int]]:
        """The spans of a line's fragments, as ``discontinuous`` says."""
        if len(fragments) == 1:
            return fragments
        if self.discontinuous == "raise":
            raise InvalidInputError(
                f"{where}: discontinuous span {ident} ({offsets}); pass "
                "discontinuous='split' (one span per fragment) or 'hull' (first "
                "start to last end)"
            )
        if self.discontinuous == "hull":
            self.n_hull += 1
            return [(fragments[0][0], max(e for _, e in fragments))]
        self.n_split += 1
        return fragments

    def notes(self) -> list[str]:
        """The notes, in words (the text check warns or raises, see
        :func:`_text_mismatch_message`)."""
        notes = []
        if self.mismatches:
            notes.append(_text_mismatch_message(self.mismatches, self.n_checked, self.texts))
        n = self.n_other
        if n:
            notes.append(
                f"skipped {n} line{' that is' if n == 1 else 's that are'} not "
                f"{'a ' if n == 1 else ''}text-bound (T) annotation{'' if n == 1 else 's'}"
            )
        if self.n_split:
            notes.append(
                f"split {self.n_split} discontinuous span{'' if self.n_split == 1 else 's'} "
                "into one span per fragment"
            )
        if self.n_hull:
            notes.append(
                f"read {self.n_hull} discontinuous span{'' if self.n_hull == 1 else 's'} as "
                "first start to last end"
            )
        return notes


def _text_bound(
    where: str, line: str, fields: list[str], document: str, text: str | None
) -> tuple[str, str, list[tuple[int, int]]]:
    """Label, offsets as written and fragments ``(start, end)`` of a ``T`` line, checked."""
    if len(fields) < 2 or " " not in fields[1]:
        raise InvalidInputError(
            f"{where}: a text-bound annotation needs 'ID<TAB>Label START END', got {line!r}"
        )
    kind, offsets = fields[1].split(" ", 1)
    if not _OFFSETS.match(offsets):
        raise InvalidInputError(
            f"{where}: offsets must be 'START END' or 'START END;START END...', got {offsets!r}"
        )
    fragments = [(int(s), int(e)) for s, e in (f.split(" ") for f in offsets.split(";"))]
    for s, e in fragments:
        if e <= s:
            raise InvalidInputError(f"{where}: span with end <= start ({s} {e}); end is exclusive")
        if text is not None and e > len(text):
            raise InvalidInputError(
                f"{where}: span {s}-{e} ends past the end of the text of "
                f"{document!r} ({len(text)} characters)"
            )
    return kind, offsets, fragments


_TAG = re.compile(r"^([BIESLU])-(.+)$")


def read_bio(
    path: str | Path,
    *,
    annotators: Sequence[str] | None = None,
    header: bool = False,
    sep: str | None = None,
    encoding: str = "utf-8",
) -> Spans:
    """Read CoNLL-style token columns: a token, then one BIO tag column per annotator.

    One token per line; a blank line ends a sentence; a line starting with ``-DOCSTART-``
    starts a new document. Tags are ``O``, ``B-X`` (begin a span of label X) and ``I-X``
    (inside); ``E-``/``L-`` (last) and ``S-``/``U-`` (single) from BIOES and BILOU are read too.

    Parameters
    ----------
    path : str or Path
        The file.
    annotators : sequence of str, optional
        Names of the tag columns, in order; default ``annotator_1``, ``annotator_2``, ...
        (or the header).
    header : bool, default False
        The first non-blank line names the columns (the token column's name is ignored).
    sep : str, optional
        Column separator; default any run of whitespace.
    encoding : str, default "utf-8"

    Returns
    -------
    Spans
        Token offsets (``unit="token"``): ``start`` is the index of the first token of the
        span in its document, ``end`` one past the last. Documents are named ``1``, ``2``,
        ... in file order after ``-DOCSTART-`` lines, or by the file name without suffix when
        there are none. Every document's length in tokens is known.

    Raises
    ------
    InvalidInputError
        A line with the wrong number of columns, or a tag that is not O or PREFIX-LABEL.

    Notes
    -----
    A span never crosses a sentence or document boundary. An ``I-X`` (or ``E-X``) that does
    not continue a span of label X starts a new span, as the CoNLL evaluation script
    ``conlleval`` reads it; ``notes`` counts such spans. A column of ``O`` only is an
    annotator with no spans.

    References
    ----------
    .. [1] Ramshaw, L. A., & Marcus, M. P. (1995). Text chunking using transformation-based
       learning. Third Workshop on Very Large Corpora. https://aclanthology.org/W95-0107/
    .. [2] Tjong Kim Sang, E. F., & Veenstra, J. (1999). Representing text chunks.
       Proceedings of EACL 1999. (The IOB1/IOB2 naming.)
    .. [3] Tjong Kim Sang, E. F., & Buchholz, S. (2000). Introduction to the CoNLL-2000 shared
       task: chunking. Proceedings of CoNLL-2000 and LLL-2000, 127-132. (``conlleval``.)
    .. [4] Tjong Kim Sang, E. F., & De Meulder, F. (2003). Introduction to the CoNLL-2003
       shared task: language-independent named entity recognition. Proceedings of CoNLL-2003,
       142-147. https://aclanthology.org/W03-0419/
    .. [5] Ratinov, L., & Roth, D. (2009). Design challenges and misconceptions in named
       entity recognition. Proceedings of CoNLL-2009, 147-155.
       https://doi.org/10.3115/1596374.1596399 (BILOU.)

    Examples
    --------
    >>> import accord, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "x.bio").write_text("Aspirin B-DRUG B-DRUG\\nreduces O O\\nfever B-DIS O\\n")
    >>> s = accord.read_bio(d / "x.bio", annotators=["ann1", "ann2"])
    >>> s.to_frame()
      annotator document  start  end label
    0      ann1        x      0    1  DRUG
    1      ann1        x      2    3   DIS
    2      ann2        x      0    1  DRUG
    """
    p = Path(path)
    lines = read_text_file(p, encoding=encoding, what="BIO").splitlines()
    names: list[str] | None = list(annotators) if annotators is not None else None
    reader = _BioReader.of(p, lines)
    header_pending = header
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            reader.close_all()
            continue
        if line.startswith("-DOCSTART-"):
            reader.new_document()
            continue
        fields = line.split(sep) if sep is not None else line.split()
        if header_pending:
            header_pending = False
            if names is None:
                names = [f.strip() for f in fields[1:]]
            reader.set_columns(len(fields))
            continue
        reader.read(number, fields)
    reader.close_all()
    names = _tag_column_names(p, reader.n_cols, names)
    columns = reader.columns
    columns.annotator = [names[k] for k in columns.annotator]
    notes = []
    if reader.n_from_inside:
        notes.append(
            f"{reader.n_from_inside} spans begin with I-, E- or L- (read as a new span, as "
            "conlleval does)"
        )
    return columns.spans(
        sorted(names),
        sorted(reader.documents),
        unit="token",
        source=str(p),
        lengths=reader.lengths,
        notes=notes,
    )


def _tag_column_names(p: Path, n_cols: int | None, names: list[str] | None) -> list[str]:
    """The annotators' names, checked against the tag columns read."""
    if n_cols is None:
        raise InvalidInputError(f"{p}: no token lines")
    n_ann = n_cols - 1
    if names is None:
        names = [f"annotator_{k + 1}" for k in range(n_ann)]
    if len(names) != n_ann:
        raise InvalidInputError(
            f"{p}: {n_ann} tag columns but {len(names)} annotator names ({names})"
        )
    if len(set(names)) != len(names):
        raise InvalidInputError(f"{p}: annotator names repeat: {names}")
    return names


@dataclasses.dataclass
class _BioReader:
    """Reads token lines into span columns: per tag column, the span open at ``position``
    (its label and first token), closed by ``O``, a new ``B-``, a blank line or a document
    boundary. Annotators are tag column indices until the names are known."""

    path: Path
    has_docstart: bool
    doc_name: str
    documents: list[str]
    lengths: dict[str, int]
    columns: SpanColumns = dataclasses.field(default_factory=SpanColumns)
    open_spans: list[tuple[str, int] | None] = dataclasses.field(default_factory=list)
    n_cols: int | None = None
    position: int = 0
    doc_index: int = 0
    n_from_inside: int = 0

    @classmethod
    def of(cls, path: Path, lines: list[str]) -> _BioReader:
        """A reader for ``lines``: documents after ``-DOCSTART-`` lines, else one document
        named after the file."""
        has_docstart = any(line.startswith("-DOCSTART-") for line in lines)
        if has_docstart:
            return cls(path, True, "1", [], {})
        return cls(path, False, path.stem, [path.stem], {path.stem: 0})

    def set_columns(self, n_cols: int) -> None:
        """The number of columns: a token and one tag per annotator."""
        self.n_cols = n_cols
        self.open_spans = [None] * (n_cols - 1)

    def close(self, k: int, at: int | None = None) -> None:
        """End the span open in tag column ``k`` (if any) before token ``at``."""
        current = self.open_spans[k]
        if current is not None:
            end = self.position if at is None else at
            self.columns.add(k, self.doc_name, current[1], end, current[0])
            self.open_spans[k] = None

    def close_all(self) -> None:
        """End every open span (a sentence or document boundary)."""
        for k in range(len(self.open_spans)):
            self.close(k)

    def new_document(self) -> None:
        """A ``-DOCSTART-`` line."""
        self.close_all()
        if self.has_docstart:
            self.doc_index += 1
            self.doc_name = str(self.doc_index)
            self.documents.append(self.doc_name)
            self.lengths[self.doc_name] = 0
            self.position = 0

    def read(self, number: int, fields: list[str]) -> None:
        """One token line (1-based ``number``): its tags open, continue or close spans."""
        p = self.path
        if self.n_cols is None:
            if len(fields) < 2:
                raise InvalidInputError(
                    f"{p}, line {number}: expected a token and one tag column per annotator, "
                    f"got {len(fields)} column"
                )
            self.set_columns(len(fields))
        if len(fields) != self.n_cols:
            raise InvalidInputError(
                f"{p}, line {number}: expected {self.n_cols} columns (a token and one tag per "
                f"annotator), got {len(fields)}"
            )
        if self.has_docstart and not self.documents:
            raise InvalidInputError(f"{p}, line {number}: a token before the first -DOCSTART-")
        for k, raw in enumerate(fields[1:]):
            self._tag(number, k, raw.strip())
        self.position += 1
        self.lengths[self.doc_name] = self.position

    def _tag(self, number: int, k: int, tag: str) -> None:
        if tag == "O":
            self.close(k)
            return
        m = _TAG.match(tag)
        if m is None:
            raise InvalidInputError(
                f"{self.path}, line {number}, column {k + 2}: {tag!r} is not a tag (O, B-X, "
                "I-X; E-, L-, S-, U- also read)"
            )
        prefix, lab = m.group(1), m.group(2)
        current = self.open_spans[k]
        continues = prefix in "IEL" and current is not None and current[0] == lab
        if not continues:
            self.close(k)
            if prefix in "IEL":
                self.n_from_inside += 1
            self.open_spans[k] = (lab, self.position)
        if prefix in "ESLU":
            self.close(k, at=self.position + 1)


def read_rttm(
    path: str | Path | Sequence[str | Path],
    *,
    encoding: str = "utf-8",
) -> Spans:
    """Read speaker turns from RTTM files, one file per annotator, as spans in milliseconds.

    Each ``SPEAKER`` line (``SPEAKER <file> <channel> <onset> <duration> <NA> <NA> <speaker>
    <NA> <NA>``, times in seconds) is a span of document ``<file>`` labelled ``<speaker>``,
    from ``round(1000 * onset)`` to ``round(1000 * (onset + duration))``.

    Parameters
    ----------
    path : str, Path or sequence of them
        A folder of ``<annotator>.rttm`` files, or the files themselves; the annotator is
        the file name without ``.rttm``.
    encoding : str, default "utf-8"

    Returns
    -------
    Spans
        ``unit="millisecond"``; every annotator is taken to have annotated every file
        named in any of the RTTM files (an annotator with no turn in a file marked nothing
        there).

    Raises
    ------
    InvalidInputError
        No RTTM file, a ``SPEAKER`` line with fewer than 8 fields or a time that is not a
        number (naming the file and line), a negative onset, or a turn shorter than a
        millisecond.

    Notes
    -----
    Lines of other types (``SPKR-INFO``, ``LEXEME``, ...) and ``;;`` comments are skipped
    and counted in ``notes``; blank lines are skipped. The channel is not read: two
    channels of one file are one document. Speaker names are labels; diarization systems
    name speakers arbitrarily (``spk0``), and then only label-free measures
    (``span_agreement(ignore_label=True)``, :math:`{}_{|u}\\alpha`) compare annotators.
    A speaker who overlaps another is fine for :func:`accord.unitizing_alpha_1995` (one
    label at a time) but not for :func:`accord.unitizing_alpha`, which takes each
    annotator's turns to be
    mutually exclusive.

    References
    ----------
    .. [1] NIST (2009). The 2009 (RT-09) Rich Transcription Meeting Recognition Evaluation
       Plan, appendix A (the RTTM format). https://www.nist.gov/itl/iad/mig/rich-transcription-evaluation

    Examples
    --------
    >>> import accord, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.rttm").write_text("SPEAKER f1 1 0.50 1.25 <NA> <NA> alice <NA> <NA>\\n")
    >>> _ = (d / "b.rttm").write_text("SPEAKER f1 1 0.40 1.40 <NA> <NA> alice <NA> <NA>\\n")
    >>> s = accord.read_rttm(d)
    >>> s.to_frame()[["annotator", "start", "end", "label"]]
      annotator  start   end  label
    0         a    500  1750  alice
    1         b    400  1800  alice
    """
    files = _rttm_files(path)
    columns = SpanColumns()
    documents: set[str] = set()
    skipped = 0
    for file in files:
        text = read_text_file(file, encoding=encoding)
        for number, line in enumerate(text_lines(text), start=1):
            fields = line.split()
            if not fields:
                continue
            if fields[0] != "SPEAKER":
                skipped += 1
                continue
            where = f"{file}, line {number}"
            doc, start, end, speaker = _rttm_turn(fields, where)
            documents.add(doc)
            columns.add(file.stem, doc, start, end, speaker)
    are = "is" if skipped == 1 else "are"
    notes = [f"skipped {counted(skipped, 'line')} that {are} not SPEAKER turns"] if skipped else []
    return columns.spans(
        sorted(f.stem for f in files),
        sorted(documents),
        unit="millisecond",
        source=str(path) if isinstance(path, str | Path) else str(files[0].parent),
        notes=notes,
    )


def _rttm_files(path: str | Path | Sequence[str | Path]) -> list[Path]:
    """The RTTM files: those of a folder (sorted), or the paths given."""
    if isinstance(path, str | Path):
        root = Path(path)
        if not root.exists():
            raise FileNotFoundError(2, "No such file or folder", str(root))
        files = sorted(root.glob("*.rttm")) if root.is_dir() else [root]
    else:
        files = [Path(p) for p in path]
    if not files:
        raise InvalidInputError(f"{path}: no .rttm files (one file per annotator)")
    stems = [f.stem for f in files]
    if len(set(stems)) < len(stems):
        raise InvalidInputError(f"two RTTM files share an annotator name: {sorted(stems)}")
    return files


def _rttm_turn(fields: list[str], where: str) -> tuple[str, int, int, str]:
    """Document, start and end (ms) and speaker of a SPEAKER line."""
    if len(fields) < 8:
        raise InvalidInputError(
            f"{where}: a SPEAKER line has at least 8 fields (type, file, channel, onset, "
            f"duration, ortho, subtype, speaker); got {len(fields)}"
        )
    try:
        onset, duration = float(fields[3]), float(fields[4])
    except ValueError:
        raise InvalidInputError(
            f"{where}: onset and duration must be numbers of seconds; got {fields[3]!r} and "
            f"{fields[4]!r}"
        ) from None
    start, end = round(1000 * onset), round(1000 * (onset + duration))
    if start < 0 or end <= start:
        raise InvalidInputError(
            f"{where}: a turn needs onset >= 0 and a duration of at least a millisecond; got "
            f"onset {fields[3]}, duration {fields[4]}"
        )
    return fields[1], start, end, fields[7]


_ENDS = ("start", "end", "label")


def _brat_links(
    path: str | Path, encoding: str
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The relation (``R``) and attribute (``A``/``M``) lines of a brat folder, their
    arguments resolved to the spans of the ``T`` lines they name (a discontinuous span as
    first start to last end)."""
    root = Path(path)
    if not root.is_dir():
        raise InvalidInputError(f"{root}: brat input is a folder with one subfolder per annotator")
    docs_of = _brat_annotators(root, [])
    all_docs = sorted(set().union(*(set(d) for d in docs_of.values())))
    _check_same_documents(root, docs_of, all_docs)
    relations: list[dict[str, object]] = []
    attributes: list[dict[str, object]] = []
    for annotator, docs in docs_of.items():
        for document in all_docs:
            file = docs[document]
            lines = text_lines(read_text_file(file, encoding=encoding))
            bound: dict[str, tuple[int, int, str]] = {}
            for number, line in enumerate(lines, start=1):
                fields = line.split("\t")
                if line.startswith("T"):
                    kind, _, fragments = _text_bound(
                        f"{file}, line {number}", line, fields, document, None
                    )
                    bound[fields[0]] = (fragments[0][0], max(e for _, e in fragments), kind)
            for number, line in enumerate(lines, start=1):
                where = f"{file}, line {number}"
                fields = line.split("\t")
                base = {"annotator": annotator, "document": document}
                if line.startswith("R") and len(fields) >= 2:
                    relations.append({**base, **_relation(fields[1], bound, where)})
                elif line[:1] in ("A", "M") and len(fields) >= 2:
                    attributes.append({**base, **_attribute(fields[1], bound, where)})
    return relations, attributes


_Bound: TypeAlias = dict[str, tuple[int, int, str]]


def _target(ident: str, bound: _Bound, where: str) -> tuple[int, int, str]:
    """The (start, end, label) of the T annotation ``ident``."""
    if ident not in bound:
        raise InvalidInputError(
            f"{where}: {ident!r} is not a text-bound (T) annotation of the file"
        )
    return bound[ident]


def _relation(text: str, bound: dict[str, tuple[int, int, str]], where: str) -> dict[str, object]:
    """``Type Arg1:T1 Arg2:T2`` as the type and the head's and tail's start, end, label."""
    parts = text.split()
    args = dict(p.split(":", 1) for p in parts[1:] if ":" in p)
    if len(parts) < 3 or len(args) < 2:
        raise InvalidInputError(f"{where}: a relation needs 'Type Arg1:T1 Arg2:T2', got {text!r}")
    names = list(args)
    head = _target(args.get("Arg1", args[names[0]]), bound, where)
    tail = _target(args.get("Arg2", args[names[1]]), bound, where)
    row: dict[str, object] = {"type": parts[0]}
    row.update({f"head_{k}": v for k, v in zip(_ENDS, head, strict=True)})
    row.update({f"tail_{k}": v for k, v in zip(_ENDS, tail, strict=True)})
    return row


def _attribute(text: str, bound: dict[str, tuple[int, int, str]], where: str) -> dict[str, object]:
    """``Name T1 [Value]`` as the span's start, end, label, the name and the value
    (``"true"`` for a binary attribute)."""
    parts = text.split()
    if len(parts) < 2:
        raise InvalidInputError(f"{where}: an attribute needs 'Name T1 [Value]', got {text!r}")
    start, end, label = _target(parts[1], bound, where)
    value = parts[2] if len(parts) > 2 else "true"
    return {"start": start, "end": end, "label": label, "attribute": parts[0], "value": value}


def read_brat_relations(path: str | Path, *, encoding: str = "utf-8") -> pd.DataFrame:
    """The relations (``R`` lines) of a brat folder, one row per relation, with the spans
    they link.

    Parameters
    ----------
    path : str or Path
        The folder of annotator subfolders that :func:`read_brat` reads.
    encoding : str, default "utf-8"

    Returns
    -------
    DataFrame
        ``annotator``, ``document``, ``type``, ``head_start``, ``head_end``,
        ``head_label``, ``tail_start``, ``tail_end``, ``tail_label``: the input of
        :func:`accord.relation_agreement` (``Arg1`` is the head, ``Arg2`` the tail).

    Raises
    ------
    InvalidInputError
        A malformed ``R`` line, or one naming a ``T`` that the file does not have.

    Notes
    -----
    A discontinuous span is named by its first start and last end, as
    ``read_brat(discontinuous="hull")`` reads it. Equivalences (``*``) and events
    (``E``) are not read.

    Examples
    --------
    >>> import accord
    >>> rel = accord.read_brat_relations(accord.datasets.path("spans"))
    >>> rel[["annotator", "document", "type", "head_label", "tail_label"]]
      annotator document    type head_label tail_label
    0      ann1    note2  Treats       DRUG    DISEASE
    """
    relations, _ = _brat_links(path, encoding)
    columns = ["annotator", "document", "type", *(f"head_{k}" for k in _ENDS),
               *(f"tail_{k}" for k in _ENDS)]  # fmt: skip
    return pd.DataFrame(relations, columns=columns)


def read_brat_attributes(path: str | Path, *, encoding: str = "utf-8") -> pd.DataFrame:
    """The attributes (``A`` and ``M`` lines) of a brat folder, one row per attribute of a
    span.

    Parameters
    ----------
    path : str or Path
        The folder of annotator subfolders that :func:`read_brat` reads.
    encoding : str, default "utf-8"

    Returns
    -------
    DataFrame
        ``annotator``, ``document``, ``start``, ``end``, ``label`` (the span),
        ``attribute`` and ``value`` (``"true"`` for a binary attribute): the input of
        :func:`accord.attribute_agreement`.

    Raises
    ------
    InvalidInputError
        A malformed ``A`` line, or one naming a ``T`` that the file does not have.

    Examples
    --------
    >>> import accord
    >>> accord.read_brat_attributes(accord.datasets.path("spans")).columns.tolist()
    ['annotator', 'document', 'start', 'end', 'label', 'attribute', 'value']
    """
    _, attributes = _brat_links(path, encoding)
    columns = ["annotator", "document", *_ENDS, "attribute", "value"]
    return pd.DataFrame(attributes, columns=columns)
