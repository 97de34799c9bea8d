"""The DuckDB engine (``engine``): its connection, the sources it reads, the research subset,
the QIs' codes and ENUMs, batched checks, and the release it streams into a file (``writing``,
``release``)."""
