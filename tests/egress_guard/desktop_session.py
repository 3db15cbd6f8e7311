"""A whole desktop session, offscreen, for a child process: login, connect, ask, teach, memory bank.

Run as ``python -m tests.egress_guard.desktop_session [URL]`` with ``OLLAMA_HOST`` at a (fake) Ollama and
``CAIRN_DATA_DIR`` set; prints one JSON line with what happened. The egress guard (sitecustomize) and the
secrets test use it: everything it shows is collected in ``texts`` so a caller can search it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _wait(app: Any, done: Callable[[], bool], timeout_s: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        app.processEvents()
        if done():
            return True
        time.sleep(0.02)
    return False


def widget_texts(root: Any) -> list[str]:
    """Every string a person could see or hover over in ``root`` and its children."""
    from PySide6.QtWidgets import QLineEdit, QWidget

    out: list[str] = []
    for w in [root, *root.findChildren(QWidget)]:
        masked = isinstance(w, QLineEdit) and w.echoMode() != QLineEdit.EchoMode.Normal
        for getter in ("displayText" if masked else "text", "toPlainText", "windowTitle", "toolTip", "placeholderText", "currentText",
                       "statusTip", "whatsThis"):
            fn = getattr(w, getter, None)
            if callable(fn):
                try:
                    value = fn()
                except TypeError:
                    continue
                if isinstance(value, str) and value:
                    out.append(value)
    return out


def main(argv: list[str]) -> int:
    from PySide6.QtWidgets import QApplication

    from desktop.dialogs.login import LoginDialog
    from desktop.shell.app import AppContext
    from desktop.shell.main_window import MainWindow
    from tests.fakes.fake_embedder import FakeEmbedder

    target = argv[0] if argv else None
    app = QApplication.instance() or QApplication([])
    login = LoginDialog(["rahul"], None)
    login.name.setCurrentText("priya")
    login.accept()
    user = login.user()
    context = AppContext.create(embedder=FakeEmbedder())
    win = MainWindow(context, user)
    win.show()
    ready: list[Any] = []
    replies: list[Any] = []
    win.database_ready.connect(ready.append)
    win.answer_ready.connect(replies.append)
    win.start(target)
    connected = _wait(app, lambda: bool(ready) or win.db_label.text() == "Database: not connected")
    summary: dict[str, Any] = {"user": user, "connected": bool(ready), "db_label": win.db_label.text()}

    def ask(text: str) -> Any:
        before = len(replies)
        win.chat.input.setText(text)
        win.chat.input.returnPressed.emit()
        _wait(app, lambda: len(replies) > before)
        return replies[-1] if len(replies) > before else None

    if connected and ready:
        first = ask("How many customers are there?")
        summary["answer_ok"] = bool(first and first.answer and first.answer.ok)
        taught = ask("Always show me customers from India")
        summary["taught"] = bool(taught and taught.answer is None and not taught.error)
        _wait(app, lambda: win.memory_bank is not None and any("India" in m.content
                                                                 for m in win.memory_bank.memories()), 15)
        summary["bank"] = [m.content for m in win.memory_bank.memories()] if win.memory_bank else []
        failing = ask("Show the nonexistent widget table")
        summary["failing_ok"] = bool(failing and failing.answer and failing.answer.ok)
    summary["texts"] = widget_texts(win)
    print(json.dumps(summary, ensure_ascii=False))
    win.close()
    context.services.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
