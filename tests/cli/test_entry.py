"""The entry point (`sqlanon`, `python -m sqlanon`) and a light start: `import sqlanon`, `sqlanon
--version` and `--help` load no engine, so they are fast and a Ctrl-C while they load is
caught like any other (tests/cli/test_interrupt.py). Each case runs in a fresh interpreter: this
one has imported everything already."""

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import click
import pytest

from helpers.jobs import ROOT
from sqlanon.config.job import INTERVAL_ALGORITHMS, INTERVAL_METRICS
from sqlanon.metrics import METRICS
from sqlanon.core.names import ALGORITHM_NAMES, METRIC_NAMES
from sqlanon.search import ALGORITHMS

HEAVY = ("duckdb", "scipy", "pyarrow", "sqlglot", "numpy", "psycopg", "pyspark", "matplotlib")
# what the commands do, imported only when one runs (sqlanon/cli/job_commands.py's _actions)
ACTIONS = ("sqlanon.cli.job_actions", "sqlanon.cli.data_actions", "sqlanon.cli.init_actions")

# Runs the entry point in-process with the given arguments and prints, as JSON, its exit code
# and which heavy modules (and actions modules) it loaded.
PROBE = """
import json, sys
sys.argv = ["sqlanon", *json.loads(sys.argv[1])]
from sqlanon.cli.entry import main
try:
    main()
except SystemExit as exit:
    code = exit.code
print(json.dumps({"code": code, "heavy": [m for m in %r if m in sys.modules]}))
""" % (HEAVY + ACTIONS,)


def python(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_import_sqlanon_loads_no_engine():
    run = python("-c", f"import sys, sqlanon; print([m for m in {HEAVY!r} if m in sys.modules])")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_the_api_is_still_exported():
    run = python(
        "-c",
        "import sqlanon; from sqlanon import Source, anonymize; "
        "print(anonymize.__module__, Source.__module__, sqlanon.read_hierarchy.__module__, "
        "set(sqlanon.__all__) <= set(dir(sqlanon)), all(getattr(sqlanon, n) for n in sqlanon.__all__))",
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["sqlanon.api", "sqlanon.core.specs", "sqlanon.hierarchy.arx_csv", "True", "True"]
    missing = python("-c", "import sqlanon; sqlanon.no_such_name")
    assert "AttributeError: module 'sqlanon' has no attribute 'no_such_name'" in missing.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["--help"],
        ["anonymize", "--help"],
        ["risk", "--help"],
        ["hierarchy", "build", "--help"],
        ["check", "--help"],
        ["init", "--help"],
    ],
)
def test_version_and_help_load_no_engine(args):
    run = python("-c", PROBE, json.dumps(args))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == {"code": 0, "heavy": []}


def test_python_m_sqlanon_runs_the_cli(tmp_path):
    version = python("-m", "sqlanon", "--version")
    assert version.returncode == 0 and version.stdout == "python -m sqlanon, version 0.1.0\n"
    # exit codes pass through the entry point: a missing job file is exit 2 with one line
    missing = python("-m", "sqlanon", "anonymize", str(tmp_path / "nowhere.toml"))
    assert missing.returncode == 2, missing.stderr
    assert missing.stderr.count("\n") == 1 and missing.stderr.startswith("error: ")


def test_console_script_is_the_entry_point():
    (script,) = entry_points(group="console_scripts", name="sqlanon")
    assert script.value == "sqlanon.cli.entry:main"
    run = subprocess.run(
        [str(Path(sys.executable).with_name("sqlanon")), "--version"], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0 and run.stdout == "sqlanon, version 0.1.0\n"


def test_choice_names_match_the_registries():
    """The CLI offers the names of sqlanon/core/names.py; the metrics and the search register the same."""
    assert METRIC_NAMES == tuple(METRICS) and ALGORITHM_NAMES == tuple(ALGORITHMS)
    assert set(INTERVAL_METRICS) <= set(METRIC_NAMES) and not set(INTERVAL_ALGORITHMS) & set(ALGORITHM_NAMES)


def test_an_interrupt_outside_the_guard_is_the_one_line_too():
    """click alone answers a KeyboardInterrupt before a command's ``_guard`` (while it parses or
    imports) with "Aborted!" and 1; sqlanon's group with the one line and 130."""
    from click.testing import CliRunner

    from sqlanon.cli.commands import _Main

    for group, code, err in (
        (click.Group(), 1, "\nAborted!\n"),
        (_Main(), 130, "interrupted: no output was written\n"),
    ):

        @group.command()
        def importing():
            raise KeyboardInterrupt  # as a Ctrl-C while a command imports its modules

        result = CliRunner().invoke(group, ["importing"])
        assert (result.exit_code, result.stderr) == (code, err)
