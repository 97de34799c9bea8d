"""Text encodings of the files sqlanon reads (a CSV input, hierarchy files), and what to say
when a file is not in the encoding it is read with.

Python reads hierarchies and (through pyarrow) the memory and Spark engines' CSV input, so
any codec Python knows works there; DuckDB's ``read_csv`` knows utf-8, utf-16 and latin-1
without its ``encodings`` extension (which needs a download), so the duckdb engine takes those.
"""

from __future__ import annotations

import codecs

from sqlanon.errors import ConfigError, cut

DEFAULT = "utf-8"
#: Python's canonical codec name -> DuckDB's read_csv name, for the encodings DuckDB builds in
DUCKDB = {"utf-8": "utf-8", "utf-16": "utf-16", "iso8859-1": "latin-1"}


def codec(name: str | None, key: str) -> str:
    """Python's canonical name of the encoding ``name`` (None: UTF-8); ``key`` names the
    setting in the error (e.g. ``input.encoding``)."""
    if name is None:
        return DEFAULT
    if not isinstance(name, str):
        raise ConfigError(f'{key} must be the name of a text encoding such as "latin-1", got {cut(name)}')
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise ConfigError(
            f'{key} = {cut(name)} is not a text encoding Python knows; use e.g. "utf-8", '
            '"latin-1" (ISO-8859-1), "cp1252" (Windows) or "utf-16"'
        ) from None


def duckdb_name(name: str | None) -> str | None:
    """DuckDB's name for the encoding, or None when DuckDB cannot read it without extensions."""
    return DUCKDB.get(codec(name, "encoding"))


def reading_codec(name: str | None) -> str:
    """The codec to open a file with: UTF-8 skips a byte-order mark (as DuckDB and pyarrow do)."""
    python = codec(name, "encoding")
    return "utf-8-sig" if python == "utf-8" else python


def first_undecodable(path: str, encoding: str | None) -> tuple[int | None, int, bytes, str] | None:
    """Where ``path`` stops being text in ``encoding``: (line, byte in the line — or in the
    file when the line is unknown —, the offending bytes, the line with them shown as U+FFFD),
    or None when the whole file decodes. Encodings that keep ASCII's newline byte are checked
    line by line; others (utf-16) in one pass, with the byte offset in the file."""
    name = reading_codec(encoding)
    try:
        with open(path, "rb") as handle:
            if b"\n".decode(name, "ignore") == "\n":
                for number, raw in enumerate(handle, start=1):
                    try:
                        raw.decode(name)
                    except UnicodeDecodeError as error:
                        shown = raw.rstrip(b"\r\n").decode(name, "replace")  # the bad bytes as U+FFFD
                        return number, error.start + 1, raw[error.start : error.end], shown
                return None
            data = handle.read()
    except OSError:
        return None
    try:
        data.decode(name)
    except UnicodeDecodeError as error:
        return None, error.start + 1, data[error.start : error.end], ""
    return None


def likely_encoding(path: str) -> str:
    """The encoding to suggest for a file that is not UTF-8: utf-16 when it starts with that
    byte-order mark, else latin-1 (which decodes any byte, so the run goes on to check values)."""
    try:
        with open(path, "rb") as handle:
            start = handle.read(2)
    except OSError:
        return "latin-1"
    return "utf-16" if start in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) else "latin-1"


def undecodable_message(what: str, path: str, encoding: str | None, found, setting: str) -> str:
    """The error for a file that is not in its encoding: ``what`` names it ("input data.csv",
    "hierarchy file age.csv (attribute 'age')"), ``setting`` is where its encoding is set
    (``[input] encoding``); ``found`` comes from ``first_undecodable``."""
    line, byte, bad, shown = found
    where = f"line {line}, byte {byte} of the line" if line is not None else f"byte {byte} of the file"
    text = f" in {cut(shown)}" if shown else ""
    guess = likely_encoding(path)
    fix = (
        f'set {setting} = "{guess}" (or the encoding it was saved in)'
        if encoding is None
        else f"{setting} = {encoding!r} is not its encoding; set the one it was saved in"
    )
    return (
        f"{what} is not valid {codec(encoding, 'encoding')} text: an encoding problem at {where} "
        f"(0x{bad.hex()}){text}. The file was saved in another encoding: {fix}, "
        f"or convert the file to UTF-8 (e.g. iconv -f {guess} -t utf-8)"
    )
