"""Griffe extension: show the reStructuredText markup of accord's numpydoc docstrings as Markdown.

The docstrings are written for numpydoc (and read as plain text by ``help()``); the API
reference renders them as Markdown. This extension rewrites, before the docstrings are parsed:

- cross-reference roles (``:func:`~accord.cohen_kappa```, ``:class:`Ratings```, ...) into links
  to the API reference when they name a public object of accord, else into inline code;
- ``:math:`...``` into inline code and ``.. math::`` blocks into ``latex`` code blocks (the site
  loads no script, so formulas are shown as their TeX source);
- citations (``.. [1] ...`` and ``[1]_``) into a list and plain ``[1]``;
- a line ending in a backslash (a long parameter type continued on the next line) into one
  line, so that the docstring dedents as a whole.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from typing import Any

import griffe

import accord

PUBLIC = frozenset(accord.__all__)
# Public functions that share their name with a module: the reference documents them under
# the module that defines them (docs/api/*.md names them so too).
SHADOWED = {
    "agreement": "accord.front.agreement.agreement",
    "consensus": "accord.front.consensus.consensus",
    "icc": "accord.agreement.icc.icc",
    "report": "accord.report.report",
}

ROLE = re.compile(r":(?:class|func|meth|attr|data|mod|exc|obj):`(~?)([^`<>]+)`")
MATH_ROLE = re.compile(r":math:`([^`]+)`")
MATH_BLOCK = re.compile(r"^(?P<indent>[ ]*)\.\. math::[ ]*$")
CITATION = re.compile(r"^(?P<indent>[ ]*)\.\. \[(?P<key>[\w#-]+)\][ ]+", re.MULTILINE)
CITATION_REF = re.compile(r"\[([\w#-]+)\]_")


def reference_id(target: str) -> str | None:
    """The anchor of ``target`` in the API reference, or None when it has none there."""
    path = target.removeprefix("accord.")
    head, _, rest = path.partition(".")
    if head in SHADOWED:
        return None if rest else SHADOWED[head]
    if head in PUBLIC:
        return f"accord.{path}"
    return None


def _role(match: re.Match[str]) -> str:
    short, target = match.group(1), match.group(2).strip()
    shown = target.rsplit(".", 1)[-1] if short else target
    anchor = reference_id(target)
    return f"[`{shown}`][{anchor}]" if anchor else f"`{shown}`"


def _math_blocks(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = MATH_BLOCK.match(lines[i])
        if match is None:
            out.append(lines[i])
            i += 1
            continue
        indent = match.group("indent")
        i += 1
        body: list[str] = []
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith(indent + " ")):
            body.append(lines[i])
            i += 1
        while body and not body[-1].strip():
            body.pop()
        formula = textwrap.dedent("\n".join(body)).strip("\n")
        out.append(f"{indent}```latex")
        out.extend(f"{indent}{line}" if line else "" for line in formula.split("\n"))
        out.append(f"{indent}```")
        out.append("")
    return "\n".join(out)


def markdown(text: str) -> str:
    """Rewrite the reStructuredText constructs of a numpydoc docstring as Markdown."""
    if "\\\n" in text:
        text = inspect.cleandoc(re.sub(r"\\\n\s*", "", text))
    text = ROLE.sub(_role, text)
    text = MATH_ROLE.sub(lambda m: f"`{m.group(1)}`", text)
    text = _math_blocks(text)
    text = CITATION.sub(lambda m: f"{m.group('indent')}- [{m.group('key')}] ", text)
    return CITATION_REF.sub(lambda m: f"[{m.group(1)}]", text)


class NumpydocMarkup(griffe.Extension):
    """Rewrite every docstring of the package as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
