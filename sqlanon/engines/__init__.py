"""Engines: the only place that executes anything. Registered by name."""

from sqlanon.engines.base import Engine, PreparedData
from sqlanon.engines.duckdb import DuckDBEngine
from sqlanon.engines.memory import MemoryEngine
from sqlanon.engines.postgres import PostgresEngine
from sqlanon.engines.spark import SparkEngine  # pyspark is imported when one is created

ENGINES = {"duckdb": DuckDBEngine, "memory": MemoryEngine, "postgres": PostgresEngine, "spark": SparkEngine}


def create_engine(name: str, **options) -> Engine:
    return ENGINES[name](**options)


__all__ = ["ENGINES", "Engine", "PreparedData", "create_engine"]
