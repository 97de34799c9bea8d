"""Re-identification risk from class sizes: the numerical core of the risk analysis.

Pure numpy/SciPy: the input is the sample's class-size frequency table ``{size: number of
classes}`` (what an engine returns from SQL) and the sampling fraction or population size.
Wired to the report, the ``risk`` command and the population-uniqueness model by
``sqlanon/report/risk.py`` and ``analysis.py`` (see docs/risk.md).

* :func:`prosecutor` — sample figures (highest and average risk, records at risk, uniqueness).
* :func:`zayatz`, :func:`pitman`, :func:`snb` — population-uniqueness estimators.
* :func:`dankar` — Dankar et al.'s rule choosing among them, with its fallbacks.

``sqlanon.risk(data, quasi=[...])`` calls ``sqlanon.api.risk``: the package's module is
callable, so the API's ``risk`` and this package share the name ``sqlanon.risk``.
"""

import sys
import types

from sqlanon.risk.dankar import DankarEstimate, dankar
from sqlanon.risk.estimate import UniquenessEstimate
from sqlanon.risk.frame import ClassSizes, Frame, sampling_frame
from sqlanon.risk.pitman import pitman
from sqlanon.risk.prosecutor import Bucket, ProsecutorRisk, prosecutor
from sqlanon.risk.snb import snb
from sqlanon.risk.zayatz import zayatz

__all__ = [
    "Bucket",
    "ClassSizes",
    "DankarEstimate",
    "Frame",
    "ProsecutorRisk",
    "UniquenessEstimate",
    "dankar",
    "pitman",
    "prosecutor",
    "sampling_frame",
    "snb",
    "zayatz",
]


class _CallableModule(types.ModuleType):
    def __call__(self, *args, **kwargs):
        """``sqlanon.risk(data, quasi=None, node=None, **settings)``: see ``sqlanon.api.risk``."""
        from sqlanon.api import risk

        return risk(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
