"""The sentences of the report and the command line name what they cite: the judge is held
against the humans only, every kappa is named with its weights, the headline is one rule."""

from __future__ import annotations

import html
import itertools
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

import accord
from accord.datasets import path as data_path

HUMANS = ["annotator1", "annotator2", "annotator3"]


def _text(page: str) -> str:
    """The page's words, tags and spacing removed."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def _pair_kappa(frame: pd.DataFrame, a: str, b: str, weights: str | None = None) -> float:
    wide = frame.pivot(index="item", columns="rater", values="preference")[[a, b]].dropna()
    return float(cohen_kappa_score(wide[a], wide[b], weights=weights))


@pytest.mark.slow
def test_judge_report_holds_the_model_against_the_humans_only(tmp_path: Path) -> None:
    frame = pd.read_csv(data_path("pandalm.csv"))
    page = accord.report(
        data_path("pandalm.csv"),
        item="item",
        rater="rater",
        label="preference",
        judge=accord.Judge(["pandalm-7b", "gpt-3.5-turbo"], epsilon=0.15),
        progress=False,
        inference=accord.Inference(n_boot=20),
    )
    # the report asked about a judge answers about it first
    assert page.sections[0] == "judge"
    text = _text(page.html)
    # no humans named: the panel is every other rater, and the page says so
    assert "wins against 0 of 3 raters tested as its humans: annotator1, annotator2, " in text
    assert "Every rater not named as a judge counts as a human here" in text
    # sklearn.metrics.cohen_kappa_score of each pair of annotators (the PandaLM README:
    # 0.85, 0.88, 0.86); their mean is "humans with humans"
    mean = np.mean([_pair_kappa(frame, a, b) for a, b in itertools.combinations(HUMANS, 2)])
    assert f"against {mean:.3f} among the humans themselves" in text
    judge = np.mean([_pair_kappa(frame, "pandalm-7b", h) for h in HUMANS])
    assert f"Its mean Cohen's kappa with the humans is {judge:.3f}" in text


@pytest.mark.slow
def test_report_cli_takes_the_judges_humans(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from accord.cli import app

    out = tmp_path / "judge.html"
    args = ["report", str(data_path("pandalm.csv")), "--item", "item", "--rater", "rater",
            "--label", "preference", "--judge", "gpt-3.5-turbo", "--humans", ",".join(HUMANS),
            "--epsilon", "0.15", "-o", str(out), "-q"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "taken as a human" not in result.output  # the humans were named
    named = _text(out.read_text())
    assert "of 3 humans tested: annotator1, annotator2, annotator3" in named
    assert "counts as a human here" not in named
    bad = CliRunner().invoke(app, [*args[:8], "--humans", "annotator1,annotator2", "-o",
                                   str(out)])  # fmt: skip
    assert bad.exit_code == 2 and "--judge" in bad.output


@pytest.mark.slow
def test_judge_section_names_the_weights_of_its_kappas() -> None:
    # panel.csv's "level" column (L < M < H) as an ordinal scale: the kappas are quadratic
    frame = pd.read_csv(data_path("panel.csv"))
    page = accord.report(
        frame,
        item="proposal",
        rater="reviewer",
        label="level",
        level="ordinal",
        categories=["L", "M", "H"],
        judge=accord.Judge("reviewer_5", epsilon=0.15),
        progress=False,
        inference=accord.Inference(n_boot=20),
    )
    text = _text(page.html)
    found = re.search(
        r"Against the humans' majority label: accuracy ([\d.]+)% on (\d+) items.*?, "
        r"Cohen's kappa \(quadratic weights\) (-?[\d.]+)\.",
        text,
    )
    assert found is not None, text[:2000]
    assert "Cohen's kappa 0" not in text.split("Can the judge replace a rater?")[-1][:3000]
    # the same confusion matrix, expanded to label pairs, through scikit-learn
    beside = accord.judge_agreement(
        accord.Ratings.from_long(frame, item="proposal", rater="reviewer", label="level",
                                 level="ordinal", categories=["L", "M", "H"]),
        "reviewer_5", n_boot=0,
    )  # fmt: skip
    conf = beside.consensus.confusion
    ref, got = [], []
    for (r, j), n in conf.stack().items():
        ref += [str(r)] * int(n)
        got += [str(j)] * int(n)
    labels = ["L", "M", "H"]
    quadratic = cohen_kappa_score(ref, got, labels=labels, weights="quadratic")
    assert found.group(3) == f"{quadratic:.3f}"
    assert float(found.group(1)) == pytest.approx(100 * np.mean(np.array(ref) == got), abs=0.05)


def _agree(*args: str) -> str:
    from typer.testing import CliRunner

    from accord.cli import app

    result = CliRunner().invoke(app, ["agree", *args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


BIRADS = ["--item", "finding", "--rater", "modality", "--label", "birads", "--level", "ordinal"]


def _birads_kappa(weights: str | None) -> float:
    wide = pd.read_csv(data_path("birads.csv")).pivot(
        index="finding", columns="modality", values="birads"
    )
    return float(cohen_kappa_score(wide["US"], wide["ABVS"], weights=weights))


def test_agree_headlines_a_row_of_its_table_the_same_with_every_engine() -> None:
    # sklearn: cohen_kappa_score(US, ABVS, weights="quadratic") on birads.csv
    quadratic = _birads_kappa("quadratic")
    for engine in ("memory", "stream", "dask"):
        out = _agree(str(data_path("birads.csv")), *BIRADS, "--engine", engine)
        assert out.startswith(f"Cohen's kappa (quadratic weights) {quadratic:.2f} "), engine
        rows = re.findall(rf"cohen_kappa \(quadratic\)\s*│\s*{quadratic:.4f}", out)
        assert len(rows) == 1, engine  # a row of the table, once


def test_agree_on_an_export_headlines_a_coefficient_its_table_shows() -> None:
    export = data_path("annotation-tools") / "label_studio.json"
    out = _agree(str(export), "--from", "label-studio", "--field", "sentiment")
    head = re.match(r"Cohen's kappa (-?[\d.]+) ", out)
    assert head is not None, out
    row = re.search(r"│ cohen_kappa\s*│\s*(-?[\d.]+)", out)
    assert row is not None, out
    assert float(row.group(1)) == pytest.approx(float(head.group(1)), abs=0.005)


@pytest.mark.slow
def test_report_headline_and_contested_items_on_an_ordinal_scale() -> None:
    page = accord.report(
        data_path("birads.csv"),
        item="finding",
        rater="modality",
        label="birads",
        level="ordinal",
        progress=False,
        inference=accord.Inference(n_boot=20),
    )
    text = _text(page.html)
    quadratic = _birads_kappa("quadratic")
    memory = _agree(str(data_path("birads.csv")), *BIRADS)
    assert f"Cohen's kappa (quadratic weights) {quadratic:.3f}" in text
    assert memory.startswith(f"Cohen's kappa (quadratic weights) {quadratic:.2f} ")
    # the two-rater section's kappa is the unweighted one, and says so beside the weighted
    # headline (sklearn: cohen_kappa_score(US, ABVS) on birads.csv)
    assert f"Cohen's kappa (unweighted) {_birads_kappa(None):.3f}" in text
    # the widest split of the file (by hand: the finding graded 1 by one modality and 5 by
    # the other) heads the contested items, before the splits between neighbouring grades
    wide = pd.read_csv(data_path("birads.csv")).pivot(
        index="finding", columns="modality", values="birads"
    )
    far = (wide["US"] - wide["ABVS"]).abs()
    first = text.split("ordinal entropy (bits)", 1)[1].split()[0]
    assert int(first) == int(far.idxmax()) and far.max() == 4


def test_confidence_reading_compares_per_unit_log_losses() -> None:
    from sklearn.metrics import log_loss

    from accord.report.sections.confidence import nce_reading

    correct = np.array([1, 0, 1, 0, 1, 1, 0, 1])
    conf = np.array([0.1, 0.9, 0.2, 0.8, 0.3, 0.4, 0.7, 0.2])  # wrong way round: NCE < 0
    text, tone = nce_reading(accord.normalized_cross_entropy(correct, conf))
    # sklearn.metrics.log_loss is the mean in nats; the constant confidence p_c = 5/8 has the
    # mean log loss of the binary entropy of 5/8, in bits
    bits = log_loss(correct, conf) / np.log(2)
    p = correct.mean()
    baseline = -(p * np.log2(p) + (1 - p) * np.log2(1 - p))
    assert tone == "poor"
    assert f"{bits:.3f} bits per unit, is above the constant's {baseline:.3f} bits per unit" in text


# Sets of labels, one row per label: items 1-6 rated by three raters (written for this test).
SETS = {
    (1, "r1"): "ab", (1, "r2"): "ab", (1, "r3"): "a",
    (2, "r1"): "b", (2, "r2"): "bc", (2, "r3"): "b",
    (3, "r1"): "c", (3, "r2"): "c", (3, "r3"): "ac",
    (4, "r1"): "a", (4, "r2"): "b", (4, "r3"): "ab",
    (5, "r1"): "abc", (5, "r2"): "ab", (5, "r3"): "abc",
    (6, "r1"): "c", (6, "r2"): "c", (6, "r3"): "c",
}  # fmt: skip


@pytest.mark.slow
def test_report_on_sets_of_labels_headlines_the_set_coefficient(tmp_path: Path) -> None:
    from nltk.metrics.agreement import AnnotationTask
    from nltk.metrics.distance import masi_distance
    from typer.testing import CliRunner

    from accord.cli import app

    rows = [(i, r, x) for (i, r), labels in SETS.items() for x in labels]
    frame = pd.DataFrame(rows, columns=["item", "rater", "tag"])
    file = tmp_path / "sets.csv"
    frame.to_csv(file, index=False)
    out = tmp_path / "sets.html"
    args = ["report", str(file), "--item", "item", "--rater", "rater", "--label", "tag",
            "--multi-label", "-o", str(out), "-q"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    text = _text(out.read_text())
    # nltk: AnnotationTask(distance=masi_distance).alpha() on the same sets
    task = AnnotationTask(
        [(r, str(i), frozenset(x)) for (i, r), x in SETS.items()], distance=masi_distance
    )
    alpha = task.alpha()
    head = text.split("Can I trust these raters?", 2)[2]
    assert head.lstrip().startswith(f"Krippendorff's alpha (MASI distance) {alpha:.3f}")
    assert "Multi-valued alpha (mv-alpha)" in text
    assert "frozenset" not in text and "{a, b} ×2" in text
    from tests._browser import BrowserUnavailable, screenshot_dir, visit

    try:
        seen = visit(out, selectors=("h2",), width=1440)
    except BrowserUnavailable as exc:
        pytest.fail(f"the browser test needs Chromium: {exc}")
    assert seen.errors == [] and seen.requests == []
    shot = screenshot_dir() / "report-sets-1440.png"
    shot.write_bytes(seen.screenshot)
    print(f"screenshot: {shot}")  # shown with pytest -s / -rP


def test_methods_paragraph_says_what_was_done_without_advice() -> None:
    table = accord.agreement(
        accord.read_ratings(data_path("diagnoses.csv"), item="patient", rater="rater",
                            label="diagnosis")
    )  # fmt: skip
    text = table.methods_text()
    # Light's kappa has no analytic SE: the paragraph says so, and advises no option
    assert "Light's kappa" in text and "no analytic SE" in text
    assert "ci='" not in text and "use " not in text


def test_judge_without_humans_says_who_was_taken_as_human() -> None:
    # the bundled PandaLM file holds a second model, pandalm-7b: without --humans it is
    # one of the "humans", and the command says so before its verdict
    from typer.testing import CliRunner

    from accord.cli import app

    args = ["judge", str(data_path("pandalm.csv")), "--item", "item", "--rater", "rater",
            "--label", "preference", "--judge", "gpt-3.5-turbo", "--epsilon", "0.1"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    note = "every rater not named by --judge is taken as a human: annotator1, annotator2, "
    assert note + "annotator3, pandalm-7b" in result.output
    named = CliRunner().invoke(app, [*args, "--humans", ",".join(HUMANS)])
    assert named.exit_code == 0 and "taken as a human" not in named.output
    assert "wins against 0 of 3 humans" in named.output


def test_report_command_without_humans_says_who_was_taken_as_human(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from accord.cli import app

    args = ["report", str(data_path("pandalm.csv")), "--item", "item", "--rater", "rater",
            "--label", "preference", "--judge", "gpt-3.5-turbo", "--epsilon", "0.1",
            "--n-boot", "0", "-o", str(tmp_path / "j.html")]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "every rater not named by --judge is taken as a human, as the page says" in (
        result.output
    )
    page = _text((tmp_path / "j.html").read_text())
    assert "1 of 4 raters tested as its humans: annotator1, annotator2, annotator3, " in page


def _summary_ci(page: str) -> tuple[float, float]:
    """The headline's interval, as the summary prints it."""
    found = re.search(r"95% CI (-?\d\.\d+) to (-?\d\.\d+)", _text(page.split('id="summary"')[1]))
    assert found is not None
    return float(found.group(1)), float(found.group(2))


