"""Renders the window's main states to docs/screenshots/*.png at 1366×768 and 1920×1080, light and dark, default
font and 14 pt (run through scripts/screenshots.sh, or ``.venv/bin/python scripts/screenshots.py``).

Each screen size and theme runs in its own process (as a person starting Cairn with that setting would: qtawesome
colours an icon once, on first use) on Qt's offscreen platform with a screen of exactly that size (the platform's
``configfile``), so the window takes the size ``fit_to_screen`` gives it there. The answers come from
a scripted model on a local fake Ollama server (no real model, no network); everything else is real: the
embedded PostgreSQL sample database, the pgvector memory store, MiniLM, the window and its dialogs opened from
its toolbar. The data dirs live in a temporary folder, removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "docs" / "screenshots"
SCREENS = {"1366x768": (1366, 768), "1920x1080": (1920, 1080)}
ALL_STATES = ("start", "answer", "chart", "sql", "find", "memory", "connect", "settings", "models", "first-run")
LARGE_FONT = 14


@dataclass(frozen=True)
class Variant:
    theme: str
    font_size: int  # 0: the platform default
    states: tuple[str, ...]

    def suffix(self, screen: str) -> str:
        return f"{screen}-{self.theme}" + (f"-{self.font_size}pt" if self.font_size else "")


# Every state at the default font in one theme per screen; the 14 pt runs skip the start and first-run states.
_BIG = tuple(s for s in ALL_STATES if s not in ("start", "first-run"))
VARIANTS = {
    "1366x768": (Variant("light", 0, ALL_STATES), Variant("dark", LARGE_FONT, _BIG)),
    "1920x1080": (Variant("dark", 0, ALL_STATES), Variant("light", LARGE_FONT, _BIG)),
}
FILE_NAMES = {"start": "main-start", "answer": "main-answer", "chart": "main-chart", "sql": "main-sql", "find": "main-find",
              "memory": "memory-bank", "connect": "dialog-connect", "settings": "dialog-settings",
              "models": "dialog-models", "first-run": "first-run-no-ollama"}

SQL = {
    "revenue by month": "SELECT date_trunc('month', o.order_date)::date AS month, sum(o.total_amount) AS revenue "
    "FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE o.status = 'delivered' "
    "AND o.order_date >= date_trunc('year', current_date) - interval '1 year' "
    "AND o.order_date < date_trunc('year', current_date) GROUP BY 1 ORDER BY 1",
    "high order value": "SELECT DISTINCT c.name, c.city, c.country, o.total_amount FROM customers c "
    "JOIN orders o ON o.customer_id = c.customer_id WHERE o.total_amount > 10000 ORDER BY o.total_amount DESC",
}
FACTS = {
    "customers from india": "[PREFERENCE] Only show customers from India",
    "high value order": "[TERM] high value order means total_amount > 10000",
    "average order value": "[METRIC] average order value means sum(total_amount) / count(order_id) over orders",
}
STATEMENTS = ("Always show me customers from India", "High value order means total amount over 10000",
              "Average order value means total revenue divided by the number of orders")
QUESTION_ROWS = "Show me customers who have a high order value"
QUESTION_CHART = "What was the delivered revenue by month last year?"
QUESTION_NO_MODEL = "How many customers are there in each country?"


# -- the parent: one child process per screen size and variant-----------------------------------------------------


def run_all(out: Path, screens: list[str]) -> list[Path]:
    """Render each screen size and variant in its own offscreen process; the data dir is shared (the embedded
    server and the memories are made once) and removed at the end."""
    tmp = Path(tempfile.mkdtemp(prefix="cairn-shots-"))
    tmp.chmod(0o755)  # as root the cluster then lives beside the data (else under /var/lib), and goes with it
    written: list[Path] = []
    try:
        for name in screens:
            width, height = SCREENS[name]
            config = tmp / f"screen-{name}.json"
            config.write_text(json.dumps({"screens": [{"name": name, "x": 0, "y": 0, "width": width,
                                                       "height": height, "logicalDpi": 96,
                                                       "logicalBaseDpi": 96, "dpr": 1}]}))
            env = {**os.environ, "CAIRN_DATA_DIR": str(tmp / "data"), "HF_HUB_OFFLINE": "1",
                   "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
                   "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
            env.pop("OLLAMA_HOST", None)
            for index in range(len(VARIANTS[name])):
                command = [sys.executable, str(Path(__file__).resolve()), "--screen", name, "--variant", str(index),
                           "--out", str(out)]
                proc = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, check=False)
                for line in proc.stdout.splitlines():
                    if line.startswith("wrote "):
                        written.append(Path(line[len("wrote "):]))
                    elif line.strip():
                        print(line)
                if proc.returncode != 0:
                    print(proc.stderr[-4000:], file=sys.stderr)
                    raise SystemExit(f"rendering at {name} failed (exit {proc.returncode})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return written


# -- the child: one screen size ------------------------------------------------------------------------------


def wait(ms: int) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def wait_for(predicate: Callable[[], bool], what: str, timeout_ms: int = 90_000) -> None:
    waited = 0
    while not predicate():
        if waited >= timeout_ms:
            raise SystemExit(f"timed out waiting for {what}")
        wait(50)
        waited += 50


def ask(win: Any, text: str) -> Any:
    """Type ``text`` into the chat and press Enter, as a person would; the reply once it is shown."""
    replies: list[Any] = []
    win.answer_ready.connect(replies.append)
    win.chat.input.setText(text)
    win.chat.input.returnPressed.emit()
    wait_for(lambda: bool(replies), f"the answer to {text!r}")
    win.answer_ready.disconnect(replies.append)
    wait(400)
    return replies[0]


class Shots:
    """Saves grabs under ``out`` with the variant's suffix and notes anything that does not fit the screen."""

    def __init__(self, out: Path, screen: str, available: Any) -> None:
        self.out, self.screen, self.available = out, screen, available

    def save(self, pixmap: Any, state: str, variant: Variant) -> Path:
        path = self.out / f"{FILE_NAMES[state]}-{variant.suffix(self.screen)}.png"
        image = pixmap.toImage()
        if not image.save(str(path), "PNG", 0):  # quality 0: the strongest PNG compression
            raise SystemExit(f"could not write {path}")
        print(f"wrote {path}", flush=True)
        return path

    def check_fits(self, widget: Any, label: str) -> None:
        if not self.available.contains(widget.geometry()):
            size = widget.geometry()
            print(f"note: {label} is {size.width()}×{size.height()} at ({size.x()}, {size.y()}), beyond the "
                  f"{self.available.width()}×{self.available.height()} screen")

    def over_window(self, win: Any, dialog: Any) -> Any:
        """The screen as a person sees it: the window dimmed under the modal dialog, which has a thin frame."""
        from PySide6.QtGui import QColor, QPainter, QPen, QPixmap

        canvas = QPixmap(self.available.size())
        canvas.fill(QColor("#5b6470"))
        painter = QPainter(canvas)
        painter.drawPixmap(win.geometry().topLeft(), win.grab())
        painter.fillRect(win.geometry(), QColor(0, 0, 0, 90))
        box = dialog.geometry()
        painter.setPen(QPen(QColor("#202020"), 1))
        painter.drawRect(box.adjusted(-1, -1, 0, 0))
        painter.drawPixmap(box.topLeft(), dialog.grab())
        painter.end()
        return canvas


