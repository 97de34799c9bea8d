"""The package's version: written once, in pyproject.toml, and read from the installed package's
metadata (on first use: importlib.metadata costs more than importing sqlanon, and
``python -m sqlanon`` imports the package before it can answer a Ctrl-C)."""

from __future__ import annotations

from functools import cache
from importlib import metadata


@cache
def version() -> str:
    try:
        return metadata.version("sqlanon")
    except metadata.PackageNotFoundError:  # the source tree imported without being installed
        return "0+unknown"
