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
            if source != name:  # a package importing its own submodules depends on them, not on itself
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
     ("pipeline.runtime", "pipeline.stages", "pipeline.app", "pipeline.artifacts", "pipeline.assistant",
      "pipeline.report", "pipeline.proofs", "ray", "hydra", "pyarrow")),
    ("runtime/ knows nothing about games", "pipeline.runtime",
     ("pipeline.games", "pipeline.search", "pipeline.feedback", "pipeline.stages", "pipeline.blindfold",
      "pipeline.proofs", "pipeline.artifacts", "pipeline.assistant", "pipeline.report", "pipeline.app")),
    ("proofs/ is independent of the prover", "pipeline.proofs",
     ("pipeline.search", "pipeline.feedback", "pipeline.stages", "pipeline.blindfold", "pipeline.games",
      "pipeline.artifacts", "pipeline.assistant", "pipeline.report", "pipeline.app", "pipeline.runtime")),
    ("games/ is what a game is", "pipeline.games",
     ("pipeline.app", "pipeline.stages", "pipeline.search")),
    ("artifacts/ is below the stages", "pipeline.artifacts",
     ("pipeline.stages", "pipeline.app")),
    ("config/ is the settings, below everything that reads them", "pipeline.config",
     ("pipeline.stages", "pipeline.app", "pipeline.search", "pipeline.games", "pipeline.runtime")),
    ("formats/ and compiled/ are neutral ground: data formats and the kernel cache", "pipeline.formats",
     ("pipeline.",)),
    ("compiled/ knows nothing of the package", "pipeline.compiled", ("pipeline.",)),
    ("processes/ knows nothing of the package: signals and worker pools, for the checker and the prover alike",
     "pipeline.processes", ("pipeline.",)),
]
ENTRY_POINTS = ("pipeline.__main__", "pipeline.app")
ROOT_MODULES = {"pipeline", "pipeline.__main__"}  # the package's face and its `python -m` door; the rest in rooms


@pytest.mark.parametrize("what, layer, forbidden", RULES, ids=[rule[1] for rule in RULES])
def test_layer_imports_nothing_above_it(what, layer, forbidden):
    """Each layer imports none of the modules above it (or the frameworks it must not need); its own modules it may
    (a neutral room of several modules, whose rule forbids all of `pipeline.`)."""
    problems = [f"{describe(name, d)} imports {d.module}" for name in modules() if within(name, layer)
                for d in imports(name) if not within(d.module, layer)
                and any(within(d.module, f) or (f.endswith(".") and d.module.startswith(f)) for f in forbidden)]
    assert not problems, f"{what}:\n" + "\n".join(problems)


def test_nothing_below_the_front_door_imports_it():
    """Only the entry point imports pipeline.app (the command line, its sub-commands and the sweep launcher)."""
    problems = [f"{describe(name, d)} imports {d.module}" for name in modules()
                if not any(within(name, e) for e in ENTRY_POINTS)
                for d in imports(name) if within(d.module, "pipeline.app")]
    assert not problems, "modules below the front door:\n" + "\n".join(problems)


def room(module: str) -> str:
    """The room (top folder of the package) a module lives in; the package's face is its own room."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "pipeline"


def room_graph() -> dict[str, dict[str, list[str]]]:
    """Room -> the rooms it imports -> the statements that do (module level or inside a function)."""
    graph: dict[str, dict[str, list[str]]] = {}
    for name in modules():
        for d in imports(name):
            if d.module in modules() and room(d.module) != room(name):
                graph.setdefault(room(name), {}).setdefault(room(d.module), []).append(describe(name, d))
    return graph


def test_no_loop_between_folders():
    """No two rooms import each other, directly or round a longer loop: an import hidden inside a function
    counts as much as one at the top (each message names the statements of the loop's first step)."""
    graph = room_graph()

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            here = todo.pop()
            for there in graph.get(here, {}):
                if there == goal:
                    return True
                if there not in seen:
                    seen.add(there)
                    todo.append(there)
        return False

    loops = [f"{a} -> {b} (and back): " + "; ".join(statements[:3])
             for a, targets in sorted(graph.items()) for b, statements in sorted(targets.items()) if reaches(b, a)]
    assert not loops, "loops between folders:\n" + "\n".join(loops)


def test_the_room_check_sees_a_planted_loop(monkeypatch):
    """The folder check is not vacuous: a planted import from runtime/ up into stages/ closes a loop it reports."""
    planted = Import("pipeline.stages.runner", 1, "from pipeline.stages.runner import run_stage")
    real = imports("pipeline.runtime.store")
    monkeypatch.setitem(globals(), "imports", lambda name: real + (planted,) if name == "pipeline.runtime.store"
                        else _imports(name))
    with pytest.raises(AssertionError, match="runtime -> stages"):
        test_no_loop_between_folders()


def test_the_package_root_holds_only_its_face_and_door():
    """Every module but pipeline/__init__.py and pipeline/__main__.py lives in a room (a folder by idea)."""
    loose = sorted(name for name in modules() if name.count(".") == 1 and name not in ROOT_MODULES
                   and modules()[name].name != "__init__.py")
    assert not loose, f"modules loose in the package root: {loose}"


_imports = imports
