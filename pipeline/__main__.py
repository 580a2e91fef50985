"""python -m pipeline ... (and the `wordle-pipeline` command): see pipeline.cli and pipeline.commands."""

import sys

from pipeline.commands import main


def run() -> None:
    """Console entry point (`wordle-pipeline ...`), the same as `python -m pipeline ...`."""
    sys.exit(main(sys.argv[1:]))


if __name__ == "__main__":
    run()
