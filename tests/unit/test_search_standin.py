"""Every search algorithm on hand-made lattices, through the stand-in checker (a dict of node ->
figures, ``helpers/standin.py``): no engine, no data, a few milliseconds a search.

The optimal algorithms return the brute-force optimum over the dict (monotonic figures; a
metric that drops under generalization, as suppression makes most of them; anonymity that is
not monotonic, as delta-presence makes it); the heuristics return an anonymous node, the
optimum whenever they say it is proven, and the hand-derived node on the lattice below; every
check is counted once. The stand-in is held to the real checker: built from a real session's
figures it leads every algorithm to the same checks, in the same order, and the same optimum.
"""

from __future__ import annotations

import ast
import itertools
import os
import random
import subprocess
import sys
from dataclasses import replace

import pytest

from helpers.jobs import ROOT, table_job
from helpers.standin import Figures, StandInChecker, run
from sqlanon.core.genetic import GeneticParams
from sqlanon.search import ALGORITHMS, HEURISTICS
from sqlanon.session import Session

OPTIMAL = [name for name, a in ALGORITHMS.items() if a.optimal]
SEEDED = {"genetic", "random"}
#: a search on these lattices takes milliseconds; CPU seconds, so a busy machine does not count
WELL_UNDER_A_SECOND = 0.25


#: the randomized searches' budget: KGen's 5,000 evaluations cost a second on six nodes
SMALL_BUDGET = GeneticParams(max_evaluations=300, population=20)


def options(name: str, seed: int = 7) -> dict:
    return {"seed": seed, "genetic": SMALL_BUDGET} if name in SEEDED else {}


# -- hand-made lattices ---------------------------------------------------------------------------
# Two QIs a (height 1) and b (height 2), no row may be suppressed (limit_rows 0):
#
#     (1,2) anonymous, loss 4
#     (0,2) anonymous, loss 2, smallest class 4    (1,1) anonymous, loss 3, smallest class 3
#     (0,1) 3 rows suppressed, loss 1, class 2     (1,0) 4 rows suppressed, loss 2, class 1
#     (0,0) 6 rows suppressed, loss 0
#
# The optimum is (0,2). DataFly (distinct values: a 2, 1; b 3, 2, 1) generalizes b first (3 > 2
# values), then a (2 = 2 values, a's name first): (0,0) -> (0,1) -> (1,1), which is anonymous.
# IGreedy moves to the successor with the largest smallest class: (0,1) (2 > 1), then (0,2)
# (4 > 3): the optimum.
HAND = {
    (0, 0): Figures(False, 6, 0, min_class=1),
    (1, 0): Figures(False, 4, 2, min_class=1),
    (0, 1): Figures(False, 3, 1, min_class=2),
    (1, 1): Figures(True, 0, 3, min_class=3),
    (0, 2): Figures(True, 0, 2, min_class=4),
    (1, 2): Figures(True, 0, 4, min_class=5),
}
HAND_NODES = {"datafly": (1, 1), "igreedy": (0, 2), "lightning": (0, 2)}


def hand() -> StandInChecker:
    return StandInChecker(HAND, names=["a", "b"])


def outliers(heights, seed: int, limit_rows: int, penalty: int = 0, failing: float = 0.0) -> StandInChecker:
    """Figures as suppression makes them: six groups of rows, each suppressed until the node
    reaches one of the group's two ways out (a level per QI: e.g. age or zip generalized far
    enough), so suppression only shrinks upwards and anonymity is monotonic. The loss weighs
    each QI's level, plus ``penalty`` per suppressed row (then it can drop under
    generalization). ``failing``: the share of nodes a whole-table model refuses besides
    (anonymity no longer monotonic)."""
    rng = random.Random(seed)
    groups = [(rng.randint(1, 4), [tuple(rng.randint(0, h) for h in heights) for _ in range(2)]) for _ in range(6)]
    weights = [rng.randint(1, 3) for _ in heights]
    figures = {}
    for node in itertools.product(*(range(h + 1) for h in heights)):
        merged = [w for w, ways in groups if any(all(n >= l for n, l in zip(node, way)) for way in ways)]
        suppressed = sum(w for w, _ in groups) - sum(merged)
        loss = sum(w * l for w, l in zip(weights, node)) + penalty * suppressed
        refused = rng.random() < failing
        figures[node] = Figures(suppressed <= limit_rows and not refused, suppressed, loss, min_class=1 + len(merged))
    return StandInChecker(figures, limit_rows=limit_rows, names=[f"q{j}" for j in range(len(heights))])


