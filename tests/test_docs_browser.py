"""The documentation site in headless Chromium, at a phone's width (390 px) and a desktop's
(1440 px): no page scrolls sideways, on the desktop no code block hides its lines past the
right edge, and the text of every SVG figure is shown at a readable size (its smallest font
size in the file times the scale the page shows the figure at). Screenshots are written to
:func:`tests._browser.screenshot_dir` and their paths printed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The pages a new user opens first, and the page of the decision figure.
PAGES = (
    "index.html",
    "getting-started/index.html",
    "report/index.html",
    "which-coefficient/index.html",
)

#: The smallest figure text a reader is shown, in CSS px, on a desktop and on a phone.
MIN_FIGURE_PX = {1440: 12.0, 390: 12.0}

PROBE = r"""
(() => ({
  docWidth: document.documentElement.scrollWidth,
  overflowing: Array.from(document.querySelectorAll('.md-content pre > code'))
    .filter(c => c.scrollWidth > c.clientWidth + 1)
    .map(c => c.innerText.split('\n').reduce((a, b) => (b.length > a.length ? b : a), '')),
  fileNameLinks: Array.from(document.querySelectorAll('.md-content a'))
    .map(a => a.innerText.trim()).filter(t => /\.md$/.test(t)),
  figures: Array.from(document.querySelectorAll('.md-content img'))
    .filter(i => /\.svg$/.test(i.src))
    .map(i => ({src: decodeURI(i.src), shown: i.getBoundingClientRect().width})),
}))()
"""


def figure_text_px(svg: Path, shown: float) -> float:
    """The smallest text of ``svg`` as shown ``shown`` CSS px wide: the smallest
    ``font-size`` in the file (in the units of its viewBox) times the scale, shown width
    over viewBox width."""
    text = svg.read_text(encoding="utf-8")
    box = re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) [\d.]+"', text)
    sizes = [float(v) for v in re.findall(r"font-size:\s*([\d.]+)px", text)]
    assert box and sizes, f"{svg.name}: no viewBox or no text"
    return min(sizes) * shown / float(box.group(1))


def test_figure_text_px_reads_the_file_and_the_scale(tmp_path: Path) -> None:
    svg = tmp_path / "f.svg"
    svg.write_text('<svg viewBox="0 0 200 100"><text style="font-size: 10px">a</text>'
                   '<text style="font: 700; font-size: 8.5px">b</text></svg>')  # fmt: skip
    assert figure_text_px(svg, 300.0) == pytest.approx(8.5 * 1.5)  # shown at 300 px of 200


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
    from tests._browser import BrowserUnavailable, browser, screenshot_dir

    seen: dict[tuple[str, int], dict[str, object]] = {}
    try:
        with browser() as tab:
            for page in PAGES:
                for width, height in ((390, 844), (1440, 900)):
                    tab.load(site / page, width=width, height=height)
                    seen[(page, width)] = tab.evaluate(PROBE)
                    name = page.removesuffix("index.html").strip("/") or "home"
                    shot = screenshot_dir() / f"docs-{name}-{width}.png"
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
        for figure in m["figures"]:  # type: ignore[attr-defined]
            svg = Path(figure["src"].removeprefix("file://"))
            px = figure_text_px(svg, float(figure["shown"]))
            print(f"{where}: {svg.name} text {px:.1f} px")
            assert px >= MIN_FIGURE_PX[width], f"{where}: {svg.name} text {px:.1f} px"
    figures = {(page, width) for (page, width), m in seen.items() if m["figures"]}
    assert ("which-coefficient/index.html", 390) in figures  # the decision figure was measured
