"""A window told to stop by the system (SIGTERM: a logout, ``kill``, a service manager) closes as the close button
does: the process ends and the embedded PostgreSQL it started is stopped, not left running (issue 30, item 7)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.databases.embedded._cluster import cluster_dir, read_postmaster

REPO = Path(__file__).resolve().parents[2]

CHILD = r"""
import sys
from PySide6.QtWidgets import QApplication
from desktop.shell.app import AppContext, close_on_termination
from desktop.shell.main_window import MainWindow
app = QApplication(sys.argv)
wake = close_on_termination(app)
context = AppContext.create()
win = MainWindow(context, "ann")
win.show()
win.database_ready.connect(lambda schema: print("ready", flush=True))
win.start(None)
code = app.exec()
context.services.close()
print("ended", flush=True)
"""


def _gone(pid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().split(")")[-1].split()[0] == "Z":  # ended, not yet reaped by its parent
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_sigterm_closes_the_window_and_stops_the_embedded_server(tmp_path: Path, fake_ollama) -> None:
    env = {**os.environ, "CAIRN_DATA_DIR": str(tmp_path), "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO),
           "OLLAMA_HOST": fake_ollama.url}
    proc = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=REPO)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready", proc.stderr.read()[-3000:]
        pgdata = cluster_dir(tmp_path)
        server = read_postmaster(pgdata)
        assert server is not None  # the window started it
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        assert "ended" in out and "Traceback" not in err, err[-3000:]
        assert time.monotonic() - sent < 20
        assert read_postmaster(pgdata) is None, "the embedded PostgreSQL outlived the window"
        assert _gone(server.pid, within_s=10), "the embedded PostgreSQL process is still running"
    finally:
        if proc.poll() is None:
            proc.kill()
