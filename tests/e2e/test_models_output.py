"""End to end with privacy models: a TOML job, the written output re-checked by sqlanon's own
verification and by pycanon (an independent implementation, PyPI), and the report's values.

pycanon 1.3.x quirks handled here: it mixes index labels with positions, so it gets a frame
with a fresh default index; its entropy l is int(exp(H)) (three equiprobable values give 2);
its recursive (c, l) sorts the counts ascending, so only its l (= distinct l) is compared; and
its t-closeness and delta-disclosure take the distribution of the frame it is given, which is
the input's only when nothing is suppressed, so those are compared at s = 0.
"""

import json
import math

import pandas as pd
import pytest
from pycanon import anonymity

from helpers.jobs import ADULT, ADULT_QIS, adult_hierarchy
from sqlanon import anonymize, load_job

QIS = ["sex", "age", "race", "marital-status", "education"]
ORDER = [line.split(";")[0] for line in open(adult_hierarchy("occupation")).read().split()]


def write_job(tmp_path, limit, models: str) -> str:
    data = tmp_path / "adult.csv"
    with open(ADULT / "adult.csv", encoding="utf-8") as source:
        data.write_text("".join(line for _, line in zip(range(4001), source)))  # header + 4,000 rows
    attributes = "".join(
        f'[attributes."{q}"]\nrole = "quasi"\nhierarchy = "{adult_hierarchy(q)}"\n' for q in QIS
    ) + "".join(f'[attributes."{c}"]\nrole = "insensitive"\n' for c in ADULT_QIS if c not in QIS + ["occupation"])
    text = f"""[input]
path = "adult.csv"
delimiter = ";"
{attributes}
[attributes.occupation]
role = "sensitive"

[privacy]
k = 3
suppression_limit = {limit}
{models}
[search]
algorithm = "flash"
metric = "loss"

[output]
path = "out.csv"
report = "report.json"
"""
    path = tmp_path / "job.toml"
    path.write_text(text)
    return str(path)


L_MODELS = """
[[privacy.models]]
type = "distinct-l-diversity"
attribute = "occupation"
l = 3
[[privacy.models]]
type = "entropy-l-diversity"
attribute = "occupation"
l = 2.5
[[privacy.models]]
type = "recursive-cl-diversity"
attribute = "occupation"
c = 4
l = 2
"""
T_MODELS = f"""
[[privacy.models]]
type = "t-closeness"
attribute = "occupation"
t = 0.3
[[privacy.models]]
type = "t-closeness"
attribute = "occupation"
distance = "ordered"
order = {json.dumps(ORDER)}
t = 0.25
[[privacy.models]]
type = "delta-disclosure"
attribute = "occupation"
delta = 2.5
"""


def released(tmp_path, suppressed: int) -> pd.DataFrame:
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    if suppressed:
        out = out[~(out[QIS] == "*").all(axis=1)]
    return out.reset_index(drop=True)  # pycanon needs a fresh default index


def achieved(report, model, **match):
    return next(
        m["achieved"]
        for m in report["privacy"]["models"]
        if m["model"] == model and all(m.get(k) == v for k, v in match.items())
    )


@pytest.mark.slow
@pytest.mark.parametrize("limit", [0.0, 0.1])
def test_l_diversity_output_confirmed_by_pycanon(tmp_path, adult_available, limit):
    result = anonymize(load_job(write_job(tmp_path, limit, L_MODELS)))
    report = json.loads((tmp_path / "report.json").read_text())
    assert result.success and report["verified"]
    assert report["privacy"]["monotonic"] is (limit == 0)
    df = released(tmp_path, result.suppressed)
    k = anonymity.k_anonymity(df, QIS)
    assert k >= 3 and k == achieved(report, "k-anonymity")
    distinct = anonymity.l_diversity(df, QIS, ["occupation"])
    assert distinct >= 3 and distinct == achieved(report, "distinct-l-diversity")
    entropy_l = achieved(report, "entropy-l-diversity")  # min exp(H) over released classes
    assert entropy_l >= 2.5
    assert anonymity.entropy_l_diversity(df, QIS, ["occupation"]) in {
        math.floor(entropy_l),
        math.floor(entropy_l + 1e-9) - 1,
    }
    _, recursive_l = anonymity.recursive_c_l_diversity(df, QIS, ["occupation"])
    assert recursive_l == distinct
    assert achieved(report, "recursive-cl-diversity") < 4  # r1 / (r2 + ... + rm) in the worst class


def test_t_closeness_and_delta_disclosure_confirmed_by_pycanon(tmp_path, adult_available):
    result = anonymize(load_job(write_job(tmp_path, 0.0, T_MODELS)))
    report = json.loads((tmp_path / "report.json").read_text())
    assert result.success and report["verified"] and result.suppressed == 0
    df = released(tmp_path, 0)
    t_equal = anonymity.t_closeness(df, QIS, ["occupation"])  # strings: equal ground distance
    assert t_equal <= 0.3 + 1e-9 and t_equal == pytest.approx(
        achieved(report, "t-closeness", distance="equal"), abs=1e-9
    )
    ranked = df.assign(occupation=df["occupation"].map(ORDER.index))  # numbers: ordered distance
    t_ordered = anonymity.t_closeness(ranked, QIS, ["occupation"])
    assert t_ordered <= 0.25 + 1e-9 and t_ordered == pytest.approx(
        achieved(report, "t-closeness", distance="ordered"), abs=1e-9
    )
    delta = anonymity.delta_disclosure(df, QIS, ["occupation"])
    assert delta < 2.5 and delta == pytest.approx(achieved(report, "delta-disclosure"), abs=1e-9)


def test_report_names_every_model_and_the_search_without_tags(tmp_path, adult_available):
    models = L_MODELS + '[[privacy.models]]\ntype = "average-risk"\nthreshold = 0.2\n'
    result = anonymize(load_job(write_job(tmp_path, 0.1, models)))
    report = result.report
    assert [m["model"] for m in report["privacy"]["models"]] == [
        "k-anonymity",
        "distinct-l-diversity",
        "entropy-l-diversity",
        "recursive-cl-diversity",
        "average-risk",
    ]
    risk = achieved(report, "average-risk")
    df = released(tmp_path, result.suppressed)
    assert risk == pytest.approx(df.groupby(QIS).ngroups / len(df)) and risk <= 0.2
    assert report["tagged"] == 0  # not monotonic with suppression: no predictive tags
    assert report["manifest"]["models"][1] == {"model": "distinct-l-diversity", "attribute": "occupation", "l": 3}
