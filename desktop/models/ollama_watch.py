"""Whether Ollama runs and has the configured model: a status-bar label kept current, and the first-run banner
that says what to do when either is missing.

The check runs off the GUI thread every ``CHECK_MS`` so the label follows Ollama starting or stopping and a
model being pulled; the banner hides itself once the model is there.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout, QWidget

from desktop.toolkit.workers import run_in_background

__all__ = ["CHECK_MS", "FirstRunBanner", "OllamaState", "OllamaWatch"]

logger = logging.getLogger(__name__)

CHECK_MS = 15_000


@dataclass(frozen=True)
class OllamaState:
    running: bool | None  # None: the check itself failed
    model: str
    version: str = ""
    installed: bool | None = None  # None when Ollama is not running
    message: str = ""
    host: str = ""  # where Cairn looked for it

    @property
    def ready(self) -> bool:
        return bool(self.running) and self.installed is not False


class OllamaWatch(QObject):
    """Asks Ollama now and every ``CHECK_MS``; keeps ``label`` current and emits ``changed`` with the state."""

    changed = Signal(object)

    def __init__(self, context: Any, label: QLabel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.label = label
        self.state: OllamaState | None = None
        self._checking = False
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_MS)
        self._timer.timeout.connect(self.check)
        self._timer.start()

    def check(self) -> None:
        if self._checking:
            return
        self._checking = True
        # The ollama client and pydantic load here, on the GUI thread, before any worker uses them: a first import
        # of pydantic-based modules on a worker thread can crash under PySide6's import hook.
        from core.llm import OllamaAdmin  # noqa: F401
        context, model = self.context, self.context.settings.model
        host = self.context.settings.ollama_host or ""

        def work(cancel: Any, report: Any) -> OllamaState:
            status = context.ollama_status()
            if not getattr(status, "running", False):
                return OllamaState(False, model, message=getattr(status, "message", ""), host=host)
            names = {m.name for m in context.admin().list_models()}
            return OllamaState(True, model, status.version, model in names or f"{model}:latest" in names)

        def failed(exc: BaseException) -> None:
            logger.info("Ollama check failed: %s", exc)
            self._show(OllamaState(None, model, message=str(exc)))

        run_in_background(work, on_success=self._show, on_failure=failed, receiver=self)

    def _show(self, state: OllamaState) -> None:
        self._checking = False
        self.state = state
        if state.running is None:
            self.label.setText("Ollama: unknown")
            self.label.setToolTip(state.message)
        elif not state.running:
            self.label.setText("Ollama: not running")
            self.label.setToolTip(state.message)
        elif state.installed is False:
            self.label.setText(f"Model {state.model} not installed")
            self.label.setToolTip(f"Ollama {state.version} runs, but has no {state.model}. Open Models… to pull "
                                  "it or import a GGUF file, or choose an installed model there.")
        else:
            self.label.setText(f"Ollama {state.version} ✓")
            self.label.setToolTip(f"Ollama {state.version} runs and has {state.model}.")
        self.changed.emit(state)


class FirstRunBanner(QFrame):
    """Across the top of the window while Ollama or its model is missing: what is wrong and the action that fixes
    it. Dismissed for this session with ×; it comes back only if the state changes."""

    models_requested = Signal()
    check_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("firstRunBanner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        icon = QLabel()
        icon.setPixmap(qta.icon("fa5s.info-circle").pixmap(20, 20))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.title = QLabel()
        self.title.setObjectName("bannerTitle")
        self.title.setWordWrap(True)
        self.body = QLabel()
        self.body.setTextFormat(Qt.TextFormat.PlainText)  # the host is the person's text, never markup
        self.body.setObjectName("bannerBody")
        self.body.setWordWrap(True)
        text = QVBoxLayout()
        text.addWidget(self.title)
        text.addWidget(self.body)
        self.models_button = QPushButton(qta.icon("fa5s.microchip"), "Open Models…")
        self.models_button.setObjectName("bannerModels")
        self.models_button.clicked.connect(self.models_requested.emit)
        self.check_button = QPushButton(qta.icon("fa5s.sync"), "Check again")
        self.check_button.setObjectName("bannerCheck")
        self.check_button.clicked.connect(self.check_requested.emit)
        close = QToolButton()
        close.setObjectName("bannerClose")
        close.setIcon(qta.icon("fa5s.times"))
        close.setToolTip("Hide this until something changes")
        close.setAutoRaise(True)
        close.clicked.connect(self._dismiss)
        row = QHBoxLayout(self)
        row.addWidget(icon)
        row.addLayout(text, 1)
        row.addWidget(self.models_button, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.check_button, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self._shown_for: tuple[Any, ...] | None = None
        self._dismissed_for: tuple[Any, ...] | None = None
        self.setVisible(False)

    def show_state(self, state: OllamaState) -> None:
        key = (state.running, state.installed, state.model)
        if state.ready or state.running is None:
            self._shown_for = None
            self.setVisible(False)
            return
        if key == self._dismissed_for:
            return
        self._shown_for = key
        if not state.running:
            self.title.setText("<b>Ollama is not running</b>")
            where = f" No Ollama answered at {state.host}." if state.host else ""
            self.body.setText(
                f"Cairn writes SQL with a local model in Ollama ({state.model}).{where} Start Ollama — open the Ollama "
                "app, or run “ollama serve” in a terminal — then press Check again. Until then Cairn answers "
                "simple questions with its built-in rules, and you can run SQL on the SQL tab.")
            self.models_button.setVisible(False)
        else:
            self.title.setText(f"<b>The model {state.model} is not installed</b>")
            self.body.setText(
                "Open Models… to download it (a few GB, once), import a GGUF file you already have, or choose a "
                "model you have installed. Until then Cairn answers simple questions with its built-in rules.")
            self.models_button.setVisible(True)
        self.setVisible(True)

    def _dismiss(self) -> None:
        self._dismissed_for = self._shown_for
        self.setVisible(False)
