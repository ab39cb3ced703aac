"""Choosing an engine from the user-facing functions (``agreement``, ``consensus``, ...).

With ``engine="memory"`` the functions take data in memory; with ``"stream"`` or ``"dask"``
they take where the data is (paths, a glob, a dask DataFrame) and the column names, and work
from the engine's statistics plus, for two-pass methods, a :class:`Rescan` over the same
batches or partitions.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, TypeAlias, TypedDict, Unpack, get_args

import numpy as np

from .._errors import InvalidInputError
from .._types import IntArray
from .._validate import check_callback
from ._blocks import COUNTS, Plan, RatingStatistics
from ._mapreduce import Progress, Rescan
from ._source import is_duckdb_relation, resolve_files

__all__ = [
    "COUNTS",
    "ENGINES",
    "Engine",
    "Plan",
    "Progress",
    "ReadOptions",
    "Rescan",
    "check_engine",
    "columns_for",
    "index_label_counts",
    "ratings_in_memory",
    "scan_ratings",
    "shared_scans",
]

Engine: TypeAlias = Literal["memory", "stream", "dask"]
ENGINES: tuple[str, ...] = get_args(Engine)


def check_engine(engine: str, owner: str) -> None:
    """Raise the house option error unless ``engine`` is one of :data:`ENGINES`."""
    if engine not in ENGINES:
        raise InvalidInputError(
            f"The 'engine' parameter of {owner} must be one of "
            f"{{{', '.join(repr(e) for e in ENGINES)}}}. Got {engine!r} instead."
        )


def _is_dask_frame(data: Any) -> bool:
    module = type(data).__module__
    return module.startswith(("dask.", "dask_expr"))


def check_source(data: Any, engine: str, owner: str) -> None:
    """One-line explanation when data in memory is given to the stream or dask engine."""
    if isinstance(data, str | Path):
        return
    if (
        isinstance(data, Sequence)
        and not isinstance(data, bytes)
        and data
        and all(isinstance(x, str | Path) for x in data)
    ):
        return
    if engine == "dask" and _is_dask_frame(data):
        return
    if engine == "stream" and is_duckdb_relation(data):
        return
    what = "paths, a glob or a folder" + (
        " or a dask DataFrame" if engine == "dask" else " or a DuckDB relation"
    )
    raise InvalidInputError(
        f"{owner}(engine={engine!r}) reads the data where it is stored: pass {what} with the "
        f"column names; got a {type(data).__name__} (data already in memory: use "
        "engine='memory')"
    )


def columns_for(owner: str, **columns: str | None) -> None:
    """The stream and dask engines need the column names."""
    missing = [name for name, value in columns.items() if value is None]
    if missing:
        raise InvalidInputError(
            f"{owner} with the stream or dask engine needs the column names: pass "
            + ", ".join(f"{name}=" for name in missing)
        )


class ReadOptions(TypedDict, total=False):
    """How the ratings at a path or in a frame are read: the keywords of
    :func:`accord.read_ratings` that the user-facing functions pass down."""

    item: str | None
    rater: str | None
    label: str | None
    level: Any
    categories: Sequence[Any] | None
    missing: Any
    duplicates: Any
    na_values: Sequence[str] | None
    labels_as: Any
    sep: str | None
    encoding: str | None
    multi_label: bool
    file_format: str | None
    from_: str | None
    field: str | None


#: The options of a file only (not of a frame in memory).
FILE_OPTIONS = ("sep", "encoding", "file_format", "from_", "field")


def ratings_in_memory(data: Any, *, owner: str, **read: Unpack[ReadOptions]) -> Any:
    """What the memory engine works on: a path is read with :func:`accord.read_ratings` (with
    ``sep`` and ``encoding``), a
    data frame (pandas, polars, pyarrow, DuckDB, anything narwhals reads) becomes
    :meth:`accord.Ratings.from_long` of its ``item``, ``rater`` and ``label`` columns;
    anything else (Ratings, counts, arrays) is returned as it is.

    Raises
    ------
    InvalidInputError
        A path or a frame without the three column names (the missing ones are named).
    """
    if several_files(data):
        files, fmt = resolve_files(data, read.get("file_format"), read.get("encoding"))
        if len(files) > 1:
            return _read_several(files, fmt, owner, dict(read))
        data = files[0]
    is_path = isinstance(data, str | Path)
    if not is_path:
        if isinstance(data, np.ndarray | list | tuple) or hasattr(data, "label_codes"):
            return data  # arrays and Ratings: no frame library to ask
        from narwhals.dependencies import is_into_dataframe

        if not (is_into_dataframe(data) or is_duckdb_relation(data)):
            return data
    tool = read.pop("from_", None)
    if not is_path:
        given = [n for n in FILE_OPTIONS if read.get(n) is not None] + (["from_"] if tool else [])
        if given:
            raise InvalidInputError(
                f"{given[0]}= applies to a file; {owner} was given a {type(data).__name__}"
            )
    if tool is not None:
        return _export_in_memory(data, tool, owner, dict(read))
    absent = [n for n in ("item", "rater", "label") if read.get(n) is None]
    if absent and not (is_path and read.get("field") is not None):
        what = "a file" if is_path else f"a {type(data).__name__}"
        raise InvalidInputError(
            f"{owner} on {what} needs the column names: pass "
            + ", ".join(f"{name}=" for name in absent)
        )
    from ..data.ratings import Ratings
    from ..io.ratings import read_ratings

    reader: Any = read_ratings if is_path else Ratings.from_long
    return reader(data, **{k: v for k, v in read.items() if is_path or k not in FILE_OPTIONS})


def several_files(data: Any) -> bool:
    """Whether ``data`` names files the way the stream engine reads several: a glob, a folder,
    or a list of paths that are all files (a list of anything else is data).

    >>> several_files("exports/*.csv"), several_files(["a", "b"]), several_files("r.csv")
    (True, False, False)
    """
    if isinstance(data, str | Path):
        text = str(data)
        if Path(text).is_file():
            return False
        return any(ch in text for ch in "*?[") or Path(text).is_dir()
    return (
        isinstance(data, list | tuple)
        and len(data) > 0
        and all(isinstance(p, str | Path) and Path(p).is_file() for p in data)
    )


#: What :func:`~accord.data.ratings.encode_columns` takes of the read options.
_ENCODE = ("level", "categories", "missing", "duplicates", "na_values", "labels_as", "multi_label")


def _read_several(files: list[str], fmt: str, owner: str, read: dict[str, Any]) -> Any:
    """The ratings of several files (a glob, a folder, a list) read into memory as one
    table, rows numbered over the files in order; a label at fault is also named by its
    file and its row there, as the stream engine names it."""
    import pyarrow as pa

    from ..data.encoder import LabelRowError
    from ..data.ratings import encode_columns
    from ..io.ratings import read_columns
    from ._source import Locator, describe

    absent = [n for n in ("item", "rater", "label") if read.get(n) is None]
    if absent:
        raise InvalidInputError(
            f"{owner} on several files needs the column names: pass "
            + ", ".join(f"{name}=" for name in absent)
        )
    names = [read["item"], read["rater"], read["label"]]
    few = [name for name in names[1:] if name != names[0]]
    parts: list[list[Any]] = []
    locator, start, text = Locator(), 0, False
    for f in files:
        # raters and labels as Arrow dictionaries, as read_ratings reads one file
        sep, encoding = read.get("sep"), read.get("encoding")
        cols, is_text = read_columns(f, names, dictionary=few, file_format=fmt,  # type: ignore[arg-type]
                                     sep=sep, encoding=encoding)  # fmt: skip
        locator.add(start, f)
        start += len(cols[0])
        parts.append(cols)
        text = text or is_text
    columns = []
    for j in range(len(names)):
        chunks = [c for part in parts for c in pa.chunked_array(part[j]).chunks]
        kinds = {c.type for c in chunks}
        if len(kinds) > 1:  # the files typed a column differently: read it as text
            chunks = [c.cast(pa.large_string()) for c in chunks]
            text = True
        columns.append(pa.chunked_array(chunks))
    encode = {k: read[k] for k in _ENCODE if read.get(k) is not None}
    try:
        return encode_columns(*columns, columns=(names[0], names[1], names[2]),
                              source=describe(files), text=text, **encode)  # fmt: skip
    except LabelRowError as exc:
        raise InvalidInputError(f"{exc} [first seen at {locator.where(exc.row)}]") from None


def _export_in_memory(data: Any, tool: str, owner: str, read: dict[str, Any]) -> Any:
    """The ratings of an annotation tool's export (``from_=``), read with the source's
    level, categories, missing values and duplicates policy; the columns, ``sep``,
    ``encoding`` and ``file_format`` do not apply and are refused by name."""
    from ..io.ratings import read_export

    given = [n for n in ("item", "rater", "label", "sep", "encoding", "file_format") if read.get(n)]
    if given:
        raise InvalidInputError(
            f"{given[0]}= does not apply to a {tool} export ({owner}(from_={tool!r})), read "
            "as its tool writes it"
        )
    keep = ("categories", "missing", "duplicates", "na_values", "labels_as")
    return read_export(data, tool, field=read.get("field"), level=read.get("level"),  # type: ignore[arg-type]
                       multi_label=True if read.get("multi_label") else None,
                       **{k: read[k] for k in keep if k in read})  # fmt: skip


def progress_callback(progress: Any, owner: str) -> Progress | None:
    """``progress`` as the engines take it: a callable ``(rows_read, total_or_None)`` or None.

    ``False`` (as :func:`accord.report` takes it) means none; anything else that is not
    callable is an error naming the parameter.

    >>> progress_callback(False, "agreement") is None
    True
    """
    return check_callback(progress, owner)


def scan_ratings(
    data: Any,
    engine: str,
    *,
    owner: str,
    scheduler: Any = None,
    progress: Progress | None = None,
    batch_size: int = 1_000_000,
    plan: Plan = COUNTS,
    **options: Any,
) -> tuple[RatingStatistics, Rescan]:
    """Statistics of the ratings at ``data`` with the stream or dask engine, and a rescan.

    ``plan`` says what to count (default: item and rater counts); ``options`` are the read
    options of :class:`~accord.engines._options.ScanOptions` (``item``, ``rater`` and
    ``label`` required), without ``statistics``: a front door says what it needs by a
    :class:`~accord.engines._blocks.Plan`, not by names.
    """
    check_source(data, engine, owner)
    progress = progress_callback(progress, owner)
    columns_for(owner, **{name: options.get(name) for name in ("item", "rater", "label")})
    if not isinstance(plan, Plan) or "statistics" in options:
        raise TypeError(f"scan_ratings takes plan=Plan(...); got {plan!r}")
    shared = _SHARED.get()
    if shared is not None and engine == "stream" and scheduler is None:
        return shared.scan(data, plan, batch_size, progress, options)
    options["statistics"] = plan.statistics
    if engine == "stream":
        from .stream import stream_scan

        if scheduler is not None:
            raise InvalidInputError(
                f"scheduler= applies to engine='dask'; {owner}(engine='stream') runs here"
            )
        return stream_scan(data, batch_size=batch_size, progress=progress, **options)
    from .dask import dask_scan

    return dask_scan(data, scheduler=scheduler, progress=progress, **options)


@dataclasses.dataclass
class _SharedScans:
    """The stream scans of one :func:`shared_scans` block: each with what it read, its plan
    (every scan counts ``extra`` besides what it was asked for) and its result."""

    extra: Plan
    done: list[tuple[Any, dict[str, Any], Plan, tuple[RatingStatistics, Rescan]]] = (
        dataclasses.field(default_factory=list)
    )

    def scan(
        self,
        data: Any,
        plan: Plan,
        batch_size: int,
        progress: Any,
        options: dict[str, Any],
    ) -> tuple[RatingStatistics, Rescan]:
        """The scan of an earlier call on the same data with the same options whose plan
        covers ``plan``, else a new scan (counting ``plan`` and ``extra``), kept."""
        from .stream import stream_scan

        read = dict(options, batch_size=batch_size)
        for seen, seen_read, seen_plan, result in self.done:
            if seen is data and seen_read == read and _covers(seen_plan, plan):
                return result
        both = Plan(*(a or b for a, b in zip(_flags(plan), _flags(self.extra), strict=True)))
        result = stream_scan(
            data, batch_size=batch_size, progress=progress, statistics=both.statistics, **options
        )
        self.done.append((data, read, both, result))
        return result


def _flags(plan: Plan) -> tuple[bool, ...]:
    """What a plan counts, in the order of :class:`Plan`'s fields."""
    return (plan.items, plan.raters, plan.pairs, plan.patterns)


