"""ARX 3.9.2's own JUnit anonymization cases on ADULT (``helpers/arx_suite.py``), run on the
default engine through the names of ``helpers/arx_names.py``: every case sqlanon can express
gives ARX's loss (1e-9 relative) and its transformation, or a node of equal loss that ARX's
transformation ties with; the cases where ARX departs from its own definitions are listed in
DEPARTURES with the reason, and their test asserts sqlanon's answer. A case sqlanon cannot
express is skipped, naming what is missing."""

from __future__ import annotations

import math
from dataclasses import replace

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from helpers.arx_names import RESEARCH_SUBSET, Missing, java_subset, translate
from helpers.arx_suite import CASES
from helpers.jobs import ADULT, ADULT_QIS, ROOT, adult_job, occupation_job
from sqlanon import Source
from sqlanon.session import ALL_NEEDS, Session

pytestmark = pytest.mark.slow

#: Where ARX's expected answer is not the optimum of its own definitions, by kind:
#: "better": ARX's transformation holds and sqlanon's optimum costs less (ARX's practical
#: monotonicity stops early); "fails": ARX's transformation fails the model as ARX's
#: own classes define it, and sqlanon's optimum, which holds, costs more.
PRACTICAL = "ARX's practical monotonicity assumes the non-monotonic models monotonic and skips the optimum"
PRESENCE = (
    "with k-anonymity beside it, ARX lets a delta-presence class of the population without a subset "
    "row (delta 0 < dmin) pass; alone it fails it (TestAnonymizationDPresence), as delta-presence defines"
)
RISK = (
    "ARX suppresses classes until a risk model holds; sqlanon judges the whole table and suppresses "
    "nothing for it (a release method not built yet)"
)
DEPARTURES: dict[tuple[str, int], tuple[str, str]] = {
    ("TCloseness", 10): ("better", PRACTICAL),
    **{("Combinations", i): ("fails", PRESENCE) for i in (1, 50, 53, 75, 78)},
    **{("RiskBased", i): ("fails", RISK) for i in range(6)},
}


def _subset_rows(name: str) -> list[bool]:
    if name == RESEARCH_SUBSET:
        chosen = {int(line) for line in (ROOT / "tests/golden/arx/adult_subset_rows.txt").read_text().split()}
        return [i in chosen for i in range(30162)]
    return java_subset(int(name.removeprefix("random_")))


@pytest.fixture(scope="module")
def sessions(adult_available, tmp_path_factory):
    opened: dict = {}
    folder = tmp_path_factory.mktemp("arx")

    def session(sensitive: str, subset: str | None) -> Session:
        key = (sensitive, subset)
        if key not in opened:
            qis = [q for q in ADULT_QIS if q != sensitive]
            # a model that reads the sensitive column makes the session prepare its histograms
            reads = ({"type": "distinct-l-diversity", "attribute": sensitive, "l": 1},) if sensitive else ()
            job = occupation_job(qis, models=reads) if sensitive else adult_job(qis)
            if subset is not None:
                table = pcsv.read_csv(
                    ADULT / "adult.csv",
                    parse_options=pcsv.ParseOptions(delimiter=";"),
                    convert_options=pcsv.ConvertOptions(column_types={c: pa.string() for c in ADULT_QIS}),
                )
                path = folder / f"{subset}.parquet"
                pq.write_table(table.append_column(subset, pa.array(_subset_rows(subset))), path)
                presence = {"type": "delta-presence", "dmin": 0.0, "dmax": 1.0, "subset": subset}
                job = replace(job, input=Source(path=str(path)), models=(*reads, presence))
            opened[key] = Session(job, needs=ALL_NEEDS, share_stats=True).__enter__()
        return opened[key]

    yield session
    for s in opened.values():
        s.__exit__(None, None, None)


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_arx_junit_case(sessions, case):
    try:
        plan = translate(case)
    except Missing as missing:
        pytest.skip(f"not expressible: {missing}")
    session = sessions(plan.sensitive, plan.subset)
    outcome, checker = session.search(
        plan.algorithm,
        k=plan.k,
        suppression_limit=case.suppression,
        metric=plan.metric,
        gs_factor=plan.gs_factor,
        models=plan.models,
        **plan.options,
    )
    best = outcome.optimum
    if case.levels is None:
        assert best is None
        return
    assert best is not None
    expected = float(case.loss)
    theirs = checker.check(case.levels)
    kind, reason = DEPARTURES.get((case.test, case.index), ("same", ""))
    if reason != RISK:  # ARX's transformation costs what ARX says (with ARX's risk suppression it does not)
        assert _close(theirs.loss, expected)
    if kind == "same":
        assert _close(best.loss, expected), (best.node, best.loss)
        assert best.node == case.levels or theirs.anonymous
    elif kind == "better":
        assert theirs.anonymous and best.loss < expected and not _close(best.loss, expected)
    else:
        assert not theirs.anonymous and best.loss > expected
        if plan.k > 1 and case.test == "Combinations":
            # the models one by one: k holds at ARX's node, delta-presence fails it
            alone = [m for m in plan.models if m["type"] == "delta-presence"]
            assert session.checker(k=plan.k, models=(), suppression_limit=case.suppression).check(case.levels).anonymous
            assert (
                not session.checker(k=1, models=alone, suppression_limit=case.suppression).check(case.levels).anonymous
            )
