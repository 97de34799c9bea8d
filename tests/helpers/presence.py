"""The delta-presence cases more than one test file uses: a 12-person population with a
5-person research subset computed by hand, and ADULT as a population (its research subset is
conftest's ``adult_population`` fixture, in the column ``SUBSET``)."""

from __future__ import annotations

from dataclasses import replace
from helpers.jobs import ADULT_QIS, adult_hierarchy, table_job
from sqlanon import Attribute, Job, Source

# The population: 12 people; the research subset: 5 of them (in = True).
#   zip a: 4 people, 2 in the subset -> delta 2/4 = 0.5
#   zip b: 2 people, 2 in the subset -> delta 2/2 = 1.0
#   zip c: 4 people, 1 in the subset -> delta 1/4 = 0.25
#   zip d: 2 people, none in it      -> no class of the release (nothing to release), but a
#                                       class of the population with delta 0: with dmin > 0
#                                       level 0 is not delta-present, whatever is suppressed
# Level 1 (ab, cd): ab 4/6 = 0.667, cd 1/6 = 0.167. Level 2: 5/12 = 0.417.
HAND = {
    "id": [str(i) for i in range(1, 13)],
    "zip": list("aaaabbccccdd"),
    "in": [True, False, True, False, True, True, True, False, False, False, False, False],
    "d": list("xyzxyzxyzxyz"),
}
HAND_H = {"zip": [["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]]}
# (n, pop) of the released classes at each level, and delta = n / pop
CLASSES = {0: [(2, 4), (2, 2), (1, 4)], 1: [(4, 6), (1, 6)], 2: [(5, 12)]}
PRESENCE = {"type": "delta-presence", "dmin": 0.2, "dmax": 0.6, "subset": "in"}
# the upper bound alone: d's empty class fails nothing, level 0 is anonymous with b suppressed
UPPER = {**PRESENCE, "dmin": 0.0}


def hand_job(models=(PRESENCE,), ids=None, **kwargs):
    job = table_job(HAND, HAND_H, roles={"d": "sensitive", "id": "identifying"}, models=tuple(models), **kwargs)
    # the model's column needs no role
    job = replace(job, attributes=[a for a in job.attributes if a.name != "in"])
    if ids:  # the same subset as a file of identifiers: "in" is then data left out
        job = replace(job, input=replace(job.input, drop=("in",)))
    return job


QIS = ["sex", "age", "race", "marital-status", "education"]
SUBSET = "in_study"


def adult_presence_job(path, **kwargs):
    attributes = [Attribute(q, "quasi", str(adult_hierarchy(q))) for q in QIS]
    attributes += [Attribute(c, "insensitive") for c in ADULT_QIS if c not in QIS + ["occupation"]]
    attributes.append(Attribute("occupation", "sensitive"))
    return Job(input=Source(path=str(path)), attributes=attributes, **kwargs)


def presence(dmin, dmax):
    return {"type": "delta-presence", "dmin": dmin, "dmax": dmax, "subset": SUBSET}


DIVERSE = {"type": "distinct-l-diversity", "attribute": "occupation", "l": 3}
ADULT_CASES = {
    "upper": ((presence(0.0, 0.5),), 1),  # monotonic with generalization
    "band": ((presence(0.1, 0.6),), 1),  # dmin > 0: not monotonic at all
    "combined": ((presence(0.05, 0.6), DIVERSE), 5),
}
