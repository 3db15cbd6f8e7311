"""The main window's menu bar: every command in one place with the shortcuts analysts know from DBeaver,
DataGrip and chat assistants.

Each key belongs to one action here. Widgets that had their own window-wide shortcut (Esc and Ctrl+L in the
chat, Ctrl+Shift+C on the SQL tab's Copy button) give it up to the menu when the window is built, so Qt never
sees two owners for one key (an "ambiguous shortcut" fires neither).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import qtawesome as qta
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMessageBox, QWidget

__all__ = ["MenuActions", "build_menus", "shortcut_table"]


@dataclass
class MenuActions:
    """The actions the window enables, disables or triggers from code and tests."""

    by_name: dict[str, QAction] = field(default_factory=dict)

    def __getitem__(self, name: str) -> QAction:
        return self.by_name[name]


def _keys(*keys: QKeySequence.StandardKey | str) -> list[QKeySequence]:
    """Key sequences without empties or repeats (a standard key may be empty on this platform)."""
    seen: list[QKeySequence] = []
    for key in keys:
        for seq in (QKeySequence.keyBindings(key) if isinstance(key, QKeySequence.StandardKey)
                    else [QKeySequence(key)]):
            if not seq.isEmpty() and seq not in seen:
                seen.append(seq)
    return seen


def _add(menu: QMenu, actions: MenuActions, name: str, text: str, slot: Callable[[], Any], *,
         keys: list[QKeySequence] | None = None, icon: str | None = None, tip: str = "",
         action: QAction | None = None) -> QAction:
    act = action or QAction(text, menu.parent())
    if action is None and icon:
        act.setIcon(qta.icon(icon))
    if keys:
        act.setShortcuts(keys)
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    if tip:
        act.setStatusTip(tip)
        act.setToolTip(tip)
    if action is None:
        act.triggered.connect(lambda _checked=False: slot())
    act.setObjectName(f"action_{name}")
    menu.addAction(act)
    actions.by_name[name] = act
    return act


def build_menus(window: Any) -> MenuActions:
    """File, Edit, Query, View, Tools and Help on ``window`` (a MainWindow); returns the actions by name."""
    bar = window.menuBar()
    actions = MenuActions()
    _take_widget_shortcuts(window)

    file = bar.addMenu("&File")
    _add(file, actions, "connect", "&Connect to a database…", window.open_connections, action=window.connect_action,
         keys=_keys("Ctrl+Shift+O"))
    file.addSeparator()
    _add(file, actions, "export_csv", "Export results as &CSV…", window.results._choose_and_export,
         keys=_keys("Ctrl+Shift+E"), icon="fa5s.file-csv", tip="Save every row of the answer as a CSV file")
    _add(file, actions, "export_chart", "Export &chart…", window.chart._choose_export, icon="fa5s.image",
         tip="Save the chart as PNG or SVG")
    file.addSeparator()
    _add(file, actions, "quit", "&Quit", window.close, keys=_keys(QKeySequence.StandardKey.Quit, "Ctrl+Q"))

    edit = bar.addMenu("&Edit")
    _add(edit, actions, "copy_sql", "Copy &SQL", window.sql_editor.copy, keys=_keys("Ctrl+Shift+C"),
         icon="fa5s.copy", tip="Copy the SQL on the SQL tab")
    _add(edit, actions, "focus_input", "Go to the &question box", window.chat.focus_input, keys=_keys("Ctrl+L"))
    _add(edit, actions, "find", "&Find in the conversation…", window.chat.find_in_conversation,
         keys=_keys(QKeySequence.StandardKey.Find, "Ctrl+F"), icon="fa5s.search")
    edit.addSeparator()
    _add(edit, actions, "settings", "Se&ttings…", window.open_settings, action=window.settings_action,
         keys=_keys(QKeySequence.StandardKey.Preferences, "Ctrl+,"))

    query = bar.addMenu("&Query")
    _add(query, actions, "run", "&Ask or run", window.run_current, keys=_keys("Ctrl+Return", "Ctrl+Enter"),
         icon="fa5s.play", tip="Ask the question in the box, or run the SQL when the SQL tab is shown")
    _add(query, actions, "stop", "S&top", window.cancel, keys=_keys("Esc"), icon="fa5s.stop-circle",
         tip="Stop the question or query in progress")
    _add(query, actions, "explain", "&Explain this SQL", window.explain_sql, keys=_keys("Ctrl+Shift+X"),
         icon="fa5s.question-circle", tip="Say in plain words what the SQL on the SQL tab does")
    _add(query, actions, "rerun", "Ask the last question a&gain", window.ask_again, keys=_keys("Ctrl+R"),
         icon="fa5s.redo")
    actions["stop"].setEnabled(False)

    view = bar.addMenu("&View")
    for number, (name, text) in enumerate((("results", "&Results"), ("chart", "C&hart"), ("sql", "S&QL")), 1):
        _add(view, actions, f"tab_{name}", text, lambda n=number: window.tabs.setCurrentIndex(n - 1),
             keys=_keys(f"Ctrl+{number}"))
    view.addSeparator()
    # The docks cannot be closed (so their own toggle actions stay disabled): these bring one to the front.
    for dock, text, key in ((window._memory_dock, "&Memory bank", "Ctrl+Shift+M"),
                            (window._history_dock, "H&istory", "Ctrl+Shift+H"),
                            (window._schema_dock, "&Schema", "Ctrl+Shift+S")):
        _add(view, actions, f"dock_{dock.objectName()}", text, lambda d=dock: _bring_forward(d), keys=_keys(key))
    view.addSeparator()
    _add(view, actions, "reset_layout", "Reset the &layout", window.reset_layout)

    tools = bar.addMenu("&Tools")
    _add(tools, actions, "models", "&Models…", window.open_model_manager, action=window.models_action)
    _add(tools, actions, "quality", "&Quality…", window.open_quality, action=window.quality_action)

    help_menu = bar.addMenu("&Help")
    _add(help_menu, actions, "shortcuts", "&Keyboard shortcuts", lambda: show_shortcuts(window, actions),
         keys=_keys(QKeySequence.StandardKey.HelpContents, "F1"), icon="fa5s.keyboard")
    _add(help_menu, actions, "about", "&About Cairn", lambda: show_about(window))
    return actions


def _bring_forward(dock: Any) -> None:
    """Show ``dock`` (floating or tabbed behind another), in front, with the keyboard in it."""
    dock.show()
    dock.raise_()
    widget = dock.widget()
    if widget is not None:
        widget.setFocus()


def _take_widget_shortcuts(window: Any) -> None:
    """The menu owns these keys from now on (see the module docstring)."""
    window.chat.drop_window_shortcuts()
    window.sql_editor.copy_button.setShortcut(QKeySequence())


def shortcut_table(actions: MenuActions) -> list[tuple[str, str]]:
    """(command, keys) for every action with a shortcut, in menu order, keys as this platform writes them."""
    rows = []
    for action in actions.by_name.values():
        keys = ", ".join(seq.toString(QKeySequence.SequenceFormat.NativeText) for seq in action.shortcuts()
                         if not _dedicated_key(seq))
        if keys:
            rows.append((action.text().replace("&", "").rstrip("…"), keys))
    rows.append(("Earlier questions (in the question box)", "Up / Down"))
    return rows


def _dedicated_key(seq: QKeySequence) -> bool:
    """A key of its own that few keyboards have (Help, Exit), which a standard binding adds: not listed."""
    key = seq[0].key() if seq.count() == 1 else None
    return key in (Qt.Key.Key_Help, Qt.Key.Key_Exit)


def show_shortcuts(parent: QWidget, actions: MenuActions) -> None:
    rows = "".join(f"<tr><td>{name}</td><td style='padding-left:16px'><b>{keys}</b></td></tr>"
                   for name, keys in shortcut_table(actions))
    box = QMessageBox(QMessageBox.Icon.NoIcon, "Keyboard shortcuts", f"<table>{rows}</table>",
                      QMessageBox.StandardButton.Close, parent)
    box.setObjectName("shortcutsDialog")
    box.open()


def show_about(parent: QWidget) -> None:
    from importlib import metadata

    try:
        version = metadata.version("cairn")
    except metadata.PackageNotFoundError:
        version = "from source"
    QMessageBox.about(parent, "About Cairn",
                      f"<b>Cairn</b> {version}<br>A private text-to-SQL assistant with long-term memory.<br>"
                      "Your questions, data and memories stay on this computer: Cairn talks only to your "
                      "database and your local Ollama.")
