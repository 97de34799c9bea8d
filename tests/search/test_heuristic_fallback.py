"""A heuristic whose budget ends before it finds an anonymous node checks the lattice's top
before saying there is no solution, and for monotonic jobs climbs from its best
non-anonymous node to a cheaper anonymous one (issue 19, item 4); exit 1 only when the top
itself fails."""

from __future__ import annotations

import math

import pytest
from helpers.jobs import ADULT_SUBSET, adult_job, seeded

from sqlanon.lattice import generalizes
from sqlanon.search.heuristic import HeuristicSearch
from sqlanon.session import Session

HEURISTICS = ["lightning", "datafly", "igreedy", "genetic", "random"]


@pytest.fixture(scope="module")
def session(adult_available):
    with Session(adult_job(ADULT_SUBSET, metric="loss")) as s:
        yield s


@pytest.mark.parametrize("algorithm", HEURISTICS)
def test_a_spent_budget_still_finds_a_solution(session, algorithm):
    outcome, checker = session.search(
        algorithm, k=50, suppression_limit=0.0, metric="loss", step_limit=1, **seeded(algorithm, 3)
    )
    best = outcome.optimum
    assert best is not None and best.anonymous
    top = checker.checked(session.lattice.top)
    assert top is not None and top.anonymous and best.loss <= top.loss
    assert outcome.counters["stopped"] == "step_limit"
    if "fallback_checks" not in outcome.counters:
        # the genetic search's first individual is the top: anonymous within the budget
        assert algorithm == "genetic" and checker.checks == 1 and best.node == session.lattice.top
        return
    # Lightning, DataFly and IGreedy start at the bottom (not anonymous at k = 50), the random
    # search at a random node: the fallback checked the top and climbed from that node
    assert algorithm != "genetic" and checker.checks == 1 + outcome.counters["fallback_checks"] > 2
    nodes = [r.node for r in checker.results()]
    assert all(generalizes(n, nodes[0]) for n in nodes)
    assert best.node != session.lattice.top  # the climb found a cheaper anonymous node


def test_the_climb_is_a_binary_search_of_datafly_s_path(session):
    """From the node checked within the budget (Lightning's bottom), the fallback walks
    DataFly's path to the top and binary-searches it: its answer is the path's first
    anonymous node (the one before it fails, checked here by a fresh checker), found in
    about log2 of the path's length checks, and it is DataFly's own answer from the bottom."""
    outcome, checker = session.search("lightning", k=10, suppression_limit=0.0, metric="loss", step_limit=1)
    walker = HeuristicSearch(session.lattice, checker)
    path = walker.climb(session.lattice.bottom)
    assert path[0] == session.lattice.bottom and path[-1] == session.lattice.top
    assert all(session.lattice.level(b) == session.lattice.level(a) + 1 for a, b in zip(path, path[1:]))
    best = outcome.optimum.node
    assert best in path
    before = path[path.index(best) - 1]
    fresh = session.checker(k=10, suppression_limit=0.0, metric="loss")
    assert fresh.check(best).anonymous and not fresh.check(before).anonymous
    # the bottom within the budget, the top, then the binary search
    assert outcome.counters["fallback_checks"] <= 1 + math.ceil(math.log2(len(path)))
    datafly, _ = session.search("datafly", k=10, suppression_limit=0.0, metric="loss")
    assert datafly.optimum.node == best


@pytest.mark.parametrize("algorithm", HEURISTICS)
def test_no_solution_only_when_the_top_fails(session, algorithm):
    rows = session.rows
    outcome, checker = session.search(
        algorithm, k=rows + 1, suppression_limit=0.0, step_limit=5, **seeded(algorithm, 3)
    )
    assert outcome.optimum is None
    top = checker.checked(session.lattice.top)
    assert top is not None and not top.anonymous
