"""The command line and the report say the same thing about the same file: every bundled data
set goes through ``accord agree`` and ``accord report``, and (a) both headline the same
coefficient with the same value, (c) every coefficient the methods paragraph names is on the
page and the page's headline is named in the paragraph; the paragraph and the page number
their references alike, and the paragraph gives no advice in the library's dialect."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli import app
from accord.datasets import path as data_path

FILES = {
    "diagnoses": ["diagnoses.csv", "--item", "patient", "--rater", "rater", "--label",
                  "diagnosis"],
    "birads": ["birads.csv", "--item", "finding", "--rater", "modality", "--label", "birads",
               "--level", "ordinal"],
    "pefr": ["pefr.csv", "--item", "subject", "--rater", "meter", "--label", "pefr",
             "--level", "ratio"],
    "pandalm": ["pandalm.csv", "--item", "item", "--rater", "rater", "--label", "preference"],
    "panel": ["panel.csv", "--item", "proposal", "--rater", "reviewer", "--label", "score",
              "--level", "interval"],
    "sets": ["diagnoses.csv", "--item", "patient", "--rater", "rater", "--label", "diagnosis",
             "--multi-label"],
    "label-studio": ["label_studio.json", "--from", "label-studio", "--field", "sentiment"],
}  # fmt: skip

#: "NAME VALUE (95% CI ...": a verdict's head.
HEAD = re.compile(r"^(?P<name>.+?) (?P<value>-?\d+\.\d+) \(\d+% CI")


def _file(name: str) -> str:
    if name.endswith(".json"):
        return str(data_path("annotation-tools") / name)
    return str(data_path(name))


def _run(args: list[str]) -> str:
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def _page(html_text: str) -> tuple[str, str]:
    """The page's words without the methods paragraph, and the paragraph."""
    found = re.search(r'<pre class="copy"[^>]*>(.*?)</pre>', html_text, flags=re.S)
    assert found is not None
    para = html.unescape(found.group(1))
    rest = html_text[: found.start()] + html_text[found.end() :]
    rest = re.sub(r"<style.*?</style>", "", rest, flags=re.S)
    words = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", rest)))
    return words, re.sub(r"\s+", " ", para)


def _named(paragraph: str) -> list[str]:
    """The coefficients of the paragraph's "Agreement was estimated with ..." sentence."""
    found = re.search(r"Agreement was estimated with (.*?)\.(?: [A-Z]|$)", paragraph)
    assert found is not None, paragraph
    return [n.strip(" ,").removeprefix("and ").strip() for n in
            re.findall(r"(.*?) \[[\d, ]+\](?:,| and|$)", found.group(1))]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FILES))
def test_agree_and_report_say_the_same(name: str, tmp_path: Path) -> None:
    file, *options = FILES[name]
    agree = _run(["agree", _file(file), *options])
    out = tmp_path / "page.html"
    _run(["report", _file(file), *options, "-o", str(out), "-q"])
    words, paragraph = _page(out.read_text(encoding="utf-8"))
    said = HEAD.match(agree.splitlines()[0])
    assert said is not None, agree
    # (a) the same headline: the report's summary opens with it, to three decimals
    lead = words.split("Can I trust these raters?", 2)[2].strip()
    shown = HEAD.match(lead)
    assert shown is not None, lead[:300]
    assert shown["name"] == said["name"]
    assert f"{float(shown['value']):.2f}" == said["value"]
    # (c) the headline is named in the paragraph; every coefficient named is on the page
    assert f"The headline coefficient is {said['name']}." in paragraph
    for coefficient in _named(paragraph):
        assert coefficient in words, coefficient
    # no advice in a dialect: a paper says what was done
    assert "ci='" not in paragraph and "--ci" not in paragraph
    # the paragraph's references carry the numbers of the page's reference list
    refs = dict(re.findall(r"\[(\d+)\] (.+?)(?= \[\d+\] |$)", paragraph.split("References", 1)[1]))
    for number, text in refs.items():
        assert f"[{number}] {text.strip()}" in words


# --- (b) every number a sentence cites equals the field it names -----------------------------

#: "(95% CI LOW to HIGH)": a verdict's interval.
INTERVAL = re.compile(r"\((?P<level>\d+)% CI (?P<low>-?\d+\.\d+) to (?P<high>-?\d+\.\d+)\)")


@pytest.mark.parametrize("name", list(FILES))
def test_every_number_of_the_verdict_is_the_field_it_names(name: str) -> None:
    """The verdict's value and interval are those of the JSON row its name names (the row's
    label as the verdict writes labels), rounded as printed."""
    import json
    from types import SimpleNamespace

    from accord._verdict import short_label

    file, *options = FILES[name]
    said = _run(["agree", _file(file), *options]).splitlines()[0]
    head, interval = HEAD.match(said), INTERVAL.search(said)
    assert head is not None and interval is not None, said
    rows = json.loads(_run(["agree", _file(file), *options, "--format", "json"]))["result"]
    named = [r for r in rows["coefficients"] if short_label(SimpleNamespace(**r)) == head["name"]]
    assert named, (head["name"], [r["name"] for r in rows["coefficients"]])
    digits = len(head["value"].split(".")[1])
    assert any(
        f"{r['statistic']:.{digits}f}" == head["value"]
        and f"{r['ci_low']:.{digits}f}" == interval["low"]
        and f"{r['ci_high']:.{digits}f}" == interval["high"]
        and r["confidence_level"] == int(interval["level"]) / 100
        for r in named
    ), (said, named)


