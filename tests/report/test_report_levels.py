"""The report follows the level of measurement, names raters only beyond the noise, has a
headline on every page, stays inside its own box in a notebook, and reads on a phone and on
paper (headless Chromium)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import accord
from accord.report import HtmlReport
from tests.agreement.test_raters import lesion_frame
from tests.report.test_report import esc, row_values, section_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def text_of(html: str) -> str:
    """The visible text of a piece of the page (figures and styles left out)."""
    html = re.sub(r"<svg.*?</svg>|<style>.*?</style>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#39;", "'")


@pytest.fixture(scope="module")
def lesion_page() -> HtmlReport:
    """40 lesions x 3 readers in mm (synthetic, see lesion_frame); reader_b measures 1.5 mm
    high."""
    return accord.report(
        lesion_frame(),
        item="lesion",
        rater="reader",
        label="diameter_mm",
        level="interval",
        title="Lesion diameters",
        progress=False,
    )


# ------------------------------------------------------------------ measurements


def test_interval_report_headlines_the_icc(lesion_page: HtmlReport) -> None:
    import pingouin

    page = lesion_page.html
    assert lesion_page.sections == (
        "summary", "read", "coefficients", "raters", "method-comparison", "methods",
    )  # fmt: skip
    # ICC(A,1) = Shrout-Fleiss ICC(2,1), as pingouin 0.7 computes it (its "ICC(A,1)" row)
    frame = lesion_frame()
    peer = pingouin.intraclass_corr(
        frame, targets="lesion", raters="reader", ratings="diameter_mm"
    ).set_index("Type")
    summary = section_of(page, "summary")
    label = "ICC(A,1) [ICC(2,1)]: two-way random, absolute agreement"
    assert f'<div class="label">{label}</div>' in summary
    value = re.search(r'<div class="value">([^<]+)</div>', summary)
    assert value is not None and value.group(1) == f"{peer.loc['ICC(A,1)', 'ICC']:.3f}"
    low, high = peer.loc["ICC(A,1)", "CI95"]  # pingouin rounds its interval to 2 decimals
    shown = re.search(r"95% CI (-?\d\.\d+) to (-?\d\.\d+)", summary)
    assert shown is not None
    assert float(shown.group(1)) == pytest.approx(low, abs=0.006)
    assert float(shown.group(2)) == pytest.approx(high, abs=0.006)
    assert "Krippendorff&#39;s alpha (interval)" in summary
    # both ends of the interval (0.943 to 0.996) are excellent: one band, read from the CI
    assert (
        "excellent reliability of a single measurement (Koo &amp; Li, from the 95% CI)" in summary
    )
    # every ICC row is labelled by its form
    for form in ("ICC(1) [ICC(1,1)]", "ICC(A,1) [ICC(2,1)]", "ICC(C,1) [ICC(3,1)]"):
        assert form in section_of(page, "coefficients")
    assert "weights)" not in page
    # nothing that counts exact matches of values, no category list
    words = text_of(page).lower()
    for absent in ("percent agreement", "raw agreement", "categor", "kappa", "contested"):
        assert absent not in words, absent
    lo, hi = frame["diameter_mm"].min(), frame["diameter_mm"].max()
    distinct = frame["diameter_mm"].nunique()
    assert row_values(page, "values") == [f"{lo} to {hi} ({distinct} distinct)"]  # a range


def test_stream_report_headlines_the_same_icc(lesion_page: HtmlReport, tmp_path: Path) -> None:
    # The ICC runs on every engine: a report read in batches headlines memory's ICC(A,1).
    path = tmp_path / "lesions.csv"
    lesion_frame().sample(frac=1.0, random_state=3).to_csv(path, index=False)
    streamed = accord.report(
        path,
        item="lesion",
        rater="reader",
        label="diameter_mm",
        level="interval",
        engine="stream",
        progress=False,
    )
    label = "ICC(A,1) [ICC(2,1)]: two-way random, absolute agreement"
    value = r'<div class="value">([^<]+)</div>'
    in_memory = re.search(value, section_of(lesion_page.html, "summary"))
    summary = section_of(streamed.html, "summary")
    assert f'<div class="label">{label}</div>' in summary
    shown = re.search(value, summary)
    assert in_memory is not None and shown is not None
    assert shown.group(1) == in_memory.group(1)


def test_interval_report_compares_readers_in_millimetres(lesion_page: HtmlReport) -> None:
    frame = lesion_frame()
    wide = frame.pivot(index="lesion", columns="reader", values="diameter_mm")
    # by hand: reader_b minus the mean of the other two readers, per lesion
    d = wide["reader_b"] - wide[["reader_a", "reader_c"]].mean(axis=1)
    raters = section_of(lesion_page.html, "raters")
    assert row_values(raters, "reader_b")[:2] == ["40", f"{d.mean():.2f}"]
    lead = text_of(raters)
    assert f"reader_b measures higher than the others by {d.mean():.2f} on average" in lead
    assert "Holm" in lead


def test_two_readers_are_compared_with_each_other() -> None:
    frame = lesion_frame(offsets={"a": 0.0, "b": 1.0})
    page = accord.report(
        frame, item="lesion", rater="reader", label="diameter_mm", level="interval",
        progress=False,
    )  # fmt: skip
    assert page.sections == (
        "summary", "read", "coefficients", "raters", "method-comparison", "methods",
    )  # fmt: skip
    wide = frame.pivot(index="lesion", columns="reader", values="diameter_mm")
    d = (wide["b"] - wide["a"]).mean()  # Bland & Altman (1986): the mean difference
    lead = text_of(section_of(page.html, "raters"))
    assert f"b measures higher than a by {d:.2f} on average (the Bland-Altman" in lead
    assert "a measures lower" not in lead


def test_interval_report_names_no_reader_without_an_offset() -> None:
    calm = lesion_frame(offsets={"a": 0.0, "b": 0.0, "c": 0.0}, seed=5)
    page = accord.report(
        calm, item="lesion", rater="reader", label="diameter_mm", level="interval", progress=False
    )
    lead = text_of(section_of(page.html, "raters"))
    assert "No rater measures systematically higher or lower than the others" in lead
    assert "measures higher" not in lead and "measures lower" not in lead


# ------------------------------------------------------------------ ordinal


def test_ordinal_two_raters_headline_a_weighted_kappa() -> None:
    from sklearn.metrics import cohen_kappa_score

    page = accord.report(
        EXAMPLES / "birads.csv",
        item="finding",
        rater="modality",
        label="birads",
        level="ordinal",
        progress=False,
    ).html
    frame = pd.read_csv(EXAMPLES / "birads.csv")
    wide = frame.pivot(index="finding", columns="modality", values="birads")
    quadratic = cohen_kappa_score(wide["ABVS"], wide["US"], weights="quadratic")
    summary = section_of(page, "summary")
    first = re.search(r'<div class="label">([^<]+)</div><div class="value">([^<]+)</div>', summary)
    assert first is not None
    assert first.groups() == (esc("Cohen's kappa (quadratic weights)"), f"{quadratic:.3f}")
    assert "1 against 5 weighs more" in text_of(summary)
    # the unweighted kappa stays in the table: 0.821 (Casagrande et al. 2020, Table 2)
    assert row_values(page, "Cohen's kappa")[0] == "0.821"


def test_ordinal_many_raters_headline_ordinal_alpha() -> None:
    import krippendorff

    gen = np.random.default_rng(3)
    truth = gen.integers(1, 6, 60)
    wide = np.clip(truth[:, None] + gen.integers(-1, 2, (60, 4)), 1, 5)
    frame = pd.DataFrame(
        [(i, f"r{j}", int(wide[i, j])) for i in range(60) for j in range(4)],
        columns=["item", "rater", "grade"],
    )
    page = accord.report(
        frame, item="item", rater="rater", label="grade", level="ordinal", progress=False
    ).html
    peer = krippendorff.alpha(reliability_data=wide.T, level_of_measurement="ordinal")
    summary = section_of(page, "summary")
    first = re.search(r'<div class="label">([^<]+)</div><div class="value">([^<]+)</div>', summary)
    assert first is not None
    assert first.groups() == (esc("Krippendorff's alpha (ordinal)"), f"{peer:.3f}")
    assert row_values(page, "Fleiss' kappa")  # unweighted, in the table


# ------------------------------------------------------------------ raters and noise


def _long(wide: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(
        [(i, f"r{j}", str(wide[i, j])) for i in range(wide.shape[0]) for j in range(wide.shape[1])],
        columns=["item", "rater", "label"],
    )


def test_random_raters_are_not_named_in_the_report() -> None:
    gen = np.random.default_rng(0)
    page = accord.report(
        _long(gen.integers(0, 3, (200, 8))), item="item", rater="rater", label="label",
        progress=False,
    ).html  # fmt: skip
    raters = text_of(section_of(page, "raters"))
    assert "Raters against the consensus No rater strays beyond the noise" in raters
    assert "strays most" not in page and "Lowest pair" not in page
    assert "No pair of raters agrees less than the others" in text_of(section_of(page, "pairwise"))
    assert 'class="poor"' not in section_of(page, "raters")  # no row highlighted


def test_a_planted_bad_rater_is_named_in_the_report() -> None:
    gen = np.random.default_rng(1)
    truth = gen.integers(0, 4, 120)
    wide = np.column_stack(
        [np.where(gen.uniform(size=120) < 0.8, truth, gen.integers(0, 4, 120)) for _ in range(6)]
        + [gen.integers(0, 4, 120)]
    )
    page = accord.report(_long(wide), item="item", rater="rater", label="label", progress=False)
    raters = text_of(section_of(page.html, "raters"))
    assert re.search(r"r6 \(mean deviation [\d.]+ bits, adjusted p [<\d. ]+\) strays", raters)
    assert "permutation test" in raters
    assert "r6" in text_of(section_of(page.html, "pairwise")).split("pairs agree less")[1]
    assert "Which rater or pair stands out" in section_of(page.html, "methods")


# ------------------------------------------------------------------ headlines


def test_confidence_only_page_has_a_headline_against_its_baseline() -> None:
    gen = np.random.default_rng(0)
    conf = gen.uniform(0.6, 1.0, 400)
    correct = gen.uniform(size=400) < 0.5  # confident and right half the time: misleading
    frame = pd.DataFrame({"c": conf, "ok": correct.astype(int)})
    page = accord.report(frame, confidence="c", correct="ok", progress=False)
    assert page.sections[0] == "summary"
    nce = accord.normalized_cross_entropy(frame["ok"], frame["c"])
    assert nce.statistic < 0
    lead = text_of(section_of(page.html, "summary"))
    assert f"The confidences are worse than a constant: NCE {nce.statistic:.3f} is below 0" in lead
    assert f"always stating the overall accuracy ({100 * nce.p_correct:.1f}%)" in lead
    assert "predict correctness with" not in page.html


def test_panel_only_page_has_a_headline() -> None:
    sim = accord.simulate_panel(30, 6, raters_per_item=3, rng=1)
    page = accord.report(
        sim.assessments, item="item", rater="rater", scores="score", progress=False
    )
    assert page.sections[:2] == ("summary", "read")
    lead = text_of(section_of(page.html, "summary"))
    assert "30 items scored by 6 raters on score" in lead


# ------------------------------------------------------------------ notebooks


def test_inline_report_styles_only_itself(lesion_page: HtmlReport) -> None:
    inline = lesion_page._repr_html_()
    assert inline.startswith('<div class="accord-report accord-inline">')
    assert "<html" not in inline and "<body" not in inline and "<meta" not in inline
    css = re.search(r"<style>(.*?)</style>", inline, re.S)
    assert css is not None
    body = re.sub(r"/\*.*?\*/", "", css.group(1), flags=re.S)
    body = re.sub(r"@(media|page)[^{]*\{", "", body)  # unwrap at-rules
    for selectors in re.findall(r"([^{}]+)\{[^{}]*\}", body):
        for selector in selectors.split(","):
            selector = selector.strip()
            if not selector or selector.startswith("@"):
                continue
            assert selector.startswith((".accord-report", "body.accord-page")), selector


# ------------------------------------------------------------------ browser


#: The width of the page's column, and the share of the page's height the Methods take.
WIDTH_PROBE = r"""
(() => {
  const wrap = document.querySelector('.accord-report .wrap');
  const methods = document.getElementById('methods');
  const whole = document.documentElement.scrollHeight;
  return {wrapWidth: wrap ? wrap.getBoundingClientRect().width : 0,
          methodsShare: methods ? methods.getBoundingClientRect().height / whole : 0};
})()
"""

#: The laid-out height of each table inside a folded (closed) section.
FOLDED_PROBE = r"""
Array.from(document.querySelectorAll('.accord-report details:not([open]) table'))
  .map(t => t.getBoundingClientRect().height)
