"""The SciPy functions the population-uniqueness estimators call, imported on their first call.

Importing ``scipy.special`` and ``scipy.optimize`` takes about 0.2 s, which every run would pay
through the privacy models' registry, while only the Pitman, SNB and Zayatz estimators use them
(``pitman.py``, ``snb.py``, ``zayatz.py``). Python caches a module once imported, so a call after
the first costs a dictionary lookup.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any


def _special() -> Any:
    return import_module("scipy.special")


def _optimize() -> Any:
    return import_module("scipy.optimize")


def digamma(x: Any) -> Any:
    return _special().digamma(x)


def gammaln(x: Any) -> Any:
    return _special().gammaln(x)


def expit(x: Any) -> Any:
    return _special().expit(x)


def logit(x: Any) -> Any:
    return _special().logit(x)


def brentq(*args: Any, **kwargs: Any) -> Any:
    return _optimize().brentq(*args, **kwargs)


def root(*args: Any, **kwargs: Any) -> Any:
    return _optimize().root(*args, **kwargs)
