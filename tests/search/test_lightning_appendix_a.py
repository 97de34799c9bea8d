"""The Lightning paper's Appendix A (Prasser et al. 2016, Figure 1): with a suppression limit
of 10 records, recursive-(3,2)-diversity and entropy-1.8-diversity hold for the less
generalized dataset and fail for the more generalized one — neither model is monotonic once
record suppression is part of the transformation. The 15 records and the age hierarchy are
the figure's; every engine and both check placements must reach the appendix's verdicts, and
every search must return the less generalized node."""

from __future__ import annotations

import math

import pytest
from helpers.jobs import EVERY_PLACEMENT, on_engine, table_job, seeded

from sqlanon.criteria.entropy_l_diversity import EntropyLDiversity
from sqlanon.criteria.recursive_cl_diversity import RecursiveCLDiversity
from sqlanon.search import ALGORITHMS
from sqlanon.session import Session

AGES = ["[20-39]"] * 3 + ["[40-59]"] * 2 + ["[60-79]"] * 10
DIAGNOSES = ["Colon cancer", "Stroke", "Colon cancer", "Colon cancer", "Stroke"] + ["Stroke"] * 10
ROWS = {"age": AGES, "diagnosis": DIAGNOSES}
HIERARCHY = {"age": [["[20-39]", "[20-79]"], ["[40-59]", "[20-79]"], ["[60-79]", "[20-79]"]]}
RECURSIVE = {"type": "recursive-cl-diversity", "attribute": "diagnosis", "c": 3, "l": 2}
ENTROPY = {"type": "entropy-l-diversity", "attribute": "diagnosis", "l": 1.8}
LESS, MORE = (0,), (1,)


def job(model: dict):
    # 0.67 of 15 rows is 10 (the figure's limit); 10/15 as a decimal would be 9
    return table_job(
        ROWS, HIERARCHY, roles={"diagnosis": "sensitive"}, models=(model,), k=1, suppression_limit=0.67, metric="loss"
    )


def histograms(node):
    """The classes of ``node`` as {diagnosis: count}, straight from the figure."""
    classes: dict[str, dict[str, int]] = {}
    for age, diagnosis in zip(AGES, DIAGNOSES):
        key = age if node == LESS else "[20-79]"
        classes.setdefault(key, {}).setdefault(diagnosis, 0)
        classes[key][diagnosis] += 1
    return classes


def test_the_appendix_figures():
    """The figures the appendix computes: entropies in bits and recursive-(3,2)'s terms."""
    entropy = EntropyLDiversity("diagnosis", 1.8)
    bits = {name: math.log2(entropy.class_value(h, None)) for name, h in histograms(LESS).items()}
    assert {name: round(value, 4) for name, value in bits.items()} == {
        "[20-39]": 0.9183,
        "[40-59]": 1.0,
        "[60-79]": 0.0,
    }
    assert round(math.log2(1.8), 4) == 0.848
    (m1,) = histograms(MORE).values()
    assert round(math.log2(entropy.class_value(m1, None)), 4) == 0.7219
    assert [entropy.class_holds(entropy.class_value(h, None)) for h in histograms(LESS).values()] == [True, True, False]
    assert not entropy.class_holds(entropy.class_value(m1, None))

    recursive = RecursiveCLDiversity("diagnosis", 3, 2)
    # r(e, 1) < c * (r(e, 2) + ...): 2 < 3 * 1, 1 < 3 * 1, 10 > 3 * 0; merged: 12 > 3 * 3
    terms = {name: sorted(h.values(), reverse=True) for name, h in histograms(LESS).items()}
    assert terms == {"[20-39]": [2, 1], "[40-59]": [1, 1], "[60-79]": [10]}
    assert sorted(m1.values(), reverse=True) == [12, 3]
    assert [recursive.class_holds(recursive.class_value(h, None)) for h in histograms(LESS).values()] == [
        True,
        True,
        False,
    ]
    assert not recursive.class_holds(recursive.class_value(m1, None))


@pytest.mark.parametrize("engine", EVERY_PLACEMENT)
@pytest.mark.parametrize("model", [RECURSIVE, ENTROPY], ids=["recursive-3-2", "entropy-1.8"])
def test_less_generalized_holds_and_more_generalized_fails(request, engine, model):
    with Session(on_engine(job(model), engine, request)) as session:
        checker = session.checker()
        assert checker.limit_rows == 10
        less, more = checker.check(LESS), checker.check(MORE)
        # l3 (10 rows of Stroke) is suppressed, within the limit: the dataset is anonymous
        assert (less.anonymous, less.stats.suppressed, less.stats.kept_classes, less.stats.classes) == (True, 10, 2, 3)
        # m1 (all 15 rows) fails and cannot be suppressed: its generalization is not anonymous
        assert (more.anonymous, more.stats.suppressed, more.stats.kept_classes, more.stats.classes) == (False, 15, 0, 1)
        assert not checker.monotonic_models
        failing = {row[0]: row[-1] for row in session.runner.failing_classes(LESS, checker.keep, checker.params, 10)}
        assert failing == {"[60-79]": 10}


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
@pytest.mark.parametrize("model", [RECURSIVE, ENTROPY], ids=["recursive-3-2", "entropy-1.8"])
def test_every_search_returns_the_less_generalized_node(algorithm, model):
    with Session(job(model)) as session:
        outcome, _ = session.search(algorithm, **seeded(algorithm, 1))
        assert outcome.optimum.node == LESS and outcome.optimum.stats.suppressed == 10
