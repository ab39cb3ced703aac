"""The architecture rules that the import contracts of pyproject.toml cannot state.

docs/architecture.md describes the layers; `make lint-imports` checks which package may import
which. This module reads the source of ``src/accord`` with :mod:`ast` and checks three more rules:

* no import cycles between the modules of accord;
* no module imports an underscore name from another package (what packages share is a public
  name of an internal module);
* no function body (docstring excluded) is over 80 lines, unless a ``# long: <why>`` comment on
  the ``def`` line or just above it says why;
* no run of statements spanning six lines or more stands in two function bodies (the same
  statements to the letter, however they are laid out): what one place does, one place does;
* no module imports the package root (``accord/__init__.py`` re-exports every layer, so an import
  through it hides from the import contracts the layer it reaches);
* every private function or method (``_name``, not ``__dunder__`` or ``_sunder_``) is
  referenced somewhere in ``src/accord`` outside its own body: what nothing calls is deleted.

Each rule has one list of today's exceptions, named ``..._TO_REMOVE`` / ``..._TO_SPLIT``. An entry
is a piece of work, not a permission: the lists only shrink, and an entry that no longer applies
fails :func:`test_exception_lists_are_current` until it is deleted.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

#: The longest function body (docstring excluded) without a ``# long: <why>`` comment.
MAX_BODY_LINES = 80

#: Imports that close an import cycle today, as "importer -> imported": the one edge of each
#: cycle that the layout removes. The graph without them has no cycle.
CYCLE_IMPORTS_TO_REMOVE: frozenset[str] = frozenset()

#: Underscore names imported from another package today, as "importer -> module.name".
PRIVATE_IMPORTS_TO_REMOVE: frozenset[str] = frozenset()

#: Functions whose body is over MAX_BODY_LINES lines today, as "module:qualified name".
LONG_FUNCTIONS_TO_SPLIT: frozenset[str] = frozenset()

#: The fewest lines a run of statements spans before standing twice is repetition.
MIN_REPEATED_LINES = 6

#: Private functions that nothing in src/accord references today, as "module:name".
UNREFERENCED_TO_DELETE: frozenset[str] = frozenset()


# --- the source tree -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Module:
    """One module of the source tree: its dotted name, text and whether it is a package."""

    name: str
    source: str
    is_package: bool = False

    @functools.cached_property
    def tree(self) -> ast.Module:
        return ast.parse(self.source, filename=self.name)

    @property
    def package(self) -> str:
        """The unit the module belongs to: ``accord.<x>`` for a subpackage and its modules at
        any depth, and for a public top-level module (``accord.information``); ``accord`` for
        the underscore top-level modules (the core) and the root itself."""
        parts = self.name.split(".")
        if len(parts) > 2 or (
            len(parts) == 2 and (self.is_package or not parts[1].startswith("_"))
        ):
            return ".".join(parts[:2])
        return parts[0]


def read_tree(root: Path) -> dict[str, Module]:
    """The modules under ``root`` (a folder holding the ``accord`` package), by dotted name."""
    modules = {}
    for path in sorted((root / "accord").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        modules[name] = Module(name, path.read_text(encoding="utf-8"), is_package)
    return modules


@functools.cache
def accord_modules() -> Mapping[str, Module]:
    return read_tree(SRC)


@dataclass(frozen=True)
class Import:
    """One imported name: ``module`` is the module it comes from; ``name`` is None when the
    statement imports ``module`` itself."""

    importer: str
    module: str
    name: str | None
    line: int
    local: str | None = None  # the name a module import binds (`from pkg import mod as local`)


def statements(tree: ast.AST) -> Iterator[ast.stmt]:
    """Every statement of ``tree`` at any depth (expressions hold no imports: not walked)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                yield child
                todo.append(child)
            elif isinstance(child, ast.excepthandler | ast.match_case):
                todo.append(child)


