"""The job's engine: its own settings, read by the engine's profile, and the engine opened with
them. Here, above the engines, since an engine knows its settings, never the job."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from sqlanon.config.job import Job
from sqlanon.engines import create_engine
from sqlanon.engines.profiles import PROFILES, Settings

if TYPE_CHECKING:  # the contract's module loads sqlglot and the models: an engine's own module loads it
    from sqlanon.engines.store import Store


def settings_of(job: Job) -> Settings:
    """The engine's own settings of the job, read by the engine's profile."""
    return PROFILES[job.engine].settings.read(job.engine, job.engine_settings, job.input.named_kind)


def engine_for(job: Job) -> Store:
    """The job's engine, opened with the job's common [engine] keys and its own settings."""
    return create_engine(job.engine, lookup=job.lookup, snapshots=job.snapshots, **asdict(settings_of(job)))