def _landis_koch(value: float) -> str:
    # Landis & Koch (1977, Table 1): < 0 poor, 0-0.20 slight, 0.21-0.40 fair,
    # 0.41-0.60 moderate, 0.61-0.80 substantial, 0.81-1.00 almost perfect
    bands = ((0.0, "poor"), (0.2, "slight"), (0.4, "fair"), (0.6, "moderate"),
             (0.8, "substantial"))  # fmt: skip
    return next((name for top, name in bands if value < top), "almost perfect")


def test_the_summary_names_one_band_once_when_both_ends_of_the_interval_share_it() -> None:
    # 300 items x 3 raters who agree 97% of the time in 4 categories: a kappa near 0.95
    # whose interval lies within "almost perfect"; Fleiss' 1971 diagnoses (kappa 0.430) has
    # an interval across two bands, said as a span.
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 4, 300)
    labels = np.where(rng.random((300, 3)) < 0.97, truth[:, None], rng.integers(0, 4, (300, 3)))
    frame = pd.DataFrame({"item": np.repeat(np.arange(300), 3), "rater": list("abc") * 300,
                          "label": labels.ravel()})  # fmt: skip
    page = accord.report(frame, item="item", rater="rater", label="label", progress=False,
                         inference=accord.Inference(n_boot=0))  # fmt: skip
    low, high = _summary_ci(page.html)
    assert _landis_koch(low) == _landis_koch(high) == "almost perfect"
    text = _text(page.html)
    assert "Both ends of the 95% interval are almost perfect." in text
    assert "runs from almost perfect to almost perfect" not in text
    wide = accord.report(data_path("diagnoses.csv"), item="patient", rater="rater",
                         label="diagnosis", progress=False,
                         inference=accord.Inference(n_boot=0))  # fmt: skip
    low, high = _summary_ci(wide.html)
    assert _landis_koch(low) != _landis_koch(high)
    assert f"The 95% interval runs from {_landis_koch(low)} to {_landis_koch(high)}." in _text(
        wide.html
    )


