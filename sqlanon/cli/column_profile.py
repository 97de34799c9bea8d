"""What ``sqlanon init`` reads of each column, in one query over the input.

One ungrouped aggregate query reads the input once, however many columns it has (a query per
column read a 300-column CSV 300 times). Per column it gathers:

* how many values are present and how many distinct: DuckDB's ``approx_count_distinct``
  (HyperLogLog, a few percent off), since exact counts build a hash table per column and cost
  several times the rest of the profile on a wide file; the role rules only compare them to a
  share of the rows (sqlanon/cli/column_roles.py);
* every value, exactly, when there are at most ``LISTED`` (``approx_top_k`` asked for one
  more: DuckDB's space-saving sketch monitors three times as many values as it returns and
  replaces one only once full, so a shorter list is every value; tests/cli/test_init_job.py
  checks it) — what an order hierarchy lists;
* for text, which values read as integers, numbers, dates or timestamps (casts and anchored
  regular expressions behind cheap prefix tests) and the numeric range;
* for dates and timestamps, the layout of every value (digits as ``9``) and its time zone
  offset, so that the one ``strptime`` format the date builder takes is known to read them.

Values are compared as the run compares a QI with its hierarchy: by their text
(``CAST(... AS VARCHAR)``, sqlanon/sql/trees.py ``as_text``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import duckdb
from sqlglot import exp

from sqlanon.core.specs import Source
from sqlanon.engines.duckdb.engine import DuckDBEngine

#: up to this many values a column's values are listed (an order hierarchy lists them)
LISTED = 30

DIGITS = "^[0-9]+$"
#: how a date or a timestamp starts (2024-03-31...), or a whole dotted date (31.03.2024): the
#: only values the date and timestamp parsers see
DATE_LIKE = "^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([ T][0-9]|$)|^[0-9]{1,2}[.][0-9]{1,2}[.][0-9]{4}$"
OFFSET = "[+-][0-9]{2}(:?[0-9]{2})?$"
#: a timestamp's layout (digits as 9) and the strptime format that reads it
_LAYOUT = re.compile(r"9999-99-99([ T])99:99(:99(\.9{1,6})?)?(Z|[+-]99(:?99)?)?")

#: DuckDB types by the kind ``init`` names them (VARCHAR: from its values)
_INTEGERS = {
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
    "UHUGEINT",
}
_NUMBERS = {"FLOAT", "DOUBLE", "REAL"}
_NAMED = {
    "DATE": "date",
    "TIMESTAMP": "timestamp",
    "TIMESTAMP_S": "timestamp",
    "TIMESTAMP_MS": "timestamp",
    "TIMESTAMP_NS": "timestamp",
    "TIMESTAMP WITH TIME ZONE": "timestamp with time zone",
    "TIME": "time",
    "TIME WITH TIME ZONE": "time with time zone",
    "BOOLEAN": "boolean",
    "UUID": "uuid",
    "INTERVAL": "interval",
    "BLOB": "blob",
    "BIT": "bit string",
    "JSON": "json",
}
#: kinds a hierarchy cannot generalize: no QI
NESTED = {"blob", "list", "array", "struct", "map", "union", "json"}
DATED = {"date", "timestamp", "timestamp with time zone"}


@dataclass(frozen=True)
class Column:
    """One column as ``init`` describes it.

    ``kind``: integer | number | digits (a code of digits: leading zeros, or a zip-like name
    and one width) | date | timestamp | text, or the real type of a typed column (timestamp
    with time zone, time, boolean, uuid, blob, list, array, struct, map, ...). ``distinct``
    is exact when ``values`` is set (every value, NULL as ''), an estimate otherwise."""

    name: str
    kind: str
    rows: int
    present: int
    distinct: int
    values: list[str] | None = None
    low: float | None = None
    high: float | None = None
    shortest: int | None = None  # the fewest and most characters of a value
    longest: int | None = None
    date_format: str | None = None  # date and timestamp kinds: the format reading every value
    duck_type: str = "VARCHAR"
    digit_strings: bool = False  # every value is a string of digits (an integer >= 0 of a typed column)

    @property
    def nulls(self) -> int:
        return self.rows - self.present

    @property
    def exact(self) -> bool:
        return self.values is not None

    @property
    def unique_share(self) -> float:
        return self.distinct / self.rows if self.rows else 0.0


@dataclass(frozen=True)
class Profile:
    rows: int
    columns: list[Column]
    queries: int = 0  # queries run over the input: 1
    sql: str = field(default="", repr=False)


def kind_of_type(duck_type: str) -> str | None:
    """The kind of a typed column (None: VARCHAR, read from its values)."""
    if duck_type == "VARCHAR":
        return None
    if duck_type in _INTEGERS:
        return "integer"
    if duck_type in _NUMBERS or duck_type.startswith("DECIMAL"):
        return "number"
    if duck_type.endswith("]"):
        return "array" if duck_type.rstrip("]").rsplit("[", 1)[-1] else "list"
    for prefix, kind in (("STRUCT", "struct"), ("MAP", "map"), ("UNION", "union"), ("ENUM", "enum")):
        if duck_type.startswith(prefix + "("):
            return kind
    return _NAMED.get(duck_type, duck_type.lower())


def profile(source: Source) -> Profile:
    """Every column of the input, from one query."""
    engine = DuckDBEngine()
    try:
        names = engine.open(source)
        relation, params = engine._source_relation(source)
        types = [engine._types.get(name, "VARCHAR") for name in names]
        templates = {duck_type: _Template(duck_type) for duck_type in dict.fromkeys(types)}
        plans = [templates[duck_type] for duck_type in types]
        sql = profile_sql(names, plans, relation)
        try:
            row = engine.run(sql, params)[0]
        except duckdb.Error as error:
            raise engine._read_error(source, error) from None
        rows = int(row[0])
        columns, at = [], 1
        for name, template in zip(names, plans):
            width = len(template.plan.aggregates)
            columns.append(template.plan.column(name, rows, row[at : at + width]))
            at += width
        return Profile(rows, columns, engine.queries, sql)
    finally:
        engine.close()


def profile_sql(names: list[str], templates: list[_Template], relation: str) -> str:
    """SELECT COUNT(*), every column's aggregates FROM (each value's tests FROM (each value's
    text and first tests FROM the input)). A test is computed once per value, in a subquery,
    and a costly one (a regular expression, a parser) behind CASE, so that only the values it
    may accept reach it.

    A 300-column query is some 60,000 sqlglot nodes, which take longer to build and render
    than DuckDB takes to read a 30,000-row file: so each column type's part is built and
    rendered once (``_Template``), each column's written from it with its own identifiers, and
    the query from a rendered skeleton whose placeholder columns take the parts."""
    parts: dict[str, list[str]] = {"first": [], "second": [], "aggregates": []}
    for i, (name, template) in enumerate(zip(names, templates)):
        for level, sql in template.parts(i, name).items():
            parts[level] += sql
    fill = {f'"{_SLOT[level]}"': ", ".join(texts) for level, texts in parts.items()}
    fill[f'"{_SLOT["source"]}"'] = relation
    first = exp.select(_col(_SLOT["first"]), copy=False).from_(exp.Table(this=_ident(_SLOT["source"])), copy=False)
    second = exp.select(_col(_SLOT["second"]), copy=False).from_(first.subquery(_ident("read"), copy=False), copy=False)
    outer = exp.select(exp.Count(this=exp.Star()), _col(_SLOT["aggregates"]), copy=False).from_(
        second.subquery(_ident("tested"), copy=False), copy=False
    )
    return _SLOTS.sub(
        lambda m: fill[m.group(0)], outer.sql("duckdb", copy=False)
    )  # one pass: nothing filled in is read again


#: the skeleton's placeholders: a column per level, the input as a table
_SLOT = {level: f"sqlanon_{level}_slot" for level in ("first", "second", "aggregates", "source")}
_SLOTS = re.compile("|".join(re.escape(f'"{name}"') for name in _SLOT.values()))
_SOURCE = "sqlanon_source_column"
#: the per-value columns a template names, as column 0
_OWN = ("t", "x", "d", "b", "g")
_OWN_NAMES = re.compile("|".join(re.escape(f'"{p}0"') for p in _OWN) + "|" + re.escape(f'"{_SOURCE}"'))


class _Template:
    """The part of the query for a column of one DuckDB type, built and rendered once."""

    def __init__(self, duck_type: str):
        self.plan = _Plan(0, _SOURCE, duck_type)
        levels = {"first": self.plan.first, "second": self.plan.second, "aggregates": self.plan.aggregates}
        self._sql = {level: [e.sql("duckdb", copy=False) for e in expressions] for level, expressions in levels.items()}

    def parts(self, i: int, name: str) -> dict[str, list[str]]:
        """The parts for column ``i``, named ``name``: the template's identifiers replaced in
        one pass (a column named like one of them is not replaced again)."""
        own = {f'"{p}0"': f'"{p}{i}"' for p in _OWN}
        own[f'"{_SOURCE}"'] = _ident(name).sql("duckdb")
        return {
            level: [_OWN_NAMES.sub(lambda m: own[m.group(0)], sql) for sql in texts]
            for level, texts in self._sql.items()
        }


def _ident(name: str) -> exp.Identifier:
    return exp.Identifier(this=name, quoted=True)


def _col(name: str) -> exp.Column:
    return exp.Column(this=_ident(name))


def _named(e: exp.Expression, name: str) -> exp.Alias:
    return exp.Alias(this=e, alias=_ident(name))


def _fn(name: str, *args: exp.Expression) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def _text(s: str) -> exp.Literal:
    return exp.Literal.string(s)


def _int(n: int) -> exp.Expression:
    return exp.Literal.number(n)


def _matches(e: exp.Expression, pattern: str) -> exp.Expression:
    return exp.RegexpLike(this=e, expression=_text(pattern))


def _when(condition: exp.Expression, then: exp.Expression, otherwise: exp.Expression | None = None) -> exp.Case:
    """CASE WHEN condition THEN then [ELSE otherwise] END: DuckDB evaluates ``then`` only
    where the condition holds."""
    return exp.Case(ifs=[exp.If(this=condition, true=then)], default=otherwise)


def _cast(e: exp.Expression, to: Any, safe: bool = False) -> exp.Cast:  # to: an exp.DataType.Type
    kind = exp.TryCast if safe else exp.Cast
    return kind(this=e, to=exp.DataType(this=to, nested=False))


def _and(*conditions: exp.Expression) -> exp.Expression:
    out = conditions[0]
    for condition in conditions[1:]:
        out = exp.And(this=out, expression=condition)
    return out


def _starts_within(value: Callable[[], exp.Expression], low: str, high: str) -> exp.Expression:
    """The first character of the value is in [low, high]: two comparisons of a prefix, far
    cheaper than a regular expression, which then only sees the values that pass."""
    return _and(
        exp.GTE(this=value(), expression=_text(low)), exp.LT(this=value(), expression=_text(chr(ord(high) + 1)))
    )


#: the date test's answer for a date, a dotted date and a value no parser reads
_DATE, _DOTTED, _BAD = "date", "dotted", "bad"
#: the bits of the number test: integral, a string of digits, a leading zero
_INTEGRAL, _DIGITS, _ZERO = 1, 2, 4


class _Plan:
    """One column's part of the query, read back in the same order by ``column``.

    ``first`` (per value, over the input): its text ``t<i>``; for text, the number it reads
    as, ``x<i>`` (only a value starting with a sign, a point or a digit reaches the cast), and
    whether it starts like a date, ``d<i>`` (only a value of 8 to 40 characters starting with
    a digit reaches the regular expression). ``second`` (per value, over ``first``): the bits
    of a number, ``b<i>``, and what reads a date-like value, ``g<i>``: 'date', 'dotted', a
    timestamp's layout (digits as 9) and offset, or 'bad'. ``aggregates``: what the column's
    values add up to."""

    def __init__(self, i: int, name: str, duck_type: str):
        self.duck_type = duck_type
        self.kind = kind_of_type(duck_type)
        T = exp.DataType.Type

        def own(prefix: str) -> Callable[[], exp.Column]:
            return lambda: _col(f"{prefix}{i}")

        t, x, d, g = own("t"), own("x"), own("d"), own("g")

        def text() -> exp.Expression:
            """The source's value as text: what ``first`` reads (never its own aliases, which a
            source column of the same name would shadow)."""
            return _col(name) if self.kind is None else _cast(_col(name), T.VARCHAR)

        self.first: list[exp.Expression] = [_named(text(), f"t{i}")]
        self.second: list[exp.Expression] = [t()]
        self.aggregates: list[exp.Expression] = [exp.Count(this=t()), exp.ApproxDistinct(this=t())]
        self.parts = ["present", "distinct"]
        if self.kind in NESTED:
            return
        if self.kind in ("integer", "number"):
            self.first.append(_named(_cast(_col(name), T.DOUBLE), f"x{i}"))
            self.second.append(x())
            self._add(low=exp.Min(this=x()), high=exp.Max(this=x()))
            return
        if self.kind not in DATED:  # text of a few values: every value
            self._add(top=_fn("APPROX_TOP_K", t(), _int(LISTED + 1)), longest=exp.Max(this=exp.Length(this=t())))
        if self.kind is None:
            self.first.append(
                _named(_when(_starts_within(text, "+", "9"), _cast(text(), T.DOUBLE, safe=True)), f"x{i}")
            )
            zero = _when(exp.Like(this=t(), expression=_text("0_%")), _int(_ZERO), _int(0))
            digits = _when(_matches(t(), DIGITS), exp.Add(this=_int(_DIGITS), expression=zero), _int(0))
            integral = exp.EQ(this=x(), expression=exp.Round(this=x()))
            bits = _when(
                exp.Not(this=exp.Is(this=x(), expression=exp.Null())),
                _when(integral, exp.Add(this=_int(_INTEGRAL), expression=digits), _int(0)),
            )
            self.second += [x(), _named(bits, f"b{i}")]
            self._add(
                numbers=exp.Count(this=x()),
                low=exp.Min(this=x()),
                high=exp.Max(this=x()),
                every=exp.BitwiseAndAgg(this=_col(f"b{i}")),
                some=exp.BitwiseOrAgg(this=_col(f"b{i}")),
                shortest=exp.Min(this=_fn("STRLEN", t())),
            )
        if self.kind is None or self.kind in DATED:
            gate = _and(
                _starts_within(text, "0", "9"), exp.Between(this=_fn("STRLEN", text()), low=_int(8), high=_int(40))
            )
            self.first.append(_named(_when(gate, _matches(text(), DATE_LIKE)), f"d{i}"))
            iso = exp.Like(this=t(), expression=_text("____-%"))

            def read(parsed: exp.Expression, answer: exp.Expression) -> exp.Case:
                return _when(exp.Not(this=exp.Is(this=parsed, expression=exp.Null())), answer, _text(_BAD))

            layout = exp.DPipe(
                this=exp.DPipe(this=_fn("TRANSLATE", t(), _text("0123456789"), _text("9" * 10)), expression=_text("|")),
                expression=exp.Coalesce(
                    this=exp.RegexpExtract(this=t(), expression=_text(OFFSET)), expressions=[_text("")]
                ),
            )
            answer = exp.Case(
                ifs=[
                    exp.If(
                        this=_and(iso, exp.LTE(this=_fn("STRLEN", t()), expression=_int(10))),
                        true=read(_cast(t(), T.DATE, safe=True), _text(_DATE)),
                    ),
                    exp.If(
                        this=exp.Not(this=exp.Like(this=t(), expression=_text("____-%"))),
                        true=read(_fn("TRY_STRPTIME", t(), _text("%d.%m.%Y")), _text(_DOTTED)),
                    ),
                ],
                default=read(_cast(t(), T.TIMESTAMPTZ, safe=True), layout),
            )
            self.second.append(_named(_when(d(), answer), f"g{i}"))
            self._add(dates=exp.Count(this=g()), date_low=exp.Min(this=g()), date_high=exp.Max(this=g()))

    def _add(self, **aggregates: exp.Expression) -> None:
        self.parts += list(aggregates)
        self.aggregates += list(aggregates.values())

    def column(self, name: str, rows: int, values: tuple[Any, ...]) -> Column:
        got = dict(zip(self.parts, values))
        present = int(got["present"] or 0)
        listed, top = None, got.get("top")
        if present == 0 or (top is not None and len(top) <= LISTED):
            listed = sorted(set(top or []) | ({""} if present < rows else set()))  # NULL reads as ''
        distinct = len(top or []) if listed is not None else min(int(got["distinct"]), present)
        kind = self.kind or _text_kind(got, present)
        low, high = got.get("low"), got.get("high")
        if kind not in ("integer", "number", "digits"):
            low = high = None
        date_format = None
        if kind in DATED or (self.kind is None and kind == "text"):
            date_format = _date_format(got, present)
            if self.kind is None and date_format is not None:
                kind = "date" if "%H" not in date_format else "timestamp"
        shortest, longest = got.get("shortest"), got.get("longest")
        if self.kind == "integer" and low is not None and low >= 0:  # a typed integer's widths
            shortest, longest = len(str(int(low))), len(str(int(high or 0)))
        digit_strings = (
            bool((got.get("every") or 0) & _DIGITS) and got.get("numbers") == present
            if self.kind is None
            else self.kind == "integer" and low is not None and low >= 0
        )
        return Column(
            name,
            kind,
            rows,
            present,
            distinct,
            listed,
            low,
            high,
            None if shortest is None else int(shortest),
            None if longest is None else int(longest),
            date_format,
            self.duck_type,
            bool(present and digit_strings),
        )


def _text_kind(got: dict[str, Any], present: int) -> str:
    """integer, number, digits or text, from the tests of every present value: a number
    whatever the intervals builder reads as one (finite), an integer when every value is
    integral (as the builder decides its labels), digits when every value is a string of
    digits and some have a leading zero (a code: 01234 is not the number 1234)."""
    finite = all(v is not None and math.isfinite(v) for v in (got["low"], got["high"]))
    if not present or got["numbers"] != present or not finite:
        return "text"
    every, some = got["every"] or 0, got["some"] or 0
    if every & _DIGITS and some & _ZERO:
        return "digits"
    return "integer" if every & _INTEGRAL else "number"


def _date_format(got: dict[str, Any], present: int) -> str | None:
    """The strptime format that reads every present value, if there is one: every value
    answered the date test alike (a date, a dotted date, or a timestamp of one layout and
    one offset)."""
    answer = got["date_low"]
    if not present or got["dates"] != present or answer != got["date_high"] or answer == _BAD:
        return None
    if answer in (_DATE, _DOTTED):
        return "%Y-%m-%d" if answer == _DATE else "%d.%m.%Y"
    layout, _, offset = str(answer).partition("|")
    shape = _LAYOUT.fullmatch(layout)
    if shape is None:
        return None
    separator, seconds, fraction, zone = shape.group(1), shape.group(2), shape.group(3), shape.group(4)
    fmt = f"%Y-%m-%d{separator}%H:%M" + (":%S" if seconds else "") + (".%f" if fraction else "")
    if zone == "Z":
        return fmt + "Z"
    return fmt + offset  # an offset, written the same on every value, is read as text
