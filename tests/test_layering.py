"""The package's import structure, read from the source with `ast` (no module is imported): no import
circle between the modules of pipeline/, and the layering docs/architecture.md describes -- the mathematics
(search/) knows nothing of stages, Ray or Hydra, the runtime knows nothing of games, the independent checker
(proofs/) nothing of the prover, and nothing below the command line imports it.

Every import statement counts, module level or inside a function: an import deferred into a function still
makes one module depend on the other.  `from a.b import c` depends on the module a.b (whose namespace it
reads) and, when a.b.c is a module, on a.b.c too; `import a.b.c` depends on a.b.c."""

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pipeline"


@dataclass(frozen=True)
class Import:
    """One dependency of a module: the module it names, and the statement (line, source) that names it."""

    module: str
    line: int
    statement: str


def module_name(path: Path) -> str:
    """pipeline.x.y for pipeline/x/y.py, pipeline.x for pipeline/x/__init__.py."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@lru_cache(maxsize=None)
def modules() -> dict[str, Path]:
    """Every module of the package by name."""
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def absolute(name: str, node: ast.ImportFrom) -> str:
    """The absolute module a `from` statement in module `name` reads (relative imports resolved)."""
    if not node.level:
        return node.module
    package = name.split(".") if modules()[name].name == "__init__.py" else name.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


@lru_cache(maxsize=None)
def imports(name: str) -> tuple[Import, ...]:
    """The modules `name` depends on (inside the package or not), one entry per statement and module."""
    tree = ast.parse(modules()[name].read_text(), filename=str(modules()[name]))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(alias.name, node.lineno, ast.unparse(node)) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = absolute(name, node)
            found.append(Import(source, node.lineno, ast.unparse(node)))
            found += [Import(f"{source}.{alias.name}", node.lineno, ast.unparse(node)) for alias in node.names
                      if f"{source}.{alias.name}" in modules()]
    return tuple(found)


def within(module: str, prefix: str) -> bool:
    """Is `module` the module or package `prefix`, or inside it?"""
    return module == prefix or module.startswith(prefix + ".")


def describe(name: str, dependency: Import) -> str:
    return f"{name} (line {dependency.line}: {dependency.statement})"


def circles() -> list[list[str]]:
    """The import circles: every strongly connected group of two or more modules (or a module importing
    itself), each as its members in name order (Tarjan's algorithm, iterative)."""
    graph = {name: sorted({d.module for d in imports(name) if d.module in modules()}) for name in modules()}
    index, low, on_stack, stack, groups = {}, {}, set(), [], []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in graph[node]:
                    groups.append(sorted(group))
    return sorted(groups)


def test_the_reader_sees_the_package():
    """The checks below read real modules and real imports (a guard against a test that checks nothing)."""
    assert {"pipeline.app.cli", "pipeline.search.exact.solver", "pipeline.runtime.executors"} <= set(modules())
    assert any(d.module == "numba" for d in imports("pipeline.search.exact.kernels"))
    assert {d.module for d in imports("pipeline.blindfold.model")} >= {"pipeline.blindfold", "pipeline.blindfold.pairs"}


def test_no_import_circle():
    """No group of modules imports each other round in a circle (each message names the imports inside it)."""
    problems = []
    for group in circles():
        members = set(group)
        edges = [describe(name, d) for name in group for d in imports(name) if d.module in members]
        problems.append("import circle between " + ", ".join(group) + ":\n    " + "\n    ".join(sorted(set(edges))))
    assert not problems, "\n".join(problems)


# (what, the modules a rule covers, the packages or modules they may not import)
RULES = [
    ("search/ is mathematics over code matrices", "pipeline.search",
     ("pipeline.runtime", "pipeline.stages", "pipeline.app.cli", "pipeline.app.commands", "pipeline.artifacts",
      "pipeline.assistant", "pipeline.report", "ray", "hydra", "pyarrow")),
    ("runtime/ knows nothing about games", "pipeline.runtime",
     ("pipeline.games", "pipeline.search", "pipeline.feedback", "pipeline.stages", "pipeline.blindfold",
      "pipeline.proofs", "pipeline.artifacts", "pipeline.assistant", "pipeline.report", "pipeline.app.cli",
      "pipeline.app.commands")),
    ("proofs/ is independent of the prover", "pipeline.proofs",
     ("pipeline.search", "pipeline.feedback", "pipeline.stages", "pipeline.blindfold")),
    ("games/ is what a game is", "pipeline.games",
     ("pipeline.app.cli", "pipeline.app.commands", "pipeline.stages", "pipeline.search")),
    ("artifacts/ is below the stages", "pipeline.artifacts",
     ("pipeline.stages", "pipeline.app.cli", "pipeline.app.commands")),
]
ENTRY_POINTS = ("pipeline.__main__", "pipeline.app.cli", "pipeline.app.commands")


@pytest.mark.parametrize("what, layer, forbidden", RULES, ids=[rule[1] for rule in RULES])
def test_layer_imports_nothing_above_it(what, layer, forbidden):
    """Each layer imports none of the modules above it (or the frameworks it must not need)."""
    problems = [f"{describe(name, d)} imports {d.module}" for name in modules() if within(name, layer)
                for d in imports(name) if any(within(d.module, f) for f in forbidden)]
    assert not problems, f"{what}:\n" + "\n".join(problems)


def test_nothing_below_the_command_line_imports_it():
    """Only the entry points import pipeline.app.cli or pipeline.app.commands."""
    problems = [f"{describe(name, d)} imports {d.module}" for name in modules() if name not in ENTRY_POINTS
                for d in imports(name) if any(within(d.module, e) for e in ENTRY_POINTS[1:])]
    assert not problems, "modules below the command line:\n" + "\n".join(problems)
