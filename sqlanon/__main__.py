"""``python -m sqlanon ...``: the same entry point as the ``sqlanon`` command."""

from sqlanon.cli.entry import main

if __name__ == "__main__":
    main()
