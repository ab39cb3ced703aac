"""The rater-model section (categories, three raters or more): which label each item probably
has and what each rater is worth, read off the Dawid-Skene model (:func:`accord.rater_model`),
with the agreement the fitted model implies beside the agreement observed."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pandas as pd

from ..._validate import counted
from ..._verdict import shown_label
from ...data.order import lexsort_head
from ...truth.model import MAX_INFORMATION_PARAMETERS
from .. import figures
from .._blocks import (
    Block,
    Column,
    Figure,
    KeyFigure,
    KeyFigures,
    MethodNote,
    Note,
    Section,
    Table,
    Tone,
    fmt,
    fmt_ci,
    fmt_int,
    fmt_pct,
)
from .._context import Context
from .common import REF

__all__ = [
    "BOOTSTRAP_BUDGET",
    "PASSES_BEYOND",
    "build_rater_model",
    "fitted_rater_model",
    "rater_model_options",
]

#: Raters shown in the figure and the table.
LIMIT = 40
#: Uncertain items listed.
TOP = 10
#: An item's label is sure when its posterior probability reaches this.
SURE = 0.95

TITLE = "Which label does each item probably have?"

_PCT = functools.partial(fmt_pct, digits=0)

#: Ratings times resamples up to which the section bootstraps the model (a few seconds:
#: each resample is an EM run over the ratings). Beyond, the accuracies' intervals come
#: from the observed information, which large samples suit (the likelihood is then close
#: to its quadratic approximation), and the other intervals are left out.
BOOTSTRAP_BUDGET = 2_000_000


#: Ratings beyond which the section, on the stream or dask engine, fits the model in passes
#: of the engine over the ratings (each EM step one pass; memory O(items x classes)) and
#: shows no interval: the bootstrap and the observed information need the ratings in memory.
PASSES_BEYOND = 2_000_000


def rater_model_options(ctx: Context) -> dict[str, Any]:
    """The options of :func:`accord.rater_model` the section fits with: the report's
    resamples, seed and level (and gold labels); ``interval="observed-information"`` and no
    resample when the ratings times the resamples exceed :data:`BOOTSTRAP_BUDGET`, no
    interval when the model has more parameters than the information can hold
    (:data:`~accord.truth.model.MAX_INFORMATION_PARAMETERS`); neither on the stream or dask
    engine beyond :data:`PASSES_BEYOND` ratings (EM in passes)."""
    n_ratings = ctx.read_report.ratings
    n_boot = ctx.n_boot if n_ratings * ctx.n_boot <= BOOTSTRAP_BUDGET else 0
    passes = ctx.engine != "memory" and n_ratings > PASSES_BEYOND
    q = len(ctx.label_categories)
    informed = ctx.n_raters * q * (q - 1) + q - 1 <= MAX_INFORMATION_PARAMETERS
    options: dict[str, Any] = {
        "model": "dawid-skene",
        "n_bootstrap": 0 if passes else n_boot,
        "interval": "bootstrap" if n_boot or passes or not informed else "observed-information",
        "level": ctx.confidence_level,
        "rng": ctx.seed,
    }
    if ctx.gold_labels is not None:
        options["gold"] = ctx.gold_labels
    return options


def fitted_rater_model(ctx: Context) -> Any:
    """:func:`accord.rater_model` on the report's data with :func:`rater_model_options`,
    computed once."""
    from ...front.truth import rater_model

    return ctx.cached("rater-model", lambda: rater_model(ctx.data, **rater_model_options(ctx)))


def build_rater_model(ctx: Context) -> Section | None:
    """Each item's probable label and each rater's quality under the Dawid-Skene model
    (single labels in categories, three raters or more)."""
    if not ctx.has_labels or ctx.numeric or ctx.multi_label or ctx.n_raters < 3:
        return None
    if len(ctx.label_categories) < 2:
        return None
    fit = fitted_rater_model(ctx)
    raters = fit.raters[fit.raters["n_ratings"] > 0]  # missing labels only: no accuracy to show
    raters = raters.sort_values(["accuracy", "rater"], ascending=[False, True], kind="stable")
    items = _uncertain_items(fit)
    half = LIMIT // 2  # many raters: the most and the least accurate
    shown = raters if len(raters) <= LIMIT else pd.concat([raters.head(half), raters.tail(half)])
    blocks: list[Block] = [
        KeyFigures(_key_figures(ctx, fit)),
        _accuracy_figure(ctx, fit, shown),
        _raters_table(ctx, fit, shown),
        _items_table(ctx, fit, items),
    ]
    if len(raters) > LIMIT:
        many = (
            f"Showing the {half} most and the {half} least accurate of {fmt_int(len(raters))} "
            "raters."
        )
        blocks.insert(2, Note(many))
    if fit.n_ratings < FEW_RATINGS * _parameters(fit):
        blocks.insert(0, Note(
            f"The model fits {fmt_int(_parameters(fit))} parameters (a confusion matrix per "
            f"rater) to {fmt_int(fit.n_ratings)} ratings: its posteriors read surer than the "
            "data warrant."
            + (" Read the intervals, which refit the model on resamples of the items."
               if fit.n_bootstrap else ""), "fair"))  # fmt: skip
    if fit.interval == "observed-information" and ctx.n_boot:
        blocks.insert(0, Note(
            f"The accuracies' intervals come from the observed information of the model: a "
            f"bootstrap of {fmt_int(fit.n_ratings)} ratings with {fmt_int(ctx.n_boot)} "
            "resamples would take long here, and the other intervals are left out. "
            "accord.rater_model(..., n_bootstrap=...) runs it."))  # fmt: skip
    from ...front.truth import in_passes

    passes = in_passes(rater_model_options(ctx)) and ctx.engine != "memory"
    if passes:
        blocks.insert(0, Note(
            f"The model is fitted in passes of the {ctx.engine} engine over the "
            f"{fmt_int(fit.n_ratings)} ratings (each EM step one pass), without intervals: "
            "the bootstrap and the observed information need the ratings in memory."))  # fmt: skip
    elif fit.interval == "bootstrap" and not fit.n_bootstrap and ctx.n_boot:
        blocks.insert(0, Note(
            f"The accuracies have no interval here: a bootstrap of {fmt_int(fit.n_ratings)} "
            f"ratings with {fmt_int(ctx.n_boot)} resamples would take long, and the observed "
            f"information of {fmt_int(_parameters(fit))} parameters is more than the "
            f"{fmt_int(MAX_INFORMATION_PARAMETERS)} it is formed for. "
            "accord.rater_model(..., n_bootstrap=...) runs the bootstrap."))  # fmt: skip
    if not fit.converged:
        blocks.insert(0, Note(f"EM stopped at its limit of {fit.n_iter} iterations.", "poor"))
    lead = _lead(ctx, fit, raters)
    return Section("rater-model", TITLE, lead, tuple(blocks), (_note(fit),), nav="Probable labels")


def _sure(fit: Any) -> tuple[int, int, int]:
    """Items (gold ones left out) whose most probable label has posterior >= SURE, those
    whose interval's lower end reaches it too, and all."""
    free = fit.items[fit.items["gold"].isna()]
    low = free["probability_low"].to_numpy(dtype=np.float64)
    return int((free["probability"] >= SURE).sum()), int((low >= SURE).sum()), len(free)


