"""A lattice node's release as the store and the runner make it.

The one place that asks, with the checker's keep condition and parameters, for what a
released node is: its table written to a target by the store, and from the checker's runner
its kept classes by size, the figures of its classes (δ-presence's range) and the per-QI leaf
counts of its statistics. The anonymizer and the report ask a ``NodeRelease``; neither
reaches into the store or the runner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlanon.core.needs import Need
from sqlanon.release.population import Population

if TYPE_CHECKING:
    from sqlanon.core.stats import ClassStats


@dataclass(frozen=True)
class NodeRelease:
    """``best`` (a ``CheckResult``) of ``checker``'s search in ``session``."""

    session: Any
    checker: Any
    best: Any

    @property
    def node(self) -> tuple[int, ...]:
        return self.best.node

    def write(self, target: str) -> None:
        """Write the released table (the job's output columns) to ``target``: a temporary file
        or table name given by the publication."""
        session, checker = self.session, self.checker

        # a runner in process holds the node's verdicts: a release that reads them asks for them
        def classes():
            return checker.runner.node_classes(self.node, checker.keep, checker.params)

        session.engine.write(
            self.node, checker.keep, checker.params, session.output_columns, session.job.output, target, classes
        )

    def class_sizes(self) -> dict[int, int]:
        """The kept classes (the models' suppression applied), by size."""
        return self.checker.runner.class_sizes(self.node, self.checker.keep, self.checker.params)

    def presence_range(self, model) -> object:
        """A population model's figure over the kept classes (δ-presence's ``{"dmin", "dmax"}``,
        k-map's smallest population count; None if none is kept)."""
        checker = self.checker
        kept = [r for r in checker.runner.class_figures(self.node, checker.keep, checker.params) if r["kept"]]
        values = [model.presence_value(r["n"], r["pop"]) for r in kept]
        return model.population_range(values) if values else None

    def leaf_stats(self) -> ClassStats:
        """The node's statistics with the kept leaves per QI, fetched once more when the
        search's metric did not ask for them and the engine can count them (the class table
        has them, or local checks compute them); else the search's statistics as they are."""
        session, checker, stats = self.session, self.checker, self.best.stats
        if stats.kept_leaves is None and (Need.LEAVES in session.needs or checker.runner.where == "local"):
            stats = checker.runner.class_stats(self.node, checker.keep, checker.params, checker.needs | Need.LEAVES)
        return stats

    def population(self) -> Population | None:
        """What the verification needs to re-check δ-presence against the input itself."""
        session = self.session
        if session.subset is None:
            return None
        return Population(session.job.input, [h.rows for h in session.hierarchy_objects], self.node, session.subset)
