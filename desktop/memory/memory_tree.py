"""The memory bank's tree: memories grouped by kind (or ranked by similarity), drawn, highlighted and filtered.

Only drawing lives here; :class:`desktop.memory.memory_bank.MemoryBankView` loads the memories and changes the bank.
"""

from __future__ import annotations

import textwrap
import time
from collections.abc import Collection, Mapping

import qtawesome as qta
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QHeaderView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from core.memory import ALL_DATABASES, CATEGORIES, Memory, ScoredMemory, describe_form
from desktop.toolkit.time_text import time_ago

__all__ = ["GROUP_ICONS", "GROUP_LABELS", "SIMILAR_GROUP", "WAITING", "MemoryTree", "is_pending"]

MEMORY_ROLE = Qt.ItemDataRole.UserRole
GROUP_ROLE = Qt.ItemDataRole.UserRole + 1
GROUP_LABELS: dict[str, str] = {
    "preference": "Preferences",
    "terminology": "Terminology",
    "metric": "Metrics",
    "entity": "Entities",
}
GROUP_ICONS: dict[str, str] = {
    "preference": "fa5s.sliders-h",
    "terminology": "fa5s.book",
    "metric": "fa5s.chart-line",
    "entity": "fa5s.tag",
}
SIMILAR_GROUP = "similar"
WAITING = "waiting for you"  # a pending memory's mark: nothing of it is enforced until the person keeps a reading
SHOWN_CHARS = 280  # a longer memory is clipped in its row; the tooltip holds all of it
TIP_COLUMNS = 80
_DETAILS_WIDTH = 110  # px the details column keeps when the memory column is sized to the view
_DETAILS_FROM = 360  # px of view below which the details column is hidden (they are in each row's tooltip)


