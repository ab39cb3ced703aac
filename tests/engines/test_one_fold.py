"""Every pass of the engines over an input's batches or partitions goes through the one fold
(``accord.engines.fold``): no other function of ``src`` loops over a chunk reader."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import accord

SRC = Path(accord.__file__).parent

#: What reads an input part by part: the batch readers and the partition runner.
READERS = {"batches", "_batches", "iter_batches", "scan_batches", "to_batches", "run_partitions"}

#: Where they may be used besides readers (loops that yield each part to a fold): the fold,
#: whose kept form (fold_kept) leaves each partition's output where it was computed (the
#: dask engine's first read keeps the codes of each partition for the later passes).
ALLOWED = {
    ("engines/fold.py", "fold_partitions"),
    ("engines/fold.py", "fold_kept"),
}


def _name(func: ast.expr) -> str | None:
    return getattr(func, "id", None) or getattr(func, "attr", None)


def _own_nodes(fn: ast.AST) -> list[ast.AST]:
    """The nodes of a function's body, not those of functions defined inside it."""
    out, todo = [], list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        out.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return out


def _yields(loop: ast.AST) -> bool:
    return any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(loop))


def _chunk_loops() -> set[tuple[str, str]]:
    """(file, function) of every loop over a chunk reader that does not hand each part on
    (a reader's ``yield``), and of every call of the partition runner."""
    found = set()
    for path in SRC.rglob("*.py"):
        where = path.relative_to(SRC).as_posix()
        for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in _own_nodes(fn):
                looped = (
                    isinstance(node, ast.For)
                    and isinstance(node.iter, ast.Call)
                    and _name(node.iter.func) in READERS
                    and not _yields(node)
                )
                comprehended = isinstance(node, ast.ListComp | ast.SetComp) and any(
                    isinstance(g.iter, ast.Call) and _name(g.iter.func) in READERS
                    for g in node.generators
                )
                called = isinstance(node, ast.Call) and _name(node.func) == "run_partitions"
                if looped or comprehended or called:
                    found.add((where, fn.name))
    return found


def test_no_chunk_loop_outside_the_fold() -> None:
    assert _chunk_loops() - ALLOWED == set()


def test_the_search_finds_a_loop(tmp_path: Path, monkeypatch: object) -> None:
    # a loop that sums the batches by hand is found; a reader's loop that yields is not
    bad = "def f(d):\n    n = 0\n    for row0, b in batches(d, [], 1, None, 0):\n        n += 1\n"
    reader = "def g(d):\n    for row0, b in batches(d, [], 1, None, 0):\n        yield b\n"
    (tmp_path / "m.py").write_text(bad + reader, encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path)  # type: ignore[attr-defined]
    assert _chunk_loops() == {("m.py", "f")}
