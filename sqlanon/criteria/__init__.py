"""Privacy models. Each declares the per-class condition a class must meet to be kept."""

from sqlanon.criteria.base import PrivacyModel
from sqlanon.criteria.k_anonymity import KAnonymity

__all__ = ["KAnonymity", "PrivacyModel"]
