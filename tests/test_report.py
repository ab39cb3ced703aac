"""The HTML report: sections, published numbers, escaping, determinism, and a real browser."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from markupsafe import escape
from typer.testing import CliRunner

import accord
from accord.cli import app
from accord.report import HtmlReport

XSS_ITEM = "<script>alert(1)</script>"
XSS_RATER = '<img src=x onerror="alert(2)">'
XSS_LABEL = "<b>bold</b> & co"


def esc(text: str) -> str:
    """``text`` escaped as the report's template escapes it."""
    return str(escape(text))


def cell(page: str, text: str) -> str:
    """The escaped form of ``text`` as it sits in a table cell."""
    return f"<td>{esc(text)}</td>"


def row_values(page: str, label: str) -> list[str]:
    """The cells that follow the first cell equal to ``label`` in a table row."""
    match = re.search(re.escape(cell(page, label)) + r"((?:<td[^>]*>[^<]*</td>)+)</tr>", page)
    assert match, f"no table row for {label!r}"
    return re.findall(r"<td[^>]*>([^<]*)</td>", match.group(1))


@pytest.fixture(scope="module")
def diagnoses_page(examples_dir: Path) -> HtmlReport:
    return accord.report(
        examples_dir / "diagnoses.csv",
        item="patient",
        rater="rater",
        label="diagnosis",
        progress=False,
    )


@pytest.fixture(scope="module")
def birads_page(examples_dir: Path) -> HtmlReport:
    return accord.report(
        examples_dir / "birads.csv",
        item="finding",
        rater="modality",
        label="birads",
        level="ordinal",
        progress=False,
    )


@pytest.fixture(scope="module")
def examples_dir() -> Path:
    return Path(__file__).resolve().parents[1] / "examples"


def xss_frame() -> pd.DataFrame:
    """Three raters, five items; the hostile item is the most contested one."""
    rows = []
    labels = {
        XSS_ITEM: ["yes", "no", XSS_LABEL],
        "a": ["yes", "yes", "yes"],
        "b": ["no", "no", "no"],
        "c": ["yes", "yes", "no"],
        "d": [XSS_LABEL, XSS_LABEL, "no"],
    }
    for item, given in labels.items():
        for rater, label in zip(["r1", "r2", XSS_RATER], given, strict=True):
            rows.append({"item": item, "rater": rater, "label": label})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ content


def test_diagnoses_report_shows_fleiss_published_kappa(diagnoses_page: HtmlReport) -> None:
    page = diagnoses_page.html
    # Fleiss (1971), Table 1 data: kappa = 0.430 (examples/README.md).
    assert row_values(page, "Fleiss' kappa")[0] == "0.430"
    assert "Fleiss&#39; kappa = 0.430 on 30 items" in page  # the summary's lead
    assert diagnoses_page.sections[:3] == ("summary", "read", "coefficients")
    for section in ("pairwise", "items", "methods"):
        assert section in diagnoses_page.sections
    assert "two-raters" not in diagnoses_page.sections  # six raters
    # What was read: 180 ratings of 30 patients by 6 raters, nothing dropped.
    assert row_values(page, "ratings kept") == ["180"]
    assert row_values(page, "raters") == ["6"]


def test_birads_report_shows_published_kappa_and_ia(birads_page: HtmlReport) -> None:
    page = birads_page.html
    assert "two-raters" in birads_page.sections
    assert "pairwise" not in birads_page.sections  # a single pair: no heatmap
    # Casagrande, Fabris & Girometti (2020), Table 2: kappa 0.821, IA 0.729.
    assert row_values(page, "Cohen's kappa")[0] == "0.821"
    assert row_values(page, "Informational agreement (IA)")[0] == "0.729"
    # Same paper, Table 3 / Fig. 2: the cut BR1-2 | BR3-5 gives kappa 0.944 and IA 0.836.
    cut = row_values(page, "1-2 | 3-5")
    assert cut[:4] == ["136", "3", "1", "46"]
    assert cut[4:] == ["0.944", "0.836"]
    assert "Split 1-2 | 3-5 gives the highest kappa (0.944, IA 0.836)" in page


