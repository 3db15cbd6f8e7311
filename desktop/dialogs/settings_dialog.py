"""Settings a person can change: model, Ollama host, row cap, timeout, memory store, theme, font size, and
sharing insights with other agents (off until the person turns it on)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from urllib.parse import urlsplit

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QWidget,
)

from core.config import Settings, data_dir, setting_problem

__all__ = ["SettingsDialog"]

MAX_ROW_CAP = 100_000


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, models: list[str] | None = None, parent: QWidget | None = None, *,
                 show_shared: Callable[[], object] | None = None) -> None:
        """``show_shared`` opens "What I've shared…" (the button is disabled without it)."""
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setObjectName("settingsDialog")
        self._settings = settings
        form = QFormLayout(self)
        form.setContentsMargins(16, 16, 16, 12)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)

        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.addItems(sorted(set((models or []) + [settings.model])))
        self.model.setCurrentText(settings.model)
        self.host = QLineEdit(settings.ollama_host)
        self.host.setToolTip("Ollama's address. Keep it on this machine (127.0.0.1) so nothing leaves it.")
        if os.environ.get("OLLAMA_HOST"):  # what Ollama's own tools read: it wins over this field at each start
            self.host.setToolTip(self.host.toolTip() + " OLLAMA_HOST is set in the environment and wins over this "
                                 "field when Cairn starts; the field is saved as the fallback.")
        self.host.setMinimumWidth(self.fontMetrics().horizontalAdvance("http://127.0.0.1:11434/") * 3 // 2)
        self.row_cap = QSpinBox()
        self.row_cap.setRange(1, MAX_ROW_CAP)
        self.row_cap.setSingleStep(1000)
        self.row_cap.setValue(min(settings.row_cap, MAX_ROW_CAP))
        self.row_cap.setToolTip("Rows fetched per query; more are flagged as truncated.")
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1, 3600)
        self.timeout.setSuffix(" s")
        self.timeout.setValue(settings.statement_timeout_s)
        self.memory_store = QComboBox()
        self.memory_store.addItems(["pgvector", "json"])
        self.memory_store.setCurrentText(settings.memory_store)
        self.theme = QComboBox()
        self.theme.addItems(["system", "light", "dark"])
        self.theme.setCurrentText(settings.theme)
        self.font_size = QSpinBox()
        self.font_size.setRange(0, 32)
        self.font_size.setSpecialValueText("default")
        self.font_size.setValue(settings.font_size)

        form.addRow("Model", self.model)
        form.addRow("Ollama host", self.host)
        form.addRow("Row cap", self.row_cap)
        form.addRow("Statement timeout", self.timeout)
        form.addRow("Memory store", self.memory_store)
        form.addRow("Theme", self.theme)
        form.addRow("Font size", self.font_size)
        self._add_sharing(form, settings, show_shared)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def host_problem(self) -> str | None:
        """Why the Ollama host cannot be saved (the field keeps focus), or None."""
        host = self.host.text().strip()
        allowed = setting_problem("ollama_host", host) if host else None
        if allowed is None:
            return None
        self.host.setFocus()
        self.host.selectAll()
        return f"The Ollama host “{host[:80]}” is not an address Cairn can reach: it must be {allowed}."

    def result_settings(self) -> Settings:
        return replace(
            self._settings,
            model=self.model.currentText().strip() or self._settings.model,
            ollama_host=self.host.text().strip() or self._settings.ollama_host,
            row_cap=self.row_cap.value(),
            statement_timeout_s=self.timeout.value(),
            memory_store=self.memory_store.currentText(),
            theme=self.theme.currentText(),
            font_size=self.font_size.value(),
            sharing_enabled=self.sharing.isChecked(),
            insight_store=self.insight_store.currentText(),
            insight_url=self.insight_url.text().strip() or None,
            insight_ttl_days=self.insight_ttl.value(),
            agent_id=self.agent_id.text().strip() or None,
        )

    # -- sharing insights with other agents (issue 15) -----------------------------------------------------

    def _add_sharing(self, form: QFormLayout, settings: Settings, show_shared: Callable[[], object] | None) -> None:
        from core.insights import default_agent_id

        title = QLabel("Sharing with other agents")
        title.setObjectName("sharingTitle")
        title.setStyleSheet("font-weight: 600; margin-top: 6px")
        form.addRow(title)
        self.sharing = QCheckBox("Share redacted insights; show other agents' suggestions")
        self.sharing.setObjectName("sharingEnabled")
        self.sharing.setToolTip("After each answer, a short summary with no values, SQL, question or name is "
                                "shared with other Cairn agents; their follow-up questions appear under answers.")
        self.sharing.setChecked(settings.sharing_enabled)
        self.insight_store = QComboBox()
        self.insight_store.setObjectName("sharingStore")
        self.insight_store.addItems(["jsonl", "pgvector", "milvus"])
        self.insight_store.setCurrentText(settings.insight_store)
        self.insight_url = QLineEdit(settings.insight_url or "")
        self.insight_url.setObjectName("sharingUrl")
        self.insight_ttl = QDoubleSpinBox()
        self.insight_ttl.setObjectName("sharingTtl")
        self.insight_ttl.setRange(0.01, 3650)
        self.insight_ttl.setSuffix(" days")
        self.insight_ttl.setValue(settings.insight_ttl_days)
        self.agent_id = QLineEdit(settings.agent_id or "")
        self.agent_id.setObjectName("sharingAgentId")
        self.default_agent_id = default_agent_id(str(data_dir()))
        self.agent_id.setPlaceholderText(f"{self.default_agent_id} (default)")
        self.agent_id.setToolTip("How other agents see this one. The default says nothing about you.")
        self.shared_button = QPushButton("What I've shared…")
        self.shared_button.setObjectName("sharedInsightsButton")
        self.shared_button.setEnabled(show_shared is not None)
        if show_shared is not None:
            self.shared_button.clicked.connect(lambda _checked=False: show_shared())
        form.addRow("Share", self.sharing)
        form.addRow("Insight store", self.insight_store)
        form.addRow("Folder or URL", self.insight_url)
        form.addRow("Keep for", self.insight_ttl)
        form.addRow("Agent id", self.agent_id)
        form.addRow("", self.shared_button)
        self.insight_store.currentTextChanged.connect(self._store_hint)
        self.sharing.toggled.connect(self._sharing_toggled)
        self._store_hint(self.insight_store.currentText())
        self._sharing_toggled(self.sharing.isChecked())

    def _store_hint(self, kind: str) -> None:
        self.insight_url.setPlaceholderText({
            "jsonl": str(data_dir() / "shared-insights") + " (or a shared folder)",
            "pgvector": "the embedded server, or postgresql://user@host/db",
            "milvus": "Milvus Lite in the data folder, or http://host:19530",
        }.get(kind, ""))

    def _sharing_toggled(self, on: bool) -> None:
        for widget in (self.insight_store, self.insight_url, self.insight_ttl, self.agent_id):
            widget.setEnabled(on)

    def sharing_problem(self) -> str | None:
        """What keeps the sharing settings from being saved, in words (None: they can be)."""
        url = self.insight_url.text().strip()
        try:
            has_password = "://" in url and urlsplit(url).password is not None
        except ValueError:
            return "The store's URL cannot be read."
        if has_password:
            return "Leave the password out of the store's URL; put it in ~/.pgpass instead."
        agent = self.agent_id.text().strip()
        if len(agent) > 100 or any(ch.isspace() or not ch.isprintable() for ch in agent):
            return "The agent id is one word of at most 100 printable characters (no spaces)."
        return None

    def _save(self) -> None:
        problem = self.host_problem() or self.sharing_problem()
        if problem:
            QMessageBox.warning(self, "Settings", problem)
            return
        self.accept()
