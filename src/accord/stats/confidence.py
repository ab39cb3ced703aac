"""Mergeable sufficient statistics of scored units.

Two statistics carry every number of :mod:`accord.confidence`:

- :class:`ConfidenceSums`: per group ``n``, ``n_correct``, the sums of ``log2 c`` over correct
  units and ``log2(1 - c)`` over incorrect units (confidences clipped as sclite does), the sum
  of squared errors ``(c - y)^2``, and counts of clipped values. NCE, log loss and the Brier
  score are functions of these sums.
- :class:`ConfidenceValueCounts`: the sorted distinct confidences with the number of correct
  and incorrect units at each. AUROC, equal-width and equal-mass bins, reliability diagrams and
  recalibration maps are functions of this table.

Both are sums over units, so the statistic of two disjoint batches merges (``a.merge(b)``)
into the statistic of their union: integer counts exactly, float sums up to rounding. That is
what a streaming or Dask engine needs: count each batch, merge, estimate once.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Self

import numpy as np
import numpy.typing as npt

from .._errors import InvalidInputError
from .._types import FloatArray, IntArray
from ..data.scored import OutOfRange, ScoredUnits, prepare

__all__ = ["SCLITE_CEILING", "SCLITE_FLOOR", "ConfidenceSums", "ConfidenceValueCounts"]

#: sclite's clipping of confidences before the logarithms (SCTK ``scores.c``).
SCLITE_FLOOR = 0.0000001
SCLITE_CEILING = 0.9999999


def _pad(a: npt.NDArray[Any], size: int) -> npt.NDArray[Any]:
    out = np.zeros(size, dtype=a.dtype)
    out[: a.size] = a
    return out


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class ConfidenceSums:
    """Per-group sums from which NCE, log loss and the Brier score are computed.

    Attributes
    ----------
    groups : tuple
        Group labels, one per row of the arrays (``("all",)`` without groups).
    n : ndarray of int64, shape (n_groups,)
        Scored units ``M`` per group.
    n_correct : ndarray of int64, shape (n_groups,)
        Correct units ``m`` per group.
    sum_log2_correct : ndarray of float64, shape (n_groups,)
        :math:`\\sum_{correct} \\log_2 \\tilde c` with :math:`\\tilde c` the confidence clipped
        to ``[1e-7, 0.9999999]``.
    sum_log2_incorrect : ndarray of float64, shape (n_groups,)
        :math:`\\sum_{incorrect} \\log_2 (1 - \\tilde c)`.
    sum_squared_error : ndarray of float64, shape (n_groups,)
        :math:`\\sum (c - y)^2` with the unclipped confidence (Brier numerator).
    n_clipped : ndarray of int64, shape (n_groups,)
        Confidences below ``1e-7`` or above ``0.9999999`` moved by the clipping before the logs.
    n_out_of_range : ndarray of int64, shape (n_groups,)
        Confidences outside [0, 1] clipped to the interval (``out_of_range="clip"``).
    """

    groups: tuple[Any, ...]
    n: IntArray
    n_correct: IntArray
    sum_log2_correct: FloatArray
    sum_log2_incorrect: FloatArray
    sum_squared_error: FloatArray
    n_clipped: IntArray
    n_out_of_range: IntArray

    @classmethod
    def from_units(cls, units: ScoredUnits) -> ConfidenceSums:
        """Sum validated units per group (one ``np.bincount`` per statistic)."""
        y = units.correct
        c = units.confidence
        g = len(units.group_labels)
        if g == 1:
            return cls._one_group(units)
        key = units.group_codes * 2 + y  # (group, correct) cell
        clipped = np.clip(c, SCLITE_FLOOR, SCLITE_CEILING)
        # log2 of the probability given to what happened: c if correct, 1 - c if not
        log_p = np.log2(np.where(y, clipped, 1.0 - clipped))
        counts = np.bincount(key, minlength=2 * g).reshape(g, 2)
        logs = np.bincount(key, weights=log_p, minlength=2 * g).reshape(g, 2)
        sq = np.bincount(units.group_codes, weights=(c - y) ** 2, minlength=g)
        moved = (c < SCLITE_FLOOR) | (c > SCLITE_CEILING)
        n_moved = np.bincount(units.group_codes[moved], minlength=g)
        return cls(
            groups=units.group_labels,
            n=counts.sum(axis=1).astype(np.int64),
            n_correct=counts[:, 1].astype(np.int64),
            sum_log2_correct=logs[:, 1].astype(np.float64),
            sum_log2_incorrect=logs[:, 0].astype(np.float64),
            sum_squared_error=sq.astype(np.float64),
            n_clipped=n_moved.astype(np.int64),
            n_out_of_range=units.out_of_range.astype(np.int64),
        )

    @classmethod
    def from_batch(
        cls,
        correct: npt.ArrayLike,
        confidence: npt.ArrayLike,
        groups: npt.ArrayLike | None,
        *,
        out_of_range: OutOfRange,
        owner: str,
        row0: int = 0,
    ) -> ConfidenceSums:
        """Sums of one batch or partition of raw columns that starts at row ``row0`` of the
        whole input: validated as :func:`accord.data.scored.prepare` validates them (errors
        name rows of the whole input), then :meth:`from_units`.

        >>> s = ConfidenceSums.from_batch([1, 0], [0.9, 0.2], None, out_of_range="raise",
        ...                               owner="example", row0=10)
        >>> s.n.tolist(), s.n_correct.tolist()
        ([2], [1])
        """
        return cls.from_units(prepare(correct, confidence, groups, out_of_range, owner, row0=row0))

    @classmethod
    def _one_group(cls, units: ScoredUnits) -> ConfidenceSums:
        """:meth:`from_units` for units of one group: sums and dot products instead of
        bincounts, and no branch per unit (masks of random outcomes are slow to apply)."""
        y = np.asarray(units.correct, dtype=bool)
        c = units.confidence
        n = int(y.size)
        n_correct = int(np.count_nonzero(y))
        yf = y.astype(np.float64)
        # The probability given to what happened, c if correct and 1 - c if not, with c
        # clipped as sclite clips it: |(y - 1) + c| is exactly c for y = 1 and exactly
        # 1 - c for y = 0.
        p = np.maximum(c, SCLITE_FLOOR)
        np.minimum(p, SCLITE_CEILING, out=p)
        np.add(p, yf - 1.0, out=p)
        np.abs(p, out=p)
        np.log2(p, out=p)
        log_correct = float(np.dot(p, yf))
        log_incorrect = float(np.dot(p, 1.0 - yf))
        error = c - yf
        moved = int(np.count_nonzero(c < SCLITE_FLOOR)) + int(np.count_nonzero(c > SCLITE_CEILING))
        return cls(
            groups=units.group_labels,
            n=np.array([n], dtype=np.int64),
            n_correct=np.array([n_correct], dtype=np.int64),
            sum_log2_correct=np.array([log_correct]),
            sum_log2_incorrect=np.array([log_incorrect]),
            sum_squared_error=np.array([float(np.dot(error, error))]),
            n_clipped=np.array([moved], dtype=np.int64),
            n_out_of_range=units.out_of_range.astype(np.int64),
        )

    @classmethod
    def from_value_counts(cls, table: ConfidenceValueCounts) -> ConfidenceSums:
        """The pooled sums of the units behind a value-count table (one group ``"all"``).

        Each sum runs over the distinct confidences weighted by their counts, so it equals
        :meth:`from_units` on the same units up to the order of float additions.
        """
        v = table.values
        pos = table.n_correct.astype(np.float64)
        neg = table.n_incorrect.astype(np.float64)
        clipped = np.clip(v, SCLITE_FLOOR, SCLITE_CEILING)
        with np.errstate(divide="ignore"):
            log_correct = float(np.dot(pos, np.log2(clipped)))
            log_incorrect = float(np.dot(neg, np.log2(1.0 - clipped)))
        squared = float(np.dot(pos, (v - 1.0) ** 2) + np.dot(neg, v * v))
        moved = (v < SCLITE_FLOOR) | (v > SCLITE_CEILING)
        return cls(
            groups=("all",),
            n=np.array([table.n], dtype=np.int64),
            n_correct=np.array([int(table.n_correct.sum())], dtype=np.int64),
            sum_log2_correct=np.array([log_correct]),
            sum_log2_incorrect=np.array([log_incorrect]),
            sum_squared_error=np.array([squared]),
            n_clipped=np.array([int(table.counts[moved].sum())], dtype=np.int64),
            n_out_of_range=np.array([table.n_out_of_range], dtype=np.int64),
        )

    @property
    def n_groups(self) -> int:
        """Number of groups."""
        return len(self.groups)

    def pooled(self) -> ConfidenceSums:
        """The sums over all groups, as a single group ``"all"``."""
        return ConfidenceSums(
            groups=("all",),
            n=np.array([self.n.sum()], dtype=np.int64),
            n_correct=np.array([self.n_correct.sum()], dtype=np.int64),
            sum_log2_correct=np.array([self.sum_log2_correct.sum()]),
            sum_log2_incorrect=np.array([self.sum_log2_incorrect.sum()]),
            sum_squared_error=np.array([self.sum_squared_error.sum()]),
            n_clipped=np.array([self.n_clipped.sum()], dtype=np.int64),
            n_out_of_range=np.array([self.n_out_of_range.sum()], dtype=np.int64),
        )

    def merge(self, other: ConfidenceSums) -> ConfidenceSums:
        """Sums of the union of two disjoint sets of units.

        Groups are matched by label; groups only in ``other`` are appended after those of
        ``self``.
        """
        if not isinstance(other, ConfidenceSums):
            raise InvalidInputError(f"cannot merge ConfidenceSums with {type(other).__name__}")
        index = {label: i for i, label in enumerate(self.groups)}
        labels = list(self.groups)
        for label in other.groups:
            if label not in index:
                index[label] = len(labels)
                labels.append(label)
        where = np.array([index[label] for label in other.groups], dtype=np.int64)
        size = len(labels)

        def add(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> npt.NDArray[Any]:
            out = _pad(a, size)
            np.add.at(out, where, b)
            return out

        return ConfidenceSums(
            groups=tuple(labels),
            n=add(self.n, other.n),
            n_correct=add(self.n_correct, other.n_correct),
            sum_log2_correct=add(self.sum_log2_correct, other.sum_log2_correct),
            sum_log2_incorrect=add(self.sum_log2_incorrect, other.sum_log2_incorrect),
            sum_squared_error=add(self.sum_squared_error, other.sum_squared_error),
            n_clipped=add(self.n_clipped, other.n_clipped),
            n_out_of_range=add(self.n_out_of_range, other.n_out_of_range),
        )


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class ConfidenceValueCounts:
    """Sorted distinct confidences with the number of correct and incorrect units at each.

    Attributes
    ----------
    values : ndarray of float64, shape (k,)
        Distinct confidences, strictly increasing, in [0, 1].
    n_correct, n_incorrect : ndarray of int64, shape (k,)
        Units at each value that were correct / incorrect.
    n_out_of_range : int
        Confidences outside [0, 1] that were clipped to the interval.
    """

    values: FloatArray
    n_correct: IntArray
    n_incorrect: IntArray
    n_out_of_range: int = 0

    @classmethod
    def from_units(cls, units: ScoredUnits) -> ConfidenceValueCounts:
        """Tabulate validated units with one sort of ``(confidence, correct)`` keys.

        A confidence in [0, 1] orders as the bit pattern of its double read as an integer
        (the sign bit is clear, and ``c + 0.0`` turns a ``-0.0`` into ``0.0``). Shifted left by
        one bit, the pattern leaves room for the outcome in the lowest bit, so one integer
        sort orders the units by confidence, then incorrect before correct; each distinct
        key is a (value, outcome) cell and its run length the count. The keys are sorted as
        doubles (finite and non-negative, they order as their bit patterns; numpy's double
        sort is the faster one).
        """
        key = np.add(units.confidence, 0.0).view(np.int64)
        np.left_shift(key, 1, out=key)  # below 2**62 before the shift: stays positive
        np.bitwise_or(key, units.correct, out=key)
        key.view(np.float64).sort()
        if key.size == 0:
            empty = np.zeros(0, dtype=np.int64)
            return cls(np.zeros(0, dtype=np.float64), empty, empty.copy(), 0)
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        counts = np.diff(np.r_[starts, key.size]).astype(np.int64)
        cells = key[starts]
        del key
        correct = (cells & 1).astype(bool)
        bits = cells >> 1
        first = np.flatnonzero(np.r_[True, bits[1:] != bits[:-1]])
        values = bits[first].view(np.float64)
        n_correct = np.add.reduceat(np.where(correct, counts, 0), first).astype(np.int64)
        n_incorrect = np.add.reduceat(np.where(correct, 0, counts), first).astype(np.int64)
        return cls(values, n_correct, n_incorrect, int(units.out_of_range.sum()))

    @classmethod
    def from_batch(
        cls,
        correct: npt.ArrayLike,
        confidence: npt.ArrayLike,
        *,
        out_of_range: OutOfRange,
        owner: str,
        row0: int = 0,
    ) -> ConfidenceValueCounts:
        """Value counts of one batch or partition of raw columns that starts at row ``row0``
        of the whole input (errors name rows of the whole input), as
        :meth:`ConfidenceSums.from_batch`.

        >>> from accord._errors import InvalidInputError
        >>> try:
        ...     ConfidenceValueCounts.from_batch([1, 0], [0.9, 1.5], out_of_range="raise",
        ...                                      owner="example", row0=10)
        ... except InvalidInputError as exc:
        ...     print(str(exc).split("; pass")[0])
        confidence must be in [0, 1]; found 1.5 at row 12
        """
        units = prepare(correct, confidence, None, out_of_range, owner, row0=row0)
        return cls.from_units(units)

    @property
    def counts(self) -> IntArray:
        """Units at each value."""
        out: IntArray = self.n_correct + self.n_incorrect
        return out

    @property
    def n(self) -> int:
        """Total units."""
        return int(self.n_correct.sum() + self.n_incorrect.sum())

    def merge(self, other: Self) -> Self:
        """Value counts of the union of two disjoint sets of units (exact)."""
        if not isinstance(other, ConfidenceValueCounts):
            raise InvalidInputError(
                f"cannot merge ConfidenceValueCounts with {type(other).__name__}"
            )
        values = np.union1d(self.values, other.values)
        pos = np.zeros(values.size, dtype=np.int64)
        neg = np.zeros(values.size, dtype=np.int64)
        i = np.searchsorted(values, self.values)
        j = np.searchsorted(values, other.values)
        pos[i] += self.n_correct
        neg[i] += self.n_incorrect
        pos[j] += other.n_correct
        neg[j] += other.n_incorrect
        return type(self)(values, pos, neg, self.n_out_of_range + other.n_out_of_range)
