"""Exhaustive search: check every node. The test oracle for the optimal algorithms."""

from sqlanon.search.base import SearchAlgorithm


class Exhaustive(SearchAlgorithm):
    name = "exhaustive"

    def traverse(self) -> None:
        nodes = list(self.lattice.nodes())
        batch = self.checker.batch(nodes)  # every node is known before any verdict
        for node in nodes:
            self.optimum.offer(batch.check(node))
        self.counters.update(tagged=0, pruned=0, skipped_by_bound=0)

    # Checks every node whether or not the models are monotonic.
    traverse_without_tags = traverse
