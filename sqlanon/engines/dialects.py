"""Rendering a compiler tree for one SQL dialect, with the few fixes sqlglot does not make.

The compiler builds dialect-neutral sqlglot trees (DuckDB's types where it picks narrow ones);
every engine and the golden files render through ``render`` so what is tested is what is sent.
"""

from __future__ import annotations

from sqlglot import exp

DIALECTS = ("duckdb", "postgres", "spark")

# PostgreSQL and Spark have no unsigned integers (sqlglot passes UTINYINT/USMALLINT through):
# the signed type one size up holds every code.
_SIGNED = {exp.DataType.Type.UTINYINT: exp.DataType.Type.SMALLINT,
           exp.DataType.Type.USMALLINT: exp.DataType.Type.INT}


def _signed(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.DataType) and node.this in _SIGNED:
        return exp.DataType(this=_SIGNED[node.this])
    return node


def _bytes_hashed(node: exp.Expression) -> exp.Expression:
    """PostgreSQL's sha256 takes bytea (sqlglot passes it text, and hex-encodes the digest):
    the text's UTF-8 bytes in, the digest left as bytea, which sorts byte by byte as DuckDB's
    and Spark's hex digests do (text would sort by the database's collation)."""
    if isinstance(node, exp.SHA2):
        data = exp.Anonymous(this="CONVERT_TO", expressions=[node.this, exp.Literal.string("UTF8")])
        return exp.Anonymous(this="SHA256", expressions=[data])
    return node


def render(query: exp.Expression, dialect: str, pretty: bool = False) -> str:
    """The SQL of ``query`` for ``dialect`` (duckdb, postgres or spark).

    >>> from sqlglot import exp
    >>> e = exp.Cast(this=exp.column("x"), to=exp.DataType(this=exp.DataType.Type.UTINYINT))
    >>> render(e, "postgres"), render(e, "duckdb")
    ('CAST(x AS SMALLINT)', 'CAST(x AS UTINYINT)')
    """
    if dialect != "duckdb":
        query = query.transform(_signed)
    if dialect == "postgres":
        query = query.transform(_bytes_hashed)
    return query.sql(dialect, pretty=pretty)
