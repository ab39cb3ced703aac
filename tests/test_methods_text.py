"""The methods paragraph: every number it states is read from the result it describes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import accord
from accord import InvalidInputError
from accord._methods import REFERENCES

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _diagnoses() -> accord.Ratings:
    return accord.read_ratings(
        EXAMPLES / "diagnoses.csv", item="patient", rater="rater", label="diagnosis"
    )


def _numbers(text: str) -> list[str]:
    """The numbers of a paragraph, as written (thousands separators removed)."""
    return [n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


def _body_and_references(text: str) -> tuple[str, list[str]]:
    body, _, refs = text.partition("\n\nReferences\n")
    return body, [line for line in refs.splitlines() if line]


def test_agreement_paragraph_states_the_design_and_the_coefficients() -> None:
    ratings = _diagnoses()
    table = accord.agreement(ratings)
    text = table.methods_text()
    body, refs = _body_and_references(text)
    # the design, read off the ratings independently of the table: 30 patients, 6 raters,
    # 180 ratings, 5 diagnoses (Fleiss 1971), every patient rated by every rater
    frame = pd.read_csv(EXAMPLES / "diagnoses.csv")
    n_items, n_raters = frame["patient"].nunique(), frame["rater"].nunique()
    assert re.search(
        rf"^{n_items} items were rated by {n_raters} raters into "
        rf"{frame['diagnosis'].nunique()} categories \(nominal scale\), {len(frame)} ratings",
        body,
    )
    assert "complete design" in body and "design was incomplete" not in body
    # each coefficient named, with its variant (the result's own method text)
    for coef in table.coefficients:
        variant = coef.method.split(";")[0]
        assert variant[0].upper() + variant[1:] in body
    # the interval: t with n_items - 1 df, at the level asked for
    assert "95% confidence intervals are t intervals with 29 degrees of freedom" in body
    assert "99% confidence intervals" in table.methods_text(level=0.99)
    # every number of the paragraph (citation marks aside) is one the table holds: the
    # design, the df, the level, the version, or a number of a variant's own method text
    allowed = {str(n_items), str(n_raters), str(len(frame)), "5", "29", "95"}
    allowed |= set(_numbers(" ".join(c.method for c in table.coefficients)))
    allowed |= set(_numbers(accord.__version__))
    stated = set(_numbers(re.sub(r"\[[\d, ]+\]", "", body)))
    assert stated <= allowed, stated - allowed
    assert f"accord {accord.__version__}" in body
    # the references: numbered in order of first citation, each cited in the body
    assert refs[0].startswith("[1] ")
    cited = {int(n) for group in re.findall(r"\[([\d, ]+)\]", body) for n in group.split(",")}
    assert cited == set(range(1, len(refs) + 1))
    assert any("Fleiss, J. L. (1971)" in r for r in refs)


def test_incomplete_design_is_said() -> None:
    nan = np.nan
    wide = np.array([[1, 2, nan], [1, 1, 1], [2, nan, nan], [2, 2, 1], [1, 1, 2]])
    table = accord.agreement(accord.Ratings.from_wide(wide), coefficients=["fleiss_kappa"])
    body, _ = _body_and_references(table.methods_text())
    # counted here: rows with a NaN lack a rating (2 of 5); 1 to 3 ratings per item; the
    # item with a single rating cannot be paired
    missing = int(np.isnan(wide).any(axis=1).sum())
    per_item = (~np.isnan(wide)).sum(axis=1)
    assert (
        f"The design was incomplete: {missing} of 5 items lacked a rating from at least one "
        f"rater (from {per_item.min()} to {per_item.max()} ratings per item)"
    ) in body
    assert "1 item with a single rating could not be paired" in body
    assert table.design is not None and not table.design.complete


def test_weights_and_bootstrap_are_named() -> None:
    ratings = accord.read_ratings(
        EXAMPLES / "birads.csv", item="finding", rater="modality", label="birads", level="ordinal"
    )
    table = accord.agreement(
        ratings,
        coefficients=["fleiss_kappa"],
        inference=accord.Inference(ci="bootstrap", n_boot=200, seed=1),
    )
    body, _ = _body_and_references(table.methods_text())
    assert "Fleiss' kappa (quadratic weights)" in body
    assert "BCa bootstrap over items (200 replicates)" in body
    assert "ordinal scale" in body


def test_markdown() -> None:
    text = accord.agreement(_diagnoses(), coefficients=["gwet_ac1"]).methods_text("markdown")
    body, _, refs = text.partition("\n\n**References**\n\n")
    assert refs.startswith("1. Gwet, K. L. (2008)")
    assert "Gwet's AC1 [1, 2]" in body
    with pytest.raises(InvalidInputError, match="'format' parameter of methods_text"):
        accord.agreement(_diagnoses()).methods_text("html")  # type: ignore[arg-type]


def test_consensus_paragraph() -> None:
    result = accord.consensus(_diagnoses())
    body, refs = _body_and_references(result.methods_text())
    s = result.summary
    assert body.startswith(f"{s.n_items} items were rated by {s.n_raters} raters into 5 categories")
    low, mid, high = result.bands
    assert f"cut points {low:g}, {mid:g} and {high:g}" in body
    assert f"base {result.base:g}" in body
    assert any(r.startswith("[1] Simon, S. (2010)") for r in refs)


def test_calibration_paragraph() -> None:
    frame = pd.read_csv(EXAMPLES / "panel.csv")
    result = accord.calibrate_panel(
        frame, item="proposal", rater="reviewer", score="score", confidence="confidence"
    )
    body, refs = _body_and_references(result.methods_text())
    # counted from the file: one score per row, 40 proposals, 12 reviewers
    assert body.startswith(
        f"{len(frame)} scores of {frame['proposal'].nunique()} items by "
        f"{frame['reviewer'].nunique()} raters"
    )
    assert f"{result.residual_per_dof:.3f} on {result.dof} degrees of freedom" in body
    assert refs == [f"[1] {REFERENCES['mackay2017']}"]


def test_judge_paragraph() -> None:
    gen = np.random.default_rng(7)
    truth = gen.integers(0, 3, 40)
    panel = {f"h{k}": np.where(gen.random(40) < 0.8, truth, gen.integers(0, 3, 40)) for k in "123"}
    panel["model"] = np.where(gen.random(40) < 0.9, truth, gen.integers(0, 3, 40))
    long = (
        pd.DataFrame(panel)
        .rename_axis("item")
        .reset_index()
        .melt(id_vars="item", var_name="rater", value_name="label")
    )
    ratings = accord.Ratings.from_long(long, item="item", rater="rater", label="label")
    res = accord.alt_test(ratings, "model", epsilon=0.2)
    body, refs = _body_and_references(res.methods_text())
    assert f"on {res.n_items} items" in body and f"against {res.n_humans} humans" in body
    assert f"epsilon = {res.epsilon:g}" in body and f"rate at {res.q:g}" in body
    assert f"winning rate {res.winning_rate:.3f}" in body
    assert refs[0].startswith("[1] Calderon, N.") and refs[1].startswith("[2] Benjamini, Y.")
    # several judges: one paragraph per judge, the references once
    ranking = accord.alt_test(ratings, ["model", "h1"], epsilon=0.2, humans=["h2", "h3"])
    body, refs = _body_and_references(ranking.methods_text())
    assert "the judge model can" in body and "the judge h1 can" in body and len(refs) == 2


def test_report_shows_the_paragraph_to_copy() -> None:
    import html

    ratings = _diagnoses()
    page = accord.report(ratings, progress=False)
    methods = page.html.split('id="methods"', 1)[1].split("</section>", 1)[0]
    box = methods.split('<pre class="copy" tabindex="0">', 1)[1].split("</pre>", 1)[0]
    # the box holds the table's own paragraph, at the report's level, escaped, naming the
    # page's headline (six raters, nominal: Fleiss' kappa)
    from accord._methods import agreement_methods

    table = accord.agreement(ratings)
    assert html.unescape(box) == agreement_methods(table, headline="Fleiss' kappa")
    assert "The headline coefficient is Fleiss' kappa." not in table.methods_text()
    assert "<script" not in page.html  # selected by a click, with no script
    # the headline reads the benchmark with its uncertainty (Gwet 2014, ch. 6)
    summary = page.html.split('id="summary"', 1)[1].split("</section>", 1)[0]
    assert "How sure is the band?" in summary and "the estimate alone reads moderate" in summary
