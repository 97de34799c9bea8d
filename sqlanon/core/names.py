"""The names a job or the command line may give to a metric or a search algorithm.

Names only, so that the command line can offer them as choices without importing the metrics
and the search (and through them sqlglot, the engines and DuckDB): ``sqlanon --help`` stays
fast. ``sqlanon.metrics.METRICS`` and ``sqlanon.search.ALGORITHMS`` map the same names, in the
same order, to their classes; tests/cli/test_cli.py checks that the two agree. The k-optimize
family's names are ``INTERVAL_ALGORITHMS`` and ``INTERVAL_METRICS`` in sqlanon/config/job.py.
"""

METRIC_NAMES = (
    "discernibility",
    "discernibility-star",
    "aecs",
    "height",
    "precision",
    "precision-monotonic",
    "loss",
    "entropy",
    "entropy-monotonic",
    "ambiguity",
    "classification",
    "kl-divergence",
)
#: the [[privacy.models]] types (sqlanon.criteria.MODEL_NAMES maps the same names)
MODEL_NAMES = (
    "k-anonymity",
    "distinct-l-diversity",
    "entropy-l-diversity",
    "recursive-cl-diversity",
    "t-closeness",
    "delta-disclosure",
    "beta-likeness",
    "average-risk",
    "sample-uniqueness",
    "delta-presence",
    "population-uniqueness",
    "k-map",
)
ALGORITHM_NAMES = (
    "flash",
    "exhaustive",
    "ola",
    "incognito",
    "lightning",
    "lightning-top-down",
    "datafly",
    "igreedy",
    "genetic",
    "random",
)
