"""``python -m sqlanon ...``: the same entry point as the ``sqlanon`` command."""

from sqlanon.entry import main

if __name__ == "__main__":
    main()