def imported_from(module: Module, node: ast.ImportFrom) -> str:
    """The dotted name of the module a ``from ... import`` statement of ``module`` reads."""
    if not node.level:
        return node.module or ""
    here = module.name.split(".") if module.is_package else module.name.split(".")[:-1]
    base = here[: len(here) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(module: Module, modules: Mapping[str, Module]) -> Iterator[Import]:
    """Every import of another accord module anywhere in ``module``: at the top, inside
    functions and under ``TYPE_CHECKING``, relative imports resolved."""
    for node in statements(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    local = alias.asname  # `import a.b` binds `a`: its attributes are modules
                    yield Import(module.name, alias.name, None, node.lineno, local)
        elif isinstance(node, ast.ImportFrom):
            source = imported_from(module, node)
            if source not in modules:
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                if sub in modules:  # `from package import module`
                    local = alias.asname or alias.name
                    yield Import(module.name, sub, None, node.lineno, local)
                else:
                    yield Import(module.name, source, alias.name, node.lineno)


# --- rule 1: no import cycles --------------------------------------------------------------------


def import_graph(modules: Mapping[str, Module]) -> dict[str, dict[str, int]]:
    """importer -> {imported module: first line}, for every import that makes one accord module
    depend on another: at the top of the module, inside a function (a deferred import is still a
    dependency, and deferring one is how a cycle hides) and under ``TYPE_CHECKING`` (a cycle of
    types is a cycle of design). The root package ``accord`` is left out as an importer: it
    re-exports every public name, so each import of it would otherwise close a cycle."""
    graph: dict[str, dict[str, int]] = {name: {} for name in modules}
    for name, module in modules.items():
        if name == "accord":
            continue
        for imp in imports_of(module, modules):
            if imp.module != name:
                graph[name].setdefault(imp.module, imp.line)
    return graph


def cycles(graph: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def without(
    graph: Mapping[str, Mapping[str, int]], edges: frozenset[str]
) -> dict[str, dict[str, int]]:
    """``graph`` less the "importer -> imported" ``edges``."""
    return {
        a: {b: line for b, line in out.items() if f"{a} -> {b}" not in edges}
        for a, out in graph.items()
    }


def reaches(graph: Mapping[str, Mapping[str, int]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        for w in graph.get(todo.pop(), {}):
            if w == goal:
                return True
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return False


def describe(graph: Mapping[str, Mapping[str, int]], component: list[str]) -> str:
    """The shortest cycle through the first module of ``component``, with import lines."""
    inside, start = set(component), component[0]
    came: dict[str, str] = {}
    todo = [start]
    while todo and start not in came:
        v = todo.pop(0)
        for w in sorted(graph[v]):
            if w in inside and w not in came:
                came[w] = v
                todo.append(w)
    path = [start]
    while len(path) == 1 or path[-1] != start:
        path.append(came[path[-1]])
    path.reverse()
    steps = (f"{b} (line {graph[a][b]} of {a})" for a, b in pairwise(path))
    return f"{start} -> " + " -> ".join(steps)


# --- rule 2: no underscore names from another package --------------------------------------------


def private_imports(modules: Mapping[str, Module]) -> dict[str, int]:
    """ "importer -> module.name" -> line, for each underscore name (dunders aside) that a module
    takes from a module of another package: imported by name, or read as an attribute of a
    module imported from another package (``mod._name``)."""
    found: dict[str, int] = {}
    for name, module in modules.items():
        aliases: dict[str, str] = {}  # local name -> module of another package
        for imp in imports_of(module, modules):
            if modules[imp.module].package == module.package:
                continue
            if imp.name is None:
                if imp.local:
                    aliases[imp.local] = imp.module
            elif imp.name.startswith("_") and not imp.name.startswith("__"):
                found.setdefault(f"{name} -> {imp.module}.{imp.name}", imp.line)
        for node in ast.walk(module.tree) if aliases else ():
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.setdefault(f"{name} -> {aliases[node.value.id]}.{node.attr}", node.lineno)
    return found


# --- rule 3: short functions ---------------------------------------------------------------------

_LONG_REASON = re.compile(r"#[ \t]*long:[ \t]*\S")


def long_functions(modules: Mapping[str, Module], limit: int = MAX_BODY_LINES) -> dict[str, int]:
    """ "module:qualified name" -> body lines, for each function whose body (docstring excluded)
    spans more than ``limit`` lines with no ``# long: <why>`` on its ``def`` line or the two
    lines above it."""
    found: dict[str, int] = {}
    for name, module in modules.items():
        lines = module.source.split("\n")

        def visit(node: ast.AST, prefix: str, lines: list[str] = lines, name: str = name) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef):
                    visit(child, f"{prefix}{child.name}.")
                elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    qualified = f"{prefix}{child.name}"
                    body = child.body
                    if (
                        isinstance(body[0], ast.Expr)
                        and isinstance(body[0].value, ast.Constant)
                        and isinstance(body[0].value.value, str)
                    ):
                        body = body[1:]
                    if body:
                        length = (child.end_lineno or child.lineno) - body[0].lineno + 1
                        head = "\n".join(lines[max(0, child.lineno - 3) : child.lineno])
                        if length > limit and not _LONG_REASON.search(head):
                            found[f"{name}:{qualified}"] = length
                    visit(child, f"{qualified}.")
                else:
                    visit(child, prefix)

        visit(module.tree, "")
    return found


# --- rule 4: no repeated statements --------------------------------------------------------------


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def repeated_runs(
    modules: Mapping[str, Module], min_lines: int = MIN_REPEATED_LINES
) -> list[list[str]]:
    """The runs of two or more consecutive statements of a function body that stand in two
    places or more, one of them spanning at least ``min_lines`` lines: one sorted list of
    "module:line" per run. Statements compare as syntax trees, so layout and comments do not
    count and names and values do. Nested definitions and docstrings are not part of a run;
    signatures, docstrings and imports are not statements of a body."""
    places: dict[str, set[str]] = {}
    longest: dict[str, int] = {}
    for name, module in modules.items():
        for fn in ast.walk(module.tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                for field in ("body", "orelse", "finalbody"):
                    statements = getattr(node, field, None)
                    block = [
                        s
                        for s in (statements if isinstance(statements, list) else ())
                        if isinstance(s, ast.stmt)
                        and not _is_docstring(s)
                        and not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                    ]
                    dumps = [ast.dump(s) for s in block]
                    for i, first in enumerate(block):
                        for j in range(i + 1, len(block)):
                            key = "\n".join(dumps[i : j + 1])
                            span = (block[j].end_lineno or block[j].lineno) - first.lineno + 1
                            places.setdefault(key, set()).add(f"{name}:{first.lineno}")
                            longest[key] = max(longest.get(key, 0), span)
    found = {frozenset(p) for key, p in places.items() if len(p) > 1 and longest[key] >= min_lines}
    # The shorter runs that start where a longer one does are the same places: one entry.
    return sorted(sorted(p) for p in found)


# --- rule 5: nothing imports the package root ---------------------------------------------------


def shadowed_names(root: Module) -> frozenset[str]:
    """The public functions of the root named like one of its subpackages (``_SHADOWED``):
    ``from accord import consensus`` binds the function, not the package."""
    for node in root.tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(x, ast.Name) and x.id == "_SHADOWED" for x in node.targets)
            and isinstance(node.value, ast.Call)
        ):
            return frozenset(ast.literal_eval(node.value.args[0]))
    return frozenset()


def root_imports(modules: Mapping[str, Module]) -> dict[str, int]:
    """``"importer -> accord.name": line`` for each name a module of accord takes from the
    package root, and ``"importer -> accord"`` for ``import accord``. A submodule imported with
    ``from .. import datasets`` is an import of that module, unless the root shadows it with a
    function of the same name."""
    shadowed = shadowed_names(modules["accord"])
    found: dict[str, int] = {}
    for name, module in modules.items():
        if name == "accord":
            continue
        for node in statements(module.tree):
            if isinstance(node, ast.Import):
                taken = [None for alias in node.names if alias.name == "accord"]
            elif isinstance(node, ast.ImportFrom) and imported_from(module, node) == "accord":
                taken = [
                    alias.name
                    for alias in node.names
                    if f"accord.{alias.name}" not in modules or alias.name in shadowed
                ]
            else:
                continue
            for taken_name in taken:
                key = f"{name} -> accord" + (f".{taken_name}" if taken_name else "")
                found.setdefault(key, node.lineno)
    return found


# --- rule 6: no private function is unreferenced -------------------------------------------------


def _is_private(name: str) -> bool:
    """``_name``, not ``__dunder__`` nor a ``_sunder_`` hook a library calls (``_repr_html_``)."""
    return name.startswith("_") and not name.endswith("_")


def _referenced_names(module: Module) -> Iterator[tuple[str, int]]:
    """Each name ``module`` uses, with its line: loaded names, attributes, imported names and
    strings spelling an identifier (``getattr(obj, "_name")``)."""
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Name):
            yield node.id, node.lineno
        elif isinstance(node, ast.Attribute):
            yield node.attr, node.lineno
        elif isinstance(node, ast.ImportFrom):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.Constant) and str(node.value).isidentifier():
            yield str(node.value), node.lineno


def unreferenced_private_functions(modules: Mapping[str, Module]) -> dict[str, int]:
    """``"module:name": line`` for each private function or method that no module of accord
    names outside the function's own body (a recursive call is no use)."""
    uses: dict[str, list[tuple[str, int]]] = {}
    for name, module in modules.items():
        for used, line in _referenced_names(module):
            uses.setdefault(used, []).append((name, line))
    found: dict[str, int] = {}
    for name, module in modules.items():
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if not _is_private(node.name):
                continue
            end = node.end_lineno or node.lineno
            outside = [
                (where, line)
                for where, line in uses.get(node.name, [])
                if where != name or not node.lineno <= line <= end
            ]
            if not outside:
                found.setdefault(f"{name}:{node.name}", node.lineno)
    return found


# --- the rules on accord -------------------------------------------------------------------------


def test_no_import_cycles() -> None:
    graph = without(import_graph(accord_modules()), CYCLE_IMPORTS_TO_REMOVE)
    found = [describe(graph, c) for c in cycles(graph)]
    assert not found, "import cycles: " + " | ".join(found)


def test_no_private_names_across_packages() -> None:
    found = private_imports(accord_modules())
    new = sorted(
        f"{k} (line {line})" for k, line in found.items() if k not in PRIVATE_IMPORTS_TO_REMOVE
    )
    assert not new, (
        "underscore names imported from another package (share a public name of an internal "
        "module with __all__ instead): " + "; ".join(new)
    )


def test_function_bodies_are_short() -> None:
    found = long_functions(accord_modules())
    new = sorted(f"{k} ({n} lines)" for k, n in found.items() if k not in LONG_FUNCTIONS_TO_SPLIT)
    assert not new, (
        f"function bodies over {MAX_BODY_LINES} lines (split them, or say why in a "
        "'# long: <why>' comment on or just above the def): " + "; ".join(new)
    )


def test_no_repeated_statements() -> None:
    found = repeated_runs(accord_modules())
    assert not found, (
        f"runs of statements over {MIN_REPEATED_LINES - 1} lines written twice (make them one "
        "function, or one loop over what differs): " + "; ".join(" = ".join(p) for p in found)
    )


def test_no_imports_through_the_package_root() -> None:
    found = root_imports(accord_modules())
    assert not found, (
        "imports through the package root, which hide from the import contracts the layer they "
        "reach (import each name from the module that defines it, as accord/__init__.py's "
        "_EXPORTS says): " + "; ".join(f"{k} (line {line})" for k, line in sorted(found.items()))
    )


def test_no_private_function_is_unreferenced() -> None:
    found = unreferenced_private_functions(accord_modules())
    new = sorted(f"{k} (line {n})" for k, n in found.items() if k not in UNREFERENCED_TO_DELETE)
    assert not new, "private functions nothing references (delete them): " + "; ".join(new)


def test_exception_lists_are_current() -> None:
    """Each entry of the lists above still names something to fix; delete it once fixed."""
    modules = accord_modules()
    graph = import_graph(modules)
    stale = [
        edge
        for edge in sorted(CYCLE_IMPORTS_TO_REMOVE)
        if (parts := edge.split(" -> "))[1] not in graph.get(parts[0], {})
        or not reaches(graph, parts[1], parts[0])
    ]
    stale += sorted(PRIVATE_IMPORTS_TO_REMOVE - private_imports(modules).keys())
    stale += sorted(LONG_FUNCTIONS_TO_SPLIT - long_functions(modules).keys())
    stale += sorted(UNREFERENCED_TO_DELETE - unreferenced_private_functions(modules).keys())
    assert not stale, "fixed, delete from the exception lists: " + "; ".join(stale)


# --- the checkers on small made-up packages ------------------------------------------------------


def _tree(**files: str) -> dict[str, Module]:
    """Modules from keyword arguments: ``accord__x__init`` is the package ``accord.x``."""
    out = {"accord": Module("accord", "", is_package=True)}
    for key, source in files.items():
        parts = key.split("__")
        is_package = parts[-1] == "init"
        name = ".".join(parts[:-1] if is_package else parts)
        out[name] = Module(name, source, is_package)
    return out


def test_cycle_checker_sees_deferred_and_type_checking_imports() -> None:
    modules = _tree(
        accord__a__init="",
        accord__a__one="from .two import f\n",
        accord__a__two="def g():\n    from .one import h\n",
        accord__b__init="",
        accord__b__one=(
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .two import T\n"
        ),
        accord__b__two="from . import one\n",
        accord__c="from .a import one\n",
    )
    graph = import_graph(modules)
    assert cycles(graph) == [["accord.a.one", "accord.a.two"], ["accord.b.one", "accord.b.two"]]
    assert cycles(without(graph, frozenset({"accord.a.two -> accord.a.one"}))) == [
        ["accord.b.one", "accord.b.two"]
    ]
    assert describe(graph, ["accord.a.one", "accord.a.two"]) == (
        "accord.a.one -> accord.a.two (line 1 of accord.a.one)"
        " -> accord.a.one (line 2 of accord.a.two)"
    )
    assert reaches(graph, "accord.c", "accord.a.two")
    assert not reaches(graph, "accord.a.two", "accord.c")


def test_private_name_checker() -> None:
    modules = _tree(
        accord___core="def _shared(): ...\n",
        accord___other="from ._core import _shared\n",  # the core is one package: allowed
        accord__public="from ._core import _shared\n",  # a public top-level module is not core
        accord__x__init="",
        accord__x___impl="def _helper(): ...\ndef _other(): ...\ndef public(): ...\n",
        accord__x__mod="from ._impl import _helper\n",  # same package: allowed
        accord__x__sub__init="",
        accord__x__sub__deep="from .._impl import _helper\n",  # a subpackage: allowed
        accord__y__init="",
        accord__y__use=(
            "from ..x._impl import _helper, public\n"
            "from ..x import _impl as impl\n"
            "def f():\n"
            "    from accord._core import _shared\n"
            "    return impl._other, impl.public, _shared, __name__\n"
        ),
    )
    assert private_imports(modules) == {
        "accord.public -> accord._core._shared": 1,
        "accord.y.use -> accord.x._impl._helper": 1,
        "accord.y.use -> accord._core._shared": 4,
        "accord.y.use -> accord.x._impl._other": 5,
    }


def test_root_import_checker() -> None:
    modules = _tree(
        accord__init=('_SHADOWED = frozenset({"consensus"})\n'),
        accord__consensus__init="",
        accord__datasets__init="",
        accord__report__init="from .. import datasets\n",  # a submodule: allowed
        accord__report__page=(
            "from .. import Ratings\n"
            "def f():\n"
            "    from .. import consensus, datasets\n"  # the function consensus, shadowing
            "    import accord\n"
            "    from accord import cohen_kappa as kappa\n"
            "    from ..consensus import gold\n"  # the module that defines it: allowed
        ),
    )
    assert root_imports(modules) == {
        "accord.report.page -> accord.Ratings": 1,
        "accord.report.page -> accord.consensus": 3,
        "accord.report.page -> accord": 4,
        "accord.report.page -> accord.cohen_kappa": 5,
    }


def test_unreferenced_private_function_checker() -> None:
    modules = _tree(
        accord__a=(
            "def _used(): ...\n"
            "def _recursive(n):\n"
            "    return _recursive(n - 1)\n"
            "def _by_name(): ...\n"
            "def __dunder__(): ...\n"
            "def _repr_html_(): ...\n"
            "class C:\n"
            "    def _method(self): ...\n"
            "    def _called(self): ...\n"
            "    def public(self):\n"
            "        return self._called(), getattr(self, '_by_name')\n"
            "def public():\n"
            "    def _inner(): ...\n"
            "    return _inner\n"
        ),
        accord__b="from .a import _used\n",
    )
    assert unreferenced_private_functions(modules) == {
        "accord.a:_recursive": 2,
        "accord.a:_method": 8,
    }


def _function(name: str, lines: int, head: str = "", indent: str = "") -> str:
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(lines))
    return f'{head}{indent}def {name}():\n{indent}    """Doc."""\n{body}'


