"""The data model: :class:`Ratings` (long, encoded) and :class:`ContingencyTable` (two raters).

A :class:`Ratings` is built once from whatever the user has (a long frame, a wide items x raters
frame or array, a file) and holds the ratings encoded to integer codes, the decode tables, the
level of measurement and the category domain, and a :class:`ReadReport` that says what was read
and what was dropped and why. Every statistic is computed from the codes.

Row numbers in error messages count data rows from 1 (the header line of a file is not counted).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from .._errors import DuplicateRatingError, InvalidInputError, option
from .._results import Record
from .._types import (
    DUPLICATE_RULES,
    LEVELS,
    MISSING_RULES,
    Duplicates,
    FloatArray,
    IntArray,
    Level,
    Missing,
)
from .._validate import (
    SHOW,
    at_rows,
    check_choice,
    check_na_values,
    counted,
    format_rows,
    require_columns,
    rows_that,
    tidy_scalar,
)
from .dictionary import encode_ids
from .encoder import (
    LABELS_AS,
    LabelsAs,
    arrow_of,
    category_values,
    dictionary_of,
    distinct_values,
    label_domain,
    missing_of,
    n_distinct,
    order_line,
    rows_in,
    sorted_numbers_domain,
)
from .frames import Declared, arrow_columns_of, declared_categories, frame_to_pandas
from .label_sets import LabelSets, group_label_sets, split_label_column
from .order import dense_ranks

__all__ = [
    "DecodeTables",
    "IdTables",
    "Ratings",
    "ReadReport",
    "column_domain",
    "encode_columns",
    "encode_label_sets",
    "encode_ratings",
    "item_column",
]


@dataclasses.dataclass(frozen=True, slots=True)
class ReadReport(Record):
    """What was read, what was kept, and what was dropped and why.

    Attributes
    ----------
    rows : int
        Rows (long input) or cells (wide input) seen.
    ratings : int
        Ratings kept.
    items, raters : int
        Distinct items and raters among the kept ratings.
    missing : int
        Rows or cells with a missing label (omitted, never a category).
    dropped : int
        Rows or cells not kept, for any reason (``missing`` included).
    reasons : mapping of str to int
        Each reason for dropping and how many rows or cells it dropped.
    source : str or None
        Where the data came from (a path, or the kind of object).
    notes : tuple of str
        Warnings about how the data was read (labels that are the same number spelled
        differently, for instance).
    order : str or None
        At an ordered level (ordinal, interval, ratio), the order of the categories used
        and where it came from (declared, numeric, an ordered Categorical).
    """

    rows: int
    ratings: int
    items: int
    raters: int
    missing: int
    dropped: int
    reasons: Mapping[str, int]
    source: str | None = None
    notes: tuple[str, ...] = ()
    order: str | None = None

    def __str__(self) -> str:
        head = (
            f"read {counted(self.rows, 'row')}: {counted(self.ratings, 'rating')} of "
            f"{counted(self.items, 'item')} by {counted(self.raters, 'rater')}"
        )
        notes = "".join(f"\nwarning: {note}" for note in self.notes)
        if self.order is not None:
            notes = f"\n{self.order}" + notes
        if not self.dropped:
            return head + "; nothing dropped" + notes
        why = "; ".join(f"{n:,} {reason}" for reason, n in self.reasons.items())
        return f"{head}; dropped {self.dropped:,} ({why})" + notes


class IdTables:
    """The sizes of the item and rater decode tables of anything encoded by item and rater
    (:class:`Ratings`, a panel's assessments).

    ``items[code]`` and ``raters[code]`` decode an item and a rater code.
    """

    __slots__ = ()
    items: npt.NDArray[Any]
    raters: npt.NDArray[Any]

    @property
    def n_items(self) -> int:
        """Number of items in the decode table (items whose every label is missing count)."""
        return int(self.items.size)

    @property
    def n_raters(self) -> int:
        """Number of raters in the decode table."""
        return int(self.raters.size)


class DecodeTables(IdTables):
    """The sizes of the decode tables of encoded ratings: what :class:`Ratings` and the
    engines' :class:`accord.RatingStatistics` share.

    ``items[code]``, ``raters[code]`` and ``categories[code]`` decode an item, rater and
    label code.
    """

    __slots__ = ()
    categories: tuple[Any, ...]

    @property
    def n_categories(self) -> int:
        """Number of categories in the domain."""
        return len(self.categories)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Ratings(DecodeTables):
    """Ratings in long form, encoded once to integer codes.

    Build with :meth:`from_long`, :meth:`from_wide` or :func:`accord.read_ratings`.

    Attributes
    ----------
    item_codes, rater_codes, label_codes : ndarray of int64, shape (n_ratings,)
        Codes into ``items``, ``raters`` and ``categories``.
    items, raters : ndarray of object
        Decode tables: ``items[item_codes]`` gives the original ids.
    categories : tuple
        The ordered category domain (declared, or the observed sorted labels).
    level : {"nominal", "ordinal", "interval", "ratio"}
    values : ndarray of float64 or None
        The numeric value of each rating at interval/ratio level.
    report : ReadReport
        What was read, kept and dropped.
    categories_declared : bool
        Whether ``categories`` was declared by the user.
    missing_item_codes, missing_rater_codes : ndarray of int64
        Assignments without a label (rows with a missing label under ``missing="omit"``):
        not ratings, but kept for diagnostics that treat "no label" as an answer. Items whose
        every label is missing stay in ``items`` with no rating.
    category_order : str
        How ``categories`` is ordered, in words: ``"as declared"``, ``"numeric"``,
        ``"alphabetical (nominal: the order does not matter)"``, ...
    label_sets : LabelSets or None
        Set-valued ratings (``multi_label=True``): each category is a ``frozenset`` of
        labels, and this table says which single labels each one holds. None otherwise.
    derived : dict
        What is derived from these ratings and kept so that a second reader does not derive
        it again (the rater-pair tables, the item ids as a table's column); empty when the
        ratings are made.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
    ...                       "label": ["yes", "yes", "no", "yes"]})
    >>> r = Ratings.from_long(frame, item="item", rater="rater", label="label")
    >>> r.n_items, r.n_raters, r.categories
    (2, 2, ('no', 'yes'))
    >>> print(r.report)
    read 4 rows: 4 ratings of 2 items by 2 raters; nothing dropped
    """

    item_codes: IntArray
    rater_codes: IntArray
    label_codes: IntArray
    items: npt.NDArray[Any]
    raters: npt.NDArray[Any]
    categories: tuple[Any, ...]
    level: Level
    values: FloatArray | None
    report: ReadReport
    categories_declared: bool = False
    missing_item_codes: IntArray = dataclasses.field(
        default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False
    )
    missing_rater_codes: IntArray = dataclasses.field(
        default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False
    )
    category_order: str = "as given"
    label_sets: LabelSets | None = None
    #: What is derived from these ratings, kept once made, by name (small rater-pair tables:
    #: :func:`accord.stats.pairs.rater_pair_counts`; the typed item ids: :func:`item_column`);
    #: a new Ratings starts without any.
    derived: dict[str, Any] = dataclasses.field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    # ------------------------------------------------------------------ sizes
    @property
    def n_ratings(self) -> int:
        """Number of ratings."""
        return int(self.item_codes.size)

    @property
    def multi_label(self) -> bool:
        """Whether each rating is a set of labels (see :attr:`label_sets`)."""
        return self.label_sets is not None

    @property
    def category_values(self) -> FloatArray:
        """Numeric scale of the categories: their values if finite numbers, else positions
        0..q-1."""
        return category_values(self.categories)

    def __repr__(self) -> str:
        return (
            f"Ratings({self.n_ratings} ratings, {self.n_items} items, {self.n_raters} raters, "
            f"{self.n_categories} categories, level={self.level!r})"
        )

    def _repr_markdown_(self) -> str:
        """The ratings in a notebook: what the command line prints first (the read report's
        line), the design, and the first rows of the long table."""
        frame = self.to_pandas().head(10)
        rows = [list(map(str, frame.columns)), ["---"] * frame.shape[1]]
        rows += [[str(v).replace("|", "\\|") for v in row] for row in frame.itertuples(False)]
        table = "\n".join("| " + " | ".join(row) + " |" for row in rows)
        return f"**{self!r}**\n\n{self.report}\n\n{table}"

    def _repr_html_(self) -> str:
        """The ratings in a notebook, as :meth:`_repr_markdown_` in HTML."""
        import html

        lines = "<br>".join(html.escape(line) for line in str(self.report).splitlines())
        table = self.to_pandas().head(10).to_html(index=False)
        more = f"<p>... {self.n_ratings - 10} more ratings</p>" if self.n_ratings > 10 else ""
        return (
            f"<div class='accord-result'><p><b>{html.escape(repr(self))}</b></p>"
            f"<p>{lines}</p>{table}{more}</div>"
        )

    # ----------------------------------------------------------- construction
    @classmethod
    def from_arrays(
        cls,
        items: npt.ArrayLike,
        raters: npt.ArrayLike,
        labels: npt.ArrayLike,
        *,
        level: Level = "nominal",
        categories: Sequence[Any] | None = None,
        missing: Missing = "omit",
        duplicates: Duplicates = "raise",
        columns: tuple[str, str, str] = ("item", "rater", "label"),
        source: str | None = None,
        na_values: Sequence[str] | None = None,
        labels_as: LabelsAs = "auto",
        multi_label: bool = False,
    ) -> Ratings:
        """Build from three aligned vectors (one entry per rating).

        Parameters are those of :meth:`from_long`; ``columns`` names the vectors in messages.
        """
        return encode_columns(
            items,
            raters,
            labels,
            multi_label=multi_label,
            level=level,
            categories=categories,
            missing=missing,
            duplicates=duplicates,
            columns=columns,
            source=source,
            na_values=na_values,
            labels_as=labels_as,
        )

    @classmethod
    def from_long(
        cls,
        frame: Any,
        *,
        item: str,
        rater: str,
        label: str,
        level: Level = "nominal",
        categories: Sequence[Any] | None = None,
        missing: Missing = "omit",
        duplicates: Duplicates = "raise",
        na_values: Sequence[str] | None = None,
        labels_as: LabelsAs = "auto",
        multi_label: bool = False,
    ) -> Ratings:
        """Build from a long table with one row per rating.

        Parameters
        ----------
        frame : DataFrame-like
            pandas or polars DataFrame, pyarrow Table, DuckDB relation, or anything narwhals
            reads.
        item, rater, label : str
            Column names.
        level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
            Level of measurement of the labels. At interval and ratio level every label must
            be a number (the first rows that are not are named in the error). At ordinal
            level, text labels need ``categories`` (their order); numbers keep their numeric
            order.
        categories : sequence, optional
            The declared, ordered category domain. Labels outside it are an error; a label
            listed here is never missing, even if spelled ``"None"`` or ``"NA"``. Default:
            the categories the label column declares (a pandas Categorical, ordered or not,
            or a polars ``Enum``: used or not, see :func:`column_domain`), else the observed
            labels, sorted (numbers numerically). :attr:`Ratings.category_order` says which
            order was used.
        missing : {"omit", "raise"}, default "omit"
            Missing labels (see ``na_values``) are left out and counted in ``report``, or
            raise.
        duplicates : {"raise", "first", "last", "mean"}, default "raise"
            One rater rating one item twice: raise (listing the first pairs and their rows),
            keep the first or last, or average (interval/ratio only). Resolved rows are counted
            in ``report``.
        na_values : sequence of str, optional
            Text that counts as a missing value, besides null, NaN and empty or blank text
            (compared with surrounding spaces removed). Default: the spellings ``pandas``
            treats as missing (``NA``, ``N/A``, ``NaN``, ``null``, ``None``, ...; see
            :doc:`/data-model`); ``[]`` keeps every text value. Declared ``categories`` win.
        labels_as : {"auto", "number", "text", "normalized"}, default "auto"
            ``"number"`` reads every label as a number, so ``2`` and ``2.0`` are one
            category; ``"text"`` keeps the labels of a text file as written (``01`` and
            ``1`` two categories). ``"auto"`` types a text file's label column from all its
            values (numbers when every value is one, booleans when every value is
            ``true``/``false`` and each is written one way, else text) and warns in
            ``report`` when two text labels are the same number spelled differently, when
            two differ only in surrounding spaces, case or Unicode normal form (``yes``,
            ``yes `` and ``Yes``; ``TRUE`` and ``True``), and when two numbers differ by
            less than a relative 1e-9 (float noise). ``"normalized"`` is ``"auto"`` with
            the text labels that differ only in surrounding spaces, case or Unicode form
            read as one category (the report names each set merged).
        multi_label : bool, default False
            Each (item, rater) has a *set* of labels: given as repeated rows for the same
            (item, rater), or as a label column of lists, tuples or sets (an empty one is
            the empty set: the rater gave no label; a missing cell is no rating), or both.
            A label given twice to one (item, rater) counts once (said in ``report``).
            Each distinct set becomes one category, a ``frozenset``, and
            :attr:`label_sets` holds which labels each set has; ``categories`` then
            declares the single labels. The level must be nominal and ``duplicates`` is
            not used. See :doc:`/multi-label`.

        Returns
        -------
        Ratings

        Raises
        ------
        ColumnNotFoundError
            A column is not in the frame (the message lists the columns there are).
        InvalidInputError
            Empty input, missing ids, unparseable or undeclared labels, duplicates.
        """
        columns = (item, rater, label)
        cols, native_label, source = arrow_columns_of(frame, columns)
        return encode_columns(
            cols[0],
            cols[1],
            cols[2],
            multi_label=multi_label,
            level=level,
            categories=categories,
            missing=missing,
            duplicates=duplicates,
            columns=columns,
            source=source,
            na_values=na_values,
            labels_as=labels_as,
            native=native_label,
        )

    @classmethod
    def from_wide(
        cls,
        data: Any,
        *,
        item: str | None = None,
        level: Level = "nominal",
        categories: Sequence[Any] | None = None,
        missing: Missing = "omit",
        multi_label: bool = False,
    ) -> Ratings:
        """Build from a wide table: one row per item, one column per rater.

        Parameters
        ----------
        data : DataFrame-like or 2-D array_like
            Cells are labels; missing cells (None, NaN, empty text) are ratings not given.
            For a pandas frame the index gives the item ids (unless ``item`` is given) and
            the column names the raters; for an array, items and raters are numbered from 0.
        item : str, optional
            A column holding the item ids; every other column is a rater.
        level, categories, missing
            As in :meth:`from_long`.
        multi_label : bool, default False
            Cells are lists, tuples or sets of labels (``[]`` the empty set, a missing
            cell no rating), as in :meth:`from_long`.

        Examples
        --------
        >>> import numpy as np
        >>> r = Ratings.from_wide(np.array([[1, 1], [2, np.nan], [2, 3]]), level="ordinal")
        >>> r.n_ratings, r.report.missing, r.categories
        (5, 1, (1, 2, 3))
        """
        if isinstance(data, np.ndarray | list | tuple):
            arr = np.asarray(data, dtype=object if not isinstance(data, np.ndarray) else None)
            if arr.ndim != 2:
                raise InvalidInputError(
                    f"wide ratings must be 2-D (items x raters); got shape {arr.shape}"
                )
            frame = pd.DataFrame(arr)
            source = "array"
        elif isinstance(data, pd.DataFrame):
            frame = data
            source = "pandas.DataFrame"
        else:
            frame = frame_to_pandas(data)
            source = type(data).__module__.split(".")[0] + " frame"
        if item is not None:
            require_columns([item], list(frame.columns))
            ids = frame[item].to_numpy()
            frame = frame.drop(columns=[item])
        else:
            ids = frame.index.to_numpy()
        if frame.shape[1] == 0 or frame.shape[0] == 0:
            raise InvalidInputError(
                f"the input is empty: {frame.shape[0]} items x {frame.shape[1]} raters"
            )
        declared = declared_categories(frame.iloc[:, 0]) if frame.shape[1] else None
        native = None if declared is None else column_domain(declared, level)[0]
        n_items, n_raters = frame.shape
        kinds = {dtype.kind for dtype in frame.dtypes if isinstance(dtype, np.dtype)}
        if len(kinds) == 1 and kinds <= set("biuf") and len(frame.dtypes) == n_raters:
            labels: npt.NDArray[Any] = frame.to_numpy().reshape(-1)  # numbers: no objects
        else:
            labels = np.empty(n_items * n_raters, dtype=object)
            for j in range(n_raters):  # one pass per rater column, not per cell
                labels[j::n_raters] = frame.iloc[:, j].to_numpy(dtype=object)
        return cls.from_arrays(
            np.repeat(ids, n_raters),
            np.tile(np.asarray(frame.columns, dtype=object), n_items),
            labels,
            level=level,
            categories=categories if categories is not None else native,
            missing=missing,
            duplicates="raise",
            columns=("item (row)", "rater (column)", "label (cell)"),
            source=source,
            multi_label=multi_label,
        )

    # -------------------------------------------------------------- views
    def subset(self, mask: npt.ArrayLike) -> Ratings:
        """The ratings selected by a boolean mask or index array, keeping the decode tables.

        The codes stay valid, so statistics of subsets merge into those of the whole.
        Assignments without a label are not ratings and are not carried over.
        """
        sel = np.asarray(mask)
        values = None if self.values is None else self.values[sel]
        item_codes = self.item_codes[sel]
        report = dataclasses.replace(
            self.report,
            rows=int(item_codes.size),
            ratings=int(item_codes.size),
            items=n_distinct(item_codes, self.n_items),
            raters=n_distinct(self.rater_codes[sel], self.n_raters),
            missing=0,
            dropped=0,
            reasons={},
            source="subset",
        )
        return dataclasses.replace(
            self,
            item_codes=item_codes,
            rater_codes=self.rater_codes[sel],
            label_codes=self.label_codes[sel],
            values=values,
            report=report,
            missing_item_codes=np.zeros(0, dtype=np.int64),
            missing_rater_codes=np.zeros(0, dtype=np.int64),
        )

    def to_pandas(self) -> pd.DataFrame:
        """Decoded long frame with columns item, rater, label."""
        cats = np.empty(self.n_categories, dtype=object)
        cats[:] = list(self.categories)
        return pd.DataFrame(
            {
                "item": self.items[self.item_codes],
                "rater": self.raters[self.rater_codes],
                "label": cats[self.label_codes],
            }
        )

    def to_wide(self) -> pd.DataFrame:
        """Items x raters frame of labels (None where a rater did not rate an item)."""
        cells = np.full((self.n_items, self.n_raters), None, dtype=object)
        cats = np.empty(self.n_categories, dtype=object)
        cats[:] = list(self.categories)
        cells[self.item_codes, self.rater_codes] = cats[self.label_codes]
        return pd.DataFrame(
            cells,
            index=pd.Index(self.items, name="item"),
            columns=pd.Index(self.raters, name="rater"),
        )

    def code_matrix(self) -> IntArray:
        """Items x raters matrix of label codes, -1 where no rating."""
        out = np.full((self.n_items, self.n_raters), -1, dtype=np.int64)
        out[self.item_codes, self.rater_codes] = self.label_codes
        return out


def item_column(ratings: Ratings) -> Any:
    """The item ids as the ``item`` column of a table of one row per item holds them.

    Where pandas types the ids as text, its Arrow-backed array is made once and kept with
    the ratings (:attr:`Ratings.derived`), and each call returns a copy of it: a new array
    over the same immutable Arrow data (no copy of the ids), so that the tables of the
    consensus and of the rater model share the data instead of converting the decode table
    again (0.3 s a table at 1M text ids), and a change to one table's column changes no
    other. Other ids (numbers, dates, mixed types): the decode table itself, which each
    table copies as before.

    >>> import accord
    >>> r = accord.Ratings.from_wide([["y", "n"], ["n", "n"]])
    >>> item_column(r) is r.items
    True
    >>> r = accord.Ratings.from_arrays(["a", "b"], [1, 1], [0, 1])
    >>> item_column(r).tolist(), item_column(r) is item_column(r)
    (['a', 'b'], False)
    """
    kept = ratings.derived.get("item_column")
    if kept is None:
        kept = pd.Series(ratings.items, copy=False).array
        if isinstance(kept, pd.arrays.NumpyExtensionArray):  # objects: a view of the ids
            return ratings.items
        ratings.derived["item_column"] = kept
    return kept.copy()


def encode_columns(
    items: Any,
    raters: Any,
    labels: Any,
    *,
    multi_label: bool = False,
    level: Level = "nominal",
    categories: Sequence[Any] | None = None,
    missing: Missing = "omit",
    duplicates: Duplicates = "raise",
    columns: tuple[str, str, str] = ("item", "rater", "label"),
    source: str | None = None,
    na_values: Sequence[str] | None = None,
    labels_as: LabelsAs = "auto",
    text: bool = False,
    native: Declared | None = None,
) -> Ratings:
    """Encode three aligned columns into a :class:`Ratings`: set-valued ratings with
    :func:`encode_label_sets` (``multi_label=True``), single labels with
    :func:`encode_ratings`.

    The work of :meth:`Ratings.from_arrays`, :meth:`Ratings.from_long` and
    :func:`accord.read_ratings`; the options are theirs. ``native`` is what the
    label column declares itself (:func:`accord.data.frames.declared_categories`): the
    categories of single labels when none are passed (:func:`column_domain`). The columns
    are handed on as the only references this function holds, so that each can be let go
    as soon as it is encoded.

    Examples
    --------
    >>> r = encode_columns(["a", "a", "b"], ["x", "y", "x"], [1, 2, 1])
    >>> r.n_items, r.n_raters, r.categories
    (2, 2, (1, 2))
    >>> s = encode_columns(["a", "a"], ["x", "x"], ["pos", "neg"], multi_label=True)
    >>> [sorted(c) for c in s.categories]
    [['neg', 'pos']]
    """
    data = [items, raters, labels]
    del items, raters, labels
    # Each encoder is called directly, never through functools.partial or **options: a
    # direct call hands the columns over to the encoder's frame, which lets each go once
    # it is encoded; a wrapper keeps them alive in this frame until the call returns
    # (about 500 MB more at the peak for 10M ratings read from a file).
    if multi_label:
        return encode_label_sets(
            data.pop(0),
            data.pop(0),
            data.pop(0),
            level=level,
            categories=categories,
            missing=missing,
            duplicates=duplicates,
            columns=columns,
            source=source,
            na_values=na_values,
            labels_as=labels_as,
            text=text,
        )
    order = None
    if categories is None and native is not None:
        categories, order = column_domain(native, level)
    return encode_ratings(
        data.pop(0),
        data.pop(0),
        data.pop(0),
        level=level,
        categories=categories,
        missing=missing,
        duplicates=duplicates,
        columns=columns,
        source=source,
        na_values=na_values,
        labels_as=labels_as,
        text=text,
        category_order=order,
    )


def column_domain(native: Declared, level: Level) -> tuple[tuple[Any, ...] | None, str | None]:
    """The category domain a label column declares (a Categorical's categories, a polars
    ``Enum``), and how it is ordered in words: None when it gives no domain at ``level``.

    Ordered categories are the domain in their order. Unordered ones are the domain with no
    order: at the nominal level as they are; at another level only when every category is
    a number (then in numeric order), since text categories need an order the column does
    not give (the encoder then asks for ``categories=``).

    >>> column_domain((("b", "a", "c"), False), "nominal")
    (('b', 'a', 'c'), "the Categorical's categories (nominal: the order does not matter)")
    >>> column_domain(((3, 1, 2), False), "ordinal")
    ((1, 2, 3), "numeric (the Categorical's categories)")
    >>> column_domain((("lo", "hi"), False), "ordinal")
    (None, None)
    """
    categories, ordered = native
    if ordered:
        return categories, "the ordered Categorical's order"
    if level == "nominal":
        return categories, "the Categorical's categories (nominal: the order does not matter)"
    try:
        values = [float(c) for c in categories if not isinstance(c, bool)]
    except (TypeError, ValueError):
        return None, None
    if len(values) != len(categories) or not np.all(np.isfinite(values)):
        return None, None
    ranked = tuple(c for _, c in sorted(zip(values, categories, strict=True), key=lambda p: p[0]))
    return ranked, "numeric (the Categorical's categories)"


def encode_ratings(
    items: Any,
    raters: Any,
    labels: Any,
    *,
    level: Level = "nominal",
    categories: Sequence[Any] | None = None,
    missing: Missing = "omit",
    duplicates: Duplicates = "raise",
    columns: tuple[str, str, str] = ("item", "rater", "label"),
    source: str | None = None,
    na_values: Sequence[str] | None = None,
    labels_as: LabelsAs = "auto",
    text: bool = False,
    category_order: str | None = None,
) -> Ratings:
    """Encode three aligned columns (numpy, pandas, polars or pyarrow) into a :class:`Ratings`.

    The work of :meth:`Ratings.from_arrays`; ``text=True`` says the columns are the text
    cells of a file, whose type is decided from the whole column (see
    :func:`accord.data.encoder.typed_text`). ``category_order`` names the order of declared
    categories that came from the data (an ordered Categorical).

    Each column is let go as soon as it is encoded: a caller that hands over its only
    reference (a file's columns) holds one column less at each step.
    """
    import pyarrow as pa

    _check_options(level, missing, duplicates, labels_as)
    spellings = check_na_values(na_values)
    label_col = columns[2]
    arrays = _aligned(items, raters, labels, columns)
    del items, raters, labels
    n_rows = len(arrays[0])
    if duplicates == "mean" and level not in ("interval", "ratio"):
        raise InvalidInputError(
            f"{option('duplicates', 'mean')} averages labels, which needs "
            f"{option('level', 'interval', 'ratio')}; the level is {level} (use "
            f"{option('duplicates', 'raise', 'first', 'last')})"
        )
    # Ids are encoded over every row, so a rater assigned an item without labelling it
    # is kept as an assignment (``missing_item_codes``, ``missing_rater_codes``).
    item_codes, item_decode, rater_codes, rater_decode = _encode_pairs(
        arrays, columns, text=text, spellings=spellings
    )
    label_codes, labelled = _encode_labels(
        arrays.pop(0),
        spellings,
        level=level,
        categories=categories,
        column_name=label_col,
        labels_as=labels_as,
        text=text,
    )
    # The Arrow memory pool keeps freed blocks for reuse: hand them back now that the
    # columns are encoded, so that they do not add to what comes next.
    pa.default_memory_pool().release_unused()
    codes = _omit_missing(label_codes, item_codes, rater_codes, missing, label_col)
    del item_codes, rater_codes, label_codes
    values = None if labelled.values is None else labelled.values[codes.labels]
    resolved = _resolve_duplicates(
        codes,
        values,
        labelled,
        n_raters=int(rater_decode.size),
        n_items=int(item_decode.size),
        item_decode=item_decode,
        rater_decode=rater_decode,
        duplicates=duplicates,
        level=level,
        categories=categories,
        column=label_col,
    )
    codes, values, labelled = resolved
    return _assemble(
        codes,
        values,
        labelled,
        item_decode,
        rater_decode,
        n_rows=n_rows,
        level=level,
        declared=categories is not None,
        source=source,
        category_order=category_order,
    )


def encode_label_sets(
    items: Any,
    raters: Any,
    labels: Any,
    *,
    level: Level = "nominal",
    categories: Sequence[Any] | None = None,
    missing: Missing = "omit",
    duplicates: Duplicates = "raise",
    columns: tuple[str, str, str] = ("item", "rater", "label"),
    source: str | None = None,
    na_values: Sequence[str] | None = None,
    labels_as: LabelsAs = "auto",
    text: bool = False,
) -> Ratings:
    """Encode set-valued ratings (``multi_label=True``) into a :class:`Ratings`.

    Each (item, rater) gets the set of the labels of its rows (a row holds one label, or a
    list, tuple or set of labels); each distinct set is a category, a ``frozenset``, and
    :class:`~accord.data.label_sets.LabelSets` records which labels each set holds.
    ``categories`` declares the single labels. The options are those of
    :meth:`Ratings.from_long`.
    """
    _check_options(level, missing, duplicates, labels_as)
    label_col = columns[2]
    if level != "nominal":
        raise InvalidInputError(
            f"multi_label: sets of labels have no {level} order; use "
            f"{option('level', 'nominal')} (set distances: "
            f"{option('distance', 'masi', 'jaccard')})"
        )
    if duplicates != "raise":
        raise InvalidInputError(
            f"duplicates={duplicates!r} does not apply with multi_label: the rows of one "
            "(item, rater) are combined into its set of labels"
        )
    spellings = check_na_values(na_values)
    column = split_label_column(labels)
    del labels
    n_rows = int(column.is_list.size)
    arrays = _aligned(items, raters, np.zeros(n_rows, dtype=np.int8), columns)
    item_codes, item_decode, rater_codes, rater_decode = _encode_pairs(
        arrays, columns, text=text, spellings=spellings
    )
    del arrays
    if len(column.elements):
        label_codes, labelled = _encode_labels(
            column.elements,
            spellings,
            level="nominal",
            categories=categories,
            column_name=label_col,
            labels_as=labels_as,
            text=text,
            parents=column.parents,
        )
    else:  # every set is empty
        domain = () if categories is None else tuple(tidy_scalar(c) for c in categories)
        label_codes, labelled = np.zeros(0, dtype=np.int64), _Labels(domain, None, "", ())
    key = item_codes * max(int(rater_decode.size), 1) + rater_codes
    groups = group_label_sets(key, column, label_codes, len(labelled.domain))
    if missing == "raise" and (groups.missing_cells.size or groups.missing_inside):
        bad = np.union1d(groups.missing_cells, column.parents[label_codes < 0])
        raise InvalidInputError(
            f"column {label_col!r}: {rows_that(bad.size)} a missing label "
            f"({at_rows(bad)}); pass {option('missing', 'omit')} to leave them out"
        )
    sets = LabelSets(labelled.domain, groups.membership)
    kept = groups.pair_rows
    n_missing = int(groups.missing_cells.size)
    report = ReadReport(
        rows=n_rows,
        ratings=int(kept.size),
        items=n_distinct(item_codes[kept], item_decode.size),
        raters=n_distinct(rater_codes[kept], rater_decode.size),
        missing=n_missing,
        dropped=n_missing,
        reasons={"missing label": n_missing} if n_missing else {},
        source=source,
        notes=labelled.notes + groups.notes(label_col),
    )
    return Ratings(
        item_codes=item_codes[kept],
        rater_codes=rater_codes[kept],
        label_codes=groups.set_codes,
        items=item_decode,
        raters=rater_decode,
        categories=sets.sets(),
        level="nominal",
        values=None,
        report=report,
        categories_declared=False,
        missing_item_codes=item_codes[groups.missing_rows],
        missing_rater_codes=rater_codes[groups.missing_rows],
        category_order="sets by size, then by their labels",
        label_sets=sets,
    )


def _encode_pairs(
    arrays: list[Any], columns: tuple[str, str, str], *, text: bool, spellings: tuple[str, ...]
) -> tuple[IntArray, npt.NDArray[Any], IntArray, npt.NDArray[Any]]:
    """Codes and decode tables of the item and rater columns, the first two of ``arrays``
    (each taken out of the list as it is encoded, so that it can be let go)."""
    item_codes, item_decode = encode_ids(
        arrays.pop(0), column=columns[0], what="item", text=text, na_values=spellings
    )
    rater_codes, rater_decode = encode_ids(
        arrays.pop(0), column=columns[1], what="rater", text=text, na_values=spellings
    )
    return item_codes, item_decode, rater_codes, rater_decode


def _assemble(
    codes: _Codes,
    values: FloatArray | None,
    labelled: _Labels,
    item_decode: npt.NDArray[Any],
    rater_decode: npt.NDArray[Any],
    *,
    n_rows: int,
    level: Level,
    declared: bool,
    source: str | None,
    category_order: str | None,
) -> Ratings:
    """The :class:`Ratings` and its :class:`ReadReport` from the rows kept."""
    n_kept = int(codes.items.size)
    # Items or raters that no row refers to any more (every row dropped as a duplicate)
    # leave the decode tables; items whose every label is missing stay, with no rating.
    miss_items, miss_raters = codes.missing_items, codes.missing_raters
    item_codes, rater_codes = codes.items, codes.raters
    if n_kept + miss_items.size < n_rows:  # some rows were resolved away as duplicates
        item_codes, miss_items, item_decode = _compact(item_codes, miss_items, item_decode)
        rater_codes, miss_raters, rater_decode = _compact(rater_codes, miss_raters, rater_decode)
    order = category_order if category_order is not None else labelled.order
    report = ReadReport(
        rows=n_rows,
        ratings=n_kept,
        items=n_distinct(item_codes, item_decode.size),
        raters=n_distinct(rater_codes, rater_decode.size),
        missing=codes.n_missing,
        dropped=n_rows - n_kept,
        reasons=codes.reasons,
        source=source,
        notes=labelled.notes,
        order=order_line(level, labelled.domain, order),
    )
    return Ratings(
        item_codes=item_codes,
        rater_codes=rater_codes,
        label_codes=codes.labels,
        items=item_decode,
        raters=rater_decode,
        categories=labelled.domain,
        level=level,
        values=values,
        report=report,
        categories_declared=declared,
        missing_item_codes=miss_items,
        missing_rater_codes=miss_raters,
        category_order=order,
    )


def _check_options(level: str, missing: str, duplicates: str, labels_as: str) -> None:
    """The options of :func:`encode_ratings`, each one of its choices, and ``mean`` only
    where labels are numbers."""
    check_choice("level", level, LEVELS, "Ratings")
    check_choice("missing", missing, MISSING_RULES, "Ratings")
    check_choice("duplicates", duplicates, DUPLICATE_RULES, "Ratings")
    check_choice("labels_as", labels_as, LABELS_AS, "Ratings")


class _Unreadable(Exception):
    """A column whose values are no ids or labels (complex numbers, lists, mappings)."""


def _arrow_column(values: Any, name: str) -> Any:
    """One column as Arrow (:func:`arrow_of`); values Arrow cannot hash into ids or labels
    (complex numbers, lists, tuples, mappings) raise :class:`_Unreadable` naming the column."""
    import pyarrow as pa

    try:
        arr = arrow_of(values)
    except pa.ArrowException as exc:  # complex numbers: Arrow has no such type
        dtype = getattr(values, "dtype", type(values).__name__)
        raise _Unreadable(
            f"column {name!r}: values of type {dtype} cannot be ids or labels ({exc})"
        ) from None
    if pa.types.is_nested(arr.type):
        raise _Unreadable(
            f"column {name!r} holds {arr.type} values (lists, tuples or mappings), which cannot "
            f"be ids or single labels; for a set of labels per rating, pass "
            f"{option('multi_label', True)}"
        )
    return arr


def _aligned(items: Any, raters: Any, labels: Any, columns: tuple[str, str, str]) -> list[Any]:
    """The three columns as Arrow arrays, checked 1-D, of one length, and not empty."""
    shapes = [
        np.shape(x) if not hasattr(x, "__arrow_c_stream__") else None
        for x in (items, raters, labels)
    ]
    flat = [s is None or len(s) == 1 for s in shapes]
    try:
        arrays = (
            [
                _arrow_column(x, name)
                for x, name in zip((items, raters, labels), columns, strict=True)
            ]
            if all(flat)
            else []
        )
    except _Unreadable as exc:
        raise InvalidInputError(str(exc)) from None
    except InvalidInputError:
        arrays = []
    lengths = {len(a) for a in arrays}
    if not arrays or len(lengths) != 1:
        got = [
            s if s is not None else (len(a),)
            for s, a in zip(shapes, arrays or [()] * 3, strict=True)
        ]
        item_col, rater_col, label_col = columns
        raise InvalidInputError(
            f"{item_col!r}, {rater_col!r} and {label_col!r} must be 1-D and of equal length; "
            f"got shapes {', '.join(str(tuple(g)) for g in got)}"
        )
    if lengths.pop() == 0:
        raise InvalidInputError("the input is empty: there are no ratings to read")
    return arrays


@dataclasses.dataclass(frozen=True, slots=True)
class _Labels:
    """The category domain of the labels, in order, and how it was made."""

    domain: tuple[Any, ...]
    values: FloatArray | None
    order: str
    notes: tuple[str, ...]


def _encode_labels(
    column: Any,
    spellings: tuple[str, ...],
    *,
    level: Level,
    categories: Sequence[Any] | None,
    column_name: str,
    labels_as: LabelsAs,
    text: bool,
    parents: IntArray | None = None,
) -> tuple[IntArray, _Labels]:
    """Hash the label column once, decide on its distinct values what is missing and how
    they order into the domain (:func:`accord.data.encoder.label_domain`), and give each row
    its domain code (-1 where missing).

    ``parents`` gives the input row of each entry when the entries are the single labels
    of set-valued cells, so that messages name input rows."""
    import pyarrow as pa

    if parents is None and categories is None and level in ("interval", "ratio"):
        measured = _float_labels(column, level=level, column_name=column_name)
        if measured is not None:
            return measured
    idx, dictionary = dictionary_of(column)
    n_rows = len(column)
    del column
    present = np.flatnonzero(~missing_of(dictionary, spellings, keep=categories))
    if present.size == 0:
        raise InvalidInputError(
            f"column {column_name!r}: all {n_rows} rows have a missing label; nothing to rate"
        )
    raw = distinct_values(
        dictionary.take(pa.array(present, type=pa.int64())), text=text and labels_as != "text"
    )
    raw_of = np.full(len(dictionary) + 1, -1, dtype=np.int64)
    raw_of[present] = np.arange(present.size)

    def rows_of(positions: IntArray) -> tuple[IntArray, int]:
        rows, at = rows_in(idx, present[positions])
        if parents is not None:
            rows = np.unique(parents[rows])
        return rows, int(raw_of[at])

    remap, domain, domain_values, order, notes = label_domain(
        raw, rows_of, level=level, categories=categories, column=column_name, labels_as=labels_as
    )
    full = np.full(len(dictionary) + 1, -1, dtype=np.int64)
    full[present] = remap
    return full[idx], _Labels(domain, domain_values, order, notes)


def _float_labels(
    column: Any, *, level: Level, column_name: str
) -> tuple[IntArray, _Labels] | None:
    """A column of floats at the interval or ratio level, numbered by one sort of its
    present values (null and NaN are missing) instead of a hash then a sort of the distinct
    values: the codes and domain :func:`_encode_labels` gives, in half the time on scores
    that are nearly all distinct. None (the general path, whose messages name the row)
    for another type, when no value is present, or when one is infinite (or, at the ratio
    level, negative)."""
    import pyarrow as pa

    kind = getattr(column, "type", None)
    if kind is None or not pa.types.is_floating(kind):
        return None
    values = np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.float64)  # null: NaN
    present = ~np.isnan(values)
    every = bool(present.all())
    shown = values if every else values[present]
    if shown.size == 0 or not np.isfinite(shown).all() or (level == "ratio" and (shown < 0).any()):
        return None
    # one sort, not stable (equal values share a code whatever their order): np.unique's
    # codes and distinct values without its second pass over the values sorted
    inverse, n_distinct = dense_ranks(shown)
    uniq = np.empty(n_distinct)
    uniq[inverse] = shown
    if every:
        codes = inverse
    else:
        codes = np.full(values.size, -1, dtype=np.int64)
        codes[present] = inverse
    domain, domain_values, notes = sorted_numbers_domain(uniq, column_name)
    return codes, _Labels(domain, domain_values, "numeric", notes)


@dataclasses.dataclass(slots=True)
class _Codes:
    """The rows kept: their item, rater and label codes and input rows (None: every row),
    the assignments without a label, and the reasons rows were dropped."""

    items: IntArray
    raters: IntArray
    labels: IntArray
    rows: IntArray | None
    missing_items: IntArray
    missing_raters: IntArray
    n_missing: int
    reasons: dict[str, int]

    def positions(self) -> IntArray:
        """The input row (0-based) of each kept row."""
        return np.arange(self.items.size, dtype=np.int64) if self.rows is None else self.rows


def _omit_missing(
    labels: IntArray, items: IntArray, raters: IntArray, missing: str, column: str
) -> _Codes:
    """Leave out the rows without a label (or raise, under ``missing="raise"``), keeping
    their (item, rater) assignments."""
    miss = labels < 0
    n_missing = int(np.count_nonzero(miss))
    empty = np.zeros(0, dtype=np.int64)
    if not n_missing:
        return _Codes(items, raters, labels, None, empty, empty, 0, {})
    if missing == "raise":
        raise InvalidInputError(
            f"column {column!r}: {rows_that(n_missing)} a missing label "
            f"({at_rows(np.flatnonzero(miss))}); pass {option('missing', 'omit')} "
            "to leave them out"
        )
    keep = np.flatnonzero(~miss)
    return _Codes(
        items[keep],
        raters[keep],
        labels[keep],
        keep,
        items[miss],
        raters[miss],
        n_missing,
        {"missing label": n_missing},
    )


def _any_repeated(key: IntArray, key_range: int) -> bool:
    """Whether a key occurs twice: a table of the keys seen when their range is small, else
    a sort of the keys (not an argsort)."""
    if key_range <= 8 * key.size + (1 << 24):
        seen_pairs = np.zeros(key_range, dtype=bool)
        seen_pairs[key] = True
        return int(np.count_nonzero(seen_pairs)) < key.size
    sorted_key = np.sort(key)
    return bool(np.any(sorted_key[1:] == sorted_key[:-1]))


def _resolve_duplicates(
    codes: _Codes,
    values: FloatArray | None,
    labelled: _Labels,
    *,
    n_items: int,
    n_raters: int,
    item_decode: npt.NDArray[Any],
    rater_decode: npt.NDArray[Any],
    duplicates: str,
    level: Level,
    categories: Sequence[Any] | None,
    column: str,
) -> tuple[_Codes, FloatArray | None, _Labels]:
    """Find the (item, rater) pairs rated more than once and list them (``"raise"``), keep
    one of each (``"first"``, ``"last"``) or average them (``"mean"``)."""
    n_raters_all = max(n_raters, 1)
    key = codes.items * n_raters_all + codes.raters
    if not _any_repeated(key, n_items * n_raters_all):
        return codes, values, labelled
    order_k = np.argsort(key, kind="stable")
    sorted_key = key[order_k]
    dup_next = sorted_key[1:] == sorted_key[:-1]
    del sorted_key
    if duplicates == "raise":
        _raise_duplicates(codes, key, order_k, dup_next, item_decode, rater_decode)
    if duplicates in ("first", "last"):
        starts = np.flatnonzero(np.r_[True, ~dup_next])
        if duplicates == "first":
            chosen = order_k[starts]
        else:
            chosen = order_k[np.r_[starts[1:], key.size] - 1]
        chosen = np.sort(chosen)
        codes.reasons[f"duplicate (item, rater): kept the {duplicates}"] = key.size - chosen.size
        codes.rows = codes.positions()[chosen]
        codes.items, codes.raters = codes.items[chosen], codes.raters[chosen]
        codes.labels = codes.labels[chosen]
        return codes, None if values is None else values[chosen], labelled
    assert values is not None
    return _average_duplicates(
        codes,
        values,
        labelled,
        order_k,
        dup_next,
        level=level,
        categories=categories,
        column=column,
    )


def _raise_duplicates(
    codes: _Codes,
    key: IntArray,
    order_k: IntArray,
    dup_next: npt.NDArray[np.bool_],
    item_decode: npt.NDArray[Any],
    rater_decode: npt.NDArray[Any],
) -> None:
    """Raise :class:`DuplicateRatingError` naming the first pairs rated twice and their rows."""
    is_dup_sorted = np.zeros(key.size, dtype=bool)
    is_dup_sorted[1:] |= dup_next
    is_dup_sorted[:-1] |= dup_next
    pos = codes.positions()
    pairs: list[str] = []
    seen: set[int] = set()
    for r in np.sort(order_k[is_dup_sorted]):
        k = int(key[r])
        if k in seen:
            continue
        seen.add(k)
        pairs.append(
            f"({tidy_scalar(item_decode[codes.items[r]])!r}, "
            f"{tidy_scalar(rater_decode[codes.raters[r]])!r}) at rows "
            f"{format_rows(pos[key == k])}"
        )
        if len(pairs) == SHOW:
            break
    n_pairs = int(np.unique(key[order_k[is_dup_sorted]]).size)
    raise DuplicateRatingError(
        f"{n_pairs} (item, rater) pairs are rated more than once: "
        + "; ".join(pairs)
        + ("; ..." if n_pairs > SHOW else "")
        + f". Pass {option('duplicates', 'first', 'last', 'mean')} (mean: interval/ratio) "
        + "to resolve"
    )


def _average_duplicates(
    codes: _Codes,
    values: FloatArray,
    labelled: _Labels,
    order_k: IntArray,
    dup_next: npt.NDArray[np.bool_],
    *,
    level: Level,
    categories: Sequence[Any] | None,
    column: str,
) -> tuple[_Codes, FloatArray, _Labels]:
    """One rating per (item, rater) pair: the mean of its values, the domain made again from
    the means."""
    group = np.cumsum(np.r_[True, ~dup_next]) - 1
    means = np.bincount(group, weights=values[order_k]) / np.bincount(group)
    first = order_k[np.flatnonzero(np.r_[True, ~dup_next])]
    codes.reasons["duplicate (item, rater): averaged"] = order_k.size - first.size
    reindex = np.argsort(first, kind="stable")
    first_rows = codes.positions()[first][reindex]
    codes.items = codes.items[first][reindex]
    codes.raters = codes.raters[first][reindex]
    codes.rows = first_rows
    averaged = means[reindex]
    uniq, inverse = np.unique(averaged, return_inverse=True)

    def mean_rows(at: IntArray) -> tuple[IntArray, int]:
        rows = np.flatnonzero(np.isin(inverse, at))
        return first_rows[rows], int(inverse[rows[0]])

    remap, domain, domain_values, order, _ = label_domain(
        uniq, mean_rows, level=level, categories=categories, column=column
    )
    codes.labels = remap[inverse.reshape(-1)]
    return codes, averaged, _Labels(domain, domain_values, order, labelled.notes)


def _compact(
    codes: IntArray, other: IntArray, decode: npt.NDArray[Any]
) -> tuple[IntArray, IntArray, npt.NDArray[Any]]:
    """Drop decode entries that neither ``codes`` nor ``other`` refers to."""
    used = np.zeros(decode.size, dtype=bool)
    used[codes] = True
    used[other] = True
    if used.all():
        return codes, other, decode
    new = np.cumsum(used) - 1
    return new[codes].astype(np.int64), new[other].astype(np.int64), decode[used]
