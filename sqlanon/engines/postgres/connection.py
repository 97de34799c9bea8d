"""Connecting to PostgreSQL, and the rename that publishes an output table.

Shared by the postgres engine, the publication of a run's targets (``release/``) and the verification, which
opens its own connection. A connection is a libpq URL or key=value string, or empty for the
``PG*`` environment variables; a password never belongs in a job file (``PGPASSWORD`` or
``~/.pgpass`` hold it) and is never printed.
"""

from __future__ import annotations

import os

from sqlglot import exp

from sqlanon.sql import ident
from sqlanon.errors import ConfigError, DataError, OutputError, first_line
from sqlanon.core.wording import overwrite_hint

_INSTALL = "pip install 'sqlanon[postgres]' (psycopg 3)"
_SHOWN = ("host", "port", "dbname", "user")


def _psycopg():
    try:
        import psycopg
    except ImportError:
        raise ConfigError(f"the postgres engine needs the psycopg driver: {_INSTALL}") from None
    return psycopg


def describe(url: str | None) -> str:
    """Where a connection goes, without its password: 'host=… port=… dbname=… user=…'."""
    psycopg = _psycopg()
    try:
        given = psycopg.conninfo.conninfo_to_dict(url or "")
    except psycopg.ProgrammingError:
        return "an invalid connection string"
    env = {"host": "PGHOST", "port": "PGPORT", "dbname": "PGDATABASE", "user": "PGUSER"}
    shown = {k: given.get(k) or os.environ.get(env[k]) for k in _SHOWN}
    return " ".join(f"{k}={v}" for k, v in shown.items() if v) or "the libpq defaults"


def connect(url: str | None):
    """An autocommit psycopg connection (temp tables live until it closes)."""
    psycopg = _psycopg()
    try:
        return psycopg.connect(url or "", autocommit=True)
    except psycopg.Error as error:
        raise DataError(
            f"cannot connect to PostgreSQL ({describe(url)}): {first_line(error)}. Check [engine] url "
            "or the PG* environment variables (PGHOST, PGPORT, PGDATABASE, PGUSER; the password in "
            "PGPASSWORD or ~/.pgpass)"
        ) from None


def table_name(name: str | None, what: str) -> exp.Table:
    """``schema.table`` or ``table`` as a quoted sqlglot table; anything else (None: not given) is refused."""
    parts = name.split(".") if isinstance(name, str) else []
    if not 1 <= len(parts) <= 2 or not all(parts):
        raise ConfigError(f'{what} must be a PostgreSQL table as "schema.table" or "table", got {name!r}')
    return exp.Table(this=ident(parts[-1]), db=ident(parts[0]) if len(parts) == 2 else None)


def quoted(name: str, what: str = "output.table") -> str:
    return table_name(name, what).sql("postgres")


def temporary_table(name: str) -> str:
    """The output's temporary name, in the same schema (a rename cannot move a table)."""
    parts = name.split(".")
    return ".".join([*parts[:-1], f"__sqlanon_tmp_{os.getpid()}_{parts[-1]}"])


def exists(con, name: str) -> bool:
    return con.execute("SELECT to_regclass(%(name)s) IS NOT NULL", {"name": quoted(name)}).fetchone()[0]


def check_output_table(url: str | None, output_table: str, input_table: str | None, overwrite: bool) -> None:
    """Never over the input table, never over an existing table without overwrite."""
    con = connect(url)
    try:
        if input_table is not None and quoted(output_table) == quoted(input_table, "input.table"):
            raise OutputError(f"output table {output_table} is the input table: choose another output.table")
        if not overwrite and exists(con, output_table):
            raise OutputError(f"table {output_table} already exists in PostgreSQL: {overwrite_hint()}")
    finally:
        con.close()


def publish_table(url: str | None, temp: str, name: str, overwrite: bool) -> None:
    """Rename the written ``temp`` table to ``name`` in one transaction (dropping the old
    table when ``overwrite``)."""
    con = connect(url)
    try:
        with con.transaction():
            if exists(con, name):
                if not overwrite:  # created since the check: still not ours to replace
                    raise OutputError(f"table {name} already exists in PostgreSQL: {overwrite_hint()}")
                con.execute(f"DROP TABLE {quoted(name)}")
            con.execute(f"ALTER TABLE {quoted(temp)} RENAME TO {ident(name.split('.')[-1]).sql('postgres')}")
    except _psycopg().Error as error:
        raise OutputError(f"cannot publish output table {name}: {first_line(error)}") from None
    finally:
        con.close()


def drop_table(url: str | None, name: str) -> None:
    con = connect(url)
    try:
        con.execute(f"DROP TABLE IF EXISTS {quoted(name)}")
    finally:
        con.close()


def lock_output_table(url: str | None, name: str):
    """Hold PostgreSQL's advisory lock on the output table ``name`` for the run (the returned
    connection holds it until it closes; the server drops it with a dead run's session), or
    refuse: another run is writing that table."""
    con = connect(url)
    try:
        key = "sqlanon output " + quoted(name)
        row = con.execute("SELECT pg_try_advisory_lock(hashtextextended(%(key)s, 0))", {"key": key}).fetchone()
        if row[0]:
            return con
        holder = con.execute(
            "SELECT a.pid, a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND "
            "((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended(%(key)s, 0) LIMIT 1",
            {"key": key},
        ).fetchone()
    except BaseException:
        con.close()
        raise
    con.close()
    who = f"PostgreSQL backend {holder[0]}" if holder else "another session"
    raise OutputError(
        f"the output table {name} is being written by another sqlanon run ({who}): wait for it "
        "to end, or choose another output.table"
    )
