"""The SQL editor: Ctrl+Enter asks to run, keywords are highlighted, Format pretty-prints, running locks it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QTextCharFormat

from desktop.panels.sql_editor import SqlEditor


def _editor(qtbot, **kwargs) -> SqlEditor:
    editor = SqlEditor(**kwargs)
    qtbot.addWidget(editor)
    return editor


def _formats(editor: SqlEditor, block_number: int) -> dict[str, QTextCharFormat]:
    """Text of each formatted range in a block -> its format, as the highlighter laid it out."""
    block = editor.edit.document().findBlockByNumber(block_number)
    text = block.text()
    return {text[r.start : r.start + r.length]: QTextCharFormat(r.format) for r in block.layout().formats()}


def test_ctrl_enter_emits_run_requested_with_the_text(qtbot):
    editor = _editor(qtbot)
    editor.set_sql("SELECT 1\n")
    editor.edit.setFocus()
    with qtbot.waitSignal(editor.run_requested, timeout=1000) as blocker:
        qtbot.keyClick(editor.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert blocker.args == ["SELECT 1"]
    assert editor.sql() == "SELECT 1\n"  # no new line typed

    with qtbot.waitSignal(editor.run_requested, timeout=1000) as blocker:
        editor.run_button.click()
    assert blocker.args == ["SELECT 1"]


def test_running_makes_it_read_only_and_blocks_runs(qtbot):
    editor = _editor(qtbot)
    editor.set_sql("SELECT 1")
    editor.set_running(True)
    assert editor.edit.isReadOnly() and not editor.run_button.isEnabled() and not editor.format_button.isEnabled()
    with qtbot.assertNotEmitted(editor.run_requested):
        qtbot.keyClick(editor.edit, Qt.Key.Key_Enter, Qt.KeyboardModifier.ControlModifier)
    editor.set_running(False)
    assert not editor.edit.isReadOnly() and editor.run_button.isEnabled()
    editor.set_sql("   ")
    assert not editor.run_button.isEnabled()


def test_highlighting_formats_keywords_functions_strings_numbers_comments(qtbot):
    editor = _editor(qtbot)
    editor.set_sql(
        "select count(*), 'it''s' AS label, 42 FROM orders -- from here on a comment\n"
        "/* a block\n comment with SELECT */ WHERE \"select\" = 1"
    )
    first = _formats(editor, 0)
    keyword = first["select"]
    assert keyword.fontWeight() == QFont.Weight.Bold
    assert first["AS"] == keyword and first["FROM"] == keyword
    assert first["count"].foreground() != keyword.foreground()  # a function, coloured on its own
    assert "'it''s'" in first and first["'it''s'"].foreground() != keyword.foreground()
    assert "42" in first
    assert first["-- from here on a comment"].fontItalic()
    assert "orders" not in first
    second, third = _formats(editor, 1), _formats(editor, 2)
    assert second["/* a block"].fontItalic()
    assert third[" comment with SELECT */"].fontItalic()  # the comment spans the line break
    assert third["WHERE"] == keyword and "select" not in third  # a quoted identifier is not a keyword


def test_format_pretty_prints_and_reports_parse_errors(qtbot):
    editor = _editor(qtbot)
    editor.set_sql("select a, b from t where a > 1 order by b")
    editor.format_button.click()
    assert editor.sql() == "SELECT\n  a,\n  b\nFROM t\nWHERE\n  a > 1\nORDER BY\n  b"
    editor.edit.undo()  # one undo step restores the original
    assert editor.sql() == "select a, b from t where a > 1 order by b"

    editor.set_dialect("mysql")
    editor.set_sql("select `a b` from t")
    editor.format()
    assert "`a b`" in editor.sql()

    editor.set_sql("select (1 from")
    editor.format()
    assert editor.sql() == "select (1 from"
    assert editor.status_label.text().startswith("Could not format")


def test_an_answer_shows_formatted_wrapped_sql_and_copies_it(qtbot):
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QPlainTextEdit

    editor = _editor(qtbot)
    editor.show_answer_sql("SELECT name, city FROM customers WHERE city = 'Pune' ORDER BY name")
    assert editor.sql().count("\n") >= 3  # pretty-printed, one clause per line
    assert editor.edit.lineWrapMode() == QPlainTextEdit.LineWrapMode.WidgetWidth
    editor.copy_button.click()
    assert QGuiApplication.clipboard().text() == editor.sql().strip()
    editor.show_answer_sql("SELEC oops(")  # not SQL sqlglot reads: shown as it is
    assert editor.sql() == "SELEC oops("


def test_sql_changed_before_it_ran_is_shown_and_undoable(qtbot):
    editor = _editor(qtbot)
    typed = "SELECT nme FROM customers"
    editor.edit.setPlainText(typed)
    editor.show_ran(typed, "SELECT name FROM customers", ["column nme -> name"])
    assert "name" in editor.sql() and "nme" not in editor.sql()
    assert "changed your SQL" in editor.status_label.text() and "nme -> name" in editor.status_label.text()
    editor.edit.undo()
    assert editor.sql() == typed
    editor.show_ran("SELECT 1", "SELECT 1")
    assert editor.status_label.text() == ""
