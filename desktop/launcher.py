"""The ``cairn`` command: no arguments opens the window; ``selftest`` checks the installation (it opens the
window, so it lives in ``desktop``); anything else is the command line (no Qt loaded)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["console", "main", "no_display"]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        missing = no_display()
        if missing:
            print(missing, file=sys.stderr)
            return 2
        from desktop.shell.app import run

        return run()
    if args[0] == "selftest":
        from desktop.selftest.runner import main as selftest_main

        return selftest_main(args[1:])
    from core.cli import main as cli_main

    return cli_main(args)


def no_display() -> str | None:
    """What to say when the window cannot open because there is no display (Linux and the BSDs: X11 or Wayland),
    before Qt aborts with advice about reinstalling its plugins; None when there is one (or Qt is told where)."""
    import os
    import re

    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return None
    if os.environ.get("WAYLAND_DISPLAY") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    display = os.environ.get("DISPLAY", "")
    local = re.fullmatch(r":(\d+)(?:\.\d+)?", display)
    if local and not os.path.exists(f"/tmp/.X11-unix/X{local.group(1)}"):  # a local display that is not there
        return (f"Error: Cairn's window needs a display, and no X server answers at DISPLAY={display}.\n"
                "Hint: start Cairn from your desktop session (or set DISPLAY to the display you use). Without a "
                "display, the command line does everything but the window: cairn ask \"How many orders were "
                "placed last month?\"; cairn --help lists the commands.")
    if display:
        return None
    return ("Error: Cairn's window needs a display, and this session has none (DISPLAY and WAYLAND_DISPLAY are not "
            "set: a terminal over SSH, a service, a container).\n"
            "Hint: open it from your desktop session, or point it at one (DISPLAY=:0 cairn). Without a display, the "
            "command line does everything but the window: cairn ask \"How many orders were placed last month?\"; "
            "cairn --help lists the commands.")


def console() -> int:
    """The ``cairn`` executable: ``main``, then the process ends without waiting on helper threads
    (``core.cli.finish``). ``main`` itself never ends the process, so tests may call it in-process."""
    from core.cli import finish

    return finish(main())


if __name__ == "__main__":
    raise SystemExit(console())
