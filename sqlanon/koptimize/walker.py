"""Drives the compiled tree (``tree.dfs``): a ``Walker`` holds one search state over the subtree
of one node, and ``walk`` runs the whole tree with one walker or, with ``threads`` > 1, cut
into subtrees that threads take in depth-first order.

``tree.dfs`` releases the GIL (numba ``nogil``), so threads run on separate cores. Each walker
keeps its own best cost and cut set; between chunks of nodes the threads share the best cost
under a lock, so a cost one thread finds prunes the others' subtrees from their next chunk on.
The cut is made at the top of the tree: the largest subtree (the one with the longest tail) is
replaced by its children until there are ``TASKS_PER_THREAD`` per thread. A subtree's root then
misses the PRUNE its parent would have made after each earlier child; its own PRUNE makes up
for that (its allset is within the parent's), so the tree is complete and the optimum the same,
while the counts of nodes differ a little from one thread's.

The first subtrees are by far the largest (the first child of a node inherits the whole tail),
so a static cut leaves a thread idle while another walks the first subtree alone. A thread that
finds no task left therefore asks for work, and a busy walker, between two chunks, gives away
the children it has not started at the shallowest depth that has any (``Walker.donate``): they
become tasks, and the walker ends that node's loop after its current child. Each is a whole
subtree, as from the cut, so the same argument keeps the search complete.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from sqlanon.koptimize import tree
from sqlanon.koptimize.heads import HeadClasses
from sqlanon.koptimize.prune import CM, DM

TASKS_PER_THREAD = 32
COUNTERS = ("nodes", "pruned_nodes", "pruned_values", "useless_values", "infeasible_values")
#: a subtree: its head (the values taken) and its tail (the values still to try), as (head, tail)
Task = tuple[list[int], list[int]]


def _subtrees(head: list[int], tail: list[int]) -> list[Task]:
    """The children of the node ``head`` with the ordered ``tail``, as (head, tail): each value
    in turn, with the values after it (the set-enumeration tree)."""
    return [(head + [v], tail[i + 1 :]) for i, v in enumerate(tail)]


class Walker:
    """The state of ``tree.dfs`` over the subtree of the node with head ``head`` and tail
    ``tail`` (in the order to expand). The row buffer starts with the class table and the
    node's head classes (slice 0); each depth's pieces follow their parent's."""

    def __init__(self, search, head: list[int], tail: list[int]):
        self.search = search
        model = search.model
        m, V = model.ranks.shape[1], len(model.alphabet)
        room = search._ROOM * m
        self.ranks = np.zeros((model.dimensions, room), dtype=np.int64)
        self.ranks[:, :m] = model.ranks
        self.weights = np.zeros(room, dtype=np.int64)
        self.weights[:m] = model.weights
        # label counts, one row per label (classification); one row of zeros for DM
        L = 1 if model.labels is None else model.labels.shape[1]
        self.labels = np.zeros((L, room), dtype=np.int64)
        if model.labels is not None:
            self.labels[:, :m] = model.labels.T
        self.pcls, self.ccls = np.zeros(room, dtype=np.int64), np.zeros(room, dtype=np.int64)
        self.sizes = np.zeros(room, dtype=np.int64)
        self.class_labels = np.zeros((L, room), dtype=np.int64)
        self.slice_start, self.slice_len = np.zeros(V + 2, dtype=np.int64), np.zeros(V + 2, dtype=np.int64)
        self.slice_len[0] = m
        self.size_start, self.counts = np.zeros(V + 2, dtype=np.int64), np.zeros(V + 2, dtype=np.int64)
        self.head_marks, self.head_vals = np.zeros(search._marks_size, dtype=np.int64), np.zeros(V + 1, dtype=np.int64)
        self.regs = np.zeros(tree.REGISTERS, dtype=np.int64)
        if head:
            heads = HeadClasses(model)
            for v in head:
                heads.push(v)
            self.ccls[:m] = heads.cls
            self.sizes[: heads.count] = heads.sizes()
            head_labels = heads.labels()  # None when the model counts no labels
            if head_labels is not None:
                self.class_labels[:, : heads.count] = head_labels.T
            self.counts[0] = heads.count
            self.head_marks[search._pos[head]] = 1
            self.head_vals[: len(head)] = head
            self.regs[tree.R_HEAD] = len(head)
        else:
            self.sizes[0] = model.rows
            self.class_labels[:, 0] = self.labels[:, :m].sum(axis=1)
            self.counts[0] = 1  # the root: one class of every row
        self.best = np.array([-1], dtype=np.int64)
        self.best_vals = np.zeros(V + 1, dtype=np.int64)
        self.pool = np.zeros((V + 2, max(V, 1)), dtype=np.int64)
        self.pool[0, : len(tail)] = tail
        self.frame_len = np.zeros(V + 2, dtype=np.int64)
        self.frame_len[0] = len(tail)
        self.frame_pos = np.zeros(V + 2, dtype=np.int64)
        self.whole = np.zeros(V + 2, dtype=np.int64)
        self.metric = CM if search.cost.name == "classification" else DM
        self.scratch = (
            np.zeros(m + 2, dtype=np.int64),
            np.zeros((L, m + 2), dtype=np.int64),
            np.full(m + 2, -1, dtype=np.int64),
            np.zeros(m + 2, dtype=np.int64),
            *search._hash_table(),
        )

    def run(self, budget: int) -> int:
        """``tree.dfs`` until ``budget`` nodes (counted by this walker) or the end of the
        subtree (DONE); a buffer that is too small is doubled and the same call resumes."""
        s = self.search
        while True:
            phase = tree.dfs(
                budget,
                self.metric,
                s.cost.k,
                s.cost.n,
                s.cost.limit,
                s.cm_ties,
                s._tail_j,
                s._tail_r,
                s._pos,
                s._offsets,
                s._dom_sizes,
                self.ranks,
                self.weights,
                self.labels,
                self.pcls,
                self.ccls,
                self.slice_start,
                self.slice_len,
                self.sizes,
                self.class_labels,
                self.size_start,
                self.counts,
                self.head_marks,
                self.head_vals,
                self.regs,
                self.best,
                self.best_vals,
                self.pool,
                self.frame_len,
                self.frame_pos,
                self.whole,
                *self.scratch,
            )
            if phase != tree.GROW:
                return phase
            self.ranks, self.labels, self.class_labels = (
                np.concatenate([x, np.zeros_like(x)], axis=1) for x in (self.ranks, self.labels, self.class_labels)
            )
            self.weights, self.pcls, self.ccls, self.sizes = (
                np.concatenate([x, np.zeros_like(x)]) for x in (self.weights, self.pcls, self.ccls, self.sizes)
            )

    def counters(self) -> dict[str, int]:
        r = self.regs
        return {
            "nodes": int(r[tree.R_NODES]),
            "pruned_nodes": int(r[tree.R_PRUNED]),
            "pruned_values": int(r[tree.R_PRUNED_VALUES]),
            "useless_values": int(r[tree.R_USELESS]),
            "infeasible_values": int(r[tree.R_INFEASIBLE]),
        }

    def donate(self) -> list[Task]:
        """Between two ``run`` calls (paused on entering a node at depth D): the children not
        yet started of the shallowest node above D that has any, as (head, tail) in the order
        the tree would expand them; that node's loop then ends after its current child, so
        its re-PRUNE is skipped as for a cut subtree's root. Empty when there are none."""
        regs = self.regs
        depth = int(regs[tree.R_DEPTH])
        if regs[tree.R_PHASE] != tree.ENTER:
            return []
        base = int(regs[tree.R_HEAD]) - depth  # the head length of the task's root
        for d in range(depth):
            start, stop = int(self.frame_pos[d]), int(self.frame_len[d])
            if start < stop:
                head = [int(v) for v in self.head_vals[: base + d]]
                tail = [int(v) for v in self.pool[d, start:stop]]
                self.frame_len[d] = start
                return _subtrees(head, tail)
        return []

    def children(self) -> list[Task]:
        """After the subtree's root was entered (``run(1)``): its children, as (head, tail),
        in the order the tree expands them."""
        head = [int(v) for v in self.head_vals[: self.regs[tree.R_HEAD]]]
        if self.regs[tree.R_DEPTH] > 0:
            head = head[:-1]  # the first child is already pushed
        return _subtrees(head, [int(v) for v in self.pool[0, : self.frame_len[0]]])


