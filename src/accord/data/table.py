"""Two raters' q x q table of counts: :class:`ContingencyTable`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import InvalidInputError
from .._types import FloatArray, IntArray
from .._validate import check_count_cells, tidy_scalar
from .encoder import (
    arrow_of,
    dictionary_of,
    distinct_values,
    label_domain,
    missing_of,
    rows_in,
)

if TYPE_CHECKING:
    from .ratings import Ratings

__all__ = ["ContingencyTable"]


def _small_integer_table(x: Any, y: Any) -> tuple[IntArray, tuple[int, ...]] | None:
    """The q x q table of two integer label arrays whose values span a small range (a
    lookup table and one bincount, no hashing); None for anything else."""
    if not (isinstance(x, np.ndarray) and isinstance(y, np.ndarray)):
        return None
    if x.dtype.kind not in "iu" or y.dtype.kind not in "iu" or x.ndim != 1 or x.shape != y.shape:
        return None
    if x.size == 0:
        return None
    lo = min(int(x.min()), int(y.min()))
    hi = max(int(x.max()), int(y.max()))
    if hi - lo >= 1 << 12:
        return None
    span = hi - lo + 1
    xs = x - lo if lo else x
    ys = y - lo if lo else y
    seen = (np.bincount(xs, minlength=span) + np.bincount(ys, minlength=span)) > 0
    used = np.flatnonzero(seen)
    q = int(used.size)
    if q < 2:
        return None  # the general path words the error
    rank = np.cumsum(seen) - 1
    pairs = xs * q + ys if q == span else rank[xs] * q + rank[ys]
    counts = np.bincount(pairs, minlength=q * q).reshape(q, q)
    return counts, tuple(int(v) + lo for v in used)


def _chunks(array: Any) -> list[Any]:
    """The chunks of a pyarrow Array or ChunkedArray."""
    return list(array.chunks) if hasattr(array, "chunks") else [array]


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class ContingencyTable:
    """Two raters' q x q table of counts: rows rater X, columns rater Y.

    Parameters
    ----------
    counts : array_like, shape (q, q)
        Non-negative counts (or proportions) in the categories' declared order.
    categories : sequence, optional
        The category domain. Without it the categories are ``0 .. q-1``, positions rather
        than values: a weighting scheme that needs values with a true zero (ratio weights)
        then asks for ``categories=``.
    raters : pair of str, optional
        Names of the row and column raters.

    Attributes
    ----------
    n_unpaired : int
        Items rated by only one of the two raters (not in the table), when built from ratings.
    categories_declared : bool
        Whether the categories were given (or are the labels of ratings or label vectors),
        not the default ``0 .. q-1``.

    Examples
    --------
    >>> t = ContingencyTable([[20, 5], [5, 20]], categories=["yes", "no"])
    >>> t.n, t.q, t.observed_agreement
    (50.0, 2, 0.8)
    >>> ContingencyTable.from_labels(["a", "b", "b"], ["a", "b", "a"]).counts
    array([[1., 0.],
           [1., 1.]])
    """

    counts: FloatArray
    categories: tuple[Any, ...]
    raters: tuple[str, str] = ("X", "Y")
    n_unpaired: int = 0
    categories_declared: bool = True

    def __init__(
        self,
        counts: npt.ArrayLike,
        categories: Sequence[Any] | None = None,
        *,
        raters: tuple[str, str] = ("X", "Y"),
        n_unpaired: int = 0,
    ) -> None:
        try:
            arr = np.array(counts, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidInputError("a contingency table must hold numbers") from None
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
            raise InvalidInputError(
                f"a contingency table must be square (q x q); got shape {arr.shape}"
            )
        if arr.shape[0] < 2:
            raise InvalidInputError(
                f"a contingency table needs at least 2 categories; got {arr.shape[0]}"
            )
        check_count_cells(arr, "contingency table cell", hint="; counts must be >= 0")
        if arr.sum() <= 0:
            raise InvalidInputError("the contingency table is empty (all cells are 0)")
        cats = tuple(range(arr.shape[0])) if categories is None else tuple(categories)
        if len(cats) != arr.shape[0]:
            raise InvalidInputError(
                f"{len(cats)} categories given for a {arr.shape[0]} x {arr.shape[0]} table"
            )
        arr.flags.writeable = False
        object.__setattr__(self, "counts", arr)
        object.__setattr__(self, "categories", cats)
        object.__setattr__(self, "raters", (str(raters[0]), str(raters[1])))
        object.__setattr__(self, "n_unpaired", int(n_unpaired))
        object.__setattr__(self, "categories_declared", categories is not None)

    @property
    def q(self) -> int:
        """Number of categories."""
        return int(self.counts.shape[0])

    @property
    def n(self) -> float:
        """Total count (items rated by both raters)."""
        return float(self.counts.sum())

    @property
    def proportions(self) -> FloatArray:
        """Joint proportions ``p[x, y] = n[x, y] / n``."""
        out: FloatArray = self.counts / self.counts.sum()
        return out

    @property
    def observed_agreement(self) -> float:
        """Proportion on the diagonal."""
        return float(np.trace(self.counts) / self.counts.sum())

    def to_frame(self) -> pd.DataFrame:
        """The table as a labelled pandas frame."""
        return pd.DataFrame(
            self.counts,
            index=pd.Index(self.categories, name=self.raters[0]),
            columns=pd.Index(self.categories, name=self.raters[1]),
        )

    @classmethod
    def from_labels(
        cls,
        x: npt.ArrayLike,
        y: npt.ArrayLike,
        *,
        categories: Sequence[Any] | None = None,
        raters: tuple[str, str] = ("X", "Y"),
    ) -> ContingencyTable:
        """Cross-tabulate two aligned label vectors (pairs with a missing label are left out
        and counted in ``n_unpaired``)."""
        import pyarrow as pa

        direct = _small_integer_table(x, y) if categories is None else None
        if direct is not None:
            counts_d, domain_d = direct
            return cls(counts_d, domain_d, raters=raters)
        try:
            xa, ya = arrow_of(x), arrow_of(y)
        except InvalidInputError:
            xa = ya = None
        if xa is None or ya is None or len(xa) != len(ya):
            raise InvalidInputError(
                f"the two label vectors must be 1-D and of equal length; got {np.shape(x)} and "
                f"{np.shape(y)}"
            )
        n = len(xa)
        if n == 0:
            raise InvalidInputError("the input is empty: there are no ratings to read")
        if xa.type != ya.type:
            try:
                common = pa.chunked_array(
                    [*_chunks(xa.cast(pa.float64())), *_chunks(ya.cast(pa.float64()))]
                )
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
                common = arrow_of(np.r_[np.asarray(x, dtype=object), np.asarray(y, dtype=object)])
        else:
            common = pa.chunked_array([*_chunks(xa), *_chunks(ya)], type=xa.type)
        # One encoding of both vectors, then one bincount of the pairs.
        idx, dictionary = dictionary_of(common)
        present = np.flatnonzero(~missing_of(dictionary, keep=categories))
        if present.size == 0:
            raise InvalidInputError("column 'label': every label is missing; nothing to rate")
        raw = distinct_values(dictionary.take(pa.array(present, type=pa.int64())), text=False)
        raw_of = np.full(len(dictionary) + 1, -1, dtype=np.int64)
        raw_of[present] = np.arange(present.size)

        def rows_of(positions: IntArray) -> tuple[IntArray, int]:
            rows, at = rows_in(idx, present[positions])
            return rows % n, int(raw_of[at])

        remap, domain, _, _, _ = label_domain(
            raw, rows_of, level="nominal", categories=categories, column="label"
        )
        full = np.full(len(dictionary) + 1, -1, dtype=np.int64)
        full[present] = remap
        codes = full[idx]
        cx, cy = codes[:n], codes[n:]
        both = (cx >= 0) & (cy >= 0)
        q = len(domain)
        pairs = cx[both] * q + cy[both] if q > 1 else cx[both]
        counts = np.bincount(pairs, minlength=q * q).reshape(q, q)
        if counts.sum() == 0:
            raise InvalidInputError(
                f"raters {raters[0]!r} and {raters[1]!r} rated no item in common"
            )
        n_unpaired = int(np.count_nonzero((cx >= 0) | (cy >= 0))) - int(np.count_nonzero(both))
        return cls(counts, domain, raters=raters, n_unpaired=n_unpaired)

    @classmethod
    def from_ratings(
        cls, ratings: Ratings, *, raters: tuple[Any, Any] | None = None
    ) -> ContingencyTable:
        """The table of two raters of a :class:`Ratings` (items rated by both).

        Parameters
        ----------
        ratings : Ratings
        raters : pair of rater ids, optional
            Which two raters; required when there are more than two.
        """
        if raters is None:
            if ratings.n_raters != 2:
                raise InvalidInputError(
                    f"a contingency table needs exactly two raters; the data has "
                    f"{ratings.n_raters}: choose two (raters=(A, B) in Python, "
                    "--raters A B on the command line)"
                )
            ca, cb = 0, 1
        else:
            lookup = {tidy_scalar(r): i for i, r in enumerate(ratings.raters)}
            lookup_text = {str(r): i for i, r in enumerate(ratings.raters)}
            codes = []
            for r in raters:
                code = lookup.get(r, lookup_text.get(str(r)))
                if code is None:
                    raise InvalidInputError(
                        f"rater {r!r} not found; the raters are: "
                        f"{', '.join(map(repr, ratings.raters[:20]))}"
                    )
                codes.append(code)
            ca, cb = codes
            if ca == cb:
                raise InvalidInputError(f"choose two different raters, got {raters!r} twice")
        q = ratings.n_categories
        ni = ratings.n_items
        lab_a = np.full(ni, -1, dtype=np.int64)
        lab_b = np.full(ni, -1, dtype=np.int64)
        sel_a = ratings.rater_codes == ca
        sel_b = ratings.rater_codes == cb
        lab_a[ratings.item_codes[sel_a]] = ratings.label_codes[sel_a]
        lab_b[ratings.item_codes[sel_b]] = ratings.label_codes[sel_b]
        both = (lab_a >= 0) & (lab_b >= 0)
        either = (lab_a >= 0) | (lab_b >= 0)
        counts = np.bincount(lab_a[both] * q + lab_b[both], minlength=q * q).reshape(q, q)
        if counts.sum() == 0:
            raise InvalidInputError(
                f"raters {ratings.raters[ca]!r} and {ratings.raters[cb]!r} rated no item in common"
            )
        return cls(
            counts,
            ratings.categories,
            raters=(str(ratings.raters[ca]), str(ratings.raters[cb])),
            n_unpaired=int(either.sum() - both.sum()),
        )

    @classmethod
    def read_csv(cls, path: str | Path, **kwargs: Any) -> ContingencyTable:
        """Read a q x q table from CSV (rows rater X, columns rater Y).

        Either a bare grid of numbers, or a header row of categories and a first column of
        categories (the same, in the same order). Categories that are all numbers are read
        as numbers (so weights use their values). A corner cell such as ``ABVS \\ US`` or
        ``ABVS / US`` names the two raters.
        """
        p = Path(path)
        if not p.exists():
            raise FileNotFoundError(2, "No such file", str(p))
        try:
            raw = pd.read_csv(p, header=None, dtype=str, keep_default_na=False, **kwargs)
        except pd.errors.EmptyDataError:
            raise InvalidInputError(f"{p}: the table is empty") from None
        except pd.errors.ParserError as exc:
            raise InvalidInputError(
                f"{p}: the rows have different numbers of cells; a table must be square (q x q)"
            ) from exc
        if raw.empty:
            raise InvalidInputError(f"{p}: the table is empty")
        grid = raw.to_numpy(dtype=object)

        def numeric(block: npt.NDArray[Any]) -> bool:
            vals = pd.Series([str(v).strip() for v in block.ravel()], dtype=object)
            return bool(pd.to_numeric(vals, errors="coerce").notna().all())

        raters: tuple[str, str] = ("X", "Y")
        cats: list[Any] | None
        if numeric(grid):
            body, cats = grid, None
        elif grid.shape[0] > 1 and grid.shape[1] > 1 and numeric(grid[1:, 1:]):
            body = grid[1:, 1:]
            cats = [str(c).strip() for c in grid[0, 1:]]
            row_cats = [str(c).strip() for c in grid[1:, 0]]
            if any(row_cats) and row_cats != cats:
                raise InvalidInputError(
                    f"{p}: the row categories {row_cats} differ from the column categories "
                    f"{cats}; a contingency table lists the same categories in the same order"
                )
            if numeric(np.asarray(cats, dtype=object)):
                as_num = [float(c) for c in cats]
                cats = [int(v) if v.is_integer() else v for v in as_num]
            corner = str(grid[0, 0]).strip()
            for sep in ("\\", "/", "|"):
                if sep in corner:
                    left, right = (part.strip() for part in corner.split(sep, 1))
                    if left and right:
                        raters = (left, right)
                    break
        else:
            raise InvalidInputError(
                f"{p}: cannot read a table of counts: expect a grid of numbers, optionally with "
                "a header row and a first column of category names"
            )
        values = pd.to_numeric(
            pd.Series([str(v).strip() for v in body.ravel()], dtype=object)
        ).to_numpy(dtype=np.float64)
        try:
            return cls(values.reshape(body.shape), cats, raters=raters)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{p}: {exc}") from None

    def __repr__(self) -> str:
        return f"ContingencyTable(q={self.q}, n={self.n:g}, categories={self.categories!r})"