class _WrappingDelegate(QStyledItemDelegate):
    """Rows as tall as their wrapped text at the column's current width (a tree view otherwise measures one
    line and elides the rest)."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:  # noqa: N802
        super().initStyleOption(option, index)
        if index.column() > 0:  # details: one elided line
            option.features &= ~QStyleOptionViewItem.ViewItemFeature.WrapText

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        view = self.parent()
        if index.column() > 0:  # the details stay on one line (elided, whole in the tooltip): a narrow last
            one_line = QStyleOptionViewItem(option)  # column must not make every row a tower of words
            one_line.rect = QRect(0, 0, 100_000, 100)
            one_line.features &= ~QStyleOptionViewItem.ViewItemFeature.WrapText
            return super().sizeHint(one_line, index)
        width = view.columnWidth(index.column()) if isinstance(view, QTreeWidget) else option.rect.width()
        if index.column() == 0 and isinstance(view, QTreeWidget):
            depth, parent = 1, index.parent()
            while parent.isValid():
                depth, parent = depth + 1, parent.parent()
            width -= view.indentation() * depth
        sized = QStyleOptionViewItem(option)
        sized.rect = QRect(0, 0, max(60, width), 100_000)
        return super().sizeHint(sized, index)


class MemoryTree(QTreeWidget):
    """One top-level group per category (or one "similar" group), a row per memory with its details."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryTree")
        self.setHeaderLabels(["Memory", "Details"])
        self.setUniformRowHeights(False)
        self.setWordWrap(True)
        self.setItemDelegate(_WrappingDelegate(self))
        header = self.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, 320)
        self._sizing = False  # True while the view sizes the memory column itself (not a drag by the person)
        self._memory_width_set_by_hand = False
        header.sectionResized.connect(self._section_resized)

    def _section_resized(self, section: int, _old: int, _new: int) -> None:
        if section == 0 and not self._sizing:
            self._memory_width_set_by_hand = True
        self.scheduleDelayedItemsLayout()  # re-wrap at the new width

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt naming
        """The memory column takes most of the width (the details the rest), until the person drags it."""
        super().resizeEvent(event)
        narrow = self.viewport().width() < _DETAILS_FROM  # a narrow dock shows the memories alone
        if narrow != self.isColumnHidden(1):
            self.setColumnHidden(1, narrow)
        if not self._memory_width_set_by_hand:
            self._sizing = True
            try:
                details = 0 if narrow else _DETAILS_WIDTH
                self.header().resizeSection(0, max(160, self.viewport().width() - details))
            finally:
                self._sizing = False

    # -- filling --------------------------------------------------------------------------------------

    def show_grouped(self, memories: list[Memory], highlighted: Collection[str]) -> None:
        """One group per category, newest first; a group the person collapsed stays collapsed."""
        collapsed = {c for c in CATEGORIES if (g := self.group_item(c)) is not None and not g.isExpanded()}
        self.clear()
        for category in CATEGORIES:
            members = [m for m in memories if m.category == category]
            group = self._group(category, f"{GROUP_LABELS[category]} ({len(members)})", GROUP_ICONS[category])
            for memory in sorted(members, key=lambda m: m.updated_at, reverse=True):
                group.addChild(self._memory_item(memory, highlighted))
            group.setExpanded(category not in collapsed)

    def show_similar(self, hits: list[ScoredMemory], text: str, highlighted: Collection[str]) -> None:
        """One group of the memories most similar in meaning to ``text``, best first."""
        self.clear()
        group = self._group(SIMILAR_GROUP, f"Similar to “{text}” ({len(hits)})", "fa5s.magic")
        for hit in hits:
            group.addChild(self._memory_item(hit.memory, highlighted, similarity=hit.similarity))
        group.setExpanded(True)

    def apply_filter(self, needle: str) -> None:
        """Hide the memories whose text, SQL and kind do not contain ``needle`` (lower case; empty: show all)."""
        for i in range(self.topLevelItemCount()):
            group = self.topLevelItem(i)
            shown = 0
            for j in range(group.childCount()):
                child = group.child(j)
                memory: Memory = child.data(0, MEMORY_ROLE)
                match = not needle or needle in _searchable(memory)
                child.setHidden(not match)
                shown += match
            key = group.data(0, GROUP_ROLE)
            total = group.childCount()
            label = GROUP_LABELS.get(key, key)
            group.setText(0, f"{label} ({shown} of {total})" if needle else f"{label} ({total})")
            group.setHidden(bool(needle) and shown == 0)
        if self.currentItem() is not None and self.selected_memory() is None and \
                self.currentItem().data(0, MEMORY_ROLE) is not None:
            self.setCurrentItem(None)  # what the filter hides is not selected: Delete and Edit act on what is seen

    # -- reading --------------------------------------------------------------------------------------

    def group_item(self, category: str) -> QTreeWidgetItem | None:
        for i in range(self.topLevelItemCount()):
            item = self.topLevelItem(i)
            if item.data(0, GROUP_ROLE) == category:
                return item
        return None

    def visible_memories(self) -> list[Memory]:
        """The memories shown now (after filtering), in tree order."""
        out: list[Memory] = []
        for i in range(self.topLevelItemCount()):
            group = self.topLevelItem(i)
            if group.isHidden():
                continue
            for j in range(group.childCount()):
                child = group.child(j)
                if not child.isHidden():
                    out.append(child.data(0, MEMORY_ROLE))
        return out

    def select_memory(self, memory_id: str) -> bool:
        item = self._item_for(memory_id)
        if item is not None:
            self.setCurrentItem(item)
        return item is not None

    def selected_memory(self) -> Memory | None:
        """The memory selected and shown: one the filter hides is never acted on (Delete, Edit)."""
        item = self.currentItem()
        if item is None or item.isHidden() or (item.parent() is not None and item.parent().isHidden()):
            return None
        return item.data(0, MEMORY_ROLE)

    @staticmethod
    def memory_of(item: QTreeWidgetItem) -> Memory | None:
        """The memory a row shows; None for a group row."""
        return item.data(0, MEMORY_ROLE)

    # -- items ----------------------------------------------------------------------------------------

    def _group(self, key: str, label: str, icon: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem([label, ""])
        item.setData(0, GROUP_ROLE, key)
        item.setIcon(0, qta.icon(icon))
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        self.addTopLevelItem(item)
        item.setFirstColumnSpanned(True)
        return item

    def _memory_item(self, memory: Memory, highlighted: Collection[str], *,
                     similarity: float | None = None) -> QTreeWidgetItem:
        sql = str(memory.structured.get("sql") or "") if memory.structured else ""
        scope = "All databases" if memory.database_id == ALL_DATABASES else memory.database_id
        pending = is_pending(memory)
        details = [part for part in (WAITING if pending else "", sql, scope, f"updated {time_ago(memory.updated_at)}")
                   if part]
        if similarity is not None:
            details.insert(0, f"{max(0.0, similarity):.0%} similar")
        shown = memory.content if len(memory.content) <= SHOWN_CHARS else memory.content[: SHOWN_CHARS - 1] + "…"
        item = QTreeWidgetItem([shown, " · ".join(details)])
        item.setData(0, MEMORY_ROLE, memory)
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(memory.updated_at))
        tip = [_wrapped(memory.content), ""]
        tip.extend(_pending_tip(memory) if pending
                   else [_wrapped(describe_form(memory.structured, memory.category))])
        tip.append(f"Applies to: {scope}")
        tip.append(f"Updated: {when}" + (f" · from {memory.source}" if memory.source else ""))
        item.setToolTip(0, "\n".join(tip))
        item.setToolTip(1, "\n".join(tip))
        if memory.id in highlighted:
            colour = QColor(self.palette().color(QPalette.ColorRole.Highlight))
            colour.setAlpha(60)
            for col in range(2):
                font = item.font(col)
                font.setBold(True)
                item.setFont(col, font)
                item.setBackground(col, colour)
            item.setIcon(0, qta.icon("fa5s.star"))
        if pending:  # marked even when highlighted: this is what the person still has to decide
            item.setIcon(0, qta.icon("fa5s.hourglass-half", color="#b26a00"))
        return item

    def _item_for(self, memory_id: str) -> QTreeWidgetItem | None:
        for i in range(self.topLevelItemCount()):
            group = self.topLevelItem(i)
            for j in range(group.childCount()):
                child = group.child(j)
                if child.data(0, MEMORY_ROLE).id == memory_id:
                    return child
        return None