class _Shared:
    """What the threads share: the best cost (the search's), counters, the tasks left, and
    how many threads walk a task (``busy``) or wait for one (``hungry``)."""

    def __init__(self, search, tasks: list[Task], base: dict[str, int]):
        self.search, self.tasks, self.lock = search, tasks, threading.Lock()
        self.ready = threading.Condition(self.lock)
        self.counters = dict(base)
        self.stopped = False
        self.busy = self.hungry = 0

    def take(self) -> Task | None:
        """The next task; while there is none but a thread is still walking one, wait for
        it to give some away. None: the tree is done (or the search stopped)."""
        with self.lock:
            while not self.stopped and not self.tasks and self.busy > 0:
                self.hungry += 1
                self.ready.wait(0.5)
                self.hungry -= 1
            if self.stopped or not self.tasks:
                return None
            self.busy += 1
            return self.tasks.pop(0)

    def done(self) -> None:
        with self.lock:
            self.busy -= 1
            self.ready.notify_all()

    def share(self, walker: Walker) -> None:
        """Between two chunks: when a thread waits for work, give it the walker's children
        not yet started (``Walker.donate``)."""
        if self.hungry == 0 or self.tasks:  # read without the lock: a hint, checked below
            return
        with self.lock:
            if self.hungry > 0 and not self.tasks:
                self.tasks.extend(walker.donate())
                self.ready.notify_all()

    def exchange(self, walker: Walker, known: int, reported: int = 0) -> None:
        """Publish the walker's improvement (if it found one since it was told ``known``) and
        tell it the best cost of all. ``reported``: the walker's nodes already counted here,
        to log the improvement's node number (exact with one thread)."""
        s = self.search
        with self.lock:
            b = int(walker.best[0])
            if b >= 0 and b != known and b < s.best:
                cuts = walker.best_vals[: walker.regs[tree.R_BEST_LEN]]
                at = self.counters["nodes"] - reported + int(walker.regs[tree.R_BEST_AT])
                s._improve(b, [int(v) for v in cuts], "search", at)
            if s.best_cuts is not None and (walker.best[0] < 0 or s.best < walker.best[0]):
                walker.best[0] = int(s.best)

    def over(self) -> bool:
        s = self.search
        with self.lock:
            if s.step_limit is not None and self.counters["nodes"] >= s.step_limit:
                self.stopped = True
            if s.time_limit is not None and time.perf_counter() - s.started > s.time_limit:
                self.stopped = True
            if self.stopped:
                self.ready.notify_all()
            return self.stopped


