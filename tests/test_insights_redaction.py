"""Redaction enforced by code (issue 15, item 2): canary values planted in the rows, the question, the SQL and
hidden columns never reach a stored record, in any spelling the model might use — and the words a clean record
needs (table and column names, generic words, small counts, durations) survive."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.insights import AgentKey, InsightDraft, InsightSharing, collect_literals, find_leaks, parse_draft, redact
from core.insights._store_jsonl import JsonlInsightStore
from tests.fakes.fake_embedder import FakeEmbedder
from tests.fakes.scripted_llm import ScriptedLLM

SCHEMA = {"customers": ["customer_id", "name", "email", "city", "segment"],
          "orders": ["order_id", "customer_id", "order_date", "total_amount", "status"]}
NAMES = [t for t in SCHEMA] + [c for cols in SCHEMA.values() for c in cols]

# Canaries: made-up values no summary would contain by chance.
CANARY_NAME = "Zorvath Quillane"
CANARY_EMAIL = "zq.canary@vexmail.test"
CANARY_CITY = "Brimhollow"
CANARY_AMOUNT = 48213.07
CANARY_ID = 7741993
CANARY_HIDDEN = "Xylophant-Secret"
CANARY_DATE = "2024-03-15"

QUESTION = f"Which orders did {CANARY_NAME} place in {CANARY_CITY} since {CANARY_DATE}?"
SQL = (f"SELECT o.order_id, o.total_amount, c.city FROM orders o JOIN customers c ON c.customer_id = o.customer_id "
       f"WHERE c.name = '{CANARY_NAME}' AND o.order_date >= '{CANARY_DATE}'")
ROWS = [(CANARY_ID, CANARY_AMOUNT, CANARY_CITY), (7741994, 1250000, "Ostrel Vane"), (12, 3, CANARY_EMAIL)]


def literals():
    return collect_literals(question=QUESTION, sql=SQL, rows=ROWS, hidden_values=[CANARY_HIDDEN],
                            schema_words=NAMES)


def clean_draft(**changes) -> InsightDraft:
    base = dict(worth_sharing=True,
                insight_summary="Explored one customer's order history in a single city over a recent period.",
                entities=("table:orders", "column:orders.total_amount", "table:customers"),
                suggested_followups=("How do order totals compare across cities?",
                                     "Which customer segments order most often?",
                                     "How has the average order value changed over the last 12 months?"))
    base.update(changes)
    return InsightDraft(**base)


# -- every spelling of a planted value is caught --------------------------------------------------------------

LEAKY_TEXTS = [
    f"Orders of {CANARY_NAME}",
    "Orders of zorvath   QUILLANE",  # case and spacing
    "Quillane placed many orders",  # one distinctive word of the name
    "ZorvathQuillane ordered",  # squeezed
    f"Customer with e-mail {CANARY_EMAIL}",
    "Orders shipped to BRIMHOLLOW",
    "An order of 48,213.07 stands out",
    "An order of about 48.2k stands out",  # rounded within 1 %
    "One order was 48213",
    "Order 7741993 was the largest",
    "Order #7,741,993 was the largest",
    "Totals reached 1.25 million",
    "Orders since March 15, 2024",
    "Orders since 15 March 2024",
    "Orders since 15/03/2024",
    f"The {CANARY_HIDDEN} account",
    "the xylophant secret account",
]


@pytest.mark.parametrize("text", LEAKY_TEXTS)
def test_each_spelling_of_a_planted_value_is_found(text: str) -> None:
    assert find_leaks(text, literals()), text


CLEAN_TEXTS = [
    "Explored order totals per customer in one city",
    "Orders by status and total_amount over the last 12 months",
    "Top 5 customers by total amount",
    "customers.city and orders.order_date were used",
    "How does the average order value change over 3 quarters?",
]


@pytest.mark.parametrize("text", CLEAN_TEXTS)
def test_schema_words_and_generic_words_pass(text: str) -> None:
    assert find_leaks(text, literals()) == [], text


# -- what redact keeps ------------------------------------------------------------------------------------------

def test_a_clean_draft_passes_whole() -> None:
    result = redact(clean_draft(), literals(), SCHEMA)
    assert result.draft == clean_draft()


def test_a_leaking_summary_rejects_the_record() -> None:
    result = redact(clean_draft(insight_summary=f"{CANARY_NAME} orders a lot"), literals(), SCHEMA)
    assert result.draft is None and "question" in result.reason or "SQL" in result.reason
    assert CANARY_NAME not in result.reason and "Quillane" not in result.reason


def test_leaking_followups_and_value_entities_are_dropped_the_rest_kept() -> None:
    draft = clean_draft(
        entities=("table:orders", f"customer:{CANARY_NAME}", "account_id:7741993", "column:orders.status",
                  "column:orders.nope", "table:secret_table", "column:customers.email"),
        suggested_followups=(f"What else did {CANARY_NAME} buy?", "Which cities order the most?",
                             "SELECT * FROM orders", f"Orders in {CANARY_CITY.lower()}?"))
    result = redact(draft, literals(), SCHEMA)
    assert result.draft is not None
    assert result.draft.entities == ("table:orders", "column:orders.status", "column:customers.email")
    assert result.draft.suggested_followups == ("Which cities order the most?",)
    assert result.dropped_entities == 4 and result.dropped_followups == 3


def test_not_worth_sharing_sql_and_email_in_the_summary_store_nothing() -> None:
    assert redact(clean_draft(worth_sharing=False), literals(), SCHEMA).draft is None
    assert redact(clean_draft(insight_summary="SELECT name FROM customers"), literals(), SCHEMA).draft is None
    assert redact(clean_draft(insight_summary="Write to someone@else.example"), literals(), SCHEMA).draft is None
    assert redact(clean_draft(insight_summary="   "), literals(), SCHEMA).draft is None


# -- fuzzed canaries ------------------------------------------------------------------------------------------

_word = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=5, max_size=9).map(str.capitalize)


def _variant(draw, words: list[str]) -> str:
    style = draw(st.sampled_from(["as is", "upper", "lower", "spaced", "squeezed", "one word", "punct"]))
    if style == "upper":
        return " ".join(words).upper()
    if style == "lower":
        return " ".join(words).lower()
    if style == "spaced":
        return "   ".join(words)
    if style == "squeezed":
        return "".join(words)
    if style == "one word":
        return draw(st.sampled_from(words))
    if style == "punct":
        return "-".join(words) + "."
    return " ".join(words)


@st.composite
def planted(draw):
    words = draw(st.lists(_word, min_size=2, max_size=3, unique=True))
    where = draw(st.sampled_from(["row", "question", "sql", "hidden"]))
    number = draw(st.integers(min_value=10_000, max_value=99_999_999))
    written = draw(st.sampled_from([str(number), f"{number:,}", f"#{number}", f"id-{number}"]))
    return words, where, number, _variant(draw, words), written


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planted())
def test_fuzzed_canaries_never_survive_redaction(case) -> None:
    words, where, number, spelled, written = case
    value = " ".join(words)
    question, sql, rows, hidden = "Show the orders by customer", "SELECT name FROM customers", [("a", 1)], []
    if where == "row":
        rows = [(value, number)]
    elif where == "question":
        question = f"Show the orders of {value} for account {number}"
    elif where == "sql":
        sql = f"SELECT name FROM customers WHERE name = '{value}' AND customer_id = {number}"
    else:
        hidden = [value, number]
    lits = collect_literals(question=question, sql=sql, rows=rows, hidden_values=hidden, schema_words=NAMES)
    draft = clean_draft(insight_summary=f"Looked at {spelled}'s orders",
                        entities=(f"customer:{value}", "table:orders"),
                        suggested_followups=(f"What about {spelled}?", f"Account {written} details?",
                                             "Which segment orders most?"))
    result = redact(draft, lits, SCHEMA)
    if result.draft is None:
        return
    stored = json.dumps([result.draft.insight_summary, *result.draft.entities, *result.draft.suggested_followups])
    folded = re.sub(r"[^a-z0-9]", "", stored.lower())
    for word in words:
        assert word.lower() not in folded
    assert str(number) not in re.sub(r"\D", "", stored)


# -- end to end: canaries never reach a stored byte --------------------------------------------------------

def test_canaries_never_reach_the_shared_file(tmp_path: Path) -> None:
    leaky = json.dumps({"worth_sharing": True,
                        "insight_summary": "Explored order totals of one customer in one city.",
                        "entities": ["table:orders", f"customer:{CANARY_NAME}", f"email:{CANARY_EMAIL}"],
                        "suggested_followups": [f"What did {CANARY_NAME.upper()} buy next?",
                                                f"Is {CANARY_HIDDEN} related?",
                                                "Which cities have the highest order totals?"]})
    llm = ScriptedLLM(leaky)
    embedder = FakeEmbedder(384)
    sharing = InsightSharing(open_store=lambda: JsonlInsightStore(tmp_path), embed=lambda t: embedder.embed_batch([t])[0],
                             embedding_model="fake", agent_id="agent-a", db_kind="postgres", key=AgentKey.generate())
    outcome = sharing.share(llm, question=QUESTION, sql=SQL, columns=["order_id", "total_amount", "city"],
                            rows=ROWS, schema=SCHEMA, hidden_values=[CANARY_HIDDEN], private_words=["priya"])
    assert outcome.record is not None
    assert outcome.record.suggested_followups == ("Which cities have the highest order totals?",)
    data = (tmp_path / "insights.jsonl").read_bytes().decode("utf-8").lower()
    for canary in (CANARY_NAME, "quillane", "zorvath", CANARY_EMAIL, CANARY_CITY, CANARY_HIDDEN, "xylophant",
                   str(CANARY_ID), "48213", CANARY_DATE):
        assert canary.lower() not in data
    # the model was shown no row value
    prompt = llm.history[0].user
    assert str(CANARY_ID) not in prompt and "48213" not in prompt and CANARY_EMAIL not in prompt


@pytest.mark.parametrize("reply", [
    "", "not json", "[1, 2]", '{"worth_sharing": "yes", "insight_summary": "x"}',
    '{"worth_sharing": true, "insight_summary": 5}', '{"worth_sharing": true, "insight_summary": "x", '
    '"entities": "table:orders"}', 'Sure! {"worth_sharing": true, "insight_summary": "x"}', "{" * 5000,
])
def test_malformed_model_output_gives_nothing(reply: str) -> None:
    assert parse_draft(reply) is None


def test_a_fenced_json_reply_is_read() -> None:
    draft = parse_draft('```json\n{"worth_sharing": true, "insight_summary": "ok", "entities": [], '
                        '"suggested_followups": ["a?"]}\n```')
    assert draft is not None and draft.suggested_followups == ("a?",)


# -- general rules found on the development set (bench/data/insights_redaction_dev.json) ------------------

def test_date_parts_formats_and_intervals_of_the_sql_are_not_values() -> None:
    lits = collect_literals(question="sales per month last quarter", sql=(
        "SELECT DATE_TRUNC('MONTH', d), TO_CHAR(d, 'YYYY-MM'), STRFTIME('%Y-%m', d) FROM sales "
        "WHERE d >= CURRENT_DATE - INTERVAL '3 months' AND region = 'Northwind Coast'"), schema_words=["sales", "d"])
    assert find_leaks("Monthly sales for the last quarter, by month", lits) == []
    assert find_leaks("Sales on the northwind coast", lits)


def test_the_questions_own_lower_case_words_are_vocabulary_but_capitalised_values_are_not() -> None:
    lits = collect_literals(question="avg basket size on weekends vs weekdays in mumbai",
                            sql="SELECT CASE WHEN dow IN (0, 6) THEN 'weekend' ELSE 'weekday' END AS kind, "
                                "avg(total) FROM baskets WHERE city = 'Mumbai' GROUP BY 1",
                            rows=[("weekend", 41.2), ("weekday", 33.9)], schema_words=["baskets", "total", "city"])
    assert find_leaks("Weekend baskets are larger than weekday ones", lits) == []
    assert find_leaks("Baskets in Mumbai", lits)


def test_codes_give_no_single_word_away_but_names_do() -> None:
    lits = collect_literals(question="fuel cost per km by vehicle type", sql="SELECT 1",
                            rows=[("truck_16t", 1.9), ("Ana Folau", 2)], schema_words=[])
    assert find_leaks("Heavy trucks cost more per km", lits) == []
    assert find_leaks("truck16t costs most", lits)
    assert find_leaks("Folau drove most", lits)


@pytest.mark.parametrize("written", ["₹12,50,000", "1.250.000,00 €", "1,250,000", "1.25 million"])
def test_numbers_in_local_formats(written: str) -> None:
    lits = collect_literals(question="revenue", sql="SELECT 1", rows=[(1250000,)], schema_words=[])
    assert find_leaks(f"Revenue came to {written}", lits)


def test_a_local_phone_number_matches_its_international_form() -> None:
    lits = collect_literals(question="heavy users", sql="SELECT 1", hidden_values=["+254 712 345 678"],
                            schema_words=[])
    assert find_leaks("Subscriber 0712 345 678 used a lot", lits)
    assert find_leaks("p95 latency per endpoint", collect_literals(
        question="what is the p95 api latency", sql="SELECT 1", schema_words=[])) == []


# -- relevance: a record is suggested when one of its parts is about the question --------------------------

def test_a_related_question_gets_the_followups_and_an_unrelated_one_does_not(tmp_path: Path) -> None:
    from core.insights import InsightRecord
    from core.memory import MiniLMEmbedder

    embedder = MiniLMEmbedder()

    def embed(text: str):
        return embedder.embed_batch([text])[0]

    store, oltp_key = JsonlInsightStore(tmp_path), AgentKey.generate()
    draft = InsightDraft(True, "Investigated late shipments by carrier and the average delay in days.",
                         ("table:shipments",), ("Which routes are most often late?",
                                                "Did delays change after a carrier switch?"))
    store.put(InsightRecord.create(draft, embed(draft.text_for_embedding()), agent_id="oltp-agent",
                                   db_kind="postgresql", ttl_s=3600, embedding_model=embedder.model_id, key=oltp_key))
    reader = InsightSharing(open_store=lambda: JsonlInsightStore(tmp_path), embed=embed,
                            embedding_model=embedder.model_id, agent_id="warehouse-agent", db_kind="sqlite",
                            key=AgentKey.generate())
    related = reader.suggestions("which shipping companies deliver late most often")
    assert [s.text for s in related][:1] and all(s.agent_id == "oltp-agent" for s in related)
    assert reader.suggestions("revenue per product category this year") == []
    own = InsightSharing(open_store=lambda: JsonlInsightStore(tmp_path), embed=embed,
                         embedding_model=embedder.model_id, agent_id="oltp-agent", db_kind="postgresql", key=oltp_key)
    assert own.suggestions("which shipping companies deliver late most often") == []


# -- what an attack on the README's claims found (each now caught) -------------------------------------------

@pytest.mark.parametrize("text", [
    "Logins for the user psharma fell",  # a lower-case user name the question also writes in lower case
    "Top user psharma uses a company address",  # the local part of a row's e-mail
    "Orders of Priyа Shаrmа",  # Cyrillic а inside Latin words
    "Orders of Shar\u200dma and Sh\u00adarma",  # zero-width joiner, soft hyphen
    "Orders of P r i y a   S h a r m a",  # spelled out letter by letter
    "Orders since 15 Mar",
    "Orders since March 15th",
    "Orders in March 2024",
    "Orders since 15/03/24",
    "A conversion of 42.7% stands out",  # the row's ratio 0.4273 as a percentage
    "A conversion of 0.43 stands out",
    "Orders of \uff17\uff17\uff14\uff11\uff19\uff19\uff13",  # fullwidth digits of an id
])
def test_disguised_values_are_found(text: str) -> None:
    lits = collect_literals(
        question="how many logins did psharma have since 2024-03-15?",
        sql="SELECT count(*) FROM logins WHERE username = 'psharma' AND at >= '2024-03-15'",
        rows=[("p.sharma@corp.example", 0.4273, 7741993), ("Priya Sharma", 1, 2)], schema_words=["logins", "at"])
    assert find_leaks(text, lits), text


def test_a_summary_that_copies_a_long_question_is_refused() -> None:
    question = "which of our wholesale customers in the northern region bought fewer items this spring than last"
    lits = collect_literals(question=question, sql="SELECT 1", schema_words=[])
    assert find_leaks(f"Asked {question}.", lits)
    assert find_leaks("Compared wholesale buying between two seasons by region", lits) == []


def test_stored_text_has_no_invisible_characters() -> None:
    draft = clean_draft(insight_summary="Explored order\u200b totals\u202e by city.",
                        suggested_followups=("Which\u2066 cities lead?",))
    result = redact(draft, literals(), SCHEMA)
    assert result.draft is not None
    assert result.draft.insight_summary == "Explored order totals by city."
    assert result.draft.suggested_followups == ("Which cities lead?",)
