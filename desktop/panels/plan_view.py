"""The query plan of the SQL on the SQL tab, as the database would run it: a tree of steps with their estimates.

``Plan`` (beside Explain) asks the connected database, off the GUI thread, through the composition root's
``query_plan``: the SQL is checked like any other, then explained without ANALYZE, so nothing runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qtawesome as qta
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.toolkit.errors import show_error
from desktop.toolkit.workers import run_in_background

__all__ = ["PlanButton", "PlanDialog"]

Planner = Callable[[str, Any], Any]  # (sql, cancellation) -> a core.replies.PlanNode


class PlanDialog(QDialog):
    """A plan as a tree: each step (a scan, a join, a sort…) over the steps that feed it, with its estimate."""

    def __init__(self, plan: Any, sql: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("planDialog")
        self.setWindowTitle("Query plan")
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("planTree")
        self.tree.setHeaderLabels(["Step", "Estimate"])
        self.tree.setToolTip(sql)
        self.tree.addTopLevelItem(self._item(plan))
        self.tree.expandAll()
        self.tree.resizeColumnToContents(0)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tree, 1)
        layout.addWidget(buttons)
        self.tree.resizeColumnToContents(1)
        metrics = self.fontMetrics()  # as wide as its steps need at the font in use, up to 110 characters
        width = min(self.tree.columnWidth(0) + self.tree.columnWidth(1) + 80, metrics.averageCharWidth() * 110)
        self.resize(max(width, metrics.averageCharWidth() * 60), metrics.lineSpacing() * 24)

    def _item(self, node: Any) -> QTreeWidgetItem:
        item = QTreeWidgetItem([node.label, node.detail])
        item.setToolTip(0, node.label)
        for child in node.children:
            item.addChild(self._item(child))
        return item


class PlanButton(QPushButton):
    """``Plan``: the plan of ``sql()`` from ``planner`` (set once a database is connected), shown in a dialog."""

    def __init__(self, sql: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(qta.icon("fa5s.sitemap"), "Plan", parent)
        self.setObjectName("planSqlButton")
        self.setToolTip("How the database would run this SQL: its plan as a tree (EXPLAIN; nothing runs)")
        self.planner: Planner | None = None
        self.dialog: PlanDialog | None = None
        self._sql = sql
        self.clicked.connect(self.show_plan)

    def show_plan(self) -> None:
        sql = self._sql().strip()
        if not sql or self.planner is None:
            return
        planner = self.planner
        self.setEnabled(False)

        def shown(plan: Any) -> None:
            self.setEnabled(True)
            self.dialog = PlanDialog(plan, sql, self.window())
            self.dialog.show()

        def failed(exc: BaseException) -> None:
            self.setEnabled(True)
            show_error(self, exc, title="Query plan")

        run_in_background(lambda cancel, _report: planner(sql, cancel), on_success=shown, on_failure=failed,
                          receiver=self)
