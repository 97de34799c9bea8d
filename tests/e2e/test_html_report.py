"""The HTML report (sqlanon/report/html.py): written beside report.json through the run's
guard, self-contained, holding every figure of the report — checked on a real ADULT run, its
per-attribute loss recomputed from the released file and the hierarchies — and rendered by a
real headless Chromium (the Debian package), whose DOM and screenshot are read back.
``Result``'s one-line ``repr`` and Jupyter display come from the same module."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers.jobs import ADULT, ADULT_QIS, adult_hierarchy, adult_job
from helpers.targets import run, snapshot, write_job

from sqlanon import Attribute, Job, Output, Source, anonymize, load_job
from sqlanon.report.histogram_svg import AFTER, BEFORE
from sqlanon.report.html import html_report

QIS = ["sex", "age", "race", "marital-status"]


class Page(HTMLParser):
    """The parts of the page a test reads: tables (rows of cell texts, by class), every
    element's tag and attributes, the manifest's text."""

    def __init__(self, text: str):
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.elements: list[tuple[str, dict]] = []
        self.pre: dict[str, str] = {}
        self._table = self._row = self._cell = self._pre = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.elements.append((tag, attrs))
        if tag == "table":
            self._table = self.tables.setdefault(attrs.get("class") or f"table{len(self.tables)}", [])
        elif tag == "tr" and self._table is not None:
            self._row = []
            self._table.append(self._row)
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "pre":
            self._pre = (attrs.get("class"), [])

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = self._row = None
        elif tag == "pre" and self._pre:
            self.pre[self._pre[0]] = "".join(self._pre[1])
            self._pre = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._pre is not None:
            self._pre[1].append(data)

    def rows(self, name: str) -> dict[str, list[str]]:
        """A table's data rows by their first cell."""
        return {row[0]: row[1:] for row in self.tables[name][1:]}


@pytest.fixture(scope="module")
def adult_run(tmp_path_factory, adult_available):
    folder = tmp_path_factory.mktemp("html")
    attributes = [Attribute(q, "quasi", str(adult_hierarchy(q))) for q in QIS]
    attributes += [Attribute("occupation", "sensitive")]
    attributes += [Attribute(c, "insensitive") for c in ADULT_QIS if c not in QIS and c != "occupation"]
    job = Job(
        input=Source(path=str(ADULT / "adult.csv"), delimiter=";"),
        attributes=attributes,
        k=5,
        suppression_limit=0.02,
        metric="entropy",
        models=({"type": "distinct-l-diversity", "attribute": "occupation", "l": 3},),
        output=Output(path=str(folder / "out.parquet"), report=str(folder / "report.json")),
    )
    result = anonymize(job)
    assert result.success
    return folder, result


def test_the_page_is_written_beside_the_json_and_refers_to_nothing_outside(adult_run):
    folder, result = adult_run
    assert sorted(os.listdir(folder)) == ["out.parquet", "report.html", "report.json"]
    text = (folder / "report.html").read_text(encoding="ascii")  # pure ASCII, whatever the reader assumes
    assert text.startswith("<!DOCTYPE html>") and json.loads((folder / "report.json").read_text()) == result.report
    page = Page(text)
    policy = next(a["content"] for tag, a in page.elements if tag == "meta" and a.get("http-equiv"))
    assert policy.startswith("default-src 'none'")
    for tag, attributes in page.elements:
        assert tag not in ("script", "link", "img", "iframe", "object"), tag
        assert not {"src", "href"} & set(attributes), (tag, attributes)
    assert re.findall(r"https?://[^\"' ]+", text) == ["http://www.w3.org/2000/svg"]  # the SVG namespace only


