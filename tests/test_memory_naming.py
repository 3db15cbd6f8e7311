"""Naming, fixed periods and table-free sorts: the memory forms and recall rules added for the fifth
helper-written set (each test names the failure it guards against).

- a term or metric applies when the question names it, in whatever spelling (abbreviation, typo, acronym,
  Hindi-English, "%" for "rate"), and never because a question merely shares its topic;
- "from 2023 onwards" / "calendar year 2025 only" is a default time range with fixed bounds, enforced on SQL
  that runs on SQLite and PostgreSQL, and it yields to a question's own dates;
- "newest first" / "alphabetical" / "highest sales first" with no table sorts every list by its own columns;
- a value list hinted in one column but held by another column in the data goes to the column holding it.
"""

from __future__ import annotations

import datetime
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlglot

from core.memory import Grounding, understand
from core.memory.enforcement._filters import enforce_filters
from core.memory.forms._period_text import period_from_text
from core.memory.enforcement._presentation import apply_presentation
from core.memory.recall._recall import names_term, words
from core.memory.kernel._word_match import acronyms, canonical, one_edit, same_word
from tests.conftest import shared_data_path

# -- naming -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("question", "name"), [
    ("what % of orders were paid via UPI", "upi share"),
    ("what fraction of orders end up cancelled", "cancellation rate"),
    ("net revnue by month for 2024 pls", "net revenue"),  # one typo in a long word
    ("rev per cust for wholesale", "revenue per customer"),  # business abbreviations
    ("whats our avg ticket size", "average ticket"),
    ("average order value this quarter", "aov"),  # the question spells out the acronym
    ("aov by segment", "average order value"),  # the acronym names the spelled-out metric
    ("lambe tracks kitne hain Rock mein", "long tracks"),  # Hindi-English
    ("net sales after returns", "net revenue"),  # sales and revenue are one word for money in
    ("how many repeat buyers do we have", "repeat customers"),
])  # fmt: skip
def test_a_question_names_the_term_in_its_own_spelling(question: str, name: str) -> None:
    assert names_term(words(question), name, {"order", "customer", "track"}, acronyms(question))


@pytest.mark.parametrize(("question", "name"), [
    ("total revenue", "revenue per customer"),  # the head noun without the rest is another measure
    ("revenue by segment", "net revenue"),
    ("how many tracks are longer than 10 minutes", "long tracks"),  # states its own threshold
    ("customers per rep", "repeat customers"),  # "rep" is not "repeat"
    ("upi sales", "us customers"),  # two-letter initials are not an acronym
    ("largest invoice total ever", "big invoice"),
])  # fmt: skip
def test_a_near_miss_does_not_name_the_term(question: str, name: str) -> None:
    assert not names_term(words(question), name, {"order", "customer", "track", "invoice"}, acronyms(question))


def test_word_folding_is_symmetric_and_bounded() -> None:
    assert canonical("avg") == canonical("average") == "average"
    assert same_word("songs"[:-1], "track") and same_word("custmers", "customers")
    assert not same_word("value", "valuable") and not same_word("sales", "scales")  # short words: no typo slack
    assert one_edit("revnue", "revenue") and one_edit("form", "from") and not one_edit("return", "retain")
    assert "aov" in acronyms("average order value last month") and "ov" not in acronyms("order value")


# -- fixed periods ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "start", "end"), [
    ("Only count invoices from 2023 onwards; older sales don't matter to me.", "2023-01-01", None),
    ("Unless I say otherwise, only look at orders placed in 2025.", "2025-01-01", "2026-01-01"),
    ("Unless I mention dates, assume I'm talking about calendar year 2025 only.", "2025-01-01", "2026-01-01"),
    ("ignore invoices before 2023", "2023-01-01", None),  # a negated upper bound keeps the other side
    ("only orders since March 2024", "2024-03-01", None),
    ("2023 ke baad ke orders", "2024-01-01", None),
    ("2024 se pehle ka data mat dikhao", "2024-01-01", None),
    ("between Jan 2024 and June 2024", "2024-01-01", "2024-07-01"),
    ("Q3 2024 only", "2024-07-01", "2024-10-01"),
    ("till 2023", None, "2024-01-01"),
])  # fmt: skip
def test_a_fixed_period_is_read_with_both_bounds(text: str, start: str | None, end: str | None) -> None:
    period = period_from_text(text)
    assert period is not None
    assert (period.start and period.start.isoformat(), period.end and period.end.isoformat()) == (start, end)


@pytest.mark.parametrize("text", [
    "orders over 2000 only", "orders from 2000 to 5000 only", "2023 se zyada amount", "exclude orders in 2024",
    "show amounts in USD", "Default time range is the last 12 months.",
])  # fmt: skip
def test_amounts_and_two_sided_negations_are_not_periods(text: str) -> None:
    assert period_from_text(text) is None


