"""An independent brute-force oracle: reads the CSV with the csv module, groups with numpy,
and computes every metric straight from the definitions in the README. It shares no code with
sqlanon's engine, checker or metrics, so agreement means something."""

from __future__ import annotations

import csv
import itertools
import math

import numpy as np


def _trunc(x: float) -> float:
    return math.floor(x * 1e10) / 1e10


class Oracle:
    def __init__(self, data_path, delimiter, hierarchy_paths: dict[str, str]):
        self.qis = list(hierarchy_paths)
        with open(data_path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle, delimiter=delimiter)
            records = [tuple(row[q] for q in self.qis) for row in reader]
        self.maps, self.hrows, self.heights = [], [], []
        for q in self.qis:
            with open(hierarchy_paths[q], newline="", encoding="utf-8") as handle:
                rows = [r for r in csv.reader(handle, delimiter=";") if r]
            self.hrows.append(rows)
            self.heights.append(len(rows[0]) - 1)
        self.n = len(records)
        # per QI and level: value text -> dense code; leaf -> code per level
        self.levels = []  # levels[j][l] : np.array leaf index -> code at l
        self.leafcount = []  # leafcount[j][l][code] rows of H under that code
        leaf_index = []
        for j, rows in enumerate(self.hrows):
            index = {r[0]: i for i, r in enumerate(rows)}
            leaf_index.append(index)
            per_level, counts = [], []
            for l in range(self.heights[j] + 1):
                codes = {}
                arr = np.array([codes.setdefault(r[l], len(codes)) for r in rows])
                per_level.append(arr)
                counts.append(np.bincount(arr, minlength=len(codes)))
            self.levels.append(per_level)
            self.leafcount.append(counts)
        leaves = np.array([[leaf_index[j][rec[j]] for j in range(len(self.qis))] for rec in records])
        self.base, self.weights = np.unique(leaves, axis=0, return_counts=True)
        self._entropy_cache: dict = {}

    def nodes(self):
        return itertools.product(*(range(h + 1) for h in self.heights))

    def classes(self, node):
        """Per class: generalized codes (classes x d) and sizes."""
        gen = np.stack([self.levels[j][l][self.base[:, j]] for j, l in enumerate(node)], axis=1)
        packed = np.zeros(len(gen), dtype=np.int64)
        for j, l in enumerate(node):  # mixed-radix key: one int per row
            packed = packed * len(self.leafcount[j][l]) + gen[:, j]
        _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
        sizes = np.bincount(inverse.ravel(), weights=self.weights).astype(np.int64)
        return gen[first], sizes

    def evaluate(self, node, k: int, limit: float, metrics) -> tuple[bool, dict]:
        keys, sizes = self.classes(node)
        n, d = self.n, len(node)
        kept = sizes >= k
        s = int(sizes[~kept].sum())
        anonymous = s <= math.floor(round(limit * n, 9))
        values = {}
        for m in metrics:
            values[m] = getattr(self, "_" + m.replace("-", "_"))(node, keys, sizes, kept, s, n, d)
        return anonymous, values

    # -- metrics, from the definitions --------------------------------------------------
    def _discernibility(self, node, keys, sizes, kept, s, n, d):
        return int((sizes[kept] ** 2).sum()) + n * s

    def _discernibility_star(self, node, keys, sizes, kept, s, n, d):
        return int((sizes**2).sum())

    def _aecs(self, node, keys, sizes, kept, s, n, d):
        return n / (int(kept.sum()) + (1 if s else 0))

    def _height(self, node, keys, sizes, kept, s, n, d):
        return sum(node)

    def _precision(self, node, keys, sizes, kept, s, n, d):
        return sum(((n - s) * l / h + s) / n if h else s / n for l, h in zip(node, self.heights)) / d

    def _precision_monotonic(self, node, keys, sizes, kept, s, n, d):
        return sum(l / h if h else 0 for l, h in zip(node, self.heights)) / d

    def _loss(self, node, keys, sizes, kept, s, n, d):
        result = 1.0
        for j, l in enumerate(node):
            size = len(self.hrows[j])
            share = self.leafcount[j][l][keys[kept, j]] / size
            raw = float((sizes[kept] * share).sum()) + s
            lo = n / size
            value = max(0.0, (raw - lo) / (n - lo)) if size > 1 else 0.0
            result *= (1 + _trunc(value)) ** (1 / d)
        return result - 1

    def _ambiguity(self, node, keys, sizes, kept, s, n, d):
        product = np.ones(int(kept.sum()))
        domain = 1.0
        for j, l in enumerate(node):
            product = product * self.leafcount[j][l][keys[kept, j]]
            domain *= len(self.hrows[j])
        return (float((sizes[kept] * product).sum()) + s * domain) / n

    def _kl_divergence(self, node, keys, sizes, kept, s, n, d):
        gen = np.stack([self.levels[j][l][self.base[:, j]] for j, l in enumerate(node)], axis=1)
        packed = np.zeros(len(gen), dtype=np.int64)
        for j, l in enumerate(node):
            packed = packed * len(self.leafcount[j][l]) + gen[:, j]
        _, inverse = np.unique(packed, return_inverse=True)
        inverse = inverse.ravel()
        c = self.weights.astype(float)
        size = sizes[inverse].astype(float)
        box = np.ones(len(c))
        for j, l in enumerate(node):
            box *= self.leafcount[j][l][gen[:, j]]
        released = kept[inverse]
        domain = float(np.prod([len(h) for h in self.hrows]))
        size = np.where(released, size, s if s else 1)
        box = np.where(released, box, domain)
        return max(float((c * np.log(c * box / size)).sum()) / n, 0.0)

    def _g(self, j, l):
        if (j, l) not in self._entropy_cache:
            self._entropy_cache[(j, l)] = self._g_uncached(j, l)
        return self._entropy_cache[(j, l)]

    def _g_uncached(self, j, l):
        counts = np.bincount(self.base[:, j], weights=self.weights, minlength=len(self.hrows[j]))
        gen = np.bincount(self.levels[j][l], weights=counts)
        present = counts > 0
        return float((counts[present] * np.log2(gen[self.levels[j][l][present]] / counts[present])).sum())

    def _entropy(self, node, keys, sizes, kept, s, n, d):
        total = 0.0
        for j, l in enumerate(node):
            t = 0.0
            if s:
                c = np.bincount(keys[~kept, j], weights=sizes[~kept])
                c = c[c > 0]
                t = float((c * np.log2(s / c)).sum())
            total += _trunc(self._g(j, l) + t)
        return total

    def _entropy_monotonic(self, node, keys, sizes, kept, s, n, d):
        return sum(_trunc(self._g(j, l)) for j, l in enumerate(node))

    def optima(self, ks, limits, metrics) -> dict:
        """{(k, limit, metric): (best value, nodes within 1e-9 of it)} in one pass."""
        best: dict = {}
        for node in self.nodes():
            keys, sizes = self.classes(node)
            for k in ks:
                kept = sizes >= k
                s = int(sizes[~kept].sum())
                values = {
                    m: getattr(self, "_" + m.replace("-", "_"))(node, keys, sizes, kept, s, self.n, len(node))
                    for m in metrics
                }
                for limit in limits:
                    if s > math.floor(round(limit * self.n, 9)):
                        continue
                    for m, v in values.items():
                        current = best.get((k, limit, m))
                        if current is None or (v < current[0] and not _close(v, current[0])):
                            best[(k, limit, m)] = (v, {node})
                        elif _close(v, current[0]):
                            current[1].add(node)
        return best

    def optimum(self, k: int, limit: float, metric: str):
        """(best value, set of nodes within 1e-9 of it) over every anonymous node."""
        scored = []
        for node in self.nodes():
            anonymous, values = self.evaluate(node, k, limit, [metric])
            if anonymous:
                scored.append((values[metric], node))
        if not scored:
            return None, set()
        best = min(v for v, _ in scored)
        return best, {node for v, node in scored if _close(v, best)}


