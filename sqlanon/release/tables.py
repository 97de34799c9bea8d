"""Output tables: built under a temporary name in their database, renamed in one transaction.

DuckDB: a table in a .duckdb file (opened here with its own connection, never the engine's).
PostgreSQL: a table in the engine's database; the temporary name lives in the same schema,
since a rename cannot move a table.
"""

from __future__ import annotations

import os
from typing import Callable

import duckdb

from sqlanon.sql import ident
from sqlanon.core.wording import overwrite_hint
from sqlanon.errors import OutputError, first_line


def _with_db(path: str, action: Callable[[duckdb.DuckDBPyConnection], object]):
    con = duckdb.connect(path)
    try:
        return action(con)
    finally:
        con.close()


def duckdb_tables(path: str) -> set[str]:
    return _with_db(path, lambda con: {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()})


def duckdb_table_exists(path: str, table: str) -> bool:
    return table in duckdb_tables(path)


def publish_duckdb_table(path: str, temp: str, table: str, overwrite: bool = False) -> None:
    def swap(con):
        con.execute("BEGIN").fetchall()
        if not overwrite and table in {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}:
            con.execute("ROLLBACK").fetchall()  # created since the run began: still not ours to replace
            raise OutputError(
                f"table '{table}' appeared in {path} while the run worked: nothing was published; {overwrite_hint()}"
            )
        con.execute(f"DROP TABLE IF EXISTS {ident(table).sql('duckdb')}").fetchall()
        con.execute(f"ALTER TABLE {ident(temp).sql('duckdb')} RENAME TO {ident(table).sql('duckdb')}").fetchall()
        con.execute("COMMIT").fetchall()

    try:
        _with_db(path, swap)
    except duckdb.Error as error:
        raise OutputError(f"cannot publish table '{table}' in {path}: {first_line(error)}") from None


def remove_duckdb_database(path: str) -> None:
    """A database file the run created, with its write-ahead log, removed (either may be gone)."""
    for name in (path, path + ".wal"):
        try:
            os.remove(name)
        except FileNotFoundError:
            pass


def drop_duckdb_table(path: str, table: str) -> None:
    if os.path.exists(path):
        _with_db(path, lambda con: con.execute(f"DROP TABLE IF EXISTS {ident(table).sql('duckdb')}").fetchall())
