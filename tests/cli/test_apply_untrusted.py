"""The manifest is input, and input is untrusted.

``apply`` holds the release to the job's own [privacy] and [output] suppressed, whatever the
manifest says: a manifest whose models, limit or suppressed mode differ is refused (exit 2,
both values named), levels that fail the job's models no longer hold (exit 1), and every field
of a manifest file or dict is checked (exit 2, one line naming the manifest, the key and the
value). In each refused case nothing is written: the output and the report are absent, and
every file already there (an existing target given with --overwrite too) is byte for byte as
it was. The verification itself refuses to judge by models other than the job's.
"""

from __future__ import annotations

import copy
import csv
import json
import os
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pytest

import sqlanon
from helpers.jobs import ADULT, adult_hierarchy
from helpers.targets import run, snapshot, write_job
from sqlanon.anonymizer import apply
from sqlanon.config.read import load_job
from sqlanon.config.validate import validated
from sqlanon.criteria import build_models
from sqlanon.errors import ConfigError, VerificationError
from sqlanon.release.pipeline import Promise, check_promise
from sqlanon.core import files

ADULT_INSENSITIVE = ["marital-status", "education", "native-country", "workclass", "occupation", "salary-class"]


def adult_job_file(folder: Path) -> Path:
    """ADULT with age, sex and race as QIs, k = 50 within 2 % suppression."""
    lines = ["[input]", f'path = "{ADULT / "adult.csv"}"', 'delimiter = ";"']
    for q in ("age", "sex", "race"):
        lines += [f"[attributes.{q}]", 'role = "quasi"', f'hierarchy = "{adult_hierarchy(q)}"']
    for name in ADULT_INSENSITIVE:
        lines += [f'[attributes."{name}"]', 'role = "insensitive"']
    lines += [
        "[privacy]",
        "k = 50",
        "suppression_limit = 0.02",
        "[output]",
        'path = "out.csv"',
        'report = "report.json"',
    ]
    job = folder / "job.toml"
    job.write_text("\n".join(lines) + "\n")
    return job


