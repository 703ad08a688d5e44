"""The tool's imports: no cycle among teeth's modules (late imports inside functions included), no import from a
lower floor into a higher one, and no target."""

from __future__ import annotations

import ast
from pathlib import Path

import teeth

PACKAGE = Path(teeth.__file__).parent


def module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("teeth", *path.relative_to(PACKAGE).with_suffix("").parts)
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def packages_above(module: str) -> set[str]:
    """The packages Python initialises before `module` (teeth.cli.options: teeth.cli), teeth itself left out."""
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(2, len(parts))}


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every teeth module `name` imports anywhere in its text: `from P import M` counts as P.M where M is a module,
    and importing a module of another package imports that package's `__init__` first (its own packages' are
    already under way)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    own = packages_above(name) | {package}
    found |= {p for m in found for p in packages_above(m) if p not in own}
    return {m for m in found if m in modules and m != name}


def import_graph() -> dict[str, set[str]]:
    modules = module_names()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_of_teeth_is_part_of_an_import_cycle():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_sees_a_late_import_cycle():
    graph = import_graph()
    graph["teeth.core"] = graph["teeth.core"] | {"teeth.run.lab"}  # lab imports core; a late import back closes a cycle
    assert any({"teeth.core", "teeth.run.lab"} <= set(c) for c in cycles(graph))


def test_importing_a_module_of_another_package_imports_that_package(tmp_path):
    """A serve module importing `teeth.cli.options` runs teeth/cli/__init__.py first, which imports the serve
    command: a cycle (`import teeth.serve.api` would fail) though neither module names the other."""
    modules = module_names()
    assert "teeth.serve" not in imports_of("teeth.serve.store", PACKAGE / "serve" / "store.py", modules)  # its own
    module = tmp_path / "api.py"
    module.write_text("from teeth.cli.options import db_option\n", encoding="utf-8")
    graph = import_graph()
    graph["teeth.serve.api"] = graph["teeth.serve.api"] | imports_of("teeth.serve.api", module, modules)
    assert any({"teeth.cli", "teeth.serve.api"} <= set(c) for c in cycles(graph))


def test_a_late_import_inside_a_function_is_an_import():
    modules = module_names()
    path = PACKAGE / "cli" / "serve.py"
    assert "teeth.serve.app" in imports_of("teeth.cli.serve", path, modules)  # imported inside `serve`


# The floors of src/teeth, the ground first: a module imports only from its own floor or those below. A package (or
# a module at the top of src/teeth) is one unit; units of one floor may import each other (the cycle test holds them).
FLOORS = [
    {"teeth", "core", "errors"},  # the ground: the types every phase speaks, the errors and their exit codes
    {"config"},  # targets and profiles
    {"syntax"},  # a target's source and what libcst says about a node: shared by every phase that reads code
    {"equivalence"},  # effects and the equivalence rules, which the operators ask
    {"operators"},  # the bug classes
    {"discovery"},  # operators applied to a target's files: mutants
    {"store"},  # the database and the types it hands out
    {"workers"},  # backends and the worker process: never the store
    {"run"},  # the main loop: discovery, the store and the workers
    {"report"},  # what a stored run says (read by the gate's test review and the service)
    {"gate"},  # `teeth check`: a scoped run, its reports, the gate
    {"serve", "invariance"},  # the service over stored runs; the harness targets' tests call
    {"cli", "__main__"},  # every command
]
FLOOR = {unit: number for number, units in enumerate(FLOORS) for unit in units}


def unit_of(name: str) -> str:
    """The package (or top-level module) a module of teeth belongs to: `teeth.store.db` -> `store`."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Each import from a module into a unit of a higher floor, as `importer (unit) -> imported (unit)`."""
    return sorted(f"{name} ({unit_of(name)}) -> {imported} ({unit_of(imported)})"
                  for name, imports in graph.items() for imported in imports
                  if FLOOR[unit_of(imported)] > FLOOR[unit_of(name)])


def test_every_package_and_top_level_module_of_teeth_has_a_floor():
    assert sorted({unit_of(name) for name in module_names()} - set(FLOOR)) == []


def test_no_module_imports_from_a_higher_floor():
    assert upward_imports(import_graph()) == []


def test_the_floor_check_names_an_upward_import():
    graph = import_graph()
    graph["teeth.store.db"] = graph["teeth.store.db"] | {"teeth.run.lab"}  # the store asking the main loop
    assert upward_imports(graph) == ["teeth.store.db (store) -> teeth.run.lab (run)"]


def test_src_teeth_keeps_only_the_ground_and_the_entry_point_at_its_top():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "core.py", "errors.py"]


def test_the_tool_imports_none_of_its_targets():
    targets = {"kernels", "batcher"}
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            offenders += [f"{path.relative_to(PACKAGE)}: {n}" for n in names if n.split(".")[0] in targets]
    assert offenders == []


TESTS = Path(__file__).resolve().parent.parent
TEST_SUITES = [p for p in TESTS.rglob("*.py") if "fixtures" not in p.relative_to(TESTS).parts]


def is_test_module(path: Path) -> bool:
    """What pytest collects or loads as a plugin: test_*.py, *_test.py and conftest.py."""
    return path.name.startswith("test_") or path.stem.endswith("_test") or path.name == "conftest.py"


def test_no_test_module_imports_another_test_module_or_a_conftest():
    """Shared helpers live in tests/helpers (a package pytest does not collect) or are fixtures: a test module
    imported by another runs its module-level code twice under two names, and a conftest is pytest's to load."""
    test_modules = {p.stem for p in TEST_SUITES if is_test_module(p)}
    found = []
    for path in TEST_SUITES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import) else
                     [node.module or "", *(a.name for a in node.names)] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.relative_to(TESTS)}: {name}" for name in names
                      if name and name.rpartition(".")[2] in test_modules]
    assert found == []


def test_teeths_own_tests_keep_their_shared_helpers_in_tests_helpers():
    """A helper module beside teeth's test modules is imported by them through the rootdir on sys.path, under a
    name of its own; tests/helpers is a package they import by its full name. (tests/batcher and tests/kernels are
    the targets' own suites, whose kits travel with them.)"""
    assert [p.name for p in (TESTS / "teeth").glob("*.py") if not is_test_module(p)] == []
