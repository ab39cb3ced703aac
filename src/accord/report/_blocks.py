"""The pieces a report is made of: sections of blocks (text, key figures, tables, figures).

Section builders return these plain dataclasses; the template renders any of them, so a new
section needs no template change. Every string here is user-visible text and is escaped by the
template, except :attr:`Figure.svg`, which is markup produced by :mod:`accord.report.figures`.
Numbers arrive already formatted for display (the library never rounds; the report rounds
only here, for the reader).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from .._names import shown_name

Tone = Literal["good", "fair", "poor", "neutral"]

__all__ = [
    "Block",
    "Column",
    "CopyText",
    "Details",
    "Figure",
    "KeyFigure",
    "KeyFigures",
    "MethodNote",
    "Note",
    "Paragraph",
    "Section",
    "Table",
    "fmt",
    "fmt_ci",
    "fmt_int",
    "fmt_p",
    "fmt_pct",
]


@dataclasses.dataclass(frozen=True, slots=True)
class Paragraph:
    """A paragraph of plain text."""

    text: str
    kind: str = "paragraph"


@dataclasses.dataclass(frozen=True, slots=True)
class Note:
    """A highlighted remark: a caveat, or why something is undefined."""

    text: str
    tone: Tone = "neutral"
    kind: str = "note"


@dataclasses.dataclass(frozen=True, slots=True)
class KeyFigure:
    """One headline number with its label and a line of context."""

    label: str
    value: str
    detail: str = ""
    tone: Tone = "neutral"


@dataclasses.dataclass(frozen=True, slots=True)
class KeyFigures:
    """A row of headline numbers."""

    items: tuple[KeyFigure, ...]
    kind: str = "keyfigures"


@dataclasses.dataclass(frozen=True, slots=True)
class Table:
    """A table of display strings.

    Attributes
    ----------
    columns : tuple of str
        Column headers.
    rows : tuple of tuple of str
        Cells, already formatted.
    numeric : tuple of bool
        Which columns hold numbers (right-aligned, tabular figures).
    caption : str
        Shown under the table.
    row_tones : tuple of Tone
        Optional emphasis per row (empty: none).
    isolated : tuple of bool
        Which columns hold names (items, raters, labels): each cell is isolated from its
        surroundings for bidirectional text (``<bdi>``).
    """

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...] = ()
    caption: str = ""
    row_tones: tuple[Tone, ...] = ()
    isolated: tuple[bool, ...] = ()
    kind: str = "table"

    @classmethod
    def of(
        cls,
        columns: Sequence[Column],
        rows: Iterable[Any],
        caption: str = "",
        row_tones: Sequence[Tone] = (),
    ) -> Table:
        """The table of ``rows`` (records, named tuples or any row the columns read), one
        cell per :class:`Column`.

        Examples
        --------
        >>> t = Table.of(
        ...     (Column.text("rater", "rater"), Column("kappa", "kappa")),
        ...     [{"rater": "a", "kappa": 0.51234}],
        ... )
        >>> t.columns, t.rows, t.numeric
        (('rater', 'kappa'), (('a', '0.512'),), (False, True))
        """
        return cls(
            tuple(c.header for c in columns),
            tuple(tuple(c.cell(row) for c in columns) for row in rows),
            tuple(c.numeric for c in columns),
            caption,
            tuple(row_tones),
            tuple(c.isolated for c in columns),
        )

    @classmethod
    def facts(cls, rows: Iterable[tuple[str, str]]) -> Table:
        """Facts as a table without headers: what, and its value (what was read)."""
        return cls.of((Column.text("", 0), Column.text("", 1)), rows)

    def is_numeric(self, index: int) -> bool:
        """Whether column ``index`` holds numbers."""
        return index < len(self.numeric) and self.numeric[index]

    def is_isolated(self, index: int) -> bool:
        """Whether column ``index`` holds names (shown in ``<bdi>``)."""
        return index < len(self.isolated) and self.isolated[index]

    def tone(self, index: int) -> str:
        """Tone of row ``index`` ("" when none)."""
        return self.row_tones[index] if index < len(self.row_tones) else ""


@dataclasses.dataclass(frozen=True, slots=True)
class Figure:
    """An inline SVG figure with its caption and a text alternative."""

    svg: str
    caption: str
    alt: str
    kind: str = "figure"


@dataclasses.dataclass(frozen=True, slots=True)
class Details:
    """Blocks folded under a summary line (opened by the reader, no script needed)."""

    summary: str
    blocks: tuple[Block, ...]
    kind: str = "details"


@dataclasses.dataclass(frozen=True, slots=True)
class CopyText:
    """Text for the reader to copy as it is (the methods paragraph): a click selects all of
    it, with no script."""

    text: str
    kind: str = "copy"


Block = Paragraph | Note | KeyFigures | Table | Figure | Details | CopyText


@dataclasses.dataclass(frozen=True, slots=True)
class MethodNote:
    """What the methods section says about one estimator or convention.

    Attributes
    ----------
    topic : str
        The estimator or convention, e.g. "Fleiss' kappa".
    text : str
        How it was computed, in words (usually the result's ``method``).
    references : tuple of str
        Full references (author, year, title, venue, DOI); numbered in the report.
    """

    topic: str
    text: str
    references: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Section:
    """One section of the report.

    Attributes
    ----------
    id : str
        Anchor of the section (letters, digits and dashes).
    title : str
    lead : str
        The section's answer in one or two sentences, shown first.
    blocks : tuple of Block
    methods : tuple of MethodNote
        What the methods section must name for this section.
    nav : str
        A shorter title for the page's navigation bar (empty: the title).
    """

    id: str
    title: str
    lead: str
    blocks: tuple[Block, ...]
    methods: tuple[MethodNote, ...] = ()
    nav: str = ""


# ------------------------------------------------------------------ display formatting


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def fmt(value: Any, digits: int = 3) -> str:
    """A number rounded for display; an en dash when undefined."""
    if value is None or not _finite(value):
        if isinstance(value, float) and math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return "\u2013"
    out = f"{float(value):.{digits}f}"
    return "0." + "0" * digits if out == "-0." + "0" * digits else out


def fmt_int(value: Any) -> str:
    """A count with thousands separators."""
    if value is None or not _finite(value):
        return "\u2013"
    return f"{int(value):,}"


def fmt_pct(value: Any, digits: int = 1) -> str:
    """A proportion as a percentage."""
    if value is None or not _finite(value):
        return "\u2013"
    return f"{100.0 * float(value):.{digits}f}%"


def fmt_p(value: Any) -> str:
    """A p-value: three decimals, or ``< 0.001``; an en dash when undefined."""
    if value is None or not _finite(value):
        return "\u2013"
    return "< 0.001" if float(value) < 0.001 else fmt(value)


def fmt_ci(low: Any, high: Any, digits: int = 3) -> str:
    """An interval ``low to high`` (more decimals when its ends would read alike); an en
    dash when undefined."""
    if not (_finite(low) and _finite(high)):
        return "\u2013"
    from .._verdict import interval_digits

    digits = interval_digits(float(low), float(high), digits)
    return f"{fmt(low, digits)} to {fmt(high, digits)}"


@dataclasses.dataclass(frozen=True, slots=True)
class Column:
    """One column of a :class:`Table` (:meth:`Table.of`): its header, what it takes from a
    row, and how that is shown.

    Attributes
    ----------
    header : str
    value : str, int or callable
        The row's field (a key of a record, an attribute of a named tuple, a position in a
        tuple), or a function of the row.
    show : callable
        The value as display text (default :func:`fmt`: three decimals).
    numeric : bool
        Whether the column holds numbers (right-aligned, tabular figures).
    isolated : bool
        Whether the column holds names, each isolated for bidirectional text.
    """

    header: str
    value: str | int | Callable[[Any], Any]
    show: Callable[[Any], str] = fmt
    numeric: bool = True
    isolated: bool = False

    @classmethod
    def text(cls, header: str, value: str | int | Callable[[Any], Any]) -> Column:
        """A column of text: the value as written, left-aligned."""
        return cls(header, value, str, numeric=False)

    @classmethod
    def name(cls, header: str, value: str | int | Callable[[Any], Any]) -> Column:
        """A column of names (items, raters, labels): bidirectional controls shown as
        escapes, names over :data:`~accord._names.NAME_MAX` characters elided, each cell
        isolated (``<bdi>``).

        >>> print(Column.name("rater", 0).cell(("\u202egnp.exe",)))
        \u202egnp.exe
        """
        return cls(header, value, shown_name, numeric=False, isolated=True)

    def cell(self, row: Any) -> str:
        """The cell of ``row`` in this column."""
        if callable(self.value):
            value = self.value(row)
        elif isinstance(row, Mapping) or isinstance(self.value, int):
            value = row[self.value]
        else:
            value = getattr(row, self.value)
        return self.show(value)