@pytest.mark.parametrize(
    ("head", "flagged"),
    [
        ("", True),
        ("# long: one table of cases, clearer whole\n", False),
        ("# long:\n", True),  # a reason is required
        ("# long: reads as one recipe\n@decorator\n", False),
        ("# long: too far above\n\n\n", True),
    ],
)
def test_long_function_checker(head: str, flagged: bool) -> None:
    source = _function("f", MAX_BODY_LINES + 1, head) + _function("g", MAX_BODY_LINES)
    found = long_functions(_tree(accord__m=source))
    assert found == ({"accord.m:f": MAX_BODY_LINES + 1} if flagged else {})
    method = "class C:\n" + _function("f", MAX_BODY_LINES + 1, indent="    ")
    assert list(long_functions(_tree(accord__m=method))) == ["accord.m:C.f"]


def test_repeated_statements_checker() -> None:
    run = "    a = f(x)\n    b = g(\n        a,\n        x,\n    )\n    return h(a, b)\n"
    laid_out = "    a = f(x)  # a comment\n    b = g(a, x)\n    return h(a, b)\n"
    files = {
        "accord__m": f'def f(x):\n    """Doc."""\n{run}\n\ndef g(x):\n{run}',
        "accord__n": f"class C:\n    def f(self, x):\n        if x:\n{_indent(run, 8)}",
        "accord__o": f"def f(x):\n{laid_out}",
    }
    # The same statements laid out otherwise are the same run.
    assert repeated_runs(_tree(**files)) == [
        ["accord.m:12", "accord.m:3", "accord.n:4", "accord.o:2"]
    ]
    # Shorter than the bar, other names or a single statement: not a repeated run.
    assert repeated_runs(_tree(**files), min_lines=8) == []
    other = run.replace("g(", "k(")
    assert repeated_runs(_tree(accord__m=f"def f(x):\n{run}\ndef g(x):\n{other}")) == []
    one = "    return g(\n        a,\n        b,\n        c,\n        d,\n    )\n"
    assert repeated_runs(_tree(accord__m=f"def f():\n{one}\ndef g():\n{one}")) == []


