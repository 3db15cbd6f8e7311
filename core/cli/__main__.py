"""``python -m core.cli``: the command line without the desktop launcher."""

import sys

from core.cli import finish, main

sys.exit(finish(main()))