def test_numbers_come_from_the_result_objects(
    diagnoses_page: HtmlReport, examples_dir: Path
) -> None:
    r = accord.read_ratings(
        examples_dir / "diagnoses.csv", item="patient", rater="rater", label="diagnosis"
    )
    alpha = accord.krippendorff_alpha(r, level="nominal")
    ci = alpha.confidence_interval()
    values = row_values(diagnoses_page.html, "Krippendorff's alpha (nominal)")
    assert values[0] == f"{alpha.statistic:.3f}"
    assert values[1] == f"{alpha.standard_error:.3f}"
    assert values[2] == f"{ci.low:.3f} to {ci.high:.3f}"


def test_methods_section_names_every_estimator_and_reference(birads_page: HtmlReport) -> None:
    methods = birads_page.html.split('id="methods"', 1)[1]
    for topic in (
        "Cohen&#39;s kappa",
        "Informational agreement",
        "Fleiss&#39; kappa",
        "Krippendorff&#39;s alpha (ordinal)",
        "Dichotomisation",
        "Benchmarks",
    ):
        assert f"<td>{topic}" in methods, topic
    for doi in (
        "10.1177/001316446002000104",
        "10.1007/s11517-020-02261-2",
        "10.2307/2529310",
        "10.1037/h0031619",
    ):
        assert doi in methods, doi
    assert "bootstrap over items (2000 replicates" in methods


def test_self_contained_and_deterministic(examples_dir: Path, birads_page: HtmlReport) -> None:
    page = birads_page.html
    assert "<script" not in page
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", page)
    assert "default-src 'none'" in page  # the page may not load anything
    assert "<image" not in page  # figures are vectors, not embedded bitmaps
    again = accord.report(
        examples_dir / "birads.csv",
        item="finding",
        rater="modality",
        label="birads",
        level="ordinal",
        progress=False,
    )
    assert again.html == page
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "element ids repeat across figures"


def test_every_user_string_is_escaped() -> None:
    page = accord.report(
        xss_frame(), item="item", rater="rater", label="label", progress=False
    ).html
    for hostile in (XSS_ITEM, XSS_RATER, XSS_LABEL):
        assert hostile not in page
    assert cell(page, XSS_ITEM) in page  # the most contested item, shown as text
    assert esc(XSS_RATER) in page
    assert esc(XSS_LABEL) in page
    assert "<script" not in page and "<img" not in page and "<b>" not in page


def test_scores_and_confidence_sections() -> None:
    rng = np.random.default_rng(3)
    rows = []
    value = {f"o{i}": float(i) for i in range(8)}
    bias = {"A": -1.0, "B": 0.0, "C": 1.0}
    for obj, v in value.items():
        for rater, b in bias.items():
            conf = float(rng.uniform(0.05, 0.95))
            rows.append(
                {
                    "item": obj,
                    "rater": rater,
                    "label": "hi" if v + b > 3.5 else "lo",
                    "score": v + b + float(rng.normal(0, 0.3)),
                    "confidence": conf,
                    "correct": int(rng.uniform() < conf),
                }
            )
    frame = pd.DataFrame(rows)
    page = accord.report(
        frame,
        item="item",
        rater="rater",
        label="label",
        scores="score",
        confidence="confidence",
        correct="correct",
        progress=False,
    )
    assert "scores" in page.sections and "confidence" in page.sections
    nce = accord.normalized_cross_entropy(frame["correct"], frame["confidence"])
    assert f'<div class="value">{nce.statistic:.3f}</div>' in page.html
    panel = accord.calibrate_panel(frame, item="item", rater="rater", score="score")
    top = panel.biases.sort_values("bias", ascending=False).iloc[0]
    scores = page.html.split('id="scores"', 1)[1].split("</section>", 1)[0]
    assert row_values(scores, str(top["rater"]))[1] == f"{top['bias']:.2f}"
    methods = page.html.split('id="methods"', 1)[1]
    assert "10.1098/rsos.160760" in methods and "sclite" in methods


