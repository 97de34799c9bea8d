"""The class-size histogram as SVG (sqlanon/report/histogram_svg.py) and the Markdown page's files
(sqlanon/risk_markdown.markdown_files): the document parses, has one bar per bucket and
series, each as tall as its share of records on the drawn axis (a hand-made histogram and
ADULT's real report, its sizes counted afresh from the CSV and the written file), escapes
hostile labels and refers to nothing outside itself."""

from __future__ import annotations

import csv
import re
import xml.etree.ElementTree as ET
from collections import Counter

import pyarrow.parquet as pq
import pytest
from helpers.jobs import ADULT, adult_job

from sqlanon import Output, anonymize
from sqlanon.report.histogram_svg import histogram_svg
from sqlanon.reidentification.analysis import risk_section
from sqlanon.report.markdown import markdown_files

NS = "{http://www.w3.org/2000/svg}"
LABELS = ["1", "2", "3", "4", "5-9", "10-19", "20-49", "50-99", "100+"]
QIS = ["sex", "age", "race", "marital-status"]


class Chart:
    """The parts of a drawn histogram a reader looks at, read back from the SVG."""

    def __init__(self, svg: str):
        self.root = ET.fromstring(svg)
        self.texts = {}
        for t in self.root.iter(NS + "text"):
            self.texts.setdefault(t.get("class"), []).append(t)
        grid = [float(g.get("y1")) for g in self.root.iter(NS + "line") if g.get("class") == "grid"]
        self.ticks = [float(t.text) for t in self.texts["tick y"]]
        assert len(grid) == len(self.ticks) and self.ticks[0] == 0
        self.zero, self.top = grid[0], grid[-1]  # pixel rows of the axis' 0 and of its top label
        axes = re.fullmatch(r"M([\d.]+) ([\d.]+)V([\d.]+)H([\d.]+)", self.root.find(NS + "path").get("d"))
        self.left, frame_top, frame_bottom, self.right = map(float, axes.groups())
        assert (frame_top, frame_bottom) == (self.top, self.zero)  # the labelled axis is the drawn one

    def bars(self, kind: str) -> list[ET.Element]:
        return [r for r in self.root.iter(NS + "rect") if r.get("class") == f"bar {kind}"]

    def shares(self, kind: str) -> list[float]:
        """Each bar's height read on the y axis, in percent."""
        scale = (self.zero - self.top) / self.ticks[-1]
        for bar in self.bars(kind):  # every bar stands on the axis, inside the chart
            assert float(bar.get("y")) + float(bar.get("height")) == pytest.approx(self.zero, abs=0.011)
            assert float(bar.get("y")) >= self.top and self.left < float(bar.get("x"))
            assert float(bar.get("x")) + float(bar.get("width")) < self.right
        return [float(bar.get("height")) / scale for bar in self.bars(kind)]

    def labels(self, cls: str) -> list[str]:
        return [t.text for t in self.texts.get(cls, [])]


def test_hand_made_histogram_bars_ticks_and_risk_line():
    # before: 10 + 10 + 20 + 60 records; after: 10 + 10 + 40 in the buckets 5-9, 10-19, 20-49
    before = risk_section({1: 10, 2: 5, 5: 4, 20: 3})
    after = risk_section({5: 2, 10: 1, 20: 2}, suppressed=40)
    svg = histogram_svg({"before": before, "after": after})
    chart = Chart(svg)
    assert chart.labels("tick x") == LABELS
    assert chart.ticks == [0, 10, 20, 30, 40, 50, 60, 70]  # 66.7 % and 5 % room above it: steps of 10 up to 70
    assert chart.shares("before") == pytest.approx([10, 10, 0, 0, 20, 0, 60, 0, 0], abs=0.01)
    assert chart.shares("after") == pytest.approx([0, 0, 0, 0, 100 / 6, 100 / 6, 200 / 3, 0, 0], abs=0.01)
    assert chart.labels("value before") == ["10.0", "10.0", "0", "0", "20.0", "0", "60.0", "0", "0"]
    assert chart.labels("value after") == ["0", "0", "0", "0", "16.7", "16.7", "66.7", "0", "0"]
    tips = [b.find(NS + "title").text for b in chart.bars("before") + chart.bars("after")]
    assert tips[6] == "before (input), groups of 20-49: 60 records (60.00 %)"
    assert tips[9 + 4] == "after (released), groups of 5-9: 10 records (16.67 %)"
    assert chart.labels("legend") == ["before (input)", "after (released)"]
    # records at risk: groups under 1/0.2 = 5, the buckets 1 to 4; the line between 4's bars and 5-9's
    risk = [line for line in chart.root.iter(NS + "line") if line.get("stroke-dasharray")]
    assert len(risk) == 1
    x = float(risk[0].get("x1"))
    four, five = chart.bars("after")[3], chart.bars("before")[4]
    assert float(four.get("x")) + float(four.get("width")) < x < float(five.get("x"))
    assert "at risk \u2190" in [t.text for t in chart.root.iter(NS + "text")]


