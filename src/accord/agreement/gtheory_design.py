"""Generalizability-theory designs: the compact description, the effects, the coded scores.

A design is written as in Brennan (2001): facets crossed with ``x`` and nested with ``:``
(``r:p`` raters nested in persons), parentheses grouping, e.g. ``"p x r x o"``, ``"r:p"``,
``"p x (r:o)"``, ``"(p:s) x r"``. The object of measurement is ``p`` (or the first facet
written that is nested in no other, or the one named).
The effects of a design are the sets of facets closed under nesting (a facet comes with the
facets it is nested in), named as Brennan names them (``pr:o``).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._errors import InvalidInputError
from .._types import FloatArray, IntArray

__all__ = [
    "CodedScores",
    "Design",
    "Effect",
    "code_scores",
    "facet_design",
    "facet_specs",
    "parse_design",
    "recurring_note",
]

#: Columns read for the conventional one-letter facets when ``facets`` does not name them.
DEFAULT_COLUMNS = {"p": "item", "r": "rater", "o": "occasion", "t": "task", "s": "site"}
_TOKEN = re.compile(r"\s*(\(|\)|:|[x×*]\b|[x×*](?=\s|\()|[A-Za-z_][A-Za-z0-9_.]*)")


@dataclasses.dataclass(frozen=True, slots=True)
class Effect:
    """One effect (a source of variance) of a design.

    Attributes
    ----------
    facets : tuple of str
        Its facets (in the design's order).
    primary : tuple of str
        The facets that vary within the others (not a parent of another of its facets).
    name : str
        Brennan's name: the primary facets, then ``:`` and the nesting facets.
    """

    facets: tuple[str, ...]
    primary: tuple[str, ...]
    name: str


@dataclasses.dataclass(frozen=True, slots=True)
class Design:
    """A parsed design.

    Attributes
    ----------
    text : str
        The description as given.
    facets : tuple of str
        Facets in the order written.
    parents : dict of str to frozenset of str
        The facets each facet is nested in (transitively).
    effects : tuple of Effect
        Every effect, lower-order first; the last is confounded with the residual.
    object : str
        The object of measurement: ``p`` when the design has it, else the first facet written
        that is nested in no other.
    """

    text: str
    facets: tuple[str, ...]
    parents: Mapping[str, frozenset[str]]
    effects: tuple[Effect, ...]
    object: str

    def nesting(self) -> str:
        """What is nested in what, and what is crossed, in words."""
        parts = []
        for f in self.facets:
            if self.parents[f]:
                inside = ", ".join(sorted(self.parents[f], key=self.facets.index))
                parts.append(f"{f} nested in {inside}")
        crossed = [
            f"{a} x {b}"
            for a, b in itertools.combinations(self.facets, 2)
            if a not in self.parents[b] and b not in self.parents[a]
        ]
        if crossed:
            parts.append("crossed: " + ", ".join(crossed))
        return "; ".join(parts)


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise InvalidInputError(
                f"cannot read the design {text!r} at {text[pos:]!r}: write facets crossed with "
                "'x' and nested with ':', e.g. 'p x r x o', 'r:p', 'p x (r:o)', '(p:s) x r'"
            )
        out.append(m.group(1))
        pos = m.end()
    return out


class _Parser:
    """Recursive descent: expr := term ('x' term)*; term := atom (':' atom)*;
    atom := name | '(' expr ')'. ``a : b`` nests every facet of ``a`` in those of ``b``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.at = 0
        self.order: list[str] = []
        self.parents: dict[str, set[str]] = {}

    def fail(self, why: str) -> InvalidInputError:
        return InvalidInputError(f"cannot read the design {self.text!r}: {why}")

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def expr(self) -> list[str]:
        facets = self.term()
        while self.peek() in ("x", "×", "*"):
            self.at += 1
            facets += self.term()
        return facets

    def term(self) -> list[str]:
        inner = self.atom()
        while self.peek() == ":":
            self.at += 1
            outer = self.atom()
            for f in inner:
                self.parents[f].update(outer)
                for g in outer:
                    self.parents[f].update(self.parents[g])
            inner = inner + outer
        return inner

    def atom(self) -> list[str]:
        tok = self.peek()
        if tok == "(":
            self.at += 1
            facets = self.expr()
            if self.peek() != ")":
                raise self.fail("a '(' is not closed")
            self.at += 1
            return facets
        if tok is None or tok in (")", ":", "x", "×", "*"):
            raise self.fail(f"expected a facet, got {tok!r}")
        self.at += 1
        if tok in self.parents:
            raise self.fail(f"the facet {tok!r} is written twice")
        self.order.append(tok)
        self.parents[tok] = set()
        return [tok]


def _effect(facets: Sequence[str], parents: Mapping[str, frozenset[str]]) -> Effect:
    inner = {g for f in facets for g in parents[f]}
    primary = tuple(f for f in facets if f not in inner)
    nest = tuple(f for f in facets if f in inner)
    joiner = "" if all(len(f) == 1 for f in facets) else " x "
    name = joiner.join(primary) + (":" + joiner.join(nest) if nest else "")
    return Effect(tuple(facets), primary, name)


def parse_design(text: str, object_facet: str | None = None) -> Design:
    """Read a design description.

    >>> d = parse_design("p x (r:o)")
    >>> [e.name for e in d.effects]
    ['p', 'o', 'po', 'r:o', 'pr:o']
    >>> d.nesting()
    'r nested in o; crossed: p x r, p x o'
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError(f"the design must be a text such as 'p x r'; got {text!r}")
    parser = _Parser(text)
    parser.expr()
    if parser.peek() is not None:
        raise parser.fail(f"unexpected {parser.peek()!r}")
    order = tuple(parser.order)
    if len(order) < 2:
        raise parser.fail("a design needs the object of measurement and at least one facet")
    parents = {f: frozenset(parser.parents[f]) for f in order}
    if object_facet is None:
        object_facet = "p" if "p" in order else next(f for f in order if not parents[f])
    elif object_facet not in order:
        raise parser.fail(f"the object of measurement {object_facet!r} is not one of its facets")
    subsets = []
    for size in range(1, len(order) + 1):
        for combo in itertools.combinations(order, size):
            if all(parents[f] <= set(combo) for f in combo):
                subsets.append(combo)
    effects = tuple(_effect(s, parents) for s in subsets)
    return Design(text, order, parents, effects, object_facet)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class CodedScores:
    """Scores with one code per facet.

    Attributes
    ----------
    design : Design
    codes : dict of str to ndarray of int, shape (N,)
        Each facet's level: a nested facet's level is its label within its parents' levels.
    local : dict of str to ndarray of int, shape (N,)
        Each facet's index within its parents' levels (its code when not nested).
    levels : dict of str to int
        Levels of each facet (all of them, over every parent).
    per_parent : dict of str to int
        Most levels of a facet within one level of its parents.
    y : ndarray of float, shape (N,)
    balanced : bool
        One score in every cell of a full design, the same number of nested levels in every
        parent.
    notes : tuple of str
        What was read, e.g. labels of a nested facet that recur across its parents.
    """

    design: Design
    codes: Mapping[str, IntArray]
    local: Mapping[str, IntArray]
    levels: Mapping[str, int]
    per_parent: Mapping[str, int]
    y: FloatArray
    balanced: bool
    notes: tuple[str, ...]

    @property
    def n_scores(self) -> int:
        return int(self.y.size)

    def complete_objects(self) -> CodedScores | None:
        """The scores of the objects that have a score in every cell, when they are at least
        three and make a balanced design (else None)."""
        obj = self.codes[self.design.object]
        per_obj = np.bincount(obj, minlength=self.levels[self.design.object])
        full = int(per_obj.max())
        keep = per_obj[obj] == full
        if int((per_obj == full).sum()) < 3 or keep.all():
            return self if self.balanced else None
        raw = {f: pd.factorize(self.codes[f][keep])[0].astype(np.int64) for f in self.codes}
        sub = _nest_codes(self.design, raw, self.y[keep])
        return sub if sub.balanced else None

    def effect_codes(self, facets: Sequence[str]) -> tuple[IntArray, int]:
        """Codes 0..L-1 of the levels of ``facets`` jointly, and L."""
        key = np.zeros(self.y.size, dtype=np.int64)
        size = 1
        for f in facets:
            key = key * self.levels[f] + self.codes[f]
            size *= self.levels[f]
        if size <= max(self.y.size, 1 << 16):  # few joint levels: a lookup, no hashing
            present = np.bincount(key, minlength=size) > 0
            rank = np.cumsum(present) - 1
            return rank[key], int(rank[-1]) + 1
        codes, uniq = pd.factorize(key)
        return codes.astype(np.int64, copy=False), int(uniq.size)


def _factorize(values: Any, column: str) -> tuple[IntArray, int]:
    codes, uniq = pd.factorize(values, use_na_sentinel=True)
    if (codes < 0).any():
        row = int(np.flatnonzero(codes < 0)[0]) + 1
        raise InvalidInputError(f"column {column!r} has a missing value in row {row}")
    return codes.astype(np.int64, copy=False), len(uniq)


def _distinct(key: IntArray) -> IntArray:
    """The distinct values of ``key`` (hashing, no sort)."""
    out: IntArray = pd.unique(key)
    return out


def _check_crossing(
    design: Design, raw: Mapping[str, IntArray], columns: Mapping[str, str]
) -> None:
    """A facet the design crosses with another must not be nested in it in the data."""
    for a, b in itertools.combinations(design.facets, 2):
        if a in design.parents[b] or b in design.parents[a]:
            continue
        n_a, n_b = int(raw[a].max()) + 1, int(raw[b].max()) + 1
        pairs = _distinct(raw[a] * n_b + raw[b])
        for inner, outer, n_in, n_out in ((a, b, n_a, n_b), (b, a, n_b, n_a)):
            if n_out > 1 and n_in > 1 and pairs.size == n_in:
                raise InvalidInputError(
                    f"the design {design.text!r} crosses {inner} and {outer}, but in the data "
                    f"each level of {inner} (column {columns[inner]!r}) appears with one level "
                    f"of {outer} (column {columns[outer]!r}): {inner} is nested in {outer}; "
                    f"write '{inner}:{outer}' in the design"
                )


def code_scores(
    frame: pd.DataFrame, design: Design, columns: Mapping[str, str], score: str
) -> CodedScores:
    """Code a long table of scores (one row a score) for ``design``."""
    for f in design.facets:
        if columns[f] not in frame.columns:
            raise InvalidInputError(
                f"column {columns[f]!r} (facet {f!r} of the design) is not in the data; "
                f"columns: {list(map(str, frame.columns))}; name it with facets={{{f!r}: ...}}"
            )
    if score not in frame.columns:
        raise InvalidInputError(f"score column {score!r} is not in the data")
    y = pd.to_numeric(frame[score], errors="coerce").to_numpy(dtype=np.float64)
    keep = ~np.isnan(y)
    bad = np.flatnonzero(frame[score].notna().to_numpy() & ~keep)
    if bad.size:
        raise InvalidInputError(
            f"score column {score!r} has a non-numeric value {frame[score].iloc[bad[0]]!r} in "
            f"row {bad[0] + 1}"
        )
    frame, y = frame.loc[keep], y[keep]
    raw = {f: _factorize(frame[columns[f]].to_numpy(), columns[f])[0] for f in design.facets}
    for f in design.facets:
        if raw[f].size == 0 or int(raw[f].max()) < 1:
            raise InvalidInputError(
                f"facet {f!r} (column {columns[f]!r}) has {int(raw[f].max(initial=-1)) + 1} "
                "level in the data; a G-study needs at least 2 levels of every facet"
            )
    _check_crossing(design, raw, columns)
    return _nest_codes(design, raw, y)


def _nested_levels(raw_f: IntArray, pkey: IntArray) -> tuple[IntArray, IntArray, int, IntArray]:
    """Codes of the (parent, label) levels of a facet, each score's index within its parent,
    the number of levels, and the levels per parent."""
    n_raw = int(raw_f.max()) + 1
    codes, joint = pd.factorize(pkey * n_raw + raw_f)
    joint = np.asarray(joint, dtype=np.int64)
    order = np.lexsort((joint % n_raw, joint // n_raw))
    parent = joint[order] // n_raw
    starts = np.flatnonzero(np.concatenate([[True], parent[1:] != parent[:-1]]))
    per = np.diff(np.concatenate([starts, [parent.size]]))
    rank = np.empty(joint.size, dtype=np.int64)
    rank[order] = np.arange(joint.size) - np.repeat(starts, per)
    return codes.astype(np.int64), rank[codes], int(joint.size), per


def recurring_note(design: Design, facet: str) -> str:
    """The note on the labels of a nested facet that recur across the levels of its parents."""
    outer = sorted(design.parents[facet], key=design.facets.index)
    return (
        f"labels of {facet} recur across levels of {', '.join(outer)}: read as different "
        f"{facet} within each (nested)"
    )


def _nest_codes(design: Design, raw: Mapping[str, IntArray], y: FloatArray) -> CodedScores:
    codes: dict[str, IntArray] = {}
    local: dict[str, IntArray] = {}
    levels: dict[str, int] = {}
    per_parent: dict[str, int] = {}
    notes, unequal = [], False
    for f in design.facets:
        outer = sorted(design.parents[f], key=design.facets.index)
        if not outer:
            codes[f] = local[f] = raw[f]
            levels[f] = per_parent[f] = int(raw[f].max()) + 1
            continue
        pkey = np.zeros(y.size, dtype=np.int64)
        for g in outer:
            pkey = pkey * (int(raw[g].max()) + 1) + raw[g]
        codes[f], local[f], levels[f], per = _nested_levels(raw[f], pkey)
        per_parent[f] = int(per.max())
        unequal |= bool(per.min() != per.max())
        if levels[f] > int(raw[f].max()) + 1:
            notes.append(recurring_note(design, f))
    balanced = not unequal and _is_balanced(design, codes, levels, per_parent, y.size)
    return CodedScores(design, codes, local, levels, per_parent, y, balanced, tuple(notes))


def _is_balanced(
    design: Design,
    codes: Mapping[str, IntArray],
    levels: Mapping[str, int],
    per_parent: Mapping[str, int],
    n: int,
) -> bool:
    cells = 1
    for f in design.facets:
        cells *= per_parent[f]
    key = np.zeros(n, dtype=np.int64)
    for f in design.facets:
        key = key * levels[f] + codes[f]
    return n == cells and _distinct(key).size == n


def facet_design(
    frame: pd.DataFrame, *, item: str, rater: str, facet: str
) -> tuple[str, dict[str, str]]:
    """The two-facet design of items, raters and one more facet column, read from the data:
    ``"(p:s) x r"`` when each item has one level of ``facet`` (items nested in it: sites,
    clusters), ``"p x (r:o)"`` when each rater has one (raters nested in it), else
    ``"p x r x o"`` (crossed: occasions); and the column of each facet.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"i": [1, 1, 2, 2], "r": ["a", "b", "a", "b"],
    ...                      "site": ["x", "x", "y", "y"]})
    >>> facet_design(rows, item="i", rater="r", facet="site")
    ('(p:s) x r', {'p': 'i', 's': 'site', 'r': 'r'})
    """
    for column in (item, rater, facet):
        if column not in frame.columns:
            raise InvalidInputError(
                f"column {column!r} is not in the data; columns: {list(map(str, frame.columns))}"
            )
    if len({item, rater, facet}) < 3:
        raise InvalidInputError(
            f"facet column {facet!r} is the item or the rater column: name another column"
        )
    levels = frame[[item, rater, facet]].dropna()
    if levels[facet].nunique() < 2:
        raise InvalidInputError(
            f"facet column {facet!r} has {levels[facet].nunique()} level; a facet needs at least 2"
        )
    if (levels.groupby(item, sort=False)[facet].nunique() <= 1).all():
        return "(p:s) x r", {"p": item, "s": facet, "r": rater}
    if (levels.groupby(rater, sort=False)[facet].nunique() <= 1).all():
        return "p x (r:o)", {"p": item, "r": rater, "o": facet}
    return "p x r x o", {"p": item, "r": rater, "o": facet}


#: How a facet is written to ``accord agree --facet``, ``accord report --facet`` and
#: ``accord.report(facets=...)``: said in every error about one.
FACET_SPELLING = "COLUMN or FACET=COLUMN, e.g. occasion or o=occasion"


def facet_specs(specs: str | Sequence[Any], owner: str) -> tuple[tuple[str | None, str], ...]:
    """The facets a user wrote, as ``(facet, column)`` pairs: ``"o=occasion"`` names the
    facet ``o`` and the column it is read from; a bare ``"occasion"`` names the column, its
    facet the default one (``facet`` None). The same spec twice counts once; errors speak of
    ``owner`` (``"--facet"``, ``"facets"``).

    Raises
    ------
    InvalidInputError
        A spec that is not a string of that form, a facet ``p`` or ``r`` (the items and the
        raters, named by their own columns), or a facet named twice with two columns.

    Examples
    --------
    >>> facet_specs(["o=occasion", "site"], "--facet")
    (('o', 'occasion'), (None, 'site'))
    """
    given = (specs,) if isinstance(specs, str) else tuple(specs)
    out: dict[tuple[str | None, str], None] = {}
    for spec in given:
        out[_facet_spec(spec, owner)] = None
    names: dict[str, str] = {}
    for name, column in out:
        if name is not None and names.setdefault(name, column) != column:
            raise InvalidInputError(
                f"{owner} names the facet {name!r} twice: {names[name]!r} and {column!r}"
            )
    return tuple(out)


def _facet_spec(spec: Any, owner: str) -> tuple[str | None, str]:
    if not isinstance(spec, str):
        raise InvalidInputError(f"{owner} takes {FACET_SPELLING}; got {spec!r}")
    name, sep, column = (part.strip() for part in spec.partition("="))
    if not sep:
        if not name:
            raise InvalidInputError(f"{owner} takes {FACET_SPELLING}; got {spec!r}")
        return None, name
    if not column or name == "x" or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name):
        raise InvalidInputError(f"{owner} takes {FACET_SPELLING}; got {spec!r}")
    if name in ("p", "r"):
        whose = "items (the item column)" if name == "p" else "raters (the rater column)"
        raise InvalidInputError(
            f"{owner} {spec!r}: facet {name!r} is the {whose}; name another facet"
        )
    return name, column
