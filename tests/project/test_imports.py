"""The package's shape, read from its source: imports go down a fixed order of layers and form
no cycle (``TYPE_CHECKING`` imports included), nothing is imported inside a function but optional
dependencies and late modules, the root stays small, and the job layer names no engine. See
docs/architecture.md."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.jobs import ENGINE_NAMES

PACKAGE = Path(__file__).resolve().parents[2] / "sqlanon"  # tests/project/test_imports.py
#: third-party packages an extra installs (pyproject's optional dependencies): imported where used
OPTIONAL = {"pyspark", "psycopg", "polars", "pandas", "tqdm", "matplotlib", "PIL"}
#: modules of sqlanon that load a heavy dependency only some runs need, imported in the function
#: that needs them: the hierarchy reader's Arrow path (pyarrow, numpy), which loading a job and
#: ``sqlanon --help`` must not pay for, and the command line itself, imported by the entry point
#: once its signal handlers are in place, and a command's work, imported by the command inside its
#: guard (no engine loads for ``--help``)
LATE = {
    "sqlanon.hierarchy.arrow_levels",
    "sqlanon.cli.commands",
    "sqlanon.cli.job_actions",
    "sqlanon.cli.data_actions",
    "sqlanon.cli.init_actions",
}


#: the layers, low to high: a module imports only from its own layer or one below. A layer is a
#: package or a module of the root ("" is the root's ``__init__``); one not named here fails
#: ``test_every_module_has_a_layer``.
LAYERS = (
    "errors",
    "core",
    "progress",
    "frames",  # the vocabulary; no sqlanon import but errors
    "lattice",
    "hierarchy",
    "reidentification",  # the space, the hierarchies, risk estimators
    "sql",  # the compiler and dialects: pure sqlglot
    "metrics",
    "criteria",  # loss metrics; privacy models and keep conditions
    "kernel",  # checks in process over a fetched class table
    "engines",  # the only place anything executes
    "checks",
    "search",  # the checker; the algorithms above it
    "config",
    "koptimize",
    "session",  # the job; the interval searches; one run's state
    "release",
    "report",
    "assess",
    "demo",  # publication and verification; the report
    "anonymizer",
    "api",
    "cli",
    "__main__",
    "",
)


def layer(module: str) -> str:
    """The layer of a module of sqlanon: its first name below the package."""
    return module.split(".")[1] if "." in module else ""


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """Nodes under ``if TYPE_CHECKING:``: never run, so no edge of the import graph."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(n) for n in ast.walk(node)}
    return skipped