def test_the_panel_verdict_cites_the_fields_of_the_calibration() -> None:
    """``accord calibrate``'s verdict: the items, raters, the spread of the biases (their SD,
    computed here from the JSON's biases) and the residual per degree of freedom."""
    import json
    import statistics

    args = ["calibrate", _file("panel.csv"), "--item", "proposal", "--rater", "reviewer",
            "--score", "score", "--confidence", "confidence"]  # fmt: skip
    said = " ".join(_run(args).split("\n")[:2])
    result = json.loads(_run([*args, "--format", "json"]))["result"]
    spread = statistics.stdev(b["bias"] for b in result["biases"])
    expected = (
        f"{result['n_items']} items scored by {result['n_raters']} raters on score: their "
        f"biases spread by {spread:.2f} (SD); residual per degree of freedom "
        f"{result['residual_per_dof']:.2f}"
    )
    assert " ".join(said.split()).startswith(expected), said


# --- (d) compared quantities have the same unit ---------------------------------------------

#: A number and the unit after it.
QUANTITY = re.compile(r"(-?\d+(?:\.\d+)?)\s+(bits per unit|bits|items|raters|ratings|units)\b")
#: Words that compare two quantities in a sentence.
COMPARING = re.compile(r"\b(?:above|below|than|against|versus)\b")


def _text(fragment: str) -> str:
    """The words of an HTML fragment."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment))).strip()


def _compared(words: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each sentence that compares, with the quantities it cites."""
    out = []
    for sentence in re.split(r"(?<=[.;:])\s+", words):
        quantities = QUANTITY.findall(sentence)
        if COMPARING.search(sentence) and len(quantities) >= 2:
            out.append((sentence, quantities))
    return out


def test_a_comparison_of_log_losses_compares_per_unit_values(tmp_path: Path) -> None:
    """Confidences that mislead (high when wrong): the page compares their log loss per unit
    with the constant's per unit (the binary entropy of the accuracy, computed here), not
    with a total."""
    import math

    import pandas as pd

    import accord

    correct = [1, 0] * 20
    confidence = [0.3 if c else 0.8 for c in correct]
    rows = [{"item": k, "rater": r, "label": "x", "correct": c, "confidence": p}
            for k, (c, p) in enumerate(zip(correct, confidence, strict=True))
            for r in ("a", "b")]  # fmt: skip
    page = accord.report(pd.DataFrame(rows), item="item", rater="rater", label="label",
                         confidence="confidence", correct="correct", progress=False)  # fmt: skip
    words, _ = _page(page.html)
    compared = [(s, q) for s, q in _compared(words) if "log loss" in s]
    assert compared, "no comparison of log losses on the page"
    for sentence, quantities in compared:
        assert len({unit for _, unit in quantities}) == 1, sentence
    # the numbers: mean log loss of the confidences and the entropy of 50% accuracy, per unit
    loss = -sum(math.log2(p if c else 1 - p) for c, p in zip(correct, confidence, strict=True))
    (sentence, quantities), *_ = compared
    assert quantities[0] == (f"{loss / len(correct):.3f}", "bits per unit"), sentence
    assert quantities[1] == ("1.000", "bits per unit"), sentence  # H(0.5) = 1 bit


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FILES))
def test_every_comparison_on_a_page_shares_its_unit(name: str, tmp_path: Path) -> None:
    file, *options = FILES[name]
    out = tmp_path / "page.html"
    _run(["report", _file(file), *options, "-o", str(out), "-q"])
    _, paragraph = _page(out.read_text(encoding="utf-8"))
    prose = [_text(p) for p in re.findall(r"<p\b[^>]*>(.*?)</p>", out.read_text(), flags=re.S)]
    for sentence, quantities in _compared(" ".join([*prose, paragraph])):
        assert len({unit for _, unit in quantities}) == 1, sentence


# --- the docs' examples -----------------------------------------------------------------------

#: The options of ``accord agree`` that ``accord report`` takes with the same meaning.
SHARED_FLAGS = {"--item", "--rater", "--label", "--level", "--categories", "--na-values",
                "--labels-as", "--duplicates", "--sep", "--encoding", "--from", "--field",
                "--multi-label"}  # fmt: skip


def _docs_agree_commands() -> list[list[str]]:
    """Every ``accord agree`` command of README.md and docs/*.md on a bundled file whose
    options ``accord report`` takes too."""
    import shlex

    root = Path(__file__).resolve().parents[1]
    found: dict[str, list[str]] = {}
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8").replace("\\\n", " ")
        for line in text.splitlines():
            line = line.strip().removeprefix("$ ")
            if not line.startswith("accord agree examples/"):
                continue
            words = shlex.split(line)[2:]
            flags = {w for w in words[1:] if w.startswith("--")}
            if flags <= SHARED_FLAGS and (root / words[0]).exists():
                found[" ".join(words)] = [str(root / words[0]), *words[1:]]
    return list(found.values())


DOCS = _docs_agree_commands()


def test_the_docs_have_agree_examples_to_check() -> None:
    assert len(DOCS) >= 4, DOCS


@pytest.mark.slow
@pytest.mark.parametrize("args", DOCS, ids=[" ".join(a[1:])[:50] for a in DOCS])
def test_the_docs_examples_say_the_same_in_agree_and_report(
    args: list[str], tmp_path: Path
) -> None:
    agree = _run(["agree", *args])
    out = tmp_path / "page.html"
    _run(["report", *args, "-o", str(out), "-q"])
    words, paragraph = _page(out.read_text(encoding="utf-8"))
    said = HEAD.match(agree.splitlines()[0])
    assert said is not None, agree
    lead = words.split("Can I trust these raters?", 2)[2].strip()
    shown = HEAD.match(lead)
    assert shown is not None and shown["name"] == said["name"], lead[:300]
    assert f"{float(shown['value']):.2f}" == said["value"]
    assert f"The headline coefficient is {said['name']}." in paragraph
    for coefficient in _named(paragraph):
        assert coefficient in words, coefficient
