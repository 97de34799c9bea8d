"""What a suppressed row holds in every QI when ``output.suppressed = "mask"``: every engine
writes it (the SQL engines bind it as ``$mask``), and the verification, ``sqlanon check`` and
the risk re-count recognise a suppressed row by it, so they must agree: it is defined here once.
The engines refuse it as a QI value of the input (``engines/mask_values.py``).
"""

MASK = "*"
