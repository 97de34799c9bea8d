"""A CSV delimiter (the input's and the output's): what every engine reads and writes alike.

DuckDB reads a delimiter of up to four bytes (``;;``), but pyarrow (the memory and Spark
engines, the PostgreSQL engine's CSV writing) and Python's ``csv`` (the header check,
hierarchy files) take one ASCII character, and none of them a line break. So a delimiter is
one ASCII character, printable or a tab, other than the quote ``"``: a job reads and writes
the same on every engine, and a wrong one is refused before any file is opened.
"""

from __future__ import annotations

from sqlanon.errors import ConfigError, cut

EXAMPLES = "e.g. ',', ';', '|' or '\\t' (a tab)"


def check_delimiter(value: object, setting: str) -> str:
    """``value`` when it is a delimiter every engine takes, else a ``ConfigError`` naming
    ``setting`` as the user spelled it (``input.delimiter``, ``--delimiter``, ``delimiter``)."""
    if isinstance(value, str) and len(value) == 1 and (value == "\t" or " " <= value <= "~") and value != '"':
        return value
    shown = cut(value) if isinstance(value, str) else repr(value)
    given = f"{setting} {shown}" if setting.startswith("--") else f"{setting} = {shown}"
    if isinstance(value, str) and len(value) == 1:
        why = "a delimiter is one ASCII character other than the quote '\"' and a line break"
    else:
        why = "a delimiter is one character"
    raise ConfigError(f"{given}: {why}, {EXAMPLES}")
