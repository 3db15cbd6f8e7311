"""Time from process start to the window shown and to the first answer, and idle memory, for the desktop app
(offscreen or Xvfb), with the embedding model warmed up after the window shows and, side by side, without it.

    .venv/bin/python -m bench.startup            # 3 runs of each mode, each a fresh process

The child prints when the login dialog and the main window are first shown, whether torch was already
imported then (it must not be: the embedding model loads after the window appears), the RSS at show time, and
when the first answer shows: the person asks "How many customers are there?" once the database is ready, or
ASK_AFTER_S (default 3 s, a person reading the window and typing) after the window shows, whichever is later.
The model is the tests' fake Ollama server in the child (replies at once), so the figures are Cairn's own
time: connecting, the embedding model, retrieval, checks, the query. ``warm-up off`` is the window before the
warm-up existed (MiniLM loaded by the first question). Then the RSS once the background work has settled.
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
from desktop.dialogs.login import LoginDialog
from desktop.shell.app import AppContext, apply_theme
from desktop.shell.main_window import MainWindow
from tests.fakes.fake_ollama import FakeOllama
ollama = FakeOllama().start()
ollama.default_chat = lambda body: "SELECT count(*) FROM customers"
os.environ["OLLAMA_HOST"] = ollama.url
out = {}
app = QApplication(sys.argv)
context = AppContext.create()
if os.environ.get("WARM_UP") == "0":
    context.services.embedder().warm_up = lambda: None
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
ready, answered = [], []
ask_at = out["window_shown_s"] + float(os.environ.get("ASK_AFTER_S", "3"))
def ask():
    out["asked_s"] = time.time() - t0
    win.ask("How many customers are there?")
def on_ready(_schema):
    ready.append(time.time() - t0)
    QTimer.singleShot(max(0, int((ask_at - ready[0]) * 1000)), ask)
def on_answer(reply):
    answer = reply.answer
    answered.append(time.time() - t0)
    out["answer_ok"] = bool(answer is not None and answer.ok)
win.database_ready.connect(on_ready)
win.answer_ready.connect(on_answer)
win.start(None)
def settle():
    out["database_ready_s"] = ready[0] if ready else None
    out["first_answer_s"] = answered[0] if answered else None
    out["ask_to_answer_s"] = answered[0] - out["asked_s"] if answered else None
    out["rss_idle_mb"] = proc.memory_info().rss / 2**20
    out["torch_loaded_idle"] = "torch" in sys.modules
    print(json.dumps(out), flush=True)
    win.close()
    context.services.close()
    ollama.stop()
    app.quit()
QTimer.singleShot(int(os.environ.get("SETTLE_MS", "20000")), settle)
app.exec()
"""


KEYS = ("login_shown_s", "window_shown_s", "database_ready_s", "first_answer_s", "ask_to_answer_s",
        "rss_at_show_mb", "rss_idle_mb")


def _child(env: dict[str, str], root: Path) -> dict[str, object]:
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, cwd=root,
                          timeout=180)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not line:
        print(proc.stderr[-2000:])
        raise SystemExit("child failed")
    return json.loads(line[-1])


def _median(results: list[dict[str, object]], key: str) -> str:
    values = [float(r[key]) for r in results if r.get(key) is not None]  # type: ignore[arg-type]
    return f"{statistics.median(values):8.2f}" if values else "       -"


def main(runs: int = 3) -> None:
    root = Path(__file__).resolve().parents[1]
    data = tempfile.mkdtemp(prefix="cairn-startup-")
    base = {**os.environ, "CAIRN_DATA_DIR": data, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
            "PYTHONPATH": str(root)}
    _child({**base, "SETTLE_MS": "8000"}, root)  # creates the embedded server and the sample database once
    modes = {"warm-up on": "1", "warm-up off": "0"}
    results: dict[str, list[dict[str, object]]] = {mode: [] for mode in modes}
    for _ in range(runs):  # interleaved, so a slower minute hits both modes alike
        for mode, flag in modes.items():
            results[mode].append(_child({**base, "WARM_UP": flag}, root))
    print(f"{runs} fresh processes per mode (seconds from process start; MB resident), medians:")
    print(f"{'':<20}" + "".join(f"{mode:>14}" for mode in modes))
    for key in KEYS:
        print(f"{key:<20}" + "".join(f"{_median(results[mode], key):>14}" for mode in modes))
    every = [r for rs in results.values() for r in rs]
    print(f"every first answer ok: {all(r.get('answer_ok') for r in every)}")
    print(f"torch imported before the window showed: {any(r['torch_loaded_at_show'] for r in every)}")
    print(f"question asked at max(database ready, window shown + ASK_AFTER_S={os.environ.get('ASK_AFTER_S', '3')} s)")


if __name__ == "__main__":
    main()