#: Ratings per parameter below which the lead says the model's posteriors read surer than
#: the data warrant.
FEW_RATINGS = 5


def _parameters(fit: Any) -> int:
    """Free parameters of the Dawid-Skene model: ``q - 1`` per confusion row, ``q - 1`` for
    the prevalence."""
    q = len(fit.categories)
    return int(fit.n_raters * q * (q - 1) + q - 1)


def _lead(ctx: Context, fit: Any, raters: pd.DataFrame) -> str:
    sure, sure_low, n = _sure(fit)
    rated = raters[raters["n_ratings"] > 0]
    best, worst = rated.iloc[0], rated.iloc[-1]

    def acc(row: Any) -> str:  # "12% (rater 1076)": a rater's name may be a number
        ci = fmt_ci(row["accuracy_low"], row["accuracy_high"], 2)
        return f"{_PCT(row['accuracy'])} (rater {row['rater']}" + (
            f", {ctx.level_pct} CI {ci})" if ci != "\u2013" else ")"
        )

    rel = fit.reliability
    return (
        f"Under the Dawid-Skene model (each rater a confusion matrix, each item's true label "
        f"unknown), {fmt_int(sure)} of {counted(n, 'item')} {'has' if n == 1 else 'have'} a label "
        f"with probability at "
        f"least {fmt(SURE, 2)}"
        + (
            f" ({fmt_int(sure_low)} when the lower end of its {ctx.level_pct} interval must "
            "reach it too)"
            if fit.n_bootstrap
            else ""
        )
        + f". The raters' accuracy, the expected share of their labels that "
        f"are right, runs from {acc(worst)} to {acc(best)}. The fitted confusion matrices "
        f"imply a pairwise kappa of {fmt(rel.expected_pairwise_kappa)} beside the observed "
        f"Fleiss' kappa of {fmt(rel.observed_fleiss_kappa)}: the agreement a panel of these "
        "raters would reach on items like these."
    )


