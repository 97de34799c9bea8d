"""Search algorithms, one per module, registered by name."""

from sqlanon.search.base import SearchAlgorithm, SearchOutcome
from sqlanon.search.datafly import DataFly
from sqlanon.search.exhaustive import Exhaustive
from sqlanon.search.flash import Flash
from sqlanon.search.genetic import Genetic
from sqlanon.search.igreedy import IGreedy
from sqlanon.search.incognito import Incognito
from sqlanon.search.lightning import Lightning
from sqlanon.search.lightning_top_down import LightningTopDown
from sqlanon.search.ola import OLA
from sqlanon.search.random_search import RandomSearch

ALGORITHMS: dict[str, type[SearchAlgorithm]] = {
    a.name: a
    for a in (
        Flash,
        Exhaustive,
        OLA,
        Incognito,
        Lightning,
        LightningTopDown,
        DataFly,
        IGreedy,
        Genetic,
        RandomSearch,
    )
}
HEURISTICS = tuple(name for name, a in ALGORITHMS.items() if not a.optimal)

__all__ = ["ALGORITHMS", "HEURISTICS", "SearchAlgorithm", "SearchOutcome"]
