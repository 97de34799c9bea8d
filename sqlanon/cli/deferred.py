"""The command line's one deferred import.

``sqlanon --version``, ``--help`` and ``sqlanon anonymize --help`` must answer without
loading DuckDB, SciPy, pyarrow, sqlglot or numpy (fast, and a Ctrl-C while they load is
caught: tests/cli/test_entry.py, tests/cli/test_interrupt.py). So the modules below are imported here,
by name, when first needed, and nowhere with an ``import`` statement inside a function:

* ``commands``: the click group, loaded by the entry point once its signal handlers are in
  place (sqlanon/cli/entry.py);
* ``job_actions``, ``data_actions`` and ``init_actions``: what the commands do, with the
  engines, the search and the reports imported at their top, loaded when a command runs,
  inside its guard (sqlanon/cli/guard.py).

Imports go one way: entry -> commands -> *_commands -> guard -> (here, by name) *_actions;
no module of the command line imports a module that imports it back.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from sqlanon.cli.interrupts import checkpoint

_MODULES = {
    "commands": "sqlanon.cli.commands",
    "job_actions": "sqlanon.cli.job_actions",
    "data_actions": "sqlanon.cli.data_actions",
    "init_actions": "sqlanon.cli.init_actions",
}


def load(name: str) -> ModuleType:
    """The module registered as ``name``, imported on first use (Python caches it after)."""
    if name != "commands":
        checkpoint("load")  # test hook: a command's work, with the engines, about to load
    return import_module(_MODULES[name])
