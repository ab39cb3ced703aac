"""The ANOVA G-study of a balanced design read from files in batches (the stream engine).

The sums of squares of a balanced design are Brennan's T terms, ``T(a) = sum over the levels
of effect a of S_a^2 / n_a`` (``S_a`` the sum of the scores of a level, ``n_a`` their
number), and sums merge: each batch is summarised into the sums and counts of the scores by
level of every effect (the levels keyed by the facets' codes, which grow across batches),
the summaries are merged by the engine's fold, and the ANOVA runs once on the T terms. Every
effect's level is keyed by the codes of all its facets (a nested facet's with its parents'),
so nesting needs no renumbering.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._errors import InvalidInputError
from .._types import FloatArray, IntArray
from .._validate import at_rows
from ..agreement.gtheory import GStudy, g_study_from_terms
from ..agreement.gtheory_design import DEFAULT_COLUMNS, Design, parse_design, recurring_note
from ..engines.fold import fold_batches, part_columns
from ._files import batch_dataset

__all__ = ["LevelSums", "g_study_files"]

#: Codes of one facet are below this (the joint key of three facets fits in 63 bits).
_RADIX = 1 << 21


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class LevelSums:
    """The sums and counts of the scores by level of each effect (one entry per effect of
    the design, the levels keyed by the joint codes of its facets), and the number of
    scores, their sum and their sum of squares."""

    keys: tuple[IntArray, ...]
    sums: tuple[FloatArray, ...]
    counts: tuple[FloatArray, ...]
    n: int
    total: float
    squares: float

    def merge(self, other: LevelSums) -> LevelSums:
        """The sums of both parts."""
        parts = [
            _by_key(np.concatenate([k1, k2]), np.concatenate([s1, s2]), np.concatenate([c1, c2]))
            for k1, k2, s1, s2, c1, c2 in zip(
                self.keys, other.keys, self.sums, other.sums, self.counts, other.counts,
                strict=True,
            )
        ]  # fmt: skip
        return LevelSums(
            tuple(p[0] for p in parts),
            tuple(p[1] for p in parts),
            tuple(p[2] for p in parts),
            self.n + other.n,
            self.total + other.total,
            self.squares + other.squares,
        )


def _by_key(
    keys: IntArray, sums: FloatArray, counts: FloatArray
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Sums and counts added up by key."""
    codes, uniq = pd.factorize(keys)
    size = len(uniq)
    added: FloatArray = np.bincount(codes, weights=sums, minlength=size).astype(np.float64)
    counted: FloatArray = np.bincount(codes, weights=counts, minlength=size).astype(np.float64)
    return np.asarray(uniq, dtype=np.int64), added, counted


@dataclasses.dataclass
class _Codes:
    """Codes of one facet column's values, in order of first appearance over the batches."""

    column: str
    seen: pd.Index = dataclasses.field(default_factory=lambda: pd.Index([]))

    def __call__(self, values: Any, row0: int) -> IntArray:
        missing = np.asarray(pd.isna(values))
        if missing.any():
            rows = at_rows(np.flatnonzero(missing) + row0)
            raise InvalidInputError(f"column {self.column!r} has a missing value in {rows}")
        codes = np.asarray(self.seen.get_indexer(values), dtype=np.int64)
        new = codes < 0
        if new.any():
            self.seen = self.seen.append(pd.Index(pd.unique(np.asarray(values)[new])))
            codes = np.asarray(self.seen.get_indexer(values), dtype=np.int64)
        if len(self.seen) >= _RADIX:
            raise InvalidInputError(
                f"column {self.column!r} has more than {_RADIX - 1} levels: use the memory engine"
            )
        return codes


