"""The PostgreSQL engine (``engine``): its connection (also the release's for output tables),
and the Arrow types of what it fetches (``arrow``)."""
