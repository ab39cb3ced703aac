"""The files a front door reads in batches itself (panel calibration, confidence units)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._errors import InvalidInputError
from ..engines._source import dataset_of, resolve_files

__all__ = ["batch_dataset"]


def batch_dataset(
    source: Any,
    columns: Sequence[str],
    *,
    batch_size: int,
    file_format: str | None,
    sep: str | None,
) -> tuple[Any, list[str], str]:
    """A pyarrow dataset of ``columns`` over the files at ``source``, read ``batch_size``
    rows at a time, with the files and their format.

    Raises
    ------
    InvalidInputError
        ``batch_size`` below 1, no file at ``source``, or a column missing from a file.
    """
    if batch_size < 1:
        raise InvalidInputError(f"batch_size must be a positive number of rows; got {batch_size}")
    files, fmt = resolve_files(source, file_format)
    block_bytes = int(min(max(batch_size * 16, 1 << 12), 1 << 28))
    dataset = dataset_of(files, fmt, columns, sep=sep, block_bytes=block_bytes)
    return dataset, files, fmt