def test_every_model_its_achieved_value_and_the_risk_before_and_after(adult_run):
    folder, result = adult_run
    report = result.report
    page = Page((folder / "report.html").read_text())
    models = page.rows("models")
    assert set(models) == {"k-anonymity", "distinct-l-diversity"}
    achieved = {m["model"]: m["achieved"] for m in report["privacy"]["models"]}
    assert achieved["k-anonymity"] >= 5 and achieved["distinct-l-diversity"] >= 3
    assert models["k-anonymity"] == ["k = 5", f"{achieved['k-anonymity']:g}"]
    assert models["distinct-l-diversity"] == ["attribute = occupation, l = 3", f"{achieved['distinct-l-diversity']:g}"]
    risk = page.rows("risk")
    before, after = report["risk"]["before"], report["risk"]["after"]
    assert risk["Records assessed"] == [f"{before['records']:,}", f"{after['records']:,}"]
    assert risk["Records suppressed (not released, not assessed)"] == ["0", f"{report['suppressed']:,}"]
    assert risk["Highest re-identification risk (1 / smallest group)"] == [
        f"{100 * before['highest_risk']:.2f} %",
        f"{100 * after['highest_risk']:.2f} %",
    ]
    sizes = page.rows("sizes")  # the histogram's numbers, as a table beside the picture
    assert list(sizes) == [h["sizes"] for h in before["histogram"]]
    assert sum(int(v[1].replace(",", "")) for v in sizes.values()) == report["rows"]
    assert sum(int(v[3].replace(",", "")) for v in sizes.values()) == report["rows"] - report["suppressed"]
    manifest = json.loads(page.pre["manifest"])
    assert manifest == report["manifest"]
    run_rows = page.rows("run")
    assert run_rows["version of sqlanon"] == [report["versions"]["sqlanon"]]


def test_each_quasi_identifiers_level_and_loss_recomputed_from_the_released_file(adult_run):
    """Iyengar's L_j of each QI, from the written output and the hierarchy files alone:
    (sum over kept rows of the hierarchy rows under the released value / |H| + suppressed
    rows - N/|H|) / (N - N/|H|)."""
    folder, result = adult_run
    report = result.report
    released = pq.read_table(folder / "out.parquet").to_pydict()
    rows = len(released[QIS[0]])
    kept = [i for i in range(rows) if released[QIS[0]][i] != "*"]
    suppressed = rows - len(kept)
    assert suppressed == report["suppressed"]
    with open(ADULT / "adult.csv", newline="") as handle:
        records = list(csv.DictReader(handle, delimiter=";"))
    inputs = {q: [row[q] for row in records] for q in QIS}
    table = Page((folder / "report.html").read_text()).rows("attributes")
    assert list(table) == QIS
    for figure in report["attributes"]:
        name, level = figure["name"], report["levels"][figure["name"]]
        with open(adult_hierarchy(name), newline="") as handle:
            hierarchy = list(csv.reader(handle, delimiter=";"))
        under = Counter(row[level] for row in hierarchy)
        size = len(hierarchy)
        raw = sum(under[released[name][i]] for i in kept) / size + suppressed
        expected = max(0.0, (raw - rows / size) / (rows - rows / size))
        assert figure["level"] == level and figure["height"] == len(hierarchy[0]) - 1
        assert figure["loss"] == pytest.approx(expected, abs=1e-9)
        to_level = {row[0]: row[level] for row in hierarchy}
        assert figure["distinct"] == len({to_level[v] for v in inputs[name]})  # in the input, before suppression
        assert table[name][0] == f"{level} of {figure['height']}"
        assert table[name][2] == f"{100 * expected:.2f} %"


def test_repr_is_one_line_and_the_notebook_display_is_the_summary(adult_run):
    _, result = adult_run
    line = repr(result)
    levels = ", ".join(f"{q}={l}" for q, l in result.levels.items())
    assert "\n" not in line and len(line) < 250
    assert line.startswith(f"Result(success=True, flash/entropy: {levels}; loss ")
    assert f"{result.suppressed:,} of 30,162 rows suppressed, {result.classes:,} classes, verified)" in line
    fragment = result._repr_html_()
    page = Page(fragment)
    assert {"models", "attributes", "risk"} <= set(page.tables)
    assert not any(tag in ("html", "body", "svg", "script") for tag, _ in page.elements)
    # its styles stay inside the fragment: every rule is under its class
    style = re.search(r"<style>(.*?)</style>", fragment).group(1)
    selectors = [s for rule in style.split("}") if rule for s in rule.split("{")[0].split(",")]
    assert selectors and all(s.startswith(".sqlanon-result ") for s in selectors)