@pytest.fixture(scope="module")
def chinook() -> Iterator[tuple[Grounding, Path]]:
    """Chinook through Cairn's own read-only SQLite backend and the pipeline's value look-up (in the data)."""
    path = shared_data_path("chinook", "Chinook_Sqlite.sqlite")
    if not path.exists():
        pytest.skip("Chinook is not in ../shared/data")
    from core.databases import SqliteDatabase
    from core.pipeline import AskPipeline

    database = SqliteDatabase(path)
    pipeline = AskPipeline(database, None)
    yield Grounding(schema=pipeline.load_schema(), lookup=pipeline.lookup_values, database_id=database.id), path
    database.close()


def test_a_period_preference_is_a_default_time_range_enforced_on_real_sql(chinook: tuple[Grounding, Path]) -> None:
    grounding, path = chinook
    u = understand("preference", "Only count invoices from 2023 onwards; older sales don't matter to me.", grounding)
    assert u.use == "enforced" and u.form is not None
    assert {k: u.form[k] for k in ("kind", "table", "column", "start")} == {
        "kind": "window", "table": "Invoice", "column": "InvoiceDate", "start": "2023-01-01"}
    assert "from 2023-01-01 on" in u.description
    sql = enforce_filters(sqlglot.parse_one("SELECT COUNT(*) FROM Invoice", read="sqlite"), [u.form], "sqlite")
    text = sql.expression.sql(dialect="sqlite")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        got = conn.execute(text).fetchone()[0]
        want = conn.execute("SELECT COUNT(*) FROM Invoice WHERE InvoiceDate >= '2023-01-01'").fetchone()[0]
        total = conn.execute("SELECT COUNT(*) FROM Invoice").fetchone()[0]
    finally:
        conn.close()
    assert got == want and 0 < got < total
    pg = enforce_filters(sqlglot.parse_one("SELECT COUNT(*) FROM invoice", read="postgres"),
                         [{**u.form, "table": "invoice", "column": "invoicedate"}], "postgres")  # fmt: skip
    assert "invoicedate >= CAST('2023-01-01' AS DATE)" in pg.expression.sql(dialect="postgres")


def test_a_question_with_its_own_dates_overrides_the_fixed_range() -> None:
    form = {"kind": "window", "table": "orders", "column": "order_date", "start": "2025-01-01", "end": "2026-01-01"}
    own = "SELECT COUNT(*) FROM orders WHERE order_date >= '2021-01-01'"
    outcome = enforce_filters(sqlglot.parse_one(own, read="sqlite"), [form], "sqlite")
    assert outcome.added == () and outcome.overridden == (0,)
    plain = enforce_filters(sqlglot.parse_one("SELECT COUNT(*) FROM orders", read="sqlite"), [form], "sqlite")
    assert plain.expression.sql(dialect="sqlite").endswith(
        "WHERE orders.order_date >= '2025-01-01' AND orders.order_date < '2026-01-01'")


def test_a_hinted_column_missing_a_value_gives_way_to_the_column_holding_all(chinook: tuple[Grounding, Path]) -> None:
    grounding, _ = chinook
    u = understand("preference", "Only look at sales billed to the USA and Canada.", grounding)
    assert u.form is not None and (u.form["table"], u.form["column"]) == ("Invoice", "BillingCountry")
    assert sorted(u.form["value"]) == ["Canada", "USA"] and not u.form.get("unknown_values")


def test_a_reason_after_the_rule_does_not_hide_it(chinook: tuple[Grounding, Path]) -> None:
    grounding, _ = chinook
    u = understand("preference", "Leave out invoices billed to the USA - another team owns those.", grounding)
    assert u.form is not None and u.form["sql"] == "Invoice.BillingCountry <> 'USA'"


# -- sorts for every list --------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "by", "direction"), [
    ("Newest first by default.", "date", "DESC"),
    ("Sort lists alphabetically (A to Z) by default.", "name", "ASC"),
    ("Default sort: highest sales first.", "measure", "DESC"),
    ("Always sort results in descending order.", "measure", "DESC"),
    ("Default sort is ascending, smallest first - I'm usually hunting for laggards.", "measure", "ASC"),
])  # fmt: skip
def test_a_sort_with_no_table_is_kept_for_every_list(chinook: tuple[Grounding, Path], text: str, by: str,
                                                     direction: str) -> None:  # fmt: skip
    u = understand("preference", text, chinook[0])
    assert u.form == {"kind": "sort", "by": by, "direction": direction}
    assert u.use == "presentation" and "Every list is sorted" in u.description


