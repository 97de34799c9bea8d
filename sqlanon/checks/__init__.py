"""One node's check, from the search's request to the engine's figures: the checker (the only door
from the search to the data), the figures it returns, where a check runs (placement) and which
materialized class table it starts from (snapshots)."""
