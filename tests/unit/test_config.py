"""The job file: the documented shape, overrides, and clear errors."""

import textwrap

import pytest

from helpers.jobs import ADULT, ROOT
from sqlanon import load_job, anonymize
from sqlanon.errors import ConfigError
from sqlanon.config.validate import validate

ADULT_TOML = textwrap.dedent(f"""
    [input]
    path = "{ADULT / "adult.csv"}"
    delimiter = ";"
    [attributes.age]
    role = "quasi"
    hierarchy = "{ADULT / "adult_hierarchy_age.csv"}"
    [attributes.sex]
    role = "quasi"
    hierarchy = "{ADULT / "adult_hierarchy_sex.csv"}"
    [attributes.occupation]
    role = "sensitive"
    [attributes."marital-status"]
    role = "insensitive"
    [input_drop_placeholder]
""")


def job_file(tmp_path, text):
    path = tmp_path / "job.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_issue_example_shape_relative_to_config_file(tmp_path):
    # The exact shape from the issue, with a config file in the project root.
    text = (ROOT / "tests" / "adult_example.toml").read_text()
    path = ROOT / ".job-under-test.toml"
    path.write_text(text)
    try:
        job = load_job(path, output=str(tmp_path / "out.parquet"), report=str(tmp_path / "report.json"))
    finally:
        path.unlink()
    assert job.input.path == str(ROOT / "../shared/data/adult/adult.csv")
    assert [a.name for a in job.quasi_identifiers][:2] == ["age", "sex"]
    assert job.k == 5 and job.suppression_limit == 0.02 and job.metric == "discernibility"
    result = anonymize(job)
    assert result.success and result.report["verified"]
    assert result.report["levels"] == dict(zip([a.name for a in job.quasi_identifiers], result.transformation))


def test_overrides_win_over_file(tmp_path):
    path = job_file(tmp_path, ADULT_TOML.replace("[input_drop_placeholder]\n", "[privacy]\nk = 3\n"))
    job = load_job(path, k=7, metric="loss", suppression_limit=0.1)
    assert (job.k, job.metric, job.suppression_limit) == (7, "loss", 0.1)


@pytest.mark.parametrize(
    "extra, message",
    [
        ("[privacy]\nk = 0\n", r"'k' parameter must be an int >= 1, got 0"),
        ("[privacy]\nsuppression_limit = 1.5\n", r"suppression_limit' parameter must be a number in \[0, 1\], got 1.5"),
        ('[search]\nmetric = "nope"\n', r"unknown metric 'nope'; valid metrics: discernibility, discernibility-star"),
        ('[search]\nalgorithm = "nope"\n', r"unknown algorithm 'nope'; valid algorithms: flash, exhaustive"),
        ("[privacy]\nkk = 3\n", r"unknown key\(s\) \['kk'\] in \[privacy\]"),
        ("[bogus]\n", r"unknown section\(s\) \['bogus'\]"),
    ],
)
def test_bad_values_are_named(tmp_path, extra, message):
    path = job_file(tmp_path, ADULT_TOML.replace("[input_drop_placeholder]\n", extra))
    with pytest.raises(ConfigError, match=message):
        anonymize(load_job(path))


def test_every_column_needs_a_role(tmp_path):
    path = job_file(tmp_path, ADULT_TOML.replace("[input_drop_placeholder]\n", ""))
    with pytest.raises(
        ConfigError, match=r"\['race', 'education', 'native-country', 'workclass', 'salary-class'\] of .* have no role"
    ):
        anonymize(load_job(path))


def test_dropped_columns_satisfy_roles(tmp_path):
    text = ADULT_TOML.replace("[input_drop_placeholder]\n", "").replace(
        'delimiter = ";"',
        'delimiter = ";"\ndrop = ["race", "education", "native-country", "workclass", "salary-class"]',
    )
    job = load_job(job_file(tmp_path, text), k=5)
    assert anonymize(job).success


def test_malformed_toml_names_line_and_column(tmp_path):
    path = job_file(tmp_path, "[input]\npath = \n")
    with pytest.raises(ConfigError, match=r"invalid TOML: .*line 2, column 8"):
        load_job(path)


def test_unknown_column_lists_the_real_ones(tmp_path):
    path = job_file(
        tmp_path, ADULT_TOML.replace("[input_drop_placeholder]\n", '[attributes.agee]\nrole = "insensitive"\n')
    )
    with pytest.raises(ConfigError, match=r"\['agee'\] named in the job are not in the input .*'sex', 'age'"):
        anonymize(load_job(path))


def test_stable_option_reaches_ola(tmp_path):
    path = job_file(
        tmp_path, ADULT_TOML.replace("[input_drop_placeholder]\n", '[search]\nalgorithm = "ola"\nstable = true\n')
    )
    job = load_job(path)
    assert job.algorithm == "ola" and validate(job).options.stable is True
    bad = job_file(
        tmp_path, ADULT_TOML.replace("[input_drop_placeholder]\n", '[search]\nalgorithm = "ola"\nstable = "yes"\n')
    )
    with pytest.raises(ConfigError, match="search.stable must be true or false"):
        anonymize(load_job(bad))
    # an option of another algorithm is refused by name, with the algorithms it applies to
    other = job_file(tmp_path, ADULT_TOML.replace("[input_drop_placeholder]\n", "[search]\nstable = true\n"))
    with pytest.raises(
        ConfigError, match=r"search.stable does not apply to the algorithm 'flash' .*; it applies to: ola"
    ):
        anonymize(load_job(other))


def test_privacy_models_list(tmp_path):
    ok = job_file(
        tmp_path, ADULT_TOML.replace("[input_drop_placeholder]\n", '[[privacy.models]]\ntype = "k-anonymity"\nk = 4\n')
    )
    assert load_job(ok).k == 4
    unknown = job_file(
        tmp_path, ADULT_TOML.replace("[input_drop_placeholder]\n", '[[privacy.models]]\ntype = "l-diversity"\nl = 2\n')
    )
    with pytest.raises(ConfigError, match="unknown privacy model 'l-diversity'; valid models: k-anonymity"):
        load_job(unknown)
    twice = job_file(
        tmp_path,
        ADULT_TOML.replace(
            "[input_drop_placeholder]\n", '[privacy]\nk = 3\n[[privacy.models]]\ntype = "k-anonymity"\nk = 4\n'
        ),
    )
    with pytest.raises(ConfigError, match="k is given twice"):
        load_job(twice)
