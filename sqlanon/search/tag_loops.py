"""Predictive tagging's spreads as compiled walks (numba), for ``sqlanon/search/tagging.py``.

A spread tags the untagged nodes reachable from a node through untagged neighbours (its
generalizations or its specializations: see tagging's docstring for why those are exactly
the nodes its result implies). In Python a walk costs ~0.1 µs a neighbour and a box of the
lattice 5-15 µs: on ADULT's 9 QIs, k = 5, s = 0, the down spreads took 1.3 ms of the ~3 ms a
search spends outside its checks (0.1 ms each). Compiled, a walk costs what it tags, a few
nanoseconds a neighbour, with no box.

Used only once loaded (``warm``: a session with local checks loads them in its background
thread with the kernel's loops), so a search whose checks run in SQL never pays numba's
set-up for them; ``tagging.Tags`` falls back to its Python walk and box, which tag the same
nodes.
"""

from __future__ import annotations

import numba
import numpy as np

from sqlanon.lattice.index import WALK_IDS

#: set once ``warm`` has loaded the compiled walk in this process
READY = False


@numba.njit(cache=True, nogil=True)
def spread(state, neighbours, node, value, stack):  # pragma: no cover - compiled
    """Tag ``value`` every untagged node reachable from ``node`` through untagged
    ``neighbours`` (rows of ids; a missing one is an id whose byte is nonzero); return how
    many. ``stack``: scratch of at least as many slots as there are nodes."""
    top, count = 1, 0
    stack[0] = node
    width = neighbours.shape[1]
    while top > 0:
        top -= 1
        current = stack[top]
        for i in range(width):
            other = neighbours[current, i]
            if state[other] == 0:
                state[other] = value
                count += 1
                stack[top] = other
                top += 1
    return count


def warm() -> None:
    """Load the compiled walk (see the module's docstring); on any failure the Python walk serves."""
    global READY
    for ids in WALK_IDS:  # both types a lattice's neighbour arrays come in, compiled (or loaded) now
        state = np.array([0, 1], np.uint8)
        spread(state, np.array([[1], [1]], ids), 0, 2, np.zeros(2, np.int64))
    READY = True
