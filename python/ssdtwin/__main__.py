"""``python -m ssdtwin``: the same command line as ``ssdtwin``."""

import sys

from .cli import main

sys.exit(main())
