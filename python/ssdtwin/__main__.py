"""``python -m ssdtwin``: the same command line as ``ssdtwin``."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
