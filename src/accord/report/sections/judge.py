"""Can the judge replace a rater? The alternative annotator test's verdict first, then the
judge beside the humans: pairwise kappas, the panel with the judge in each seat, and the
judge's labels against the humans' majority."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._validate import counted
from ..._verdict import kappa_name
from .. import figures
from .._blocks import (
    Block,
    Column,
    Details,
    Figure,
    KeyFigure,
    KeyFigures,
    MethodNote,
    Note,
    Paragraph,
    Section,
    Table,
    fmt,
    fmt_ci,
    fmt_int,
    fmt_p,
    fmt_pct,
)
from .._context import Context
from .common import CITES, REF

__all__ = ["build_judge"]

TITLE = "Can the judge replace a rater?"

CALDERON2025 = (
    "Calderon, N., Reichart, R., & Dror, R. (2025). The Alternative Annotator Test for "
    "LLM-as-a-Judge: How to Statistically Justify Replacing Human Annotators with LLMs. "
    "Proc. ACL 2025, 16051-16081. arXiv:2501.10970"
)
BY2001 = (
    "Benjamini, Y., & Yekutieli, D. (2001). The control of the false discovery rate in "
    "multiple testing under dependency. Annals of Statistics, 29(4), 1165-1188. "
    "https://doi.org/10.1214/aos/1013699998"
)
STUART1955 = (
    "Stuart, A. (1955). A test for homogeneity of the marginal distributions in a two-way "
    "classification. Biometrika, 42(3/4), 412-416. https://doi.org/10.2307/2333387"
)


def build_judge(ctx: Context) -> Section | None:
    """The judge section: present when the report was given a judge."""
    if ctx.judge is None or not ctx.has_labels:
        return None
    ratings = ctx.ratings
    if ratings is None:
        return ctx.unavailable("judge", TITLE)
    from ...judges import alt_test, human_panel, judge_agreement

    judges = list(ctx.judge) if isinstance(ctx.judge, list | tuple) else [ctx.judge]
    judge, epsilon = judges[0], float(ctx.epsilon if ctx.epsilon is not None else 0.0)
    humans = human_panel(ratings, judges, ctx.humans)
    test = ctx.cached("alt_test", lambda: alt_test(ratings, judge, epsilon=epsilon, humans=humans))
    beside = ctx.cached(
        "judge_agreement",
        lambda: judge_agreement(
            ratings,
            judge,
            humans=humans,
            confidence_level=ctx.confidence_level,
            n_boot=ctx.n_boot,
            rng=ctx.seed,
            gold=ctx.gold_labels,
        ),
    )
    blocks: list[Block] = [
        KeyFigures(_key_figures(ctx, test, beside)),
        _verdict_note(test),
        _human_table(test, beside),
        *_reference_blocks(beside.consensus, "the humans' majority label", beside.weights),
    ]
    if beside.gold is not None:
        blocks += _reference_blocks(beside.gold, "the gold labels", beside.weights)
    blocks.append(Details("Every pair of raters", (_pairs_table(ctx, beside),)))
    lead = _lead(test, beside, humans, named=ctx.humans is not None)
    return Section("judge", TITLE, lead, tuple(blocks), _methods(ctx, test, beside), nav="Judge")


def _lead(test: Any, beside: Any, humans: list[Any], *, named: bool) -> str:
    verdict = "passes" if test.passed else "does not pass"
    kappa = kappa_name(beside.weights)
    panel = "humans tested" if named else "raters tested as its humans"
    caveat = (
        ""
        if named
        else " Every rater not named as a judge counts as a human here: if one of them is "
        "a model, name the humans (or that model as another judge)."
    )
    head = (
        f"{test.judge} {verdict} the alternative annotator test at epsilon = {test.epsilon:g} "
        f"(wins against {int(test.humans['rejected'].sum())} of {test.n_humans} {panel}: "
        f"{', '.join(map(str, humans))})"
    )
    if not test.n_humans:  # every human left out: no verdict to read, say why
        head = (
            f"{test.judge} could not be put to the alternative annotator test at epsilon = "
            f"{test.epsilon:g}: no human could be tested ({_untested(test)})"
        )
    return (
        f"{head}. Its mean {kappa} with the humans is "
        f"{fmt(beside.judge_human)}, against {fmt(beside.human_human)} among the humans "
        f"themselves.{caveat}"
    )


def _untested(test: Any) -> str:
    """Why each human was left out of the test, e.g. ``"h1: 12 items, fewer than ..."``."""
    rows = test.humans[~test.humans["tested"].astype(bool)]
    return "; ".join(f"{h}: {why}" for h, why in zip(rows["human"], rows["reason"], strict=True))


def _key_figures(ctx: Context, test: Any, beside: Any) -> tuple[KeyFigure, ...]:
    diff = beside.difference_interval
    jh, hh = beside.judge_human_interval, beside.human_human_interval
    return (
        KeyFigure(
            "Verdict",
            "passes" if test.passed else "fails" if test.n_humans else "not tested",
            f"winning rate {fmt_pct(test.winning_rate, 0)} (needs 50%), epsilon {test.epsilon:g}",
            "good" if test.passed else "poor" if test.n_humans else "neutral",
        ),
        KeyFigure(
            "Advantage probability",
            fmt(test.advantage_probability),
            "share of items where the judge represents the others at least as well",
        ),
        KeyFigure(
            "Judge with humans",
            fmt(beside.judge_human),
            f"mean {kappa_name(beside.weights)}, {ctx.ci_text(jh.low, jh.high)}",
        ),
        KeyFigure(
            "Humans with humans",
            fmt(beside.human_human),
            f"mean {kappa_name(beside.weights)}, {ctx.ci_text(hh.low, hh.high)}",
        ),
        KeyFigure(
            "Difference",
            fmt(beside.difference),
            f"judge minus humans, {ctx.ci_text(diff.low, diff.high)}",
            "poor" if diff.high < 0 else "good" if diff.low >= 0 else "neutral",
        ),
    )


def _verdict_note(test: Any) -> Block:
    untested = test.humans[~test.humans["tested"]]
    text = (
        f"The judge is compared with each human in turn on the items that human rated: who "
        f"matches the remaining humans better? It wins against a human when the human is "
        f"better no more than {test.epsilon:g} of the time beyond the judge (one-sided "
        f"{'t' if test.test == 't' else 'signed-rank'} test, Benjamini-Yekutieli at q = "
        f"{test.q:g}); it passes when it wins against at least half of the humans."
    )
    if len(untested):
        text += (
            f" {counted(len(untested), 'human')} rated too few items to be tested: "
            + ", ".join(
                f"{h} ({r})" for h, r in zip(untested["human"], untested["reason"], strict=True)
            )
            + "."
        )
    return Note(text, "good" if test.passed else "poor" if test.n_humans else "neutral")


def _human_table(test: Any, beside: Any) -> Table:
    alt = test.humans.set_index("human")
    kappa = kappa_name(beside.weights)

    def own(field: str) -> Callable[[Any], Any]:  # from the judge's comparison with the human
        return lambda row: getattr(row[0], field)

    def tested(field: str) -> Callable[[Any], Any]:  # from the alternative annotator test
        return lambda row: math.nan if row[1] is None else row[1][field]

    def wins(row: Any) -> str:
        a = row[1]
        return ("yes" if a["rejected"] else "no") if a is not None and a["tested"] else "\u2013"

    return Table.of(
        (
            Column.name("human", own("human")),
            Column("items", own("n_items"), fmt_int),
            Column("kappa with judge", own("judge_kappa")),
            Column("CI", lambda row: fmt_ci(row[0].judge_ci_low, row[0].judge_ci_high), str),
            Column("mean kappa with humans", own("human_kappa")),
            Column("judge at least as good", tested("judge_wins")),
            Column("human at least as good", tested("human_wins")),
            Column("p", tested("pvalue"), fmt_p),
            Column.text("judge wins", wins),
            Column("alpha change", own("alpha_change")),
            Column(
                "CI", lambda row: fmt_ci(row[0].alpha_change_low, row[0].alpha_change_high), str
            ),
        ),
        (
            (r, alt.loc[r.human] if r.human in alt.index else None)
            for r in beside.humans.itertuples(index=False)
        ),
        f"Per human: the judge's {kappa} with them, their own mean {kappa} with the other "
        "humans, the alternative annotator test (shares of items where each represents the "
        "remaining humans at least as well; p one-sided, before the correction; 'judge "
        "wins' after Benjamini-Yekutieli), and the change in the panel's Krippendorff alpha "
        "when the judge takes their seat.",
    )


def _reference_blocks(ref: Any, words: str, weights: str) -> list[Block]:
    cats = [str(c) for c in ref.confusion.index]
    counts = ref.confusion.to_numpy(dtype=np.float64)
    hom = ref.homogeneity
    test_words = "McNemar" if str(hom.method).startswith("mcnemar") else "Stuart-Maxwell"
    if hom.reason:
        over = f"The {test_words} test of marginal homogeneity is undefined: {hom.reason}."
    else:
        used = hom.differences
        most = used.idxmax() if float(used.max()) > 0 else None
        over = (
            f"{test_words} test that the judge gives each label as often as {words}: "
            f"chi-square {fmt(hom.statistic)} on {hom.df} df, p {fmt_p(hom.pvalue)}"
            + (
                f"; the judge gives '{most}' {int(used.max())} times more."
                if most is not None
                else "."
            )
        )
    left = f" ({fmt_int(ref.n_left_out)} items left out: {ref.note})" if ref.n_left_out else ""
    return [
        Paragraph(
            f"Against {words}: accuracy {fmt_pct(ref.accuracy)} on {fmt_int(ref.n_items)} "
            f"items{left}, {kappa_name(weights)} {fmt(ref.kappa)}. {over}"
        ),
        Figure(
            figures.heatmap(
                f"judge-{ref.reference}",
                counts,
                cats,
                cats,
                vmin=0.0,
                vmax=max(float(np.nanmax(counts)) if counts.size else 0.0, 1.0),
                cmap="Blues",
                colorbar_label="items",
                xlabel="judge",
                ylabel=ref.reference,
                integer=True,
            ),
            f"Confusion matrix: {words} (rows) against the judge's label (columns).",
            f"Confusion matrix of the judge against {words}",
        ),
    ]


def _pairs_table(ctx: Context, beside: Any) -> Table:
    return Table.of(
        (
            Column.name("rater", "rater_a"),
            Column.name("rater", "rater_b"),
            Column.text("pair", "kind"),
            Column("items", "n_items", fmt_int),
            Column("kappa", "kappa"),
            Column(f"{ctx.level_pct} CI", lambda r: fmt_ci(r.ci_low, r.ci_high), str),
        ),
        beside.pairs.itertuples(index=False),
        f"{kappa_name(beside.weights)} of every pair on the items both rated (t interval, "
        "Fleiss, Cohen & Everitt SE).",
    )


def _methods(ctx: Context, test: Any, beside: Any) -> tuple[MethodNote, ...]:
    return (
        MethodNote(
            "Alternative annotator test",
            f"{test.method}; accord.alt_test with epsilon = {test.epsilon:g}.",
            (CALDERON2025, BY2001),
        ),
        MethodNote(
            "Judge beside the humans",
            f"{beside.method}; accord.judge_agreement, {beside.n_boot} bootstrap replicates "
            f"seeded with {ctx.seed}; {fmt_int(beside.n_items)} items "
            f"({fmt_int(beside.n_items_left_out)} left out).",
            (
                *(REF[k] for k in CITES["cohen_kappa"]),
                REF["light1971"],
                REF["kripp2004"],
                STUART1955,
            ),
        ),
    )
