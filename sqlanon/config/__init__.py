"""The job and its settings: what to read, each column's role, the privacy models, the search,
the engine's settings as the job gives them, the risk analysis and the output.

Nothing here opens a connection or knows an engine by name; the engines validate their own
settings (``sqlanon/engines/``).
"""
