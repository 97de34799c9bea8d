"""A node of the generalization lattice: one level per quasi-identifier, in the job's order of
the QIs. The lattice (``sqlanon/lattice/``) orders and numbers them; every layer passes them."""

Node = tuple[int, ...]
