"""Asking a real database through the pipeline with a scripted model, for the evidence tests: the model's first
reply is ``sql``, and every later one (the repair rounds, the review) is ``again`` (``sql`` when not given)."""

from __future__ import annotations

from core.answer import Answer
from core.config import Settings
from core.databases import Database
from core.pipeline import AskPipeline
from tests.fakes.scripted_llm import ScriptedLLM


def ask(db: Database, question: str, sql: str, again: str | None = None) -> Answer:
    again = again or sql
    return AskPipeline(db, ScriptedLLM(sql, again, again, again), Settings()).ask(question)


def rows(db: Database, sql: str) -> list[tuple]:
    """The rows of ``sql`` in the order the database gives them."""
    return [tuple(r) for r in db.execute(sql).rows]


def sorted_rows(db: Database, sql: str) -> list[tuple]:
    return sorted(rows(db, sql))
