"""Open an HTML file in headless Chromium and record what a user's browser would see.

Talks the Chrome DevTools Protocol over ``--remote-debugging-pipe`` (file descriptors 3 and 4,
messages separated by NUL bytes), so it needs only the standard library and a Chromium binary.
It records console messages, uncaught exceptions, log entries and every network request the
page makes, takes a screenshot and reads the text of chosen elements.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]
INSTALL_SCRIPT = ROOT / ".ci" / "install-chromium.sh"

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-pipe",
]


def screenshot_dir() -> Path:
    """Where the browser tests write their screenshots, kept after the run so that a reader
    can open them: ``ACCORD_SCREENSHOTS`` when set, else ``build/screenshots`` in the
    repository (ignored by git). The file names say the page and the width."""
    out = Path(os.environ.get("ACCORD_SCREENSHOTS") or ROOT / "build" / "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    return out


class BrowserUnavailable(RuntimeError):
    """Chromium is missing and could not be installed."""


def ensure_chromium() -> Path:
    """The Chromium binary, installed with ``.ci/install-chromium.sh`` when missing and root."""
    if CHROMIUM.exists():
        return CHROMIUM
    if hasattr(os, "geteuid") and os.geteuid() == 0 and INSTALL_SCRIPT.exists():
        done = subprocess.run(
            ["bash", str(INSTALL_SCRIPT)], capture_output=True, text=True, timeout=900
        )
        if done.returncode == 0 and CHROMIUM.exists():
            return CHROMIUM
        tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
        raise BrowserUnavailable(
            f"{INSTALL_SCRIPT} failed (exit {done.returncode}): " + " | ".join(tail)
        )
    raise BrowserUnavailable(
        f"{CHROMIUM} is missing; run {INSTALL_SCRIPT} as root (apt-get install chromium)"
    )


@dataclasses.dataclass
class PageVisit:
    """What happened while a page loaded.

    Attributes
    ----------
    console : list of dict
        ``{"type": ..., "text": ...}`` for every console API call.
    exceptions : list of str
        Uncaught exceptions.
    log : list of dict
        Browser log entries (``level``, ``source``, ``text``, ``url``): failed loads, CSP
        violations, security errors.
    requests : list of str
        URL of every request the page made after the document itself.
    screenshot : bytes
        PNG of the viewport (full page height, capped).
    texts : dict of str to list of str
        ``innerText`` of the elements matching each requested CSS selector.
    script_nodes : int
        Number of ``<script>`` elements in the document.
    alerts : list of str
        Messages of JavaScript dialogs (alert, confirm, prompt) the page opened.
    """

    console: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    exceptions: list[str] = dataclasses.field(default_factory=list)
    log: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    requests: list[str] = dataclasses.field(default_factory=list)
    screenshot: bytes = b""
    texts: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    script_nodes: int = 0
    alerts: list[str] = dataclasses.field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        """Console errors, exceptions and error-level log entries, as text."""
        out = [m["text"] for m in self.console if m["type"] in ("error", "assert")]
        out += self.exceptions
        out += [f"{e.get('source')}: {e.get('text')}" for e in self.log if e["level"] == "error"]
        return out


class _Pipe:
    """CDP client over the pipe pair: ``send`` commands, collect events."""

    def __init__(self, proc: subprocess.Popen[bytes], write_fd: int, read_fd: int) -> None:
        self.proc = proc
        self.write_fd = write_fd
        self.read_fd = read_fd
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.alerts: list[str] = []

    def _read_message(self, deadline: float) -> dict[str, Any]:
        import select

        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from Chromium over the DevTools pipe")
            ready, _, _ = select.select([self.read_fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        if message.get("method") == "Page.javascriptDialogOpening":
            # A dialog blocks the page: record it and dismiss it at once.
            self.alerts.append(str(message.get("params", {}).get("message")))
            dismiss = {
                "id": 10**9 + len(self.alerts),
                "method": "Page.handleJavaScriptDialog",
                "params": {"accept": True},
                "sessionId": message.get("sessionId"),
            }
            os.write(self.write_fd, json.dumps(dismiss).encode() + b"\0")
        return message

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + 30.0
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            self.events.append(answer)

    def wait_for(self, method: str, timeout: float) -> dict[str, Any]:
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            event = self._read_message(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def drain(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.events.append(self._read_message(deadline))
        except TimeoutError:
            pass


def visit(
    path: Path,
    *,
    selectors: tuple[str, ...] = (),
    width: int = 1280,
    height: int = 900,
    full_page: bool = False,
) -> PageVisit:
    """Load ``path`` in headless Chromium and report console, network and a screenshot."""
    binary = ensure_chromium()
    url = path.resolve().as_uri()
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    profile = tempfile.mkdtemp(prefix="accord-chromium-")

    def wire_fds() -> None:  # in the child: fd 3 reads commands, fd 4 writes answers
        import fcntl

        high_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 100)
        high_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 100)
        os.dup2(high_r, 3)
        os.dup2(high_w, 4)

    proc = subprocess.Popen(
        [str(binary), *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=wire_fds,
        pass_fds=(3, 4, to_browser_r, from_browser_w),
    )
    os.close(to_browser_r)
    os.close(from_browser_w)
    cdp = _Pipe(proc, to_browser_w, from_browser_r)
    result = PageVisit()
    try:
        target = cdp.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            cdp.send(f"{domain}.enable", session=session)
        cdp.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        cdp.send("Page.navigate", {"url": url}, session=session)
        cdp.wait_for("Page.loadEventFired", timeout=30.0)
        cdp.drain(0.3)
        for selector in selectors:
            expression = (
                f"Array.from(document.querySelectorAll({json.dumps(selector)}))"
                ".map(e => e.innerText)"
            )
            value = cdp.send(
                "Runtime.evaluate",
                {"expression": expression, "returnByValue": True},
                session=session,
            )
            result.texts[selector] = list(value["result"].get("value", []))
        count = cdp.send(
            "Runtime.evaluate",
            {"expression": "document.querySelectorAll('script').length", "returnByValue": True},
            session=session,
        )
        result.script_nodes = int(count["result"]["value"])
        shot_params: dict[str, Any] = {"format": "png"}
        if full_page:
            metrics = cdp.send("Page.getLayoutMetrics", session=session)
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            shot_params.update(
                captureBeyondViewport=True,
                clip={
                    "x": 0,
                    "y": 0,
                    "width": width,
                    "height": min(float(size["height"]), 16000.0),
                    "scale": 1,
                },
            )
        shot = cdp.send("Page.captureScreenshot", shot_params, session=session)
        result.screenshot = base64.b64decode(shot["data"])
        cdp.drain(0.1)
        result.alerts = list(cdp.alerts)
        page_url = url
        for event in cdp.events:
            method = event.get("method")
            params = event.get("params", {})
            if method == "Runtime.consoleAPICalled":
                text = " ".join(
                    str(a.get("value", a.get("description", ""))) for a in params.get("args", [])
                )
                result.console.append({"type": params.get("type"), "text": text})
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                exc = details.get("exception", {}).get("description") or details.get("text")
                result.exceptions.append(str(exc))
            elif method == "Log.entryAdded":
                entry = params.get("entry", {})
                result.log.append(
                    {
                        "level": entry.get("level"),
                        "source": entry.get("source"),
                        "text": entry.get("text"),
                        "url": entry.get("url"),
                    }
                )
            elif method == "Network.requestWillBeSent":
                request_url = params.get("request", {}).get("url", "")
                if request_url != page_url:
                    result.requests.append(request_url)
    finally:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            cdp.send("Browser.close")
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        os.close(to_browser_w)
        os.close(from_browser_r)
        shutil.rmtree(profile, ignore_errors=True)
    return result


class Tab:
    """One page in a running Chromium: load files at a size and media, evaluate, capture."""

    def __init__(self, cdp: _Pipe, session: str) -> None:
        self.cdp = cdp
        self.session = session

    def load(self, path: Path, *, width: int, height: int, media: str = "screen") -> None:
        """Open ``path`` in a viewport of ``width`` x ``height`` CSS pixels (a phone at 390)."""
        self.cdp.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
            session=self.session,
        )
        self.cdp.send("Emulation.setEmulatedMedia", {"media": media}, session=self.session)
        self.cdp.send("Page.navigate", {"url": path.resolve().as_uri()}, session=self.session)
        self.cdp.wait_for("Page.loadEventFired", timeout=30.0)
        self.cdp.drain(0.2)

    def evaluate(self, expression: str) -> Any:
        """The JSON value of ``expression`` in the page."""
        value = self.cdp.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True},
            session=self.session,
        )
        if "exceptionDetails" in value:
            raise RuntimeError(f"page script failed: {value['exceptionDetails']}")
        return value["result"].get("value")

    def screenshot(self, *, full_page: bool = True, max_height: float = 16000.0) -> bytes:
        """PNG of the page (its full height, capped, or the viewport)."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            metrics = self.cdp.send("Page.getLayoutMetrics", session=self.session)
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            width = float(metrics.get("cssLayoutViewport", {}).get("clientWidth", size["width"]))
            params.update(
                captureBeyondViewport=True,
                clip={
                    "x": 0,
                    "y": 0,
                    "width": width,
                    "height": min(float(size["height"]), max_height),
                    "scale": 1,
                },
            )
        shot = self.cdp.send("Page.captureScreenshot", params, session=self.session)
        return base64.b64decode(shot["data"])

    def pdf(self) -> bytes:
        """The page printed to PDF (A4, the page's own print stylesheet and margins)."""
        answer = self.cdp.send(
            "Page.printToPDF",
            {"printBackground": True, "preferCSSPageSize": True},
            session=self.session,
        )
        return base64.b64decode(answer["data"])


