"""The tests' own layout: every test file sits in one of the folders of ``FOLDERS``, each
basename once; shared code lives in ``helpers/``; no test module imports another test module or
``conftest``, and ``conftest.py`` holds fixtures only (pytest finds them there, nobody imports
them). Read from the source (ast), so an import inside a function counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]  # tests/project/test_layout.py
#: where a test file goes, by what it tests (CONTRIBUTING.md, "Where a test goes")
FOLDERS = ("unit", "search", "engines", "cli", "e2e", "project")
TEST_FILES = sorted(TESTS.glob("*/test_*.py"))
#: what a test could import by its bare name: the test modules and conftest (pytest puts each
#: one's folder on ``sys.path``) and the folders themselves (namespace packages under tests/)
LOCAL = {path.stem for path in TESTS.rglob("*.py") if "helpers" not in path.relative_to(TESTS).parts} | set(FOLDERS)
SOURCES = sorted(TESTS.rglob("*.py"))


def imported(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of every import in ``tree``; a relative import as its dots."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, "." * node.level + (node.module or "")))
    return found


def forbidden(module: str) -> bool:
    """A test module, conftest or any other file of tests/ by its bare name, or a relative import."""
    return module.startswith(".") or module.split(".")[0] in LOCAL


def test_every_test_file_sits_in_one_of_the_folders():
    loose = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert not loose, f"a test file goes into one of tests/{{{','.join(FOLDERS)}}}/: {loose}"
    deeper = sorted(str(p.relative_to(TESTS)) for p in TESTS.rglob("test_*.py") if p not in TEST_FILES)
    assert not deeper, f"one folder deep only: {deeper}"
    assert sorted({p.parent.name for p in TEST_FILES}) == sorted(FOLDERS)


def test_no_two_test_files_share_a_name():
    """pytest imports a test module by its bare name (prepend mode, no ``__init__.py``): two
    files of one name in two folders would clash ("import file mismatch")."""
    seen: dict[str, list[str]] = {}
    for path in TEST_FILES:
        seen.setdefault(path.name, []).append(str(path.relative_to(TESTS)))
    assert not {name: paths for name, paths in seen.items() if len(paths) > 1}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(TESTS)))
def test_no_test_file_imports_another_or_conftest(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    wrong = [f"{path.name}:{line}: imports {module}" for line, module in imported(tree) if forbidden(module)]
    assert not wrong, "shared test code goes into tests/helpers/ (from helpers.x import ...):\n" + "\n".join(wrong)


def test_the_rule_sees_every_kind_of_forbidden_import():
    source = (
        "from conftest import ADULT\nimport test_engines\n"
        "def f():\n    from test_contract import OPTIMAL\n"
        "from . import x\nfrom helpers.jobs import adult_job\nimport sqlanon.search\n"
    )
    found = sorted(m for _, m in imported(ast.parse(source)) if forbidden(m))
    assert found == [".", "conftest", "test_contract", "test_engines"]


def test_conftest_holds_only_fixtures():
    tree = ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))
    others = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        ):  # the docstring
            continue
        decorators = [ast.unparse(d) for d in getattr(node, "decorator_list", [])]
        if isinstance(node, ast.FunctionDef) and any(d.startswith("pytest.fixture") for d in decorators):
            continue
        others.append(f"conftest.py:{node.lineno}: {ast.unparse(node).splitlines()[0]}")
    assert not others, "conftest.py keeps fixtures only; the rest goes into tests/helpers/:\n" + "\n".join(others)


def test_helpers_is_a_package_and_tests_is_not():
    """pytest's default (prepend) import mode puts the folder of a test file without an
    ``__init__.py`` on sys.path (tests/unit/, ...) and imports the file by its bare name;
    ``helpers`` is importable by name because pyproject's ``pythonpath`` puts tests/ on sys.path
    (and conftest.py, in tests/, is imported the same way)."""
    assert (TESTS / "helpers" / "__init__.py").exists()
    assert not (TESTS / "__init__.py").exists()
    assert not [str(p.relative_to(TESTS)) for p in TESTS.glob("*/__init__.py") if p.parent.name != "helpers"]