def test_a_row_limit_with_top_is_not_a_sort(chinook: tuple[Grounding, Path]) -> None:
    assert understand("preference", "Top 10 rows by default", chinook[0]).form == {"kind": "limit", "value": 10}


@pytest.mark.parametrize(("by", "sql", "ordered"), [
    ("measure", "SELECT c.FirstName, SUM(i.Total) AS spend FROM Customer c JOIN Invoice i "
                "ON i.CustomerId = c.CustomerId GROUP BY 1", "ORDER BY 2 DESC"),
    ("date", "SELECT InvoiceId, InvoiceDate, Total FROM Invoice", "ORDER BY 2 DESC"),
    ("name", "SELECT Name, Milliseconds FROM Track", "ORDER BY 1 DESC"),
])  # fmt: skip
def test_a_table_free_sort_orders_the_answer_by_its_own_column(chinook: tuple[Grounding, Path], by: str, sql: str,
                                                               ordered: str) -> None:  # fmt: skip
    outcome = apply_presentation(sqlglot.parse_one(sql, read="sqlite"), [{"kind": "sort", "by": by,
                                                                         "direction": "DESC"}], "sqlite")  # fmt: skip
    text = outcome.expression.sql(dialect="sqlite")
    assert outcome.applied == (0,) and ordered in text
    conn = sqlite3.connect(f"file:{chinook[1]}?mode=ro", uri=True)
    try:
        rows = conn.execute(text).fetchall()
    finally:
        conn.close()
    column = int(ordered.split()[2]) - 1
    keys = [r[column] for r in rows if r[column] is not None]
    assert keys == sorted(keys, reverse=True)


@pytest.mark.parametrize(("sql", "reason"), [
    ("SELECT * FROM Track", "every column"),
    ("SELECT COUNT(*) FROM Track", "single aggregate row"),
    ("SELECT Name FROM Track", "no date column"),
    ("SELECT Name FROM Track ORDER BY Milliseconds", "its own order"),
])  # fmt: skip
def test_a_table_free_sort_that_cannot_apply_says_why(sql: str, reason: str) -> None:
    outcome = apply_presentation(sqlglot.parse_one(sql, read="sqlite"), [{"kind": "sort", "by": "date",
                                                                         "direction": "DESC"}], "sqlite")  # fmt: skip
    assert outcome.applied == () and reason in outcome.skipped[0][1]


def test_two_table_free_sorts_on_different_columns_are_not_the_same_memory() -> None:
    from core.memory.cycle._sameness import same_structure

    newest = {"kind": "sort", "by": "date", "direction": "DESC"}
    assert same_structure(newest, dict(newest))
    assert not same_structure(newest, {"kind": "sort", "by": "measure", "direction": "DESC"})


def test_today_is_not_needed_for_a_fixed_range() -> None:
    form = {"kind": "window", "table": "orders", "column": "order_date", "start": "2024-02-30"}
    assert enforce_filters(sqlglot.parse_one("SELECT 1 FROM orders"), [form], "sqlite").added == ()  # bad date
    assert datetime.date.fromisoformat("2024-02-29")  # leap day is a real bound


# -- the update cycle on these forms ------------------------------------------------------------------------


_REPLACED = ("UPDATE", "DELETE")  # changed in place, or deleted and replaced by the new statement


def _apply_all(grounding: Grounding, texts: list[str]) -> tuple[list[object], list[object]]:
    """Preferences through the one path a person's statements take; returns the reports and what is left."""
    return _apply_facts(grounding, [("preference", t) for t in texts])


def _apply_facts(grounding: Grounding, facts: list[tuple[str, str]]) -> tuple[list[object], list[object]]:
    from core.memory import Fact, JsonMemoryStore, apply_fact
    from tests.fakes.fake_embedder import FakeEmbedder

    import tempfile

    store = JsonMemoryStore(Path(tempfile.mkdtemp(prefix="cairn-naming-")))
    reports = [apply_fact(Fact(c, t), user="u", database_id=grounding.database_id, store=store,  # type: ignore[arg-type]
                          embedder=FakeEmbedder(), llm=None, schema=grounding.schema, source="chat",
                          lookup=grounding.lookup) for c, t in facts]  # fmt: skip
    return reports, store.list("u", database_id=grounding.database_id)


@pytest.mark.parametrize(("first", "second", "value"), [
    ("Limit results to 10 rows.", "10 is too few, give me 30", 30),  # the number that is not the saved one
    ("Show up to 50 rows.", "show 25 at a time instead of 50", 25),
    ("Show 10 rows by default.", "default row count: 12", 12),
    ("Never show more than 30 rows.", "cut the default row limit down to 8", 8),
])  # fmt: skip
def test_a_changed_row_limit_replaces_the_saved_one(chinook: tuple[Grounding, Path], first: str, second: str,
                                                    value: int) -> None:  # fmt: skip
    reports, left = _apply_all(chinook[0], [first, second])  # type: ignore[misc]
    assert reports[1].operation in _REPLACED  # DELETE is delete-and-replace
    assert [m.structured for m in left] == [{"kind": "limit", "value": value}]


