"""Data files dropped on the window open as the database: a CSV, Excel, Parquet, JSON, SQLite or DuckDB file, or a
folder of data files (several files dropped together must share one folder: that folder is opened)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget

from core.databases import SavedConnection, file_kind

__all__ = ["FileDrop", "connection_for_paths"]


def connection_for_paths(paths: list[Path]) -> SavedConnection | None:
    """The connection dropped ``paths`` name: one file or folder, or the one folder several files share."""
    paths = [p for p in paths if p.exists()]
    if not paths:
        return None
    if len(paths) > 1:
        folders = {p.parent for p in paths}
        if len(folders) != 1:
            return None
        chosen = folders.pop()
    else:
        chosen = paths[0]
    return SavedConnection(name=chosen.stem or chosen.name, kind=file_kind(chosen), path=str(chosen.resolve()))


class FileDrop(QObject):
    """An event filter making ``window`` accept local files dropped on it; ``on_drop`` gets their connection."""

    def __init__(self, window: QWidget, on_drop: Callable[[SavedConnection], None]) -> None:
        super().__init__(window)
        self._on_drop = on_drop
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt naming
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            if self._connection(event) is not None:
                event.acceptProposedAction()  # type: ignore[attr-defined]
                return True
        elif kind == QEvent.Type.Drop:
            conn = self._connection(event)
            if conn is not None:
                event.acceptProposedAction()  # type: ignore[attr-defined]
                self._on_drop(conn)
                return True
        return super().eventFilter(watched, event)

    @staticmethod
    def _connection(event: QEvent) -> SavedConnection | None:
        mime = event.mimeData()  # type: ignore[attr-defined]
        if mime is None or not mime.hasUrls():
            return None
        return connection_for_paths([Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile()])
