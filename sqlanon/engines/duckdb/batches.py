"""The DuckDB engine's batches of lean checks on two connections: a table of one row group gives
a second thread nothing to scan, so a batch's statements run on a second connection too, each
on whichever is free (``DuckDBBatches._pipeline``)."""

from __future__ import annotations

import queue
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing
from typing import TYPE_CHECKING, Any

import duckdb

from sqlanon import sql as c
from sqlanon.core.stats import ClassStats
from sqlanon.engines.duckdb.connection import DIALECT, interruptible
from sqlanon.engines.sql.fetched import fetched_bytes, text_bytes
from sqlanon.engines.sql.batches import SqlBatches, statements
from sqlanon.lattice import Node


ROW_GROUP = 122_880  # rows of one DuckDB row group: a smaller table is scanned by one thread


_PIECE = 16  # nodes a statement of a batch on two connections holds at most (_pipeline)


_AHEAD = 4  # statements of a batch handed to the connections before the first one is read


class DuckDBBatches(SqlBatches):
    """Batches on two connections.

    A part of ``DuckDBEngine`` (``engines/duckdb/engine.py``), which mixes it in: it reads the
    attributes ``DuckDBEngine.__init__`` and ``SqlEngine.__init__`` set. It specializes
    ``SqlBatches``, whose batches it falls back on (``super()``); ``SqlEngine`` mixes that in
    too, so the engine's method order is the same as without the base.
    """

    if TYPE_CHECKING:  # the host's (DuckDBEngine's and SqlEngine's); nothing at runtime
        con: duckdb.DuckDBPyConnection
        queries: int
        bytes_fetched: int
        _threads: int
        _second: duckdb.DuckDBPyConnection | None
        _pieces: ThreadPoolExecutor | None
        _idle: queue.SimpleQueue[duckdb.DuckDBPyConnection]

        def quoted(self, name: str) -> str: ...
        def _mode(self, lean: bool, rows: int) -> None: ...

    def run_batch(self, queries: Sequence[str], params: dict, lean_rows: int | None) -> list[tuple]:
        """Rows of lean checks: statements of ``_PIECE`` queries on two connections
        (``_pipeline``)."""
        if lean_rows is None or not self._splits(lean_rows, len(queries)):
            return super().run_batch(queries, params, lean_rows)
        cuts = statements(len(queries), _PIECE, least=2)
        texts = (c.batch_query(queries[a:b], DIALECT, tags=range(a, b)) for a, b in cuts)
        with closing(self._pipeline(lean_rows, texts, params, rows=True)) as results:
            return [row for rows in results for row in rows]

    def run_sizes_batch(self, nodes: Sequence[Node], render, read, params: dict, lean_rows: int) -> list[ClassStats]:
        """Class sizes: statements of ``_PIECE`` nodes on two connections (``_pipeline``).
        This thread renders the next statement and reads each one's figures while the
        connections run the others: with a batch cut in two halves, one per connection,
        rendering first and reading and recording last left a core idle for a fifth of a
        batch (bench/sql_checks.py)."""
        if not self._splits(lean_rows, len(nodes)):
            return super().run_sizes_batch(nodes, render, read, params, lean_rows)
        cuts = statements(len(nodes), _PIECE, least=2)
        texts = (self.sizes_batch_query(nodes[a:b], render) for a, b in cuts)
        # closing: an error in ``read`` stops the statements still running at once
        with closing(self._pipeline(lean_rows, texts, params)) as results:
            return [stats for (a, b), found in zip(cuts, results) for stats in read(found, b - a)]

    def _splits(self, lean_rows: int | None, count: int) -> bool:
        """A batch of lean checks over a class table of one row group runs on one thread
        (``_mode``), so the second core has nothing to do: such a batch, of four nodes or
        more, runs on two connections when DuckDB has two threads."""
        return lean_rows is not None and lean_rows < ROW_GROUP and self._threads >= 2 and count >= 4

    def _pipeline(
        self, lean_rows: int, queries: Iterator[str], params: dict, rows: bool = False
    ) -> Generator[Any, None, None]:
        """Yield the result of each of ``queries`` in order (arrays; ``rows``: a list of
        tuples). Two threads run them, each on whichever of the two connections is free, so
        one that finishes early takes the next statement instead of waiting for its turn.
        This thread renders the next statements (``queries`` is lazy, ``_AHEAD`` in flight)
        while the ones before run, and reads each result as it comes. DuckDB's fixed cost
        per grouped part (binding, planning, a hash table: ~0.3 ms even over ten rows,
        ``bench/sql_checks.py --floor``) is what a batch pays per node, so what two
        connections buy is the second core. Counters are this thread's."""
        self._mode(True, lean_rows)  # DuckDB's settings are the database's: both connections run lean
        connections = (self.con, self._second_connection())
        if self._pieces is None:
            self._pieces = ThreadPoolExecutor(2, thread_name_prefix="sqlanon-batch")
            for con in connections:
                self._idle.put(con)
        pieces = self._pieces
        pending: deque[Future[tuple[list[tuple] | dict[str, Any], int]]] = deque()

        def submit() -> None:
            sql = next(queries, None)
            if sql is not None:
                pending.append(pieces.submit(_fetch_piece, self._idle, sql, params, rows))

        try:
            for _ in range(_AHEAD):
                submit()
            while pending:
                found, fetched = pending[0].result()  # left in ``pending`` until done, for the cleanup below
                pending.popleft()
                submit()
                self.queries += 1
                self.bytes_fetched += fetched
                yield found
        except BaseException:
            for con in connections:
                con.interrupt()  # an interrupted or failed batch leaves nothing running
            for future in pending:
                future.cancel() or future.exception()
            raise

    def _second_connection(self) -> duckdb.DuckDBPyConnection:
        """A second connection to this database holding its own copy of the wide class table
        (a temp table is its connection's only), made at the first batch that uses it."""
        if self._second is None:
            second = self.con.cursor()
            sqlanon_wide_copy = self.con.sql(f"SELECT * FROM {self.quoted(c.WIDE)}").to_arrow_table()  # noqa: F841
            second.execute(f"CREATE TEMP TABLE {self.quoted(c.WIDE)} AS SELECT * FROM sqlanon_wide_copy").fetchall()
            self._second = second
        return self._second

    def _drop_second(self) -> None:
        if self._pieces is not None:
            self._pieces.shutdown()
            self._pieces, self._idle = None, queue.SimpleQueue()
        if self._second is not None:
            self._second.close()
            self._second = None


def _fetch_piece(
    idle: queue.SimpleQueue[duckdb.DuckDBPyConnection], sql: str, params: dict, rows: bool
) -> tuple[list[tuple] | dict[str, Any], int]:
    """A statement of a batch on an idle connection, from a thread of the batch: its result
    (arrays; ``rows``: tuples) and the text length of what it fetched (counters stay the
    caller's). Two threads share the two connections, so one is idle when a thread starts."""
    con = idle.get()
    try:
        with interruptible():
            if rows:
                found = con.execute(sql, params).fetchall()
                return found, fetched_bytes(found)
            arrays = con.execute(sql, params).fetchnumpy()
            return arrays, text_bytes(arrays)
    finally:
        idle.put(con)