def test_confidence_without_correct_is_an_error() -> None:
    with pytest.raises(accord.InvalidInputError, match="confidence and correct"):
        accord.report(xss_frame(), item="item", rater="rater", confidence="x", progress=False)


def test_import_accord_stays_light() -> None:
    code = "import sys, accord; print([m for m in ('matplotlib', 'jinja2') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_template_ships_inside_the_package() -> None:
    from importlib import resources

    assert (resources.files("accord.report") / "report.html.j2").is_file()


# ----------------------------------------------------------------------- CLI


def test_cli_report_writes_the_page(tmp_path: Path, examples_dir: Path) -> None:
    target = tmp_path / "sub" / "r.html"
    result = CliRunner().invoke(
        app,
        [
            "report",
            str(examples_dir / "diagnoses.csv"),
            "--item",
            "patient",
            "--rater",
            "rater",
            "--label",
            "diagnosis",
            "-o",
            str(target),
        ],
    )
    assert result.exit_code == 0, result.output
    assert f"wrote {target}" in result.stdout
    assert "Fleiss&#39; kappa" in target.read_text(encoding="utf-8")
    quiet = CliRunner().invoke(
        app,
        [
            "report",
            str(examples_dir / "diagnoses.csv"),
            "--item",
            "patient",
            "--rater",
            "rater",
            "--label",
            "diagnosis",
            "-o",
            str(target),
            "--quiet",
        ],
    )
    assert quiet.exit_code == 0 and quiet.stdout == ""


def test_cli_report_bad_column_is_one_line(tmp_path: Path, examples_dir: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "report",
            str(examples_dir / "diagnoses.csv"),
            "--item",
            "nope",
            "--rater",
            "rater",
            "--label",
            "diagnosis",
            "-o",
            str(tmp_path / "r.html"),
        ],
    )
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "'nope'" in result.stderr
    assert not (tmp_path / "r.html").exists()


# ------------------------------------------------------------------- browser


def _colours(png: bytes) -> int:
    import matplotlib.image as mpimg

    pixels = mpimg.imread(io.BytesIO(png), format="png")
    flat = (pixels[..., :3] * 255).astype(np.uint8).reshape(-1, 3)
    return int(np.unique(flat, axis=0).shape[0])


@pytest.mark.slow
def test_report_in_headless_chromium(tmp_path: Path, diagnoses_page: HtmlReport) -> None:
    from tests._browser import BrowserUnavailable, visit

    path = diagnoses_page.write(tmp_path / "diagnoses.html")
    try:
        seen = visit(path, selectors=("h2", "section.card svg"))
    except BrowserUnavailable as exc:
        pytest.fail(f"the browser test needs Chromium: {exc}")
    assert seen.errors == []
    # No request at all after the document: no network, not even data: URLs.
    assert seen.requests == [], f"the report made requests: {seen.requests}"
    assert "Can I trust these raters?" in seen.texts["h2"]
    assert "Methods" in seen.texts["h2"]
    assert len(seen.texts["section.card svg"]) >= 4  # the figures were parsed as SVG
    assert seen.screenshot.startswith(b"\x89PNG")
    assert _colours(seen.screenshot) > 16, "the screenshot is blank"


@pytest.mark.slow
def test_hostile_names_show_as_text_in_the_browser(tmp_path: Path) -> None:
    from tests._browser import BrowserUnavailable, visit

    page = accord.report(xss_frame(), item="item", rater="rater", label="label", progress=False)
    path = page.write(tmp_path / "xss.html")
    try:
        seen = visit(path, selectors=("#items td", "#raters td", "body"))
    except BrowserUnavailable as exc:
        pytest.fail(f"the browser test needs Chromium: {exc}")
    assert seen.alerts == []
    assert seen.script_nodes == 0
    assert seen.errors == []
    assert XSS_ITEM in seen.texts["#items td"]  # shown as text, exactly as named
    assert XSS_RATER in seen.texts["#raters td"]
    assert XSS_LABEL in seen.texts["body"][0]
    assert _colours(seen.screenshot) > 16
