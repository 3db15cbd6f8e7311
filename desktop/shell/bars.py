"""The main window's toolbar and status bar (built once; the window keeps the actions and labels), and two small
helpers of its start: a database's name as a person says it, and the earlier turns to show again."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import qtawesome as qta
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from desktop.toolkit.widgets import ElidingLabel

__all__ = ["build_status_bar", "build_toolbar", "database_name", "earlier_turns"]

logger = logging.getLogger(__name__)


def build_toolbar(window: Any) -> None:
    """Connect…, Models…, Settings…, Quality… as ``window``'s toolbar and actions."""
    bar = window.addToolBar("Main")
    bar.setObjectName("mainToolbar")
    bar.setMovable(False)
    bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    window.connect_action = QAction(qta.icon("fa5s.database"), "Connect…", window)
    window.connect_action.triggered.connect(window.open_connections)
    window.models_action = QAction(qta.icon("fa5s.microchip"), "Models…", window)
    window.models_action.triggered.connect(window.open_model_manager)
    window.settings_action = QAction(qta.icon("fa5s.cog"), "Settings…", window)
    window.settings_action.setShortcut(QKeySequence.StandardKey.Preferences)
    window.settings_action.triggered.connect(window.open_settings)
    window.quality_action = QAction(qta.icon("fa5s.chart-line"), "Quality…", window)
    window.quality_action.setToolTip("How Cairn is doing over time: evaluation runs and answers you rated")
    window.quality_action.triggered.connect(window.open_quality)
    for action in (window.connect_action, window.models_action, window.settings_action, window.quality_action):
        bar.addAction(action)


def build_status_bar(window: Any) -> None:
    """The permanent labels: database, model, memory store, Ollama (watched every 15 s)."""
    status = window.statusBar()
    # each gives up width with "…" when the window is narrow (at 14 pt they held it 1,173 px wide)
    window.db_label = ElidingLabel("Database: starting…")
    window.model_label = ElidingLabel(f"Model: {window.context.settings.model}")
    window.store_label = ElidingLabel("Memory: starting…")
    window.ollama_label = ElidingLabel("Ollama: checking…")
    from desktop.models.ollama_watch import OllamaWatch

    window.ollama_watch = OllamaWatch(window.context, window.ollama_label, window)
    window.ollama_watch.changed.connect(lambda state: window.banner.show_state(state))
    for name, label in (("dbStatus", window.db_label), ("modelStatus", window.model_label),
                        ("storeStatus", window.store_label), ("ollamaStatus", window.ollama_label)):
        label.setObjectName(name)
        status.addPermanentWidget(label)


def database_name(target: str | None, connection: Any, database_id: str) -> str:
    """What a person calls the database: its saved connection's name, else its name and host, or the file's name —
    never a URL with a user or a data directory's path (those are on hover)."""
    if target is None:
        return "the sample database"
    name = getattr(connection, "name", "") or ""
    if name and name != "Unsaved connection":
        return name
    if "://" in database_id:
        parts = urlsplit(database_id)
        return f"{parts.path.rsplit('/', 1)[-1] or parts.scheme} on {parts.hostname or 'this computer'}"
    return Path(database_id).name or database_id


def earlier_turns(store: Any, user: str) -> list[Any]:
    """The person's last turns from before this start (the chat shows those about the database in use); none when
    the store cannot say (the chat then starts empty, as before)."""
    try:
        return list(store.recent_messages(user, limit=20))
    except Exception:  # noqa: BLE001 - a convenience: a store that cannot read them must not stop the start
        logger.info("earlier turns not read", exc_info=True)
        return []
