"""The Markdown pages under docs/ run their `>>>` examples as doctests (from the project root)."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import re
import types
from pathlib import Path
from types import ModuleType

import pytest
import yaml

import accord

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(p for p in (ROOT / "docs").glob("*.md") if ">>>" in p.read_text(encoding="utf-8"))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch folder that sees the bundled examples, so pages that write files write there."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    # the pages show tables as printed 120 columns wide, whatever the terminal running the
    # tests is (pandas and the command line read COLUMNS)
    monkeypatch.setenv("COLUMNS", "120")
    return tmp_path


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_doc_examples_run(page: Path, workdir: Path) -> None:
    result = doctest.testfile(
        str(page),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
    )
    assert result.failed == 0, f"{result.failed} example(s) failed in {page.name}"


def test_readme_examples_run(workdir: Path) -> None:
    result = doctest.testfile(
        str(ROOT / "README.md"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.failed == 0


def test_readme_opens_with_the_two_commands() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    block = lines[lines.index("```") + 1 : lines.index("```") + 3]
    assert block[0].startswith("make demo") and block[1].startswith("make test")


# The documentation site (mkdocs.yml; `make docs` builds it with warnings as errors).

INTERNAL_WORDS = re.compile(
    r"\bthe seed\b|\bseed's\b|\(seed \d+\)|\bthe spec\b|\bspec's\b|\bspecification\b", re.I
)


def _load_hook(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "hooks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [page for entry in node for page in _nav_pages(entry)]
    if isinstance(node, dict):
        return [page for value in node.values() for page in _nav_pages(value)]
    return []


def test_every_page_is_in_the_navigation_once() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = _nav_pages(config["nav"])
    pages = sorted(
        p.relative_to(ROOT / "docs").as_posix()
        for p in (ROOT / "docs").rglob("*.md")
        if "hooks" not in p.parts
    )
    assert sorted(nav) == pages


def test_api_reference_documents_every_public_name() -> None:
    """Each name of accord.__all__ has its own `::: path` entry, a path that ends in the name."""
    documented: dict[str, str] = {}
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        for path in re.findall(r"^::: (\S+)$", page.read_text(encoding="utf-8"), re.M):
            name = path.rsplit(".", 1)[-1]
            assert name not in documented, f"{name} documented twice"
            documented[name] = path
    assert set(documented) == set(accord.__all__) - {"__version__"}
    for name, path in documented.items():
        module, _, attribute = path.rpartition(".")
        assert getattr(importlib.import_module(module), attribute) is getattr(accord, name)


def test_api_reference_entries_are_not_modules() -> None:
    """`accord.icc` is a function at run time but also a module's name: the entry must say which."""
    griffe = pytest.importorskip("griffe")
    package = griffe.load("accord", search_paths=[str(ROOT / "src")])
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        for path in re.findall(r"^::: (\S+)$", page.read_text(encoding="utf-8"), re.M):
            obj = package[path.removeprefix("accord.")]
            target = obj.final_target if obj.is_alias else obj
            public = getattr(accord, path.rsplit(".", 1)[-1])
            is_module = isinstance(public, types.ModuleType)  # accord.datasets is one
            assert target.is_module == is_module, f"{page.name}: {path} is a module"


def test_no_internal_words_in_the_docs() -> None:
    files = [*(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.py"), ROOT / "mkdocs.yml"]
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if INTERNAL_WORDS.search(line)
    ]
    assert found == []


def test_site_loads_nothing_from_the_network() -> None:
    """The site builds and reads offline: no web fonts, no external scripts or styles."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["theme"]["font"] is False
    assert not config.get("extra_javascript") and not config.get("extra_css")


def test_bare_doctests_are_fenced_for_the_site() -> None:
    fence = _load_hook("doctest_blocks").fence_doctests
    page = "Text.\n\n>>> 1 + 1\n2\n>>> print('a')\na\n\nMore.\n"
    assert fence(page) == ("Text.\n\n```pycon\n>>> 1 + 1\n2\n>>> print('a')\na\n```\n\nMore.\n")
    fenced = "```python\n>>> 1 + 1\n2\n```\n"
    assert fence(fenced) == fenced
    listed = "- item\n\n    >>> 1\n    1\n"
    assert fence(listed) == "- item\n\n    ```pycon\n    >>> 1\n    1\n    ```\n"


def test_docstring_markup_becomes_markdown() -> None:
    markdown = _load_hook("numpydoc_markup").markdown
    assert (
        markdown("See :func:`~accord.cohen_kappa`.") == "See [`cohen_kappa`][accord.cohen_kappa]."
    )
    assert markdown(":meth:`accord.Ratings.from_long`") == (
        "[`accord.Ratings.from_long`][accord.Ratings.from_long]"
    )
    assert markdown(":func:`accord.consensus`") == (
        "[`accord.consensus`][accord.front.consensus.consensus]"
    )
    # a private or module name has no page of its own: inline code
    assert markdown(":func:`~accord.agreement.weights.agreement_weights`") == "`agreement_weights`"
    assert markdown(":class:`ItemPatterns`") == "`ItemPatterns`"
    assert markdown("ratio :math:`2a / (2a + b)` here") == "ratio `2a / (2a + b)` here"
    text = "Intro:\n\n.. math::\n\n    a = b\n    + c\n\nAfter [1]_.\n\n.. [1] Someone (2000).\n"
    assert markdown(text) == (
        "Intro:\n\n```latex\na = b\n+ c\n```\n\nAfter [1].\n\n- [1] Someone (2000).\n"
    )
    continued = 'Summary.\n\n    w : {"a", \\\n"b"}, optional\n        Text.'
    assert markdown(continued) == 'Summary.\n\nw : {"a", "b"}, optional\n    Text.'


def test_decision_figure_is_up_to_date(tmp_path: Path) -> None:
    """docs/which-coefficient.svg is what docs/which_coefficient_figure.py draws, byte for byte."""
    pytest.importorskip("matplotlib")
    spec = importlib.util.spec_from_file_location(
        "which_coefficient_figure", ROOT / "docs" / "which_coefficient_figure.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "figure.svg"
    module.main(out)
    assert out.read_bytes() == (ROOT / "docs" / "which-coefficient.svg").read_bytes()


def test_docstring_examples_run_from_any_folder() -> None:
    # A user runs an API example where accord is installed, with no checkout around it: the
    # files an example reads come from accord.datasets, never from tests/ or examples/.
    pattern = re.compile(r"""["'](tests|examples)/""")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "src" / "accord").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.lstrip().startswith((">>>", "...")) and pattern.search(line)
    ]
    assert not found, found
