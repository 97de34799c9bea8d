"""How a metric over the QIs one by one combines its per-attribute values, as ARX 3.9.2's
``Metric.AggregateFunction`` does (``ILMultiDimensionalSum``, ``…Max``, ``…ArithmeticMean``,
``…GeometricMean``): each value v_j times its weight w_j (largest 1), then

* ``sum``: sum_j w_j v_j (an infinite sum is the largest double, as ARX);
* ``maximum``: max(0, max_j w_j v_j);
* ``arithmetic-mean``: sum_j (v_j / d) w_j;
* ``geometric-mean``: prod_j (w_j v_j + 1)^(1/d) - 1.

Each is non-decreasing in every v_j, so per-attribute lower bounds combine into a lower bound.
ARX's fifth, ``RANK`` (the values compared as a sorted vector, not a number), is not built."""

from __future__ import annotations

import math
import sys
from typing import Sequence

AGGREGATES = ("sum", "maximum", "arithmetic-mean", "geometric-mean")


def combine(name: str, values: Sequence[float], weights: Sequence[float]) -> float:
    d = len(values)
    if name == "sum":
        total = 0.0
        for v, w in zip(values, weights):
            total += v * w
        return sys.float_info.max if math.isinf(total) or math.isnan(total) else total
    if name == "maximum":
        return max([0.0, *(v * w for v, w in zip(values, weights))])
    if name == "arithmetic-mean":
        total = 0.0
        for v, w in zip(values, weights):
            total += (v / d) * w
        return total
    product = 1.0
    for v, w in zip(values, weights):
        product *= (v * w + 1.0) ** (1.0 / d)
    return product - 1.0
