"""Draw the decision figure of docs/which-coefficient.md.

    uv run --no-sync python docs/which_coefficient_figure.py

Writes docs/which-coefficient.svg: a left-to-right tree from what the raters produced to the
statistic to report. Text stays text in the SVG (small, searchable, sharp at any zoom) and the
file is the same bytes on every run (no date, fixed ids).
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

# (x centre, y centre, width, text, colour); x and y in figure units (0..100, 0..66).
ROOT = (9, 33, 15, "What did your\nraters produce?", GREY)

KINDS = {
    "labels": (30, 56.25, 19, "Category labels\n(diagnosis, pass/fail,\nBI-RADS 1-5)", BLUE),
    "measures": (30, 37.75, 19, "Measurements\n(mm, a 1-10 score)", BLUE),
    "panel": (30, 25, 19, "Scores by a panel\n(each rater scores\na few items)", BLUE),
    "confidence": (30, 15.5, 19, "Confidences\n(with right/wrong)", BLUE),
    "spans": (30, 6, 19, "Marked-up text spans", BLUE),
}

QUESTIONS = {
    "two": ("labels", 52, 61, 18, "Two raters,\nevery item by both", GREY),
    "many": ("labels", 52, 51.5, 18, "Three or more raters,\nor ratings missing", GREY),
    "complete": ("measures", 52, 42, 18, "Every rater scored\nevery item", GREY),
    "incomplete": ("measures", 52, 33.5, 18, "Some scores\nmissing", GREY),
}

# (source box, y centre, what to report, the accord function)
ANSWERS = [
    (
        "two",
        61,
        "nominal: Cohen's kappa, informational agreement\nordinal: quadratic-weighted kappa",
        "cohen_kappa, informational_agreement",
    ),
    (
        "many",
        51.5,
        "nominal: Krippendorff's alpha or Fleiss' kappa\nordinal: ordinal alpha or Gwet's AC2",
        "krippendorff_alpha, fleiss_kappa, gwet_ac2",
    ),
    (
        "complete",
        42,
        "ICC(2,1), absolute agreement\n(ICC(1,1) when each item has its own raters)",
        "icc",
    ),
    ("incomplete", 33.5, "Krippendorff's alpha, interval level", "krippendorff_alpha"),
    (
        "panel",
        25,
        "scores with each rater's bias removed,\nwith their uncertainty",
        "calibrate_panel",
    ),
    (
        "confidence",
        15.5,
        "NCE (against a constant guess) and ECE,\nwith a reliability diagram",
        "normalized_cross_entropy, calibration_metrics",
    ),
    ("spans", 6, "span F1 between annotators\n(exact or overlap matching)", "span_agreement"),
]
ANSWER_X, ANSWER_W = 81.5, 35


def box(ax: Axes, x: float, y: float, w: float, text: str, colour: str, code: str = "") -> None:
    lines = text.count("\n") + 1 + (1 if code else 0)
    h = 2.2 * lines + 1.6
    ax.add_patch(
        FancyBboxPatch(
            (x - w / 2, y - h / 2),
            w,
            h,
            boxstyle="round,pad=0.3,rounding_size=0.8",
            facecolor=colour,
            edgecolor=EDGE,
            linewidth=0.8,
        )
    )
    if code:
        ax.text(x, y + 1.1, text, ha="center", va="center", fontsize=9.5, linespacing=1.2)
        ax.text(
            x,
            y - h / 2 + 1.7,
            code,
            ha="center",
            va="center",
            fontsize=8.5,
            family="monospace",
            color="#2b4f7a",
        )
    else:
        ax.text(x, y, text, ha="center", va="center", fontsize=9.5, linespacing=1.2)


def arrow(ax: Axes, start: tuple[float, float], end: tuple[float, float]) -> None:
    ax.annotate(
        "",
        xy=end,
        xytext=start,
        arrowprops={"arrowstyle": "-|>", "color": EDGE, "lw": 0.8, "shrinkA": 0, "shrinkB": 0},
    )


def main(out: Path | None = None) -> None:
    fig, ax = plt.subplots(figsize=(10, 6.0))
    ax.set_xlim(0, 100)
    ax.set_ylim(-2.8, 65.5)
    ax.axis("off")

    rx, ry, rw, rtext, rcol = ROOT
    box(ax, rx, ry, rw, rtext, rcol)
    for x, y, w, text, colour in KINDS.values():
        box(ax, x, y, w, text, colour)
        arrow(ax, (rx + rw / 2 + 0.4, ry), (x - w / 2 - 0.4, y))
    sources: dict[str, tuple[float, float, float]] = {
        name: (x, y, w) for name, (x, y, w, _, _) in KINDS.items()
    }
    for name, (kind, x, y, w, text, colour) in QUESTIONS.items():
        box(ax, x, y, w, text, colour)
        kx, ky, kw = sources[kind]
        arrow(ax, (kx + kw / 2 + 0.4, ky), (x - w / 2 - 0.4, y))
        sources[name] = (x, y, w)
    for source, y, text, code in ANSWERS:
        box(ax, ANSWER_X, y, ANSWER_W, text, GREEN, code)
        sx, sy, sw = sources[source]
        arrow(ax, (sx + sw / 2 + 0.4, sy), (ANSWER_X - ANSWER_W / 2 - 0.4, y))

    ax.text(
        50,
        -0.8,
        "Always report the interval, the numbers of items and raters, and raw agreement "
        "beside the chance-corrected value.\nOne category rare? Add specific agreement "
        "(F1) for each category and Gwet's AC1.",
        ha="center",
        va="center",
        fontsize=8.5,
        style="italic",
        linespacing=1.3,
    )
    fig.subplots_adjust(left=0.01, right=0.99, top=0.99, bottom=0.01)
    out = out or Path(__file__).with_name("which-coefficient.svg")
    fig.savefig(out, metadata={"Date": None})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