#: name -> a fresh stand-in; the ids say what kind of figures
LATTICES = {
    "hand": hand,
    # (1,1) now ties (0,2) at loss 2, on the same level: the lattice's order puts (0,2) first
    # (less of its relative height used: 0/1 + 2/2 against 1/1 + 1/2)
    "hand-tie": lambda: StandInChecker(HAND | {(1, 1): Figures(True, 0, 2, min_class=3)}, names=["a", "b"]),
    "monotonic-3x2x3": lambda: outliers((3, 2, 3), seed=34, limit_rows=2),
    "monotonic-2x2x2x1": lambda: outliers((2, 2, 2, 1), seed=5, limit_rows=3),
    "loss-drops-with-suppression": lambda: outliers((2, 2, 2, 1), seed=42, limit_rows=4, penalty=2),
    "anonymity-not-monotonic": lambda: outliers((2, 2, 3), seed=32, limit_rows=4, penalty=1, failing=0.3),
}


def test_the_lattices_are_what_their_names_say():
    flags = {name: (make().monotonic_models, make().monotonic_metric) for name, make in LATTICES.items()}
    assert flags == {
        "hand": (True, True),
        "hand-tie": (True, True),
        "monotonic-3x2x3": (True, True),
        "monotonic-2x2x2x1": (True, True),
        "loss-drops-with-suppression": (True, False),
        "anonymity-not-monotonic": (False, False),
    }
    for name, make in LATTICES.items():
        checker = make()
        lattice = checker.lattice
        anonymous = [n for n in lattice.nodes() if checker.figures(n).anonymous]
        minimal = [n for n in anonymous if not any(checker.figures(p).anonymous for p in lattice.predecessors(n))]
        # a search to do: the bottom fails, the top is not the answer, several minimal nodes
        assert not checker.figures(lattice.bottom).anonymous, name
        assert checker.optimum() not in (None, lattice.top), name
        assert len(minimal) >= 2, name
    tie = LATTICES["hand-tie"]()
    assert tie.figures((1, 1)).loss == tie.figures((0, 2)).loss and tie.optimum() == (0, 2)


# -- optimal algorithms: the brute-force optimum --------------------------------------------------
@pytest.mark.parametrize("lattice", LATTICES)
@pytest.mark.parametrize("name", OPTIMAL)
def test_optimal_algorithms_return_the_brute_force_optimum(name, lattice):
    checker = LATTICES[lattice]()
    outcome, seconds = run(ALGORITHMS[name], checker)
    best = checker.optimum()
    assert outcome.optimum.node == best
    assert outcome.optimum.loss == checker.figures(best).loss
    assert outcome.proven
    # every check counted once: the outcome's count is the nodes the stand-in was asked
    assert outcome.counters["checks"] == checker.checks == len(checker.asked) == len(set(checker.asked))
    if name == "exhaustive":
        assert checker.checks == checker.lattice.size
    elif checker.monotonic_models and checker.monotonic_metric:
        # predictive tagging (or Incognito's subset lattices) spares checks on monotonic figures
        assert checker.checks < checker.lattice.size
    assert seconds < WELL_UNDER_A_SECOND


def test_with_no_anonymous_node_every_optimal_algorithm_says_so():
    figures = {node: replace(f, anonymous=False) for node, f in HAND.items()}
    for name in OPTIMAL:
        outcome, _ = run(ALGORITHMS[name], StandInChecker(figures))
        assert outcome.optimum is None, name


def test_a_metric_that_drops_under_generalization_is_searched_past_the_minimal_nodes():
    """The optimum of "loss-drops-with-suppression" is not a minimal anonymous node and none of
    Flash, OLA and Incognito checks it while tagging (each returns another node with the
    completion pass switched off); the completion pass (bounds, ``search/completion.py``) finds it."""
    checker = LATTICES["loss-drops-with-suppression"]()
    best = checker.optimum()
    minimal = [
        n
        for n in checker.lattice.nodes()
        if checker.figures(n).anonymous
        and not any(checker.figures(p).anonymous for p in checker.lattice.predecessors(n))
    ]
    assert best not in minimal
    outcome, _ = run(ALGORITHMS["flash"], checker)
    assert outcome.optimum.node == best