def open_dialog(win: Any, action: Any, ready: Callable[[Any], bool] = lambda d: True) -> Any:
    """Trigger a toolbar action and return the dialog it opened, once it has settled."""
    from PySide6.QtWidgets import QDialog

    before = set(win.findChildren(QDialog))
    action.trigger()
    found: list[Any] = []

    def opened() -> bool:
        found[:] = [d for d in win.findChildren(QDialog) if d.isVisible() and d not in before]
        return bool(found) and ready(found[0])

    wait_for(opened, f"the dialog of {action.text()!r}")
    wait(500)
    return found[0]


def render_window(context: Any, user: str, variant: Variant, shots: Shots, app: Any) -> Any:
    """A fresh main window for ``user`` in ``variant``'s theme and font, started and connected."""
    from core.config import config_dir
    from desktop.shell.app import apply_theme
    from desktop.shell.main_window import MainWindow

    context.settings = replace(context.settings, theme=variant.theme, font_size=variant.font_size)
    apply_theme(app, context.settings)
    (config_dir() / "window.json").unlink(missing_ok=True)  # fit to this screen, not where the last one closed
    win = MainWindow(context, user)
    win.show()
    ready: list[Any] = []
    win.database_ready.connect(ready.append)
    win.start(None)
    wait_for(lambda: bool(ready), "the database")
    wait_for(lambda: "checking" not in win.ollama_label.text(), "the Ollama check")
    wait_for(lambda: getattr(context.services.embedder(), "loaded", True), "the embedding model")
    if win.memory_bank is not None:
        wait_for(lambda: not win.memory_bank._busy, "the memory bank")  # noqa: SLF001 - read-only wait
    wait(500)
    shots.check_fits(win, f"the window ({variant.suffix(shots.screen)})")
    return win


