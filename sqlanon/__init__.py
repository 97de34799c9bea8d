"""sqlanon: optimal anonymization of tables, pushed into an analytical database.

The API is exported lazily (PEP 562): ``import sqlanon`` loads none of DuckDB, pyarrow,
sqlglot or SciPy; ``sqlanon.anonymize`` (or ``from sqlanon import anonymize``) imports its
module on first use. The command line (``sqlanon --version``, ``--help``) relies on this.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # typing, like importlib.metadata, would delay `python -m sqlanon`'s signal handling
if TYPE_CHECKING:
    from typing import Any

# exported name -> the module defining it
_EXPORTS = {
    "Attribute": "sqlanon.config.job",
    "Job": "sqlanon.config.job",
    "Output": "sqlanon.core.specs",
    "Source": "sqlanon.core.specs",
    "load_job": "sqlanon.config.read",
    "Result": "sqlanon.anonymizer",
    "anonymize": "sqlanon.api",
    "Anonymizer": "sqlanon.api",
    "explain": "sqlanon.api",
    "risk": "sqlanon.api",
    "check": "sqlanon.assess",
    "Assessment": "sqlanon.assess",
    "Hierarchy": "sqlanon.hierarchy",
    "read_hierarchy": "sqlanon.hierarchy",
    "SqlanonError": "sqlanon.errors",
    "ConfigError": "sqlanon.errors",
    "HierarchyError": "sqlanon.errors",
    "DataError": "sqlanon.errors",
    "OutputError": "sqlanon.errors",
    "VerificationError": "sqlanon.errors",
    "NotAnonymousError": "sqlanon.errors",
}

__all__ = [
    "Anonymizer",
    "Assessment",
    "Attribute",
    "ConfigError",
    "DataError",
    "Hierarchy",
    "HierarchyError",
    "Job",
    "NotAnonymousError",
    "Output",
    "OutputError",
    "Result",
    "Source",
    "SqlanonError",
    "VerificationError",
    "anonymize",
    "check",
    "explain",
    "load_job",
    "read_hierarchy",
    "risk",
]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return _version()
    module = _EXPORTS.get(name)
    if module is None:  # not ours: lets ``from sqlanon import compiler`` import the submodule
        raise AttributeError(f"module 'sqlanon' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


def _version() -> str:
    """The version (``sqlanon/core/version.py``), kept here once read."""
    found: str = import_module("sqlanon.core.version").version()
    globals()["__version__"] = found
    return found
