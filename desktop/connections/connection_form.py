"""The connection form: a name and a PostgreSQL / SQLite tab, read back as a SavedConnection and a typed password.

Kept apart from :class:`desktop.connections.connection_dialog.ConnectionDialog`, which owns the saved list and
the actions.
"""

from __future__ import annotations

from pathlib import Path

import qtawesome as qta
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.databases import DEFAULT_PORT, SavedConnection, SecretStore, file_kind
from core.databases.connections import MYSQL_PORT
from core.errors import ConfigError
from desktop.toolkit.widgets import line_edit, push_button

__all__ = ["POSTGRES_TAB", "SQLITE_TAB", "SSL_MODES", "ConnectionForm"]

POSTGRES_TAB, SQLITE_TAB = 0, 1
SSL_MODES: tuple[tuple[str, str], ...] = (
    ("Default (prefer)", ""),
    ("disable", "disable"),
    ("allow", "allow"),
    ("prefer", "prefer"),
    ("require", "require"),
    ("verify-ca", "verify-ca"),
    ("verify-full", "verify-full"),
)
SQLITE_FILTER = ("Databases and data files (*.sqlite *.sqlite3 *.db *.db3 *.duckdb *.ddb *.csv *.tsv *.tab *.xlsx "
                 "*.xlsm *.parquet *.pq *.json *.jsonl *.ndjson);;All files (*)")
_UNSAVED_NAME = "Unsaved connection"


