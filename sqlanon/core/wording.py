"""How an error names a setting: as the job file and the command line spell it, or as the
Python API does when the job came from code.

A message raised inside ``sqlanon.anonymize(data, quasi=...)`` must not tell a notebook user
to add ``[attributes."x"]`` or pass ``--overwrite``; the API functions run inside
``from_code()`` and the few messages that name such a setting ask here for its spelling.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from collections.abc import Iterator

_CODE: ContextVar[bool] = ContextVar("sqlanon_wording_code", default=False)


@contextmanager
def from_code(active: bool = True) -> Iterator[None]:
    """Messages raised inside are worded for the Python API (when ``active``)."""
    token = _CODE.set(active or _CODE.get())
    try:
        yield
    finally:
        _CODE.reset(token)


def in_code() -> bool:
    return _CODE.get()


def overwrite_hint() -> str:
    """The end of "... already exists: <hint>"."""
    return "pass overwrite=True to replace it" if in_code() else "use --overwrite to replace it"


def role_setting(name: str, role: str) -> str:
    """Where a column gets ``role``."""
    if in_code():
        return f"{role}=[{name!r}]"
    return f'[attributes."{name}"]'


def roles_hint() -> str:
    """How to give columns without a role one."""
    if in_code():
        return (
            "name each in quasi=, sensitive=, insensitive= or identifying= (or pass "
            'others="insensitive" to release the rest unchanged, others="identifying" to leave it out)'
        )
    return (
        'give each an [attributes."<name>"] role (quasi, sensitive, insensitive, identifying) or list it in input.drop'
    )


def hierarchy_encoding_setting(attribute: str) -> str:
    """Where a hierarchy file's text encoding is given (``set <this> = "latin-1"``)."""
    if in_code():
        return f'encoding in Attribute({attribute!r}, "quasi", hierarchy, encoding=...)'
    return (
        f'its [attributes."{attribute}"]' if not attribute.isidentifier() else f"its [attributes.{attribute}]"
    ) + " encoding"
