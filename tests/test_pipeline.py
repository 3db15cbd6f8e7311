"""The pipeline end to end on the real embedded sample database with scripted model replies."""

from __future__ import annotations

import datetime as dt
import threading
import time

import psycopg
import pytest

from core.cancellation import Cancellation
from core.config import Settings
from core.errors import LLMUnavailable
from core.llm import OllamaLLM
from core.pipeline import AskPipeline
from tests.fakes.scripted_llm import ScriptedLLM

TODAY = dt.date.today()


def make(db, *replies, **settings) -> tuple[AskPipeline, ScriptedLLM]:
    llm = ScriptedLLM(*replies)
    return AskPipeline(db, llm, Settings(**settings), today=lambda: TODAY), llm


def scalar(uri: str, sql: str):
    with psycopg.connect(uri) as conn:
        row = conn.execute(sql).fetchone()
    assert row is not None
    return row[0]


def test_clean_sql_runs_and_prompt_states_date_and_schema(db, sample_db_uri) -> None:
    pipe, llm = make(db, "SELECT count(*) FROM orders WHERE status = 'delivered'")
    answer = pipe.ask("How many delivered orders are there?")
    assert answer.ok and answer.path == "llm"
    assert answer.rows[0][0] == scalar(sample_db_uri, "SELECT count(*) FROM orders WHERE status = 'delivered'")
    assert answer.rejected_sql is None
    turn = llm.history[0]
    assert TODAY.isoformat() in turn.user
    assert "orders(" in turn.user and "customers(" in turn.user and "delivered" in turn.user
    assert "LIMIT 20" not in turn.user and "SELECT" in turn.system
    assert {"load_schema", "build_prompt", "generate", "guard", "validate", "execute"} <= set(answer.timings)


def test_fenced_sql_with_prose(db) -> None:
    reply = (
        "Sure! Here is the query you asked for:\n```sql\nSELECT country, count(*) AS n\nFROM customers\n"
        "GROUP BY country\nORDER BY n DESC;\n```\nThis groups customers by country. Let me know if you need more!"
    )
    pipe, _ = make(db, reply)
    answer = pipe.ask("Customers per country?")
    assert answer.ok and answer.columns == ("country", "n")
    assert answer.rows[0][0] == "India"
    assert "Let me know" not in (answer.sql or "")


def test_wrong_column_name_is_repaired_from_schema(db) -> None:
    pipe, llm = make(db, "SELECT full_name FROM customer WHERE country = 'India'")
    answer = pipe.ask("Names of customers in India")
    assert answer.ok and answer.path == "repaired"
    assert answer.row_count > 50
    assert any("name" in n for n in answer.notes)
    assert len(llm.history) == 1  # fixed without asking the model again


def test_unnecessary_join_is_stripped(db, sample_db_uri) -> None:
    sql = "SELECT o.order_id, o.total_amount FROM orders o JOIN customers c ON o.customer_id = c.customer_id"
    pipe, _ = make(db, sql)
    answer = pipe.ask("List order ids and amounts")
    assert answer.ok
    assert "customers" not in (answer.sql or "").lower()
    assert answer.row_count == 1000 and answer.truncated  # default row cap, flagged
    assert any("JOIN" in n or "join" in n for n in answer.notes)


def test_write_statement_is_blocked_and_never_runs(db, sample_db_uri) -> None:
    before = scalar(sample_db_uri, "SELECT count(*) FROM orders")
    pipe, llm = make(db, "DELETE FROM orders", "DROP TABLE orders", "UPDATE orders SET status = 'x'")
    answer = pipe.ask("Remove all the orders please")
    assert not answer.ok and answer.sql is None
    assert answer.rejected_sql is not None and answer.rejected_reason
    assert answer.error and answer.hint
    assert len(llm.history) == 3  # first try + 2 repair rounds, no more
    assert scalar(sample_db_uri, "SELECT count(*) FROM orders") == before


def test_database_error_goes_back_to_model_then_repaired(db) -> None:
    bad = "SELECT sum(status) FROM orders"
    good = "SELECT sum(total_amount) FROM orders"
    pipe, llm = make(db, bad, good)
    answer = pipe.ask("What is the total order value?")
    assert answer.ok and answer.path == "repaired"
    assert answer.rejected_sql is not None and "sum(status)" in answer.rejected_sql.lower()
    repair_turn = llm.history[1]
    assert "sum(status)" in repair_turn.user.lower() and "does not exist" in repair_turn.user
    assert "repair" in answer.timings


def test_ollama_down_falls_back_with_a_clear_note(db, sample_db_uri) -> None:
    llm = OllamaLLM("http://127.0.0.1:9", "qwen2.5-coder:7b", timeout_s=2)
    pipe = AskPipeline(db, llm, Settings(), today=lambda: TODAY)
    answer = pipe.ask("How many customers are there?")
    assert answer.ok and answer.path == "fallback"
    assert answer.rows[0][0] == 600
    joined = " ".join(answer.notes)
    assert "not reachable" in joined and "fallback" in joined


def test_ollama_down_and_question_beyond_fallback_says_so(db) -> None:
    pipe, _ = make(db, LLMUnavailable("Ollama is not reachable at http://127.0.0.1:9."))
    answer = pipe.ask("Which customers are likely to churn given their ordering rhythm compared to peers?")
    assert not answer.ok and answer.sql is None
    assert answer.error_kind == "NoAnswer" and "could not answer" in (answer.error or "").lower()
    assert answer.hint


