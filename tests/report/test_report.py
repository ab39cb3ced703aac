"""The HTML report: sections, published numbers, escaping, determinism, and a real browser."""

from __future__ import annotations

import importlib
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
    """The escaped form of ``text`` as it sits in a table cell (a name isolated in
    ``<bdi>``)."""
    plain = f"<td>{esc(text)}</td>"
    return plain if plain in page else f"<td><bdi>{esc(text)}</bdi></td>"


def row_values(page: str, label: str) -> list[str]:
    """The cells that follow the first cell equal to ``label`` in a table row."""
    pattern = r"((?:<td[^>]*>(?:<bdi>)?[^<]*(?:</bdi>)?</td>)+)</tr>"
    match = re.search(re.escape(cell(page, label)) + pattern, page)
    assert match, f"no table row for {label!r}"
    return re.findall(r"<td[^>]*>(?:<bdi>)?([^<]*)(?:</bdi>)?</td>", match.group(1))


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
    return Path(__file__).resolve().parents[2] / "examples"


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
    # the summary's lead: the verdict the CLI prints too
    assert "Fleiss&#39; kappa 0.430 (95% CI 0.3" in page
    # moderate on its face, fair once its standard error is counted (Gwet 2014, ch. 6)
    assert (
        "fair agreement beyond chance (Landis &amp; Koch; probability above 0.99 that the true "
        "value is at least 0.20; the estimate alone reads moderate), on 30 items"
    ) in page
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
    # every rater scores every object: one connected design, said in the singular
    assert panel.n_components == 1
    assert "1 component;" in scores and "component(s)" not in page.html


def section_of(page: str, section_id: str) -> str:
    """The HTML of one section of the page."""
    return page.split(f'id="{section_id}"', 1)[1].split("</section>", 1)[0]


def weighted_panel_frame() -> pd.DataFrame:
    """Four raters score ten items, three per item (an incomplete design); rater D is noisy and
    says so (low certainty), so weighting by certainty moves the estimates away from the
    equal-confidence ones."""
    rng = np.random.default_rng(11)
    bias = {"A": -1.0, "B": 0.0, "C": 0.5, "D": 0.5}
    noise = {"A": 0.2, "B": 0.2, "C": 0.2, "D": 2.0}
    rows = []
    for i in range(10):
        for k, (rater, b) in enumerate(bias.items()):
            if k == i % 4:
                continue
            rows.append(
                {
                    "item": f"o{i}",
                    "rater": rater,
                    "score": i + b + float(rng.normal(0, noise[rater])),
                    "novelty": float(rng.normal(i, 1.0)) + b,
                    "certainty": 1.0 / noise[rater] ** 2,
                }
            )
    return pd.DataFrame(rows)


def test_score_confidence_weights_the_panel_calibration() -> None:
    frame = weighted_panel_frame()
    page = accord.report(
        frame,
        item="item",
        rater="rater",
        scores=["score", "novelty"],
        score_confidence={"score": "certainty"},
        progress=False,
    )
    # reference: calibrate_panel with and without the confidence column
    weighted = accord.calibrate_panel(
        frame, item="item", rater="rater", score="score", confidence="certainty", rng=0
    )
    equal = accord.calibrate_panel(frame, item="item", rater="rater", score="score", rng=0)
    w_bias = weighted.biases.set_index("rater")["bias"]
    e_bias = equal.biases.set_index("rater")["bias"]
    assert f"{w_bias['A']:.2f}" != f"{e_bias['A']:.2f}"  # the weighting shows at 2 decimals
    scores = section_of(page.html, "scores")
    cells = row_values(scores, "A")  # the first rater-A row: the weighted score's biases table
    assert cells[1] == f"{w_bias['A']:.2f}"
    assert cells[-1] == f"{weighted.biases.set_index('rater')['confidence']['A']:.3f}"
    assert "weighted by the confidences in certainty" in scores
    assert "novelty: 10 items by 4 raters, equal confidences" in scores
    assert "column certainty: c = 1/sigma^2 (absolute)" in scores
    read = section_of(page.html, "read")
    assert "confidence of score: certainty" in read
    methods = section_of(page.html, "methods")
    assert "confidences from column certainty (c = 1/sigma^2, absolute)" in methods
    assert "equal confidences (no confidence column" in methods
    # one column for every score
    both = accord.report(
        frame,
        item="item",
        rater="rater",
        scores=["score", "novelty"],
        score_confidence="certainty",
        progress=False,
    )
    assert section_of(both.html, "scores").count("weighted by the confidences in certainty") == 2


