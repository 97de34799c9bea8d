"""Lightning top-down against ARX 3.9.2's ``BEST_EFFORT_TOP_DOWN``: on ADULT (nine QIs,
k-anonymity) the same set of checked transformations as ARX's (its lattice's checked flags,
compared by a digest of the sorted levels) and ARX's optimal loss, ties in the queue broken as
``java.util.PriorityQueue`` breaks them; unlimited, it checks every node and finds the
optimum. ARX's own JUnit cases of the algorithm: tests/search/test_arx_suite.py."""

import hashlib
import math

import pytest

from helpers.jobs import adult_job
from sqlanon.search.lightning_top_down import JavaHeap
from sqlanon.session import Session

# (metric, k, suppression limit, step limit, ARX's loss, digest of ARX's checked nodes)
ADULT_RUNS = [
    ("loss", 5, 0.02, 1000, 0.3137130352819242, "e0b2578bed4fac53"),
    ("height", 5, 0.0, 1000, 15.0, "eb9e2851b33c6473"),
    ("height", 2, 0.05, 300, 8.0, "36cd95b40b070add"),
    ("entropy", 5, 0.02, 1000, 297825.76319731877, "225ce5bda38a80c1"),
    ("precision", 5, 0.0, 500, 0.7777777777777779, "3005037e73ce4fe2"),
    ("discernibility", 10, 0.1, 1000, 1.7290768e7, "2d9e049138bb1cca"),
]


def test_ties_leave_the_heap_as_javas_priority_queue_gives_them():
    # java.util.PriorityQueue, comparator on the key alone: these offers, with a poll after
    # every fourth, then polls to the end, give ids 1,7,6,9,11,3,5,8,12,2,0,4,10 (JDK 17)
    keys = [3, 1, 2, 1, 3, 2, 1, 0, 2, 1, 3, 1, 2]
    heap, order = JavaHeap(), []
    for i, key in enumerate(keys):
        heap.offer((key, i))
        if i % 4 == 3:
            order.append(heap.poll())
    while heap:
        order.append(heap.poll())
    assert order == [1, 7, 6, 9, 11, 3, 5, 8, 12, 2, 0, 4, 10]


@pytest.mark.parametrize("metric,k,limit,steps,loss,digest", ADULT_RUNS, ids=[f"{r[0]}-k{r[1]}" for r in ADULT_RUNS])
def test_checks_what_arx_checks(adult_available, metric, k, limit, steps, loss, digest):
    with Session(adult_job(metric=metric)) as session:
        outcome, checker = session.search("lightning-top-down", k=k, suppression_limit=limit, step_limit=steps)
        checked = sorted(result.node for result in checker.results())
        assert len(checked) == steps
        assert hashlib.sha256(repr(checked).encode()).hexdigest()[:16] == digest
        assert math.isclose(outcome.optimum.loss, loss, rel_tol=1e-9)
        assert not outcome.proven


def test_unlimited_it_checks_every_node_and_proves_the_optimum(adult_available):
    qis = ["sex", "age", "race", "marital-status"]
    with Session(adult_job(qis, metric="loss")) as session:
        top_down, checker = session.search("lightning-top-down", k=5, suppression_limit=0.02)
        assert checker.checks == session.lattice.size and top_down.proven
        flash, _ = session.search("flash", k=5, suppression_limit=0.02)
        assert top_down.optimum.loss == flash.optimum.loss
