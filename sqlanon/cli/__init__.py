"""The command line: the ``sqlanon`` entry point, its commands and what they print."""
