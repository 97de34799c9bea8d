"""Iterated two-phase hill climbing over cut sets, the stochastic companion Bayardo & Agrawal
compare K-Optimize with (ICDE 2005, section 5).

From a random cut set (each value of Σ_all with probability 1/2), a generalization phase
removes, one at a time, the value whose removal improves the cost most, until no removal
improves it; a specialization phase then adds values the same way. The phases alternate until
neither improves; then the climb restarts from a new random cut set. A cut set above the
suppression limit is compared by its excess suppressed rows first, so a climb from an
infeasible start first moves towards feasibility. It runs until the time or step limit
(evaluated cut sets); the result is never claimed optimal.
"""

from __future__ import annotations

import random
import secrets
import time

from sqlanon.koptimize.costs import INFEASIBLE, Cost, evaluate
from sqlanon.koptimize.search import Solution


class HillClimb:
    name = "hill-climb"

    def __init__(
        self, cost: Cost, seed: int | None = None, time_limit: float | None = None, step_limit: int | None = None
    ):
        self.cost = cost
        self.seed = secrets.randbits(32) if seed is None else seed  # drawn, and reported
        self.time_limit, self.step_limit = time_limit, step_limit
        self.best = INFEASIBLE
        self.best_cuts: list[int] | None = None
        self.history: list[dict] = []
        self.counters = {"evaluations": 0, "restarts": 0, "moves": 0, "seed": self.seed}

    def run(self) -> Solution:
        self.started = time.perf_counter()
        rng = random.Random(self.seed)
        values = range(len(self.cost.model.alphabet))
        while not self._out_of_budget():
            self.counters["restarts"] += 1
            current = {v for v in values if rng.random() < 0.5}
            score = self._score(current)
            while True:
                current, score, generalized = self._phase(current, score, remove=True)
                current, score, specialized = self._phase(current, score, remove=False)
                if not (generalized or specialized) or self._out_of_budget():
                    break
        suppressed = None if self.best_cuts is None else evaluate(self.cost, self.best_cuts)[1]
        return Solution(
            self.best_cuts,
            self.best,
            suppressed,
            False,
            time.perf_counter() - self.started,
            self.history,
            dict(self.counters),
        )

    def _phase(self, current: set[int], score: tuple, remove: bool) -> tuple[set[int], tuple, bool]:
        """Take the best single removal (or addition) while it improves the score."""
        improved = False
        universe = range(len(self.cost.model.alphabet))
        while not self._out_of_budget():
            candidates = sorted(current) if remove else [v for v in universe if v not in current]
            best_move, best_score = None, score
            for v in candidates:
                trial = current - {v} if remove else current | {v}
                trial_score = self._score(trial)
                if trial_score < best_score:
                    best_move, best_score = v, trial_score
                if self._out_of_budget():
                    break
            if best_move is None:
                break
            current = current - {best_move} if remove else current | {best_move}
            score, improved = best_score, True
            self.counters["moves"] += 1
        return current, score, improved

    def _score(self, cuts: set[int]) -> tuple[int, float]:
        """(rows suppressed above the limit, cost ignoring the limit); logs a new best."""
        self.counters["evaluations"] += 1
        value, suppressed = evaluate(self.cost, sorted(cuts), enforce=False)
        excess = max(0, suppressed - self.cost.limit)
        if not excess and value < self.best:
            self.best, self.best_cuts = value, sorted(cuts)
            self.history.append(
                {
                    "seconds": round(time.perf_counter() - self.started, 6),
                    "nodes": self.counters["evaluations"],
                    "cost": value,
                    "source": "search",
                }
            )
        return excess, value

    def _out_of_budget(self) -> bool:
        if self.step_limit is not None and self.counters["evaluations"] >= self.step_limit:
            return True
        return self.time_limit is not None and time.perf_counter() - self.started > self.time_limit
