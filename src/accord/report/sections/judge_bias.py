"""Is the judge biased? From a pairwise log: position consistency, the first-position win
rate and McNemar's test on the swapped pairs, and the win rate of the longer answer."""

from __future__ import annotations

from typing import Any

from .._blocks import (
    Block,
    Column,
    MethodNote,
    Note,
    Section,
    Table,
    fmt_ci,
    fmt_int,
    fmt_p,
    fmt_pct,
)
from .._context import Context

__all__ = ["build_judge_bias"]

TITLE = "Is the judge biased?"

ZHENG2023 = (
    "Zheng, L., Chiang, W.-L., Sheng, Y., et al. (2023). Judging LLM-as-a-judge with MT-Bench "
    "and Chatbot Arena. NeurIPS 2023 Datasets and Benchmarks. arXiv:2306.05685"
)
CLOPPER1934 = (
    "Clopper, C. J., & Pearson, E. S. (1934). The use of confidence or fiducial limits "
    "illustrated in the case of the binomial. Biometrika, 26(4), 404-413. "
    "https://doi.org/10.1093/biomet/26.4.404"
)
MCNEMAR1947 = (
    "McNemar, Q. (1947). Note on the sampling error of the difference between correlated "
    "proportions or percentages. Psychometrika, 12(2), 153-157. "
    "https://doi.org/10.1007/BF02295996"
)


def _ci(low: str, high: str) -> Any:
    return lambda row: fmt_ci(row[low], row[high])


def build_judge_bias(ctx: Context) -> Section | None:
    """The bias section: present when the report was given a pairwise judge log."""
    log = ctx.pairwise
    if log is None:
        return None
    from ...judges.bias import length_bias, position_bias
    from ...judges.preferences import pairwise_preference_agreement

    position = position_bias(log, confidence_level=ctx.confidence_level)
    agreement = pairwise_preference_agreement(
        log, confidence_level=ctx.confidence_level, n_boot=ctx.n_boot, rng=ctx.seed
    )
    table = position.table.merge(
        agreement.judges[["judge", "position_consistency"]], on="judge", how="left"
    )
    blocks: list[Block] = [
        Table.of(
            (
                Column.name("judge", "judge"),
                Column("decisive", "n_decisive", fmt_int),
                Column("first wins", "first_win_rate"),
                Column("interval", _ci("first_win_rate_ci_low", "first_win_rate_ci_high"), str),
                Column("p", "first_win_rate_pvalue", fmt_p),
                Column("position consistency", "position_consistency"),
                Column("first both times", "favours_first", fmt_int),
                Column("second both times", "favours_second", fmt_int),
                Column("McNemar p", "mcnemar_pvalue", fmt_p),
            ),
            table.to_dict(orient="records"),
            "Decisive: judgments that are not a tie. First wins: their share preferring the "
            "answer shown first (exact interval, binomial test of 1/2). Of the pairs judged in "
            "both orders whose verdict flipped, those that preferred the first (second) "
            "position both times; McNemar's exact test compares them.",
        )
    ]
    methods = [MethodNote("Position bias", position.method, (ZHENG2023, CLOPPER1934, MCNEMAR1947))]
    if {"length_a", "length_b"} <= set(log.columns):
        length = length_bias(log, confidence_level=ctx.confidence_level)
        blocks.append(_length_table(length.table))
        methods.append(MethodNote("Length bias", length.method, (CLOPPER1934, MCNEMAR1947)))
    else:
        blocks.append(Note("The log has no length_a and length_b columns: no length test."))
    return Section("judge-bias", TITLE, _lead(table), tuple(blocks), tuple(methods),
                   nav="Judge bias")  # fmt: skip


def _length_table(frame: Any) -> Table:
    from ...judges.bias import LENGTH_TEST_WORDS

    return Table.of(
        (
            Column.name("judge", "judge"),
            Column("decisive", "n_decisive", fmt_int),
            Column("longer wins", "longer_win_rate"),
            Column("interval", _ci("longer_win_rate_ci_low", "longer_win_rate_ci_high"), str),
            Column("p", "longer_win_rate_pvalue", fmt_p),
            Column("odds ratio per SD", "odds_ratio_per_sd"),
            Column("Wald p", "slope_pvalue", fmt_p),
            Column("longer both times", "longer_both", fmt_int),
            Column("shorter both times", "shorter_both", fmt_int),
            Column("McNemar p", "length_mcnemar_pvalue", fmt_p),
            Column.text("test to read", lambda r: LENGTH_TEST_WORDS[str(r["length_test"])]),
        ),
        frame.to_dict(orient="records"),
        "Longer wins: the share of decisive judgments (answers of different lengths) "
        "preferring the longer answer (exact interval, binomial test of 1/2). Odds ratio per "
        "SD: from the logistic regression of the first answer preferred on the length "
        "difference, the position effect held in its intercept. Of the pairs judged in both "
        "orders, those that preferred the longer (shorter) answer both times; McNemar's "
        "exact test compares them, the paired test to read when pairs were judged in both "
        "orders (the two verdicts on one pair are not independent).",
    )


def _lead(table: Any) -> str:
    from ...judges.bias import POSITION_TEST_WORDS

    parts = []
    for row in table.to_dict(orient="records"):
        text = (
            f"{row['judge']} prefers the answer shown first in {fmt_pct(row['first_win_rate'])} "
            "of its decisive judgments"
        )
        if row["swapped_pairs"]:
            text += (
                f"; shown a pair in both orders it keeps its verdict in "
                f"{fmt_pct(row['position_consistency'])} of cases"
            )
        words = POSITION_TEST_WORDS[str(row["position_test"])]
        text += f" (position bias, {words}: p {fmt_p(row['position_pvalue'])})"
        parts.append(text + ".")
    return " ".join(parts)
