"""A seven-row table whose privacy-model figures are computed by hand (values in the
comments): tests/unit/test_models.py checks them in SQL and in Python, the engine suite on every engine."""

from __future__ import annotations

import math

from helpers.jobs import table_job

# Two classes at level 0 (zip a: d = x, y, y; zip b: d = x, x, z, z), one at level 1.
# Input distribution q = (x 3/7, y 2/7, z 2/7).
ROWS = {"zip": list("abbaabb"), "d": ["x", "x", "x", "y", "y", "z", "z"]}
# rows: a:x, b:x, b:x, a:y, a:y, b:z, b:z
HIERARCHIES = {"zip": [["a", "*"], ["b", "*"]]}
TREE = [["x", "AB", "*"], ["y", "AB", "*"], ["z", "C", "*"]]

# Per class (a, b), from the definitions:
HAND = {
    # 2 and 2 distinct values
    "distinct-l-diversity": (2, 2),
    # exp(H): a (1/3, 2/3) -> exp(0.636514) = 1.889882; b (1/2, 1/2) -> 2
    "entropy-l-diversity": (math.exp(-(1 / 3 * math.log(1 / 3) + 2 / 3 * math.log(2 / 3))), 2.0),
    # r1 / (r_2 + ...) with l = 2: a 2/1, b 2/2
    "recursive-cl-diversity": (2.0, 1.0),
    # 0.5 sum |p - q|: a (2 + 8 + 6)/42 = 8/21; b (1 + 4 + 3)/28 = 2/7
    ("t-closeness", "equal"): (8 / 21, 2 / 7),
    # cumulative differences x<y<z: a (-2/21, 6/21, 0) -> 8/21 / 2; b (1/14, -3/14, 0) -> 4/14 / 2
    ("t-closeness", "ordered"): (4 / 21, 1 / 7),
    # level 1 (weight 1/2): AB min(8/21, 2/21) = 2/21, C 0; level 2 (weight 1): min(6/21, 6/21)
    #   a: 1/21 + 6/21 = 1/3;   b: AB min(1/14, 4/14) / 2 = 1/28, top 3/14 -> 1/4
    ("t-closeness", "hierarchical"): (1 / 3, 1 / 4),
    # max |ln(p / q)| over present values: a max(ln 9/7, ln 7/3); b max(ln 7/6, ln 7/4)
    "delta-disclosure": (math.log(7 / 3), math.log(7 / 4)),
    # largest (p - q) / q: a max(-2/9 for x, 4/3 for y); b max(1/6 for x, 3/4 for z)
    ("beta-likeness", "basic"): (4 / 3, 3 / 4),
    # largest gain above min(beta = 1, -ln q) (x: ln 7/3 = 0.847, y and z: 1): a 4/3 - 1; b 3/4 - 1
    ("beta-likeness", "enhanced"): (1 / 3, -1 / 4),
}

SPECS = {
    "distinct-l-diversity": {"l": 2},
    "entropy-l-diversity": {"l": 2},
    "recursive-cl-diversity": {"c": 1.5, "l": 2},
    ("t-closeness", "equal"): {"t": 0.3},
    ("t-closeness", "ordered"): {"t": 0.15, "distance": "ordered", "order": ["x", "y", "z"]},
    ("t-closeness", "hierarchical"): {"t": 0.3, "distance": "hierarchical"},
    "delta-disclosure": {"delta": 0.8},
    ("beta-likeness", "basic"): {"beta": 1.0},
    ("beta-likeness", "enhanced"): {"beta": 1.0, "enhanced": True},
}
FIGURE = {
    "distinct-l-diversity": "distinct",
    "entropy-l-diversity": "entropy",
    "recursive-cl-diversity": "top",
    "t-closeness": "t",
    "delta-disclosure": "delta",
}


def spec_of(name, tmp_path):
    kind = name if isinstance(name, str) else name[0]
    spec = {"type": kind, "attribute": "d", **SPECS[name]}
    if spec.get("distance") == "hierarchical":
        path = tmp_path / "d.csv"
        path.write_text("\n".join(";".join(r) for r in TREE) + "\n")
        spec["hierarchy"] = str(path)
    return spec


def tiny_job(models, **kwargs):
    return table_job(ROWS, HIERARCHIES, roles={"d": "sensitive"}, models=tuple(models), **kwargs)


def sql_value(kind, row, key="m1"):
    if kind == "entropy-l-diversity":
        return math.exp(row[f"{key}_entropy"])
    if kind == "recursive-cl-diversity":
        return row[f"{key}_top"] / row[f"{key}_tail"]
    if kind == "beta-likeness":  # basic: the largest gain; enhanced: the largest excess over its bound
        return row[f"{key}_gain"] if f"{key}_gain" in row else row[f"{key}_excess"]
    return row[f"{key}_{FIGURE[kind]}"]


EXPECTED_KEPT = {
    "distinct-l-diversity": [True, True],
    "entropy-l-diversity": [False, True],  # 1.89 < 2 <= 2
    "recursive-cl-diversity": [False, True],  # 2 >= 1.5, 1 < 1.5
    ("t-closeness", "equal"): [False, True],  # 0.381 > 0.3 >= 0.286
    ("t-closeness", "ordered"): [False, True],  # 0.190 > 0.15 >= 0.143
    ("t-closeness", "hierarchical"): [False, True],  # 0.333 > 0.3 >= 0.25
    "delta-disclosure": [False, True],  # 0.847 >= 0.8 > 0.560
    ("beta-likeness", "basic"): [False, True],  # 4/3 > 1 >= 3/4
    ("beta-likeness", "enhanced"): [False, True],  # 1/3 > 0 >= -1/4
}
