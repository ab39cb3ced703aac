"""The Markdown pages under docs/ run their `>>>` examples as doctests (from the project root)."""

from __future__ import annotations

import doctest
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(p for p in (ROOT / "docs").glob("*.md") if ">>>" in p.read_text(encoding="utf-8"))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch folder that sees the bundled examples, so pages that write files write there."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_doc_examples_run(page: Path, workdir: Path) -> None:
    os.environ.setdefault("COLUMNS", "120")
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