def test_a_rater_left_out_of_the_permutation_test_is_a_dash_with_its_reason() -> None:
    # Five raters of all 60 items, and three raters of 3 items each who label at random:
    # they stray most (listed first) but have fewer items than the test's 10, so their
    # adjusted p is a dash, and the caption says why.
    rng = np.random.default_rng(2)
    truth = rng.integers(0, 3, 60)
    rows = [(i, f"r{j}", int(truth[i]) if rng.random() < 0.9 else int(rng.integers(0, 3)))
            for i in range(60) for j in range(5)]  # fmt: skip
    rows += [(i, f"new{k}", int((truth[i] + 1) % 3))
             for k in range(3) for i in range(3 * k, 3 * k + 3)]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    page = accord.report(frame, item="item", rater="rater", label="label", progress=False,
                         inference=accord.Inference(n_boot=0))  # fmt: skip
    test = accord.rater_permutation_test(
        accord.Ratings.from_long(frame, item="item", rater="rater", label="label"), rng=0
    )
    untested = test.raters.set_index("rater").loc[["new0", "new1", "new2"]]
    assert untested["pvalue"].isna().all() and (untested["n_items"] < test.min_items).all()
    raters = _text(page.html.split('id="raters"')[1].split("</section>")[0])
    assert f"A dash for adjusted p: the rater has fewer than {test.min_items} items" in raters
    # every rater tested: no such sentence
    full = accord.report(frame[~frame["rater"].str.startswith("new")], item="item",
                         rater="rater", label="label", progress=False,
                         inference=accord.Inference(n_boot=0))  # fmt: skip
    assert "A dash for adjusted p" not in _text(full.html)


