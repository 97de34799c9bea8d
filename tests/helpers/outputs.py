"""Reading a written output back, independently of sqlanon's writers."""

from __future__ import annotations

import duckdb


def read_back(path):
    con = duckdb.connect()
    try:
        if path.endswith(".parquet"):
            return con.execute("SELECT * FROM read_parquet($p)", {"p": path}).fetchall()
        return con.execute("SELECT * FROM read_csv($p, header = true, all_varchar = true)", {"p": path}).fetchall()
    finally:
        con.close()