def test_risk_line_follows_the_threshold_and_single_series():
    section = risk_section({1: 2, 3: 1, 150: 1}, threshold=0.5)  # at risk: groups under 2, bucket 1 only
    chart = Chart(histogram_svg(section))  # the risk command's single section: no before/after
    assert chart.shares("before") == pytest.approx(
        [2 / 155 * 100, 0, 3 / 155 * 100, 0, 0, 0, 0, 0, 150 / 155 * 100], abs=0.01
    )
    assert chart.bars("after") == [] and chart.labels("legend") == []
    assert chart.ticks[-1] == 100  # 96.8 % and room above: never past 100
    x = float(next(line for line in chart.root.iter(NS + "line") if line.get("stroke-dasharray")).get("x1"))
    one, three = chart.bars("before")[0], chart.bars("before")[1]
    assert float(one.get("x")) + float(one.get("width")) < x < float(three.get("x"))
    # shares of at most 18 %: steps of 2.5 up to 20, labelled with their decimal
    flat = Chart(histogram_svg(risk_section({1: 15, 2: 8, 3: 5, 4: 4, 5: 3, 12: 1})))
    assert flat.labels("tick y") == ["0.0", "2.5", "5.0", "7.5", "10.0", "12.5", "15.0", "17.5", "20.0"]
    assert flat.shares("before") == pytest.approx([100 * r / 89 for r in (15, 16, 15, 16, 15, 12, 0, 0, 0)], abs=0.01)
    nobody = Chart(histogram_svg(risk_section({2: 1, 500: 1}, threshold=1.0)))  # 1/k > 1 never: no line
    assert not [line for line in nobody.root.iter(NS + "line") if line.get("stroke-dasharray")]


def test_nothing_released_and_everything_suppressed():
    before = risk_section({1: 3, 7: 1})
    chart = Chart(histogram_svg({"before": before, "after": None}))
    assert len(chart.bars("before")) == 9 and chart.bars("after") == []
    assert chart.labels("legend") == ["before (input)", "after: nothing released"]
    empty = Chart(histogram_svg({"before": before, "after": risk_section({}, suppressed=10)}))
    assert empty.shares("after") == [0] * 9 and empty.shares("before") == pytest.approx(
        [30, 0, 0, 0, 70, 0, 0, 0, 0], abs=0.01
    )


def test_hostile_labels_are_escaped_and_nothing_outside_is_referred_to():
    hostile = '<script>alert("x")</script> & ]]> <image href="http://evil/x.png"/>'
    section = risk_section({1: 1, 4: 1})
    section["histogram"][0]["sizes"] = hostile
    section["histogram"][1]["sizes"] = "\u22652 \u00e9"
    svg = histogram_svg({"before": section, "after": section})
    assert svg.isascii() and not svg.startswith("<?xml")
    root = ET.fromstring(svg)  # parses: the label did not break out of its text
    assert root.tag == NS + "svg" and root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    assert {e.tag.removeprefix(NS) for e in root.iter()} <= {"svg", "title", "rect", "line", "text", "path"}
    for element in root.iter():
        assert not {"id", "href", "style", "{http://www.w3.org/1999/xlink}href"} & set(element.attrib)
        assert not any("url(" in v or "//" in v for v in element.attrib.values())
    ticks = [t.text for t in root.iter(NS + "text") if t.get("class") == "tick x"]
    assert ticks[0] == hostile[:15] + "\u2026" and ticks[1] == "\u22652 \u00e9"  # cut to 16 characters
    tip = root.find(f"{NS}rect[@class='bar before']/{NS}title").text
    assert tip == f"before (input), groups of {hostile}: 1 record (20.00 %)"  # the whole label, as text


def test_adult_report_histogram_and_markdown_files(tmp_path, adult_available):
    out = tmp_path / "out.parquet"
    result = anonymize(adult_job(QIS, k=5, suppression_limit=0.02, output=Output(path=str(out))))
    assert result.success and result.report["verified"]
    files = markdown_files(result.details, tmp_path / "summary page.md")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.parquet"]  # nothing written: the caller writes
    image, page = tmp_path / "summary page_histogram.svg", tmp_path / "summary page.md"
    assert list(files) == [str(image), str(page)]  # the image first: a page never points to a missing file
    assert "![Share of records by the size of their group](summary%20page_histogram.svg)" in files[str(page)]
    chart = Chart(files[str(image)])

    # the sizes counted afresh: the input's from the CSV, the release's from the written file
    with open(ADULT / "adult.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter=";"))
    released = pq.read_table(out).to_pylist()
    before = Counter(Counter(tuple(r[q] for q in QIS) for r in rows).values())
    after = Counter(Counter(tuple(r[q] for q in QIS) for r in released if any(r[q] != "*" for q in QIS)).values())
    edges = [(1, 1), (2, 2), (3, 3), (4, 4), (5, 9), (10, 19), (20, 49), (50, 99), (100, 10**9)]

    def shares(table):
        records = [sum(s * c for s, c in table.items() if low <= s <= high) for low, high in edges]
        return [100 * r / sum(records) for r in records]

    assert chart.shares("before") == pytest.approx(shares(before), abs=0.01)
    assert chart.shares("after") == pytest.approx(shares(after), abs=0.01)
    assert sum(shares(after)[:4]) == 0 and min(after) >= 5
    assert chart.ticks[-1] == 100 and chart.labels("tick x") == LABELS