def _imported(node: ast.AST, package: str, known: dict[str, Path]) -> list[str]:
    """What an import statement names: each module, or for ``from a import b`` the module
    ``a.b`` when there is one (``from sqlanon import sql`` runs the root's lazy ``__init__``,
    which imports nothing, and ``sqlanon/sql``), else ``a``."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
            module = base + ("." + node.module if node.module else "")
        else:
            module = node.module or ""
        return [f"{module}.{a.name}" if f"{module}.{a.name}" in known else module for a in node.names]
    return []


def graph(typing: bool = False) -> dict[str, set[str]]:
    """Module -> the modules its import statements run: the named module, or the one a name
    imported from a package is, and every package above it (importing ``a.b.c`` runs ``a/b``).
    ``typing``: with the imports under ``if TYPE_CHECKING:``, which a type checker follows."""
    known = modules()

    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[str, set[str]] = {m: set() for m in known}
    for module, path in known.items():
        tree = ast.parse(path.read_text())
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        skipped = set() if typing else _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            for name in _imported(node, package, known):
                target = resolve(name) if name.startswith("sqlanon") else None
                if target is None or target == module:
                    continue
                edges[module].add(target)
                parts = target.split(".")
                for i in range(2, len(parts)):
                    parent = ".".join(parts[:i])
                    if not module.startswith(parent + "."):  # a package's own modules run inside it
                        edges[module].add(parent)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
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

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("typing", [False, True], ids=["runtime", "with TYPE_CHECKING"])
def test_the_import_graph_has_no_cycle(typing):
    edges = graph(typing)
    assert len(edges) > 100 and "sqlanon.checks.checker" in edges["sqlanon.search.base"]
    found = cycles(edges)
    described = ["; ".join(f"{m} -> {sorted(e for e in edges[m] if e in c)}" for m in c) for c in found]
    assert not found, "import cycles:\n" + "\n".join(described)


def test_every_module_has_a_layer():
    assert not {layer(m) for m in modules()} - set(LAYERS), "place each new package in LAYERS"


def upward(edges: dict[str, set[str]]) -> list[str]:
    """The imports of ``edges`` that reach a higher layer."""
    rank = {name: i for i, name in enumerate(LAYERS)}
    return sorted(f"{m} -> {t}" for m, targets in edges.items() for t in targets if rank[layer(t)] > rank[layer(m)])


def test_the_layer_check_sees_an_upward_import():
    assert upward({"sqlanon.core.specs": {"sqlanon.engines.duckdb.engine"}, "sqlanon.cli.entry": {"sqlanon.api"}}) == [
        "sqlanon.core.specs -> sqlanon.engines.duckdb.engine"
    ]
    assert upward({"sqlanon.engines.duckdb.engine": {"sqlanon.core.specs", "sqlanon.engines.sql.engine"}}) == []


def test_imports_go_down_the_layers():
    """No import, ``TYPE_CHECKING`` ones included, reaches a higher layer: so no two packages
    import each other, and a layer can be read (and tested) without those above it."""
    edges = graph(typing=True)
    assert "sqlanon.core.needs" in edges["sqlanon.metrics.base"]
    found = upward(edges)
    assert not found, "imports that go up a layer:\n" + "\n".join(found)


def test_no_import_inside_a_function_but_optional_dependencies_and_late_modules():
    inside = []
    for module, path in modules().items():
        for function in ast.walk(ast.parse(path.read_text())):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or "."]
                    if not all(n.split(".")[0] in OPTIONAL or n in LATE for n in names):
                        inside.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {', '.join(names)}")
    assert not inside, "imports inside functions:\n" + "\n".join(inside)


def test_the_package_root_holds_at_most_ten_modules():
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= 10, root


def test_no_module_over_450_lines():
    long = {
        str(p.relative_to(PACKAGE.parent)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 450
    }
    assert not long, long


def test_no_probing_of_models_rules_and_engines():
    """What a model, a metric, a keep condition or an engine offers is declared on its type
    (core/needs.py, criteria/conditions.py, criteria/base.py, engines/store.py): no getattr or
    hasattr on them. What remains reads a dataclass's own fields by name, a module by name (the
    lazy loaders), an algorithm's options (core/options.py), or a caller's object (a stream, a table)."""
    allowed = {
        "config/validate.py",
        "config/job.py",
        "__init__.py",
        "frames.py",
        "progress.py",
        "core/report.py",
        "core/genetic.py",
        "engines/profiles.py",
        "core/options.py",
    }
    found = []
    for path in PACKAGE.rglob("*.py"):
        name = str(path.relative_to(PACKAGE))
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
            ):
                if name not in allowed:
                    found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert not found, found


#: what the job layer may import of the engines: the registry, the profiles and the contract
CONFIG_SEES = ("sqlanon.engines", "sqlanon.engines.profiles", "sqlanon.engines.store")


def test_the_job_layer_names_no_engine():
    """sqlanon/config/ never compares an engine's name: what an engine takes and can do is its
    profile's (sqlanon/engines/profiles.py), and config imports no engine's own module."""
    for path in (PACKAGE / "config").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlanon.engines"):
                assert node.module in CONFIG_SEES, f"{path.name}:{node.lineno} imports {node.module}"
            if isinstance(node, ast.Compare):
                texts = [ast.unparse(x) for x in (node.left, *node.comparators)]
                constants = [x.value for x in (node.left, *node.comparators) if isinstance(x, ast.Constant)]
                assert not (
                    any(t.endswith("engine") or "engine" in t.split(".")[-1:] for t in texts)
                    and set(ENGINE_NAMES) & set(constants)
                ), f"{path.name}:{node.lineno}: {ast.unparse(node)}"


def python(code: str) -> str:
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_the_search_and_the_job_load_no_database():
    """No driver and no engine class: the models' SQL builders (sqlglot) are no database."""
    engines = ", ".join([*(f"'sqlanon.engines.{e}.engine'" for e in (*ENGINE_NAMES, "sql")), "'sqlanon.kernel.runner'"])
    loaded = python(
        "import sys, sqlanon, sqlanon.search.flash, sqlanon.config.validate, sqlanon.config.read; "
        f"print(sorted(m for m in sys.modules if m in ('duckdb', 'psycopg', 'pyspark', {engines})))"
    )
    assert loaded == "[]"