"""


@pytest.mark.slow
def test_report_reads_on_a_phone_on_a_desktop_and_on_paper(
    tmp_path: Path, lesion_page: HtmlReport
) -> None:
    from tests._browser import LAYOUT_PROBE, BrowserUnavailable, browser, pdf_pages, screenshot_dir

    diagnoses = accord.report(
        EXAMPLES / "diagnoses.csv", item="patient", rater="rater", label="diagnosis",
        progress=False,
    )  # fmt: skip
    pages = {
        "lesions": lesion_page.write(tmp_path / "lesions.html"),
        "diagnoses": diagnoses.write(tmp_path / "diagnoses.html"),
    }
    host = tmp_path / "notebook.html"
    host_body = (
        '<table id="host"><tr><td id="cell">Depression</td></tr></table>'
        '<p id="para">Text before the report.</p>'
    )
    probe_host = (
        "(() => { const c = getComputedStyle(document.getElementById('cell'));"
        " const t = getComputedStyle(document.getElementById('host'));"
        " const p = getComputedStyle(document.getElementById('para'));"
        " const b = getComputedStyle(document.body);"
        " return [c.padding, c.borderBottomWidth, c.fontSize, t.borderCollapse, t.fontSize,"
        " p.margin, p.maxWidth, b.backgroundColor, b.fontFamily, b.margin]; })()"
    )
    try:
        with browser() as tab:
            seen: dict[tuple[str, int], dict[str, object]] = {}
            for name, path in pages.items():
                for width, height in ((390, 844), (1280, 900), (1440, 900)):
                    tab.load(path, width=width, height=height)
                    seen[(name, width)] = {**tab.evaluate(LAYOUT_PROBE),
                                           **tab.evaluate(WIDTH_PROBE)}  # fmt: skip
                    shot = screenshot_dir() / f"report-{name}-{width}.png"
                    shot.write_bytes(tab.screenshot())
                    print(f"screenshot: {shot}")  # shown with pytest -s / -rP
            printed: dict[str, tuple[int, object]] = {}
            folded_in_print: dict[str, list[float]] = {}
            for name, path in pages.items():
                tab.load(path, width=1280, height=900, media="print")
                clipped = tab.evaluate(LAYOUT_PROBE)["clipped"]
                folded_in_print[name] = tab.evaluate(FOLDED_PROBE)
                printed[name] = (pdf_pages(tab.pdf()), clipped)
            host.write_text(f"<!DOCTYPE html><html><body>{host_body}</body></html>")
            tab.load(host, width=1280, height=900)
            alone = tab.evaluate(probe_host)
            host.write_text(
                f"<!DOCTYPE html><html><body>{host_body}{lesion_page._repr_html_()}</body></html>"
            )
            tab.load(host, width=1280, height=900)
            beside = tab.evaluate(probe_host)
    except BrowserUnavailable as exc:
        pytest.fail(f"the browser test needs Chromium: {exc}")
    for (name, width), m in seen.items():
        where = f"{name} at {width} px"
        assert m["docWidth"] == width, f"{where}: the page scrolls sideways"
        assert m["broken"] == [], f"{where}: words broken across lines: {m['broken']}"
        # the navigation takes one line (and does not stick on a phone)
        assert float(m["navHeight"]) <= 48, where  # type: ignore[arg-type]
        if width == 390:
            assert m["navPosition"] == "static", where
        # figure labels stay readable: at least 7.5 CSS px on a phone, 9.5 on a desktop
        smallest = float(m["minFigureFont"])  # type: ignore[arg-type]
        assert smallest >= (7.5 if width == 390 else 9.5), f"{where}: {smallest:.1f} px labels"
        # a wide screen gives the page its width: no table scrolls out of view at 1440 px
        if width == 1440:
            assert float(m["wrapWidth"]) >= 1300, where  # type: ignore[arg-type]
            assert m["scrolling"] == [], f"{where}: {m['scrolling']}"
        # on a phone the Methods tables are folded: the paragraph stays, far from half the page
        if width == 390:
            share = float(m["methodsShare"])  # type: ignore[arg-type]
            assert share < 0.3, f"{where}: Methods is {share:.0%} of the page"
    # print: folded sections print open (each folded table is laid out, not a bare heading)
    for name, heights in folded_in_print.items():
        assert heights and min(heights) > 0, (name, heights)
    # print: no table or figure clipped or scrolled, and few pages
    assert printed["lesions"][1] == [] and printed["diagnoses"][1] == []
    # (measurements: the method-comparison section with its Bland-Altman plots and its
    # Passing-Bablok fits adds two pages)
    assert 2 <= printed["lesions"][0] <= 7, printed["lesions"][0]
    # (six raters in five categories: the rater-model section, its figure and its two
    # tables, adds two)
    assert 4 <= printed["diagnoses"][0] <= 10, printed["diagnoses"][0]
    # the report shown in a notebook leaves the notebook's own table and text as they were
    assert beside == alone


# ------------------------------------------------------------------ spans


def test_span_report_has_a_headline_and_the_pairs() -> None:
    spans = accord.read_brat(EXAMPLES / "spans")
    page = accord.report(spans, progress=False)
    assert page.sections == ("summary", "read", "spans", "methods")
    # by hand from the brat files: ann1 marks 9 spans, ann2 8, ann3 8; ann1-ann2 and ann1-ann3
    # share 5 exact (document, start, end, label) spans, ann2-ann3 share 3
    f1 = [2 * 5 / (9 + 8), 2 * 5 / (9 + 8), 2 * 3 / (8 + 8)]
    mean = sum(f1) / 3
    pooled = 2 * (5 + 5 + 3) / (17 + 17 + 16)
    summary = text_of(section_of(page.html, "summary"))
    assert f"mean pairwise F1 {mean:.3f} over 3 pairs" in summary
    assert f"Pooled F1 {pooled:.3f}" in summary
    spans_section = section_of(page.html, "spans")
    names = r"<td><bdi>ann2</bdi></td><td><bdi>ann3</bdi></td>"  # annotators, isolated
    row = re.search(names + r"((?:<td[^>]*>[^<]*</td>)+)</tr>", spans_section)
    assert row is not None
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", row.group(1))
    assert cells == ["8", "8", "3", "0.375", "0.375", "0.375"]
    assert "no pair is singled out" in text_of(spans_section)
    assert "Span agreement" in section_of(page.html, "methods")


def test_span_report_gives_the_unitizing_alphas() -> None:
    spans = accord.read_brat(EXAMPLES / "spans")
    page = accord.report(spans, progress=False)
    section = text_of(section_of(page.html, "spans"))
    lib = accord.unitizing_alpha(spans)  # the library's figures, shown rounded
    assert f"u-alpha (units and gaps) {lib.statistic:.3f}" in section
    assert f"cu-alpha (labels where units meet) {lib.coding:.3f}" in section
    assert "Unitizing alpha" in section_of(page.html, "methods")


def test_span_report_gives_gamma_with_its_seed_and_samples() -> None:
    spans = accord.read_brat(EXAMPLES / "spans")
    page = accord.report(spans, progress=False)
    section = text_of(section_of(page.html, "spans"))
    # the library's figures with the report's samples and seed, shown rounded
    lib = accord.gamma_agreement(spans, n_samples=30, rng=0)
    assert f"gamma {lib.statistic:.3f}" in section
    assert f"observed disorder (best alignment) {lib.observed:.3f}" in section
    assert f"expected disorder (30 shuffled continua) {lib.expected:.3f}" in section
    assert f"gamma-cat (labels of aligned units) {lib.gamma_cat:.3f}" in section
    for rec in lib.per_label.to_dict(orient="records"):
        assert f"gamma-k, label {rec['label']} {rec['gamma_k']:.3f}" in section
    assert "30 shuffled continua (seed 0)" in section
    # another seed gives another expected disorder: the page's figure is the seeded one
    other = accord.gamma_agreement(spans, n_samples=30, rng=1)
    assert f"{other.expected:.3f}" != f"{lib.expected:.3f}"
    methods = text_of(section_of(page.html, "methods"))
    assert "Gamma" in methods and "seed 0" in methods and "10.1162/COLI_a_00227" in methods


def test_span_report_says_why_gamma_is_missing() -> None:
    # every unit alone: no two units aligned, so gamma-cat has no pair to read
    df = pd.DataFrame({"annotator": ["a", "b"], "document": "d", "start": [0, 50],
                       "end": [5, 55], "label": ["x", "y"]})  # fmt: skip
    page = accord.report(accord.Spans.from_frame(df), progress=False)
    lib = accord.gamma_agreement(df, n_samples=30, rng=0)
    assert lib.reason_cat
    assert lib.reason_cat in text_of(section_of(page.html, "spans"))


def test_span_report_says_why_unitizing_is_missing_with_overlaps() -> None:
    df = pd.DataFrame({"annotator": ["a", "a", "b"], "document": "d", "start": [0, 3, 0],
                       "end": [5, 8, 5], "label": ["x", "y", "x"]})  # fmt: skip
    page = accord.report(accord.Spans.from_frame(df), progress=False)
    assert "Unitizing alpha not computed" in text_of(section_of(page.html, "spans"))


# ------------------------------------------------------------------ engines


def test_stream_page_shows_the_pairs_and_the_raters_of_the_memory_page() -> None:
    columns = {"item": "patient", "rater": "rater", "label": "diagnosis", "progress": False}
    memory = accord.report(EXAMPLES / "diagnoses.csv", **columns)  # type: ignore[arg-type]
    streamed = accord.report(EXAMPLES / "diagnoses.csv", engine="stream", **columns)  # type: ignore[arg-type]
    for name in ("pairwise", "raters"):
        assert "Not available" not in section_of(streamed.html, name), name
    # the pair tables are sums over items, merged batch by batch: the same mean pairwise
    # kappa (Light's kappa of the six psychiatrists, 0.459 by accord.light_kappa in memory)
    light = accord.light_kappa(
        accord.read_ratings(EXAMPLES / "diagnoses.csv", item="patient", rater="rater",
                            label="diagnosis")
    ).statistic  # fmt: skip
    lead = f"Mean Cohen's kappa over 15 pairs of raters: {light:.3f}"
    assert lead in text_of(section_of(memory.html, "pairwise"))
    assert lead in text_of(section_of(streamed.html, "pairwise"))
    # the heatmap is drawn from the same matrix on both engines
    fig = re.compile(r"<svg.*?</svg>", re.S)
    assert fig.findall(section_of(memory.html, "pairwise")) == fig.findall(
        section_of(streamed.html, "pairwise")
    )
    # each rater's sums against the consensus: the same cells, rater by rater
    for rater in [f"rater{k}" for k in range(1, 7)]:
        kept = row_values(section_of(memory.html, "raters"), rater)[:6]
        assert row_values(section_of(streamed.html, "raters"), rater)[:6] == kept, rater
    assert "permutation test of the ratings, run with the memory engine" in text_of(
        section_of(streamed.html, "raters")
    )


def test_pair_heatmap_leaves_pairs_with_few_shared_items_blank() -> None:
    from accord.report.sections.pairwise import MIN_SHARED

    # raters a-b share 40 items; c shares 3 with each: those two cells are left blank
    rng = np.random.default_rng(7)
    rows = [(i, r, int(rng.integers(0, 2))) for i in range(40) for r in ("a", "b")]
    rows += [(i, "c", int(rng.integers(0, 2))) for i in range(3)]
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    page = accord.report(frame, item="item", rater="rater", label="label", progress=False)
    section = section_of(page.html, "pairwise")
    assert f"blank: fewer than {MIN_SHARED} items in common" in text_of(section)
    pairs = accord.pairwise_agreement(
        accord.Ratings.from_long(frame, item="item", rater="rater", label="label")
    )
    assert int(pairs.n_common.loc["a", "c"]) == 3 < MIN_SHARED


def test_two_rater_page_lists_each_coefficient_once() -> None:
    page = accord.report(EXAMPLES / "birads.csv", item="finding", rater="modality",
                         label="birads", level="ordinal", progress=False)  # fmt: skip
    section = text_of(section_of(page.html, "coefficients"))
    # Conger's and Light's kappa equal Cohen's for two raters (one pair, one table): not
    # repeated, and no advice to pass ci='bootstrap' for a Light's kappa not shown
    for name in ("Conger's kappa", "Light's kappa", "ci='bootstrap'", "--ci bootstrap"):
        assert name not in section, name
    assert section.count("Cohen's kappa (quadratic weights) 0.897") == 1
    assert "13 coefficients" in section
    # the command line lists the same rows, informational agreement (the page's) aside
    from typer.testing import CliRunner

    from accord.cli import app
    from tests._cli import cli_json

    flags = ["agree", str(EXAMPLES / "birads.csv"), "--item", "finding", "--rater", "modality",
             "--label", "birads", "--level", "ordinal", "--format", "json"]  # fmt: skip
    rows = cli_json(CliRunner().invoke(app, flags).stdout)["coefficients"]
    names = [f"{r['name']} {r['weights']}" for r in rows]
    assert len(names) == 12 and len(set(names)) == 12
    assert names[:2] == ["cohen_kappa identity", "cohen_kappa quadratic"]
    assert not any(n.startswith(("conger_kappa", "light_kappa")) for n in names)
    named = CliRunner().invoke(app, [*flags, "--coefficients", "conger_kappa,light_kappa"])
    kept = {r["name"] for r in cli_json(named.stdout)["coefficients"]}
    assert kept == {"cohen_kappa", "conger_kappa", "light_kappa"}  # named: kept beside Cohen's


def _headers(section: str) -> list[list[str]]:
    """The column headers of each table of a section, as shown."""
    tables = re.findall(r"<table.*?</table>", section, flags=re.S)
    return [[text_of(h).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", t, flags=re.S)
             if "<th" in t] for t in tables]  # fmt: skip


def _label_studio_spans(tmp_path: Path) -> Path:
    """Two tasks of a span export, the users given by id and once (user 9) as an object with
    an e-mail."""

    def region(start: int, end: int, label: str) -> dict[str, object]:
        return {"from_name": "ner", "to_name": "text", "type": "labels",
                "value": {"start": start, "end": end, "labels": [label]}}  # fmt: skip

    tasks = [
        {"id": 11, "data": {"text": "Aspirin helps with headache and fever."}, "annotations": [
            {"completed_by": 7, "result": [region(0, 7, "DRUG"), region(19, 27, "DISEASE")]},
            {"completed_by": 9, "result": [region(0, 7, "DRUG"), region(32, 37, "DISEASE")]}]},
        {"id": 12, "data": {"text": "Ibuprofen for pain."}, "annotations": [
            {"completed_by": 7, "result": [region(0, 9, "DRUG")]},
            {"completed_by": {"id": 9, "email": "bo@example.org"},
             "result": [region(0, 9, "DRUG"), region(14, 18, "DISEASE")]}]},
    ]  # fmt: skip
    import json

    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    return path


def test_span_report_heads_each_column_once_and_names_what_it_read(tmp_path: Path) -> None:
    page = accord.report(accord.read_brat(EXAMPLES / "spans"), progress=False)
    pairs = _headers(section_of(page.html, "spans"))[0]
    assert pairs == ["annotator", "reference", "annotator's spans", "reference's spans",
                     "matched", "precision", "recall", "F1"]  # fmt: skip
    read = text_of(section_of(page.html, "read"))
    assert "annotators 3: ann1, ann2, ann3" in read
    assert "documents 2: note1, note2" in read  # the brat files' names
    # Label Studio: users and tasks by their ids, as the export writes them, one name a user
    ls = accord.report(accord.read_label_studio(_label_studio_spans(tmp_path)), progress=False)
    read = text_of(section_of(ls.html, "read"))
    assert "annotators 2: 7, bo@example.org" in read
    assert "documents 2: 11, 12" in read
    for table in _headers(section_of(ls.html, "spans")):
        assert len(table) == len(set(table)), table
    # by hand: user 7 marks 3 spans, user 9 4; they share 2 exact ones (DRUG 0-7, DRUG 0-9)
    row = row_values(section_of(ls.html, "spans"), "7")
    assert row[:4] == ["bo@example.org", "3", "4", "2"]


def test_two_rater_section_names_raters_given_by_user_id() -> None:
    export = accord.datasets.path("annotation-tools") / "label_studio.json"
    page = accord.report(accord.read_label_studio(export, field="sentiment"), progress=False)
    section = section_of(page.html, "two-raters")
    assert "Rater 7 and rater 9 agree on 66.7% of 3 items" in text_of(section)
    assert "rows rater 7, columns rater 9" in text_of(section)
    specific = _headers(section)[0]
    assert specific[:4] == ["category", "both rater 7 and rater 9", "rater 7", "rater 9"]
    # names that are not bare numbers stay as written
    birads = accord.report(EXAMPLES / "birads.csv", item="finding", rater="modality",
                           label="birads", level="ordinal", progress=False)  # fmt: skip
    assert "rater " not in text_of(section_of(birads.html, "two-raters")).split(" agree")[0]
