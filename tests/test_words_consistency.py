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
