"""Engines: the only place that executes anything. Known by name through their profiles
(``profiles.py``); an engine's module is imported when one is opened."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from sqlanon.engines.profiles import PROFILES, load

if TYPE_CHECKING:
    from sqlanon.engines.store import Store


class _Classes(Mapping):
    """Engine name -> engine class, each imported on first look-up."""

    def __getitem__(self, name: str) -> type[Store]:
        if name not in PROFILES:
            raise KeyError(name)
        return load(name)

    def __iter__(self) -> Iterator[str]:
        return iter(PROFILES)

    def __len__(self) -> int:
        return len(PROFILES)


ENGINES: Mapping[str, type[Store]] = _Classes()


def create_engine(name: str, **options: Any) -> Store:
    return load(name)(**options)


__all__ = ["ENGINES", "create_engine"]
