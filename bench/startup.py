"""Time from process start to the window shown, and idle memory, for the desktop app (offscreen or Xvfb).

    .venv/bin/python -m bench.startup            # 3 runs, each a fresh process

The child prints when the login dialog and the main window are first shown, whether torch was already
imported then (it must not be: the embedding model loads after the window appears), the RSS at show time,
and the RSS after the background start-up (embedded PostgreSQL, memory store, MiniLM) has settled.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, os, sys, time
import psutil
proc = psutil.Process()
t0 = proc.create_time()
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from desktop.app import AppContext, apply_theme
from desktop.login import LoginDialog
from desktop.main_window import MainWindow
out = {}
app = QApplication(sys.argv)
context = AppContext.create()
apply_theme(app, context.settings)
login = LoginDialog(["bench"], "bench")
login.show()
app.processEvents()
out["login_shown_s"] = time.time() - t0
login.close()
win = MainWindow(context, "bench")
win.show()
app.processEvents()
out["window_shown_s"] = time.time() - t0
out["torch_loaded_at_show"] = "torch" in sys.modules
out["rss_at_show_mb"] = proc.memory_info().rss / 2**20
ready = []
win.database_ready.connect(lambda s: ready.append(time.time() - t0))
win.start(None)
def settle():
    out["database_ready_s"] = ready[0] if ready else None
    out["rss_idle_mb"] = proc.memory_info().rss / 2**20
    out["torch_loaded_idle"] = "torch" in sys.modules
    print(json.dumps(out), flush=True)
    win.close()
    context.services.close()
    app.quit()
QTimer.singleShot(int(os.environ.get("SETTLE_MS", "20000")), settle)
app.exec()
"""


def main(runs: int = 3) -> None:
    root = Path(__file__).resolve().parents[1]
    data = tempfile.mkdtemp(prefix="cairn-startup-")
    env = {**os.environ, "CAIRN_DATA_DIR": data, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
           "PYTHONPATH": str(root)}
    results = []
    for _ in range(runs):
        proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, cwd=root,
                              timeout=180)
        line = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        if not line:
            print(proc.stderr[-2000:])
            raise SystemExit("child failed")
        results.append(json.loads(line[-1]))
    for key in ("login_shown_s", "window_shown_s", "database_ready_s", "rss_at_show_mb", "rss_idle_mb"):
        values = [r[key] for r in results if r.get(key) is not None]
        print(f"{key:<20} median {statistics.median(values):8.2f}   runs {[round(v, 2) for v in values]}")
    print(f"torch imported before the window showed: {any(r['torch_loaded_at_show'] for r in results)}")
    print(f"torch imported once idle (embedding model warmed): {all(r['torch_loaded_idle'] for r in results)}")
    print("(first run includes creating the embedded server and the sample database)")


if __name__ == "__main__":
    main()