def _close(a, b) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


class ModelOracle:
    """Privacy models from their definitions (README and issue), over per-class histograms of
    one sensitive attribute computed with numpy; shares nothing with sqlanon's SQL or its
    Python twins. ``records``: QI value tuples; ``sensitive``: the attribute's values.

    ``subset`` (booleans, one per record): the research subset of delta-presence. Then the
    records are the population: histograms, q and every model but delta-presence count the
    subset's records only, a class without them is not a class of the release, and
    ``populations`` gives each class's records of the population."""

    def __init__(self, records, sensitive, hierarchies: dict[str, list[list[str]]], subset=None):
        self.qis = list(hierarchies)
        self.heights = [len(hierarchies[q][0]) - 1 for q in self.qis]
        self.values = sorted(set(sensitive))
        s_index = {v: i for i, v in enumerate(self.values)}
        self.s = np.array([s_index[v] for v in sensitive])
        self.member = np.ones(len(sensitive), dtype=bool) if subset is None else np.asarray(subset, dtype=bool)
        self.n = int(self.member.sum())
        self.q = np.bincount(self.s[self.member], minlength=len(self.values)) / self.n
        self.codes = []  # per QI and level: code of every record
        for j, q in enumerate(self.qis):
            rows = {r[0]: r for r in hierarchies[q]}
            per_level = []
            for l in range(self.heights[j] + 1):
                labels = [rows[rec[j]][l] for rec in records]
                index = {v: i for i, v in enumerate(sorted(set(labels)))}
                per_level.append(np.array([index[v] for v in labels]))
            self.codes.append(per_level)

    def nodes(self):
        return itertools.product(*(range(h + 1) for h in self.heights))

    def histograms(self, node):
        """(classes x values) counts, remembered per node."""
        cache = self.__dict__.setdefault("_cache", {})
        if node not in cache:
            packed = np.zeros(len(self.s), dtype=np.int64)
            for j, l in enumerate(node):  # mixed-radix key: one int per record
                codes = self.codes[j][l]
                packed = packed * (int(codes.max()) + 1) + codes
            _, inverse = np.unique(packed, return_inverse=True)
            inverse = inverse.ravel()
            m = len(self.values)
            hist = np.bincount(inverse * m + self.s, weights=self.member, minlength=(inverse.max() + 1) * m)
            pop = np.bincount(inverse, minlength=inverse.max() + 1)
            released = hist.reshape(-1, m).sum(axis=1) > 0  # classes of the population without subset records
            cache[node] = (hist.reshape(-1, m)[released].astype(np.int64), pop[released], int((~released).sum()))
        return cache[node][0]

    def populations(self, node):
        """Records of the population per class (in the order of ``histograms``)."""
        self.histograms(node)
        return self._cache[node][1]

    def empty(self, node):
        """Classes of the population without subset records: delta = 0, nothing to suppress."""
        self.histograms(node)
        return self._cache[node][2]

    # per-class verdicts, one boolean per class ------------------------------------------
    def passes(self, hist, model: dict, pop=None):
        n = hist.sum(axis=1)
        p = hist / n[:, None]
        kind = model["type"]
        if kind == "k-anonymity":
            return n >= model["k"]
        if kind == "distinct-l-diversity":
            return (hist > 0).sum(axis=1) >= model["l"]
        if kind == "entropy-l-diversity":
            with np.errstate(divide="ignore", invalid="ignore"):
                h = -np.where(p > 0, p * np.log(p), 0).sum(axis=1)
            return (h >= math.log(model["l"]) - 1e-10) & ((hist > 0).sum(axis=1) >= math.ceil(model["l"]))
        if kind == "recursive-cl-diversity":
            r = -np.sort(-hist, axis=1)
            return (r[:, 0] < model["c"] * r[:, model["l"] - 1 :].sum(axis=1)) & ((hist > 0).sum(axis=1) >= model["l"])
        if kind == "t-closeness":
            return self.distance(p, model) <= model["t"] + 1e-10
        if kind == "delta-disclosure":
            with np.errstate(divide="ignore"):
                ratio = np.where(hist > 0, np.abs(np.log(p / self.q)), 0)
            return ratio.max(axis=1) < model["delta"]
        if kind == "beta-likeness":
            with np.errstate(divide="ignore", invalid="ignore"):
                gain = (p - self.q) / self.q
                bound = np.minimum(model["beta"], -np.log(self.q)) if model.get("enhanced") else model["beta"]
                over = np.where(hist > 0, gain - bound, -np.inf)
            return over.max(axis=1) <= 0
        if kind == "average-risk":
            return n >= math.ceil(1 / model["max_risk"] - 1e-10) if "max_risk" in model else n >= 0
        if kind == "delta-presence":
            delta = n / pop
            return (delta >= model.get("dmin", 0.0) - 1e-10) & (delta <= model["dmax"] + 1e-10)
        return n >= 0  # sample-uniqueness: no per-class condition

    def distance(self, p, model):
        diff = p - self.q
        m = len(self.values)
        if model.get("distance", "equal") == "equal":
            return 0.5 * np.abs(diff).sum(axis=1)
        if model["distance"] == "ordered":
            order = model.get("order") or sorted(self.values, key=float)
            perm = [self.values.index(v) for v in order if v in self.values]
            return np.abs(np.cumsum(diff[:, perm], axis=1)).sum(axis=1) / max(m - 1, 1)
        # hierarchical (Li et al. 2007): walk the tree level by level
        rows = {r[0]: r for r in model["tree"]}
        height = len(model["tree"][0]) - 1
        cost = np.zeros(len(p))
        for level in range(1, height + 1):
            parents = sorted({rows[v][level] for v in self.values})
            children = sorted({rows[v][level - 1] for v in self.values})
            child_of = [children.index(rows[v][level - 1]) for v in self.values]
            # extras of the level-(l-1) nodes, from the leaves
            child_extra = np.zeros((len(p), len(children)))
            for i, c in enumerate(child_of):
                child_extra[:, c] += diff[:, i]
            parent_of = [
                parents.index(rows[next(v for v in self.values if rows[v][level - 1] == ch)][level]) for ch in children
            ]
            for a in range(len(parents)):
                members = child_extra[:, [c for c in range(len(children)) if parent_of[c] == a]]
                pos = np.where(members > 0, members, 0).sum(axis=1)
                neg = -np.where(members < 0, members, 0).sum(axis=1)
                cost += level / height * np.minimum(pos, neg)
        return cost

    def evaluate(self, node, models, limit_rows):
        """(anonymous, suppressed rows, kept class sizes)."""
        hist = self.histograms(node)
        n = hist.sum(axis=1)
        kept = np.ones(len(n), dtype=bool)
        for model in models:
            kept &= self.passes(hist, model, self.populations(node))
        suppressed = int(n[~kept].sum())
        sizes = n[kept]
        rows = int(sizes.sum())
        anonymous = suppressed <= limit_rows
        for model in models:
            if model["type"] == "average-risk":
                anonymous &= (len(sizes) / rows if rows else 0.0) <= model["threshold"] + 1e-10
            if model["type"] == "sample-uniqueness":
                anonymous &= (int((sizes == 1).sum()) / rows if rows else 0.0) <= model["threshold"] + 1e-10
            if model["type"] == "delta-presence" and model.get("dmin", 0.0) > 0:  # Nergiz et al.: every class of P
                anonymous &= self.empty(node) == 0
        return bool(anonymous), suppressed, sizes
