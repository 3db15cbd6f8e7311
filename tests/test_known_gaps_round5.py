"""Attack round 5's findings that are not mended yet (issue 27), kept as expected failures so the gap stays visible:
an inline query cut at its own minus before prose, and a value left unopened that holds an apostrophe."""

from __future__ import annotations

import pytest

from core.sql import extract_sql, guard


@pytest.mark.xfail(reason="the dash reading is tried before the word reading; which is meant needs the schema")
def test_an_inline_query_is_not_cut_at_its_own_minus_before_prose() -> None:
    sql = extract_sql("Run SELECT name FROM products WHERE budget >= price - discount to get them.", "sqlite")
    assert sql == "SELECT name FROM products WHERE budget >= price - discount"


@pytest.mark.xfail(reason="an even number of quotes: the opening-quote search does not run")
def test_a_value_left_unopened_that_holds_an_apostrophe_is_opened() -> None:
    assert "'O''Brien'" in guard("SELECT id FROM customers WHERE name = O'Brien'", "sqlite").sql
