"""Message routing: question / follow-up vs the memory kinds, on a labelled table and on named cases."""

from __future__ import annotations


import pytest

from bench.classifier import load_rows, score, seed_is_preference
from core.errors import LLMUnavailable
from core.memory import KINDS, Route, classify, is_memory_statement
from tests.fakes.fake_embedder import FakeEmbedder
from tests.fakes.scripted_llm import ScriptedLLM

NAMED = [
    ("Show me what I'm interested in", "question"),
    ("From now on only delivered orders", "preference"),
    ("High value order means total amount over 10000", "terminology"),
    ("Stop showing cancelled orders", "preference"),
    ("I no longer care about India", "forget"),
    ("How many of those were wholesale?", "follow_up"),
    ("I'm only interested in wholesale customers", "preference"),
    ("AOV is revenue divided by orders", "metric"),
    ("Always show me customers from India", "preference"),
    ("Exclude test accounts", "preference"),
    ("GMV = sum of total_amount of delivered orders", "metric"),
    ("By 'big spenders' I mean customers whose total orders exceed 50000", "terminology"),
    ("My key accounts are Acme Corp and Globex", "entity"),
    ("The orders table is what I usually care about", "entity"),
    ("forget the INR rule", "forget"),
    ("Stop filtering by country", "forget"),
    ("And by city?", "follow_up"),
    ("What about last month?", "follow_up"),
    ("I need the list of orders from yesterday", "question"),
]


@pytest.mark.parametrize(("message", "expected"), NAMED)
def test_named_cases(message: str, expected: str) -> None:
    route = classify(message)
    assert route.kind == expected, route.reasons


def test_one_off_requests_are_not_preferences() -> None:
    for message in ("I want to see those by city", "Can you show only the delivered ones?"):
        route = classify(message)
        assert route.kind in {"follow_up", "question"}, (message, route)
        assert not is_memory_statement(route)


STANDING_VS_ONE_OFF = [
    # restrictive 'only': standing unless a one-off cue or an analysis shape says otherwise
    ("Only show me customers from India", "preference"),
    ("Show only customers from India", "preference"),
    ("Only include paid invoices", "preference"),
    ("Only show those from yesterday", "follow_up"),
    ("show only the first 10 rows of that", "follow_up"),
    ("only the top 5 please", "follow_up"),
    ("Only show me the top 5 products by revenue", "question"),
    # presentation settings: generic object -> preference; a data noun or time -> question
    ("Use INR for amounts", "preference"),
    ("Show amounts in INR", "preference"),
    ("Display dates as DD/MM/YYYY", "preference"),
    ("Give me amounts in thousands", "preference"),
    ("Show revenue in INR for last month", "question"),
    ("Show that in INR", "follow_up"),
    # scope: a slice of data -> preference, an area of data -> entity
    ("I care about India", "preference"),
    ("I'm responsible for the APAC region", "preference"),
    ("I mostly look at the invoices table", "entity"),
    ("Which regions am I responsible for?", "question"),
]


@pytest.mark.parametrize(("message", "expected"), STANDING_VS_ONE_OFF)
def test_standing_vs_one_off(message: str, expected: str) -> None:
    route = classify(message)
    assert route.kind == expected, route.reasons


def test_only_after_a_request_verb_is_flagged_uncertain() -> None:
    assert classify("Show only customers from India").uncertain
    assert not classify("Only include paid invoices").uncertain


def test_self_descriptions_stay_out_of_sql_without_asking_a_model() -> None:
    llm = ScriptedLLM("question")
    for message in ("I work in the finance team", "I'm new here", "I am a data analyst"):
        route = classify(message, llm=llm, embedder=FakeEmbedder())
        assert route.kind == "entity" and route.uncertain, (message, route)
    assert llm.history == []
    assert classify("I work in finance and need total expenses for Q2").kind == "question"
    assert classify("I'm new here - what tables do we have?").kind == "question"


def test_is_memory_statement() -> None:
    assert is_memory_statement(Route("metric", False, ()))
    assert is_memory_statement(Route("forget", False, ()))
    assert not is_memory_statement(Route("follow_up", False, ()))
    assert not is_memory_statement(Route("question", True, ()))


def test_routes_are_well_formed() -> None:
    for message in ("", "   ", "?", "Show me revenue", "alwyas show me india customers"):
        route = classify(message)
        assert route.kind in KINDS
        assert isinstance(route.reasons, tuple)
    assert classify("alwyas show me india customers").kind == "preference"  # typo tolerated


def test_dev_accuracy() -> None:
    s = score([r for r in load_rows() if r.split == "dev"])
    assert s.exact >= 0.95, s.errors
    assert s.route >= 0.95


def test_heldout_accuracy() -> None:
    rows = [r for r in load_rows() if r.split == "heldout"]
    assert len(rows) >= 50
    s = score(rows)
    assert s.exact >= 0.9
    assert s.route >= 0.9


def test_table_is_varied_and_beats_the_seed() -> None:
    rows = load_rows()
    assert len(rows) >= 150
    # the rules' seven kinds (chat, meta and refine are the learned router's: tests/test_router.py)
    assert {r.label for r in rows} == set(KINDS) - {"chat", "meta", "refine"}
    seed = sum(seed_is_preference(r.message) == (r.label in {"preference", "terminology", "metric", "entity",
                                                              "forget"}) for r in rows) / len(rows)
    assert score(rows).route > seed + 0.2




def test_embedder_only_consulted_when_unsure_and_never_crosses_data_memory() -> None:
    class CountingEmbedder(FakeEmbedder):
        calls = 0

        def embed_batch(self, texts):  # type: ignore[no-untyped-def]
            CountingEmbedder.calls += 1
            return super().embed_batch(texts)

    emb = CountingEmbedder()
    assert classify("AOV is revenue divided by orders", embedder=emb).kind == "metric"
    assert CountingEmbedder.calls == 0  # sure: no embedding
    route = classify("I'm curious how many refunds we processed in May", embedder=emb)
    assert route.kind == "question"
    for r in load_rows():
        assert (classify(r.message, embedder=emb).kind in {"question", "follow_up"}) == (
            classify(r.message).kind in {"question", "follow_up"}
        )


def test_llm_breaks_ties_within_the_open_options() -> None:
    unsure = "I'd like a breakdown of headcount by gender"  # declarative, no cue: rules say question, unsure
    assert classify(unsure).uncertain
    llm = ScriptedLLM("question")
    route = classify(unsure, llm=llm)
    assert route.kind == "question" and not route.uncertain
    assert len(llm.history) == 1
    sure = ScriptedLLM()
    assert classify("Always exclude test accounts", llm=sure).kind == "preference"
    assert sure.history == []  # never asked when the rules are sure
    weak = "make it a monthly trend"  # data either way; an LLM may only pick question or follow-up
    assert classify(weak, llm=ScriptedLLM("preference")).kind == "follow_up"
    assert classify(weak, llm=ScriptedLLM("question")).kind == "question"


def test_llm_failure_keeps_the_rule_answer() -> None:
    route = classify("I'd like a breakdown of headcount by gender", llm=ScriptedLLM(LLMUnavailable("down")))
    assert route.kind == "question"
    assert route.uncertain
    assert "LLM check failed" in route.reasons


def test_history_strengthens_weak_back_references() -> None:
    assert classify("make it a monthly trend").uncertain
    route = classify("make it a monthly trend", has_history=True)
    assert route.kind == "follow_up" and not route.uncertain
