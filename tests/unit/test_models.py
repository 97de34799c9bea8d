"""Privacy models on a table small enough to compute by hand (values in the comments), the
non-monotonicity under suppression that forces a search without predictive tags, and bad
model settings."""

import pytest

from helpers.jobs import table_job
from helpers.tiny_models import EXPECTED_KEPT, HAND, spec_of, sql_value, tiny_job
from sqlanon.errors import ConfigError
from sqlanon.session import Session

# The table, its hand-computed figures and the expected verdicts: helpers/tiny_models.py.


@pytest.mark.parametrize("name", list(HAND), ids=str)
def test_hand_computed_values_in_sql_and_python(name, tmp_path):
    spec = spec_of(name, tmp_path)
    with Session(tiny_job([spec], k=1, suppression_limit=1.0)) as session:
        checker = session.checker()
        model = checker.models[-1]
        rows = session.runner.class_figures((0,), checker.keep, checker.params)
        overall = session.overall()["d"]
        by_class = ({"x": 1, "y": 2}, {"x": 2, "z": 2})
        for row, histogram, expected in zip(rows, by_class, HAND[name]):
            assert sql_value(spec["type"], row) == pytest.approx(expected, abs=1e-12)
            assert model.class_value(histogram, overall) == pytest.approx(expected, abs=1e-12)
            # the SQL verdict agrees with the Python one, and the threshold splits the classes
            assert row["kept"] == model.class_holds(model.class_value(histogram, overall))
        assert [r["kept"] for r in rows] == EXPECTED_KEPT[name]
        result = checker.check((0,))
        assert result.stats.suppressed == sum(r["n"] for r in rows if not r["kept"])


def test_whole_table_models_by_hand():
    # Level 0: classes of 3 and 4 rows: average risk 2/7 = 0.2857, no unique record.
    for threshold, anonymous in [(0.28, False), (0.29, True)]:
        with Session(tiny_job([{"type": "average-risk", "threshold": threshold}], k=1)) as session:
            assert session.checker().check((0,)).anonymous is anonymous
    # max_risk 0.3 asks for classes of at least ceil(1/0.3) = 4 rows: zip a (3 rows) is suppressed.
    with Session(
        tiny_job([{"type": "average-risk", "threshold": 1.0, "max_risk": 0.3}], k=1, suppression_limit=0.5)
    ) as session:
        result = session.checker().check((0,))
        assert (result.stats.suppressed, result.anonymous) == (3, True)
    rows = {"zip": list("abcc"), "d": list("wxyz")}
    job = table_job(
        rows,
        {"zip": [["a", "*"], ["b", "*"], ["c", "*"]]},
        roles={"d": "sensitive"},
        k=1,
        models=({"type": "sample-uniqueness", "threshold": 0.5},),
    )
    with Session(job) as session:
        checker = session.checker()
        assert checker.check((0,)).stats.kept_uniques == 2  # 2 of 4 records unique: 0.5 <= 0.5
        assert checker.check((0,)).anonymous
        assert not session.checker(models=({"type": "sample-uniqueness", "threshold": 0.4},)).check((0,)).anonymous


