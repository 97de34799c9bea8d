"""Every privacy model on ADULT with occupation sensitive: the settings tests/search/test_models_adult.py
and tests/search/test_models_adult8.py check against exhaustive search and the oracle (and the engine
suite runs on every engine)."""

from __future__ import annotations

from helpers.jobs import adult_hierarchy

TREE = str(adult_hierarchy("occupation"))
ORDER = [line.split(";")[0] for line in open(TREE).read().split()]  # the hierarchy's row order
MODELS = {
    "distinct": {"type": "distinct-l-diversity", "attribute": "occupation", "l": 5},
    "entropy": {"type": "entropy-l-diversity", "attribute": "occupation", "l": 5},
    "recursive": {"type": "recursive-cl-diversity", "attribute": "occupation", "c": 3, "l": 4},
    "t-equal": {"type": "t-closeness", "attribute": "occupation", "t": 0.3},
    "t-ordered": {"type": "t-closeness", "attribute": "occupation", "t": 0.1, "distance": "ordered", "order": ORDER},
    "t-hierarchical": {
        "type": "t-closeness",
        "attribute": "occupation",
        "t": 0.2,
        "distance": "hierarchical",
        "hierarchy": TREE,
    },
    "delta-disclosure": {"type": "delta-disclosure", "attribute": "occupation", "delta": 2.0},
    "beta-likeness": {"type": "beta-likeness", "attribute": "occupation", "beta": 1.0},
    "enhanced-beta-likeness": {"type": "beta-likeness", "attribute": "occupation", "beta": 2.0, "enhanced": True},
    "average-risk": {"type": "average-risk", "threshold": 0.02, "max_risk": 0.2},
    "sample-uniqueness": {"type": "sample-uniqueness", "threshold": 0.001},
}
COMBINED = (
    {"type": "recursive-cl-diversity", "attribute": "occupation", "c": 4, "l": 3},
    MODELS["t-hierarchical"] | {"t": 0.25},
    {"type": "average-risk", "threshold": 0.05},
)


def oracle_spec(spec):
    if spec.get("distance") == "hierarchical":
        return spec | {"tree": [line.split(";") for line in open(TREE).read().split()]}
    return spec