def _report_text(frame: pd.DataFrame) -> str:
    """The words of the report on ``frame`` (columns item, rater, label; no bootstrap)."""
    page = accord.report(frame, item="item", rater="rater", label="label", progress=False,
                         inference=accord.Inference(n_boot=0))  # fmt: skip
    return _text(page.html)


def _four_raters_an_item(rater: np.ndarray) -> pd.DataFrame:
    """Items rated four times (``rater``: the four raters of each item in turn), each label
    the item's true one (of three) 80% of the time."""
    rng = np.random.default_rng(7)
    n = rater.size // 4
    truth = np.repeat(rng.integers(0, 3, n), 4)
    label = np.where(rng.random(rater.size) < 0.8, truth, rng.integers(0, 3, rater.size))
    return pd.DataFrame({"item": np.repeat(np.arange(n), 4), "rater": rater, "label": label})


def test_counts_of_a_thousand_raters_and_more_are_written_with_separators() -> None:
    # 1,500 raters, four ratings an item: the notes that say how many raters a table leaves
    # out write the count as every other count of the page is written ("1,500")
    first = np.random.default_rng(1).permutation(1500)  # each rater first on one item
    frame = _four_raters_an_item((np.repeat(first, 4) + np.tile([0, 375, 750, 1125], 1500)) % 1500)
    assert frame["rater"].nunique() == 1500
    text = _report_text(frame)
    assert "Showing the 40 raters who stray most of 1,500." in text
    assert "Showing the 40 raters who share the most items of 1,500." in text
    assert "Showing the 20 most and the 20 least accurate of 1,500 raters." in text
    # the raters of an item are one of the 375 cosets {f, f + 375, f + 750, f + 1125}: 375
    # cosets of 6 pairs each share items
    assert "Mean Cohen's kappa over 2,250 pairs of raters" in text
    assert re.search(r"\b\d{1,3} of 1,500 items are unanimous", text)
    assert "of 1500" not in text and "2250" not in text


