"""Command-line arguments read into values: paths, data sources, ``--node`` levels, ``--model``
specs."""

from __future__ import annotations

import tomllib
from pathlib import Path

from sqlanon.config.delimiters import check_delimiter
from sqlanon.core.specs import Source
from sqlanon.errors import ConfigError


def absolute(path: str | None) -> str | None:
    """A path given on the command line is relative to the working directory. Not resolved:
    messages name it as the user wrote it (the guard compares real paths itself)."""
    return str(Path.cwd() / path) if path else None


def data_source(data: str, delimiter: str, table: str | None, encoding: str | None) -> Source:
    """The data file of ``check`` and ``init``, with its ``--delimiter``, ``--table`` and ``--encoding``."""
    source = Source(
        path=absolute(data), delimiter=check_delimiter(delimiter, "--delimiter"), table=table, encoding=encoding
    )
    if source.kind == "duckdb" and not table:
        raise ConfigError(f"{data} is a DuckDB file: name its table with --table")
    return source


def node_levels(node: str) -> tuple[int, ...]:
    """``--node``: the levels in QI order, e.g. ``1,2,0``."""
    try:
        return tuple(int(x) for x in node.split(","))
    except ValueError:
        raise ConfigError(f"--node must be levels separated by commas, e.g. 1,2,0; got {node!r}") from None


def parse_model(text: str) -> dict:
    """``--model``: ``TYPE:KEY=VALUE,...`` (values read as TOML scalars, else text) or a TOML
    inline table ``{type = "...", ...}``, as a ``[[privacy.models]]`` entry."""
    text = text.strip()
    try:
        if text.startswith("{"):
            return tomllib.loads(f"m = {text}")["m"]
        kind, _, rest = text.partition(":")
        spec: dict = {"type": kind.strip()}
        for pair in filter(None, (p.strip() for p in rest.split(","))):
            key, equals, value = pair.partition("=")
            if not equals:
                raise ConfigError(f"--model {text!r}: {pair!r} is not KEY=VALUE")
            try:
                spec[key.strip()] = tomllib.loads(f"v = {value.strip()}")["v"]
            except tomllib.TOMLDecodeError:
                spec[key.strip()] = value.strip()
        return spec
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"--model {text!r} is not a TOML inline table: {error}") from None