def _indent(text: str, by: int) -> str:
    return "".join(" " * by + line + "\n" for line in text.splitlines())


def test_import_contracts_have_no_exceptions() -> None:
    """The contracts of pyproject.toml hold without ignored imports (a presenter takes its
    numbers from result objects, not from accord.stats)."""
    import tomllib

    config = tomllib.loads((SRC.parent / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    excepted = {c["id"]: c["ignore_imports"] for c in contracts if c.get("ignore_imports")}
    assert not excepted, excepted


#: The test files that stay at the top of tests/: what holds across the packages of src.
CROSS_CUTTING_TESTS = frozenset({
    "architecture", "benchmark_bands", "docs", "docs_browser", "estimator_keywords",
    "foundation_slice", "information", "methods_text", "notebook_words", "option_checks",
    "registry", "results_display", "startup", "words_consistency",
})  # fmt: skip


def test_tests_mirror_the_packages_of_src() -> None:
    """A test file is in the folder of the package it tests (tests/<package>/), each folder
    names a package of src (or the command line's, cli), and only the cross-cutting files
    stay at the top."""
    tests = Path(__file__).resolve().parent
    packages = {p.name for p in (tests.parent / "src" / "accord").iterdir() if p.is_dir()}
    top = {p.stem.removeprefix("test_") for p in tests.glob("test_*.py")}
    assert top <= CROSS_CUTTING_TESTS, sorted(top - CROSS_CUTTING_TESTS)
    folders = {p.parent.name for p in tests.glob("*/test_*.py")}
    assert folders <= packages, sorted(folders - packages)
    for folder in folders:
        assert (tests / folder / "__init__.py").is_file(), folder
