"""What a privacy model or a metric needs a check to compute beyond the kept classes' sizes and
the suppressed rows: one flag each, so that an engine computes (and a session prepares) only
what the job's models and metric read."""

from __future__ import annotations

from enum import Flag, auto
from functools import reduce
from operator import or_
from typing import Iterable


class Need(Flag):
    NONE = 0
    #: the kept classes' per-QI leaf counts (loss, ambiguity, KL-divergence; the report's attributes)
    LEAVES = auto()
    #: each class's Σ n·ln c_x over its rows' leaf counts (KL-divergence)
    LNX = auto()
    #: the kept classes' size histogram (population uniqueness)
    SIZES = auto()
    #: the number of kept classes of one row (sample uniqueness)
    UNIQUES = auto()
    #: per QI, the value histogram of the suppressed rows (non-uniform entropy)
    SUPPRESSED_HISTOGRAMS = auto()

    @staticmethod
    def union(needs: Iterable[Need]) -> Need:
        return reduce(or_, needs, Need.NONE)

    def names(self) -> list[str]:
        """The flags set, as a message names them."""
        # a member met iterating a Flag is named (the stubs allow a nameless combination)
        return [flag.name.lower() for flag in Need if flag and flag in self and flag.name]
