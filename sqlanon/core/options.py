"""What each search algorithm takes from the job's ``[search]`` table: one frozen class per
family of algorithms, its fields the keys, its ``check`` their rules. An algorithm names its
class (``SearchAlgorithm.Options``; the interval algorithms' in ``INTERVAL_OPTIONS``); the job
holds the keys as given (``Job.search_options``) and validation reads them with the chosen
algorithm's class, so a key of another algorithm is refused by name.

Here, apart from ``sqlanon/search/``, whose package loads every algorithm (and numpy) when
imported, which loading a job must not; ``config`` reads them without importing ``koptimize``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal, Mapping, Self

from sqlanon.core.genetic import GeneticParams
from sqlanon.errors import ConfigError

UPPER_BOUNDS = ("none", "flash")
#: where Lightning stops: at the end of its budget or queue ("best"), or at the "first" anonymous node
STOPS = ("best", "first")


@dataclass(frozen=True)
class Options:
    """No options of its own: flash, exhaustive, incognito."""

    #: keys holding a table of their own ([search.genetic], [search.koptimize]) -> its class
    TABLES: ClassVar[Mapping[str, type]] = {}

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def read(cls, given: Mapping[str, Any]) -> Self:
        """The options ``given`` names (keys this class has, checked by the caller), checked."""
        values = {}
        for key, value in given.items():
            table = cls.TABLES.get(key)
            values[key] = table(**value) if table is not None and isinstance(value, Mapping) else value
        options = cls(**values)
        options.check()
        return options

    def check(self) -> None:
        """Refuse a value outside its rule, naming the job's key."""

    def kwargs(self) -> dict[str, Any]:
        """The options as the algorithm's constructor takes them."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _int_at_least(key: str, value: Any, least: int) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < least):
        raise ConfigError(f"search.{key} must be an int >= {least}, got {value!r}")


@dataclass(frozen=True)
class OLAOptions(Options):
    """``stable``: visit nodes in Flash's stable order (StableOLA)."""

    stable: bool = False

    def check(self) -> None:
        if not isinstance(self.stable, bool):
            raise ConfigError(f"search.stable must be true or false, got {self.stable!r}")


@dataclass(frozen=True)
class HeuristicOptions(Options):
    """The budget of an anytime search: stop after ``time_limit`` seconds or ``step_limit`` checks."""

    time_limit: float | None = None
    step_limit: int | None = None

    def check(self) -> None:
        t = self.time_limit
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not t > 0):
            raise ConfigError(f"search.time_limit must be a number of seconds > 0, got {t!r}")
        _int_at_least("step_limit", self.step_limit, 1)


@dataclass(frozen=True)
class LightningOptions(HeuristicOptions):
    """``stop``: "best" (until a limit or the end) or "first" anonymous node."""

    stop: str = "best"

    def check(self) -> None:
        super().check()
        if self.stop not in STOPS:
            raise ConfigError(f"search.stop must be 'best' or 'first', got {self.stop!r}")


@dataclass(frozen=True)
class RandomizedOptions(HeuristicOptions):
    """``seed``: None draws one (the report records it); ``genetic``: ``[search.genetic]``."""

    TABLES: ClassVar[Mapping[str, type]] = {"genetic": GeneticParams}
    seed: int | None = None
    genetic: GeneticParams = field(default_factory=GeneticParams)

    def check(self) -> None:
        super().check()
        _int_at_least("seed", self.seed, 0)
        self.genetic.validate()


@dataclass(frozen=True)
class KOptimizeOptions:
    """``[search.koptimize]``: settings of the ordered-interval algorithms (k-optimize, hill-climb).

    The classification metric's label column is ``[search] label``, as for the lattice
    algorithms. ``suppression_rows``: the suppression limit as a number of rows (an int >= 0 or
    "unlimited"); when absent the limit is floor(privacy.suppression_limit * N). ``upper_bound``:
    "flash" seeds K-Optimize with Flash's optimum mapped to cuts, "none" starts without one.
    ``order``: per attribute, its values in the order to use instead of the natural or the
    hierarchy's order. ``threads``: k-optimize walks its tree's subtrees on this many threads.
    """

    suppression_rows: int | Literal["unlimited"] | None = None
    upper_bound: str = "none"
    order: Mapping[str, list[str]] = field(default_factory=dict)
    threads: int = 1

    def check(self) -> None:
        rows = self.suppression_rows
        if (
            rows is not None
            and rows != "unlimited"
            and (isinstance(rows, bool) or not isinstance(rows, int) or rows < 0)
        ):
            raise ConfigError(f'search.koptimize.suppression_rows must be an int >= 0 or "unlimited", got {rows!r}')
        if self.upper_bound not in UPPER_BOUNDS:
            raise ConfigError(
                f"search.koptimize.upper_bound must be one of {', '.join(UPPER_BOUNDS)}, got {self.upper_bound!r}"
            )
        if not isinstance(self.order, dict):
            raise ConfigError("search.koptimize.order must be a table: attribute = [values in order]")
        threads = self.threads
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ConfigError(f"search.koptimize.threads must be an int >= 1 (cores to use), got {threads!r}")


@dataclass(frozen=True)
class IntervalOptions(HeuristicOptions):
    """k-optimize's: its budget and ``[search.koptimize]``."""

    TABLES: ClassVar[Mapping[str, type]] = {"koptimize": KOptimizeOptions}
    koptimize: KOptimizeOptions = field(default_factory=KOptimizeOptions)

    def check(self) -> None:
        super().check()
        self.koptimize.check()

    def limit_rows(self, rows: int, fraction_rows: int) -> int:
        """The suppression limit in rows: ``suppression_rows`` when given, else ``fraction_rows``
        (floor(privacy.suppression_limit * N))."""
        given = self.koptimize.suppression_rows
        if given is None:
            return fraction_rows
        return rows if given == "unlimited" else given


@dataclass(frozen=True)
class HillClimbOptions(IntervalOptions):
    """hill-climb's: k-optimize's and a ``seed`` (None draws one); it runs until a limit."""

    seed: int | None = None

    def check(self) -> None:
        super().check()
        _int_at_least("seed", self.seed, 0)
        if self.time_limit is None and self.step_limit is None:
            raise ConfigError("hill-climb runs until a limit: set search.time_limit (seconds) or search.step_limit")


#: the ordered-interval algorithms (sqlanon/koptimize/) and their options
INTERVAL_OPTIONS: dict[str, type[IntervalOptions]] = {"k-optimize": IntervalOptions, "hill-climb": HillClimbOptions}

#: every options class, for the job file's reader (which keys [search] may hold, which are tables)
FAMILIES: tuple[type[Options], ...] = (OLAOptions, LightningOptions, RandomizedOptions, HillClimbOptions)
SEARCH_KEYS = frozenset(key for cls in FAMILIES for key in cls.keys())
SEARCH_TABLES: dict[str, type] = {key: table for cls in FAMILIES for key, table in cls.TABLES.items()}


def split(settings: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``settings`` as (the algorithms' own keys, the rest): what a job keeps in
    ``search_options`` apart from its fields."""
    options = {key: value for key, value in settings.items() if key in SEARCH_KEYS}
    return options, {key: value for key, value in settings.items() if key not in SEARCH_KEYS}


def gathered(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Job keywords with the algorithms' own keys (``seed=``, ``koptimize=`` ...) gathered into
    ``search_options``, as a job file's [search] holds them beside the job's keys; None: not given."""
    options, rest = split(settings)
    given = {key: value for key, value in options.items() if value is not None}
    return {**rest, "search_options": {**rest.get("search_options", {}), **given}}