def test_statement_timeout_on_heavy_query(db) -> None:
    heavy = "SELECT count(*) FROM generate_series(1, 2000000000) AS g(x)"
    pipe, _ = make(db, heavy, statement_timeout_s=0.5)
    started = time.perf_counter()
    answer = pipe.ask("Count to two billion")
    assert time.perf_counter() - started < 10
    assert not answer.ok and answer.error_kind == "QueryTimeout"
    assert answer.hint and answer.sql is None


def test_cancel_stops_the_query_in_the_database(db, sample_db_uri) -> None:
    heavy = "SELECT count(*) FROM generate_series(1, 2000000000) AS g(x)"
    pipe, _ = make(db, heavy)
    cancel = Cancellation()
    timer = threading.Timer(0.5, cancel.cancel)
    timer.start()
    started = time.perf_counter()
    answer = pipe.ask("Count to two billion", cancel=cancel)
    assert time.perf_counter() - started < 10
    assert answer.error_kind == "QueryCancelled"
    # The database is fine afterwards and nothing of ours still runs there.
    pipe2, _ = make(db, "SELECT 1 AS one")
    assert pipe2.ask("one").rows == ((1,),)
    active = scalar(
        sample_db_uri,
        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%generate_series(1, 2000000000)%' "
        "AND state = 'active' AND pid <> pg_backend_pid()",
    )
    assert active == 0


@pytest.mark.parametrize("question", ["", "   \n\t ", "\x00\x01"])
def test_empty_question(db, question) -> None:
    pipe, llm = make(db)
    answer = pipe.ask(question)
    assert answer.error_kind == "InputError" and answer.hint
    assert llm.history == []


def test_hidden_columns_never_reach_the_model(db) -> None:
    llm = ScriptedLLM("SELECT name FROM customers")
    settings = Settings(hidden={db.id: ["customers.email"]})
    answer = AskPipeline(db, llm, settings, today=lambda: TODAY).ask("customer names")
    assert answer.ok
    assert "email" not in llm.history[0].user


def test_user_sql_goes_through_the_same_guard(db, sample_db_uri) -> None:
    pipe, _ = make(db)
    assert pipe.run_sql("SELECT count(*) FROM customers").rows == ((600,),)
    refused = pipe.run_sql("DELETE FROM customers")
    assert not refused.ok and refused.rejected_sql == "DELETE FROM customers"
    assert scalar(sample_db_uri, "SELECT count(*) FROM customers") == 600


def test_ollama_chat_through_real_client_and_fake_server(db, fake_ollama) -> None:
    fake_ollama.enqueue_chat("```sql\nSELECT count(*) FROM customers WHERE segment = 'wholesale'\n```")
    llm = OllamaLLM(fake_ollama.url, "qwen2.5-coder:7b", timeout_s=10)
    answer = AskPipeline(db, llm, Settings(), today=lambda: TODAY).ask("How many wholesale customers?")
    assert answer.ok and answer.path == "llm" and answer.rows[0][0] > 50
    body = fake_ollama.chat_requests()[0]
    assert body["model"] == "qwen2.5-coder:7b" and body.get("stream") is True  # streamed, so Stop can cut it
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    opts = body["options"]
    assert (opts["temperature"], opts["top_k"], opts["top_p"]) == (0.0, 1, 0.1)
    assert (opts["num_predict"], opts["num_ctx"], opts["repeat_penalty"]) == (400, 4096, 1.0)


def test_model_not_pulled_is_reported(db, fake_ollama) -> None:
    llm = OllamaLLM(fake_ollama.url, "no-such-model:1b", timeout_s=10)
    answer = AskPipeline(db, llm, Settings(), today=lambda: TODAY).ask(
        "Which customers are likely to churn given their ordering rhythm compared to peers?"
    )
    assert not answer.ok
    assert any("ollama pull no-such-model:1b" in n for n in answer.notes)


def test_hidden_column_values_in_a_database_error_never_reach_the_model(db, sample_db_uri) -> None:
    """A whole-row cast fails with an error quoting the row, e-mail included: over a table with a hidden column it
    is refused before it runs (core.sql._hidden); over another table the error's row values still become <value>."""
    with psycopg.connect(sample_db_uri) as conn:
        emails = [r[0] for r in conn.execute("SELECT email FROM customers").fetchall()]
    llm = ScriptedLLM("SELECT CAST(CAST(c AS text) AS integer) FROM customers c ORDER BY customer_id LIMIT 1",
                      "SELECT CAST(CAST(o AS text) AS integer) FROM orders o ORDER BY order_id LIMIT 1",
                      "SELECT name FROM customers ORDER BY customer_id LIMIT 1")
    settings = Settings(hidden={db.id: ["customers.email"]})
    answer = AskPipeline(db, llm, settings, today=lambda: TODAY).ask("first customer")
    assert answer.ok and len(llm.history) == 3
    refused, failed = llm.history[1].user, llm.history[2].user
    assert "whole row of customers" in refused and "name the columns you need" in refused
    assert "integer" in failed and "<value>" in failed  # the error still says what went wrong
    assert not [e for e in emails if e in refused + failed]
