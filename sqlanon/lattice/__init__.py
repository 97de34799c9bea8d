"""The generalization lattice (``space.py``) and its numbering for the optimal algorithms
(``index.py``)."""

from sqlanon.lattice.space import Lattice, Node, generalizes

__all__ = ["Lattice", "Node", "generalizes"]
