"""The contract every optimal algorithm is held to: exhaustive search's optimum."""

from __future__ import annotations

from sqlanon.search import ALGORITHMS

OPTIMAL = [name for name, algorithm in ALGORITHMS.items() if algorithm.optimal]


def assert_optimal_algorithms_agree(session, reference, **overrides):
    """Every optimal algorithm returns exhaustive search's optimum (node and loss) or none."""
    for name in OPTIMAL:
        outcome, _ = session.search(name, **overrides)
        if reference.optimum is None:
            assert outcome.optimum is None, name
        else:
            assert (outcome.optimum.node, outcome.optimum.loss) == (reference.optimum.node, reference.optimum.loss), (
                name
            )