def test_a_run_without_a_solution_writes_no_page_and_says_why_in_repr(tmp_path):
    job = write_job(tmp_path, extra="")
    text = job.read_text().replace("k = 2", "k = 13")  # 12 rows: no class can hold 13
    job.write_text(text)
    result = run("anonymize", job)
    assert result.exit_code == 1
    assert not (tmp_path / "report.html").exists() and not (tmp_path / "report.json").exists()
    failed = anonymize(load_job(str(job)))
    assert not failed.success and failed.details.risk.after is None
    page = html_report(failed.details)
    assert "Nothing released" in page and "k-anonymity" in page


# -- the guard and the option -----------------------------------------------------------------------


def test_output_html_names_the_page_or_turns_it_off(tmp_path):
    named = write_job(tmp_path / "named", extra='html = "pages/run.html"\n')
    (tmp_path / "named" / "pages").mkdir()
    result = run("anonymize", named)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "named" / "pages" / "run.html").read_text().startswith("<!DOCTYPE html>")
    assert not (tmp_path / "named" / "report.html").exists()
    assert f"wrote {tmp_path / 'named' / 'report.json'}, {tmp_path / 'named' / 'pages' / 'run.html'}" in result.stderr
    off = write_job(tmp_path / "off", extra="html = false\n")
    assert run("anonymize", off).exit_code == 0
    assert sorted(os.listdir(tmp_path / "off")) == [
        "age.csv",
        "data.csv",
        "job.toml",
        "out.csv",
        "report.json",
        "sex.csv",
    ]
    flag = write_job(tmp_path / "flag")
    assert run("anonymize", flag, "--no-html").exit_code == 0
    assert not (tmp_path / "flag" / "report.html").exists()
    assert run("anonymize", flag, "--html", tmp_path / "flag" / "x.html", "--overwrite").exit_code == 0
    assert (tmp_path / "flag" / "x.html").exists() and not (tmp_path / "flag" / "report.html").exists()


@pytest.mark.parametrize(
    "value, message",
    [
        ("3", "output.html must be true, false or a file path"),
        ('"data.csv"', "the HTML report {folder}/data.csv is the input file, which sqlanon never writes"),
        ('"report.json"', "the HTML report {folder}/report.json is also this run's report: give each its own path"),
        ('"age.csv"', "the HTML report {folder}/age.csv is the hierarchy of 'age', which sqlanon never writes"),
    ],
)
def test_the_page_goes_through_the_guard(tmp_path, value, message):
    folder = tmp_path / "work"
    job = write_job(folder, extra=f"html = {value}\n")
    before = snapshot(folder)
    result = run("anonymize", job)
    assert result.exit_code in (2, 3) and message.format(folder=folder) in result.stderr, result.output
    assert snapshot(folder) == before and "Traceback" not in result.output


def test_an_existing_page_is_replaced_only_with_overwrite(tmp_path):
    job = write_job(tmp_path)
    (tmp_path / "report.html").write_text("mine")
    result = run("anonymize", job)
    assert (
        result.exit_code == 3
        and f"the HTML report {tmp_path / 'report.html'} already exists: use --overwrite" in result.stderr
    )
    assert (tmp_path / "report.html").read_text() == "mine" and not (tmp_path / "out.csv").exists()
    assert run("anonymize", job, "--overwrite").exit_code == 0
    assert (tmp_path / "report.html").read_text().startswith("<!DOCTYPE html>")


# -- rendered by a real browser ---------------------------------------------------------------------


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed: .ci/run installs it (apt-get install chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def render(html: Path, folder: Path, *mode: str, width: int = 1000, height: int = 2600) -> subprocess.CompletedProcess:
    """Chromium, headless, offline, with a profile of its own (tests may run side by side)."""
    command = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={folder / 'profile'}",
        f"--window-size={width},{height}",
        *mode,
        html.as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=folder)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def screenshot(html: Path, png: Path, width: int = 1000, height: int = 2600) -> None:
    render(html, png.parent, f"--screenshot={png}", width=width, height=height)
    assert png.exists()


