"""The stream engine's encoder on realistic ids, beside pyarrow's own hashing of the same batches.

Reads the realistic Parquet file of ``realistic.py`` (string ids, shuffled rows; generated
there when missing) in batches of ``--batch-size`` rows (default 1M, the stream engine's),
then for each column, in this process (CPU seconds):

- ``floor``: ``pyarrow.compute.dictionary_encode`` of each batch alone (one hash per value,
  no dictionary kept between batches: what any reader of batches must do);
- ``whole``: ``dictionary_encode`` of the column as one chunked array (one hash table);
- ``accord``: :class:`accord.data.dictionary.GrowingDictionary` over the batches, as the
  stream engine encodes them (codes valid over the whole file, in order of first appearance).

    uv run --no-sync python benchmarks/encoder.py --ratings 1e7
"""

from __future__ import annotations

import argparse
import sys
import time

from _common import count
from realistic import COLS, generate, paths


def main() -> None:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from accord.data.dictionary import GrowingDictionary

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ratings", type=count, default=10**7)
    parser.add_argument("--batch-size", type=int, default=1_000_000)
    args = parser.parse_args()
    generate(args.ratings)
    path = paths(args.ratings)["parquet"]
    file = pq.ParquetFile(path)
    names = list(COLS.values())
    batches = list(file.iter_batches(batch_size=args.batch_size, columns=names))
    print(f"{path}: {file.metadata.num_rows:,} rows in {len(batches)} batches\n")
    print(f"{'column':<8} {'distinct':>10} {'floor CPU s':>12} {'whole CPU s':>12} "
          f"{'accord CPU s':>13} {'x floor':>8}")  # fmt: skip
    for name in names:
        column = [b.column(name) for b in batches]
        start = time.process_time()
        for batch in column:
            pc.dictionary_encode(batch)
        floor = time.process_time() - start
        start = time.process_time()
        pc.dictionary_encode(pa.chunked_array(column))
        whole = time.process_time() - start
        ids = GrowingDictionary(track_rows=True)
        start = time.process_time()
        row = 0
        for batch in column:
            ids.encode(batch, row)
            row += len(batch)
        ours = time.process_time() - start
        print(f"{name:<8} {ids.size:>10,} {floor:>12.2f} {whole:>12.2f} {ours:>13.2f} "
              f"{ours / floor:>7.2f}x")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
