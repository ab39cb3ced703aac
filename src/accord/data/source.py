"""Where the ratings are, how they read and how they are computed: one :class:`Source`.

Every front door (:func:`accord.agreement`, :func:`accord.consensus`, :func:`accord.report`,
...) takes a :class:`Source`, or anything :func:`source` accepts together with the
source's fields as keywords: ``agreement(x, item="i", ...)`` is
``agreement(source(x, item="i", ...))``. The fields are defined here once; a front door's
signature names only what it computes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePath
from typing import Any, Literal

from .._errors import InvalidInputError
from .._types import Duplicates, Level, Missing

__all__ = [
    "ALIASES",
    "ENGINE_FIELDS",
    "READ_FIELDS",
    "Source",
    "as_source",
    "refuse_read_options",
    "source",
    "takes_source",
]

#: The engines (as :data:`accord.engines._run.Engine` names them).
SourceEngine = Literal["memory", "stream", "dask"]


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class Source:
    """Where the ratings are and how they read, and which engine computes on them.

    Build one with :func:`source`; every front door takes it.

    Attributes
    ----------
    data : path, list of paths, data frame, Ratings, counts or arrays
        The ratings: what the front door's first parameter accepts.
    item, rater, label : str, optional
        Column names of a long table (one row per rating), for data given as a path or a
        frame.
    score : str or tuple of str
        Numeric score columns (:func:`accord.report`'s panel calibration).
    confidence, correct : str, optional
        A confidence column in [0, 1] and a correctness column (:func:`accord.report`).
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement of the labels.
    categories : sequence, optional
        The declared category domain, in order.
    missing : {"omit", "raise"}, default "omit"
        Rows without a label.
    duplicates : {"raise", "first", "last", "mean"}, default "raise"
        A rater who rated an item more than once (:meth:`accord.Ratings.from_long`).
    na_values : sequence of str, optional
        The spellings of a missing label in a text file (``[]``: empty cells only).
    labels_as : {"auto", "number", "text", "normalized"}, default "auto"
        How a text file's labels are typed.
    sep, encoding : str, optional
        Field separator and text encoding of a CSV/TSV file (default: sniffed, UTF-8).
    multi_label : bool, default False
        A set of labels per item and rater.
    file_format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Overrides the format told by the file's suffix.
    from_ : {"label-studio", "prodigy", "argilla", "pairwise"}, optional
        The annotation tool whose export the file is (default: recognised by its content
        when no column is named).
    field : str, optional
        The control or question of an annotation-tool export to read.
    engine : {"memory", "stream", "dask"}, default "memory"
        Where the statistics are computed (see the engines page of the docs).
    scheduler : str or distributed.Client, optional
        ``engine="dask"``: a scheduler name, a client or an address.
    batch_size : int, default 1_000_000
        ``engine="stream"``: rows per batch.
    progress : callable or bool, optional
        ``progress(rows_read, total_or_None)`` after each batch of the stream engine
        (:func:`accord.report`: True or False, a progress bar or none).
    """

    data: Any = None
    item: str | None = None
    rater: str | None = None
    label: str | None = None
    score: str | tuple[str, ...] = ()
    confidence: str | None = None
    correct: str | None = None
    level: Level = "nominal"
    categories: Sequence[Any] | None = None
    missing: Missing = "omit"
    duplicates: Duplicates = "raise"
    na_values: Sequence[str] | None = None
    labels_as: Literal["auto", "number", "text", "normalized"] = "auto"
    sep: str | None = None
    encoding: str | None = None
    multi_label: bool = False
    file_format: Literal["csv", "tsv", "parquet", "jsonl"] | None = None
    from_: Literal["label-studio", "prodigy", "argilla", "pairwise"] | None = None
    field: str | None = None
    engine: SourceEngine = "memory"
    scheduler: Any = None
    batch_size: int = 1_000_000
    progress: Callable[[int, int | None], None] | bool | None = None

    def __eq__(self, other: object) -> bool:
        """Two sources are equal when they hold the same data (the same object, or equal
        paths) read and computed the same way."""
        if not isinstance(other, Source):
            return NotImplemented
        same = self.data is other.data or (
            isinstance(self.data, str | tuple | PurePath) and self.data == other.data
        )
        return same and all(
            getattr(self, f.name) == getattr(other, f.name)
            for f in dataclasses.fields(self)
            if f.name != "data"
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        """The data and the fields given, wrapped to lines of at most 100 characters.

        >>> source("r.csv", item="i", rater="r", label="l", level="ordinal")
        Source(data='r.csv', item='i', rater='r', label='l', level='ordinal')
        """
        import textwrap

        parts = [f"{name}={_short(getattr(self, name))}" for name in ("data", *self.given())]
        text = "Source(" + ", ".join(parts) + ")"
        return "\n".join(textwrap.wrap(text, width=100, subsequent_indent="    "))

    @property
    def scores(self) -> tuple[str, ...]:
        """The score columns, as a tuple."""
        return (self.score,) if isinstance(self.score, str) else tuple(self.score)

    def read_options(self) -> dict[str, Any]:
        """The keywords of :func:`accord.read_ratings` and :meth:`accord.Ratings.from_long`
        this source sets (:data:`READ_FIELDS`), and ``file_format``, ``from_`` and ``field``
        when given.

        >>> source("r.csv", item="i", rater="r", label="l").read_options()["label"]
        'l'
        """
        out = {name: getattr(self, name) for name in READ_FIELDS}
        out.update({k: getattr(self, k) for k in EXPORT_FIELDS if getattr(self, k) is not None})
        return out

    def engine_options(self) -> dict[str, Any]:
        """The engine's keywords: ``scheduler``, ``progress`` and ``batch_size``."""
        return {"scheduler": self.scheduler, "progress": self.progress,
                "batch_size": self.batch_size}  # fmt: skip

    def given(self) -> list[str]:
        """The fields set to other than their default (``data`` aside), in field order.

        >>> source("r.csv", level="ordinal", sep=";").given()
        ['level', 'sep']
        """
        return [
            f.name
            for f in dataclasses.fields(self)
            if f.name != "data" and getattr(self, f.name) != f.default
        ]


#: The fields a reader of ratings takes (:class:`accord.engines._run.ReadOptions`).
READ_FIELDS: tuple[str, ...] = ("item", "rater", "label", "level", "categories", "missing",
                                "duplicates", "na_values", "labels_as", "sep", "encoding",
                                "multi_label")  # fmt: skip
#: The fields of an annotation-tool export or a file whose suffix does not tell its format.
EXPORT_FIELDS: tuple[str, ...] = ("file_format", "from_", "field")
#: The fields of the engines.
ENGINE_FIELDS: tuple[str, ...] = ("engine", "scheduler", "batch_size", "progress")
#: Keywords read as a field of another name (``report(scores=...)`` is ``score``).
ALIASES: Mapping[str, str] = {"scores": "score", "source_tool": "from_"}

_FIELDS = frozenset(f.name for f in dataclasses.fields(Source)) - {"data"}


def _short(value: Any, width: int = 60) -> str:
    """The first line of ``repr(value)``, cut to ``width`` characters."""
    text = repr(value).splitlines()[0]
    return text if len(text) <= width else text[: width - 3] + "..."


def _checked(owner: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with their aliases resolved; an unknown keyword is an error naming it."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        name = ALIASES.get(key, key)
        if name not in _FIELDS:
            raise InvalidInputError(
                f"{owner}() got an unexpected keyword argument {key!r}; a source takes "
                f"{', '.join(sorted(_FIELDS))}"
            )
        if name in out:
            raise InvalidInputError(f"{owner}() got {name!r} twice (as {key!r} too)")
        out[name] = tuple(value) if name == "score" and not isinstance(value, str) else value
    return out


def source(data: Any = None, /, **options: Any) -> Source:
    """Where the ratings are and how they read: a :class:`Source` for every front door.

    Parameters
    ----------
    data : Source, path, list of paths, data frame, Ratings, counts or arrays
        What a front door's first parameter accepts; a :class:`Source` is copied with
        ``options`` replacing its fields.
    **options
        The fields of :class:`Source` (``item``, ``rater``, ``label``, ``level``,
        ``categories``, ``missing``, ``duplicates``, ``na_values``, ``labels_as``, ``sep``,
        ``encoding``, ``multi_label``, ``file_format``, ``from_``, ``field``, ``score``,
        ``confidence``, ``correct``, ``engine``, ``scheduler``, ``batch_size``,
        ``progress``).

    Returns
    -------
    Source

    Raises
    ------
    InvalidInputError
        A keyword that is no field of :class:`Source`, named.

    Examples
    --------
    >>> import accord
    >>> s = accord.source("ratings.csv", item="patient", rater="rater", label="diagnosis")
    >>> s.label, s.engine
    ('diagnosis', 'memory')
    >>> accord.source(s, engine="stream").engine
    'stream'
    >>> accord.source(s, lable="x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    accord._errors.InvalidInputError: source() got an unexpected keyword argument 'lable'; ...
    """
    return as_source(data, "source", **options)


def as_source(data: Any, owner: str, /, **options: Any) -> Source:
    """``data`` as a :class:`Source` (a copy with ``options`` replacing its fields when it is
    one), the keywords checked in the words of ``owner`` (a front door's name)."""
    fields = _checked(owner, options)
    if isinstance(data, Source):
        out = dataclasses.replace(data, **fields) if fields else data
    else:
        out = Source(data, **fields)
    given = [name for name in ("from_", "field") if getattr(out, name) is not None]
    if given and out.engine != "memory":
        raise InvalidInputError(
            f"{given[0]}= applies to engine='memory'; {owner}(engine={out.engine!r}) reads "
            "tables by their item=, rater= and label= columns"
        )
    return out


def takes_source(
    owner: str, fields: Sequence[str], *, columns: Sequence[str] = (), data: str | None = None
) -> Callable[[tuple[Any, ...], dict[str, Any]], tuple[tuple[Any, ...], dict[str, Any]]]:
    """The arguments of a front door whose parameters name a source's fields one by one,
    given a :class:`Source` first: its data becomes the first parameter (or the keyword
    ``data``, after the leading ``columns`` taken from the source's fields of those names)
    and its ``fields`` set become keywords (a keyword given beside it wins). A field set
    that the front door does not read is an error naming it, not dropped. Arguments without
    a Source first are returned as they are. (:func:`accord.engines._pages.engine_pages_of`
    applies it.)

    >>> unpack = takes_source("show", ("item", "engine"))
    >>> unpack((source("r.csv", item="i", engine="stream"),), {})
    (('r.csv',), {'item': 'i', 'engine': 'stream'})
    >>> unpack((source("r.csv", sep=";"),), {})
    Traceback (most recent call last):
    ...
    accord._errors.InvalidInputError: show does not read a source's sep=; it takes item=, engine=
    """

    def unpack(
        args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if not args or not isinstance(args[0], Source):
            return args, kwargs
        src, rest = args[0], args[1:]
        refused = [n for n in src.given() if n not in fields and n not in columns]
        if refused:
            takes = ", ".join(f"{n}=" for n in (*columns, *fields))
            raise InvalidInputError(
                f"{owner} does not read a source's {refused[0]}=; it takes {takes}"
            )
        taken: dict[str, Any] = {n: getattr(src, n) for n in src.given() if n in fields}
        if data is None:
            return (src.data, *rest), {**taken, **kwargs}
        lead = tuple(getattr(src, n) for n in columns)
        return (*lead, *rest), {data: src.data, **taken, **kwargs}

    return unpack


def refuse_read_options(owner: str, given: Mapping[str, object], takes: str = "ratings") -> None:
    """The keywords an estimator does not take (``given``, its ``**read_options``) refused in
    one line: a field of :class:`Source` (``item=``, ``engine=``, ...) is told where it goes
    (:func:`accord.read_ratings` reads the columns, a front door chooses the engine); any
    other keyword is the TypeError Python gives.

    >>> refuse_read_options("fleiss_kappa", {})
    >>> refuse_read_options("fleiss_kappa", {"item": "i"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    accord._errors.InvalidInputError: fleiss_kappa() takes ratings, not where they are: ...
    """
    if not given:
        return
    name = next(iter(given))
    field = ALIASES.get(name, name)
    if field not in _FIELDS:  # as Python says it
        raise TypeError(f"{owner}() got an unexpected keyword argument {name!r}")
    if field in ENGINE_FIELDS:
        raise InvalidInputError(
            f"{owner}() computes on {takes} in memory: {name}= chooses the engine of a front "
            "door (accord.agreement, accord.consensus, accord.calibrate_panel, accord.report)"
        )
    raise InvalidInputError(
        f"{owner}() takes {takes}, not where they are: {name}= is a field of accord.source(), "
        f"read by accord.read_ratings(data, item=..., rater=..., label=...); pass "
        f"{owner}(accord.read_ratings(...))"
    )