def test_items_of_one_rating_are_not_counted_as_unanimous() -> None:
    # items 0-3: three ratings each (item 0 split, 1-3 unanimous); items 4-9: one rating each
    item = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 5, 6, 7, 8, 9]
    rater = ["a", "b", "c"] * 4 + ["a", "b", "c", "a", "b", "c"]
    label = ["x", "y", "x"] + ["x"] * 3 + ["y"] * 3 + ["x"] * 3 + ["x", "y"] * 3
    frame = pd.DataFrame({"item": item, "rater": rater, "label": label})
    page = accord.report(frame, item="item", rater="rater", label="label", progress=False,
                         inference=accord.Inference(n_boot=0))  # fmt: skip
    text = _text(page.html)
    assert "3 of 4 items rated twice or more are unanimous, and 6 have one rating" in text
    once = frame[frame["item"] >= 4]  # every item rated once
    page = accord.report(once, item="item", rater="rater", label="label", progress=False,
                         inference=accord.Inference(n_boot=0))  # fmt: skip
    text = _text(page.html)
    assert "Every item has one rating: none can be contested" in text
    assert "items are unanimous" not in text
    assert "No pair is singled out: no item has two ratings or more" in text
    assert "No two raters rated an item in common" in text  # and no heatmap of nobody
    assert "Heatmap of pairwise" not in text
    # the methods say what there is: one rating an item, no interval of any kind
    assert "(1 rating per item)" in text and "from 1 to 1" not in text
    assert "No coefficient has a standard error or a confidence interval for these data." in text
    assert "degrees of freedom" not in text and "intervals: ." not in text