def test_score_confidence_errors() -> None:
    frame = weighted_panel_frame()
    with pytest.raises(accord.InvalidInputError, match="not one of the score columns"):
        accord.report(
            frame,
            item="item",
            rater="rater",
            scores="score",
            score_confidence={"novelty": "certainty"},
            progress=False,
        )
    with pytest.raises(accord.InvalidInputError, match="give the score columns too"):
        accord.report(
            frame, item="item", rater="rater", label="score", score_confidence="certainty"
        )
    bad = frame.assign(certainty=frame["certainty"].where(frame.index != 5, -1.0))
    with pytest.raises(accord.InvalidInputError, match=r"'certainty'.*row 6 must be positive"):
        accord.report(
            bad,
            item="item",
            rater="rater",
            scores="score",
            score_confidence="certainty",
            progress=False,
        )


def gold_frame() -> pd.DataFrame:
    """Four raters label twelve items; the gold label is given on some rows of each item
    (missing on the others) and is missing for two items."""
    truth = ["a", "b", "c"] * 4
    wrong = {"R1": set(), "R2": {0}, "R3": {0, 1, 2}, "R4": {0, 1, 2, 3, 4, 5}}
    rows = []
    for i, t in enumerate(truth):
        for k, (rater, misses) in enumerate(wrong.items()):
            label = {"a": "b", "b": "c", "c": "a"}[t] if i in misses else t
            rows.append(
                {
                    "item": f"i{i}",
                    "rater": rater,
                    "label": label,
                    "truth": t if (k % 2 == 0 and i < 10) else None,
                }
            )
    return pd.DataFrame(rows)


def test_gold_column_adds_accuracy_and_kappa_to_the_raters_section() -> None:
    frame = gold_frame()
    page = accord.report(
        frame, item="item", rater="rater", label="label", gold="truth", progress=False
    )
    # reference: accord.consensus with the gold labels of the ten items that have one
    ratings = accord.Ratings.from_long(frame, item="item", rater="rater", label="label")
    gold = frame.dropna(subset=["truth"]).drop_duplicates("item").set_index("item")["truth"]
    assert len(gold) == 10
    expected = accord.consensus(ratings, gold=gold).raters.set_index("rater")
    raters = section_of(page.html, "raters")
    assert "Raters against the consensus and the gold labels" in raters
    from statsmodels.stats.proportion import proportion_confint

    for rater in ("R1", "R2", "R3", "R4"):
        cells = row_values(raters, rater)
        n_right = round(10 * expected.loc[rater, "gold_accuracy"])
        # the accuracy's interval: Wilson (1927), as statsmodels computes it
        low, high = proportion_confint(n_right, 10, alpha=0.05, method="wilson")
        assert cells[-4:] == [
            "10",
            f"{100 * expected.loc[rater, 'gold_accuracy']:.0f}%",
            f"{low:.2f} to {high:.2f}",
            f"{expected.loc[rater, 'gold_kappa']:.3f}",
        ]
    # R1 is always right, R4 wrong on 6 of the 10 gold items (4 right: 40%); their Wilson
    # intervals (0.72 to 1 and 0.17 to 0.69) do not overlap, so both are named
    assert expected.loc["R1", "gold_accuracy"] == 1.0
    assert expected.loc["R4", "gold_accuracy"] == pytest.approx(0.4)
    assert "R1 is the most accurate (100%, 95% CI 72% to 100%" in raters
    assert "R4 the least (40%, 95% CI 17% to 69%" in raters
    assert "accuracy vs gold" in raters and "kappa vs gold" in raters
    assert "gold: truth" in section_of(page.html, "read")
    assert "Raters against the gold labels" in section_of(page.html, "methods")
    # without gold: no gold columns
    plain = accord.report(frame, item="item", rater="rater", label="label", progress=False)
    assert "accuracy vs gold" not in plain.html


def test_gold_with_two_raters_and_gold_errors() -> None:
    frame = gold_frame()
    two = frame[frame["rater"].isin(["R1", "R3"])].assign(
        truth=lambda f: f.groupby("item")["truth"].transform("first")
    )
    page = accord.report(two, item="item", rater="rater", label="label", gold="truth")
    assert "raters" in page.sections  # with two raters the section is about the gold labels
    without = accord.report(two, item="item", rater="rater", label="label", progress=False)
    assert "raters" not in without.sections
    clash = frame.copy()
    clash.loc[(clash["item"] == "i3") & (clash["rater"] == "R3"), "truth"] = "c"
    with pytest.raises(accord.InvalidInputError, match="item 'i3' has 2 different gold labels"):
        accord.report(clash, item="item", rater="rater", label="label", gold="truth")
    with pytest.raises(accord.InvalidInputError, match="give the label column too"):
        accord.report(frame, item="item", rater="rater", scores="label", gold="truth")


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


