"""The six-row table every metric is computed on by hand (tests/unit/test_metrics.py, tests/unit/test_metrics_more.py)."""

# A: x, y -> "xy" -> *, z -> "z" -> *   (|H_A| = 3, height 2)
# B: p, q -> *                           (|H_B| = 2, height 1)
HIERARCHIES = {"A": [["x", "xy", "*"], ["y", "xy", "*"], ["z", "z", "*"]], "B": [["p", "*"], ["q", "*"]]}
ROWS = {"A": ["x", "x", "y", "y", "z", "z"], "B": ["p", "p", "p", "q", "q", "q"]}