def test_raters_of_missing_labels_only_are_not_counted_among_the_raters() -> None:
    # 44 raters, four an item (the cosets {f, f + 11, f + 22, f + 33}); three more raters
    # whose every label is missing: the page counts 44 raters everywhere
    rater = (np.repeat(np.arange(660) % 11, 4) + np.tile([0, 11, 22, 33], 660)).astype(str)
    frame = _four_raters_an_item(rater)
    ghosts = pd.DataFrame({"item": [0, 1, 2], "rater": ["g1", "g2", "g3"], "label": np.nan})
    text = _report_text(pd.concat([frame, ghosts], ignore_index=True))
    assert "by 44 raters" in text
    assert "Showing the 40 raters who share the most items of 44." in text
    assert "Showing the 40 raters who stray most of 44." in text
    assert "Showing the 20 most and the 20 least accurate of 44 raters." in text
    assert "of 47" not in text and not re.search(r"\bg[123]\b", text)


def test_one_item_is_one_item_and_nothing_tested_is_said_so() -> None:
    # four raters of one item: singular nouns, and the permutation test names no count of 0
    frame = pd.DataFrame({"item": [1] * 4, "rater": list("abcd"), "label": list("xxxy")})
    page = accord.report(frame, item="item", rater="rater", label="label", progress=False,
                         inference=accord.Inference(n_boot=0))  # fmt: skip
    text = _text(page.html)
    assert "4 ratings of 1 item by 4 raters" in text and "on 1 item." in text
    assert "0 of 1 item is unanimous" in text and "1 item was rated by 4 raters" in text
    assert "0 of 1 item has a label" in text and "The most contested item" in text
    assert not re.search(r"\b1 items\b", text)  # ("items 1 raters 4": the read table)
    assert "No pair could be tested: the permutation test needs 10 items" in text
    assert "No rater could be tested: the permutation test needs 10 items" in text
    assert "of 0 " not in text


def test_a_judge_no_human_could_be_tested_against_is_not_said_to_fail() -> None:
    # 12 items: fewer than the test's 30 a human, so nobody is tested (was: "does not pass
    # ... (wins against 0 of 0 raters tested ...)")
    item = np.repeat(np.arange(12), 3)
    rater = np.tile(["h1", "h2", "judge"], 12)
    label = np.where(rater == "judge", (item + 1) % 2, item % 2)
    frame = pd.DataFrame({"item": item, "rater": rater, "label": label})
    options = {"judge": "judge", "epsilon": 0.1, "inference": accord.Inference(n_boot=0)}
    page = accord.report(frame, item="item", rater="rater", label="label", progress=False,
                         **options)  # fmt: skip
    text = _text(page.html)
    assert (
        "judge could not be put to the alternative annotator test at epsilon = 0.1: no human "
        "could be tested (h1: 12 items, fewer than min_items_per_rater=30; h2: 12 items"
    ) in text
    assert "of 0 " not in text and "does not pass" not in text and "Verdict not tested" in text
