"""A ``cairn`` process ends with its exit code even when one of its helper threads outlives the command (issue 31:
``ask --json`` with sharing aborted with 134 after printing the answer), its exit handlers run first."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=REPO, capture_output=True, text=True,
                          timeout=60, check=False)


def test_a_lingering_helper_thread_does_not_hold_or_abort_the_exit() -> None:
    proc = _run("""
        import atexit, sys, threading, time
        from core.cli import finish
        atexit.register(lambda: print("exit handlers ran", flush=True))
        threading.Thread(target=time.sleep, args=(30,), name="cairn-suggestions", daemon=True).start()
        print("the answer", flush=True)
        sys.exit(finish(3))
    """)
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout.splitlines() == ["the answer", "exit handlers ran"]


def test_without_helper_threads_the_process_ends_as_usual() -> None:
    proc = _run("""
        import sys
        from core.cli import finish
        print(finish(0))
    """)
    assert proc.returncode == 0 and proc.stdout.strip() == "0"
