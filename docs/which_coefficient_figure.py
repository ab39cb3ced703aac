"""Draw the decision figure of docs/which-coefficient.md.

    uv run --no-sync python docs/which_coefficient_figure.py

Writes docs/which-coefficient.svg: a tree read top to bottom, from what the raters produced
(blue) to the statistic to report and the accord function that computes it (green). The
figure is narrow and tall so that its text stays readable where it is shown: at least 12 CSS
px on a phone (390 px wide, the figure shrunk to the column) and about 16 px on a desktop (the
figure at its natural width). ``TEXT_PT`` and ``CODE_PT`` are the font sizes in the SVG's
units; the docs browser test reads them back from the file and measures the rendered size.
Text stays text in the SVG (searchable, sharp at any zoom) and the file is the same bytes on
every run (no date, fixed ids).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"
matplotlib.rcParams["svg.hashsalt"] = "which-coefficient"
matplotlib.rcParams["font.family"] = "sans-serif"

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

BLUE = "#dbe8f6"
GREY = "#f1f1f1"
GREEN = "#dff0dd"
EDGE = "#4a5a6a"
CODE = "#2b4f7a"

#: The figure's width in points (the SVG's viewBox units); its height follows the text.
WIDTH = 340.0
#: Font sizes in points: prose, and the accord function names (monospace).
TEXT_PT, CODE_PT = 12.5, 11.5
LINE = 1.3  # line height, in font sizes
PAD = 6.0  # inner padding of a box
GAP = 7.0  # between boxes
KIND_X, ANSWER_X = 14.0, 34.0  # left edges: what the raters produced, what to report

ROOT = "What did your raters produce?"

#: What the raters produced, and for each case: the condition (bold, empty when there is
#: one case), what to report, and the accord functions.
TREE: list[tuple[str, list[tuple[str, list[str], list[str]]]]] = [
    (
        "Category labels\n(diagnosis, pass/fail, BI-RADS 1-5)",
        [
            (
                "Two raters, every item by both",
                ["nominal: Cohen's kappa,", "informational agreement",
                 "ordinal: quadratic-weighted kappa"],
                ["cohen_kappa,", "informational_agreement"],
            ),
            (
                "Three or more raters, or ratings missing",
                ["nominal: Krippendorff's alpha", "or Fleiss' kappa",
                 "ordinal: ordinal alpha or Gwet's AC2"],
                ["krippendorff_alpha, fleiss_kappa,", "gwet_ac2"],
            ),
        ],
    ),
    (
        "Measurements (mm, a 1-10 score)",
        [
            (
                "Every rater scored every item",
                ["ICC(2,1), absolute agreement", "(ICC(1,1) when each item has",
                 "its own raters)"],
                ["icc"],
            ),
            ("Some scores missing", ["Krippendorff's alpha, interval level"],
             ["krippendorff_alpha"]),
        ],
    ),
    (
        "Scores by a panel\n(each rater scores a few items)",
        [("", ["scores with each rater's bias", "removed, with their uncertainty"],
          ["calibrate_panel"])],
    ),
    (
        "Confidences (with right/wrong)",
        [("", ["NCE (against a constant guess)", "and ECE, with a reliability diagram"],
          ["normalized_cross_entropy,", "calibration_metrics"])],
    ),
    (
        "Marked-up text spans",
        [("", ["span F1 between annotators", "(exact or overlap matching)"],
          ["span_agreement"])],
    ),
]  # fmt: skip

ADVICE = [
    "Always report the interval, the numbers",
    "of items and raters, and raw agreement",
    "beside the chance-corrected value.",
    "One category rare? Add specific agreement",
    "(F1) for each category and Gwet's AC1.",
]


def _lines_height(n_text: int, n_code: int) -> float:
    return LINE * (TEXT_PT * n_text + CODE_PT * n_code)


def _box(ax: Axes, left: float, top: float, height: float, colour: str) -> None:
    ax.add_patch(
        FancyBboxPatch(
            (left, top - height),
            WIDTH - 2.0 - left,
            height,
            boxstyle="round,pad=0,rounding_size=4",
            facecolor=colour,
            edgecolor=EDGE,
            linewidth=0.8,
        )
    )


def _write(
    ax: Axes, left: float, top: float, lines: list[str], size: float, **style: object
) -> float:
    """``lines`` from ``top`` down at ``left``; the y below them."""
    for line in lines:
        top -= LINE * size
        ax.text(left, top + 0.3 * size, line, fontsize=size, va="baseline", **style)  # type: ignore[arg-type]
    return top


def _branch(ax: Axes, x: float, y_from: float, y_to: float, x_to: float) -> None:
    """The tree's line: down from ``y_from`` at ``x``, then right to ``x_to`` at ``y_to``."""
    ax.plot([x, x, x_to], [y_from, y_to, y_to], color=EDGE, lw=0.9, solid_joinstyle="miter")


def _layout(ax: Axes) -> float:
    """Draw the tree from the top (y = 0, growing downwards as negatives); its bottom."""
    root_h = _lines_height(1, 0) + 2 * PAD
    _box(ax, 2.0, 0.0, root_h, GREY)
    _write(ax, 2.0 + PAD, -PAD, [ROOT], TEXT_PT, weight="bold")
    y = -root_h - GAP
    root_stem = (KIND_X - 7.0, -root_h)
    for kind, cases in TREE:
        kind_lines = kind.split("\n")
        kind_h = _lines_height(len(kind_lines), 0) + 2 * PAD
        _box(ax, KIND_X, y, kind_h, BLUE)
        _write(ax, KIND_X + PAD, y - PAD, kind_lines, TEXT_PT)
        _branch(ax, root_stem[0], root_stem[1], y - kind_h / 2, KIND_X)
        stem = (ANSWER_X - 7.0, y - kind_h)
        y -= kind_h + GAP
        for condition, answer, code in cases:
            n_text = len(answer) + (1 if condition else 0)
            h = _lines_height(n_text, len(code)) + 2 * PAD + 3.0
            _box(ax, ANSWER_X, y, h, GREEN)
            below = y - PAD
            if condition:
                below = _write(ax, ANSWER_X + PAD, below, [condition], TEXT_PT, weight="bold")
            below = _write(ax, ANSWER_X + PAD, below, answer, TEXT_PT)
            _write(ax, ANSWER_X + PAD, below - 3.0, code, CODE_PT, family="monospace",
                   color=CODE)  # fmt: skip
            _branch(ax, stem[0], stem[1], y - h / 2, ANSWER_X)
            y -= h + GAP
    return _write(ax, 4.0, y - 2.0, ADVICE, TEXT_PT, style="italic") - PAD


def _check_fit(fig: plt.Figure, ax: Axes) -> None:
    """Every line inside the figure's width (the boxes end 2 pt before it)."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    right = ax.transData.transform((WIDTH - 2.0 - PAD / 2, 0))[0]
    for text in ax.texts:
        extent = text.get_window_extent(renderer)
        if extent.x1 > right:
            raise SystemExit(f"too wide for the figure: {text.get_text()!r}")


def main(out: Path | None = None) -> None:
    """Draw the figure at ``WIDTH`` points wide and as tall as the tree."""
    probe = plt.figure()
    bottom = _layout(probe.add_axes((0, 0, 1, 1)))
    plt.close(probe)
    height = -bottom
    fig = plt.figure(figsize=(WIDTH / 72, height / 72))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, WIDTH)
    ax.set_ylim(-height, 0)
    ax.axis("off")
    _layout(ax)
    _check_fit(fig, ax)
    out = out or Path(__file__).with_name("which-coefficient.svg")
    fig.savefig(out, metadata={"Date": None})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
