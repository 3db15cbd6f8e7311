"""A label folded to one case that the question does not ask for (``SELECT LOWER(town) AS town …``) is shown as the
data writes it, only where nothing but the letters' case changes: row for row, or grouped where no two values
differ only in case. Real SQLite and PostgreSQL through Cairn's backends; the model is scripted and never improves."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.databases import open_database
from tests.scripted_asking import ask


@pytest.fixture()
def shop(tmp_path: Path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:  # no declared keys
        conn.executescript(
            "CREATE TABLE client(client_id INTEGER, full_name TEXT, town TEXT);"
            "INSERT INTO client VALUES (1,'Asha','Pune'),(2,'Bilal','Agra'),(3,'Chen','Pune'),(4,'Dev','Zirakpur');"
            "CREATE TABLE visit(visit_id INTEGER, town TEXT);"  # one town written in two cases
            "INSERT INTO visit VALUES (1,'Pune'),(2,'pune'),(3,'Agra');"
        )
    db = open_database(str(path))
    yield db
    db.close()


def test_a_grouped_label_folded_to_lower_case_is_shown_as_stored(shop) -> None:
    answer = ask(shop, "How many clients are there in each town?",
                 "SELECT LOWER(town) AS town, COUNT(*) AS n FROM client GROUP BY LOWER(town) ORDER BY town")
    assert answer.ok
    assert [tuple(r) for r in answer.rows] == [("Agra", 1), ("Pune", 2), ("Zirakpur", 1)]
    assert any("shown as the data writes it" in n for n in answer.notes)


def test_a_listed_label_keeps_its_folded_order(shop) -> None:
    answer = ask(shop, "List the client names", "SELECT UPPER(full_name) AS full_name FROM client ORDER BY 1 DESC")
    assert [r[0] for r in answer.rows] == ["Dev", "Chen", "Bilal", "Asha"]


def test_a_fold_that_merges_groups_is_left_as_written(shop) -> None:
    answer = ask(shop, "How many visits per town?",
                 "SELECT LOWER(town) AS town, COUNT(*) AS n FROM visit GROUP BY LOWER(town)")
    assert sorted(tuple(r) for r in answer.rows) == [("agra", 1), ("pune", 2)]


@pytest.mark.parametrize("question", ["List the towns in lower case", "client names in uppercase please",
                                      "towns, case-insensitive"])
def test_a_case_the_question_asks_for_is_kept(shop, question: str) -> None:
    answer = ask(shop, question, "SELECT DISTINCT LOWER(town) AS town FROM client" if "town" in question else
                 "SELECT UPPER(full_name) AS full_name FROM client")
    assert all(str(r[0]) in (str(r[0]).lower(), str(r[0]).upper()) for r in answer.rows)


def test_a_label_renamed_on_purpose_is_left(shop) -> None:
    answer = ask(shop, "Show each client's town", "SELECT full_name, LOWER(town) AS town_key FROM client")
    assert {r[1] for r in answer.rows} == {"pune", "agra", "zirakpur"}


def test_on_postgresql_too(db) -> None:
    folded = ask(db, "How many customers are there in each city?",
                 "SELECT LOWER(c.city) AS city, COUNT(*) AS n FROM customers AS c GROUP BY LOWER(c.city)")
    stored = db.execute("SELECT city, COUNT(*) FROM customers GROUP BY city").rows
    assert sorted(tuple(r) for r in folded.rows) == sorted(tuple(r) for r in stored)


def test_distinct_labels_and_a_label_named_for_its_role_are_shown_as_stored(shop) -> None:
    answer = ask(shop, "Which towns have clients?", "SELECT DISTINCT LOWER(town) AS client_town FROM client ORDER BY 1")
    assert sorted(r[0] for r in answer.rows) == ["Agra", "Pune", "Zirakpur"]
    merged = ask(shop, "Which towns were visited?", "SELECT DISTINCT LOWER(town) AS town FROM visit")
    assert sorted(r[0] for r in merged.rows) == ["agra", "pune"]  # 'Pune' and 'pune': left as written
    keyed = ask(shop, "Towns as keys", "SELECT DISTINCT LOWER(town) AS town_key FROM client")
    assert sorted(r[0] for r in keyed.rows) == ["agra", "pune", "zirakpur"]
