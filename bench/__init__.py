"""The benchmarks: each module runs as ``python -m bench.<name>`` from the repository root
(``--help`` lists its options). ``datasets`` holds their data and jobs, ``common`` the few
helpers several of them share; bench/README.md has the current figures."""
