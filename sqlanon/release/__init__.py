"""Everything a run writes: the guard over its targets (guard.py), their publication as one
unit (publication.py: locks.py, placement.py, journal.py, tables.py), a node's release from
the engine (node.py) and the write, verification and confirmation of the output (pipeline.py,
verify.py)."""

from sqlanon.release.guard import Protected, protected_files
from sqlanon.release.publication import Publication

__all__ = ["Protected", "Publication", "protected_files"]