@pytest.fixture(scope="module")
def adult(tmp_path_factory, adult_available):
    """The ADULT job anonymized once: (job file, its report.json as a dict)."""
    folder = tmp_path_factory.mktemp("adult")
    job = adult_job_file(folder)
    result = run("anonymize", job, "-q")
    assert result.exit_code == 0, result.output
    report = json.loads((folder / "report.json").read_text())
    assert report["manifest"]["levels"] == {"age": 0, "sex": 1, "race": 1}
    assert report["manifest"]["models"] == [{"model": "k-anonymity", "k": 50}]
    return job, report


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The 12-row table of helpers/targets.py (age, sex; k = 2), anonymized once."""
    folder = tmp_path_factory.mktemp("small")
    job = write_job(folder)
    result = run("anonymize", job, "-q")
    assert result.exit_code == 0, result.output
    return job, json.loads((folder / "report.json").read_text())


def edited(report: dict, change) -> dict:
    """A copy of ``report`` with ``change(manifest)`` applied to its manifest."""
    document = copy.deepcopy(report)
    change(document["manifest"])
    return document


def refused(job: Path, manifest, tmp_path: Path, code: int, message: str, existing: bool = False):
    """Run apply with ``manifest`` (a document, written to a file, or a path); assert the exit
    code, the message on one line of stderr, no traceback, and that nothing was written: no
    output, no report, every file of the job's folder and of ``tmp_path`` unchanged (with
    ``existing``, a target already there, given with --overwrite)."""
    if not isinstance(manifest, (str, Path)):
        path = tmp_path / "manifest.json"
        path.write_text(json.dumps(manifest, indent=2))
        manifest = path
    output, report = tmp_path / "released.csv", tmp_path / "released.json"
    if existing:
        output.write_text("my own file\n")
    before = snapshot(job.parent), snapshot(tmp_path)
    flags = ["--overwrite"] if existing else []
    result = run("apply", job, "--manifest", manifest, "--output", output, "--report", report, *flags)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    if code == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert message in result.stderr, result.stderr
    assert (snapshot(job.parent), snapshot(tmp_path)) == before
    assert existing == output.exists() and not report.exists()
    return result.stderr


# -- the job's [privacy] holds, not the manifest's ---------------------------------------------
@pytest.mark.parametrize("existing", [False, True], ids=["new target", "existing target"])
def test_an_edited_manifest_k_1_every_level_0_is_refused(adult, tmp_path, existing):
    job, report = adult

    def raw(manifest):
        manifest["models"][0]["k"] = 1
        manifest["levels"] = {"age": 0, "sex": 0, "race": 0}

    message = refused(
        job,
        edited(report, raw),
        tmp_path,
        2,
        "the manifest's k = 1 differs from the job's k = 50: apply holds the release to the job's own settings",
        existing,
    )
    assert f"manifest {tmp_path / 'manifest.json'}: " in message


def test_a_manifest_saying_k_5_under_a_job_saying_k_50_is_refused(adult, tmp_path):
    job, report = adult
    refused(
        job,
        edited(report, lambda m: m["models"][0].update(k=5)),
        tmp_path,
        2,
        "the manifest's k = 5 differs from the job's k = 50",
    )


@pytest.mark.parametrize(
    "key, value, message",
    [
        (
            "suppression_limit",
            0.5,
            "the manifest's suppression_limit = 0.5 differs from the job's suppression_limit = 0.02",
        ),
        (
            "suppressed",
            "drop",
            'the manifest\'s suppressed = "drop" differs from the job\'s output.suppressed = "mask"',
        ),
        (
            "models",
            [{"model": "k-anonymity", "k": 50}, {"model": "distinct-l-diversity", "attribute": "occupation", "l": 2}],
            'the manifest\'s models ["k-anonymity", "distinct-l-diversity"] differ from the job\'s ["k-anonymity"]',
        ),
        ("models", [{"model": "k-anonymity", "k": "abc"}], "the manifest's k = \"abc\" differs from the job's k = 50"),
        ("models", [{"model": "k-anonymity", "k": True}], "the manifest's k = true differs from the job's k = 50"),
    ],
)
def test_a_manifest_whose_privacy_differs_from_the_jobs_is_refused(adult, tmp_path, key, value, message):
    job, report = adult
    refused(job, edited(report, lambda m: m.update({key: value})), tmp_path, 2, message)


def test_levels_that_fail_the_jobs_models_no_longer_hold(adult, tmp_path):
    """The manifest's own settings match the job's; its edited levels (every QI at 0) leave
    4,670 of ADULT's rows in classes under 50, where the job allows 603 (floor(0.02 * 30162))."""
    job, report = adult
    refused(
        job,
        edited(report, lambda m: m.update(levels={"age": 0, "sex": 0, "race": 0})),
        tmp_path,
        1,
        "Not applied: the saved transformation no longer satisfies k=50 on this data: 4670 rows would be "
        "suppressed, the limit is 603.",
        existing=True,
    )


def test_the_saved_manifest_applies_and_the_file_holds_the_jobs_k(adult, tmp_path):
    job, report = adult
    output = tmp_path / "released.csv"
    result = run("apply", job, "--manifest", job.parent / "report.json", "--output", output, "--json")
    assert result.exit_code == 0, result.output
    applied = json.loads(result.stdout)
    assert applied["verified"] and applied["transformation"] == [0, 1, 1] and applied["suppressed"] == 330
    assert applied["verification"]["models"] == [{"model": "k-anonymity", "k": 50, "achieved": 54}]
    with open(output, newline="") as handle:
        rows = [(r["age"], r["sex"], r["race"]) for r in csv.DictReader(handle)]
    sizes = Counter(row for row in rows if row != ("*", "*", "*"))
    assert len(rows) == 30162 and rows.count(("*", "*", "*")) == 330 and min(sizes.values()) == 54