def render_variant(context: Any, variant: Variant, shots: Shots, app: Any) -> None:
    """The window's states in ``variant``: after start, an answer, its chart and SQL, the bank, the dialogs."""
    from PySide6.QtWidgets import QDockWidget

    from desktop.connections.connection_dialog import ConnectionDialog
    from desktop.dialogs.settings_dialog import SettingsDialog
    from desktop.models.model_manager import ModelManagerDialog

    states = variant.states
    win = render_window(context, "priya", variant, shots, app)
    if "start" in states:
        shots.save(win.grab(), "start", variant)
    ask(win, QUESTION_ROWS)
    win.tabs.setCurrentWidget(win.results)
    wait(300)
    if "answer" in states:
        shots.save(win.grab(), "answer", variant)
    if "memory" in states:
        dock = win.findChild(QDockWidget, "memoryDock")
        dock.raise_()
        shots.save(dock.grab(), "memory", variant)
    ask(win, QUESTION_CHART)
    for state, tab in (("chart", win.chart), ("sql", win.sql_editor)):
        win.tabs.setCurrentWidget(tab)
        wait(600)
        if state in states:
            shots.save(win.grab(), state, variant)
    if "find" in states:  # Ctrl+F over the conversation, a match framed
        win.chat.find_in_conversation()
        win.chat.find.field.setText("customers")
        wait(300)
        shots.save(win.grab(), "find", variant)
        win.chat.find.close_bar()
    dialogs = (("connect", win.connect_action, ConnectionDialog, lambda d: True),
               ("settings", win.settings_action, SettingsDialog, lambda d: True),
               ("models", win.models_action, ModelManagerDialog,
                lambda d: d.refresh_button.isEnabled()))
    for state, action, kind, settled in dialogs:
        if state not in states:
            continue
        dialog = open_dialog(win, action, settled)
        assert isinstance(dialog, kind), type(dialog)
        if state == "models":
            wait(1000)  # this computer's GPU and memory are detected in the background too
        shots.check_fits(dialog, f"the {state} dialog ({variant.suffix(shots.screen)})")
        shots.save(shots.over_window(win, dialog), state, variant)
        dialog.reject()
        wait(200)
    win.close()
    win.deleteLater()
    wait(200)


def render_first_run(base: Any, variant: Variant, shots: Shots, app: Any) -> Path:
    """A person new to Cairn (no memories, no history) while Ollama is not running; one question asked."""
    from core.composition import Services
    from desktop.shell.app import AppContext

    settings = replace(base.settings, ollama_host="http://127.0.0.1:9")  # the discard port: nothing listens
    services = Services(settings, embedded=base.services.embedded(), embedder=base.services.embedder())
    context = AppContext(settings=settings, services=services, history=base.history,
                         connections=base.connections, secrets=base.secrets)
    win = render_window(context, "sam", variant, shots, app)
    ask(win, QUESTION_NO_MODEL)
    win.tabs.setCurrentWidget(win.results)
    wait(300)
    path = shots.save(win.grab(), "first-run", variant)
    win.close()
    win.deleteLater()
    wait(200)
    services.close()
    return path


