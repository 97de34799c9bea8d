"""Engines: the only place that executes anything. Known by name through their profiles
(``profiles.py``); an engine's module is imported when one is opened."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from sqlanon.engines.profiles import PROFILES, Settings, load

if TYPE_CHECKING:
    from sqlanon.config.job import Job
    from sqlanon.engines.base import Engine


class _Classes(Mapping):
    """Engine name -> engine class, each imported on first look-up."""

    def __getitem__(self, name: str) -> type[Engine]:
        if name not in PROFILES:
            raise KeyError(name)
        return load(name)

    def __iter__(self) -> Iterator[str]:
        return iter(PROFILES)

    def __len__(self) -> int:
        return len(PROFILES)


ENGINES: Mapping[str, type[Engine]] = _Classes()


def create_engine(name: str, **options: Any) -> Engine:
    return load(name)(**options)


def settings_of(job: Job) -> Settings:
    """The engine's own settings of the job, read by the engine's profile."""
    return PROFILES[job.engine].settings.read(job.engine, job.engine_settings, job.input.named_kind)


def engine_for(job: Job) -> Engine:
    """The job's engine, opened with the job's common [engine] keys and its own settings."""
    return create_engine(job.engine, lookup=job.lookup, snapshots=job.snapshots, **asdict(settings_of(job)))


__all__ = ["ENGINES", "create_engine", "engine_for", "settings_of"]
