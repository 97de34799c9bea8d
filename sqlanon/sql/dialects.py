"""Rendering a compiler tree for one SQL dialect, with the few fixes sqlglot does not make.

The compiler builds dialect-neutral sqlglot trees (DuckDB's types where it picks narrow ones);
every engine and the golden files render through ``render`` so what is tested is what is sent.
"""

from __future__ import annotations

from sqlglot import exp

DIALECTS = ("duckdb", "postgres", "spark")

# PostgreSQL and Spark have no unsigned integers (sqlglot passes UTINYINT/USMALLINT through):
# the signed type one size up holds every code.
_SIGNED = {exp.DataType.Type.UTINYINT: exp.DataType.Type.SMALLINT, exp.DataType.Type.USMALLINT: exp.DataType.Type.INT}


def _signed(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.DataType) and node.this in _SIGNED:
        return exp.DataType(this=_SIGNED[node.this])
    return node


def _bytes_hashed(node: exp.Expression) -> exp.Expression:
    """PostgreSQL's sha256 takes bytea (sqlglot passes it text): the text's UTF-8 bytes in, the
    digest hex-encoded as DuckDB's and Spark's are (lower case), so that the shuffle's key
    reads the same digits (``compiler.shuffle_key``)."""
    if isinstance(node, exp.SHA2):
        data = exp.Anonymous(this="CONVERT_TO", expressions=[node.this, exp.Literal.string("UTF8")])
        digest = exp.Anonymous(this="SHA256", expressions=[data])
        return exp.Anonymous(this="ENCODE", expressions=[digest, exp.Literal.string("hex")])
    return node


def _hex_read_by_conv(node: exp.Expression) -> exp.Expression:
    """Spark has no bit strings: the text ``'x' || digits`` cast to BIT(n), as the shuffle's key
    reads hex digits as a number (``compiler.shuffle_key``), becomes ``CONV(digits, 16, 10)``,
    the same number as decimal text (up to 16 digits: CONV reads 64 unsigned bits)."""
    if isinstance(node, exp.Cast) and node.to.this == exp.DataType.Type.BIT:
        text = node.this
        if not (
            isinstance(text, exp.Concat)
            and len(text.expressions) == 2
            and text.expressions[0] == exp.Literal.string("x")
        ):
            raise ValueError(f"Spark has no bit strings: no rendering of {node.sql()}")
        return exp.Anonymous(
            this="CONV", expressions=[text.expressions[1], exp.Literal.number(16), exp.Literal.number(10)]
        )
    return node


def render(query: exp.Expr, dialect: str, pretty: bool = False) -> str:
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
    if dialect == "spark":
        query = query.transform(_hex_read_by_conv)
    return query.sql(dialect, pretty=pretty)