class ConnectionForm(QWidget):
    """Name, PostgreSQL fields (a pasted URL fills them) or a SQLite file; never holds a password after use."""

    url_filled = Signal()
    """A pasted URL was read into the fields."""
    url_rejected = Signal(object)
    """A pasted URL could not be read: the ConfigError saying why (its text never holds the password)."""

    def __init__(self, secrets: SecretStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._secrets = secrets
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        name_form = QFormLayout()
        self.name_edit = line_edit(self, "nameEdit", "e.g. Sales (production)",
                                   "The name shown in the list of saved connections")
        name_form.addRow("&Name:", self.name_edit)
        layout.addLayout(name_form)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("kindTabs")
        self.tabs.addTab(self._build_postgres_tab(), qta.icon("fa5s.server"), "Server")
        self.tabs.addTab(self._build_sqlite_tab(), qta.icon("fa5s.file"), "File")
        layout.addWidget(self.tabs, 1)

    # -- building ------------------------------------------------------------------------------------------

    def _build_postgres_tab(self) -> QWidget:
        page = QWidget(self)
        form = QFormLayout(page)
        form.setContentsMargins(10, 10, 10, 10)
        self.url_edit = line_edit(page, "urlEdit", "Paste a URL: postgresql://user:password@host:5432/dbname or mysql://…",
                                  "Paste a connection URL: it fills in the fields below (the password too)")
        self.url_edit.setClearButtonEnabled(True)
        self.url_edit.editingFinished.connect(self._on_url_edited)
        form.addRow("&URL:", self.url_edit)
        self.server_combo = QComboBox(page)
        self.server_combo.setObjectName("serverKindCombo")
        self.server_combo.addItem("PostgreSQL", "postgres")
        self.server_combo.addItem("MySQL or MariaDB", "mysql")
        self.server_combo.currentIndexChanged.connect(self._on_server_kind)
        form.addRow("Ser&ver:", self.server_combo)
        self.host_edit = line_edit(page, "hostEdit", "localhost",
                                   "Server name or address, or the directory of a Unix socket")
        form.addRow("&Host:", self.host_edit)
        self.port_spin = QSpinBox(page)
        self.port_spin.setObjectName("portSpin")
        self.port_spin.setRange(1, 65535)
        self.port_spin.setValue(DEFAULT_PORT)
        form.addRow("&Port:", self.port_spin)
        self.database_edit = line_edit(page, "databaseEdit", "database name")
        form.addRow("&Database:", self.database_edit)
        self.user_edit = line_edit(page, "userEdit", "user name")
        form.addRow("U&ser:", self.user_edit)
        self.password_edit = line_edit(page, "passwordEdit", "")
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        form.addRow("Pass&word:", self.password_edit)
        self.ssl_combo = QComboBox(page)
        self.ssl_combo.setObjectName("sslModeCombo")
        for label, value in SSL_MODES:
            self.ssl_combo.addItem(label, value)
        self.ssl_combo.setToolTip("libpq sslmode: 'require' encrypts; 'verify-full' also checks the server")
        form.addRow("SS&L mode:", self.ssl_combo)
        self.remember_check: QCheckBox | None = None
        self.secrets_note: QLabel | None = None
        if self._secrets.secure:
            self.password_edit.setPlaceholderText("Leave empty to use the saved password")
            self.remember_check = QCheckBox("Remember password in the system keyring", page)
            self.remember_check.setObjectName("rememberCheck")
            self.remember_check.setChecked(True)
            self.remember_check.setToolTip(self._secrets.why)
            form.addRow("", self.remember_check)
        else:
            self.password_edit.setPlaceholderText("Kept in memory for this session only")
            self.secrets_note = QLabel(self._secrets.why, page)
            self.secrets_note.setObjectName("secretsNote")
            self.secrets_note.setWordWrap(True)
            note_row = QHBoxLayout()
            note_icon = QLabel(page)
            note_icon.setPixmap(qta.icon("fa5s.info-circle").pixmap(16, 16))
            note_row.addWidget(note_icon, 0, Qt.AlignmentFlag.AlignTop)
            note_row.addWidget(self.secrets_note, 1)
            form.addRow("", note_row)
        return page

    def _build_sqlite_tab(self) -> QWidget:
        page = QWidget(self)
        form = QFormLayout(page)
        form.setContentsMargins(10, 10, 10, 10)
        row = QHBoxLayout()
        self.sqlite_path_edit = line_edit(page, "sqlitePathEdit", "/path/to/sales.sqlite, sales.csv or a folder",
                                          "A SQLite or DuckDB file, a CSV, Excel, Parquet or JSON file, or a folder of "
                                          "them (one table each); opened read-only")
        self.browse_button = push_button(page, "fa5s.file", "File…", "browseButton",
                                         "Choose a database or data file", self._browse)
        self.folder_button = push_button(page, "fa5s.folder-open", "Folder…", "folderButton",
                                         "Choose a folder of data files: each file is a table", self._browse_folder)
        row.addWidget(self.sqlite_path_edit, 1)
        row.addWidget(self.browse_button)
        row.addWidget(self.folder_button)
        label = QLabel("&File:")
        label.setBuddy(self.sqlite_path_edit)  # a row of widgets has no buddy of its own: "&" would show literally
        form.addRow(label, row)
        return page

    # -- writing the fields --------------------------------------------------------------------------------

    def show_connection(self, conn: SavedConnection) -> None:
        """Show a saved (or pasted) connection; the password field is emptied, never filled from the store."""
        self.name_edit.setText(conn.name)
        self.password_edit.clear()
        if conn.kind in ("sqlite", "files"):
            self.tabs.setCurrentIndex(SQLITE_TAB)
            self.sqlite_path_edit.setText(conn.path)
            return
        self.tabs.setCurrentIndex(POSTGRES_TAB)
        self.url_edit.clear()
        self.server_combo.setCurrentIndex(max(self.server_combo.findData(conn.kind), 0))
        self.host_edit.setText(conn.host)
        self.port_spin.setValue(conn.port)
        self.database_edit.setText(conn.database)
        self.user_edit.setText(conn.user)
        index = self.ssl_combo.findData(conn.options.get("sslmode", ""))
        self.ssl_combo.setCurrentIndex(max(index, 0))

    def clear(self) -> None:
        """Empty every field for a connection that is not saved yet."""
        for edit in (self.name_edit, self.url_edit, self.host_edit, self.database_edit, self.user_edit,
                     self.password_edit, self.sqlite_path_edit):
            edit.clear()
        self.server_combo.setCurrentIndex(0)
        self.port_spin.setValue(DEFAULT_PORT)
        self.ssl_combo.setCurrentIndex(0)

    def fill_from_url(self, text: str) -> bool:
        """Fill the fields from a pasted URL; its password goes to the password field, and the URL is cleared.

        Emits ``url_filled`` on success and ``url_rejected`` with the ConfigError when the URL cannot be read.
        """
        text = text.strip()
        if not text:
            return False
        name = self.name_edit.text().strip() or _UNSAVED_NAME
        try:
            conn, password = SavedConnection.from_url(name, text)
        except ConfigError as exc:
            self.url_rejected.emit(exc)
            return False
        if not self.name_edit.text().strip():
            self.name_edit.setText(conn.database or Path(conn.path).stem or "")
        self.url_edit.clear()  # never leave a password visible in plain text
        if conn.kind in ("sqlite", "files"):
            self.tabs.setCurrentIndex(SQLITE_TAB)
            self.sqlite_path_edit.setText(conn.path)
        else:
            keep_name = self.name_edit.text()
            self.show_connection(conn)
            self.name_edit.setText(keep_name)
            if password:
                self.password_edit.setText(password)
        self.url_filled.emit()
        return True

    def _on_server_kind(self) -> None:
        """MySQL listens on 3306 and takes no libpq sslmode: the port follows when it was the other default."""
        mysql = self.server_combo.currentData() == "mysql"
        if self.port_spin.value() in (DEFAULT_PORT, MYSQL_PORT):
            self.port_spin.setValue(MYSQL_PORT if mysql else DEFAULT_PORT)
        self.ssl_combo.setEnabled(not mysql)

    def _on_url_edited(self) -> None:
        if self.url_edit.text().strip():
            self.fill_from_url(self.url_edit.text())

    def apply_pending_url(self) -> bool:
        """A URL still in the URL field (e.g. Enter pressed on a bad one) must be read before anything runs."""
        if self.tabs.currentIndex() != POSTGRES_TAB or not self.url_edit.text().strip():
            return True
        return self.fill_from_url(self.url_edit.text())

    def _browse(self) -> None:
        start = self.sqlite_path_edit.text().strip() or str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, "Choose a database or data file", start, SQLITE_FILTER)
        self._chosen(path)

    def _browse_folder(self) -> None:
        start = self.sqlite_path_edit.text().strip() or str(Path.home())
        self._chosen(QFileDialog.getExistingDirectory(self, "Choose a folder of data files", start))

    def _chosen(self, path: str) -> None:
        if path:
            self.sqlite_path_edit.setText(path)
            if not self.name_edit.text().strip():
                self.name_edit.setText(Path(path).stem or Path(path).name)

    # -- reading the fields --------------------------------------------------------------------------------

    def form_connection(self, *, require_name: bool = True) -> SavedConnection:
        """The connection the form describes (no password). Raises ConfigError when it is incomplete."""
        name = self.name_edit.text().strip()
        if not name:
            if require_name:
                raise ConfigError("The connection needs a name.", hint="Type a name such as 'Sales (production)'.")
            name = _UNSAVED_NAME
        if self.tabs.currentIndex() == SQLITE_TAB:
            path = self.sqlite_path_edit.text().strip()
            if not path:
                raise ConfigError("No file chosen.", hint="Type the path of a file or folder, or press File… or Folder….")
            chosen = Path(path).expanduser()
            return SavedConnection(name=name, kind=file_kind(chosen), path=str(chosen))
        kind = self.server_combo.currentData()
        sslmode = self.ssl_combo.currentData() if kind == "postgres" else None
        return SavedConnection(
            name=name,
            kind=kind,
            host=self.host_edit.text().strip(),
            port=self.port_spin.value(),
            database=self.database_edit.text().strip(),
            user=self.user_edit.text().strip(),
            options={"sslmode": sslmode} if sslmode else {},
        )

    def typed_password(self) -> str | None:
        """The password typed for a PostgreSQL connection; None means "use the stored one"."""
        if self.tabs.currentIndex() == SQLITE_TAB:
            return None
        return self.password_edit.text() or None

    def remember_password(self) -> bool:
        """Whether a typed password should be kept (always, for this session, without a keyring)."""
        return self.remember_check.isChecked() if self.remember_check is not None else True