def _walk_task(shared: _Shared, head: list[int], tail: list[int], chunk: int) -> bool:
    """One subtree to its end; False when a limit stopped it."""
    walker = Walker(shared.search, head, tail)
    done = 0
    reported = walker.counters()
    for name in reported:
        reported[name] = 0
    limit = shared.search.step_limit
    while True:
        shared.exchange(walker, -2)
        known = int(walker.best[0])
        budget = chunk if limit is None else max(1, min(chunk, limit - shared.counters["nodes"]))
        phase = walker.run(done + budget)
        done = int(walker.regs[tree.R_NODES])
        shared.exchange(walker, known, reported["nodes"])
        now = walker.counters()
        with shared.lock:
            for name, value in now.items():
                shared.counters[name] += value - reported[name]
        reported = now
        if phase == tree.DONE:
            return True
        if shared.over():
            return False
        shared.share(walker)


def walk(search, threads: int, chunk: int) -> bool:
    """The whole tree: True when it was exhausted (the best cost is proven optimal)."""
    V = len(search.model.alphabet)
    root: Task = ([], list(range(V)))
    tasks: list[Task]
    base: dict[str, int]
    if threads <= 1:
        tasks, base = [root], {}
    else:
        tasks, base = _cut(search, root, threads * TASKS_PER_THREAD)
    shared = _Shared(search, tasks, {name: search.counters.get(name, 0) + base.get(name, 0) for name in COUNTERS})
    results: list[bool] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            while True:
                task = shared.take()
                if task is None:
                    return
                try:
                    finished = _walk_task(shared, *task, chunk)
                finally:
                    shared.done()
                if not finished:
                    results.append(False)
                    return
        except BaseException as error:  # a lost subtree must not pass for a proof
            with shared.lock:
                shared.stopped = True
                shared.ready.notify_all()
            errors.append(error)

    if threads <= 1:
        work()
    else:
        pool = [threading.Thread(target=work, daemon=True) for _ in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    if errors:
        raise errors[0]
    search.counters.update(shared.counters)
    return not results and not shared.tasks and not shared.stopped


def _cut(search, root: Task, wanted: int) -> tuple[list[Task], dict[str, int]]:
    """The top of the tree as subtrees in depth-first order: the one with the longest tail is
    entered (``run(1)``) and replaced by its children until there are ``wanted``."""
    tasks = [root]
    counters = dict.fromkeys(COUNTERS, 0)
    shared = _Shared(search, [], counters)
    while len(tasks) < wanted:
        at = max(range(len(tasks)), key=lambda i: len(tasks[i][1]))
        if len(tasks[at][1]) < 2:
            break
        walker = Walker(search, *tasks[at])
        shared.exchange(walker, -2)
        known = int(walker.best[0])
        walker.run(1)
        shared.exchange(walker, known)
        for name, value in walker.counters().items():
            counters[name] += value
        tasks[at : at + 1] = walker.children()
    return tasks, counters
