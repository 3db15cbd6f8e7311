"""Completion in the SQL editor: the connected database's tables and columns and the dialect's keywords.

Typing two letters of a name offers what starts with them (any case); after ``orders.`` the columns of ``orders``
(or of the table an alias stands for, when the SQL says ``FROM orders o``). Enter or Tab takes the highlighted
word, Esc closes the list, and typing on narrows it. Statements Cairn never runs (INSERT, DROP, …) are not offered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from PySide6.QtCore import QObject, QStringListModel, Qt
from PySide6.QtWidgets import QCompleter, QPlainTextEdit

__all__ = ["SqlCompleter", "dialect_keywords"]

_WORD_BEFORE = re.compile(r"(?:([A-Za-z_][\w$]*)\.)?([A-Za-z_][\w$]*)?$")
_ALIAS = re.compile(r"\b(?:FROM|JOIN)\s+(?:[\w$]+\.)?([\w$]+)(?:\s+(?:AS\s+)?([\w$]+))?", re.IGNORECASE)
_NEVER = frozenset({"INSERT", "UPDATE", "DELETE", "DROP", "CREATE", "ALTER", "TRUNCATE", "GRANT", "REVOKE", "COPY",
                    "COMMIT", "BEGIN", "ROLLBACK", "CACHE", "UNCACHE", "VACUUM", "ATTACH", "DETACH", "MERGE",
                    "REPLACE", "SET", "USE", "EXECUTE", "CALL", "LOAD", "PRAGMA", "REFRESH", "UNLOCK", "LOCK"})
MAX_SHOWN = 60


def dialect_keywords(dialect: str | None) -> list[str]:
    """The words of ``dialect``'s SQL (sqlglot's tokenizer), less the statements Cairn never runs."""
    from sqlglot.dialects.dialect import Dialect

    try:
        keywords = Dialect.get_or_raise(dialect or "postgres").tokenizer_class.KEYWORDS
    except (ValueError, KeyError):
        return []
    return sorted(k for k in keywords if k.replace(" ", "").isalpha() and k.split()[0] not in _NEVER)


class SqlCompleter(QObject):
    """Attached to ``edit``; the editor hands it each key it typed (``typed``) and asks it first about the keys a
    visible list takes (``takes``)."""

    def __init__(self, edit: QPlainTextEdit) -> None:
        super().__init__(edit)
        self._edit = edit
        self._tables: dict[str, list[str]] = {}  # folded table name -> its columns
        self._names: dict[str, str] = {}  # folded table name -> as written
        self._words: list[str] = []
        self._model = QStringListModel(self)
        self.completer = QCompleter(self._model, self)
        self.completer.setWidget(edit)
        self.completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.activated.connect(self._insert)
        self._prefix = ""
        self._whole = False  # the word before the cursor is a whole name or keyword already

    def set_schema(self, tables: dict[str, Iterable[str]], keywords: Iterable[str]) -> None:
        self._tables = {name.casefold(): list(columns) for name, columns in tables.items()}
        self._names = {name.casefold(): name for name in tables}
        columns = sorted({c for cs in self._tables.values() for c in cs}, key=str.casefold)
        self._words = [*sorted(tables, key=str.casefold), *columns, *keywords]

    def takes(self, key: int) -> bool:
        """Is ``key`` the list's (Enter/Tab take the word, Esc closes) rather than the editor's?"""
        if not self.completer.popup().isVisible():
            return False
        if key == Qt.Key.Key_Escape:
            self.completer.popup().hide()
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self._whole:
            self.completer.popup().hide()  # "DESC" typed whole: Enter is a new line, not DESCRIBE (Tab takes it)
            return False
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab):
            index = self.completer.popup().currentIndex()
            row = index.row() if index.isValid() else 0
            self._insert(self._model.index(row).data())
            return True
        return False

    def typed(self, text: str) -> None:
        """After a key: offer what fits the word before the cursor (or close the list)."""
        if not text or not (text.isprintable() or text == "\b"):
            return
        line = self._edit.textCursor().block().text()[: self._edit.textCursor().positionInBlock()]
        match = _WORD_BEFORE.search(line)
        qualifier, prefix = (match.group(1), match.group(2) or "") if match else (None, "")
        if qualifier:
            table = self._table_of(qualifier)
            candidates = self._tables.get(table or "", [])
        elif len(prefix) >= 2:
            candidates = self._words
        else:
            candidates = []
        folded = prefix.casefold()
        self._whole = any(c.casefold() == folded for c in candidates)
        shown = [c for c in candidates if c.casefold().startswith(folded) and c.casefold() != folded]
        if prefix.isupper():  # "ORD" is a keyword being typed (ORDER BY), "ord" a name (orders): that kind first
            shown.sort(key=lambda c: not c.isupper())
        shown = shown[:MAX_SHOWN]
        if not shown:
            self.completer.popup().hide()
            return
        self._prefix = prefix
        self._model.setStringList(shown)
        popup = self.completer.popup()
        popup.setCurrentIndex(self._model.index(0))
        rect = self._edit.cursorRect()
        rect.setWidth(popup.sizeHintForColumn(0) + popup.verticalScrollBar().sizeHint().width() + 8)
        self.completer.complete(rect)

    def _table_of(self, qualifier: str) -> str | None:
        """The folded table a qualifier names: a table, or an alias the SQL gives one."""
        folded = qualifier.casefold()
        if folded in self._tables:
            return folded
        for table, alias in _ALIAS.findall(self._edit.toPlainText()):
            if alias and alias.casefold() == folded:
                return table.casefold()
        return None

    def _insert(self, word: str | None) -> None:
        if not word:
            return
        cursor = self._edit.textCursor()
        cursor.movePosition(cursor.MoveOperation.Left, cursor.MoveMode.KeepAnchor, len(self._prefix))
        cursor.insertText(word)
        self._edit.setTextCursor(cursor)
        self.completer.popup().hide()
