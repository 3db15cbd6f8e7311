"""Time from process start to the window shown and to the first answer, and idle memory, for the desktop app
(offscreen or Xvfb), for this checkout and, side by side in one run, another commit.

    .venv/bin/python -m bench.startup                    # 3 fresh processes
    .venv/bin/python -m bench.startup --against main     # and main's, alternating run by run

The child prints when the login dialog and the main window are first shown, whether torch was imported, the RSS
at show time, and when the first answer shows: the person asks "How many customers are there?" once the
database is ready, or ASK_AFTER_S (default 0) after the window shows, whichever is later. The model is the
tests' fake Ollama server in the child (replies at once), so the figures are Cairn's own time: connecting, the
embedding model, retrieval, checks, the query. Then the RSS once the background work has settled (20 s).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench._checkouts import REPO, checkouts

EMBEDDER = REPO / "build" / "embedder"  # this checkout's export serves the other too

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
embedder = context.services.embedder()
def watch_embedder():
    if getattr(embedder, "loaded", False) and "embedder_ready_s" not in out:
        out["embedder_ready_s"] = time.time() - t0
    else:
        QTimer.singleShot(20, watch_embedder)
watch_embedder()
ask_at = out["window_shown_s"] + float(os.environ.get("ASK_AFTER_S", "0"))
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


KEYS = ("login_shown_s", "window_shown_s", "embedder_ready_s", "database_ready_s", "first_answer_s", "ask_to_answer_s",
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


def main(runs: int = 3, against: str | None = None) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="cairn-startup-"))
    results: dict[str, list[dict[str, object]]] = {}
    try:
        with checkouts(against, scratch) as found:
            envs = {}
            for name, root in found.items():
                envs[name] = {**os.environ, "CAIRN_DATA_DIR": str(scratch / "data" / name[:12].replace("/", "_")),
                              "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
                              "PYTHONPATH": str(root), "CAIRN_EMBEDDER_DIR": str(EMBEDDER)}
                _child({**envs[name], "SETTLE_MS": "8000"}, root)  # the embedded server and sample database, once
            for _ in range(runs):  # interleaved, so a slower minute hits both alike
                for name, root in found.items():
                    results.setdefault(name, []).append(_child(envs[name], root))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    names = list(results)
    print(f"{runs} fresh processes per checkout (seconds from process start; MB resident), medians:")
    print(f"{'':<20}" + "".join(f"{name[:14]:>16}" for name in names))
    for key in KEYS:
        print(f"{key:<20}" + "".join(f"{_median(results[name], key):>16}" for name in names))
    for name in names:
        print(f"{name}: every first answer ok: {all(r.get('answer_ok') for r in results[name])}; torch imported "
              f"by the window: {any(r['torch_loaded_at_show'] or r['torch_loaded_idle'] for r in results[name])}")
    print(f"question asked at max(database ready, window shown + ASK_AFTER_S={os.environ.get('ASK_AFTER_S', '0')} s)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--against", help="a git commit to measure side by side with this checkout (e.g. main)")
    args = parser.parse_args()
    main(args.runs, args.against)
