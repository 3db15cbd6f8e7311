"""The end of a ``cairn`` process: its exit code, without waiting on helper threads that outlive the command.

A command may leave a daemon thread running past its bounded wait (shared-insight suggestions embedding a
question, a share that took too long). Left to ordinary interpreter shutdown, such a thread can be inside the
embedding runtime's native code when Python tears down, and the process aborts (exit 134) after having printed a
correct answer. So a process whose own helper threads are still running leaves at once: output flushed and the
exit handlers run first (the embedded server is stopped by one), without the interpreter's teardown.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading

__all__ = ["finish"]


def finish(code: int) -> int:
    """``code``, or — when one of Cairn's helper threads (named ``cairn-…``) is still running — exit with it now."""
    lingering = [t for t in threading.enumerate()
                 if t is not threading.current_thread() and t.daemon and t.is_alive() and t.name.startswith("cairn-")]
    if lingering:
        atexit._run_exitfuncs()  # what a normal exit would run: the embedded server's stop among them
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe: nothing more can be said anyway
                pass
        os._exit(code)
    return code