@pytest.mark.parametrize(("first", "second", "operation", "count"), [
    ("Sort lists alphabetically by name.", "default sort should be revenue, high to low", "UPDATE", 1),
    ("Sort tracks by composer.", "sort tracks by name instead of composer", "UPDATE", 1),
    ("Sort tracks by name.", "Sort invoices by date, newest first.", "ADD", 2),  # one default order per table
    ("Newest first by default.", "Sort tracks by name.", "UPDATE", 1),  # one default order: the new one replaces it
])  # fmt: skip
def test_sorts_replace_each_other_per_table(chinook: tuple[Grounding, Path], first: str, second: str,
                                           operation: str, count: int) -> None:  # fmt: skip
    reports, left = _apply_all(chinook[0], [first, second])  # type: ignore[misc]
    assert (reports[1].operation in _REPLACED if operation == "UPDATE" else reports[1].operation == operation)
    assert len(left) == count


@pytest.mark.parametrize(("first", "second", "form"), [
    ("Default window for invoices: this quarter.", "make the default window year-to-date", {"current": "year"}),
    ("Only look at invoices from 2025 by default.", "Default to this calendar year.", {"current": "year"}),
    ("Default time range for invoices: last 30 days.", "only invoices from 2023 onwards", {"start": "2023-01-01"}),
])  # fmt: skip
def test_a_new_default_period_replaces_the_saved_one(chinook: tuple[Grounding, Path], first: str, second: str,
                                                    form: dict[str, str]) -> None:  # fmt: skip
    reports, left = _apply_all(chinook[0], [first, second])  # type: ignore[misc]
    assert reports[1].operation in _REPLACED and len(left) == 1
    assert all(left[0].structured.get(k) == v for k, v in form.items())


def test_a_current_period_window_starts_at_the_period_start() -> None:
    from core.memory.enforcement._filters import current_start

    today = datetime.date(2026, 2, 15)
    assert current_start("year", today) == datetime.date(2026, 1, 1)
    assert current_start("quarter", today) == datetime.date(2026, 1, 1)
    assert current_start("month", today) == datetime.date(2026, 2, 1)
    assert current_start("year", today, 4) == datetime.date(2025, 4, 1)  # a financial year from April
    assert current_start("year", today, 13) is None and current_start("decade", today) is None
    form = {"kind": "window", "table": "orders", "column": "order_date", "current": "quarter"}
    out = enforce_filters(sqlglot.parse_one("SELECT COUNT(*) FROM orders"), [form], "sqlite", today=today)
    assert out.expression.sql(dialect="sqlite").endswith("WHERE orders.order_date >= '2026-01-01'")


def test_another_excluded_value_joins_the_standing_filter_column(chinook: tuple[Grounding, Path]) -> None:
    """"leave Canada out too" names no table; Canada is hinted in Employee.Country but the person filters
    Customer.Country: their standing filter's column is the one meant, and the exclusions combine."""
    reports, left = _apply_all(chinook[0], ["Don't include customers from the USA.", "leave Canada out too"])  # type: ignore[misc]
    assert reports[1].operation == "UPDATE" and len(left) == 1
    st = left[0].structured
    assert (st["table"], st["column"], st["op"], sorted(st["value"])) == ("Customer", "Country", "NOT IN",
                                                                          ["Canada", "USA"])  # fmt: skip


@pytest.mark.parametrize(("text", "value"), [
    ("Exclude the TV Shows genre.", "TV Shows"),  # "shows" is a small word inside the value
    ("drop Sci Fi & Fantasy too", "Sci Fi & Fantasy"),  # one value with "&", no table named
])  # fmt: skip
def test_a_value_with_small_words_is_found_in_the_data(chinook: tuple[Grounding, Path], text: str, value: str) -> None:
    u = understand("preference", text, chinook[0])
    assert u.form is not None and (u.form["table"], u.form["column"], u.form["value"]) == ("Genre", "Name", value)


# -- list answers and list presentation ---------------------------------------------------------------------


@pytest.mark.parametrize(("question", "rows"), [
    ("wholesale vs retail order count", True),  # a comparison is one row per side
    ("return rate by city pls", True),  # a named metric grouped by a column
    ("return rate overall", False),
    ("how many orders", False),
])  # fmt: skip
def test_comparisons_and_grouped_metrics_are_lists(question: str, rows: bool) -> None:
    from core.memory.recall._shape import asks_for_rows

    assert asks_for_rows(question, names=("return rate",) if "return rate" in question else ()) is rows


