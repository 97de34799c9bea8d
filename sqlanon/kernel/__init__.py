"""The kernel: checks in process, over a base class table held as numpy arrays. The in-memory
engine builds that table from the rows it reads, a SQL engine with ``checks = "local"`` fetches
its own once; either way ``runner.Kernel`` answers every check (compiled grouping in
``grouping``, the models' predicates and the metrics' sums evaluated over arrays in
``evaluate``, the models' figures from sensitive histograms in ``figures`` and the
``histogram_*`` modules, the class-size histogram in ``size_histogram``)."""
