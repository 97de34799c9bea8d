"""The shared SQL engine: a ``SqlEngine`` (``engine``) that prepares the class tables in its
database (``preparation``), runs checks there one by one or in batches (``checks``,
``batches``), keeps snapshots as temp tables (``snapshots``), writes the release
(``release``), or fetches its class table once for the kernel (``local_checks``). DuckDB,
PostgreSQL and Spark are its subclasses."""