# -- heuristics: an anonymous node, the optimum when proven -------------------------------------
@pytest.mark.parametrize("lattice", LATTICES)
@pytest.mark.parametrize("name", HEURISTICS)
def test_heuristics_return_an_anonymous_node(name, lattice):
    checker = LATTICES[lattice]()
    outcome, seconds = run(ALGORITHMS[name], checker, **options(name))
    best = checker.optimum()
    found = outcome.optimum
    assert found is not None and checker.figures(found.node).anonymous
    assert found.loss == checker.figures(found.node).loss >= checker.figures(best).loss
    if outcome.proven:
        assert found.node == best
    if lattice == "hand" and name in HAND_NODES:
        assert found.node == HAND_NODES[name]
    assert outcome.counters["checks"] == checker.checks == len(checker.asked) == len(set(checker.asked))
    assert seconds < WELL_UNDER_A_SECOND


@pytest.mark.parametrize("name", ["lightning", "lightning-top-down"])
def test_lightning_without_a_budget_proves_its_optimum(name):
    for make in LATTICES.values():
        checker = make()
        outcome, _ = run(ALGORITHMS[name], checker)
        assert outcome.proven and outcome.optimum.node == checker.optimum()


@pytest.mark.parametrize("name", HEURISTICS)
def test_a_step_limit_stops_a_heuristic(name):
    """Two checks allowed: the search stops there ("step_limit") unless its own rule ends it
    first; finding nothing, it falls back to the top (and DataFly's path), outside the budget."""
    checker = LATTICES["monotonic-3x2x3"]()
    outcome, _ = run(ALGORITHMS[name], checker, step_limit=2, **options(name))
    assert outcome.counters["stopped"] in ("step_limit", "done")
    within = checker.checks - outcome.counters.get("fallback_checks", 0)
    assert within <= 2
    assert outcome.optimum is not None and checker.figures(outcome.optimum.node).anonymous


def test_seeded_heuristics_repeat_exactly():
    for name in SEEDED:
        first, second = LATTICES["monotonic-3x2x3"](), LATTICES["monotonic-3x2x3"]()
        run(ALGORITHMS[name], first, **options(name, seed=11))
        run(ALGORITHMS[name], second, **options(name, seed=11))
        assert first.asked == second.asked, name


# -- the stand-in itself ---------------------------------------------------------------------------
def test_every_algorithm_is_covered():
    # the registry is the list of names a job file accepts (core/names.py)
    from sqlanon.core.names import ALGORITHM_NAMES

    assert sorted(ALGORITHMS) == sorted(ALGORITHM_NAMES)
    assert "lightning-top-down" in ALGORITHMS


def used_attributes() -> set[str]:
    """Every attribute the search package reads off a checker (``checker.x``, ``self.checker.x``)."""
    names = set()
    for path in (ROOT / "sqlanon" / "search").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                owner = node.value
                if (isinstance(owner, ast.Name) and owner.id == "checker") or (
                    isinstance(owner, ast.Attribute) and owner.attr == "checker"
                ):
                    names.add(node.attr)
    return names


def test_the_stand_in_offers_everything_the_search_package_reads_off_a_checker():
    used = used_attributes()
    assert {"check", "batch", "checked", "results", "static_bound", "checks", "monotonic_models", "limit_rows"} <= used
    missing = sorted(name for name in used if not hasattr(hand(), name))
    assert not missing, f"the search package reads {missing} off its checker: add them to helpers/standin.py"


@pytest.mark.parametrize(
    "figures, kwargs, message",
    [
        ({(0,): Figures(True, 3, 1), (1,): Figures(True, 0, 2)}, {}, "suppresses 3 rows > limit_rows 0"),
        ({(0,): Figures(True, 0, 1, bound=5), (1,): Figures(True, 0, 2)}, {}, "is above the loss 1"),
        ({(0,): Figures(True, 0, 3), (1,): Figures(True, 0, 2)}, {"monotonic_metric": True}, "monotonic_metric = True"),
        (
            {(0,): Figures(True, 0, 1), (1,): Figures(False, 1, 2)},
            {"limit_rows": 1, "monotonic_models": True},
            "monotonic_models = True",
        ),
        ({(0,): Figures(True, 0, 1), (2,): Figures(True, 0, 2)}, {}, "missing [(1,)]"),
        ({(0,): Figures(True, 0, 1), (1,): Figures(True, 0, 2)}, {"static_bounds": {(0,): 1.5}}, "static bound 1.5"),
    ],
)
def test_figures_the_real_checker_could_not_give_are_refused(figures, kwargs, message):
    with pytest.raises(ValueError) as error:
        StandInChecker(figures, **kwargs)
    assert message in str(error.value)


