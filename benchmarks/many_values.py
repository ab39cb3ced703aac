"""Agreement on many distinct values: 100k nominal labels and 942k distinct scores.

Two files of the kind that used to allocate a q x q array (q the number of distinct values),
each written once as CSV under the temporary folder (string ids, shuffled rows):

- ``labels``: 300k ratings of 100k items by 3 of 20 raters into 100k distinct nominal labels
  (free-text answers, entity ids);
- ``scores``: 1M scores (333k items x 3 raters) with about 942k distinct values.

For each: the floor (``pyarrow.csv`` read + ``dictionary_encode`` of the three columns), then
``agreement()`` with the memory and the stream engine, each with its time, peak RSS since the
phase began, and ratio to the floor. Nothing may grow with q^2: a q x q array of float64 at
q = 100k would be 80 GB.

    uv run --no-sync python benchmarks/many_values.py
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _common import cache_dir, peak_rss_since_reset_mb, reset_peak_rss, rss_mb


def write_labels() -> Path:
    path = cache_dir("many_values") / "labels.csv"
    if not path.exists():
        gen = np.random.default_rng(7)
        n_items = 100_000
        item = np.repeat(np.arange(n_items), 3)
        rater = (gen.integers(0, 20, n_items)[item] + np.tile([0, 7, 13], n_items)) % 20
        truth = gen.permutation(n_items)[item]
        label = np.where(
            gen.uniform(size=item.size) < 0.7, truth, gen.integers(0, n_items, item.size)
        )
        _write(path, item, rater, np.char.add("answer-", label.astype(str)), gen)
    return path


def write_scores() -> Path:
    path = cache_dir("many_values") / "scores.csv"
    if not path.exists():
        gen = np.random.default_rng(8)
        n_items = 333_334
        item = np.repeat(np.arange(n_items), 3)
        rater = np.tile(np.arange(3), n_items)
        score = np.round(gen.normal(50, 15, n_items)[item] + gen.normal(0, 4, item.size), 4)
        _write(path, item, rater, score, gen)
    return path


def _write(path: Path, item: Any, rater: Any, label: Any, gen: np.random.Generator) -> None:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    order = gen.permutation(item.size)
    table = pa.table(
        {
            "item": np.char.add("item-", item[order].astype(str)),
            "rater": np.char.add("rater-", rater[order].astype(str)),
            "label": label[order],
        }
    )
    pacsv.write_csv(table, path)


def phase(fn: Callable[[], Any]) -> tuple[float, float]:
    """Seconds and peak RSS above the start (MB) of one call."""
    reset_peak_rss()
    base = rss_mb()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start, max(peak_rss_since_reset_mb() - base, 0.0)


def floor(path: Path) -> None:
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    table = pacsv.read_csv(path)
    for name in table.column_names:
        pc.dictionary_encode(table[name])


def main() -> None:
    import accord

    accord.agreement(accord.Ratings.from_wide([["a", "b"], ["a", "a"]]))  # warm the imports
    for name, path, level in (
        ("100k nominal labels", write_labels(), "nominal"),
        ("942k distinct scores", write_scores(), "interval"),
    ):
        cols = dict(item="item", rater="rater", label="label", level=level)
        t_floor, m_floor = phase(lambda p=path: floor(p))
        rows = [("floor (read + dictionary_encode)", t_floor, m_floor)]
        for engine in ("memory", "stream"):
            t, m = phase(lambda p=path, e=engine, c=cols: accord.agreement(str(p), engine=e, **c))
            rows.append((f"agreement(), {engine} engine", t, m))
        print(f"\n{name} ({path.stat().st_size / 2**20:.0f} MB CSV)")
        for label, t, m in rows:
            print(f"  {label:<34} {t:7.2f} s  {t / t_floor:6.1f}x  peak +{m:7.0f} MB")


if __name__ == "__main__":
    main()
