"""Settings a person can change: model, Ollama host, row cap, timeout, memory store, theme, font size."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from core.config import Settings

__all__ = ["SettingsDialog"]

MAX_ROW_CAP = 100_000


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, models: list[str] | None = None, parent: QWidget | None = None) -> None:
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
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

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
        )
