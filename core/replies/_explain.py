"""Explain a SQL query in plain words: the local model's short explanation when it gives one, else the reading of
the query's structure (:func:`core.replies._describe.describe_sql`). The SQL is never run to explain it.

The model is asked once, with a small prompt of its own (the SQL and the columns of the tables it names); a model
that is down, slow, stopped or silent costs nothing but the wait, since the structural reading needs no model.
A Stop bound by the caller (``core.llm.cancellable``, or ``cancel`` here) cuts the model call at once.
"""

from __future__ import annotations

import logging
import re
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Literal

import sqlglot
from sqlglot import exp

from core.cancellation import Cancellation
from core.errors import (
    LLMError,
    LLMTimeout,
    LLMUnavailable,
    ModelNotFound,
    QueryCancelled,
)
from core.llm import LLM, cancellable
from core.replies._describe import describe_sql
from core.schema import Schema, Table
from core.text import clean_text

__all__ = ["Explanation", "explain_prompt", "explain_sql"]

logger = logging.getLogger(__name__)

MAX_SQL_CHARS = 8_000  # longer SQL is read from its structure: a small model would lose its thread
MAX_REPLY_CHARS = 1_500
MAX_TABLES = 8
MAX_COLUMNS = 30
EXPLAIN_OPTIONS = {"num_predict": 350}

_SYSTEM = (
    "You explain SQL queries to people who do not read SQL. Answer in plain English, in two to five short "
    "sentences: which data it reads and how tables are joined, which rows it keeps, what it counts or computes, "
    "and how the result is grouped, sorted and limited. Use the table and column names as written. Do not write "
    "SQL or code, do not use lists or markdown, and do not suggest changes."
)
_THINKING = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^```[\w-]*\s*|\s*```$")
_LABEL = re.compile(r"^(explanation|answer)\s*:\s*", re.IGNORECASE)
_LOOKS_LIKE_SQL = re.compile(r"^\s*(select|with)\b[\s\S]*\bfrom\b", re.IGNORECASE)


@dataclass(frozen=True)
class Explanation:
    """What a query does, in words, and where the words came from."""

    text: str
    source: Literal["model", "structure"]
    note: str = ""  # why the structure was read instead of the model's words (empty when the model answered)


def explain_prompt(sql: str, schema: Schema | None) -> tuple[str, str]:
    """(system, user) for the model: the SQL and, from ``schema``, the columns of the tables it names."""
    lines = []
    for table in _tables_named(sql, schema):
        cols = ", ".join(f"{c.name} {c.type}" for c in table.columns[:MAX_COLUMNS])
        more = f", and {len(table.columns) - MAX_COLUMNS} more" if len(table.columns) > MAX_COLUMNS else ""
        lines.append(f"{table.qualified_name}({cols}{more})")
    tables = ("Tables it uses:\n" + "\n".join(lines) + "\n\n") if lines else ""
    dialect = f" ({schema.dialect})" if schema is not None else ""
    return _SYSTEM, f"{tables}SQL{dialect}:\n{sql.strip()}\n\nExplain in plain words what this SQL does."


def explain_sql(sql: str, schema: Schema | None, llm: LLM | None, *, cancel: Cancellation | None = None,
                dialect: str | None = None) -> Explanation:
    """The model's explanation of ``sql``, or its structural reading when the model is unavailable, too slow,
    stopped or gives no words. ``dialect`` is used when there is no ``schema``."""
    structure = describe_sql(sql, schema, dialect=dialect)

    def read(note: str) -> Explanation:
        return Explanation(structure, "structure", note)

    if not sql.strip():
        return read("there is no SQL")
    if llm is None:
        return read("no model is set up")
    if len(sql) > MAX_SQL_CHARS:
        return read("the SQL is too long to send to the model")
    if cancel is not None and cancel.cancelled:
        return read("stopped before the model answered")
    system, user = explain_prompt(sql, schema)
    try:
        with cancellable(cancel) if cancel is not None else nullcontext():  # else keep the caller's binding
            reply = llm.chat(system, user, options=EXPLAIN_OPTIONS)
    except QueryCancelled:
        return read("stopped before the model answered")
    except LLMTimeout:
        return read("the model did not answer in time")
    except ModelNotFound:
        return read("the model is not installed")
    except LLMUnavailable:
        return read("the model is not available")
    except LLMError as exc:
        logger.info("explaining SQL: the model failed: %s", exc)
        return read("the model could not answer")
    text = _clean_reply(reply)
    if not text:
        return read("the model gave no explanation")
    if _LOOKS_LIKE_SQL.match(text):
        return read("the model answered with SQL instead of words")
    return Explanation(text, "model")


def _clean_reply(reply: str) -> str:
    """The model's words: thinking, code fences and a leading label removed; cut at a sentence when long."""
    text = clean_text(_THINKING.sub("", reply or ""))
    text = _LABEL.sub("", _FENCE.sub("", text).strip()).strip()
    if len(text) > MAX_REPLY_CHARS:
        cut = text[:MAX_REPLY_CHARS]
        end = max(cut.rfind(". "), cut.rfind(".\n"))
        text = cut[: end + 1] if end > 0 else cut.rstrip() + "…"
    return text


def _tables_named(sql: str, schema: Schema | None) -> list[Table]:
    """The schema's tables that ``sql`` names (CTE names are not tables), in order, at most MAX_TABLES."""
    if schema is None:
        return []
    try:
        trees = sqlglot.parse(sql, read=schema.dialect)
    except sqlglot.errors.SqlglotError:
        return []
    seen: list[Table] = []
    for tree in trees:
        if tree is None:
            continue
        ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
        for node in tree.find_all(exp.Table):
            if node.name.lower() in ctes and not node.db:
                continue
            table = schema.table(".".join(p for p in (node.db, node.name) if p))
            if table is not None and table not in seen:
                seen.append(table)
    return seen[:MAX_TABLES]
