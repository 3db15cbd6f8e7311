"""The schema browser on the real sample database: tables, keys, hints, hidden items, filter, insert."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QTreeWidgetItem

from core.databases import open_database
from core.schema import Column, Schema, Table
from desktop.panels.schema_browser import SchemaBrowser


@pytest.fixture(scope="module")
def sample_schema(sample_db_uri: str) -> Iterator[Schema]:
    db = open_database(sample_db_uri)
    try:
        yield db.schema()
    finally:
        db.close()


@pytest.fixture
def browser(qtbot) -> SchemaBrowser:
    widget = SchemaBrowser()
    qtbot.addWidget(widget)
    return widget


def table_item(browser: SchemaBrowser, name: str) -> QTreeWidgetItem:
    tree = browser.tree()
    for i in range(tree.topLevelItemCount()):
        if tree.topLevelItem(i).text(0) == name:
            return tree.topLevelItem(i)
    raise AssertionError(f"no table {name}")


def column_item(browser: SchemaBrowser, table: str, column: str) -> QTreeWidgetItem:
    parent = table_item(browser, table)
    for j in range(parent.childCount()):
        if parent.child(j).text(0) == column:
            return parent.child(j)
    raise AssertionError(f"no column {table}.{column}")


def test_shows_tables_columns_keys_and_hints(browser: SchemaBrowser, sample_schema: Schema) -> None:
    browser.set_schema(sample_schema)
    names = {browser.tree().topLevelItem(i).text(0) for i in range(browser.tree().topLevelItemCount())}
    assert {"customers", "orders"} <= names
    assert "buy from the shop" in table_item(browser, "customers").toolTip(0)

    pk = column_item(browser, "customers", "customer_id")
    assert pk.text(1) == "integer" and "Primary key" in pk.toolTip(0)
    assert not pk.icon(0).isNull()

    fk = column_item(browser, "orders", "customer_id")
    assert fk.text(2) == "→ customers.customer_id"
    assert "References customers.customer_id" in fk.toolTip(0)

    country = column_item(browser, "customers", "country")
    assert "Values:" in country.toolTip(0) and "India" in country.toolTip(0)


def test_hidden_items_are_greyed_and_can_be_left_out(browser: SchemaBrowser, sample_schema: Schema) -> None:
    browser.set_schema(sample_schema, hidden={"customers.email"})
    email = column_item(browser, "customers", "email")
    name = column_item(browser, "customers", "name")
    disabled = browser.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
    assert email.foreground(0).color() == disabled
    assert name.foreground(0).style() == Qt.BrushStyle.NoBrush  # normal text keeps the palette colour
    assert "never shown to the model" in email.toolTip(0)
    assert not email.isHidden()

    browser.set_show_hidden(False)
    assert email.isHidden() and not name.isHidden()


def test_filter_keeps_matching_tables_and_columns(browser: SchemaBrowser, sample_schema: Schema) -> None:
    browser.set_schema(sample_schema)
    browser.findChild(object, "schemaFilter").setText("payment")
    orders = table_item(browser, "orders")
    assert not orders.isHidden() and orders.isExpanded()
    assert table_item(browser, "customers").isHidden()
    shown = [orders.child(j).text(0) for j in range(orders.childCount()) if not orders.child(j).isHidden()]
    assert shown == ["payment_method"]

    browser.findChild(object, "schemaFilter").setText("customers")
    customers = table_item(browser, "customers")
    assert all(not customers.child(j).isHidden() for j in range(customers.childCount()))


def test_double_click_asks_to_insert_the_name(qtbot, browser: SchemaBrowser) -> None:
    schema = Schema("postgres", (
        Table("orders", (Column("order_id", "integer"), Column("Order Date", "date"), Column("user", "text")),
              primary_key=("order_id",)),
    ))
    browser.set_schema(schema)
    tree = browser.tree()
    for item, expected in (
        (table_item(browser, "orders"), "orders"),
        (column_item(browser, "orders", "order_id"), "orders.order_id"),
        (column_item(browser, "orders", "Order Date"), 'orders."Order Date"'),
        (column_item(browser, "orders", "user"), 'orders."user"'),
    ):
        with qtbot.waitSignal(browser.insert_requested, timeout=1000) as blocker:
            tree.itemDoubleClicked.emit(item, 0)
        assert blocker.args == [expected]


def test_empty_state_before_a_database(browser: SchemaBrowser) -> None:
    assert browser.findChild(object, "schemaEmptyState").text() == "No database connected yet."