def seed(context: Any) -> None:
    """Two saved connections for the Connect… dialog and a few memories for the bank (through the assistant)."""
    from core.databases import SavedConnection, save_connection

    if not context.connections.list():
        save_connection(context.connections, context.secrets, SavedConnection(
            name="Sales warehouse", kind="postgres", host="db.example.internal", database="sales",
            user="analyst"), None)
        save_connection(context.connections, context.secrets, SavedConnection(
            name="Chinook music store", kind="sqlite", path=str(Path.home() / "data" / "chinook.sqlite")), None)
    assistant = context.services.assistant(None)
    if not context.services.bank().list("priya"):
        for statement in STATEMENTS:
            assistant.handle("priya", statement)


def render_screen(screen: str, index: int, out: Path) -> None:
    from PySide6.QtWidgets import QApplication

    from core.composition import Services
    from core.config import Settings, config_dir, data_dir
    from core.databases import ConnectionStore, open_secret_store
    from core.history import QuestionHistory
    from desktop.shell.app import AppContext, app_icon
    from tests.fakes.analyst_model import analyst_model
    from tests.fakes.fake_ollama import FakeOllama

    app = QApplication([sys.argv[0]])
    app.setApplicationName("Cairn")
    app.setOrganizationName("Cairn")
    app.setWindowIcon(app_icon())
    available = app.primaryScreen().availableGeometry()
    if (available.width(), available.height()) != SCREENS[screen]:
        print(f"note: the screen is {available.width()}×{available.height()}, not {screen} (offscreen configfile "
              "not honoured); the window is sized for the screen it got")
    shots = Shots(out, screen, available)
    with FakeOllama() as ollama:
        ollama.default_chat = analyst_model(SQL, FACTS)
        ollama.add_model("qwen2.5-coder:3b", size=1_929_912_432, parameter_size="3.1B")
        ollama.add_model("llama3.2:3b", size=2_019_393_189, parameter_size="3.2B", family="llama")
        settings = Settings(ollama_host=ollama.url, users=["priya", "sam"], last_user="priya")
        context = AppContext(settings=settings, services=Services(settings),
                             history=QuestionHistory(data_dir() / "history"),
                             connections=ConnectionStore(config_dir() / "connections.json"),
                             secrets=open_secret_store("session"))
        seed(context)
        variant = VARIANTS[screen][index]
        render_variant(context, variant, shots, app)
        if "first-run" in variant.states:
            render_first_run(context, variant, shots, app)
        if screen == "1366x768" and index == 0:
            render_login(out)
        context.services.close()


def render_login(out: Path) -> None:
    from desktop.dialogs.login import LoginDialog

    login = LoginDialog(["priya", "sam"], "priya")
    login.show()
    wait(400)
    path = out / "login.png"
    login.grab().toImage().save(str(path), "PNG", 0)
    print(f"wrote {path}", flush=True)
    login.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the PNGs (default docs/screenshots)")
    parser.add_argument("--screen", choices=sorted(SCREENS), action="append",
                        help="only this screen size (repeatable); default both")
    parser.add_argument("--variant", type=int, help=argparse.SUPPRESS)  # a child: one variant of one screen
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.variant is not None and args.screen:
        render_screen(args.screen[0], args.variant, args.out.resolve())  # a child: one variant, in this process
        return
    written = run_all(args.out.resolve(), args.screen or list(SCREENS))
    print(f"{len(written)} files written:")
    for path in written:
        size = path.stat().st_size
        flag = "  (over 300 KB)" if size > 300_000 else ""
        print(f"  {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}  {size // 1024} KB{flag}")


if __name__ == "__main__":
    main()
