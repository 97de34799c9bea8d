"""The risk analysis wired end to end (issue 10): class-size tables from both engines against
an independent count of ADULT, the report's risk section against sqlanon.risk on sizes counted
afresh from the files, the population-uniqueness model (hand-computed values, the optimum
against brute force over every node, heuristics, combined with k-anonymity), the ``risk``
command and the Markdown summary with its SVG histogram."""

from __future__ import annotations

from dataclasses import replace
import csv
import itertools
import json
import xml.etree.ElementTree as ET
from collections import Counter
from fractions import Fraction

import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from helpers.jobs import ADULT, adult_hierarchy, adult_job, on_engine, table_job, seeded

from sqlanon import Output, anonymize
from sqlanon.core.needs import Need
from sqlanon.cli.commands import main
from sqlanon.criteria import build_model
from sqlanon.errors import ConfigError
from sqlanon.reidentification import dankar, prosecutor, zayatz
from sqlanon.reidentification.analysis import risk_section
from sqlanon.session import Session

QIS = ["sex", "age", "race", "marital-status"]  # 2 * 5 * 2 * 3 = 60 nodes


def read_adult():
    with open(ADULT / "adult.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter=";"))


def hierarchy_maps(qis):
    maps = []
    for q in qis:
        rows = [line.split(";") for line in adult_hierarchy(q).read_text(encoding="utf-8").split("\n") if line]
        maps.append({r[0]: r for r in rows})
    return maps


class SizeOracle:
    """Every node's classes counted in numpy from the CSV and the hierarchy files."""

    def __init__(self, qis):
        rows = read_adult()
        self.maps = hierarchy_maps(qis)
        self.heights = [len(next(iter(m.values()))) - 1 for m in self.maps]
        self.rows = len(rows)
        self.labels = [
            [np.array([m[r[q]][level] for r in rows]) for level in range(h + 1)]
            for q, m, h in zip(qis, self.maps, self.heights)
        ]

    def nodes(self):
        return itertools.product(*(range(h + 1) for h in self.heights))

    def class_sizes(self, node) -> np.ndarray:
        codes = [np.unique(self.labels[j][level], return_inverse=True)[1].ravel() for j, level in enumerate(node)]
        _, counts = np.unique(np.stack(codes, axis=1), axis=0, return_counts=True)
        return counts


def table_of(sizes) -> dict[int, int]:
    return dict(Counter(int(s) for s in sizes))


@pytest.fixture(scope="module")
def size_oracle(adult_available):
    return SizeOracle(QIS)


# -- engines: the class-size frequency table -------------------------------------------------
@pytest.mark.parametrize("node", [(0, 0, 0, 0), (1, 2, 0, 1), (0, 4, 1, 2), (1, 1, 1, 0)])
def test_class_sizes_equal_in_every_engine_and_an_independent_count(size_oracle, node, request):
    expected = table_of(size_oracle.class_sizes(node))
    k5 = lambda n: n >= 5
    expected_kept = {s: c for s, c in expected.items() if k5(s)}
    for engine in ("duckdb", "memory", "postgres"):
        with Session(on_engine(adult_job(QIS, k=5), engine, request)) as session:
            assert session.runner.class_sizes(node) == expected, engine
            checker = session.checker()
            assert session.runner.class_sizes(node, checker.keep, checker.params) == expected_kept, engine
            # the "sizes" need: the kept classes' table inside a check
            stats = session.runner.class_stats(node, checker.keep, checker.params, Need.SIZES)
            assert stats.kept_sizes == expected_kept, engine


def test_class_size_query_equals_a_pandas_groupby(adult_available):
    import pandas as pd

    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str)
    expected = frame.groupby(QIS).size().value_counts().to_dict()
    with Session(adult_job(QIS)) as session:
        assert session.runner.class_sizes((0, 0, 0, 0)) == {int(k): int(v) for k, v in expected.items()}