def test_a_model_setting_that_differs_is_named(tmp_path):
    extra = '[[privacy.models]]\ntype = "distinct-l-diversity"\nattribute = "diagnosis"\nl = 2\n'
    job = write_job(tmp_path / "job", extra=extra)
    assert run("anonymize", job, "-q").exit_code == 0
    report = json.loads((job.parent / "report.json").read_text())
    refused(
        job,
        edited(report, lambda m: m["models"][1].update(l=1)),
        tmp_path,
        2,
        "the manifest's distinct-l-diversity l = 1 differs from the job's l = 2",
    )
    refused(
        job,
        edited(report, lambda m: m["models"][1].pop("attribute")),
        tmp_path,
        2,
        "the manifest's distinct-l-diversity attribute = (not given) differs from the job's attribute = \"diagnosis\"",
    )


# -- every field of the manifest checked --------------------------------------------------------
LONG = "x" * 500
FIELD_CASES = {
    "levels not an object": (
        lambda m: m.update(levels="abc"),
        'manifest.levels = "abc": not an object with an entry per quasi-identifier',
    ),
    "level a string": (
        lambda m: m["levels"].update(age="abc"),
        'manifest.levels.age = "abc": not a level of a hierarchy',
    ),
    "level negative": (lambda m: m["levels"].update(age=-1), "manifest.levels.age = -1: not a level of a hierarchy"),
    "level not an int": (
        lambda m: m["levels"].update(age=1.5),
        "manifest.levels.age = 1.5: not a level of a hierarchy",
    ),
    "level a boolean": (
        lambda m: m["levels"].update(sex=True),
        "manifest.levels.sex = true: not a level of a hierarchy",
    ),
    "level above the top": (
        lambda m: m["levels"].update(age=3),
        "manifest.levels.age = 3: above the top level 2 of the hierarchy of 'age'",
    ),
    "level of 40 digits": (
        lambda m: m["levels"].update(age=10**40),
        f"manifest.levels.age = {10**40}: above the top level 2",
    ),
    "level missing": (lambda m: m["levels"].pop("sex"), "the manifest has no manifest.levels.sex"),
    "level of another column": (
        lambda m: m["levels"].update(zip=0),
        'manifest.levels.zip = 0: not a quasi-identifier of the manifest (["age", "sex"])',
    ),
    "a key missing": (lambda m: m.pop("models"), "the manifest has no manifest.models"),
    "an unknown key": (lambda m: m.update(note=1), "unknown key manifest.note in the manifest"),
    "other QIs": (
        lambda m: m.update(quasi_identifiers=["sex", "age"]),
        'the manifest\'s quasi-identifiers ["sex", "age"] differ from the job\'s ["age", "sex"]',
    ),
    "a QI twice": (lambda m: m.update(quasi_identifiers=["age", "age"]), 'names "age" twice'),
    "QIs not a list": (lambda m: m.update(quasi_identifiers="age"), 'manifest.quasi_identifiers = "age": not a list'),
    "another version": (
        lambda m: m.update(version=2),
        "manifest.version = 2: this sqlanon reads manifests of version 1",
    ),
    "a malformed checksum": (
        lambda m: m["hierarchies"].update(age="md5:abc"),
        'manifest.hierarchies.age = "md5:abc": not a hierarchy checksum',
    ),
    "models not a list": (lambda m: m.update(models={"k": 2}), 'manifest.models = {"k": 2}: not a list of models'),
    "a model without a name": (
        lambda m: m["models"].__setitem__(0, {"k": 2}),
        'manifest.models[0] = {"k": 2}: not a model',
    ),
    "a limit as text": (
        lambda m: m.update(suppression_limit="0"),
        'manifest.suppression_limit = "0": not a number in [0, 1]',
    ),
    "a long value": (
        lambda m: m.update(suppressed=LONG),
        f'manifest.suppressed = "{"x" * 79}… (502 characters): not one of mask, drop',
    ),
    "a long key": (lambda m: m["levels"].update({LONG: 0}), f'manifest.levels."{"x" * 79}… (502 characters) = 0'),
}