@pytest.mark.slow
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


def test_cli_report_score_confidence_and_gold(tmp_path: Path) -> None:
    panel = tmp_path / "panel.csv"
    weighted_panel_frame().to_csv(panel, index=False)
    target = tmp_path / "panel.html"
    base = ["report", str(panel), "--item", "item", "--rater", "rater", "-o", str(target)]
    result = CliRunner().invoke(
        app, [*base, "--score", "score", "--score-confidence", "certainty", "--quiet"]
    )
    assert result.exit_code == 0, result.output
    assert "weighted by the confidences in certainty" in target.read_text(encoding="utf-8")
    result = CliRunner().invoke(
        app,
        [*base, "--score", "score", "--score", "novelty", "--score-confidence", "certainty",
         "--score-confidence", "certainty", "--score-confidence", "certainty"],
    )  # fmt: skip
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "got 3 for 2 scores" in result.stderr
    result = CliRunner().invoke(app, [*base, "--label", "rater", "--score-confidence", "x"])
    assert result.exit_code == 2 and "give --score too" in result.stderr
    labels = tmp_path / "labels.csv"
    gold_frame().to_csv(labels, index=False)
    page = tmp_path / "labels.html"
    result = CliRunner().invoke(
        app,
        ["report", str(labels), "--item", "item", "--rater", "rater", "--label", "label",
         "--gold", "truth", "-o", str(page), "--quiet"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "accuracy vs gold" in page.read_text(encoding="utf-8")
    result = CliRunner().invoke(
        app,
        ["report", str(labels), "--item", "item", "--rater", "rater", "--score", "label",
         "--gold", "truth", "-o", str(page)],
    )  # fmt: skip
    assert result.exit_code == 2 and "give --label too" in result.stderr


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


@pytest.mark.parametrize(
    ("rows", "why"),
    [
        # one item, both raters give it the same label: one category
        ("1,a,x\n1,b,x\n", "both raters used one and the same category"),
        # every rating one label
        ("1,a,x\n1,b,x\n2,a,x\n2,b,x\n3,a,x\n3,b,x\n", "every rating is in one category"),
        # two raters who never rated the same item
        ("1,a,x\n2,b,y\n", "rated no item in common"),
    ],
)
def test_cli_report_on_degenerate_data_writes_the_page_and_says_why(
    tmp_path: Path, rows: str, why: str
) -> None:
    data = tmp_path / "degenerate.csv"
    data.write_text("item,rater,label\n" + rows, encoding="utf-8")
    target = tmp_path / "r.html"
    flags = ["--item", "item", "--rater", "rater", "--label", "label"]
    agree = CliRunner().invoke(app, ["agree", str(data), *flags])
    assert agree.exit_code == 0, agree.output  # agree explains the same data
    result = CliRunner().invoke(app, ["report", str(data), *flags, "-o", str(target)])
    assert result.exit_code == 0, result.output
    page = target.read_text(encoding="utf-8")
    assert esc(why) in page
    for section in ('id="summary"', 'id="coefficients"', 'id="methods"'):
        assert section in page
    assert "Intervals: ," not in page  # no empty list of interval methods


TROJAN_RATER = "\u202egnp.exe"  # displays as "exe.png" where the override is obeyed
TROJAN_ITEM = "scan\u2067 7\u2069.pdf"  # an isolate pair inside a name
LONG_ITEM = "item-" + "x" * 95


def trojan_frame() -> pd.DataFrame:
    """Three raters, four items: a right-to-left override in a rater, isolates in an item,
    one item named with 100 characters."""
    given = {TROJAN_ITEM: "yyn", "a": "yny", "b": "nny", LONG_ITEM: "yyy"}
    rows = [
        {"item": item, "rater": rater, "label": label}
        for item, labels in given.items()
        for rater, label in zip(["r1", "r2", TROJAN_RATER], labels, strict=True)
    ]
    return pd.DataFrame(rows)


def test_bidi_controls_in_names_are_shown_escaped_and_isolated() -> None:
    page = accord.report(trojan_frame(), item="item", rater="rater", label="label",
                         progress=False).html  # fmt: skip
    for control in ("\u202e", "\u2067", "\u2069"):  # nowhere raw: tables, text, figures
        assert control not in page
    assert "<bdi>\\u202egnp.exe</bdi>" in page  # the rater, isolated, as the data hold it
    assert "<bdi>scan\\u2067 7\\u2069.pdf</bdi>" in page
    assert ">\\u202egnp.exe</text>" in page  # a figure's tick label
    # a long name is elided in tables as on the figure axes; the full name nowhere in a cell
    assert f"<bdi>{LONG_ITEM[:39]}\u2026</bdi>" in page
    assert f"<bdi>{LONG_ITEM}</bdi>" not in page


def test_bidi_controls_in_names_are_escaped_in_terminal_tables(tmp_path: Path) -> None:
    data = tmp_path / "trojan.csv"
    trojan_frame().to_csv(data, index=False)
    result = CliRunner().invoke(app, ["consensus", str(data), "--item", "item", "--rater",
                                      "rater", "--label", "label"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "\u202e" not in result.stdout and "\u2067" not in result.stdout
    assert "\\u202egnp.exe" in result.stdout and "scan\\u2067 7\\u2069.pdf" in result.stdout


def test_cli_report_on_scored_units_alone(tmp_path: Path) -> None:
    # confidences and correctness, no items or raters: the calibration report, no agreement
    words = accord.datasets.path("sclite-test3b-words.csv")
    page = tmp_path / "c.html"
    run = CliRunner().invoke(
        app, ["report", str(words), "--confidence", "confidence", "--correct", "correct",
              "-o", str(page)],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    assert "confidence" in run.output and page.stat().st_size > 0
    alone = CliRunner().invoke(app, ["report", str(words), "--confidence", "confidence"])
    assert alone.exit_code == 2 and "--confidence needs --correct" in alone.output


def test_the_rows_are_kept_only_while_a_section_reads_them() -> None:
    # Categories with no score, confidence, trial, time or facet column: every section reads
    # the ratings, and the context lets the rows go (their memory, the size of the file).
    from accord.report._context import Context

    frame = pd.DataFrame({"i": [1, 1, 2, 2], "r": list("abab"), "y": [1, 2, 2, 2], "s": 0.5})
    ratings = accord.Ratings.from_long(frame, item="i", rater="r", label="y")
    names = {"item": "i", "rater": "r", "label": "y"}
    assert Context(ratings=ratings, frame=frame, **names).frame is None
    assert Context(ratings=ratings, frame=frame, **names, scores=("s",)).frame is frame
    assert Context(ratings=None, frame=frame, **names).frame is frame
    measured = accord.Ratings.from_long(frame, item="i", rater="r", label="s", level="interval",
                                        duplicates="first")  # fmt: skip
    assert Context(ratings=measured, frame=frame, **names).frame is frame  # the replicates
    page = accord.report(frame, item="i", rater="r", label="y", progress=False)
    assert "4 ratings of 2 items by 2 raters" in page.html


def test_the_consensus_is_kept_without_its_table_of_ratings() -> None:
    # No section reads the per-rating table of accord.consensus (one row a rating): the
    # context keeps the items, raters and summary only, as consensus computes them.
    from accord.report._context import Context

    frame = pd.DataFrame({"i": [1, 1, 2, 2, 3, 3], "r": list("ababab"), "y": [1, 2, 2, 2, 1, 1]})
    ratings = accord.Ratings.from_long(frame, item="i", rater="r", label="y")
    kept = Context(ratings=ratings, frame=None, item="i", rater="r", label="y").consensus_result()
    beside = accord.consensus(ratings)
    assert len(beside.ratings) == 6 and len(kept.ratings) == 0
    assert list(kept.ratings.columns) == list(beside.ratings.columns)
    pd.testing.assert_frame_equal(kept.items, beside.items)
    pd.testing.assert_frame_equal(kept.raters, beside.raters)


def test_the_consensus_is_let_go_once_its_last_reader_is_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The items and raters sections read the consensus (one row an item); no section after
    # them does: the context drops it before the rater model, computed once all the same.
    # With another engine it stays (reading it again would scan the files again).
    # In memory the context asks for it without its per-rating table (rows=False).
    import accord.front.consensus as front
    from accord.report import _context
    from accord.report._context import Context

    memory = importlib.import_module("accord.consensus")  # the package, not the function
    calls: list[str] = []
    cached_then: dict[str, bool] = {}
    real, real_let_go = memory.consensus_from_ratings, _context.Context.let_go

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(f"consensus rows={kwargs.get('rows')}")
        return real(*args, **kwargs)

    def refused(*args: object, **kwargs: object) -> object:
        raise AssertionError("the front door builds the per-rating table")

    def let_go(self: Context, key: str) -> None:
        cached_then[key] = key in self._cache
        real_let_go(self, key)
        cached_then[key + " after"] = key in self._cache

    monkeypatch.setattr(memory, "consensus_from_ratings", counted)
    monkeypatch.setattr(front, "consensus", refused)
    monkeypatch.setattr(_context.Context, "let_go", let_go)
    gen = np.random.default_rng(4)
    truth = gen.integers(0, 3, 40)
    wide = np.column_stack([np.where(gen.uniform(size=40) < 0.8, truth, 2) for _ in range(4)])
    page = accord.report(accord.Ratings.from_wide(wide), progress=False)
    assert {"items", "raters", "rater-model"} <= set(page.sections)
    assert calls == ["consensus rows=False"]
    assert cached_then == {"consensus": True, "consensus after": False}
    frame = pd.DataFrame({"i": [1, 1, 2, 2], "r": list("abab"), "y": [1, 2, 2, 2]})
    streamed = Context(ratings=None, frame=frame, item="i", rater="r", label="y",
                       engine="stream")  # fmt: skip
    streamed._cache["consensus"] = "kept"
    real_let_go(streamed, "consensus")
    assert streamed._cache == {"consensus": "kept"}


def test_measurements_table_computes_only_the_rows_the_page_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # On measurements the page shows alpha at the data's level and the ICCs; alpha on the
    # nominal scale (exact matches of values, a tenth of a second on 1M distinct scores) is
    # no longer computed only to be left out. The rows shown are those accord.agreement
    # gives when named explicitly, to the last bit.
    import importlib

    from accord.report._context import Context

    summary = importlib.import_module("accord.agreement.summary")

    gen = np.random.default_rng(8)
    truth = gen.normal(50.0, 10.0, 30)
    wide = np.column_stack([truth + gen.normal(0.0, 2.0, 30) for _ in range(3)])
    ratings = accord.Ratings.from_wide(wide, level="interval")
    levels: list[str] = []
    real = summary.mr.krippendorff_alpha

    def counted(*args: object, **kwargs: object) -> object:
        levels.append(str(kwargs.get("level")))
        return real(*args, **kwargs)

    monkeypatch.setattr(summary.mr, "krippendorff_alpha", counted)
    ctx = Context(ratings=ratings, frame=None, item="i", rater="r", label="y")
    shown = ctx.agreement_table().coefficients
    assert levels == ["interval"]
    named = accord.agreement(ratings, coefficients=["krippendorff_alpha", "icc"]).coefficients
    assert [c.weights for c in named if c.name == "krippendorff_alpha"] == [
        "nominal",
        "interval",
    ]
    kept = [c for c in named if not (c.name == "krippendorff_alpha" and c.weights == "nominal")]
    assert [(c.name, c.weights, getattr(c, "form", None)) for c in shown] == [
        (c.name, c.weights, getattr(c, "form", None)) for c in kept
    ]
    assert [c.statistic for c in shown] == [c.statistic for c in kept]
    assert [c.standard_error for c in shown] == [c.standard_error for c in kept]


@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_what_was_read_counts_the_ratings_per_item(level: str) -> None:
    # Items a to d rated 3, 2, 2 and 1 times (by hand: 1 to 3, median of 3, 2, 2, 1 = 2),
    # counted from the ratings themselves (no item x category table over the values).
    frame = pd.DataFrame(
        {
            "i": list("aaabbccd"),
            "r": ["x", "y", "z", "x", "y", "y", "z", "x"],
            "y": [1.0, 2.0, 2.5, 3.0, 3.5, 1.0, 1.5, 2.0],
        }
    )
    page = accord.report(frame, item="i", rater="r", label="y", level=level, progress=False)
    assert "ratings per item</td><td>1 to 3 (median 2)</td>" in page.html


def test_a_coefficient_without_a_chance_term_is_a_dash_the_caption_explains(
    birads_page: HtmlReport, diagnoses_page: HtmlReport
) -> None:
    # informational agreement (a ratio of mutual information to entropy) and Light's kappa
    # (the mean of the pairs' Cohen's kappas) are not (p_a - p_e) / (1 - p_e): their chance
    # cell is a dash, and the caption says why, naming them and no other coefficient
    birads = section_of(birads_page.html, "coefficients")
    ia = row_values(birads, "Informational agreement (IA)")
    kappa = row_values(birads, "Cohen's kappa")
    assert ia[-2] == "\u2013" and kappa[-2] != "\u2013"
    assert ia[-3] == kappa[-3]  # observed: the share of pairs that agree, as for kappa
    said = "is not of that form, so no single chance term"
    assert f"A dash: Informational agreement (IA) {said}" in birads
    assert "Cohen&#39;s kappa is not" not in birads
    light = section_of(diagnoses_page.html, "coefficients")
    assert row_values(light, "Light's kappa")[-2] == "\u2013"
    assert f"A dash: Light&#39;s kappa {said}" in light