# -- the report's risk section -----------------------------------------------------------------
def test_report_risk_section_matches_sizes_counted_from_the_files(tmp_path, adult_available):
    out = tmp_path / "out.parquet"
    job = adult_job(QIS, k=5, suppression_limit=0.02, output=Output(path=str(out)))
    job = replace(job, risk=type(job.risk)(sampling_fraction=0.1, threshold=0.1))
    result = anonymize(job)
    assert result.success and result.report["verified"]
    risk = result.report["risk"]
    # before: every input row, grouped by its QI values
    before = table_of(Counter(tuple(r[q] for q in QIS) for r in read_adult()).values())
    # after: the written file, suppressed rows (every QI "*") left out
    table = pq.read_table(out).to_pylist()
    groups = Counter(tuple(r[q] for q in QIS) for r in table if any(r[q] != "*" for q in QIS))
    after = table_of(groups.values())
    suppressed = sum(1 for r in table if all(r[q] == "*" for q in QIS))
    assert suppressed == result.suppressed == risk["after"]["suppressed_records"] > 0
    for section, sizes in ((risk["before"], before), (risk["after"], after)):
        p = prosecutor(sizes, threshold=0.1)
        assert section["class_sizes"] == [[s, sizes[s]] for s in sorted(sizes)]
        assert (section["records"], section["classes"]) == (p.records, p.classes)
        assert section["highest_risk"] == p.highest_risk
        assert section["average_risk"] == p.average_risk
        assert (section["records_at_risk"], section["share_at_risk"]) == (p.records_at_risk, p.share_at_risk)
        assert section["sample_uniqueness"] == p.sample_uniqueness
        assert [h["records"] for h in section["histogram"]] == [b.records for b in p.histogram]
        d = dankar(sizes, population_size=30162 / 0.1)
        assert section["population"]["dankar"]["share"] == d.share
        assert section["population"]["population_size"] == pytest.approx(301620)
    assert risk["before"]["records"] == 30162 and risk["after"]["records"] == 30162 - suppressed
    assert risk["after"]["highest_risk"] == 1 / 5 and risk["after"]["sample_uniqueness"] == 0
    assert risk["before"]["population"]["dankar"]["model"] == "pitman"
    assert risk["after"]["population"]["dankar"]["model"] == "none"  # k = 5: no unique left


def test_non_convergence_and_fallback_are_in_the_section():
    # every record unique: Pitman has no maximum (alpha -> 1), Dankar's rule falls back to Zayatz
    section = risk_section({1: 40}, population_size=1000)
    pop = section["population"]
    assert pop["estimators"]["pitman"]["converged"] is False and pop["estimators"]["pitman"]["share"] is None
    assert "every sample record" in pop["estimators"]["pitman"]["reason"]
    assert pop["estimators"]["snb"]["converged"] is False  # no class of size 2
    assert pop["dankar"]["fell_back"] is True and pop["dankar"]["model"] == "zayatz"
    assert "Pitman did not converge" in pop["dankar"]["reason"]
    assert pop["dankar"]["share"] == zayatz({1: 40}, population_size=1000).share == 1.0 * pop["share"]
    json.dumps(section, allow_nan=False)  # no NaN in the report: a missing number is null


def test_nothing_released_has_no_risk():
    section = risk_section({}, population_size=100)
    assert section["records"] == 0 and section["highest_risk"] == 0 and section["population"]["share"] == 0


# -- the population-uniqueness model -----------------------------------------------------------
TINY = {"a": [["x", "xy", "*"], ["y", "xy", "*"], ["z", "z", "*"]]}


def tiny_job(threshold, **kwargs):
    model = {"type": "population-uniqueness", "threshold": threshold, "model": "zayatz", "population_size": 8}
    return table_job({"a": ["x", "y", "z", "z"]}, TINY, k=1, models=(model,), metric="height", **kwargs)


