"""Write, verify, confirm: the one path from a found solution to an output ready to publish.

The released table is written under its temporary name (``Publication.output_target``), read
back by the independent verification (``sqlanon.release.verify``), and its released classes'
sizes compared with the engine's (``confirm_sizes``). Every check of the written output is
here, in this order, and any failure raises ``VerificationError`` out of the run's
``Publication``, whose ``abort`` is the one place an unverified output is removed.

The output is judged by what the job asks, whoever made the promise (a search, a saved
transformation): k is the job's, and a promise whose models or suppression limit are not the
job's is refused before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlanon.config.job import ValidJob
from sqlanon.criteria import build_models
from sqlanon.config.engine import settings_of
from sqlanon.errors import VerificationError
from sqlanon.release.publication import Publication
from sqlanon.release.population import Population
from sqlanon.release.verify import fresh_database, verify
from sqlanon.core.report import VerificationReport


@dataclass(frozen=True)
class Promise:
    """What the search promised of the output, for the verification to hold it to:
    ``suppressed`` rows at most ``limit_rows``, every model (with the input's ``overall``
    sensitive distributions; ``population`` for δ-presence) and, from the engine, the
    released classes' sizes (None: not known to the engine, e.g. a cut set)."""

    suppressed: int
    limit_rows: int
    models: Sequence[Any] = ()
    overall: dict | None = None
    population: Population | None = None
    engine_sizes: Callable[[], dict[int, int]] | None = field(default=None, compare=False)


def write_verified(
    session, publication: Publication, write: Callable[[str], None], promise: Promise, phase: Callable[[str], None]
) -> VerificationReport:
    """Write the output with ``write(target)`` under its temporary name, then verify it there,
    independently: only a verified output is ever published."""
    job = session.job
    check_promise(job, session.rows, promise)
    phase("write")
    # the verification's own database, with the job's DuckDB settings, made before the write
    # (one made after a large COPY costs several times as much: verify.fresh_database)
    settings = settings_of(job)
    config = settings.duckdb_config()
    database = fresh_database(publication.staged_output, config)
    try:
        write(publication.output_target)
        publication.output_written()
    except BaseException:
        if database is not None:
            database.close()
        raise
    phase("verify")
    named = job.output.describe()
    verification = verify(
        publication.staged_output,
        session.qis,
        job.k,
        session.rows,
        promise.suppressed,
        promise.limit_rows,
        promise.models,
        promise.overall,
        promise.population,
        url=settings.url,
        named=named,
        config=config,
        database=database,
    )
    if promise.engine_sizes is not None:
        confirm_sizes(promise.engine_sizes(), verification.sizes(), named)
    return verification


def check_promise(job: ValidJob, rows: int, promise: Promise) -> None:
    """Refuse to verify against models other than the job's own, or a suppression limit above
    the job's. k-anonymity is left out of the comparison: the verification reads k from the
    job itself."""
    asked = [m.describe() for m in build_models(job.model_specs) if m.name != "k-anonymity"]
    given = [m.describe() for m in promise.models if m.name != "k-anonymity"]
    limit = job.release_limit_rows(rows)
    if given != asked or promise.limit_rows > limit:
        raise VerificationError(
            f"output {job.output.describe()}: the release was to be verified against the models {_listed(given)} with "
            f"at most {promise.limit_rows} suppressed rows, but the job asks {_listed(asked)} with at most {limit}. "
            "Nothing was written; this is a bug."
        )


def _listed(models: list[dict]) -> str:
    """Models as JSON, cut to 300 characters (a t-closeness order may list thousands of values)."""
    text = json.dumps(models, default=str)
    return text if len(text) <= 300 else text[:300] + "…"


def confirm_sizes(engine_sizes: dict[int, int], written: dict[int, int], path: str | None) -> None:
    """Refuse an output whose released classes (re-counted on the written file) are not the
    engine's. They may differ in one way only: classes whose labels coincide (one label under
    two parents of a hierarchy) are one group in the file, with the same records in fewer
    classes; the file is what is released, so its sizes are the risk's "after"."""
    if written == engine_sizes:
        return
    records = lambda sizes: sum(s * c for s, c in sizes.items())  # noqa: E731
    if records(written) == records(engine_sizes) and sum(written.values()) < sum(engine_sizes.values()):
        return
    raise VerificationError(
        f"output {path}: its class sizes {sorted(written.items())[:5]}... differ from the search's "
        f"{sorted(engine_sizes.items())[:5]}.... Nothing was published; this is a bug."
    )
