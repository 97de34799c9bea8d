"""One exception root; each subclass carries the CLI exit code it maps to.

Each is also the built-in exception Python code catches for its kind of problem: a bad
setting, hierarchy or data value is a ``ValueError``, an output that cannot be written an
``OSError`` (``except ValueError`` around a call keeps working without knowing sqlanon).

Exit codes (documented in docs/job.md, "Exit codes"):
    0  a solution was written and verified
    1  no transformation satisfies the privacy models
    2  usage, configuration or hierarchy error
    3  data or I/O error (input, output)
    4  internal error: the written output failed its independent verification
"""

from collections.abc import Iterable

EXIT_OK = 0
EXIT_NO_SOLUTION = 1
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_INTERNAL = 4


class SqlanonError(Exception):
    """Root of every error sqlanon raises on purpose."""

    exit_code = EXIT_DATA


class ConfigError(SqlanonError, ValueError):
    """The job configuration is incomplete or contradictory."""

    exit_code = EXIT_USAGE


class HierarchyError(SqlanonError, ValueError):
    """A generalization hierarchy is malformed or does not cover the data."""

    exit_code = EXIT_USAGE


class DataError(SqlanonError, ValueError):
    """The input table cannot be read or does not match the job."""


class OutputError(SqlanonError, OSError):
    """The output cannot be written (exists, same as input, I/O failure)."""


class VerificationError(SqlanonError):
    """The written output failed the independent privacy re-check (a bug)."""

    exit_code = EXIT_INTERNAL


class NotAnonymousError(SqlanonError, ValueError):
    """The privacy models do not hold: a saved transformation applied to new data
    (``Anonymizer.transform``) leaves classes that fail them beyond the suppression limit.
    ``result``: the run's ``Result`` (its report says why), when there is one."""

    exit_code = EXIT_NO_SOLUTION

    def __init__(self, message: str, result: object = None):
        super().__init__(message)
        self.result = result


#: the longest value an error message echoes whole
CUT = 80


def cut(value: object, limit: int = CUT) -> str:
    """A data or hierarchy value as an error message quotes it: its repr, cut to ``limit``
    characters with its length beside it, so a 100 KB field does not become a 100 KB message.

    >>> cut("Zürich")
    "'Zürich'"
    >>> cut("a" * 100, 4)
    "'aaaa…' (100 characters)"
    """
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit] + '…'!r} ({len(text):,} characters)"


def shown(value: object) -> str:
    """A setting's value as a message quotes it: a string through ``cut``, else its repr (cut too)."""
    if isinstance(value, str):
        return cut(value)
    text = repr(value)
    return text if len(text) <= CUT else text[:CUT] + "…"


def cuts(values: Iterable[object]) -> str:
    """Several values for a message, each through ``cut`` (NULL as NULL), comma-separated."""
    return ", ".join("NULL" if v is None else cut(v) for v in values)


def first_line(error: Exception, limit: int = 300) -> str:
    """The first line of a library's or database's message, cut to ``limit`` characters:
    some quote a whole row or value of the file."""
    text = str(error).strip()
    line = text.splitlines()[0] if text else type(error).__name__
    return line if len(line) <= limit else line[:limit] + "…"
