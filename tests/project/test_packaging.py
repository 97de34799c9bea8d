"""What a user of the package expects: ``python -m sqlanon``, one version (pyproject.toml's,
read back from the installed metadata), PEP 561's ``py.typed``, the whole package clean under
``mypy`` (the public modules with the flags of ``--strict`` on top: pyproject's [tool.mypy]),
and the whole tree clean under ``ruff check`` and ``ruff format --check`` (pyproject's [tool.ruff])."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import tomllib
from importlib.metadata import version

from helpers.jobs import ROOT

import sqlanon

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_python_m_sqlanon_runs_the_command_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "sqlanon", "--version"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"python -m sqlanon, version {PYPROJECT['project']['version']}\n"
    done = subprocess.run(
        [sys.executable, "-m", "sqlanon", "anonymize", "--help"], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0 and "--html FILE" in done.stdout and "--no-html" in done.stdout


def test_the_version_is_written_once():
    written = PYPROJECT["project"]["version"]
    assert sqlanon.__version__ == version("sqlanon") == written
    elsewhere = [
        p for p in (ROOT / "sqlanon").rglob("*.py") if re.search(rf"""["']{re.escape(written)}["']""", p.read_text())
    ]
    assert elsewhere == []


def test_the_package_ships_py_typed():
    assert (ROOT / "sqlanon" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["sqlanon"]


@pytest.mark.slow
def test_the_package_passes_mypy():
    """``mypy`` over the whole package, the public modules with the flags of ``--strict`` on top
    (pyproject's [tool.mypy] and its override)."""
    config = PYPROJECT["tool"]["mypy"]
    (strict,) = config["overrides"]
    assert config["files"] == ["sqlanon"] and "sqlanon.progress" in strict["module"]
    assert strict["disallow_untyped_defs"] is True and strict["disallow_any_generics"] is True
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental"], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    modules = len(list((ROOT / "sqlanon").rglob("*.py")))
    assert done.stdout.strip() == f"Success: no issues found in {modules} source files"


def test_the_tree_passes_ruff():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "sqlanon", "tests", "bench", "examples"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_tree_is_formatted_by_ruff():
    """``ruff format`` leaves every file as it is (``make lint``; ``ruff format`` to apply it)."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "sqlanon", "tests", "bench", "examples"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
