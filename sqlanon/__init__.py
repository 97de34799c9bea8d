"""sqlanon: optimal anonymization of tables, pushed into an analytical database."""

__version__ = "0.1.0"

from sqlanon.config import Attribute, Job, Output, Source, load_job  # noqa: E402
from sqlanon.anonymizer import Result, anonymize  # noqa: E402
from sqlanon.hierarchy import Hierarchy, read_hierarchy  # noqa: E402

__all__ = ["Attribute", "Hierarchy", "Job", "Output", "Result", "Source", "anonymize", "load_job", "read_hierarchy"]
