"""The documentation site in headless Chromium, at a phone's width (390 px) and a desktop's
(1440 px): no page scrolls sideways, and on the desktop no code block hides its lines past
the right edge. Screenshots are written beside the built site and their paths printed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The pages a new user opens first.
PAGES = ("index.html", "getting-started/index.html", "report/index.html")

PROBE = r"""
(() => ({
  docWidth: document.documentElement.scrollWidth,
  overflowing: Array.from(document.querySelectorAll('.md-content pre > code'))
    .filter(c => c.scrollWidth > c.clientWidth + 1)
    .map(c => c.innerText.split('\n').reduce((a, b) => (b.length > a.length ? b : a), '')),
  fileNameLinks: Array.from(document.querySelectorAll('.md-content a'))
    .map(a => a.innerText.trim()).filter(t => /\.md$/.test(t)),
}))()
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as ``mkdocs build`` writes it: the build of ``make docs`` when ``make test``
    names it (``ACCORD_DOCS_SITE``), else a build of its own."""
    built = os.environ.get("ACCORD_DOCS_SITE")
    if built and (Path(built) / "index.html").is_file():
        return Path(built)
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return out


@pytest.mark.slow
def test_docs_pages_fit_a_phone_and_a_desktop(site: Path) -> None:
    from tests._browser import BrowserUnavailable, browser

    seen: dict[tuple[str, int], dict[str, object]] = {}
    try:
        with browser() as tab:
            for page in PAGES:
                for width, height in ((390, 844), (1440, 900)):
                    tab.load(site / page, width=width, height=height)
                    seen[(page, width)] = tab.evaluate(PROBE)
                    shot = site / f"{page.replace('/', '-')}-{width}.png"
                    shot.write_bytes(tab.screenshot())
                    print(f"screenshot: {shot}")
    except BrowserUnavailable as exc:
        pytest.fail(f"the browser test needs Chromium: {exc}")
    for (page, width), m in seen.items():
        where = f"{page} at {width} px"
        assert m["docWidth"] == width, f"{where}: the page scrolls sideways"
        assert m["fileNameLinks"] == [], f"{where}: links named by file: {m['fileNameLinks']}"
        if width == 1440:  # a phone scrolls code sideways; a desktop shows every line whole
            assert m["overflowing"] == [], f"{where}: code wider than its block"