def boxes(html: Path, folder: Path) -> dict:
    """Where the browser laid out the page's parts: a copy of the page (the copy alone gets a
    script; the report itself has none and forbids any) writes each part's box into the DOM."""
    probe = folder / "probe.html"
    script = (
        "<script>const out={};for(const [k,s] of Object.entries({svg:'figure.histogram svg',"
        "models:'table.models',attributes:'table.attributes',risk:'table.risk'})){const r=document."
        "querySelector(s).getBoundingClientRect();out[k]=[r.left,r.top,r.right,r.bottom];}"
        "document.body.setAttribute('data-boxes',JSON.stringify(out));</script>"
    )
    text = html.read_text()
    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text).replace("</body>", script + "</body>")
    probe.write_text(text)
    dom = render(probe, folder, "--dump-dom").stdout
    found = re.search(r"data-boxes=\"([^\"]+)\"", dom)
    assert found, dom[:500]
    return json.loads(found.group(1).replace("&quot;", '"'))


@pytest.mark.browser
def test_chromium_renders_the_demo_report_with_its_histogram(tmp_path, monkeypatch):
    from PIL import Image

    folder = tmp_path
    monkeypatch.chdir(folder)  # the demo writes into ./demo
    assert run("demo").exit_code == 0
    html = folder / "demo" / "report.html"
    report = json.loads((folder / "demo" / "report.json").read_text())

    dom = render(html, folder, "--dump-dom").stdout  # the DOM as the browser built it
    bars = re.findall(r'<rect class="bar (before|after)"', dom)
    buckets = len(report["risk"]["before"]["histogram"])
    assert Counter(bars) == {"before": buckets, "after": buckets}
    assert dom.count("<svg") == 1 and '<table class="attributes">' in dom and '<pre class="manifest">' in dom

    box = boxes(html, folder)
    png = folder / "report.png"
    screenshot(html, png)
    image = Image.open(png).convert("RGB")
    assert image.size == (1000, 2600)
    assert len(image.getcolors(1 << 24)) > 50  # text, bars, lines: not a blank page

    def count(colour: str, region) -> int:
        rgb = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
        crop = image.crop(tuple(round(v) for v in region))
        return sum(n for n, c in crop.getcolors(1 << 24) if max(abs(a - b) for a, b in zip(c, rgb)) <= 6)

    svg = box["svg"]
    assert svg[3] < 2600, "the histogram lies below the screenshot"
    # both series' bars inside the figure's box; the released (blue) share tallest at 20-49 / 50-99
    assert count(AFTER, svg) > 2000 and count(BEFORE, svg) > 2000
    # the blue of the bars appears elsewhere only in the loss bars of the attribute table
    outside = count(AFTER, (0, 0, 1000, svg[1])) - count(AFTER, box["attributes"])
    assert outside == 0
    # the tall "before" bars (groups of 1: 39.7 % of the demo's records) stand left, the "after" ones right
    middle = (svg[0] + svg[2]) / 2
    assert count(BEFORE, (svg[0], svg[1], middle, svg[3])) > 3 * count(BEFORE, (middle, svg[1], svg[2], svg[3]))
    assert count(AFTER, (middle, svg[1], svg[2], svg[3])) > 3 * count(AFTER, (svg[0], svg[1], middle, svg[3]))


def test_sql_checks_without_the_figures_leave_the_loss_out_not_guessed(adult_available):
    """SQL checks over a class table prepared for discernibility have no per-value figures:
    the level is reported, the loss is None (a dash on the page)."""
    job = adult_job(QIS, k=5, suppression_limit=0.02, checks="sql", output=Output())
    result = anonymize(job)
    assert result.report["checks_placement"] == "sql"
    assert [(a["name"], a["level"], a["loss"]) for a in result.report["attributes"]] == [
        (q, result.levels[q], None) for q in QIS
    ]
    table = Page(html_report(result.details)).rows("attributes")
    assert [row[2] for row in table.values()] == ["–"] * len(QIS)
