"""t-closeness (Li, Li, Venkatasubramanian 2007): in every class the distribution P of the
sensitive attribute is within t of its distribution Q in the whole input (suppressed rows
included), by the Earth Mover's Distance with one of three ground distances:

* ``equal``: 0.5 * sum_i |p_i - q_i| over all m values.
* ``ordered`` (numeric, or listed with ``order = [...]``): (1/(m-1)) sum_i |sum_(j<=i) (p_j - q_j)|.
* ``hierarchical`` (a hierarchy for the attribute, ARX CSV layout, one root): sum over inner
  nodes N of height(N)/H * min(pos_extra(N), neg_extra(N)), where extra(leaf i) = p_i - q_i,
  extra(N) is the sum over N's children, and pos/neg_extra the sums of the children's positive
  and negative extras.

The domain is the attribute's distinct values in the input. Every EMD is convex in P, so
merging classes that pass gives a class that passes (monotonic with generalization); with
suppression it is not monotonic. ``ordered`` and ``hierarchical`` need every value of the
domain, not only those in the class: their SQL crosses the classes with the domain table
(classes x m rows) and sums the differences, per level for the hierarchy.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Sequence

import pyarrow as pa
from sqlglot import exp

from sqlanon.sql import col, ident, table
from sqlanon.criteria.base import EPSILON, PrivacyModel, as_double, number, share
from sqlanon.sql import aggregate
from sqlanon.criteria.options import fraction
from sqlanon.errors import ConfigError, HierarchyError, cuts
from sqlanon.core.encodings import codec
from sqlanon.hierarchy import Hierarchy, read_hierarchy

DISTANCES = ("equal", "ordered", "hierarchical")


class TCloseness(PrivacyModel):
    name = "t-closeness"
    options = ("attribute", "t", "distance", "hierarchy", "order", "encoding")
    monotonic_with_suppression = False
    worst = "max"
    attribute: str  # always given

    def __init__(
        self, attribute: str, t: float, distance: str = "equal", hierarchy=None, order=None, encoding: str | None = None
    ):
        self.attribute = attribute
        self.t = fraction("t", t, self.name)
        if distance not in DISTANCES:
            raise ConfigError(f"t-closeness: unknown distance {distance!r}; valid distances: {', '.join(DISTANCES)}")
        self.distance = distance
        if distance == "hierarchical" and hierarchy is None:
            raise ConfigError('t-closeness: distance = "hierarchical" needs hierarchy = "file.csv" for the attribute')
        if distance != "hierarchical" and hierarchy is not None:
            raise ConfigError(f't-closeness: hierarchy is used only with distance = "hierarchical", not {distance!r}')
        if distance != "ordered" and order is not None:
            raise ConfigError(f't-closeness: order is used only with distance = "ordered", not {distance!r}')
        if order is not None and (not isinstance(order, list) or not all(isinstance(v, str) for v in order)):
            raise ConfigError("t-closeness: order must be a list of the attribute's values as strings")
        if encoding is not None and not isinstance(hierarchy, (str, Path)):
            raise ConfigError(
                "t-closeness: encoding is the text encoding of the hierarchy file; give it with "
                'distance = "hierarchical" and hierarchy = "file.csv" only'
            )
        if encoding is not None:
            codec(encoding, "t-closeness: encoding")
        self.hierarchy = hierarchy
        self.order = order
        self.encoding = encoding
        self._labels: list[str] = []

    @property
    def aux(self) -> str:
        # Named after the model's settings, so checkers with different ones never share it.
        digest = hashlib.sha1(json.dumps(self.describe(), sort_keys=True).encode()).hexdigest()[:12]
        return f"sqlanon_aux_{self.key}_{digest}"

    # -- preparation: the domain's order or hierarchy, as codes ------------------------------
    def prepare(self, values: Sequence[str], counts: Sequence[int]):
        self._labels = list(values)
        total = sum(counts)
        columns = {
            "code": pa.array(range(len(values)), pa.int32()),
            "q": pa.array([c / total for c in counts], pa.float64()),
        }
        if self.distance == "ordered":
            self._rank = self._ordering(values)
            columns["ord"] = pa.array([self._rank[v] for v in values], pa.int32())
        elif self.distance == "hierarchical":
            self._ancestors = self._tree(values)
            levels = len(next(iter(self._ancestors.values())))
            for l in range(levels):
                dense: dict[str, int] = {}
                columns[f"a{l}"] = pa.array(
                    [dense.setdefault(self._ancestors[v][l], len(dense)) for v in values], pa.int32()
                )
            self._height = levels - 1
        else:
            return {}
        return {self.aux: pa.table(columns)}

    def _ordering(self, values: Sequence[str]) -> dict[str, int]:
        if self.order is not None:
            missing = [v for v in values if v not in self.order]
            if missing:
                raise ConfigError(
                    f"t-closeness: order for '{self.attribute}' lacks {len(missing)} value(s) of the data, "
                    f"e.g. {cuts(missing[:5])}; list every value"
                )
            position = {v: i for i, v in enumerate(dict.fromkeys(self.order))}
            ranked = sorted(values, key=position.__getitem__)
        else:
            try:
                ranked = sorted(values, key=float)
            except ValueError:
                bad = [v for v in values if not _is_number(v)][:5]
                raise ConfigError(
                    f"t-closeness: '{self.attribute}' is not numeric (e.g. {cuts(bad)}); give order = [...] "
                    'listing its values for distance = "ordered"'
                ) from None
        return {v: i for i, v in enumerate(ranked)}

    def _tree(self, values: Sequence[str]) -> dict[str, tuple[str, ...]]:
        h = (
            self.hierarchy
            if isinstance(self.hierarchy, Hierarchy)
            else read_hierarchy(
                self.hierarchy, self.attribute, encoding=self.encoding, setting="the t-closeness model's"
            )
        )
        rows = {row[0]: tuple(row) for row in h.rows}
        missing = [v for v in values if v not in rows]
        if missing:
            raise HierarchyError(
                f"t-closeness: the hierarchy of '{self.attribute}' ({h.source}) lacks {len(missing)} value(s) of "
                f"the data, e.g. {cuts(missing[:5])}; add a row for each"
            )
        if h.height == 0 or len({row[-1] for row in h.rows}) != 1:
            raise HierarchyError(
                f"t-closeness: the hierarchy of '{self.attribute}' ({h.source}) needs at least two levels and "
                "one value at its top level (a tree with a root, e.g. '*')"
            )
        return {v: rows[v] for v in values}

    # -- SQL ---------------------------------------------------------------------------------
    def class_columns(self, histogram, keys):
        if self.distance == "equal":
            # Values absent from the class contribute q_i: 0.5 (sum_present |p - q| + 1 - sum_present q)
            present = exp.Sum(this=exp.Abs(this=exp.Sub(this=share(), expression=col("q"))))
            rest = exp.Sub(this=number(1), expression=exp.Sum(this=col("q")))
            t = exp.Mul(this=exp.Literal.number(0.5), expression=exp.Paren(this=exp.Add(this=present, expression=rest)))
            return aggregate(histogram, keys, {self.name_of("t"): t})
        dense = self._dense(histogram, keys)
        if self.distance == "ordered":
            return self._ordered(dense, keys)
        return self._hierarchical(dense, keys)

    def _dense(self, histogram, keys) -> exp.Select:
        """(keys, aux columns, diff = p_i - q_i) for every class and every value of the domain."""
        sizes = (
            exp.select(*(col(k) for k in keys), exp.Max(this=col("cn")).as_(ident("cn")))
            .from_(histogram.subquery(ident("h")))
            .group_by(*(col(k) for k in keys))
        )
        on = exp.and_(
            *(exp.EQ(this=col(k, "h"), expression=col(k, "s")) for k in keys),
            exp.EQ(this=col("v", "h"), expression=col("code", "a")),
        )
        p = exp.Div(
            this=as_double(exp.Coalesce(this=col("f", "h"), expressions=[number(0)])),
            expression=as_double(col("cn", "s")),
        )
        aux = [c for c in (["ord"] if self.distance == "ordered" else [f"a{l}" for l in range(self._height + 1)])]
        return (
            exp.select(
                *(col(k, "s") for k in keys),
                *(col(c, "a") for c in aux),
                exp.Sub(this=p, expression=col("q", "a")).as_(ident("diff")),
            )
            .from_(sizes.subquery(ident("s")))
            .join(table(self.aux, "a"), join_type="cross")
            .join(histogram.subquery(ident("h")), on=on, join_type="left")
        )

    def _ordered(self, dense, keys):
        cumulative = exp.Window(
            this=exp.Sum(this=col("diff")),
            partition_by=[col(k) for k in keys],
            order=exp.Order(expressions=[exp.Ordered(this=col("ord"))]),
        )
        running = exp.select(*(col(k) for k in keys), cumulative.as_(ident("cum"))).from_(dense.subquery(ident("d")))
        t = exp.Div(this=exp.Sum(this=exp.Abs(this=col("cum"))), expression=self.param("span"))
        return aggregate(running, keys, {self.name_of("t"): t})

    def _hierarchical(self, dense, keys):
        parts = None
        for level in range(1, self._height + 1):
            child = (
                exp.select(
                    *(col(k) for k in keys),
                    col(f"a{level}").as_(ident("parent")),
                    exp.Sum(this=col("diff")).as_(ident("e")),
                )
                .from_(dense.subquery(ident("d")))
                .group_by(*(col(k) for k in keys), col(f"a{level - 1}"), col(f"a{level}"))
            )
            zero = number(0)
            pos = exp.Sum(this=exp.Greatest(this=col("e"), expressions=[zero]))
            neg = exp.Sum(this=exp.Greatest(this=exp.Neg(this=col("e")), expressions=[zero.copy()]))
            cost = exp.Mul(
                this=exp.Least(this=pos, expressions=[neg]), expression=exp.Literal.number(level / self._height)
            )
            part = (
                exp.select(*(col(k) for k in keys), cost.as_(ident("cost")))
                .from_(child.subquery(ident("x")))
                .group_by(*(col(k) for k in keys), col("parent"))
            )
            parts = part if parts is None else exp.union(parts, part, distinct=False)
        return aggregate(parts, keys, {self.name_of("t"): exp.Sum(this=col("cost"))})

    def class_condition(self, size):
        return exp.LTE(this=self.column("t"), expression=self.param("t"))

    def parameters(self):
        params = {self.name_of("t"): self.t + EPSILON}
        if self.distance == "ordered":
            params[self.name_of("span")] = max(len(self._labels) - 1, 1)
        return params

    def describe(self):
        d = {"model": self.name, "attribute": self.attribute, "t": self.t, "distance": self.distance}
        if self.distance == "hierarchical":
            h = self.hierarchy
            if isinstance(h, Hierarchy):  # given in code: named by its rows' digest
                h = f"{h.source} sha1:" + hashlib.sha1(json.dumps(h.rows).encode()).hexdigest()[:12]
            d["hierarchy"] = str(h)
            if self.encoding is not None:
                d["encoding"] = self.encoding
        if self.order is not None:
            d["order"] = self.order
        return d

    # -- Python twin -------------------------------------------------------------------------
    def class_value(self, histogram: dict[str, int], overall: dict[str, float]) -> float:
        n = sum(histogram.values())
        diff = {v: histogram.get(v, 0) / n - q for v, q in overall.items()}
        if self.distance == "equal":
            return 0.5 * sum(abs(d) for d in diff.values())
        if self.distance == "ordered":
            total, running = 0.0, 0.0
            for v in sorted(diff, key=self._rank.__getitem__):
                running += diff[v]
                total += abs(running)
            return total / max(len(diff) - 1, 1)
        extra = dict(diff)  # node label at the current level -> extra
        total = 0.0
        for level in range(1, self._height + 1):
            parents: dict[str, list[float]] = {}
            merged: dict[str, float] = {}
            for v in diff:
                child, parent = self._ancestors[v][level - 1], self._ancestors[v][level]
                if child not in merged:
                    merged[child] = extra[child]
                    parents.setdefault(parent, []).append(extra[child])
            for values in parents.values():
                pos = sum(e for e in values if e > 0)
                neg = -sum(e for e in values if e < 0)
                total += level / self._height * min(pos, neg)
            extra = {p: sum(values) for p, values in parents.items()}
        return total

    def class_holds(self, value):
        return value <= self.t + EPSILON


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False
