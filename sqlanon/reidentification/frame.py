"""The inputs every estimator shares: the sample's class-size table and the sampling frame.

An engine returns the class-size frequency table from SQL (``{size: number of classes of that
size}``); the population enters as a sampling fraction ``f`` or a population size ``N``.
Both are checked here once, with uniform messages, so that each estimator starts from valid
numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral, Real


@dataclass(frozen=True)
class ClassSizes:
    """A sample's equivalence classes, summarised by size.

    ``sizes`` is strictly increasing and ``counts[i]`` is the number of classes of size
    ``sizes[i]`` (sizes with no class are left out).

    >>> c = ClassSizes.from_table({1: 3, 2: 1})
    >>> c.rows, c.classes, c.uniques
    (5, 4, 3)
    """

    sizes: tuple[int, ...]
    counts: tuple[int, ...]

    @classmethod
    def from_table(cls, table: Mapping[int, int] | ClassSizes) -> ClassSizes:
        """Validate a ``{size: number of classes}`` table."""
        if isinstance(table, ClassSizes):
            return table
        if not isinstance(table, Mapping):
            raise ValueError(  # noqa: TRY004 - every bad input is a ValueError, by contract
                f"The class-size table must be a mapping {{size: number of classes}}, got {type(table).__name__}."
            )
        pairs: list[tuple[int, int]] = []
        for size, count in table.items():
            if isinstance(size, bool) or not isinstance(size, Integral) or size < 1:
                raise ValueError(f"Class sizes must be ints >= 1, got {size!r}.")
            if isinstance(count, bool) or not isinstance(count, Integral) or count < 0:
                raise ValueError(f"The number of classes of size {size} must be an int >= 0, got {count!r}.")
            if count:
                pairs.append((int(size), int(count)))
        if not pairs:
            raise ValueError("The class-size table is empty: there is no record to assess.")
        pairs.sort()
        return cls(tuple(s for s, _ in pairs), tuple(c for _, c in pairs))

    def count(self, size: int) -> int:
        """Number of classes of the given size (0 when there is none)."""
        for s, c in zip(self.sizes, self.counts):
            if s == size:
                return c
        return 0

    @property
    def rows(self) -> int:
        """Records in the sample (n)."""
        return sum(s * c for s, c in zip(self.sizes, self.counts))

    @property
    def classes(self) -> int:
        """Non-empty classes in the sample (u)."""
        return sum(self.counts)

    @property
    def uniques(self) -> int:
        """Sample uniques: classes (and records) of size 1."""
        return self.count(1)


@dataclass(frozen=True)
class Frame:
    """Sample size ``n``, population size ``N`` and sampling fraction ``f = n / N``."""

    sample_size: int
    population_size: float
    fraction: float

    @property
    def is_census(self) -> bool:
        """The sample is the whole population (f = 1): uniqueness is observed, not estimated."""
        return self.fraction >= 1.0


def sampling_frame(
    sample_size: int, *, sampling_fraction: float | None = None, population_size: float | None = None
) -> Frame:
    """Build the sampling frame from exactly one of ``sampling_fraction`` or ``population_size``.

    With a fraction, ``N = n / f`` (as ARX's population model does); with a population size,
    ``f = n / N``.

    >>> sampling_frame(100, sampling_fraction=0.1).population_size
    1000.0
    >>> sampling_frame(100, population_size=400).fraction
    0.25
    """
    if (sampling_fraction is None) == (population_size is None):
        raise ValueError("Give exactly one of 'sampling_fraction' and 'population_size'.")
    n = int(sample_size)
    if sampling_fraction is not None:
        f = _real("sampling_fraction", sampling_fraction)
        if not 0.0 < f <= 1.0:
            raise ValueError(f"The 'sampling_fraction' parameter must be a float in (0, 1], got {sampling_fraction!r}.")
        return Frame(n, n / f, f)
    big_n = _real("population_size", population_size)
    if big_n < n:
        raise ValueError(f"The 'population_size' parameter must be >= the sample size {n}, got {population_size!r}.")
    return Frame(n, big_n, n / big_n)


def prepare(
    table: Mapping[int, int] | ClassSizes,
    sampling_fraction: float | None,
    population_size: float | None,
) -> tuple[ClassSizes, Frame]:
    """Validate the table, then the frame against the table's number of records."""
    classes = ClassSizes.from_table(table)
    frame = sampling_frame(classes.rows, sampling_fraction=sampling_fraction, population_size=population_size)
    return classes, frame


def _real(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)):
        raise ValueError(f"The '{name}' parameter must be a finite number, got {value!r}.")
    return float(value)