def test_population_uniqueness_on_a_hand_made_table():
    # level 0: classes {x}, {y}, {z, z}: s_1 = 2, s_2 = 1, n = 4, N = 8. Zayatz by hand:
    # h_2 / h_1 = 2 (1 - 3/7) = 8/7; P(F=1|f=1) = (2/3) / (2/3 + (1/3)(8/7)) = 7/11;
    # uniques = 2 * 7/11 * 8/4 = 28/11, share = 28/11 / 8 = 7/22.
    share = float(Fraction(7, 22))
    with Session(tiny_job(0.3)) as session:
        checker = session.checker()
        assert checker.check((0,)).stats.kept_sizes == {1: 2, 2: 1}
        model = checker.models[0]
        assert model.stats_value(checker.check((0,)).stats, 4) == pytest.approx(share, rel=1e-12)
        assert not checker.check((0,)).anonymous  # 7/22 = 0.318 > 0.3
        assert checker.check((1,)).anonymous and model.stats_value(checker.check((1,)).stats, 4) == 0
        for algorithm in ("flash", "ola", "exhaustive", "lightning"):
            assert session.search(algorithm)[0].optimum.node == (1,), algorithm
    with Session(tiny_job(0.32)) as session:
        assert session.search("flash")[0].optimum.node == (0,)


def test_population_uniqueness_report_and_verification(tmp_path):
    out = tmp_path / "tiny.parquet"
    result = anonymize(tiny_job(0.3, output=Output(path=str(out))))
    assert result.success and result.report["verified"] and result.levels == {"a": 1}
    [entry] = result.report["privacy"]["models"]
    assert entry == {
        "model": "population-uniqueness",
        "threshold": 0.3,
        "estimator": "zayatz",
        "population_size": 8,
        "achieved": 0.0,
    }
    # no [risk] table: the report estimates with the model's own population and estimator
    assert result.report["risk"]["before"]["population"]["population_size"] == 8
    assert result.report["risk"]["before"]["population"]["model"] == "zayatz"
    assert result.report["risk"]["before"]["population"]["share"] == pytest.approx(7 / 22, rel=1e-12)


def test_population_uniqueness_settings_are_checked():
    for spec, message in [
        ({"threshold": 0.1}, "give population_size or sampling_fraction"),
        ({"threshold": 0.1, "sampling_fraction": 0.1, "population_size": 9}, "not both"),
        ({"threshold": 0.1, "sampling_fraction": 0}, "'sampling_fraction' parameter must be a number in (0, 1]"),
        ({"threshold": 2, "sampling_fraction": 0.1}, "'threshold' parameter must be a number in [0, 1]"),
        ({"threshold": 0.1, "sampling_fraction": 0.1, "model": "ewens"}, "unknown population-uniqueness model 'ewens'"),
    ]:
        with pytest.raises(
            ConfigError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")
        ):
            build_model({"type": "population-uniqueness", **spec})
    model = build_model({"type": "population-uniqueness", "threshold": 0.1, "population_size": 10})
    with pytest.raises(ConfigError, match="smaller than the input's 30 rows"):
        model.resolve_population(30)
    assert not model.monotonic_with_generalization and not model.monotonic_with_suppression


def oracle_verdicts(size_oracle, limit, threshold, fraction, average=None):
    """Per node: anonymous? and discernibility (N·S + sum of kept squares), in plain numpy; k = 1
    (with k >= 2 no kept class is unique and every estimate is 0), optionally average-risk."""
    n = size_oracle.rows
    result = {}
    for node in size_oracle.nodes():
        kept = size_oracle.class_sizes(node)
        share = dankar(table_of(kept), population_size=n / fraction).share
        anonymous = share <= threshold + 1e-10 and (average is None or len(kept) / n <= average + 1e-10)
        result[node] = (anonymous, int((kept.astype(np.int64) ** 2).sum()))
    return result


# sampling fraction 0.1: Pitman (Zayatz where it does not converge); 0.3: min(Zayatz, SNB)
CASES = [(0.0, 0.0002, 0.1, None), (0.05, 0.00002, 0.3, None), (0.0, 0.0003, 0.1, 0.08)]


