"""The Spark engine (``engine``) and what it reads and writes (``io``)."""
