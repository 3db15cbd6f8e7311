"""Opening data files from the window: Connect… → File/Folder, and files dropped on the window."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QWidget

from core.databases import open_database
from desktop.shell.file_drop import FileDrop, connection_for_paths


def _files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = tmp_path / "a" / "sales.csv"
    one.write_text("region,amount\nNorth,10\n")
    two = tmp_path / "a" / "regions.csv"
    two.write_text("region,head\nNorth,Asha\n")
    return one, two


def test_dropped_paths_name_one_file_or_their_shared_folder(tmp_path: Path) -> None:
    one, two = _files(tmp_path)
    single = connection_for_paths([one])
    assert single is not None and single.kind == "files" and single.path == str(one) and single.name == "sales"
    together = connection_for_paths([one, two])
    assert together is not None and together.path == str(one.parent)
    other = tmp_path / "b" / "x.csv"
    other.write_text("a\n1\n")
    assert connection_for_paths([one, other]) is None  # two folders: nothing is guessed
    db = open_database(together.url())
    try:
        assert sorted(db.schema().table_names) == ["regions", "sales"]
    finally:
        db.close()


def test_a_drop_on_the_window_opens_the_files(qtbot, tmp_path: Path) -> None:
    one, _ = _files(tmp_path)
    window = QWidget()
    qtbot.addWidget(window)
    opened = []
    drop = FileDrop(window, opened.append)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(one))])
    event = QDropEvent(QPointF(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                       Qt.KeyboardModifier.NoModifier)
    assert drop.eventFilter(window, event)  # what Qt calls for a drop on the window (offscreen has no real drag)
    assert [c.path for c in opened] == [str(one)] and window.acceptDrops() and event.isAccepted()


def test_the_connect_form_takes_a_data_file_or_a_folder(qtbot, tmp_path: Path) -> None:
    from core.databases.connections._secrets import SessionSecretStore
    from desktop.connections.connection_form import SQLITE_TAB, ConnectionForm

    one, _ = _files(tmp_path)
    form = ConnectionForm(SessionSecretStore())
    qtbot.addWidget(form)
    form.tabs.setCurrentIndex(SQLITE_TAB)
    form.name_edit.setText("Sales")
    form.sqlite_path_edit.setText(str(one.parent))
    conn = form.form_connection()
    assert conn.kind == "files" and conn.url().startswith("duckdb:///") and form.folder_button.isVisibleTo(form)
