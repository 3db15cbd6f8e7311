"""A LIKE pattern written with another tool's wildcards (``*``, ``?``) is offered with LIKE's own (``%``, ``_``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from tests.scripted_asking import ask


@pytest.fixture
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript("""
            CREATE TABLE restaurant (id INTEGER PRIMARY KEY, name TEXT, food_type TEXT);
            INSERT INTO restaurant VALUES (1, 'Roma', 'italian'), (2, 'Napoli', 'italian pizza'),
                                          (3, 'Kyoto', 'japanese'), (4, 'Star*Bar', 'bar');
        """)
    conn.close()
    db = open_database(str(path))
    yield db
    db.close()


def _ask(db, sql: str):
    return ask(db, "which restaurants serve italian food", sql)


def test_a_star_wildcard_is_offered_as_percent(shop) -> None:
    answer = _ask(shop, "SELECT name FROM restaurant WHERE food_type LIKE '*italian*'")
    assert answer.ok and answer.rows == ()  # the answer stays as it ran
    [alternative] = [a for a in answer.alternatives if "wildcards" in a.label]
    assert "LIKE '%italian%'" in alternative.sql
    assert any("uses * or ? as a wildcard" in n for n in answer.notes)
    lowered = _ask(shop, "SELECT name FROM restaurant WHERE LOWER(food_type) LIKE LOWER('*Italian*')")
    [alternative] = [a for a in lowered.alternatives if "wildcards" in a.label]  # as ILIKE is written for SQLite
    assert "LOWER('%Italian%')" in alternative.sql


def test_a_pattern_with_its_own_wildcards_or_a_real_star_is_left(shop) -> None:
    for sql in ("SELECT name FROM restaurant WHERE food_type LIKE '%ital*'",  # % already: the * is meant
                "SELECT name FROM restaurant WHERE name LIKE 'Star*Bar'"):  # no other rows with % in its place
        answer = _ask(shop, sql)
        assert answer.ok and not [a for a in answer.alternatives if "wildcards" in a.label]
