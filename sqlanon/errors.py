"""One exception root; each subclass carries the CLI exit code it maps to.

Exit codes (documented in the README):
    0  a solution was written and verified
    1  no transformation satisfies the privacy models
    2  usage, configuration or hierarchy error
    3  data or I/O error (input, output)
    4  internal error: the written output failed its independent verification
"""

EXIT_OK = 0
EXIT_NO_SOLUTION = 1
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_INTERNAL = 4


class SqlanonError(Exception):
    """Root of every error sqlanon raises on purpose."""

    exit_code = EXIT_DATA


class ConfigError(SqlanonError):
    """The job configuration is incomplete or contradictory."""

    exit_code = EXIT_USAGE


class HierarchyError(SqlanonError):
    """A generalization hierarchy is malformed or does not cover the data."""

    exit_code = EXIT_USAGE


class DataError(SqlanonError):
    """The input table cannot be read or does not match the job."""


class OutputError(SqlanonError):
    """The output cannot be written (exists, same as input, I/O failure)."""


class VerificationError(SqlanonError):
    """The written output failed the independent privacy re-check (a bug)."""

    exit_code = EXIT_INTERNAL
