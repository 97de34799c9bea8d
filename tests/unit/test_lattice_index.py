"""The numbered lattice and the tags over it, held to the tuple-based definitions they replace:
Lattice.order_key / successors / predecessors, and predictive tagging as a walk over
neighbour tuples (the implementation before the ids, kept here as the reference)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sqlanon.lattice import index as lattice_index

from sqlanon.search import tag_loops

from sqlanon.search import tagging
from sqlanon.lattice import Lattice, generalizes
from sqlanon.search.tagging import ANONYMOUS, NOT_ANONYMOUS, PRUNED, UNKNOWN, Tags


@st.composite
def lattices(draw, max_qis=4):
    heights = draw(st.lists(st.integers(0, 3), min_size=1, max_size=max_qis))
    distinct = [
        sorted(draw(st.lists(st.integers(1, 60), min_size=h + 1, max_size=h + 1)), reverse=True) for h in heights
    ]
    names = draw(st.permutations([f"q{j}" for j in range(len(heights))]))
    return Lattice(heights, distinct, names)


@settings(max_examples=60, deadline=None)
@given(lattices())
def test_the_index_numbers_orders_and_links_the_nodes_as_the_lattice_does(lattice):
    index = lattice.index
    every = [
        n for level in range(lattice.height + 1) for n in sorted(lattice.nodes_on_level(level), key=lattice.order_key)
    ]
    assert [index.nodes[i] for i in index.order] == every
    assert list(lattice.nodes()) == every
    assert [index.rank[i] for i in index.order] == list(range(lattice.size))
    for node in every:
        i = index.id(node)
        assert index.nodes[i] == node
        up = [u for u in index.up[i] if u != index.size]
        assert [index.nodes[u] for u in up] == sorted(lattice.successors(node), key=lattice.order_key)
        assert [index.nodes[d] for d in index.down[i] if d != index.size] == lattice.predecessors(node)
    assert index.ids(every).tolist() == [index.id(n) for n in every]


def test_the_order_beyond_int64_falls_back_to_the_exact_keys(monkeypatch):
    # distinct counts that are large primes: their common denominator overflows int64
    primes = [1000003, 1000033, 1000037, 1000039]
    lattice = Lattice(
        (2, 1, 1, 2), [(p, p // 7, 1)[: h + 1] for p, h in zip(primes, (2, 1, 1, 2))], ["d", "a", "c", "b"]
    )
    assert lattice.order_terms()[2] >= 2**63
    assert list(lattice.nodes()) == [
        n for level in range(lattice.height + 1) for n in sorted(lattice.nodes_on_level(level), key=lattice.order_key)
    ]
    spec = ((2, 1, 3), [(9, 4, 1), (5, 1), (30, 12, 3, 1)], ["b", "c", "a"])
    vectorized = Lattice(*spec).index.order
    monkeypatch.setattr(lattice_index, "_INT64", 1)  # the same lattice through the fallback
    assert Lattice(*spec).index.order == vectorized


def test_upward_closure_is_the_nodes_and_their_generalizations():
    lattice = Lattice((2, 1, 3))
    index = lattice.index
    seeds = [(1, 0, 2), (2, 1, 0)]
    mask = index.upward_closure(index.id(n) for n in seeds)
    expected = {n for n in lattice.nodes() if any(generalizes(n, s) for s in seeds)}
    assert {index.nodes[i] for i in np.flatnonzero(mask)} == expected


class ReferenceTags:
    """Predictive tagging as it was written over tuples: a walk through the neighbours."""

    def __init__(self, lattice):
        self.lattice, self.state, self.predicted, self.pruned = lattice, {}, 0, 0

    def record(self, node, anonymous):
        self.state[node] = anonymous
        if anonymous:
            self._spread(node, self.lattice.successors, True, lambda o: o not in self.state)
        else:
            self._spread(node, self.lattice.predecessors, False, lambda o: self.state.get(o, 0) is not False)

    def prune(self, node):
        if node not in self.state:
            self.state[node] = None
            self.pruned += 1
        self._spread(node, self.lattice.successors, None, lambda o: o not in self.state)

    def _spread(self, node, step, value, open_):
        frontier = [node]
        while frontier:
            for other in step(frontier.pop()):
                if open_(other):
                    if value is None:
                        self.pruned += 1
                    else:
                        self.predicted += self.state.get(other, 0) is not None
                    self.state[other] = value
                    frontier.append(other)


CODES = {True: ANONYMOUS, False: NOT_ANONYMOUS, None: PRUNED}


# box at once, as shipped, walk only (in Python), and the compiled walk (sqlanon/search/tag_loops.py)
@pytest.mark.parametrize("walk", [0, tagging.WALK, 10**9, "compiled"])
@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=5), st.data())
def test_tags_on_ids_tag_what_the_walk_over_tuples_tags(walk, heights, data):
    """Any verdicts, monotonic or not, on untagged nodes in any order (as Flash and OLA call
    them): the same tags and the same counters, whether a spread walks or takes the box, in
    Python or compiled."""
    tag_loops.warm()
    shipped, ready = tagging.WALK, tag_loops.READY
    tagging.WALK = shipped if walk == "compiled" else walk
    tag_loops.READY = walk == "compiled"
    try:
        _compare_tags(heights, data, compiled=walk == "compiled")
    finally:
        tagging.WALK, tag_loops.READY = shipped, ready


def test_a_lattice_past_16_bit_ids_walks_on_64_bit_neighbours():
    """65,536 nodes: the missing neighbour's id no longer fits 16 bits, so the compiled walk
    reads 64-bit arrays and tags what the Python walk tags."""
    tag_loops.warm()
    index = Lattice((15, 15, 15, 15)).index
    assert index.size == 65_536 and index.up_array.dtype == index.down_array.dtype == np.int64
    assert Lattice((15, 15, 15, 14)).index.up_array.dtype == np.uint16
    ready = tag_loops.READY
    found = []
    try:
        for compiled in (True, False):
            tag_loops.READY = compiled
            tags = Tags(index)
            assert (tags._walk is not None) == compiled
            tags.record(index.id((7, 8, 9, 10)), False)
            tags.record(index.id((3, 2, 12, 4)), True)
            found.append((bytes(tags.state), tags.predicted))
    finally:
        tag_loops.READY = ready
    assert found[0] == found[1] and found[0][1] == 8 * 9 * 10 * 11 - 1 + 13 * 14 * 4 * 12 - 1


def _compare_tags(heights, data, compiled):
    lattice = Lattice(heights)
    index = lattice.index
    tags, reference = Tags(index), ReferenceTags(lattice)
    assert (tags._walk is not None) == compiled
    nodes = list(itertools.product(*(range(h + 1) for h in heights)))
    for _ in range(data.draw(st.integers(1, 25))):
        untagged = [n for n in nodes if n not in reference.state]
        if not untagged:
            break
        node = data.draw(st.sampled_from(untagged))
        action = data.draw(st.sampled_from(["anonymous", "not", "prune"]))
        if action == "prune":
            tags.prune(index.id(node))
            reference.prune(node)
        else:
            tags.record(index.id(node), action == "anonymous")
            reference.record(node, action == "anonymous")
        expected = [CODES[reference.state[n]] if n in reference.state else UNKNOWN for n in index.nodes]
        assert list(tags.state[: index.size]) == expected
        assert (tags.predicted, tags.pruned) == (reference.predicted, reference.pruned)
    assert tags.anonymous().tolist() == [reference.state.get(n, 0) is True for n in index.nodes]


@settings(max_examples=40, deadline=None)
@given(lattices(max_qis=5), st.data())
def test_tag_boxes_are_views_of_the_generalizations_and_specializations(lattice, data):
    """Tags' boxes, built as strided views of the tag bytes, hold exactly the node's
    generalizations (above) or specializations (below), and writing to them tags those."""
    index = lattice.index
    tags = Tags(index)
    tags.state[: index.size] = bytes(data.draw(st.lists(st.integers(0, 3), min_size=index.size, max_size=index.size)))
    node = data.draw(st.integers(0, index.size - 1))
    levels = index.nodes[node]
    above = {i for i in range(index.size) if generalizes(index.nodes[i], levels)}
    below = {i for i in range(index.size) if generalizes(levels, index.nodes[i])}
    for box, members in ((tags._above(node), above), (tags._below(node), below)):
        assert box.size == len(members)
        assert sorted(box.ravel().tolist()) == sorted(tags.state[i] for i in members)
        before = bytes(tags.state)
        box.fill(7)
        assert [i for i in range(index.size + 1) if tags.state[i] != before[i]] == sorted(members)
        tags.state[:] = before


def test_ids_take_lists_generators_and_nothing():
    index = Lattice((2, 1, 3)).index
    nodes = [(0, 0, 0), (2, 1, 3), (1, 0, 2)]
    assert index.ids(nodes).tolist() == index.ids(iter(nodes)).tolist() == [index.id(n) for n in nodes] == [0, 23, 10]
    assert index.ids([]).tolist() == [] and index.ids(iter(())).dtype == np.int64
