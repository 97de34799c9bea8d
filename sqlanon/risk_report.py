"""The risk section of a report: class sizes from the engine (SQL), figures from sqlanon.risk.

``before`` is the input (the node of all zeros over the base class table); ``after`` is the
released output: the kept classes of the chosen node, re-counted on the written file by the
verification (sqlanon/verify.py) and required to agree. Suppressed records are left out of
``after`` and reported beside it, as ARX's risk analysis does (``RiskModelHistogram`` skips
every row ``isOutlier``): they carry no quasi-identifier value to link.
"""

from __future__ import annotations

from sqlanon.errors import VerificationError
from sqlanon.risk.analysis import risk_section


def input_sizes(session) -> dict[int, int]:
    """The input's class sizes: the base classes, grouped at level 0 of every QI."""
    return session.engine.class_sizes(tuple(0 for _ in session.qis))


def node_sizes(session, checker, node) -> dict[int, int]:
    """A node's kept classes (the models' suppression applied), by size."""
    return session.engine.class_sizes(tuple(node), checker.keep, checker.params)


def checked_sizes(engine_sizes: dict[int, int], verification: dict | None, path: str | None) -> dict[int, int]:
    """The output's class sizes: the engine's, confirmed by the re-count of the written file."""
    if not verification or "class_sizes" not in verification:
        return engine_sizes
    written = {int(s): int(c) for s, c in verification["class_sizes"]}
    if written != engine_sizes:
        raise VerificationError(
            f"output {path}: its class sizes {sorted(written.items())[:5]}... differ from the search's "
            f"{sorted(engine_sizes.items())[:5]}.... The output was removed; this is a bug.")
    return written


def risk_report(session, before: dict[int, int], after: dict[int, int] | None, suppressed: int | None) -> dict:
    """``{"before": ..., "after": ...}`` (``after`` None when nothing was released)."""
    settings = session.job.risk
    population = settings.population(session.rows)
    section = lambda sizes, s: risk_section(sizes, settings.threshold, population, settings.model, s)  # noqa: E731
    return {"before": section(before, 0), "after": None if after is None else section(after, suppressed or 0)}
