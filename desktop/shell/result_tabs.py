"""The answer's tabs in the middle of the window — Results, Chart, SQL — and the answers pinned beside them.

**Pin** on Results keeps the rows shown in a tab of their own (named by the question), so the next answer can be
compared with it; a pinned tab closes with its ×. Pinned tabs hold the rows already fetched (nothing runs again).
"""

from __future__ import annotations

from typing import Any

import qtawesome as qta
from PySide6.QtWidgets import QTabBar, QTabWidget, QToolButton

__all__ = ["MAX_PINNED", "build_tabs", "pin_answer"]

MAX_PINNED = 8  # the oldest pinned tab goes when a ninth is pinned


def build_tabs(window: Any) -> QTabWidget:
    """Results, Chart and SQL as ``window.results``, ``.chart``, ``.sql_editor`` in ``window.tabs``."""
    from desktop.panels.chart_view import ChartView
    from desktop.panels.result_view import ResultView
    from desktop.panels.sql_editor import SqlEditor

    window.results, window.chart, window.sql_editor = ResultView(), ChartView(), SqlEditor()
    tabs = window.tabs = QTabWidget()
    tabs.setObjectName("resultTabs")
    tabs.addTab(window.results, qta.icon("fa5s.table"), "Results")
    tabs.addTab(window.chart, qta.icon("fa5s.chart-bar"), "Chart")
    tabs.addTab(window.sql_editor, qta.icon("fa5s.code"), "SQL")
    window.results.pin_requested.connect(lambda answer: pin_answer(tabs, answer))
    return tabs


def pin_answer(tabs: QTabWidget, answer: Any) -> Any:
    """A tab of its own for ``answer``'s rows, after the others, with a close button; returns its view."""
    from desktop.panels.result_view import ResultView

    view = ResultView()
    view.setObjectName("pinnedResult")
    view.pin_button.hide()
    view.show_answer(answer)
    title = " ".join((answer.question or "SQL").split())
    index = tabs.addTab(view, qta.icon("fa5s.thumbtack"), title if len(title) <= 24 else title[:23] + "…")
    tabs.setTabToolTip(index, answer.question or answer.sql or "")
    close = QToolButton(tabs)
    close.setObjectName("closePinned")
    close.setAutoRaise(True)
    close.setIcon(qta.icon("fa5s.times"))
    close.setToolTip("Close this pinned answer")
    close.clicked.connect(lambda _checked=False: _close(tabs, view))
    tabs.tabBar().setTabButton(index, QTabBar.ButtonPosition.RightSide, close)
    pinned = [tabs.widget(i) for i in range(tabs.count()) if tabs.widget(i).objectName() == "pinnedResult"]
    for old in pinned[:-MAX_PINNED]:
        _close(tabs, old)
    tabs.setCurrentWidget(view)
    return view


def _close(tabs: QTabWidget, view: Any) -> None:
    index = tabs.indexOf(view)
    if index >= 0:
        tabs.removeTab(index)
        view.deleteLater()
