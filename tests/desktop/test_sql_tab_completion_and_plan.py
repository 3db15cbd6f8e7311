"""The SQL tab helps as DBeaver and DataGrip do: completion of the connected database's tables, columns and the
dialect's keywords, and the query plan as a tree (issue 30)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from core.schema import Column, Schema, Table
from desktop.panels.sql_completion import dialect_keywords
from desktop.panels.sql_editor import SqlEditor

SCHEMA = Schema(dialect="sqlite", tables=(
    Table("customers", (Column("customer_id", "INTEGER"), Column("name", "TEXT"), Column("country", "TEXT"))),
    Table("orders", (Column("order_id", "INTEGER"), Column("customer_id", "INTEGER"), Column("total", "REAL"))),
))


def _editor(qtbot) -> SqlEditor:
    editor = SqlEditor()
    qtbot.addWidget(editor)
    editor.show()
    qtbot.waitExposed(editor)
    editor.set_schema(SCHEMA)
    editor.edit.setFocus()
    return editor


def _offered(editor: SqlEditor) -> list[str]:
    completer = editor.edit.completer.completer
    if not completer.popup().isVisible():
        return []
    model = completer.model()
    return [model.index(r, 0).data() for r in range(model.rowCount())]


def test_names_and_keywords_complete_as_you_type(qtbot) -> None:
    editor = _editor(qtbot)
    qtbot.keyClicks(editor.edit, "SELECT na")
    assert _offered(editor)[0] == "name"  # the schema's names first, then the keywords
    qtbot.keyClick(editor.edit, Qt.Key.Key_Tab)
    qtbot.keyClicks(editor.edit, " FROM cu")
    assert "customers" in _offered(editor)
    qtbot.keyClick(editor.edit, Qt.Key.Key_Return)
    assert editor.sql() == "SELECT name FROM customers"
    qtbot.keyClicks(editor.edit, " c WHERE c.co")  # an alias's columns
    assert _offered(editor) == ["country"]
    qtbot.keyClick(editor.edit, Qt.Key.Key_Escape)
    assert not _offered(editor) and editor.sql().endswith("c.co")
    qtbot.keyClicks(editor.edit, "untry = 'India' ORD")  # upper case: a keyword first (ORDER BY, not orders)
    assert _offered(editor)[0] == "ORDER BY" and "orders" in _offered(editor)


def test_statements_cairn_never_runs_are_not_offered() -> None:
    words = dialect_keywords("postgres")
    assert "SELECT" in words and "GROUP BY" in words and "WHERE" in words
    assert not {"DROP", "DELETE", "INSERT", "UPDATE", "ALTER", "TRUNCATE"} & set(words)


def test_setting_the_sql_does_not_open_the_list(qtbot) -> None:
    editor = _editor(qtbot)
    editor.set_sql("SELECT na")
    assert _offered(editor) == []


def test_plan_shows_the_database_s_plan_as_a_tree(qtbot, db) -> None:
    from PySide6.QtWidgets import QTreeWidget

    from core.config import Settings
    from core.pipeline import AskPipeline
    from core.replies import query_plan
    from tests.fakes.scripted_llm import ScriptedLLM

    pipeline = AskPipeline(db, ScriptedLLM(), Settings())
    editor = SqlEditor()
    qtbot.addWidget(editor)
    editor.set_explainer(None, planner=lambda sql, cancel: query_plan(pipeline, sql, cancel=cancel))
    editor.set_sql("SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id")
    editor.plan_button.click()
    qtbot.waitUntil(lambda: editor.plan_button.dialog is not None, timeout=10_000)
    tree = editor.plan_button.dialog.findChild(QTreeWidget, "planTree")
    top = tree.topLevelItem(0)
    assert top.childCount() >= 1 and "rows ≈" in top.text(1)
    editor.plan_button.dialog.close()


def test_enter_after_a_whole_keyword_is_a_new_line(qtbot) -> None:
    editor = _editor(qtbot)
    qtbot.keyClicks(editor.edit, "SELECT name FROM customers ORDER BY name DESC")
    assert "DESCRIBE" in _offered(editor) or not _offered(editor)  # a longer word may be offered…
    qtbot.keyClick(editor.edit, Qt.Key.Key_Return)  # …but Enter after a whole word is the editor's
    qtbot.keyClicks(editor.edit, "LIMIT 5")
    assert editor.edit.toPlainText() == "SELECT name FROM customers ORDER BY name DESC\nLIMIT 5"
