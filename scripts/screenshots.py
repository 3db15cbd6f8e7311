"""Renders the main states of the window to docs/screenshots/*.png (run under Xvfb: scripts/screenshots.sh).

The answers come from a scripted model on a local fake Ollama server (no real model runs on build machines);
everything else is real: the embedded PostgreSQL sample database, the pgvector memory store, MiniLM, Qt.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("CAIRN_DATA_DIR", tempfile.mkdtemp(prefix="cairn-shots-"))

from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from core.composition import Services  # noqa: E402
from core.config import Settings, data_dir  # noqa: E402
from core.history import QuestionHistory  # noqa: E402
from desktop.app import AppContext, apply_theme  # noqa: E402
from desktop.login import LoginDialog  # noqa: E402
from desktop.main_window import MainWindow  # noqa: E402
from tests.fakes.analyst_model import analyst_model  # noqa: E402
from tests.fakes.fake_ollama import FakeOllama  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
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
}


def wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def wait_for(predicate, timeout_ms: int = 60_000) -> None:  # type: ignore[no-untyped-def]
    waited = 0
    while not predicate() and waited < timeout_ms:
        wait(100)
        waited += 100


def ask(win: MainWindow, text: str) -> None:
    replies: list[object] = []
    win.answer_ready.connect(replies.append)
    win.chat.input.setText(text)
    win.chat.input.returnPressed.emit()
    wait_for(lambda: bool(replies))
    win.answer_ready.disconnect(replies.append)
    wait(300)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv)
    with FakeOllama() as ollama:
        ollama.default_chat = analyst_model(SQL, FACTS)
        ollama.add_model("qwen2.5-coder:3b", size=1_900_000_000, parameter_size="3.1B")
        settings = Settings(ollama_host=ollama.url)
        apply_theme(app, settings)
        context = AppContext(settings=settings, services=Services(settings),
                             history=QuestionHistory(data_dir() / "history"))

        login = LoginDialog(["priya", "rahul"], "priya")
        login.show()
        wait(400)
        login.grab().save(str(OUT / "login.png"))
        login.close()

        win = MainWindow(context, "priya")
        win.resize(1440, 860)
        win.show()
        ready: list[object] = []
        win.database_ready.connect(ready.append)
        win.start(None)
        wait_for(lambda: bool(ready))
        ask(win, "Always show me customers from India")
        ask(win, "High value order means total amount over 10000")
        ask(win, "Show me customers who have a high order value")
        wait(500)
        win.grab().save(str(OUT / "memory_bank.png"))
        ask(win, "What was the delivered revenue by month last year?")
        win.tabs.setCurrentWidget(win.chart)
        wait(800)
        win.grab().save(str(OUT / "answer_chart.png"))

        from desktop.model_manager import ModelManagerDialog

        dialog = ModelManagerDialog(context.admin(), current_model=settings.model, parent=win)
        dialog.resize(900, 640)
        dialog.show()
        wait(2500)
        dialog.grab().save(str(OUT / "model_manager.png"))
        dialog.close()
        win.close()
        context.services.close()
    print(f"screenshots written to {OUT}")


if __name__ == "__main__":
    main()