def test_when_i_say_x_i_mean_y_names_x(chinook: tuple[Grounding, Path]) -> None:
    u = understand("terminology", "When I say 'heavy stuff' I mean the Metal and Heavy Metal genres.", chinook[0])
    assert u.form is not None and u.form["name"] == "heavy stuff"
    assert u.form["sql"] == "Genre.Name IN ('Metal', 'Heavy Metal')"


def _bank(texts: list[tuple[str, str]]) -> tuple[object, list[object]]:
    """A JSON store with these (category, content) memories understood against the sample shop's schema."""
    import tempfile

    from core.memory import Fact, JsonMemoryStore, MiniLMEmbedder, apply_fact
    from core.schema import Column, Schema, Table

    schema = Schema("sqlite", (
        Table("customers", (Column("customer_id", "integer"), Column("name", "text"), Column("email", "text"),
                            Column("segment", "text", value_hints=("retail", "wholesale", "corporate"))),
              primary_key=("customer_id",)),
        Table("tracks", (Column("track_id", "integer"), Column("name", "text"), Column("milliseconds", "integer")),
              primary_key=("track_id",)),
    ), database_id="t")  # fmt: skip
    store = JsonMemoryStore(Path(tempfile.mkdtemp(prefix="cairn-naming-")))
    embedder = MiniLMEmbedder()
    for category, content in texts:
        apply_fact(Fact(category, content), user="u", database_id="t", store=store, embedder=embedder, llm=None,
                   schema=schema, source="chat")  # fmt: skip
    return store, [t.name for t in schema.tables]


def _recalled(store: object, tables: list[object], question: str) -> set[str]:
    from core.memory import MiniLMEmbedder, recall_memories

    got = recall_memories(question, user="u", database_id="t", store=store, embedder=MiniLMEmbedder(),  # type: ignore[arg-type]
                          table_names=tables)  # type: ignore[arg-type]  # fmt: skip
    return {r.memory.content for r in got.memories}


def test_columns_shown_together_follow_the_noun_the_list_is_of() -> None:
    pytest.importorskip("sentence_transformers")
    rule = "Always show email alongside a customer's name."
    store, tables = _bank([("preference", rule)])
    assert rule in _recalled(store, tables, "list all corporate customers")  # adjectives before the noun
    assert rule not in _recalled(store, tables, "which segments have more than 3 customers")


def test_a_formatting_preference_kept_as_words_reaches_row_answers_only() -> None:
    pytest.importorskip("sentence_transformers")
    rule = "Show durations as minutes:seconds, not milliseconds."
    store, tables = _bank([("preference", rule)])
    assert rule in _recalled(store, tables, "list the longest tracks")
    assert rule not in _recalled(store, tables, "how many tracks are there")


@pytest.mark.parametrize(("question", "applies"), [
    ("list all corporate customers", True),
    ("customers who signed up with a gmail address", True),  # the first table named is what is listed
    ("tracks bought by customer 17", False),  # one customer named by its id: the list is of tracks
    ("which segments have more than 3 customers", False),
    ("customer count per segment", False),
])  # fmt: skip
def test_columns_shown_together_apply_to_lists_of_their_table(question: str, applies: bool) -> None:
    pytest.importorskip("sentence_transformers")
    rule = "whenever u list customers put their segment + email right next to the name"
    store, tables = _bank([("preference", rule)])
    assert (rule in _recalled(store, tables, question)) is applies


@pytest.mark.parametrize(("question", "applies"), [
    ("list tracks by AC/DC", True),  # "by" a name: who made them, not a grouping
    ("list all corporate customers", False),
    ("how many tracks are there", False),
])  # fmt: skip
def test_a_words_only_listing_rule_follows_its_table(question: str, applies: bool) -> None:
    pytest.importorskip("sentence_transformers")
    rule = "Whenever you list tracks, show the album title and the artist name beside each track name."
    store, tables = _bank([("preference", rule)])
    assert (rule in _recalled(store, tables, question)) is applies


def test_a_words_only_format_rule_reaches_answers_that_show_what_it_formats() -> None:
    pytest.importorskip("sentence_transformers")
    rule = "durations as m:ss please, never raw milliseconds"
    store, tables = _bank([("preference", rule)])
    assert rule in _recalled(store, tables, "average track length?")  # one value, still a duration
    assert rule not in _recalled(store, tables, "list all corporate customers")


