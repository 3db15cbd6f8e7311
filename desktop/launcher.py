"""The ``cairn`` command: no arguments opens the window; ``selftest`` checks the installation (it opens the
window, so it lives in ``desktop``); anything else is the command line (no Qt loaded)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["console", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        from desktop.shell.app import run

        return run()
    if args[0] == "selftest":
        from desktop.selftest.runner import main as selftest_main

        return selftest_main(args[1:])
    from core.cli import main as cli_main

    return cli_main(args)


def console() -> int:
    """The ``cairn`` executable: ``main``, then the process ends without waiting on helper threads
    (``core.cli.finish``). ``main`` itself never ends the process, so tests may call it in-process."""
    from core.cli import finish

    return finish(main())


if __name__ == "__main__":
    raise SystemExit(console())
