"""The vocabulary every layer shares and none above it defines: what a check needs and returns
(``needs``, ``stats``), where a run reads and writes (``specs``), the settings a job hands to
the layers below it (``snapshots``, ``risk``), the report's typed record (``report``), the
mask of a suppressed row, text encodings, the files sqlanon reads, the names a job may give,
the wording shared by messages and the package's version. It imports nothing of sqlanon but
``sqlanon.errors``."""