def test_a_node_is_counted_once():
    checker = hand()
    first = checker.check((0, 1))
    assert checker.check((0, 1)) is first and checker.batch([(0, 1)]).check((0, 1)) is first
    assert [r.node for r in checker.check_many([(0, 0), (0, 1), (0, 0)])] == [(0, 0), (0, 1), (0, 0)]
    assert (checker.checks, checker.asked) == (2, [(0, 1), (0, 0)])
    assert (first.anonymous, first.stats.suppressed, first.loss, first.bound, first.stats.min_class) == (
        False,
        3,
        1,
        1,
        2,
    )


def test_the_search_runs_without_an_engine():
    """In a fresh interpreter every algorithm runs on the stand-in and no engine object is ever
    made (the search reaches data only through its checker)."""
    script = """
import gc
from helpers.standin import Figures, StandInChecker, run
from sqlanon.core.genetic import GeneticParams
from sqlanon.engines.store import Store
from sqlanon.search import ALGORITHMS
figures = {(a, b): Figures(a + b >= 2, 0 if a + b >= 2 else 1, a + 2 * b) for a in range(3) for b in range(3)}
for name, algorithm in ALGORITHMS.items():
    checker = StandInChecker(figures)
    outcome, _ = run(algorithm, checker, **({"seed": 1, "genetic": GeneticParams(max_evaluations=200)} if name in ("genetic", "random") else {}))
    assert checker.figures(outcome.optimum.node).anonymous, name
engines = [o for o in gc.get_objects() if isinstance(o, Store)]
assert not engines, engines
print("ran", len(ALGORITHMS))
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)])}  # helpers, sqlanon
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"ran {len(ALGORITHMS)}"


def test_the_search_package_loads_no_engine_library():
    script = "import sys; import sqlanon.search; assert 'duckdb' not in sys.modules, 'duckdb loaded'"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-300:]


# -- the stand-in against the real checker --------------------------------------------------------
# Three QIs over 40 rows, k = 3, up to 10% of the rows suppressed, ARX's loss (not monotonic
# with suppression, with a static bound): figures a real engine computes.
AGES = ["20", "21", "30", "31", "40", "41", "50", "51"]
TABLE = {
    "age": [AGES[(i * 7) % 8] for i in range(40)],
    "zip": [["a", "b", "c", "d"][(i * 3) % 4] for i in range(40)],
    "sex": [["f", "m"][(i * 5) % 7 % 2] for i in range(40)],
}
TABLE_H = {
    "age": [[a, a[0] + "0s", "<45" if int(a) < 45 else ">=45", "*"] for a in AGES],
    "zip": [["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]],
    "sex": [["f", "*"], ["m", "*"]],
}


@pytest.fixture(scope="module")
def session():
    with Session(table_job(TABLE, TABLE_H, k=3, suppression_limit=0.1, metric="loss", engine="memory")) as s:
        yield s


def stand_in_for(session, **overrides) -> StandInChecker:
    """The stand-in holding every node's figures as the session's real checker gives them."""
    real = session.checker(**overrides)
    results = {node: real.check(node) for node in session.lattice.nodes()}
    figures = {
        n: Figures(r.anonymous, r.stats.suppressed, r.loss, r.bound, r.stats.min_class) for n, r in results.items()
    }
    static = (
        {n: real.static_bound(n) for n in results} if real.static_bound(session.lattice.bottom) is not None else None
    )
    return StandInChecker(
        figures,
        limit_rows=real.limit_rows,
        monotonic_models=real.monotonic_models,
        monotonic_metric=real.monotonic_metric,
        distinct=real.ctx.distinct_by_level,
        static_bounds=static,
        lattice=session.lattice,
    )


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_the_stand_in_leads_each_algorithm_as_the_real_checker_does(session, name):
    overrides = {"seed": 3, "genetic": SMALL_BUDGET} if name in SEEDED else {}
    outcome, real = session.search(name, **overrides)
    standin = stand_in_for(session)
    assert not standin.monotonic_metric and standin.static_bound(standin.lattice.bottom) is not None
    options = ALGORITHMS[name].Options.read(overrides)
    mirrored, _ = run(ALGORITHMS[name], standin, **options.kwargs())
    assert standin.asked == [r.node for r in real.results()]  # the same checks, in the same order
    assert (mirrored.optimum.node, mirrored.optimum.loss) == (outcome.optimum.node, outcome.optimum.loss)
    assert mirrored.counters["checks"] == outcome.counters["checks"] > 1
    if ALGORITHMS[name].optimal:
        assert outcome.optimum.node == standin.optimum()
