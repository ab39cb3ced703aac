"""Take docs/report.png: the report of the bundled diagnoses example as a 1440 x 1000 px
browser window shows it, in headless Chromium through the test suite's browser helper
(tests/_browser.py), the one the report's browser test uses.

    PYTHONPATH=src uv run --no-sync python docs/report_screenshot.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests._browser import browser  # noqa: E402

import accord  # noqa: E402


def main(out: Path | None = None) -> None:
    """Write the screenshot to ``out`` (default docs/report.png)."""
    os.chdir(ROOT)  # the page names its source as a user in the repository types it
    page = accord.report(
        "examples/diagnoses.csv",
        item="patient",
        rater="rater",
        label="diagnosis",
        title="Psychiatric diagnoses",
        progress=False,
    )
    out = out or Path(__file__).with_name("report.png")
    with tempfile.TemporaryDirectory() as tmp, browser() as tab:
        tab.load(page.write(Path(tmp) / "diagnoses.html"), width=1440, height=1000)
        out.write_bytes(tab.screenshot(full_page=False))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
