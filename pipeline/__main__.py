"""python -m pipeline ...: see pipeline.cli and pipeline.commands."""

import sys

from pipeline.commands import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
