"""The progress display of long work, as a person at a terminal sees it: the CLI runs with its
standard error (and output) on a pseudo-terminal, so the bar is drawn, and what the terminal
received is checked: every phase named, the bar erased before the results, intervals whose
ends read differently and counts grouped by thousands."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _ratings_file(path: Path, n_items: int = 120_000, n_raters: int = 5) -> Path:
    """Seeded nominal ratings: three categories, each rater right with probability 0.7."""
    rng = np.random.default_rng(2026)
    truth = np.repeat(rng.integers(0, 3, n_items), n_raters)
    noise = rng.integers(0, 3, n_items * n_raters)
    labels = np.where(rng.random(n_items * n_raters) < 0.7, truth, noise)
    frame = pd.DataFrame(
        {
            "item": np.repeat(np.arange(n_items), n_raters),
            "rater": np.tile([f"r{k}" for k in range(n_raters)], n_items),
            "label": labels,
        }
    )
    frame.to_csv(path, index=False)
    return path


def _on_a_terminal(args: list[str], cwd: Path) -> str:
    """What a terminal shows of ``accord ARGS`` (standard output and error on one
    pseudo-terminal, as in a shell), with the bar drawn."""
    import pty

    main, side = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "100", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "accord", *args],
        stdin=subprocess.DEVNULL, stdout=side, stderr=side, cwd=cwd, env=env,
    )  # fmt: skip
    os.close(side)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(main, 1 << 16)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert proc.wait(timeout=300) == 0, b"".join(chunks).decode(errors="replace")[-2000:]
    return b"".join(chunks).decode("utf-8", errors="replace")


def _line_start(screen: str, text: str) -> str:
    """What the terminal holds on the line of ``text`` before it (escapes and carriage
    returns left out): empty when ``text`` starts its own line."""
    at = screen.index(text)
    line = screen[:at].rsplit("\n", 1)[-1]
    return ESCAPE.sub("", line).replace("\r", "").strip()


@pytest.mark.slow
def test_stream_agree_names_every_phase_and_prints_the_verdict_on_its_own_line(
    tmp_path: Path,
) -> None:
    data = _ratings_file(tmp_path / "ratings.csv")
    screen = _on_a_terminal(
        ["agree", str(data), "--item", "item", "--rater", "rater", "--label", "label",
         "--engine", "stream"],
        tmp_path,
    )  # fmt: skip
    # one bar through the read, the counting and the computing
    for phase in ("reading ratings", "counting ratings", "computing agreement"):
        assert phase in screen, phase
    assert "600,000 rows" in screen  # the bar's count, grouped
    # the verdict starts a line of its own: the bar was erased first
    assert _line_start(screen, "Fleiss' kappa") == ""
    plain = ESCAPE.sub("", screen)
    low, high = re.search(r"CI (\S+) to (\S+)\)", plain).groups()  # type: ignore[union-attr]
    assert low != high  # enough digits for the two ends to differ
    # counts grouped by thousands, in the read line and in the table
    assert "read 600,000 rows: 600,000 ratings of 120,000 items by 5 raters" in plain
    assert "120,000" in plain.split("read 600,000 rows")[1]
    assert not re.search(r"\b(600000|120000)\b", plain)


@pytest.mark.slow
def test_stream_report_shows_one_bar_over_reading_sections_and_the_page(tmp_path: Path) -> None:
    data = _ratings_file(tmp_path / "ratings.csv", n_items=20_000)
    screen = _on_a_terminal(
        ["report", str(data), "--item", "item", "--rater", "rater", "--label", "label",
         "--engine", "stream", "-o", str(tmp_path / "page.html")],
        tmp_path,
    )  # fmt: skip
    for phase in ("reading ratings", "computing agreement", "computing coefficients",
                  "writing the page"):  # fmt: skip
        assert phase in screen, phase
    assert "100,000 rows read" in screen  # the engine's rows, on the report's one bar
    assert _line_start(screen, "wrote ") == ""


def test_a_bar_that_is_not_shown_keeps_its_count() -> None:
    from accord.report._progress import PhaseBar

    bar = PhaseBar("reading ratings", shown=False)
    bar(10_000_000, None)
    bar.phase("computing agreement")
    assert bar.step("writing", lambda: 3) == 3
    bar.close()
    assert bar.counted == "10,000,000 rows"


def test_dask_agree_counts_partitions_not_rows(tmp_path: Path) -> None:
    # the dask engine reports partitions done (a CSV file is one partition, read in two
    # passes): the bar names them so, and never calls them rows
    data = _ratings_file(tmp_path / "ratings.csv", n_items=2_000)
    screen = _on_a_terminal(
        ["agree", str(data), "--item", "item", "--rater", "rater", "--label", "label",
         "--engine", "dask", "--scheduler", "synchronous"],
        tmp_path,
    )  # fmt: skip
    plain = ESCAPE.sub("", screen)
    counts = re.findall(r"\b(\d[\d,]*) (partitions|rows)\b", plain.split("read 10,000 rows")[0])
    assert counts, plain[-2000:]
    assert {unit for _, unit in counts} == {"partitions"}, counts
    assert "read 10,000 rows: 10,000 ratings of 2,000 items by 5 raters" in plain
