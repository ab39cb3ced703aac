"""The report's section "Designs with several facets" from facet columns: its numbers are
those of g_study, d_study, agreement_by_cluster and kappa_by_stratum on the same data, from
Python and from the command line."""

from __future__ import annotations

import html as html_module
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from typer.testing import CliRunner

import accord
from accord._errors import InvalidInputError
from accord.cli import app
from accord.report._blocks import fmt, fmt_ci
from accord.report._context import Context
from accord.report.sections.facets import build_facets, facet_results

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")


def _occasions(seed: int = 4, n_items: int = 30) -> pd.DataFrame:
    """Three raters score each item on two occasions (p 1, r 0.25, o 0.09, residual 0.36),
    three scores left out: REML."""
    rng = np.random.default_rng(seed)
    p, r, o = rng.normal(0, 1, n_items), rng.normal(0, 0.5, 3), rng.normal(0, 0.3, 2)
    rows = [
        {"item": i, "rater": f"r{j}", "occasion": f"o{k}",
         "score": p[i] + r[j] + o[k] + rng.normal(0, 0.6)}
        for i in range(n_items) for j in range(3) for k in range(2)
    ]  # fmt: skip
    return pd.DataFrame(rows).drop(index=[5, 17, 40]).reset_index(drop=True)


def _sites(seed: int = 4, n_items: int = 60) -> pd.DataFrame:
    """Two raters label each item (0/1); the items nested in six sites."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        truth = int(rng.integers(0, 2))
        for rater in ("A", "B"):
            label = truth if rng.random() < 0.8 else 1 - truth
            rows.append({"item": i, "rater": rater, "site": f"s{i % 6}", "label": label})
    return pd.DataFrame(rows)


def _section(page_html: str) -> str:
    text = page_html.split('id="facets"', 1)[1].split("<section", 1)[0]
    return re.sub(r"\s+", " ", html_module.unescape(re.sub(r"<[^>]+>", " ", text)))


def _context(frame: pd.DataFrame, label: str, level: str, facets: tuple[str, ...]) -> Context:
    return Context(ratings=None, frame=frame, item="item", rater="rater", label=label,
                   level=level, facets=facets, duplicates="mean")  # fmt: skip


def test_a_crossed_occasion_shows_the_g_study_of_the_library() -> None:
    frame = _occasions()
    page = accord.report(
        frame,
        item="item",
        rater="rater",
        label="score",
        level="interval",
        facets="occasion",
        duplicates="mean",
        progress=False,
        inference=accord.Inference(n_boot=100),
    )
    assert "facets" in page.sections
    section = _section(page.html)
    columns = {"p": "item", "r": "rater", "o": "occasion"}
    g = accord.g_study(frame, design="p x r x o", facets=columns, score="score")
    assert g.method == "reml"  # three scores missing
    d = accord.d_study(g, {"r": [3], "o": [2]})
    row = d.table.iloc[0]
    assert f"Phi = {fmt(row['phi'])} and E rho^2 = {fmt(row['g_coefficient'])}" in section
    assert "n_r = 3, n_o = 2" in section and "(p x r x o)" in section
    for comp in g.components.to_dict(orient="records"):
        assert f"{comp['effect']} {fmt(comp['variance'])} " in section
        assert fmt_ci(comp["ci_low"], comp["ci_high"]) in section or comp["ci_high"] > 1000
    # the numbers the page is made of are the library's, to 1e-12
    ctx = _context(frame, "score", "interval", ("occasion",))
    found = facet_results(ctx, frame, "occasion")
    cols = ["variance", "standard_error", "ci_low", "ci_high"]
    assert_allclose(found["g_study"].components[cols], g.components[cols], rtol=1e-12)
    assert_allclose(found["d_study"].table[["g_coefficient", "phi"]].to_numpy(),
                    d.table[["g_coefficient", "phi"]].to_numpy(), rtol=1e-12)  # fmt: skip
    methods = html_module.unescape(page.html.split('id="methods"', 1)[1])
    assert "Brennan, R. L. (2001)" in methods and "Bates, D." in methods


def test_the_d_study_figure_draws_the_library_d_study() -> None:
    frame = _occasions()
    page = accord.report(
        frame,
        item="item",
        rater="rater",
        label="score",
        level="interval",
        facets="occasion",
        duplicates="mean",
        progress=False,
        inference=accord.Inference(n_boot=100),
    )
    raw = page.html.split('id="facets"', 1)[1].split("<section", 1)[0]
    assert "<svg" in raw
    columns = {"p": "item", "r": "rater", "o": "occasion"}
    g = accord.g_study(frame, design="p x r x o", facets=columns, score="score")
    # the study has 3 raters and 2 occasions: raters 1..6, occasions 1, 2 and 4
    d = accord.d_study(g, {"r": range(1, 7), "o": [1, 2, 4]})
    section = _section(page.html)
    assert "Phi (absolute decisions) for 1 to 6 levels of raters (r)" in section
    for o, rows in d.table.groupby("n_o"):
        pairs = zip(rows["n_r"], rows["phi"], strict=True)
        shown = ", ".join(f"{int(n)} {fmt(v)}" for n, v in pairs)
        assert f"{int(o)} levels of 'occasion' (o): {shown}" in html_module.unescape(raw)


def test_items_nested_in_sites_show_the_clustered_agreement_of_the_library() -> None:
    frame = _sites()
    page = accord.report(frame, item="item", rater="rater", label="label", facets=["site"],
                         progress=False)  # fmt: skip
    section = _section(page.html)
    read = {"item": "item", "rater": "rater", "label": "label"}
    kappa = accord.agreement_by_cluster(frame, cluster="site", **read)
    ac1 = accord.agreement_by_cluster(frame, cluster="site", coefficient="gwet_ac1", **read)
    strata = accord.kappa_by_stratum(frame, strata="site", **read)
    for res in (kappa, ac1):
        shown = [res.statistic, res.standard_error, res.standard_error_naive, res.design_effect]
        assert " ".join(fmt(v) for v in shown) in section
    assert f"chi-square({strata.df}) = {fmt(strata.chi_square)}" in section
    assert f"overall {fmt(strata.statistic)} (SE {fmt(strata.standard_error)})" in section
    for row in strata.table.to_dict(orient="records"):
        assert f"{row['stratum']} {row['n_items']} {fmt(row['kappa'])}" in section
    assert "No G-study" in section and "((p:s) x r)" in section
    ctx = _context(frame, "label", "nominal", ("site",))
    found = facet_results(ctx, frame, "site")
    assert_allclose([r.statistic for r in found["clustered"]], [kappa.statistic, ac1.statistic],
                    rtol=1e-12)  # fmt: skip
    assert_allclose([r.standard_error for r in found["clustered"]],
                    [kappa.standard_error, ac1.standard_error], rtol=1e-12)  # fmt: skip
    assert_allclose(found["strata"].table["kappa"], strata.table["kappa"], rtol=1e-12)
    assert found["strata"].chi_square == pytest.approx(strata.chi_square, rel=1e-12)
    methods = html_module.unescape(page.html.split('id="methods"', 1)[1])
    assert "Yang, Z., & Zhou, M. (2014)" in methods and "Fleiss, J. L. (1981)" in methods


def test_the_design_is_read_from_the_data() -> None:
    nested_raters = _occasions().assign(occasion=lambda f: f["rater"].map(
        {"r0": "a", "r1": "a", "r2": "b"}))  # fmt: skip
    ctx = _context(nested_raters, "score", "interval", ("occasion",))
    assert build_facets(ctx) is not None
    assert facet_results(ctx, nested_raters, "occasion")["design"] == "p x (r:o)"
    # three raters on clustered items: the G-study of (p:s) x r, no clustered kappa
    frame = _occasions().query("occasion == 'o0'").assign(site=lambda f: f["item"] % 5)
    ctx = _context(frame, "score", "ordinal", ("site",))
    section = build_facets(ctx)
    assert section is not None
    found = facet_results(ctx, frame, "site")
    assert found["design"] == "(p:s) x r" and "clustered" not in found
    assert any("compares two raters" in getattr(b, "text", "") for b in section.blocks)


def test_no_facets_no_section_and_bad_facets_are_refused() -> None:
    frame = _sites()
    page = accord.report(frame, item="item", rater="rater", label="label", progress=False)
    assert "facets" not in page.sections
    with pytest.raises(InvalidInputError, match="'nowhere' not found"):
        accord.report(frame, item="item", rater="rater", label="label", facets="nowhere",
                      progress=False)  # fmt: skip
    with pytest.raises(InvalidInputError, match="at least 2"):
        accord.report(frame.assign(site="one"), item="item", rater="rater", label="label",
                      facets="site", progress=False)  # fmt: skip
    with pytest.raises(InvalidInputError, match="give the label column"):
        accord.report(frame, item="item", rater="rater", score="label", facets="site",
                      progress=False)  # fmt: skip
    with pytest.raises(InvalidInputError, match="repeats each item and rater: duplicates"):
        accord.report(_occasions(), item="item", rater="rater", label="score",
                      level="interval", facets="occasion", progress=False)  # fmt: skip
    with pytest.raises(InvalidInputError, match="facets takes COLUMN or FACET=COLUMN"):
        accord.report(frame, item="item", rater="rater", label="label", facets=[3],
                      progress=False)  # fmt: skip


def test_the_command_line_shows_the_same_section(tmp_path: Path) -> None:
    frame = _sites()
    path = tmp_path / "sites.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "page.html"
    result = CliRunner().invoke(app, ["report", str(path), "--item", "item", "--rater",
                                      "rater", "--label", "label", "--facet", "site",
                                      "--output", str(out), "--quiet"])  # fmt: skip
    assert result.exit_code == 0, result.output
    page = accord.report(frame, item="item", rater="rater", label="label", facets="site",
                         progress=False)  # fmt: skip
    assert _section(out.read_text()) == _section(page.html)
    bad = CliRunner().invoke(app, ["report", str(path), "--item", "item", "--rater",
                                   "rater", "--score", "label", "--facet", "site", "-o",
                                   str(out)])  # fmt: skip
    assert bad.exit_code == 2 and "--facet" in bad.output


def test_facets_take_the_spelling_of_accord_agree(tmp_path: Path) -> None:
    frame = _sites(n_items=36)
    bare = accord.report(frame, item="item", rater="rater", label="label", facets="site",
                         progress=False)  # fmt: skip
    default = accord.report(frame, item="item", rater="rater", label="label",
                            facets=["s=site"], progress=False)  # fmt: skip
    assert _section(default.html) == _section(bare.html)
    renamed = _section(accord.report(frame, item="item", rater="rater", label="label",
                                     facets="c=site", progress=False).html)  # fmt: skip
    assert "((p:c) x r)" in renamed and "((p:s) x r)" not in renamed
    # the numbers do not depend on the facet's name
    assert renamed == _section(bare.html).replace("(p:s)", "(p:c)")
    with pytest.raises(InvalidInputError, match="facet 'r' is the raters"):
        accord.report(frame, item="item", rater="rater", label="label", facets="r=site",
                      progress=False)  # fmt: skip
    with pytest.raises(InvalidInputError, match="the column 'site' twice: 'o' and 'c'"):
        accord.report(frame, item="item", rater="rater", label="label",
                      facets=["o=site", "c=site"], progress=False)  # fmt: skip
    path = tmp_path / "sites.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "page.html"
    args = ["report", str(path), "--item", "item", "--rater", "rater", "--label", "label"]
    named = CliRunner().invoke(app, [*args, "--facet", "c=site", "-o", str(out), "--quiet"])
    assert named.exit_code == 0, named.output
    assert _section(out.read_text()) == renamed
    for spelling in ("=site", "c="):  # one error, one line, as accord agree --facet says it
        bad = CliRunner().invoke(app, [*args, "--facet", spelling, "-o", str(out)])
        agree = CliRunner().invoke(app, ["agree", str(path), "--item", "item", "--rater",
                                         "rater", "--label", "label", "--design", "(p:s) x r",
                                         "--facet", spelling])  # fmt: skip
        assert bad.exit_code == agree.exit_code == 2 and "Traceback" not in bad.output
        line = (
            f"--facet takes COLUMN or FACET=COLUMN, e.g. occasion or o=occasion; got {spelling!r}"
        )
        assert line in bad.output and line in agree.output