@pytest.mark.parametrize("case", FIELD_CASES)
def test_every_field_of_the_manifest_is_checked(small, tmp_path, case):
    job, report = small
    change, message = FIELD_CASES[case]
    text = refused(job, edited(report, change), tmp_path, 2, message)
    assert len(text) < 600  # values are cut: a long one never makes a long message


FILE_CASES = {
    "a list": (b"[1, 2, 3]", "it is a list ([1, 2, 3]), not a manifest (a JSON object"),
    "a string": (b'"levels"', 'it is a string ("levels"), not a manifest'),
    "a manifest that is a list": (b'{"manifest": [1]}', "its manifest is a list ([1]), not a manifest"),
    "a report without a manifest": (b'{"success": false}', 'holds no manifest (no "manifest" key)'),
    "invalid JSON": (
        b'{"manifest": {"version": 1,\n  "levels": [1, 2,, 3]}}\n',
        "is not JSON: Expecting value at line 2, column 19",
    ),
    "empty": (b"", "is not JSON: Expecting value at line 1, column 1"),
    "not UTF-8": (b'{"manifest":\n {"v\xff": 1}}', "is not UTF-8 text (byte 0xff at line 2, column 5 is not UTF-8)"),
    "not UTF-8 after a BOM": (
        b'\xef\xbb\xbf{"manifest":\n {"v\xff": 1}}',
        "is not UTF-8 text (byte 0xff at line 2, column 5 is not UTF-8)",
    ),
    "a BOM, then a list": (b"\xef\xbb\xbf[1]", "it is a list ([1]), not a manifest"),
    "a key twice": (b'{"manifest": {"version": 1, "version": 1}}', 'the key "version" is given twice in one object'),
    "nested too deeply": (b"[" * 100_000 + b"]" * 100_000, "nests lists or objects thousands of levels deep"),
    "a number of 5,000 digits": (
        b'{"manifest": {"version": ' + b"9" * 5000 + b"}}",
        "holds a number of thousands of digits",
    ),
}


@pytest.mark.parametrize("case", FILE_CASES)
def test_a_manifest_file_that_is_not_a_manifest_is_refused(small, tmp_path, case):
    job, _ = small
    data, message = FILE_CASES[case]
    path = tmp_path / "manifest.json"
    path.write_bytes(data)
    assert f"manifest {path}" in refused(job, path, tmp_path, 2, message)


def test_a_huge_manifest_is_refused_without_reading_it_all(small, tmp_path):
    job, _ = small
    path = tmp_path / "huge.json"
    with open(path, "wb") as handle:
        handle.truncate(files.MANIFEST_LIMIT + 1)  # sparse: no disk spent
    refused(
        job,
        path,
        tmp_path,
        2,
        f"manifest {path} is too large: {files.MANIFEST_LIMIT + 1:,} bytes, more than the 64 MiB",
    )


def test_a_fifo_a_device_a_folder_and_a_missing_file_are_refused(small, tmp_path):
    job, _ = small
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # opened without waiting for a writer
    refused(job, fifo, tmp_path, 2, f"manifest is not a regular file: {fifo} is a named pipe (FIFO)")
    refused(job, "/dev/zero", tmp_path, 2, "manifest is not a regular file: /dev/zero is a character device")
    refused(job, tmp_path / "none.json", tmp_path, 2, f"cannot read manifest {tmp_path / 'none.json'}: no such file")
    assert "is a directory" in run("apply", job, "--manifest", tmp_path).stderr  # the flag's own check


# -- the API: a manifest dict is checked the same way ----------------------------------------------
SMALL = {"age": ["31", "32", "33", "34"] * 2, "city": ["A", "B"] * 4}
AGE_ROWS = [["31", "30-34", "*"], ["32", "30-34", "*"], ["33", "30-34", "*"], ["34", "30-34", "*"]]


