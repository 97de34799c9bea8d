"""Everything a run writes: the guard over its targets and their publication as one unit."""

from sqlanon.release.guard import Protected, protected_files
from sqlanon.release.publication import Publication, sweep_stale, temporary_name

__all__ = ["Protected", "Publication", "protected_files", "sweep_stale", "temporary_name"]
