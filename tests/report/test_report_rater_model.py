"""The report's rater-model section: each item's probable label and each rater's quality
under the Dawid-Skene model. The numbers shown are those of accord.rater_model run beside
the report with the report's bootstrap replicates, seed and level (rater_model's own numbers
are checked against crowd-kit and by hand in tests/truth/)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import accord
from accord.report._blocks import Figure, KeyFigures, Table, fmt, fmt_ci, fmt_int
from accord.report._context import Context
from accord.report.sections.rater_model import (
    BOOTSTRAP_BUDGET,
    build_rater_model,
    fitted_rater_model,
)

from .test_report import gold_frame, row_values, section_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DIAGNOSES = {"item": "patient", "rater": "rater", "label": "diagnosis"}


@pytest.fixture(scope="module")
def diagnoses() -> accord.Ratings:
    return accord.read_ratings(EXAMPLES / "diagnoses.csv", **DIAGNOSES)


def test_the_section_shows_rater_models_numbers(diagnoses: accord.Ratings) -> None:
    ctx = Context(ratings=diagnoses, frame=None, item=None, rater=None, label=None,
                  n_boot=1000, seed=3, confidence_level=0.9)  # fmt: skip
    beside = accord.rater_model(diagnoses, n_bootstrap=1000, rng=3, level=0.9)
    used = fitted_rater_model(ctx)
    for table in ("raters", "items"):
        mine, theirs = used.to_frame(table), beside.to_frame(table)
        numbers = theirs.select_dtypes("number").columns
        assert_allclose(mine[numbers].to_numpy(float), theirs[numbers].to_numpy(float),
                        rtol=0, atol=1e-12)  # fmt: skip
    assert_allclose(used.reliability.to_dict()["expected_pairwise_low"],
                    beside.reliability.expected_pairwise_low, rtol=0, atol=1e-12)  # fmt: skip
    section = build_rater_model(ctx)
    assert section is not None and section.id == "rater-model"
    tables = [b for b in section.blocks if isinstance(b, Table)]
    raters = beside.raters.set_index("rater")
    shown = {row[0]: row for row in tables[0].rows}
    assert list(shown) == raters.sort_values("accuracy", ascending=False).index.tolist()
    for rater, row in shown.items():
        r = raters.loc[rater]
        assert row[1:] == (
            fmt_int(r["n_ratings"]),
            fmt(r["accuracy"]),
            fmt_ci(r["accuracy_low"], r["accuracy_high"], 2),
            fmt(r["kappa_truth"]),
            fmt_ci(r["kappa_truth_low"], r["kappa_truth_high"], 2),
            fmt(r["spammer_score"]),
        )
    items = beside.items.set_index("item")
    for row in tables[1].rows:
        i = items.loc[int(row[0])]
        assert row[1:4] == (
            str(i["label"]),
            fmt(i["probability"]),
            fmt_ci(i["probability_low"], i["probability_high"], 2),
        )
    # the least certain by the interval first: no item left out has a lower lower end
    listed = {int(row[0]) for row in tables[1].rows}
    worst_left = items.drop(index=list(listed))["probability_low"].min()
    assert items.loc[list(listed), "probability_low"].max() <= worst_left
    figures = next(b for b in section.blocks if isinstance(b, KeyFigures)).items
    rel = beside.reliability
    assert figures[1].value == fmt(rel.expected_pairwise_kappa)
    interval = fmt_ci(rel.expected_pairwise_low, rel.expected_pairwise_high)
    assert figures[1].detail == f"90% CI {interval}"
    assert figures[2].value == fmt(rel.observed_fleiss_kappa)


def test_the_page_has_the_section_for_three_raters_or_more_in_categories() -> None:
    page = accord.report(
        EXAMPLES / "diagnoses.csv",
        progress=False,
        inference=accord.Inference(n_boot=1000),
        **DIAGNOSES,
    )
    assert page.sections.index("rater-model") == page.sections.index("raters") + 1
    html = section_of(page.html, "rater-model")
    fit = accord.rater_model(
        accord.read_ratings(EXAMPLES / "diagnoses.csv", **DIAGNOSES), n_bootstrap=1000, rng=0
    )
    best = fit.raters.sort_values("accuracy").iloc[-1]
    assert row_values(html, str(best["rater"]))[1] == fmt(best["accuracy"])
    # 6 raters x 5 x 4 + 4 = 124 parameters for 180 ratings: the page says to read the intervals
    assert "fits 124 parameters (a confusion matrix per rater) to 180 ratings" in html
    assert "1,000 bootstrap resamples" in section_of(page.html, "methods")
    # two raters (BI-RADS), measurements: no rater model
    two = accord.report(EXAMPLES / "birads.csv", item="finding", rater="modality",
                        label="birads", level="ordinal", progress=False)  # fmt: skip
    assert "rater-model" not in two.sections
    rng = np.random.default_rng(0)
    sizes = pd.DataFrame({"item": np.repeat(np.arange(10), 3), "rater": list("abc") * 10,
                          "mm": rng.normal(10, 1, 30)})  # fmt: skip
    measured = accord.report(sizes, item="item", rater="rater", label="mm", level="interval",
                             progress=False)  # fmt: skip
    assert "rater-model" not in measured.sections


def test_gold_labels_anchor_the_model() -> None:
    frame = gold_frame()
    page = accord.report(
        frame,
        item="item",
        rater="rater",
        label="label",
        gold="truth",
        progress=False,
        inference=accord.Inference(n_boot=1000),
    )
    ratings = accord.Ratings.from_long(frame, item="item", rater="rater", label="label")
    gold = frame.dropna(subset=["truth"]).drop_duplicates("item").set_index("item")["truth"]
    fit = accord.rater_model(ratings, gold=gold, n_bootstrap=1000, rng=0)
    assert fit.n_gold == 10
    html = section_of(page.html, "rater-model")
    for rater in ("R1", "R4"):
        r = fit.raters.set_index("rater").loc[rater]
        cells = row_values(html, rater)
        assert cells[1] == fmt(r["accuracy"]) and cells[-1] == fmt(r["gold_accuracy"])
    assert "10 items with a gold label clamp their posteriors" in section_of(page.html, "methods")
    # two items without gold: only they can be listed as uncertain
    free = set(fit.items.loc[fit.items["gold"].isna(), "item"])
    assert free == {"i10", "i11"}
    assert all(f"<bdi>i{k}</bdi>" not in html.split("probable label", 1)[1] for k in range(10))


def test_many_ratings_read_the_accuracies_off_the_observed_information() -> None:
    # 600 items x 4 raters: about 2,000 ratings times the report's 2,000 resamples is over
    # the section's budget, so the accuracies' intervals come from the observed information
    # (Louis 1982; checked against a finite-difference Hessian in tests/truth/).
    from ..truth.test_rater_models import draw

    ratings, _, _ = draw("dawid-skene", 600, 4, 3, seed=31, density=0.9)
    ctx = Context(ratings=ratings, frame=None, item=None, rater=None, label=None, n_boot=2000)
    assert ratings.n_ratings * 2000 > BOOTSTRAP_BUDGET
    beside = accord.rater_model(ratings, n_bootstrap=0, interval="observed-information")
    used = fitted_rater_model(ctx)
    assert used.interval == "observed-information" and used.n_bootstrap == 0
    numbers = ["accuracy", "accuracy_se", "accuracy_low", "accuracy_high", "kappa_truth"]
    assert_allclose(used.raters[numbers].to_numpy(float), beside.raters[numbers].to_numpy(float),
                    rtol=0, atol=1e-12)  # fmt: skip
    section = build_rater_model(ctx)
    assert section is not None
    tables = [b for b in section.blocks if isinstance(b, Table)]
    r = beside.raters.sort_values("accuracy", ascending=False).iloc[0]
    assert tables[0].rows[0][2:4] == (fmt(r["accuracy"]),
                                      fmt_ci(r["accuracy_low"], r["accuracy_high"], 2))  # fmt: skip
    assert any("observed information" in getattr(b, "text", "") for b in section.blocks)
    # the observed information gives the accuracies' intervals only: the other columns go
    assert beside.raters["kappa_truth_low"].isna().all()
    assert tables[0].columns == ("rater", "ratings", "accuracy", "95% CI", "kappa with truth",
                                 "spammer score")  # fmt: skip
    assert "95% CI" not in tables[1].columns
    assert "Louis" in section.methods[0].references[-1]


def test_many_raters_show_the_most_and_the_least_accurate() -> None:
    from ..truth.test_rater_models import draw

    ratings, _, _ = draw("dawid-skene", 60, 45, 2, seed=8, density=0.5)
    ctx = Context(ratings=ratings, frame=None, item=None, rater=None, label=None, n_boot=0)
    section = build_rater_model(ctx)
    assert section is not None
    ranked = fitted_rater_model(ctx).raters.sort_values(
        ["accuracy", "rater"], ascending=[False, True], kind="stable"
    )
    names = [str(r) for r in ranked["rater"]]
    table = next(b for b in section.blocks if isinstance(b, Table))
    assert [row[0] for row in table.rows] == names[:20] + names[-20:]
    assert any("20 most and the 20 least accurate of 45" in getattr(b, "text", "")
               for b in section.blocks)  # fmt: skip


def test_a_model_too_large_for_its_information_shows_accuracies_without_interval() -> None:
    # 201 raters in 5 categories: 4,024 free parameters, over the 4,000 the observed
    # information is formed for; 1,200 ratings times 2,000 resamples, over the budget.
    rng = np.random.default_rng(5)
    ratings = accord.Ratings.from_arrays(
        np.repeat(np.arange(400), 3), np.arange(1200) % 201, rng.integers(0, 5, 1200)
    )
    ctx = Context(ratings=ratings, frame=None, item=None, rater=None, label=None, n_boot=2000)
    assert ratings.n_ratings * 2000 > BOOTSTRAP_BUDGET
    used = fitted_rater_model(ctx)
    assert used.interval == "bootstrap" and used.n_bootstrap == 0
    beside = accord.rater_model(ratings, n_bootstrap=0)
    assert_allclose(used.raters["accuracy"], beside.raters["accuracy"], rtol=0, atol=1e-12)
    assert used.raters["accuracy_low"].isna().all()
    section = build_rater_model(ctx)
    assert section is not None
    texts = [getattr(b, "text", "") for b in section.blocks]
    assert any("no interval here" in t and "4,024 parameters" in t for t in texts)
    assert "Louis" not in " ".join(section.methods[0].references)
    # no column of dashes: the tables leave out the intervals the note says are not there
    raters_table, items_table = (b for b in section.blocks if isinstance(b, Table))
    assert raters_table.columns == ("rater", "ratings", "accuracy", "kappa with truth",
                                    "spammer score")  # fmt: skip
    assert "95% CI" not in items_table.columns
    assert "interval)" not in next(b for b in section.blocks if isinstance(b, Figure)).svg
    # the lead names a rater after the accuracy (a rater's name may be a number)
    worst = used.raters.sort_values(["accuracy", "rater"], ascending=[False, True]).iloc[-1]
    assert f"runs from {worst['accuracy']:.0%} (rater {worst['rater']}) to " in section.lead


def test_the_least_certain_items_are_pandas_stable_sort_of_the_items() -> None:
    from accord.report.sections.rater_model import TOP, _uncertain_items

    rng = np.random.default_rng(5)
    wide = pd.DataFrame(rng.choice(["a", "b", "c"], size=(120, 4), p=[0.5, 0.3, 0.2]))
    wide[wide.columns[3]] = wide[wide.columns[3]].where(rng.random(120) > 0.3)  # ties, gaps
    fit = accord.rater_model(accord.Ratings.from_wide(wide), n_bootstrap=50, rng=1)
    items = fit.items.copy()
    items.loc[items.index[::9], "probability_low"] = np.nan  # NaN lower ends go last
    fit = type(fit)(**{**{f: getattr(fit, f) for f in fit.__dataclass_fields__}, "items": items})
    free = items[items["gold"].isna()]
    expected = free.sort_values(["probability_low", "entropy"], ascending=[True, False],
                                kind="stable", na_position="last").head(TOP)  # fmt: skip
    got = _uncertain_items(fit)
    assert got["item"].tolist() == expected["item"].tolist()
    assert len(set(np.round(free["entropy"], 12))) < len(free)  # the sort met ties