def _key_figures(ctx: Context, fit: Any) -> tuple[KeyFigure, ...]:
    rel = fit.reliability
    sure, _, n = _sure(fit)
    interval = fmt_ci(rel.expected_pairwise_low, rel.expected_pairwise_high)
    return (
        KeyFigure(
            "items with a sure label",
            f"{fmt_int(sure)} of {fmt_int(n)}",
            f"posterior probability >= {fmt(SURE, 2)}",
        ),
        KeyFigure(
            "model-implied pairwise kappa",
            fmt(rel.expected_pairwise_kappa),
            f"{ctx.level_pct} CI {interval}" if interval != "\u2013" else "no interval",
        ),
        KeyFigure("observed Fleiss' kappa", fmt(rel.observed_fleiss_kappa), "of the ratings"),
        KeyFigure("kappa with the latent truth", fmt(rel.kappa_truth), "mean over the raters"),
    )


def _accuracy_figure(ctx: Context, fit: Any, shown: pd.DataFrame) -> Figure:
    svg = figures.forest_plot(
        "rater-model-accuracy",
        [str(r) for r in shown["rater"]],
        shown["accuracy"].tolist(),
        shown["accuracy_low"].tolist(),
        shown["accuracy_high"].tolist(),
        xlabel="accuracy under the Dawid-Skene model"
        + (f" ({ctx.level_pct} interval)" if _interval_words(ctx, fit) else ""),
        benchmarks=False,
    )
    return Figure(
        svg,
        "Each rater's accuracy (the expected share of the rater's labels that are right)"
        + _interval_words(ctx, fit)
        + ", most accurate at the top.",
        "Rater accuracy under the Dawid-Skene model",
    )


def _interval_words(ctx: Context, fit: Any) -> str:
    if fit.interval == "observed-information":
        return f" with its {ctx.level_pct} observed-information interval"
    return f" with its {ctx.level_pct} bootstrap interval" if fit.n_bootstrap else ""


def _ci(header: str, low: str, high: str, rows: pd.DataFrame) -> tuple[Column, ...]:
    """The interval column of ``low`` and ``high``, or none when no row shown has one (the
    section's note says why: a column of dashes says nothing)."""
    if not np.isfinite(rows[low].to_numpy(dtype=np.float64)).any():
        return ()
    return (Column(header, lambda r: fmt_ci(r[low], r[high], 2), str),)


