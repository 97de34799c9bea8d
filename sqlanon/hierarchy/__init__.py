"""Generalization hierarchies: the ARX CSV format, validation and integer encoding."""

from sqlanon.hierarchy.model import EncodedHierarchy, Hierarchy
from sqlanon.hierarchy.arx_csv import read_hierarchy

__all__ = ["EncodedHierarchy", "Hierarchy", "read_hierarchy"]