@pytest.mark.parametrize(("first", "second", "literal"), [
    ("Big invoices are invoices with a Total of 15 or more.", "big invoice threshold is 20 now, not 15", "20"),
    ("Long tracks are over 6 minutes.", "long track ab 8 minute se zyada wala maana jaaye", "480000"),  # in ms
])  # fmt: skip
def test_a_new_threshold_for_a_saved_term_replaces_its_number(chinook: tuple[Grounding, Path], first: str,
                                                             second: str, literal: str) -> None:  # fmt: skip
    reports, left = _apply_facts(chinook[0], [("terminology", first), ("terminology", second)])
    assert reports[1].operation in _REPLACED and len(left) == 1  # type: ignore[attr-defined]
    assert literal in left[0].structured["sql"]  # type: ignore[attr-defined]


def test_another_word_defined_with_a_number_is_not_a_threshold_change(chinook: tuple[Grounding, Path]) -> None:
    reports, left = _apply_facts(chinook[0], [
        ("terminology", "Big invoice = total of 15 or more."),
        ("terminology", "A big spender is a customer whose invoices add up to 40 or more.")])  # fmt: skip
    assert len(left) == 2 and "15" in next(m.structured["sql"] for m in left  # type: ignore[attr-defined]
                                           if m.structured.get("name") == "big invoice")  # type: ignore[attr-defined]


@pytest.mark.parametrize(("text", "direction"), [("Sort tracks by length.", "ASC"),
                                                 ("Sort tracks by duration, longest first.", "DESC")])
def test_a_sort_by_length_uses_the_column_kept_in_a_time_unit(chinook: tuple[Grounding, Path], text: str,
                                                              direction: str) -> None:  # fmt: skip
    assert understand("preference", text, chinook[0]).form == {"kind": "sort", "table": "Track",
                                                               "column": "Milliseconds", "direction": direction}


@pytest.mark.parametrize(("first", "second", "operation"), [
    ("A whale is a customer who spent over 20000.", "whales = customers with total spend above 20k", "NOOP"),
    ("A whale is a customer who spent over 20000.", "whale now means over 50000 lifetime", "UPDATE"),
    ("A whale is a customer who spent over 20000.", "a whale is a customer who spent over 20000 excluding refunds",
     "UPDATE"),
])  # fmt: skip
def test_a_term_kept_as_words_restated_with_the_same_numbers_is_known(chinook: tuple[Grounding, Path], first: str,
                                                                     second: str, operation: str) -> None:  # fmt: skip
    reports, left = _apply_facts(chinook[0], [("terminology", first), ("terminology", second)])
    assert (reports[1].operation == "NOOP") is (operation == "NOOP") and len(left) == 1  # type: ignore[attr-defined]


@pytest.mark.parametrize(("second", "operation"), [
    ("mere key accounts 17 aur 42 hain", "NOOP"),  # Hindi-English, the same ids
    ("key accts = 42 and 17", "NOOP"),
    ("customer 108 is also one of my key accounts", "UPDATE"),
])  # fmt: skip
def test_an_entity_restated_with_the_same_ids_is_known(chinook: tuple[Grounding, Path], second: str,
                                                      operation: str) -> None:  # fmt: skip
    reports, left = _apply_facts(chinook[0], [("entity", "My key accounts are customers 17 and 42."),
                                              ("entity", second)])  # fmt: skip
    assert reports[1].operation == operation and len(left) == 1  # type: ignore[attr-defined]


# -- findings of the hand attack on these features (each one broke before it was fixed) ---------------------


@pytest.mark.parametrize("text", [
    "Always exclude orders from 2024",  # the year 2024 left out: no single range, so kept as words
    "default to the current financial year (April to March) and also exclude cancelled orders",  # two rules
    "only invoices from 2023 onwards and no Brazil",  # "no" is about Brazil, not the period: two rules
])  # fmt: skip
def test_a_statement_with_no_single_faithful_form_is_kept_as_words(chinook: tuple[Grounding, Path],
                                                                    text: str) -> None:  # fmt: skip
    u = understand("preference", text, chinook[0])
    assert u.form is None and u.use == "context"


def test_a_reversed_year_range_is_the_same_years(chinook: tuple[Grounding, Path]) -> None:
    u = understand("preference", "From now on only invoices from 2024 to 2023", chinook[0])
    assert u.form is not None and (u.form["kind"], u.form["start"], u.form["end"]) == ("window", "2023-01-01",
                                                                                      "2025-01-01")  # fmt: skip


def test_a_bare_from_names_the_period_itself() -> None:
    q3 = period_from_text("only orders from Q3 2024")
    assert q3 is not None and (q3.start, q3.end) == (datetime.date(2024, 7, 1), datetime.date(2024, 10, 1))