def _raters_table(ctx: Context, fit: Any, shown: pd.DataFrame) -> Table:
    columns: tuple[Column, ...] = (
        Column.name("rater", "rater"),
        Column("ratings", "n_ratings", fmt_int),
        Column("accuracy", "accuracy"),
        *_ci(f"{ctx.level_pct} CI", "accuracy_low", "accuracy_high", shown),
        Column("kappa with truth", "kappa_truth"),
        *_ci(f"{ctx.level_pct} CI ", "kappa_truth_low", "kappa_truth_high", shown),
        Column("spammer score", "spammer_score"),
    )
    if "gold_accuracy" in shown:
        columns += (
            Column("gold ratings", "gold_n", fmt_int),
            Column("accuracy on gold", "gold_accuracy"),
        )
    tones: tuple[Tone, ...] = tuple(
        "poor" if s < 0.1 else "neutral" for s in shown["spammer_score"]
    )
    return Table.of(
        columns,
        shown.to_dict(orient="records"),
        caption="Accuracy: the expected share of the rater's labels that are right, under the "
        "fitted model. Kappa with truth: Cohen's kappa of the rater with the latent label, "
        "from the rater's confusion matrix and the label shares. Spammer score (Raykar & Yu "
        "2012): 0 for a rater whose labels ignore the true label, 1 for a perfect one (a "
        "highlighted row is below 0.1)."
        + (
            f" Gold: the rater's labels of the items with a label in column {ctx.gold}, which "
            "also anchor the model."
            if "gold_accuracy" in shown
            else ""
        ),
        row_tones=tones,
    )


def _uncertain_items(fit: Any) -> pd.DataFrame:
    """The TOP items (gold ones left out) whose label is least certain: the lowest lower end
    of the interval of the label's probability first (the resamples on which the label
    changes), then the highest entropy of the posterior; with the expected gain of one more
    label from the review table."""
    free = fit.items[fit.items["gold"].isna()]
    # pandas' stable sort on both keys (NaN last), as one sort of their ranks
    low, entropy = (free[c].to_numpy(dtype=np.float64) for c in ("probability_low", "entropy"))
    top = free.iloc[lexsort_head((np.negative(entropy), low), TOP)]
    review = fit.review[fit.review["item"].isin(top["item"])]  # the listed items' rows
    gain = dict(zip(review["item"], review["expected_reduction"], strict=True))
    out: pd.DataFrame = top.assign(expected_reduction=[gain.get(i, np.nan) for i in top["item"]])
    return out


def _items_table(ctx: Context, fit: Any, items: pd.DataFrame) -> Table:
    def second(r: Any) -> str:
        shares = [(r[f"p_{c}"], k) for k, c in enumerate(fit.categories)]
        shares.sort(key=lambda s: -s[0])
        p, k = shares[1]
        return f"{shown_label(fit.categories[k])} ({fmt(p, 2)})"

    return Table.of(
        (
            Column.name("item", "item"),
            Column.text("probable label", lambda r: shown_label(r["label"])),
            Column("probability", "probability"),
            *_ci(f"{ctx.level_pct} CI", "probability_low", "probability_high", items),
            Column.text("next most probable", second),
            Column("entropy (bits)", "entropy"),
            Column("gain of one more label (bits)", "expected_reduction"),
        ),
        items.to_dict(orient="records"),
        caption=(
            "The item whose label is least certain under the model: the "
            if len(items) == 1
            else f"The {len(items)} items whose label is least certain under the model: the "
        )
        + "lowest lower end of the interval of the label's probability first, then the "
        "highest entropy of the posterior. Gain: the expected fall of the entropy from one "
        "more label by the panel's average rater.",
    )


def _note(fit: Any) -> MethodNote:
    boot = (
        f" Intervals: percentiles of {fmt_int(fit.n_bootstrap)} bootstrap resamples of the "
        "items, each refitted by EM from the fit."
        if fit.n_bootstrap
        else " Intervals of the accuracies: Wald intervals from the observed information of "
        "the likelihood (Louis's formula) by the delta method."
        if fit.interval == "observed-information"
        else ""
    )
    gold = (
        f" {fmt_int(fit.n_gold)} items with a gold label clamp their posteriors."
        if fit.n_gold
        else ""
    )
    return MethodNote(
        "Rater model (Dawid-Skene)",
        f"Dawid & Skene's latent class model fitted by EM from majority vote ({fit.method}); "
        f"{fit.n_iter} iterations." + gold + boot + " Accuracy: the expected share of a "
        "rater's labels that are right; spammer score after Raykar & Yu; the model-implied "
        "kappas from the fitted confusion matrices and label shares.",
        (
            REF["ds1979"],
            REF["raykar2012"],
            *((REF["louis1982"],) if fit.interval == "observed-information" else ()),
        ),
    )