# Entropy l-diversity is not monotonic under suppression (the point of the Lightning paper's
# appendix; this table is ours). Values a, b, c of one QI; level 1 merges a and b.
#   level 0: a {s1, s2} passes l = 2; b {s1 x4} fails (4 rows suppressed); c {s2, s3} passes
#   level 1: ab {s1 x5, s2} fails (H = 0.451 < ln 2): 6 rows suppressed
#   level 2: all {s1 x5, s2 x2, s3} passes (H = 0.900)
# With a limit of 4 of 8 rows, levels 0 and 2 are anonymous and level 1 is not.
COUNTER = {"x": ["a", "a", "b", "b", "b", "b", "c", "c"], "s": ["s1", "s2", "s1", "s1", "s1", "s1", "s2", "s3"]}
COUNTER_H = {"x": [["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]]}


def counter_job():
    return table_job(
        COUNTER,
        COUNTER_H,
        roles={"s": "sensitive"},
        k=1,
        suppression_limit=0.5,
        metric="height",
        models=({"type": "entropy-l-diversity", "attribute": "s", "l": 2},),
    )


def test_counterexample_to_monotonicity_under_suppression():
    with Session(counter_job()) as session:
        checker = session.checker()
        assert not checker.monotonic_models
        assert [(checker.check((l,)).anonymous, checker.check((l,)).stats.suppressed) for l in range(3)] == [
            (True, 4),
            (False, 6),
            (True, 0),
        ]
        # Without suppression the model is monotonic (levels 0 and 1 fail, 2 passes).
        assert session.checker(suppression_limit=0.0).monotonic_models


@pytest.mark.parametrize("algorithm", ["flash", "ola", "incognito", "exhaustive"])
def test_every_algorithm_finds_the_true_optimum_of_the_counterexample(algorithm, monkeypatch):
    with Session(counter_job()) as session:
        outcome, _ = session.search(algorithm)
        assert outcome.optimum.node == (0,)
        if algorithm == "flash":
            # With predictive tagging Flash checks level 1 first, tags level 0 non-anonymous
            # and returns level 2: the test would catch a search that tags here.
            from sqlanon.checks.checker import Checker

            original = Checker.__init__

            def tagging(self, *args, **kwargs):
                original(self, *args, **kwargs)
                self.monotonic_models = True

            monkeypatch.setattr(Checker, "__init__", tagging)
            wrong, _ = session.search("flash")
            assert wrong.optimum.node == (2,)


@pytest.mark.parametrize(
    "spec, message",
    [
        (
            {"type": "l-diversity", "attribute": "d", "l": 2},
            "unknown privacy model 'l-diversity'; valid models: k-anonymity",
        ),
        ({"type": "distinct-l-diversity", "attribute": "d"}, "needs l"),
        ({"type": "distinct-l-diversity", "attribute": "d", "l": 0}, "'l' parameter must be an int >= 1, got 0"),
        ({"type": "entropy-l-diversity", "attribute": "d", "l": 0.5}, "'l' parameter must be a number >= 1.0"),
        ({"type": "recursive-cl-diversity", "attribute": "d", "c": 0, "l": 2}, "'c' parameter must be a number > 0.0"),
        ({"type": "t-closeness", "attribute": "d", "t": 1.5}, "'t' parameter must be a number in [0, 1], got 1.5"),
        ({"type": "t-closeness", "attribute": "d", "t": 0.2, "distance": "manhattan"}, "unknown distance 'manhattan'"),
        ({"type": "t-closeness", "attribute": "d", "t": 0.2, "distance": "hierarchical"}, "needs hierarchy"),
        ({"type": "t-closeness", "attribute": "d", "t": 0.2, "distance": "ordered"}, "'d' is not numeric"),
        (
            {"type": "t-closeness", "attribute": "d", "t": 0.2, "distance": "ordered", "order": ["x", "y"]},
            "lacks 1 value(s) of the data, e.g. 'z'",
        ),
        (
            {"type": "delta-disclosure", "attribute": "d", "delta": 1, "k": 2},
            "unknown key(s) ['k'] for the delta-disclosure model",
        ),
        ({"type": "distinct-l-diversity", "attribute": "zip", "l": 2}, 'give it role = "sensitive"'),
        ({"type": "distinct-l-diversity", "attribute": "nope", "l": 2}, "'nope', which is not in the job"),
        ({"type": "average-risk", "threshold": 0.1, "max_risk": 0}, "max_risk must be above 0"),
    ],
)
def test_bad_model_settings_name_the_key(spec, message):
    with pytest.raises(ConfigError) as error:
        with Session(tiny_job([spec])) as session:
            session.checker()
    assert message in str(error.value)
