"""Hierarchy builders: golden files for every builder and granularity, and clear errors.
Set SQLANON_REGEN_GOLDEN=1 to rewrite tests/golden/hierarchies after a deliberate change."""

from dataclasses import replace
import csv
import io
import os

import pytest

from helpers.jobs import ROOT, table_job
from sqlanon import anonymize
from sqlanon.errors import ConfigError
from sqlanon.hierarchy.builders import build_hierarchy
from sqlanon.hierarchy.builders.dates import GRANULARITIES

AGES = [str(a) for a in (0, 4, 5, 17, 18, 19, 23, 39, 40, 64, 65, 89, 90, 104)]
ZIPS = ["47011", "47017", "47123", "53011", "8101", "8"]
DAYS = ["1999-12-31", "2000-01-01", "2019-03-04", "2019-04-01", "2019-12-31", "2021-11-30"]
EDUCATION = ["Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad"]

CASES = {
    "intervals_widths": ({"type": "intervals", "widths": [5, 10, 20]}, AGES),
    "intervals_widths_start": ({"type": "intervals", "widths": [10, 30], "start": 5}, AGES),
    "intervals_coding": ({"type": "intervals", "widths": [5, 10, 20], "bottom": 18, "top": 90}, AGES),
    "intervals_cuts": ({"type": "intervals", "cuts": [[0, 18, 40, 65, 120], [0, 18, 65, 120]]}, AGES),
    "intervals_decimals": ({"type": "intervals", "widths": [0.5, 1]}, ["0.2", "0.7", "1.25", "2"]),
    "mask": ({"type": "mask"}, ZIPS),
    "mask_two_levels_hash": ({"type": "mask", "mask": "#", "levels": 2}, ZIPS),
    "date_all": ({"type": "date"}, DAYS),
    "date_format": ({"type": "date", "format": "%d.%m.%Y", "levels": ["year", "decade"]}, ["04.03.2019", "31.12.1999"]),
    **{f"date_{g}": ({"type": "date", "levels": [g]}, DAYS) for g in GRANULARITIES},
    "order": ({"type": "order", "values": EDUCATION, "fanout": [3, 3]}, EDUCATION[:5]),
    "order_uneven": ({"type": "order", "values": EDUCATION, "fanout": [2, 2, 2]}, EDUCATION),
}


def as_csv(rows) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=";", lineterminator="\n").writerows(rows)
    return buffer.getvalue()


@pytest.mark.parametrize("name", sorted(CASES))
def test_builder_golden(name):
    spec, values = CASES[name]
    rendered = as_csv(build_hierarchy("x", spec, values).rows)
    path = ROOT / "tests" / "golden" / "hierarchies" / f"{name}.csv"
    if os.environ.get("SQLANON_REGEN_GOLDEN"):
        path.write_text(rendered)
    assert rendered == path.read_text()


@pytest.mark.parametrize(
    "spec, values, message",
    [
        ({"type": "intervals", "widths": [10, 15]}, ["1"], "each a multiple of the one below"),
        ({"type": "intervals", "widths": [5]}, ["1", "abc"], "value 'abc' is not a number"),
        ({"type": "intervals", "cuts": [[0, 10, 20], [0, 15, 20]]}, ["1"], "must be a subset of the one below"),
        ({"type": "intervals", "cuts": [[0, 10]]}, ["12"], "lies outside the cuts"),
        ({"type": "intervals"}, ["1"], "needs either widths or cuts"),
        ({"type": "mask", "mask": "**"}, ["1"], "mask must be one character"),
        ({"type": "date", "levels": ["year", "month"]}, ["2019-01-01"], "in that order"),
        ({"type": "date"}, ["2019-13-01"], "does not match the date format"),
        ({"type": "order", "values": ["a", "b"], "fanout": [2]}, ["c"], "not in the ordered list"),
        ({"type": "order", "values": ["a", "b"], "fanout": [1]}, ["a"], "fanout must be a list of ints >= 2"),
        ({"type": "nope"}, ["a"], "unknown hierarchy type 'nope'; valid types: intervals, mask, date, order"),
        ({"type": "mask", "width": 3}, ["a"], r"unknown key\(s\) \['width'\]"),
    ],
)
def test_builder_errors(spec, values, message):
    with pytest.raises(ConfigError, match=message):
        build_hierarchy("x", spec, values)


def test_builders_in_a_job_cover_the_data():
    data = {"age": ["23", "37", "81", "17", "23", "37"], "zip": ["47011", "47017", "47011", "47017", "47011", "47017"]}
    job = table_job(data, {}, roles={}, k=2, suppression_limit=0.0)
    age, zip_code = job.attributes
    job = replace(
        job,
        attributes=[
            replace(age, role="quasi", hierarchy={"type": "intervals", "widths": [10, 20], "bottom": 18}),
            replace(zip_code, role="quasi", hierarchy={"type": "mask"}),
        ],
    )
    result = anonymize(job)
    # 81 and 17 stay alone below the top age level (80-99 and <18), and s = 0: age goes to *,
    # and the two zip codes (3 rows each) need no masking.
    assert result.success and result.transformation == (3, 0) and result.loss == 18
