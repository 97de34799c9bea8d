"""Search algorithms, one per module, registered by name."""

from sqlanon.search.base import SearchAlgorithm, SearchOutcome
from sqlanon.search.exhaustive import Exhaustive
from sqlanon.search.flash import Flash
from sqlanon.search.incognito import Incognito
from sqlanon.search.ola import OLA

ALGORITHMS: dict[str, type[SearchAlgorithm]] = {a.name: a for a in (Flash, Exhaustive, OLA, Incognito)}

__all__ = ["ALGORITHMS", "SearchAlgorithm", "SearchOutcome"]