def test_a_new_threshold_rewrites_a_term_kept_as_words(chinook: tuple[Grounding, Path]) -> None:
    reports, left = _apply_facts(chinook[0], [("terminology", "A whale is a customer who spent over 20000."),
                                              ("terminology", "whale threshold is 50000 now, not 20000")])  # fmt: skip
    assert [m.content for m in left] == ["A whale is a customer who spent over 50000."]  # type: ignore[attr-defined]


def test_a_value_in_several_columns_named_with_no_table_is_not_guessed(chinook: tuple[Grounding, Path]) -> None:
    """Canada is hinted in Employee.Country, and the data also has it in Customer.Country and
    Invoice.BillingCountry: with no table named, no column is meant with confidence."""
    assert understand("preference", "From now on only Canada", chinook[0]).form is None


def test_the_bank_path_also_reads_a_fragment_against_the_standing_filter(chinook: tuple[Grounding, Path]) -> None:
    from core.memory import Fact, JsonMemoryStore, apply_fact
    from tests.fakes.fake_embedder import FakeEmbedder

    import tempfile

    g = chinook[0]
    store = JsonMemoryStore(Path(tempfile.mkdtemp(prefix="cairn-naming-")))
    for text in ("Don't include customers from the USA.", "leave Canada out too"):
        form = understand("preference", text, g).form  # what `cairn memory add` and the window pass in
        apply_fact(Fact("preference", text), user="u", database_id=g.database_id, store=store,
                   embedder=FakeEmbedder(), llm=None, schema=g.schema, source="cli", lookup=g.lookup,
                   form=form)  # fmt: skip
    left = store.list("u", database_id=g.database_id)
    assert len(left) == 1 and (left[0].structured["table"], sorted(left[0].structured["value"])) == (
        "Customer", ["Canada", "USA"])  # fmt: skip


def test_a_number_sort_never_takes_a_column_whose_name_merely_contains_count() -> None:
    outcome = apply_presentation(sqlglot.parse_one("SELECT InvoiceId, BillingCountry, Total FROM Invoice"),
                                 [{"kind": "sort", "by": "measure", "direction": "DESC"}], "sqlite")  # fmt: skip
    assert outcome.expression.sql(dialect="sqlite").endswith("ORDER BY 3 DESC")
    odd = apply_presentation(sqlglot.parse_one("SELECT Name FROM Track"),
                             [{"kind": "sort", "by": "banana", "direction": "DESC"}], "sqlite")  # fmt: skip
    assert "not one Cairn knows" in odd.skipped[0][1] and "None" not in odd.skipped[0][1]


def test_a_merged_exclusion_keeps_the_scope_of_the_rule() -> None:
    from core.memory.cycle._filter_merge import merge_filters

    link = [{"table": "Track", "column": "GenreId", "key": "GenreId"}]
    old = {"kind": "filter", "table": "Genre", "column": "Name", "op": "<>", "value": "TV Shows",
           "sql": "Genre.Name <> 'TV Shows'", "also_on": link, "only_through": True}  # fmt: skip
    new = {"kind": "filter", "table": "Genre", "column": "Name", "op": "<>", "value": "Sci Fi & Fantasy"}
    verdict, merged, _ = merge_filters(old, new, True, "sqlite")
    assert verdict == "UPDATE" and merged is not None
    assert merged["also_on"] == link and merged["only_through"] is True and merged["op"] == "NOT IN"


@pytest.mark.parametrize(("question", "name"), [
    ("revenue per order", "revenue per customer"),  # the noun after "per" is what the ratio is over
    ("orders by country", "order count"),  # "country" is not "count" plus an ending
    ("revenue in detail", "retail revenue"),  # a changed letter is a slip only in long words
])  # fmt: skip
def test_attack_near_misses_do_not_name_the_term(question: str, name: str) -> None:
    assert not names_term(words(question), name, {"order", "customer"}, acronyms(question))


def test_a_reason_after_a_comma_is_not_a_value_but_an_unknown_value_is_kept(chinook: tuple[Grounding, Path]) -> None:
    g = chinook[0]
    reason = understand("preference", "leave out invoices billed to Brazil, another team owns those", g).form
    assert reason is not None and reason["value"] == "Brazil" and not reason.get("unknown_values")
    odd = understand("preference", "only customers from Brazil, Portugal and Narnia", g).form
    assert odd is not None and odd["value"] == ["Brazil", "Portugal", "Narnia"] and odd["unknown_values"] == ["Narnia"]


