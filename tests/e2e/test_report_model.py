"""The report as dataclasses (sqlanon/core/report.py): the demo's report.json is the typed
report's JSON, byte for byte, with report.json's keys in their order, and its figures are
those of the released file, counted afresh here."""

from __future__ import annotations

import csv
import json
from collections import Counter

from sqlanon import anonymize
from sqlanon.demo import demo_job, prepare_data
from sqlanon.core.report import Report

#: report.json's layout for a lattice search that found a transformation and wrote it: the
#: order every report has had (a reader diffing two reports relies on it)
KEYS = [
    "success",
    "input",
    "rows",
    "base_classes",
    "quasi_identifiers",
    "privacy",
    "algorithm",
    "metric",
    "rows_scanned",
    "queries",
    "seconds",
    "engine",
    "checks_placement",
    "checks_placement_reason",
    "query_latency_ms",
    "class_table_bytes",
    "lookup",
    "snapshots",
    "versions",
    "output",
    "order",
    "verified",
    "verification",
    "algorithm_counters",
    "optimal",
    "stopped",
    "trace",
    "metric_monotonic",
    "lattice_size",
    "checks",
    "tagged",
    "rollups",
    "snapshot_hits",
    "pruned",
    "skipped_by_bound",
    "transformation",
    "levels",
    "loss",
    "suppressed",
    "classes",
    "min_class_size",
    "risk",
    "manifest",
    "attributes",
]
TIMINGS = ("seconds", "trace")


def _without_timings(document: dict) -> dict:
    return {k: v for k, v in document.items() if k not in TIMINGS}


def test_the_demo_report_json_is_the_typed_report(tmp_path):
    job = demo_job(tmp_path / "demo")
    prepare_data(job.input.path, 4000)
    result = anonymize(job)
    report = result.details
    assert isinstance(report, Report) and result.success

    text = (tmp_path / "demo" / "report.json").read_text(encoding="utf-8")
    assert text == report.to_json()  # the file is the typed report's JSON, byte for byte
    document = json.loads(text)
    assert list(document) == KEYS
    assert list(document["privacy"]) == ["models", "suppression_limit", "suppression_limit_rows", "monotonic"]
    assert list(document["seconds"]) == ["prepare", "search", "output", "risk"]  # the ARX harness reads these
    assert list(document["verification"]) == [
        "verified",
        "models",
        "class_sizes",
        "rows",
        "groups",
        "min_group_size",
        "suppressed_rows_found",
        "masked_rows",
    ]
    assert list(document["risk"]) == ["before", "after"]
    assert all(list(a) == ["name", "level", "height", "distinct", "loss"] for a in document["attributes"])
    # the dict form (Result.report, --json) is the same document, minus nothing but timings
    assert _without_timings(result.report) == _without_timings(document)
    assert (result.levels, result.loss, result.suppressed, result.classes, result.checks) == (
        document["levels"],
        document["loss"],
        document["suppressed"],
        document["classes"],
        document["checks"],
    )

    # the figures, counted afresh from the demo's input and released files
    qis = ["age", "zipcode", "sex"]
    with open(job.input.path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    with open(job.output.path, newline="", encoding="utf-8") as handle:
        released = list(csv.DictReader(handle))
    groups = Counter(tuple(r[q] for q in qis) for r in released)
    masked = groups.pop(("*", "*", "*"), 0)
    assert document["rows"] == len(rows) == len(released) == 4000
    assert document["base_classes"] == len({tuple(r[q] for q in qis) for r in rows})
    assert document["quasi_identifiers"] == qis and document["levels"] == dict(zip(qis, document["transformation"]))
    assert document["suppressed"] == masked == document["verification"]["masked_rows"]
    assert document["classes"] == len(groups) and document["min_class_size"] == min(groups.values())
    sizes = Counter(groups.values())
    assert document["verification"]["class_sizes"] == [[s, sizes[s]] for s in sorted(sizes)]
    assert document["risk"]["after"]["class_sizes"] == document["verification"]["class_sizes"]
    assert document["privacy"]["models"] == [{"model": "k-anonymity", "k": 5, "achieved": min(groups.values())}]
    assert document["output"] == job.output.path and document["verified"] is True
    assert document["manifest"]["levels"] == document["levels"]
    assert [(a["name"], a["level"]) for a in document["attributes"]] == list(document["levels"].items())


def test_a_run_without_a_solution_leaves_out_what_it_did_not_do(tmp_path):
    """No solution: no verification, solution, manifest or attributes keys; the risk has no
    "after"; nothing is written."""
    job = demo_job(tmp_path / "demo", k=4001)
    prepare_data(job.input.path, 4000)
    result = anonymize(job)
    assert not result.success and result.details.solution is None and result.details.verification is None
    assert [k for k in KEYS if k not in result.report] == [
        "order",
        "verification",
        "transformation",
        "levels",
        "loss",
        "suppressed",
        "classes",
        "min_class_size",
        "manifest",
        "attributes",
    ]
    assert list(result.report) == [k for k in KEYS if k in result.report]
    assert result.report["output"] is None and result.report["risk"]["after"] is None
    assert sorted(p.name for p in (tmp_path / "demo").iterdir()) == ["patients.csv"]
    assert repr(result) == f"Result(success=False, algorithm='flash', checks={result.report['checks']})"
