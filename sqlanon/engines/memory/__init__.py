"""The in-memory engine (``engine``): numpy arrays and the shared kernel, read and written with
pyarrow (``io``)."""
