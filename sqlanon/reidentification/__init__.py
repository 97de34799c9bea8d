"""Re-identification risk from class sizes: the numerical core of the risk analysis.

Pure numpy/SciPy: the input is the sample's class-size frequency table ``{size: number of
classes}`` (what an engine returns from SQL) and the sampling fraction or population size.
Wired to the report, the ``risk`` command and the population-uniqueness model by
``sqlanon/report/risk.py`` and ``analysis.py`` (see docs/risk.md).

* :func:`prosecutor` — sample figures (highest and average risk, records at risk, uniqueness).
* :func:`zayatz`, :func:`pitman`, :func:`snb` — population-uniqueness estimators.
* :func:`dankar` — Dankar et al.'s rule choosing among them, with its fallbacks.

(Named apart from ``sqlanon.risk``, the API's function.)
"""

from sqlanon.reidentification.dankar import DankarEstimate, dankar
from sqlanon.reidentification.estimate import UniquenessEstimate
from sqlanon.reidentification.frame import ClassSizes, Frame, sampling_frame
from sqlanon.reidentification.pitman import pitman
from sqlanon.reidentification.prosecutor import Bucket, ProsecutorRisk, prosecutor
from sqlanon.reidentification.snb import snb
from sqlanon.reidentification.zayatz import zayatz

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