def test_anonymizer_transform_checks_its_manifest():
    anonymizer = sqlanon.Anonymizer(quasi={"age": AGE_ROWS}, k=2, insensitive=["city"]).fit(pa.table(SMALL))
    manifest = anonymizer.manifest_
    saved = copy.deepcopy(manifest)
    manifest["levels"]["age"] = "abc"
    with pytest.raises(ConfigError, match=r'^the manifest \(given in code\): levels.age = "abc": not a level'):
        anonymizer.transform(pa.table(SMALL))
    manifest.update(copy.deepcopy(saved), models=[{"model": "k-anonymity", "k": 1}])
    with pytest.raises(ConfigError, match="the manifest's k = 1 differs from the job's k = 2"):
        anonymizer.transform(pa.table(SMALL))
    manifest.update(copy.deepcopy(saved))
    assert sorted(anonymizer.transform(pa.table(SMALL)).column("age").to_pylist()) == sorted(
        ["31", "32", "33", "34"] * 2
    )


@pytest.mark.parametrize(
    "manifest, message",
    [
        ([1], r"^the manifest \(given in code\): it is a list \(\[1\]\), not a manifest"),
        (None, r"^the manifest \(given in code\): it is null, not a manifest"),
        ({"version": 1}, r"the manifest has no quasi_identifiers"),
    ],
)
def test_apply_refuses_a_manifest_dict_that_is_not_one(small, manifest, message):
    job, _ = small
    with pytest.raises(ConfigError, match=message):
        apply(load_job(job), manifest)


def test_a_manifest_dict_with_a_key_that_is_not_text(small):
    job, report = small
    manifest = copy.deepcopy(report["manifest"])
    manifest["levels"][7] = 1
    with pytest.raises(ConfigError, match=r"^the manifest \(given in code\): levels.7 = 1: not a quasi-identifier"):
        apply(load_job(job), manifest)


# -- the verification judges by the job's models ------------------------------------------------
def test_the_verification_refuses_a_promise_other_than_the_jobs(small):
    """Whoever builds the promise (a search, apply), the models and limit are the job's."""
    job = validated(load_job(small[0]))
    diversity = {"type": "distinct-l-diversity", "attribute": "diagnosis", "l": 2}
    job_l = validated(replace(load_job(small[0]), models=(diversity,)))
    check_promise(
        job, 12, Promise(0, 0, build_models([{"type": "k-anonymity", "k": 2}]))
    )  # the job's own: k = 2, no suppression
    with pytest.raises(
        VerificationError,
        match=r"verified against the models \[\] with at most 0 suppressed rows, "
        r'but the job asks \[\{"model": "distinct-l-diversity"',
    ):
        check_promise(job_l, 12, Promise(0, 0, build_models([{"type": "k-anonymity", "k": 2}])))
    with pytest.raises(VerificationError, match="with at most 6 suppressed rows, but the job asks .* with at most 0"):
        check_promise(job, 12, Promise(0, 6, build_models([{"type": "k-anonymity", "k": 2}])))


def test_an_interval_search_does_not_release_a_model_it_did_not_check(tmp_path):
    """k-optimize checks k only: with a distinct-l-diversity model the job asks for (which its
    output, age as it is, fails: the classes 31 and 32 hold one diagnosis each), the job is
    refused before any work, instead of a release verified for k alone."""
    table = pa.table({"age": ["31", "32", "33", "34"] * 2, "diagnosis": ["a"] * 6 + ["b"] * 2})
    output = tmp_path / "out" / "released.csv"
    output.parent.mkdir()
    with pytest.raises(
        ConfigError, match="k-optimize checks k-anonymity only, and the job also asks for distinct-l-diversity"
    ):
        sqlanon.anonymize(
            table,
            quasi={"age": AGE_ROWS},
            k=2,
            algorithm="k-optimize",
            output=str(output),
            models=[{"type": "distinct-l-diversity", "attribute": "diagnosis", "l": 2}],
        )
    assert list(output.parent.iterdir()) == []