def _covers(done: Plan, wanted: Plan) -> bool:
    """Whether a scan counting ``done`` counted everything ``wanted`` asks for."""
    return all(a or not b for a, b in zip(_flags(done), _flags(wanted), strict=True))


_SHARED: contextvars.ContextVar[_SharedScans | None] = contextvars.ContextVar(
    "accord_shared_scans", default=None
)


@contextlib.contextmanager
def shared_scans(extra: Plan = Plan()) -> Iterator[None]:
    """Within the block, the stream engine reads a source once for every front door.

    Each scan of the block also counts ``extra``; a later call on the same data (the same
    object) with the same read options, whose plan that scan covers, gets the same
    statistics and rescan instead of reading the files again. The scans are dropped when
    the block ends. The dask engine and other front doors outside the block are unchanged.

    Examples
    --------
    >>> with shared_scans(Plan(raters=True, patterns=True)):
    ...     pass
    """
    token = _SHARED.set(_SharedScans(extra))
    try:
        yield
    finally:
        _SHARED.reset(token)


def _index_label_pass(
    ctx: tuple[IntArray, int, int, int], item: IntArray, rater: IntArray, label: IntArray
) -> IntArray:
    """Counts of one batch by (rater, group of the item, label); group -1 counts last."""
    index, n_index, q, n_raters = ctx
    group = np.asarray(index)[item].astype(np.int64)  # gather first: no int64 copy of index
    group = np.where(group < 0, n_index, group)
    keys = (rater * (n_index + 1) + group) * q + label
    out: IntArray = np.bincount(keys, minlength=n_raters * (n_index + 1) * q)
    return out


def _add(a: IntArray, b: IntArray) -> IntArray:
    return a + b


def index_label_counts(
    rescan: Rescan, index: IntArray, n_index: int, *, n_raters: int, q: int
) -> IntArray:
    """The kept ratings counted by (rater, ``index[item]``, label), shape
    (n_raters, n_index, q), in one more pass; items with ``index`` -1 are left out.

    ``index`` groups the item codes (e.g. by count pattern), so per-rating quantities that
    depend only on the item's group and the label are summed per rater from this table.
    A rescan with the ``"index_label_counts"`` capability (the stream engine's code matrix)
    counts it in memory; otherwise the ratings are read again.
    """
    out = rescan.index_label_counts(index, n_index)
    if out is not None:
        return out
    total = rescan.map_reduce(_index_label_pass, (index, n_index, q, n_raters), _add)
    if total is None:
        return np.zeros((n_raters, n_index, q), dtype=np.int64)
    result: IntArray = np.asarray(total).reshape(n_raters, n_index + 1, q)[:, :n_index]
    return result
