"""The role and hierarchy builder ``sqlanon init`` suggests for a profiled column.

The rules, in order (the first that applies decides; docs/job.md, ``init``):

1. one value (or none): ``insensitive`` — it tells nothing about anyone;
2. a BLOB, list, array, struct, map, union or JSON: ``identifying`` — no hierarchy generalizes
   it, so it cannot be a quasi-identifier; released only if the user decides it is
   insensitive;
3. a date or timestamp: ``quasi`` with the date builder (month, year, decade), however unique
   its values — a date of birth, admission or death is the classic quasi-identifier, which
   ARX and the literature generalize by month and year; with no single format that reads
   every value, ``identifying`` with a note;
4. a name that says direct identifier (name, e-mail, phone, address, SSN, ...):
   ``identifying``;
5. nearly every value unique — ``IDENTIFYING_SHARE`` of the rows for integers and codes (a
   record number; a column named as a zip code excepted), ``TEXT_IDENTIFYING_SHARE`` for text
   (a name, an address, free text, which no generalization of its characters protects):
   ``identifying``; a decimal number stays ``quasi`` (a measurement);
6. a code of digits — leading zeros, or a zip-like name and one width: ``quasi`` with the mask
   builder (47011 -> 4701* -> 470**);
7. a number: ``quasi`` with intervals; text of at most ``LISTED`` values: ``quasi`` with an
   order hierarchy listing them; other text: ``quasi`` with the mask builder.

``sensitive`` is never suggested: what the data is released for (a diagnosis) is the user's
decision. Nor is ``insensitive`` but for a constant: any other column may help re-identify
someone (ARX takes every attribute for a quasi-identifier until told otherwise).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from sqlanon.cli.column_profile import DATED, LISTED, NESTED, Column

#: an integer (or code) column with at least this share of unique values: a record number
IDENTIFYING_SHARE = 0.9
#: a text column with at least this share of unique values: names, addresses, free text
TEXT_IDENTIFYING_SHARE = 0.5
#: the date builder's levels init suggests
DATE_LEVELS = ["month", "year", "decade"]

#: words of a column name that say it holds a direct identifier
IDENTIFIER_WORDS = {
    "name",
    "names",
    "firstname",
    "lastname",
    "surname",
    "forename",
    "givenname",
    "fullname",
    "middlename",
    "maidenname",
    "username",
    "vorname",
    "nachname",
    "nom",
    "prenom",
    "email",
    "mail",
    "phone",
    "telephone",
    "telefon",
    "tel",
    "mobile",
    "fax",
    "address",
    "street",
    "strasse",
    "ssn",
    "passport",
    "iban",
    "id",
    "uuid",
    "guid",
}
#: words of a column name that say it holds a zip code
ZIP_WORDS = {"zip", "zipcode", "postcode", "postalcode", "postal", "plz", "postleitzahl", "cap", "cep"}


@dataclass(frozen=True)
class Suggestion:
    kind: str  # as the job file names the column's type (a zip code's integers: digits)
    role: str
    why: str
    hierarchy: str | None = None  # the builder of a suggested QI, as a TOML inline table
    alternative: str | None = None  # the builder, were it made a QI (an identifying or insensitive column)
    note: str | None = None


def words(name: str) -> set[str]:
    """The lower-case words of a column name (``patientFirstName`` and ``first_name`` give
    ``first``, ``name``) and the name itself run together (``firstname``)."""
    split = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    parts = [p.lower() for p in re.split(r"[^0-9A-Za-z]+", split) if p]
    return set(parts) | {"".join(parts)} | {a + b for a, b in zip(parts, parts[1:])}


def suggest(column: Column) -> Suggestion:
    """The suggested role of the column, with why, its builder and a note."""
    kind, said = column.kind, words(column.name)
    if column.present == 0 or column.distinct + (1 if column.nulls else 0) <= 1:  # NULL is a value too ('')
        what = "no value" if column.present == 0 else "one value"
        return Suggestion(kind, "insensitive", f"{what}: it tells nothing about anyone")
    if kind in NESTED:
        return Suggestion(
            kind,
            "identifying",
            f"a {kind} cannot be a quasi-identifier (no hierarchy generalizes it)",
            note=f'not released: set role = "insensitive" only if this {kind} says nothing about a person',
        )
    if kind in DATED:
        if column.date_format is None:
            return Suggestion(
                kind,
                "identifying",
                "a date, but no one date format reads every value as text",
                note="the date builder takes one strptime format, and these values differ in layout "
                "(fractions of a second on some, nanoseconds, or varying time zone offsets); "
                "written in one layout, it can be a quasi-identifier with the date builder",
            )
        why = "a date: a classic quasi-identifier, generalized to month, year, decade"
        return Suggestion(kind, "quasi", why, _dates(column.date_format), note=_empty_note(column, "date"))
    if said & IDENTIFIER_WORDS:
        return Suggestion(
            kind,
            "identifying",
            "its name says it identifies a person: not released",
            alternative=_builder(column, kind),
        )
    if kind == "integer" and column.digit_strings and said & ZIP_WORDS and column.shortest == column.longest:
        kind = "digits"  # a zip code of integers: masked, not counted
    share = column.unique_share
    if kind in ("integer", "digits") and share >= IDENTIFYING_SHARE and not (kind == "digits" and said & ZIP_WORDS):
        return Suggestion(
            kind,
            "identifying",
            f"{unique_share(column)} of the values are unique: a record number or other identifier, not released",
            alternative=_builder(column, kind),
        )
    if kind not in ("integer", "number", "digits") and share >= TEXT_IDENTIFYING_SHARE:
        return Suggestion(
            kind,
            "identifying",
            f"{unique_share(column)} of the values are unique: a name, address or free text, not released",
            alternative=_builder(column, kind),
        )
    builder = _builder(column, kind)
    why = {
        "digits": "a code: masked from the right",
        "integer": "generalized into intervals",
        "number": "generalized into intervals",
    }.get(kind, "generalized by the hierarchy below")
    return Suggestion(
        kind, "quasi", why, builder, note=_empty_note(column, "intervals") if kind in ("integer", "number") else None
    )


def _builder(column: Column, kind: str) -> str:
    """A builder for the column, as a TOML inline table."""
    if kind in ("integer", "number") and column.low is not None and column.high is not None:
        integral = kind == "integer"
        width = _nice((column.high - column.low) / 20 or 1, integral)
        start = math.floor(column.low / width) * width
        widths = [width, width * 2, width * 4]
        return f'{{ type = "intervals", widths = [{", ".join(_number(w) for w in widths)}], start = {_number(start)} }}'
    if kind == "digits":
        return f'{{ type = "mask", mask = "*", levels = {max(1, (column.longest or 2) - 1)} }}'
    if column.values is not None and len(column.values) <= LISTED:
        shown = ", ".join(json.dumps(v, ensure_ascii=False) for v in column.values)
        return f'{{ type = "order", values = [{shown}], fanout = [2] }}'
    # too many values to list: generalized by their leading characters
    return f'{{ type = "mask", mask = "*", levels = {max(1, min(column.longest or 2, 6) - 1)} }}'


def _dates(fmt: str) -> str:
    return (
        f'{{ type = "date", format = {json.dumps(fmt)}, levels = '
        f"[{', '.join(json.dumps(level) for level in DATE_LEVELS)}] }}"
    )


def _empty_note(column: Column, builder: str) -> str | None:
    if not column.nulls:
        return None
    return (
        f"{column.nulls:,} empty: the {builder} builder refuses the empty value (NULL reads as ''); fill or drop "
        "those rows, or write the hierarchy as a file with a row for '' (e.g. ';*')"
    )


def _nice(raw: float, integral: bool) -> float:
    """The smallest of 1, 2, 5 times a power of ten at or above ``raw`` (at least 1 for integers)."""
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for step in (1, 2, 5, 10):
        if step * power >= raw:
            value = step * power
            return max(1, round(value)) if integral else value
    return 10 * power


def unique_share(column: Column) -> str:
    """The column's share of unique values as the job shows it: exact, or an estimate (~)."""
    if column.exact:
        return f"{column.unique_share * 100:.3g}%"
    return f"~{about(column.unique_share * 100)}%"


def about(value: float) -> str:
    """An estimate to two significant digits (HyperLogLog is a few percent off)."""
    if value <= 0:
        return "0"
    rounded = round(value, 1 - math.floor(math.log10(value)))
    return f"{rounded:,.0f}" if rounded >= 10 else f"{rounded:g}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))
