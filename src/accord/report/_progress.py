"""One progress display on standard error for every phase of long work: reading (rows read,
grouped by thousands), counting, computing and writing the report, each phase named on the
bar as it starts, and the bar erased before anything else is printed."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


class PhaseBar:
    """A rich progress bar fed by the engines' ``progress(done, total)`` callback (rows, by
    default) and told each phase by :meth:`phase` (see :func:`accord._validate.announce`);
    ``steps`` counts steps instead (the sections of a report), advanced by :meth:`step`.

    The bar is transient: :meth:`close` erases it, so that the results printed after it
    start on a line of their own. ``shown=False`` (not a terminal, ``--quiet``) draws
    nothing; calls are then no-ops.

    Examples
    --------
    >>> bar = PhaseBar("reading ratings", shown=False)
    >>> bar(1_500_000, None); bar.phase("computing agreement"); bar.close()
    >>> bar.counted
    '1,500,000 rows'
    """

    def __init__(
        self,
        description: str,
        *,
        shown: bool | None = None,
        unit: str = "rows",
        steps: int | None = None,
    ) -> None:
        self.unit, self.steps = unit, steps
        self.counted = ""
        self.progress: Any = None
        self.task: Any = None
        if sys.stderr.isatty() if shown is None else shown:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[counted]}"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task(description, total=steps, counted="")

    def __call__(self, done: int, total: int | None) -> None:
        """Rows (or ``unit``, see :meth:`count_in`) done so far, of ``total`` when known."""
        self.counted = f"{done:,} {self.unit}"
        if self.progress is None:
            return
        if self.steps is not None:  # the bar counts steps; the rows are shown beside it
            self.progress.update(self.task, counted=self.counted)
            return
        self.progress.update(self.task, completed=done, total=total, counted=self.counted)

    def count_in(self, unit: str) -> None:
        """Count in ``unit`` from now on (the dask engine counts ``"partitions"``); beside
        a bar of steps, the count stays "read".

        >>> bar = PhaseBar("reading", shown=False, steps=3, unit="rows read")
        >>> bar.count_in("partitions"); bar(4, 4); bar.counted
        '4 partitions read'
        """
        self.unit = f"{unit} read" if self.unit.endswith(" read") else unit

    def phase(self, description: str) -> None:
        """Name the phase now running on the bar (drawn at once, however short the phase)."""
        if self.progress is not None:
            self.progress.update(self.task, description=description, refresh=True)

    def step(self, description: str, run: Callable[[], Any]) -> Any:
        """``run()`` as the phase ``description``, then one step more on the bar."""
        self.phase(description)
        try:
            return run()
        finally:
            if self.progress is not None:
                self.progress.advance(self.task)

    def close(self) -> None:
        """Erase the bar (the next line printed starts at the left margin)."""
        if self.progress is not None:
            self.progress.stop()
            self.progress = None
