"""One node's check, from the search's request to the engine's figures: the checker (the only door
from the search to the data), where a check runs (placement) and which materialized class table
it starts from (snapshots). What a check needs and returns is the shared vocabulary
(``sqlanon/core/needs.py``, ``stats.py``)."""
