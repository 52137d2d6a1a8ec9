"""``python -m trunk_api``: the same command line as ``trunk-api`` (see trunk_api.cli)."""

import sys

from trunk_api.cli import main

sys.exit(main())