@contextlib.contextmanager
def browser() -> Any:
    """A headless Chromium with one tab, closed on exit (one launch for many checks)."""
    binary = ensure_chromium()
    # The browser reads commands on fd 3 and answers on fd 4. They are set up in this process
    # around the launch (no preexec hook, which fails with inherited descriptors in some
    # interpreters): fds 3 and 4 are held first so that the pipes land elsewhere, pointed at
    # the pipes for the launch, then given back.
    held = []
    for fd in (3, 4):
        try:
            os.fstat(fd)
        except OSError:
            held.append(os.open(os.devnull, os.O_RDONLY))
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    profile = tempfile.mkdtemp(prefix="accord-chromium-")
    saved = {fd: os.dup(fd) for fd in (3, 4)}
    try:
        os.dup2(to_browser_r, 3)
        os.dup2(from_browser_w, 4)
        proc = subprocess.Popen(
            [str(binary), *FLAGS, f"--user-data-dir={profile}", "--window-size=1280,900"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
        )
    finally:
        for fd, copy in saved.items():
            os.dup2(copy, fd, inheritable=False)
            os.close(copy)
        for fd in held:
            os.close(fd)
    os.close(to_browser_r)
    os.close(from_browser_w)
    cdp = _Pipe(proc, to_browser_w, from_browser_r)
    try:
        target = cdp.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime"):
            cdp.send(f"{domain}.enable", session=session)
        yield Tab(cdp, session)
    finally:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            cdp.send("Browser.close")
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        os.close(to_browser_w)
        os.close(from_browser_r)
        shutil.rmtree(profile, ignore_errors=True)


#: Measures a loaded report: the navigation bar, the smallest figure text as shown (CSS px),
#: the page's width against the viewport, words broken across two lines (outside figures;
#: hyphens and slashes are break points), and boxes whose content is clipped or scrolls.
LAYOUT_PROBE = r"""
(() => {
  const out = {viewport: [innerWidth, innerHeight],
               docWidth: document.documentElement.scrollWidth};
  const nav = document.querySelector('nav.toc');
  out.navHeight = nav ? nav.getBoundingClientRect().height : 0;
  out.navPosition = nav ? getComputedStyle(nav).position : '';
  let minFont = Infinity;
  for (const svg of document.querySelectorAll('svg.fig')) {
    const vb = svg.viewBox && svg.viewBox.baseVal;
    const shown = svg.getBoundingClientRect().width;
    if (!vb || !vb.width || !shown) continue;
    const scale = shown / vb.width;
    for (const t of svg.querySelectorAll('text')) {
      const size = parseFloat(getComputedStyle(t).fontSize);
      if (size) minFont = Math.min(minFont, size * scale);
    }
  }
  out.minFigureFont = minFont === Infinity ? null : minFont;
  const broken = [];
  const root = document.querySelector('.accord-report') || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const el = node.parentElement;
    if (!el || el.closest('svg') || el.closest('style')) continue;
    if (el.closest('details:not([open])')) continue;
    const text = node.textContent;
    const word = /[^\s\-\/\u2013\u2014]{2,}/g;
    let m;
    while ((m = word.exec(text))) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set(Array.from(range.getClientRects())
        .filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  out.broken = broken;
  out.clipped = Array.from(document.querySelectorAll('.tablewrap, .figscroll, table'))
    .filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')
    .map(e => (e.closest('section') || {}).id || e.className);
  out.scrolling = Array.from(document.querySelectorAll('.tablewrap, .figscroll'))
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => (e.closest('section') || {}).id || e.className);
  return out;
})()
"""


def pdf_pages(pdf: bytes) -> int:
    """Number of pages in a PDF (its ``/Type /Page`` objects)."""
    import re

    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))