@pytest.mark.slow
@pytest.mark.parametrize("limit, threshold, fraction, average", CASES)
def test_population_uniqueness_optimum_against_brute_force(size_oracle, limit, threshold, fraction, average):
    verdicts = oracle_verdicts(size_oracle, limit, threshold, fraction, average)
    best = min((loss for ok, loss in verdicts.values() if ok), default=None)
    assert best is not None and not all(ok for ok, _ in verdicts.values())  # the model binds
    models = ({"type": "population-uniqueness", "threshold": threshold, "sampling_fraction": fraction},)
    if average is not None:
        models += ({"type": "average-risk", "threshold": average},)
    with Session(
        adult_job(QIS, engine="memory", k=1, suppression_limit=limit, models=models), share_stats=True
    ) as session:
        _, checker = session.search("exhaustive")
        assert {node: checker.check(node).anonymous for node in verdicts} == {n: ok for n, (ok, _) in verdicts.items()}
        for algorithm in ("flash", "ola", "incognito", "exhaustive"):
            optimum = session.search(algorithm)[0].optimum
            assert optimum.loss == best and verdicts[optimum.node] == (True, best), algorithm
        for algorithm in ("lightning", "genetic", "datafly"):
            found = session.search(algorithm, step_limit=40, **seeded(algorithm, 1))[0].optimum
            assert found is None or verdicts[found.node][0], algorithm  # whatever it returns is anonymous
    with Session(adult_job(QIS, k=1, suppression_limit=limit, models=models)) as duck:  # DuckDB agrees
        optimum = duck.search("flash")[0].optimum
        assert optimum.loss == best


def test_population_uniqueness_is_not_monotonic_on_a_hand_made_table():
    # p q r | s s | t t, N = 14. Level 0: sizes {1: 3, 2: 2}; level 1 merges the pairs into one
    # class of four, {1: 3, 4: 1}: the same three uniques, but fewer classes that are not
    # unique, so Zayatz's p_1 = s_1 / u rises and so does the estimate (0.249 -> 0.368).
    # With threshold 0.3, level 0 holds, level 1 fails, level 2 (one class) holds again.
    hierarchy = [["p", "p", "*"], ["q", "q", "*"], ["r", "r", "*"], ["s", "st", "*"], ["t", "st", "*"]]
    job = table_job(
        {"a": list("pqrsstt")},
        {"a": hierarchy},
        k=1,
        metric="height",
        models=({"type": "population-uniqueness", "threshold": 0.3, "model": "zayatz", "population_size": 14},),
    )
    with Session(job) as session:
        checker = session.checker()
        model = checker.models[0]
        values = [model.stats_value(checker.check((level,)).stats, 7) for level in range(3)]
        expected = [zayatz({1: 3, 2: 2}, population_size=14).share, zayatz({1: 3, 4: 1}, population_size=14).share, 0.0]
        assert values == pytest.approx(expected, rel=1e-12)
        assert expected[0] < 0.3 < expected[1]
        assert [checker.check((level,)).anonymous for level in range(3)] == [True, False, True]
        for algorithm in ("flash", "ola", "incognito", "exhaustive"):
            outcome = session.search(algorithm)[0]
            assert outcome.optimum.node == (0,), algorithm
            assert outcome.counters.get("tagged", 0) == 0  # no predictive tagging with this model


def test_population_uniqueness_with_k_anonymity_on_adult(tmp_path, size_oracle):
    # with k = 2 no released class is unique, so every estimator gives 0 and the model holds
    # wherever k-anonymity does; the report and the re-check of the file say so
    out = tmp_path / "adult.parquet"
    model = {"type": "population-uniqueness", "threshold": 0.00001, "sampling_fraction": 0.1}
    result = anonymize(adult_job(QIS, k=2, suppression_limit=0.02, models=(model,), output=Output(path=str(out))))
    plain = anonymize(adult_job(QIS, k=2, suppression_limit=0.02))
    assert result.success and result.report["verified"] and result.levels == plain.levels
    assert result.report["privacy"]["models"][1]["achieved"] == 0.0


def test_population_uniqueness_achieved_is_rechecked_on_the_file(tmp_path, size_oracle):
    out = tmp_path / "adult.parquet"
    model = {"type": "population-uniqueness", "threshold": 0.0002, "sampling_fraction": 0.1}
    result = anonymize(adult_job(QIS, k=1, models=(model,), output=Output(path=str(out))))
    assert result.success and result.report["verified"]
    achieved = result.report["privacy"]["models"][0]["achieved"]
    table = pq.read_table(out).to_pylist()
    sizes = table_of(Counter(tuple(r[q] for q in QIS) for r in table).values())
    assert achieved == dankar(sizes, population_size=301620.0).share <= 0.0002
    assert achieved > 0 and result.report["risk"]["after"]["population"]["dankar"]["share"] == achieved


