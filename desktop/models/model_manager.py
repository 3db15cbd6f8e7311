"""The model manager: is Ollama running, what this computer can run, pull or import a model, pick one.

A thin view over :class:`core.llm._admin.OllamaAdmin` and :mod:`core.llm._catalog`; every call that
touches the network, the disk or a subprocess goes through ``run_in_background``. The rows and texts are
drawn by :mod:`desktop.models.model_tables`; the GGUF file prompt is :mod:`desktop.models.gguf_import_dialog`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qtawesome as qta
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIcon, QKeyEvent, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QDialog, QDialogButtonBox, QGroupBox, QHBoxLayout, QLabel, QProgressBar, QStyle, QVBoxLayout, QWidget,
)

from core.cancellation import Cancellation
from core.errors import QueryCancelled
from core.llm import GpuInfo, detect_gpu, total_ram_bytes
from core.llm import format_bytes, recommend
from core.llm import OllamaAdmin, PullProgress
from desktop.models.gguf_import_dialog import GgufImportDialog
from desktop.models.model_tables import (
    Machine,
    OllamaSnapshot,
    fill_installed_table,
    fill_recommended_table,
    loaded_models_text,
    machine_text,
)
from desktop.toolkit.errors import error_text, window_hint
from desktop.toolkit.widgets import item_table, line_edit, push_button, selectable_label
from desktop.toolkit.workers import Worker, run_in_background

__all__ = ["ModelManagerDialog"]

logger = logging.getLogger(__name__)


class ModelManagerDialog(QDialog):
    """Shows Ollama's state, the installed and recommended models, and pulls/imports models."""

    model_chosen = Signal(str)
    """The person picked this installed model to answer questions."""
    model_installed = Signal(str)
    """A pull or GGUF import finished; this model is now installed."""

    def __init__(
        self,
        admin: OllamaAdmin,
        *,
        current_model: str,
        gpu_detector: Callable[[], GpuInfo] = detect_gpu,
        ram_detector: Callable[[], int] = total_ram_bytes,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.admin = admin
        self.current_model = current_model
        self._gpu_detector = gpu_detector
        self._ram_detector = ram_detector
        self._machine: Machine | None = None
        self._snapshot: OllamaSnapshot | None = None
        self._operation: Worker | None = None
        self._refresh_generation = 0
        self.setObjectName("modelManager")
        self.setWindowTitle("Models")
        self.resize(760, 640)
        self._build()
        self._set_busy(False)
        self._detect_machine()
        self.refresh()

    # ----- layout -----------------------------------------------------------------------------------------------

    def _build(self) -> None:
        root = QVBoxLayout(self)
        root.setContentsMargins(12, 12, 12, 12)
        root.setSpacing(10)

        header = QHBoxLayout()
        self.status_icon = QLabel()
        self.status_label = selectable_label("ollamaStatus", "Checking Ollama…")
        self.refresh_button = push_button(self, self._icon("fa5s.sync"), "Refresh", "refreshButton",
                                          "Ask Ollama again (F5)", self.refresh, QKeySequence.StandardKey.Refresh)
        header.addWidget(self.status_icon)
        header.addWidget(self.status_label, 1)
        header.addWidget(self.refresh_button)
        root.addLayout(header)

        hardware = QHBoxLayout()
        chip = QLabel()
        chip.setPixmap(self._icon("fa5s.microchip").pixmap(16, 16))
        self.gpu_label = selectable_label("gpuLabel", "Looking at this computer's GPU…")
        hardware.addWidget(chip)
        hardware.addWidget(self.gpu_label, 1)
        root.addLayout(hardware)

        installed = QGroupBox("Installed models")
        box = QVBoxLayout(installed)
        box.setContentsMargins(8, 8, 8, 8)
        self.installed_table = item_table("installedModels", ["Model", "Size", "Parameters", "Quantization"])
        self.installed_table.itemSelectionChanged.connect(self._on_installed_selection)
        self.installed_table.itemDoubleClicked.connect(lambda _item: self._use_selected())
        self.installed_empty = selectable_label("installedEmpty", "No models installed yet. Pull one below.")
        self.loaded_label = selectable_label("loadedModels", "")
        box.addWidget(self.installed_table)
        box.addWidget(self.installed_empty)
        box.addWidget(self.loaded_label)
        root.addWidget(installed, 3)

        recommended = QGroupBox("Recommended for this computer")
        box = QVBoxLayout(recommended)
        box.setContentsMargins(8, 8, 8, 8)
        self.recommended_table = item_table("recommendedModels", ["Model", "Download", "Fits?", "Notes"])
        self.recommended_table.itemSelectionChanged.connect(self._on_recommended_selection)
        box.addWidget(self.recommended_table)
        root.addWidget(recommended, 3)

        pull_row = QHBoxLayout()
        self.pull_name = line_edit(self, "pullName", "Model to download, e.g. qwen2.5-coder:7b")
        self.pull_name.setClearButtonEnabled(True)
        self.pull_name.returnPressed.connect(self._pull_clicked)
        self.pull_button = push_button(self, self._icon("fa5s.download"), "&Pull", "pullButton",
                                       "Download this model into Ollama (Alt+P)", self._pull_clicked)
        self.import_button = push_button(self, self._icon("fa5s.file-import"), "&Import GGUF…", "importButton",
                                         "Create a model from a .gguf file on this computer (no internet needed)",
                                         self._import_clicked)
        pull_row.addWidget(self.pull_name, 1)
        pull_row.addWidget(self.pull_button)
        pull_row.addWidget(self.import_button)
        root.addLayout(pull_row)

        progress_row = QHBoxLayout()
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("pullProgress")
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setFormat("%p%")
        self.cancel_button = push_button(self, self._icon("fa5s.times"), "Cancel", "cancelPullButton",
                                         "Stop the download (Esc); Ollama keeps the finished parts",
                                         self.cancel_operation)
        progress_row.addWidget(self.progress_bar, 1)
        progress_row.addWidget(self.cancel_button)
        root.addLayout(progress_row)
        self.pull_status = selectable_label("pullStatus", "")
        root.addWidget(self.pull_status)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.use_button = buttons.addButton("&Use this model", QDialogButtonBox.ButtonRole.AcceptRole)
        self.use_button.setObjectName("useModelButton")
        self.use_button.setIcon(self._icon("fa5s.check"))
        self.use_button.setToolTip("Answer questions with the selected installed model")
        self.use_button.setEnabled(False)
        self.use_button.clicked.connect(self._use_selected)
        buttons.rejected.connect(self.reject)
        root.addWidget(buttons)

    def _icon(self, name: str) -> QIcon:
        """qtawesome icon in the palette's text colour, so it reads on light and dark themes."""
        return qta.icon(name, color=self.palette().color(QPalette.ColorRole.WindowText))

    # ----- refresh ----------------------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Ask Ollama for its version, models and loaded models (in the background)."""
        self._refresh_generation += 1
        generation = self._refresh_generation
        self.refresh_button.setEnabled(False)
        admin = self.admin

        def fetch(cancel: Cancellation, report: Callable[[object], None]) -> OllamaSnapshot:
            status = admin.status()
            if not status.running:
                return OllamaSnapshot(status)
            return OllamaSnapshot(status, admin.list_models(), admin.loaded_models())

        run_in_background(fetch, receiver=self,
                          on_success=lambda snap: self._on_snapshot(generation, snap),
                          on_failure=lambda exc: self._on_refresh_failed(generation, exc))

    def _on_snapshot(self, generation: int, snapshot: OllamaSnapshot) -> None:
        if generation != self._refresh_generation:
            return
        self.refresh_button.setEnabled(True)
        self._snapshot = snapshot
        status = snapshot.status
        if status.running:
            self._set_status(True, f"Ollama {status.version or ''} is running at {status.host}.")
        else:
            self._set_status(False, status.message)
        self._fill_installed(snapshot)
        self._fill_recommended()
        self._set_busy(self._operation is not None)

    def _on_refresh_failed(self, generation: int, exc: BaseException) -> None:
        if generation != self._refresh_generation:
            return
        self.refresh_button.setEnabled(True)
        message, hint = error_text(exc)
        self._set_status(False, f"{message} {hint}")

    def _set_status(self, ok: bool, text: str) -> None:
        pixmap = QStyle.StandardPixmap.SP_DialogApplyButton if ok else QStyle.StandardPixmap.SP_MessageBoxWarning
        self.status_icon.setPixmap(self.style().standardIcon(pixmap).pixmap(16, 16))
        self.status_label.setText(text)

    def _detect_machine(self) -> None:
        detect_gpu_fn, ram_fn = self._gpu_detector, self._ram_detector

        def detect(cancel: Cancellation, report: Callable[[object], None]) -> Machine:
            return Machine(detect_gpu_fn(), ram_fn())

        run_in_background(detect, receiver=self, on_success=self._on_machine,
                          on_failure=lambda exc: self.gpu_label.setText(" ".join(error_text(exc))))

    def _on_machine(self, machine: Machine) -> None:
        self._machine = machine
        self.gpu_label.setText(machine_text(machine))
        self.gpu_label.setToolTip(machine.gpu.note)
        self._fill_recommended()

    # ----- tables -----------------------------------------------------------------------------------------------

    def _fill_installed(self, snapshot: OllamaSnapshot) -> None:
        fill_installed_table(self.installed_table, snapshot, self.current_model, self._icon("fa5s.check"))
        has_models = bool(snapshot.models)
        self.installed_table.setVisible(has_models)
        self.installed_empty.setVisible(not has_models)
        if not snapshot.status.running:
            self.installed_empty.setText("Start Ollama to see and download models.")
        else:
            self.installed_empty.setText("No models installed yet. Pull one below.")
        self.loaded_label.setText(loaded_models_text(snapshot, self.current_model))

    def _fill_recommended(self) -> None:
        machine = self._machine
        recommendations = recommend(machine.gpu, machine.ram_bytes) if machine is not None else []
        installed = {m.name for m in self._snapshot.models} if self._snapshot else set()
        warning = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        fill_recommended_table(self.recommended_table, recommendations, installed, self._icon, warning)

    def _on_installed_selection(self) -> None:
        self.use_button.setEnabled(self._selected_installed() is not None)

    def _on_recommended_selection(self) -> None:
        items = self.recommended_table.selectedItems()
        if items and self._operation is None:
            self.pull_name.setText(str(self.recommended_table.item(items[0].row(), 0).text()))

    def _selected_installed(self) -> str | None:
        items = self.installed_table.selectedItems()
        if not items:
            return None
        return str(self.installed_table.item(items[0].row(), 0).data(Qt.ItemDataRole.UserRole))

    def _use_selected(self) -> None:
        name = self._selected_installed()
        if name is None:
            return
        self.current_model = name
        self.model_chosen.emit(name)
        self.accept()

    # ----- pull and import --------------------------------------------------------------------------------------

    def _pull_clicked(self) -> None:
        name = self.pull_name.text().strip()
        if name:
            self.start_pull(name)
        else:
            self.pull_status.setText("Type a model name or pick one from the recommendations.")

    def start_pull(self, name: str) -> None:
        """Download ``name`` with streaming progress; Cancel (or Esc) stops it."""
        admin = self.admin

        def pull(cancel: Cancellation, report: Callable[[object], None]) -> str:
            admin.pull(name, cancel=cancel, on_progress=report)
            return name

        self._start_operation(f"Downloading {name}…", pull, lambda p: self._on_progress(name, p))

    def _import_clicked(self) -> None:
        dialog = GgufImportDialog(self, icon=self._icon("fa5s.folder-open"))
        dialog.accepted.connect(lambda: self.start_import(dialog.path(), dialog.name()))
        dialog.open()

    def start_import(self, path: Path, name: str) -> None:
        """Create model ``name`` from a local GGUF file, for machines without internet access."""
        admin = self.admin

        def create(cancel: Cancellation, report: Callable[[object], None]) -> str:
            return admin.import_gguf(path, name, on_progress=report, cancel=cancel)

        self._start_operation(f"Importing {path.name} as {name}…", create, lambda p: self._on_progress(name, p))

    def _start_operation(self, text: str, fn: Callable[[Cancellation, Callable[[object], None]], str],
                         on_progress: Callable[[Any], None]) -> None:
        if self._operation is not None:
            return
        self.progress_bar.setRange(0, 0)
        self.progress_bar.setValue(0)
        self.pull_status.setText(text)
        self._operation = run_in_background(fn, receiver=self, on_progress=on_progress,
                                            on_success=self._on_operation_done,
                                            on_failure=self._on_operation_failed)
        self._set_busy(True)

    def _on_progress(self, name: str, progress: PullProgress) -> None:
        if self._operation is None or self._operation.cancellation.cancelled:
            return
        if progress.fraction is None:
            self.progress_bar.setRange(0, 0)
        else:
            self.progress_bar.setRange(0, 1000)
            self.progress_bar.setValue(round(progress.fraction * 1000))
        if progress.status.startswith("pulling ") and progress.total:
            text = f"Downloading {name}: {format_bytes(progress.completed or 0)} of {format_bytes(progress.total)}"
        else:
            text = f"{name}: {progress.status}"
        self.pull_status.setText(text)

    def cancel_operation(self) -> None:
        """Stop the running pull or import; the UI returns to idle when the worker has stopped."""
        if self._operation is not None and not self._operation.cancellation.cancelled:
            self._operation.cancel()
            self.cancel_button.setEnabled(False)
            self.pull_status.setText("Stopping…")

    def _on_operation_done(self, name: str) -> None:
        self._operation = None
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(1000)
        self.pull_status.setText(f"{name} is installed. Select it above and click “Use this model”.")
        self._set_busy(False)
        self.model_installed.emit(name)
        self.refresh()

    def _on_operation_failed(self, exc: BaseException) -> None:
        self._operation = None
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(0)
        if isinstance(exc, QueryCancelled):
            self.pull_status.setText(f"Stopped. {window_hint(exc.hint)}")
        else:
            message, hint = error_text(exc)
            self.pull_status.setText(f"{message} {hint}")
        self._set_busy(False)
        self.refresh()

    def _set_busy(self, busy: bool) -> None:
        running = self._snapshot is not None and self._snapshot.status.running
        self.pull_button.setEnabled(running and not busy)
        self.import_button.setEnabled(running and not busy)
        self.pull_name.setEnabled(not busy)
        self.cancel_button.setVisible(busy)
        self.cancel_button.setEnabled(busy)
        self.progress_bar.setVisible(busy or self.progress_bar.value() > 0)

    @property
    def busy(self) -> bool:
        """True while a pull or import runs."""
        return self._operation is not None

    # ----- closing ----------------------------------------------------------------------------------------------

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        if event.key() == Qt.Key.Key_Escape and self._operation is not None:
            self.cancel_operation()
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.pull_name.hasFocus():
            return  # Enter in the name field pulls; it must not also press "Use this model"
        super().keyPressEvent(event)

    def done(self, result: int) -> None:
        """Closing the dialog (Close, Esc when idle, the window's X) stops a running download."""
        self.cancel_operation()
        super().done(result)

