"""The small dialog that asks for a local .gguf file and a model name, for importing a model without internet.

Opened by :class:`desktop.models.model_manager.ModelManagerDialog`, which runs the import itself.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QPushButton, QWidget

from desktop.toolkit.widgets import line_edit

__all__ = ["GgufImportDialog"]


class GgufImportDialog(QDialog):
    """Asks for a .gguf file and the name to give the model in Ollama."""

    def __init__(self, parent: QWidget, *, icon: QIcon) -> None:
        super().__init__(parent)
        self.setObjectName("importGgufDialog")
        self.setWindowTitle("Import a GGUF model")
        form = QFormLayout(self)
        form.setContentsMargins(12, 12, 12, 12)
        self.path_edit = line_edit(self, "ggufPath", "/path/to/model.Q4_K_M.gguf")
        self.path_edit.textChanged.connect(self._suggest_name)
        browse = QPushButton(icon, "Browse…")
        browse.setObjectName("ggufBrowse")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path_edit, 1)
        row.addWidget(browse)
        self.name_edit = line_edit(self, "ggufName", "my-sql-model:latest")
        form.addRow("GGUF file:", row)
        form.addRow("Model name:", self.name_edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Import")
        buttons.accepted.connect(self._accept_if_complete)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self._suggested = ""

    def path(self) -> Path:
        return Path(self.path_edit.text().strip()).expanduser()

    def name(self) -> str:
        return self.name_edit.text().strip()

    def _browse(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF model file", "",
                                                "GGUF models (*.gguf);;All files (*)")
        if chosen:
            self.path_edit.setText(chosen)

    def _suggest_name(self, text: str) -> None:
        """Offer a name from the file name until the person types their own."""
        if self.name_edit.text() not in ("", self._suggested):
            return
        stem = Path(text.strip()).name.removesuffix(".gguf").lower()
        self._suggested = re.sub(r"[^a-z0-9._-]+", "-", stem).strip("-.") or ""
        self.name_edit.setText(self._suggested)

    def _accept_if_complete(self) -> None:
        if self.path_edit.text().strip() and self.name():
            self.accept()