# -- the risk command and the Markdown summary ---------------------------------------------------
JOB = """
[input]
path = "{adult}"
delimiter = ";"
drop = ["education", "native-country", "workclass", "occupation", "salary-class"]
[attributes.sex]
role = "quasi"
hierarchy = "{h}sex.csv"
[attributes.age]
role = "quasi"
hierarchy = "{h}age.csv"
[attributes.race]
role = "quasi"
hierarchy = "{h}race.csv"
[attributes."marital-status"]
role = "quasi"
hierarchy = "{h}marital-status.csv"
[privacy]
k = 5
suppression_limit = 0.02
[output]
path = "out.parquet"
report = "report.json"
"""


@pytest.fixture
def risk_job(tmp_path, adult_available):
    def write(risk: str = "[risk]\nsampling_fraction = 0.1\n") -> str:
        path = tmp_path / "job.toml"
        path.write_text(JOB.format(adult=ADULT / "adult.csv", h=str(ADULT / "adult_hierarchy_")) + risk)
        return str(path)

    return write


def test_risk_command_text_and_json(risk_job, size_oracle):
    sizes = table_of(size_oracle.class_sizes((0, 0, 0, 0)))
    p = prosecutor(sizes)
    d = dankar(sizes, sampling_fraction=0.1)
    text = CliRunner().invoke(main, ["risk", risk_job()])
    assert text.exit_code == 0, text.output
    assert f"sample uniqueness     {p.sample_uniqueness:.4%} ({p.sample_uniques} records)" in text.stdout
    assert f"dankar   {d.share:.4%}" in text.stdout
    result = CliRunner().invoke(main, ["risk", risk_job(), "--format", "json"])
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["risk"]["average_risk"] == p.average_risk and report["node"] is None
    assert report["risk"]["population"]["dankar"]["share"] == d.share
    # a node: the job's k = 5 suppresses the smaller classes, which are reported beside
    node = CliRunner().invoke(main, ["risk", risk_job(), "--node", "1,2,0,1", "--format", "json"])
    assert node.exit_code == 0, node.output
    at_node = table_of(size_oracle.class_sizes((1, 2, 0, 1)))
    kept = {s: c for s, c in at_node.items() if s >= 5}
    section = json.loads(node.stdout)["risk"]
    assert section["class_sizes"] == [[s, kept[s]] for s in sorted(kept)]
    assert section["suppressed_records"] == sum(s * c for s, c in at_node.items() if s < 5)


def test_risk_command_errors(risk_job):
    cases = [
        (["--node", "1,2"], "is not in the lattice"),
        (["--node", "a,b"], "--node must be levels separated by commas"),
    ]
    for flags, message in cases:
        result = CliRunner().invoke(main, ["risk", risk_job(), *flags])
        assert result.exit_code == 2 and message in result.stderr, result.output
    for risk, message in [
        (
            "[risk]\nsampling_fraction = 0.1\npopulation_size = 1e6\n",
            "give population_size or sampling_fraction, not both",
        ),
        ("[risk]\nsampling_fraction = 1.5\n", "'sampling_fraction' parameter must be a number in (0, 1]"),
        ("[risk]\npopulation_size = 100\n", "smaller than the input's 30162 rows"),
        ('[risk]\nmodel = "ewens"\n', "unknown population-uniqueness model 'ewens'"),
        ("[risk]\nfraction = 0.1\n", "unknown key(s) ['fraction'] in [risk]"),
    ]:
        result = CliRunner().invoke(main, ["risk", risk_job(risk)])
        assert result.exit_code == 2 and message in result.stderr, (risk, result.output)
        assert "job.toml" in result.stderr or "smaller than" in result.stderr


