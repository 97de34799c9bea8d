"""What every DuckDB statement of sqlanon shares: its dialect, string literals for the few
statements that take no parameters, and Ctrl-C turned into KeyboardInterrupt."""

from __future__ import annotations

from contextlib import contextmanager

import duckdb
from sqlglot import exp


DIALECT = "duckdb"


def literal(value: str) -> str:
    """A string literal for the few statements that take no parameters (ATTACH, COPY TO)."""
    return exp.Literal.string(value).sql(DIALECT)


@contextmanager
def interruptible():
    """DuckDB answers Ctrl-C by cancelling the query and raising InterruptException or, in
    DuckDB 2, RuntimeError('Query interrupted'); either becomes KeyboardInterrupt here so the
    caller's cleanup and exit code (130) apply."""
    try:
        yield
    except duckdb.InterruptException:
        raise KeyboardInterrupt from None
    except RuntimeError as error:
        if "interrupted" in str(error).lower():
            raise KeyboardInterrupt from None
        raise