@dataclasses.dataclass
class _Summary:
    """The :class:`LevelSums` of one batch."""

    design: Design
    columns: Mapping[str, str]
    score: str
    codes: dict[str, _Codes]

    def __call__(self, part: Any, row0: int) -> LevelSums:
        facets = self.design.facets
        arrays = part_columns(part, (*[self.columns[f] for f in facets], self.score))
        y = pd.to_numeric(pd.Series(arrays[-1]), errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(y)
        if bad.any():
            rows = at_rows(np.flatnonzero(bad) + row0)
            raise InvalidInputError(
                f"score column {self.score!r} is empty or not a number in {rows}; the "
                "stream engine computes the balanced ANOVA (every cell scored once): use the "
                "memory engine for REML on incomplete designs"
            )
        codes = {f: self.codes[f](arrays[k], row0) for k, f in enumerate(facets)}
        keys, sums, counts = [], [], []
        for e in self.design.effects:
            key = np.zeros(y.size, dtype=np.int64)
            for f in e.facets:
                key = key * _RADIX + codes[f]
            k, s, c = _by_key(key, y, np.ones(y.size))
            keys.append(k)
            sums.append(s)
            counts.append(c)
        return LevelSums(tuple(keys), tuple(sums), tuple(counts), int(y.size),
                         float(y.sum()), float(y @ y))  # fmt: skip


def _terms(design: Design, sums: LevelSums) -> tuple[dict[tuple[str, ...], float], dict[str, int]]:
    """Brennan's T terms and the levels of each facet within one level of its parents,
    checking that the design is balanced: the levels of each effect are all the
    combinations of its facets' levels, and every cell is scored once."""
    levels = {frozenset(e.facets): k.size for e, k in zip(design.effects, sums.keys, strict=True)}
    levels[frozenset()] = 1
    per_parent = {
        f: levels[frozenset(design.parents[f] | {f})] // levels[frozenset(design.parents[f])]
        for f in design.facets
    }
    t: dict[tuple[str, ...], float] = {(): sums.total**2 / sums.n}
    top = design.effects[-1]
    for e, s, c in zip(design.effects, sums.sums, sums.counts, strict=True):
        expected = int(np.prod([per_parent[f] for f in e.facets]))
        each = sums.n // expected
        if (
            levels[frozenset(e.facets)] != expected
            or c.min() != c.max()
            or (e is top and each != 1)
        ):
            raise InvalidInputError(
                f"the design {design.text!r} is not balanced in these scores (effect "
                f"{e.name}: {levels[frozenset(e.facets)]} levels of {expected}, "
                f"{int(c.min())} to {int(c.max())} scores each): the stream engine computes "
                "the balanced ANOVA; use the memory engine for REML"
            )
        t[e.facets] = float(np.sum(s * s / c))
    return t, per_parent


def g_study_files(
    source: Any,
    *,
    design: str = "p x r",
    score: str = "score",
    facets: Mapping[str, str] | None = None,
    confidence_level: float = 0.95,
    batch_size: int = 1_000_000,
    sep: str | None = None,
) -> GStudy:
    """The ANOVA G-study of a balanced design, read from files in batches.

    The same numbers as :func:`accord.g_study` with ``method="anova"`` on the rows in
    memory, from sums merged over the batches (the stream engine's fold): the memory held
    is the sums by level of each effect, not the rows.

    Parameters
    ----------
    source : path, list of paths or folder
        CSV, TSV, Parquet or JSON Lines files, one row per score.
    design, score, facets, confidence_level
        As :func:`accord.g_study`.
    batch_size : int, default 1,000,000
        Rows a batch.
    sep : str, optional
        The field separator of text files (default: sniffed).

    Returns
    -------
    GStudy

    Raises
    ------
    InvalidInputError
        No file, a column missing, an empty facet or score (its rows named), or a design
        the scores do not fill once per cell (the memory engine's REML fits those).

    Examples
    --------
    >>> import pathlib, tempfile, pandas as pd
    >>> y = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9],
    ...      [6, 2, 4, 7]]
    >>> rows = pd.DataFrame([(i, j, v) for i, r in enumerate(y) for j, v in enumerate(r)],
    ...                     columns=["item", "rater", "score"])
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sf.csv"
    >>> rows.to_csv(path, index=False)
    >>> g = g_study_files(path, design="p x r", batch_size=5)
    >>> g.components["mean_square"].round(2).tolist()  # Shrout & Fleiss (1979): BMS, JMS, EMS
    [11.24, 32.49, 1.02]
    """
    parsed = parse_design(design)
    given = dict(facets or {})
    unknown = sorted(set(given) - set(parsed.facets))
    if unknown:
        raise InvalidInputError(
            f"facets names {unknown}, which the design {design!r} does not have; its "
            f"facets: {list(parsed.facets)}"
        )
    columns = {f: given.get(f, DEFAULT_COLUMNS.get(f, f)) for f in parsed.facets}
    wanted = [*columns.values(), score]
    dataset, files, _ = batch_dataset(source, wanted, batch_size=batch_size, file_format=None,
                                      sep=sep)  # fmt: skip
    summary = _Summary(parsed, columns, score, {f: _Codes(c) for f, c in columns.items()})
    sums = fold_batches(dataset, wanted, batch_size, summary, LevelSums.merge)
    if sums is None:
        raise InvalidInputError(f"the input is empty: {files[0]} has no rows to read")
    t, per_parent = _terms(parsed, sums)
    notes = [
        recurring_note(parsed, f)
        for f in parsed.facets
        if parsed.parents[f]
        and sums.keys[_effect_index(parsed, f)].size > len(summary.codes[f].seen)
    ]
    return g_study_from_terms(parsed, t, per_parent, sums.n, confidence_level=confidence_level,
                              facets=columns, notes=notes)  # fmt: skip


def _effect_index(design: Design, facet: str) -> int:
    """The position of the effect of ``facet`` with its parents among the design's effects."""
    whole = design.parents[facet] | {facet}
    return next(k for k, e in enumerate(design.effects) if set(e.facets) == whole)