def _wrapped(text: str) -> str:
    """Plain text for a tooltip in lines of readable length (a plain tooltip does not wrap on its own)."""
    return textwrap.fill(text, TIP_COLUMNS, break_long_words=True, break_on_hyphens=False)


def is_pending(memory: Memory) -> bool:
    """The memory waits for the person to keep one of its readings (context only meanwhile)."""
    return bool(memory.structured) and memory.structured.get("kind") == "pending"


def _pending_tip(memory: Memory) -> list[str]:
    """A pending memory's tooltip lines: why it waits and the readings to keep, numbered."""
    form = memory.structured or {}
    why = str(form.get("why") or "").strip()
    lines = [_wrapped(f"Waiting for you: not enforced until you confirm{f' ({why})' if why else ''}. "
                      "Until then Cairn reads your words as context only."), "Keep one reading:"]
    readings = [r for r in form.get("readings") or () if isinstance(r, Mapping)]
    lines += [_wrapped(f"{n}. {describe_form(r)}") for n, r in enumerate(readings, 1)]
    return lines


def _searchable(memory: Memory) -> str:
    sql = str(memory.structured.get("sql") or "") if memory.structured else ""
    waiting = WAITING if is_pending(memory) else ""
    return f"{memory.content}\n{sql}\n{memory.category}\n{waiting}".lower()
