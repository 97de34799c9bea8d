"""What the tests of ARX's optima on a grid of settings share (test_gs_factor_arx.py,
test_aggregate_arx.py): one ADULT session per metric, and the comparison of Flash's optimum
with ARX's, where ARX's node is checked instead when several nodes tie."""

from __future__ import annotations

import math
from contextlib import ExitStack

from helpers.jobs import adult_job
from sqlanon.session import Session


class MetricSessions:
    """ADULT sessions opened on demand, one per metric (it decides what is prepared)."""

    def __init__(self) -> None:
        self.stack = ExitStack()
        self.opened: dict[str, Session] = {}

    def __call__(self, metric: str) -> Session:
        if metric not in self.opened:
            self.opened[metric] = self.stack.enter_context(Session(adult_job(metric=metric), share_stats=True))
        return self.opened[metric]


def assert_arx_optimum(session: Session, loss: float, levels: tuple[int, ...], **settings) -> None:
    outcome, checker = session.search("flash", **settings)
    best = outcome.optimum
    assert best is not None and outcome.proven
    assert math.isclose(best.loss, loss, rel_tol=1e-9, abs_tol=1e-12)
    if best.node != levels:
        theirs = checker.check(levels)
        assert theirs.anonymous and math.isclose(theirs.loss, loss, rel_tol=1e-9, abs_tol=1e-12)
