"""What a by-hand attack on shared-insight redaction stored, each now refused: values spelled in words, as
windows of time, as named days, as a login's parts, as a pivot's column name, as an e-mail domain."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from core.insights import AgentKey, InsightSharing, collect_literals, find_leaks
from core.insights._spelled import holiday_days, spelled_digit_runs, spelled_numbers
from core.insights._store_jsonl import JsonlInsightStore
from tests.fakes.fake_embedder import FakeEmbedder
from tests.fakes.scripted_llm import ScriptedLLM

COUNT_QUESTION = "how many orders per customer segment"
COUNT_SQL = "SELECT segment, COUNT(*) FROM orders GROUP BY segment"


def _leaks(text: str, rows, *, question: str = COUNT_QUESTION, hidden=(), private=()) -> list[str]:
    lits = collect_literals(question=question, sql=COUNT_SQL, rows=rows, hidden_values=hidden,
                            private_words=private, schema_words=["orders", "segment"])
    return find_leaks(text, lits)


@pytest.mark.parametrize(("text", "value"), [
    ("The segment placed eleven orders", 11),
    ("The segment placed four dozen orders", 48),
    ("The segment placed four score and seven orders", 87),
    ("The segment placed a gross of orders", 144),
    ("The segment placed forty-eight thousand orders", 48000),
    ("The count is four then seven then one then nine", 4719),
    ("Orders arrived on 47 days of the year", 47),
])
def test_a_count_spelled_out_is_the_count(text: str, value: int) -> None:
    assert _leaks(text, [("Northern Retail Group", value)])
    assert not _leaks(text, [("Northern Retail Group", value + 1003)])  # another count: no leak


def test_an_id_cut_into_windows_of_days_is_the_id() -> None:
    text = "Look at the last 77 days, then 41 days, then 99 days, then 3 days."
    assert _leaks(text, [(7741993,)])


def test_the_questions_own_window_and_small_windows_are_not_data() -> None:
    rows = [("wholesale", 30), ("retail", 12)]
    assert not _leaks("Wholesale orders over the last 30 days", rows, question="orders in the last 30 days")
    assert not _leaks("Retail orders over the last 12 months", rows)
    assert _leaks("Wholesale orders over the last 30 days", rows)  # the question set no window: 30 is a count


def test_a_hidden_age_written_as_years() -> None:
    assert _leaks("A customer of 67 years ordered most", [("wholesale", 3)], hidden=[67])


@pytest.mark.parametrize(("text", "day"), [
    ("Orders peaked on Valentine's Day", dt.date(2024, 2, 14)),
    ("Orders peaked on New Year's Eve", dt.date(2023, 12, 31)),
    ("Orders peaked on Boxing Day", dt.date(2023, 12, 26)),
    ("Orders peaked on the ides of March", dt.date(2024, 3, 15)),
])
def test_a_date_by_its_name(text: str, day: dt.date) -> None:
    assert _leaks(text, [(day, 40)])
    assert not _leaks(text, [(dt.date(2024, 6, 3), 40)])


@pytest.mark.parametrize(("login", "text"), [
    ("will.baker", "Baker looked at how many customers each city has."),
    ("grace_hunter", "Hunter compared the segments."),
])
def test_a_logins_parts_are_the_users_name(login: str, text: str) -> None:
    assert _leaks(text, [("wholesale", 3)], private=[login]) == ["the user's name"]
    assert not _leaks("A baker and a hunter are segments too.", [("wholesale", 3)], private=[login])


def test_an_email_domain_is_a_value_run_together_or_spaced() -> None:
    rows = [("zq@bluefield.test",)]
    assert _leaks("Most customers use the bluefield mail service", rows)
    assert _leaks("Most customers use the blue field mail service", rows)


def test_the_readers_of_spelled_numbers() -> None:
    assert spelled_numbers("four dozen and a gross, eleven, two lakh") == [48.0, 144.0, 11.0, 200000.0]
    assert spelled_numbers("the score of the match") == []
    assert spelled_digit_runs("four then seven then one then nine; one or two") == ["4719"]
    assert holiday_days(("sales", "on", "new", "year", "eve")) == {(12, 31)}


def test_a_pivot_column_named_for_a_value_does_not_vouch_for_it(tmp_path: Path) -> None:
    """`SUM(CASE WHEN city = 'Brimhollow' …) AS brimhollow`: the result's column names are usable like the
    schema's, except one that spells a value of the query."""
    draft = json.dumps({"worth_sharing": True, "insight_summary": "Brimhollow has more customers than Quendar.",
                        "entities": ["table:customers"],
                        "suggested_followups": ["Why does Brimhollow outgrow Quendar?",
                                                "Which cities have the most customers?"]})
    sql = ("SELECT SUM(CASE WHEN city = 'Brimhollow' THEN 1 ELSE 0 END) AS brimhollow, "
           "SUM(CASE WHEN city = 'Quendar' THEN 1 ELSE 0 END) AS quendar, COUNT(*) AS customer_count FROM customers")
    embedder = FakeEmbedder(384)
    sharing = InsightSharing(open_store=lambda: JsonlInsightStore(tmp_path),
                             embed=lambda t: embedder.embed_batch([t])[0],
                             embedding_model="fake", agent_id="a", db_kind="postgres", key=AgentKey.generate())
    outcome = sharing.share(ScriptedLLM(draft), question="compare customer counts of our two largest cities",
                            sql=sql, columns=["brimhollow", "quendar", "customer_count"], rows=[(41, 37, 400)],
                            schema={"customers": ["customer_id", "city"]})
    assert outcome.record is None and "value from the SQL" in outcome.reason
    stored = tmp_path / "insights.jsonl"
    assert not stored.exists() or "brimhollow" not in stored.read_text(encoding="utf-8").lower()