@pytest.mark.parametrize(("saved", "message"), [
    ({"kind": "limit", "value": 20}, "no row limit anymore, show everything"),
    ({"kind": "window", "table": "Invoice", "column": "InvoiceDate", "start": "2023-01-01"},
     "I no longer want the 2023 cutoff"),
    ({"kind": "window", "table": "Invoice", "column": "InvoiceDate", "amount": 90, "unit": "day"},
     "forget the default date range"),
    ({"kind": "sort", "by": "date", "direction": "DESC"}, "drop the default sort"),
    ({"kind": "filter", "table": "MediaType", "column": "Name", "op": "<>", "value": "Protected MPEG-4 video file"},
     "videos wala filter hata do"),
])  # fmt: skip
def test_a_withdrawal_finds_the_setting_it_names(saved: dict[str, object], message: str) -> None:
    from core.memory.cycle._forget import _structural_match, retraction_object

    assert _structural_match(retraction_object(message), saved, "sqlite") is True


@pytest.mark.parametrize("message", ["stop excluding cancelled orders", "forget the file export", "forget India"])
def test_a_withdrawal_of_something_else_leaves_settings_alone(message: str) -> None:
    from core.memory.cycle._forget import _structural_match, retraction_object

    for saved in ({"kind": "limit", "value": 20}, {"kind": "sort", "by": "date", "direction": "DESC"},
                  {"kind": "filter", "table": "MediaType", "column": "Name", "op": "<>",
                   "value": "Protected MPEG-4 video file"}):  # fmt: skip
        assert _structural_match(retraction_object(message), saved, "sqlite") is False


# -- attack findings not fixed yet: strict xfails, so a fix shows up -------------------------------------------


@pytest.mark.xfail(strict=True, reason="attack 4, finding 8: a bare new number routes as a question; it only means "
                                       "a new row limit next to a saved one, which the router cannot see")
def test_a_bare_new_row_limit_said_mid_conversation_is_remembered() -> None:
    from core.memory import MiniLMEmbedder, classify

    route = classify("10 is too few, give me 30", embedder=MiniLMEmbedder(), has_history=True)
    assert route.kind == "preference"


@pytest.mark.xfail(strict=True, reason="attack 4, finding 13: an impossible date is kept as words with no warning")
def test_an_impossible_date_in_a_statement_is_named_in_a_warning(chinook: tuple[Grounding, Path]) -> None:
    u = understand("preference", "only invoices from 2024-02-30 onwards", chinook[0])
    assert any("2024-02-30" in w for w in u.warnings)


# -- periods, sorts and a year that is not a row limit ---------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("default: last 12 months", {"kind": "window", "table": "Invoice", "column": "InvoiceDate"}),  # not HireDate
    ("default period should be 2022 through 2025", {"kind": "window", "start": "2022-01-01", "end": "2026-01-01"}),
    ("change the default year to calendar 2024", {"kind": "window", "start": "2024-01-01"}),
    ("sort by last name", {"kind": "sort", "column": "LastName", "direction": "ASC"}),
    ("List artists alphabetically.", {"kind": "sort", "table": "Artist", "column": "Name", "direction": "ASC"}),
    ("order lists by revenue desc, not by name", {"kind": "sort", "by": "measure", "direction": "DESC"}),
])  # fmt: skip
def test_periods_and_sorts_people_say(chinook: tuple[Grounding, Path], text: str, expected: dict) -> None:
    u = understand("preference", text, chinook[0])
    assert u.form is not None and {k: u.form.get(k) for k in expected} == expected


@pytest.mark.parametrize("text", ["sort by country first, then last name", "Default to 2025 tracks only"])
def test_no_unfaithful_sort_or_limit(chinook: tuple[Grounding, Path], text: str) -> None:
    u = understand("preference", text, chinook[0])
    assert u.form is None or u.form.get("kind") not in ("sort", "limit")


def test_an_entity_defined_by_a_name_is_called_by_that_name() -> None:
    pytest.importorskip("sentence_transformers")
    rule = "watchlist = customers 88, 131, 402 and 517 (credit-risk flags from audit)"
    store, tables = _bank([("entity", rule)])
    assert rule in _recalled(store, tables, "watchlist ke saare customers dikhao")
    assert rule not in _recalled(store, tables, "which customers have credit flags")  # the explanation is no name


@pytest.mark.parametrize(("text", "expected"), [
    ("Default period = FY 25-26, i.e. invoices dated 1 April 2025 onwards.", {"start": "2025-04-01"}),
    ("For anything sales-related, last three years only: 2023 through 2025.",
     {"start": "2023-01-01", "end": "2026-01-01"}),  # the stated bounds, not "the last 3 years" from today
    ("For any ranking or breakdown, put the biggest number at the top.", {"kind": "sort", "by": "measure"}),
])  # fmt: skip
def test_held_out_forms_seen_after_measuring(chinook: tuple[Grounding, Path], text: str, expected: dict) -> None:
    u = understand("preference", text, chinook[0])
    assert u.form is not None and {k: u.form.get(k) for k in expected} == expected