def test_markdown_summary_and_svg(risk_job, tmp_path):
    from sqlanon.report.histogram_svg import histogram_svg

    summary = tmp_path / "summary.md"
    result = CliRunner().invoke(main, ["anonymize", risk_job(), "--markdown", str(summary), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    text = summary.read_text()
    # the chart of this report (its bars: tests/e2e/test_histogram_svg.py), beside the page that shows it
    assert (tmp_path / "summary_histogram.svg").read_text() == histogram_svg(report["risk"])
    assert "![Share of records by the size of their group](summary_histogram.svg)" in text
    before, after = report["risk"]["before"], report["risk"]["after"]
    row = f"| Sample uniqueness (records alone in their group) | {100 * before['sample_uniqueness']:.2f} % | 0.00 % |"
    assert row in text
    assert (
        f"| Highest re-identification risk (1 / smallest group) | 100.00 % | {100 * after['highest_risk']:.2f} % |"
        in text
    )
    assert f"| Records suppressed (not released, not assessed) | 0 | {report['suppressed']:,} |" in text
    assert f"({before['population']['dankar']['model']})" in text
    # the risk command writes the same page for the input alone
    alone = tmp_path / "input.md"
    result = CliRunner().invoke(main, ["risk", risk_job(), "--format", "markdown", "--output", str(alone)])
    assert result.exit_code == 0, result.output
    svg = ET.fromstring((tmp_path / "input_histogram.svg").read_text())
    bars = [
        r.get("class") for r in svg.iter("{http://www.w3.org/2000/svg}rect") if r.get("class", "").startswith("bar")
    ]
    assert bars == ["bar before"] * len(before["histogram"])  # the input alone: one series
    assert f"| Average re-identification risk | {100 * before['average_risk']:.2f} % |" in alone.read_text()
    assert "](input_histogram.svg)" in alone.read_text()


def test_anonymize_format_markdown_writes_the_page_beside_the_output(risk_job, tmp_path):
    result = CliRunner().invoke(main, ["anonymize", risk_job(), "--format", "markdown", "--quiet"])
    assert result.exit_code == 0, result.output
    page = tmp_path / "out_summary.md"
    report = json.loads((tmp_path / "report.json").read_text())
    svg = ET.fromstring((tmp_path / "out_summary_histogram.svg").read_text())
    bars = Counter(
        r.get("class") for r in svg.iter("{http://www.w3.org/2000/svg}rect") if r.get("class", "").startswith("bar")
    )
    buckets = len(report["risk"]["before"]["histogram"])
    assert bars == {"bar before": buckets, "bar after": buckets}  # before and after, side by side
    loss = f"{int(report['loss']):,}" if float(report["loss"]).is_integer() else f"{report['loss']:.6g}"
    assert (
        f"Utility: information loss {loss} ({report['metric']} metric); {report['suppressed']:,} of" in page.read_text()
    )
    as_json = CliRunner().invoke(main, ["anonymize", risk_job(), "--format", "json", "--quiet", "--overwrite"])
    assert as_json.exit_code == 0 and json.loads(as_json.stdout)["risk"]["after"]["highest_risk"] <= 0.2


# -- the other paths ------------------------------------------------------------------------------
def test_class_sizes_in_the_join_layout(size_oracle):
    node = (1, 2, 0, 1)
    with Session(adult_job(QIS, lookup="join")) as session:
        assert session.runner.class_sizes(node) == table_of(size_oracle.class_sizes(node))


def test_after_with_dropped_suppressed_rows(tmp_path):
    # a: x x y y y z -> k = 2 suppresses z; with "drop" the file has 5 rows in classes {2, 3}
    out = tmp_path / "drop.csv"
    job = table_job(
        {"a": ["x", "x", "y", "y", "y", "z"]},
        {"a": [["x", "*"], ["y", "*"], ["z", "*"]]},
        k=2,
        suppression_limit=0.5,
        output=Output(path=str(out), suppressed="drop"),
    )
    result = anonymize(job)
    assert result.success and result.levels == {"a": 0}
    after = result.report["risk"]["after"]
    assert after["class_sizes"] == [[2, 1], [3, 1]] and after["suppressed_records"] == 1
    assert after["average_risk"] == 2 / 5 and after["highest_risk"] == 1 / 2
    assert result.report["risk"]["before"]["class_sizes"] == [[1, 1], [2, 1], [3, 1]]


def test_intervals_report_after_from_the_written_file(tmp_path, adult_available):
    out = tmp_path / "cuts.parquet"
    job = adult_job(["sex", "race", "marital-status"], algorithm="k-optimize", k=400, output=Output(path=str(out)))
    result = anonymize(job)
    assert result.success and result.report["verified"]
    table = pq.read_table(out).to_pylist()
    qis = ["sex", "race", "marital-status"]
    sizes = table_of(Counter(tuple(r[q] for q in qis) for r in table if any(r[q] != "*" for q in qis)).values())
    assert result.report["risk"]["after"]["class_sizes"] == [[s, sizes[s]] for s in sorted(sizes)]
    assert min(sizes) >= 400


def test_a_disagreeing_recount_is_a_verification_error():
    from sqlanon.errors import VerificationError
    from sqlanon.release.pipeline import confirm_sizes

    confirm_sizes({2: 3}, {2: 3}, "out.csv")
    with pytest.raises(VerificationError, match="differ from the search's"):
        confirm_sizes({2: 3}, {2: 2, 1: 2}, "out.csv")


def test_markdown_says_when_an_estimator_did_not_converge():
    from sqlanon.report.markdown import markdown

    report = {
        "input": "t.csv",
        "rows": 40,
        "quasi_identifiers": ["a"],
        "node": None,
        "risk": risk_section({1: 40}, population_size=1000),
    }
    text = markdown(report)
    assert "pitman did not converge: every sample record is unique" in text
    assert "snb did not converge: no class of size 2" in text
    assert "Pitman did not converge" in text and "**(fallback)**" in text
    assert "| Estimated population uniqueness | 100.00 % (zayatz) |" in text


def test_recount_of_masked_groups_and_empty_fields(tmp_path):
    """The file's re-count: a kept class whose labels are all the mask shares the masked rows'
    group (only the rows beyond the suppressed ones are that class); an empty CSV field (NULL
    when read back) is an ordinary label, not the mask."""
    from sqlanon.release.verify import measure

    def released_class_sizes(output, qis, suppressed):  # k = 1: every group may stand
        return measure(output, qis, 1, suppressed=suppressed).class_sizes

    path = tmp_path / "out.csv"
    path.write_text("A,b\n*,*\n*,*\n*,*\n*,*\n,*\n,*\n")
    output = Output(path=str(path))
    assert released_class_sizes(output, ["A", "b"], suppressed=1) == {3: 1, 2: 1}
    assert released_class_sizes(output, ["A", "b"], suppressed=0) == {4: 1, 2: 1}
    assert released_class_sizes(output, ["A", "b"], suppressed=4) == {2: 1}
    # the case hypothesis found: NULL values of A generalized at level 0 beside a masked row
    import pyarrow as pa

    from sqlanon.config.job import Attribute, Job
    from sqlanon.core.specs import Source
    from sqlanon.hierarchy import Hierarchy

    table = pa.table(
        {"A": ["v0", None, None, None], "b-c": ["v0", "v0", "v1", "v0"], "select": ["v0", "v0", "v0", "v1"]}
    )
    attributes = [Attribute("A", "quasi", Hierarchy.from_rows("A", (("v0", "*"), ("v1", "*"), ("", "*"))))] + [
        Attribute(q, "quasi", Hierarchy.from_rows(q, (("v0", "*"), ("v1", "*")))) for q in ("b-c", "select")
    ]
    job = Job(
        input=Source(arrow=table),
        attributes=attributes,
        k=2,
        suppression_limit=0.25,
        metric="aecs",
        output=Output(path=str(tmp_path / "released.csv")),
    )
    report = anonymize(job).report
    assert list(report["levels"].values()) == [0, 1, 1] and report["suppressed"] == 1
    assert report["risk"]["after"]["class_sizes"] == [[3, 1]]


def test_recount_may_merge_classes_with_equal_labels_but_not_lose_records():
    from sqlanon.errors import VerificationError
    from sqlanon.release.pipeline import confirm_sizes

    # two classes of two whose labels coincide are one group of four in the file: its sizes count
    confirm_sizes({2: 2}, {4: 1}, "out.csv")
    with pytest.raises(VerificationError, match="differ from the search's"):
        confirm_sizes({2: 2}, {3: 1}, "out.csv")  # a record went missing
    with pytest.raises(VerificationError):
        confirm_sizes({4: 1}, {2: 2}, "out.csv")  # a class split: never by labels
