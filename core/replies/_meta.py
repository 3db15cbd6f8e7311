"""Questions about Cairn itself, the database's structure, the memory bank or the last SQL: answered from what
Cairn already knows (the schema, the person's memories, the conversation), never by running SQL.

Which of the four a message asks about is read from the words it uses (a table or column name, "remember",
"SQL"); when none is clear the reply covers all four briefly, so a wrong pick never leaves the person stuck.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.memory import Memory
from core.replies._describe import read_sql
from core.schema import Schema
from core.text import counted

__all__ = ["MetaContext", "meta_reply"]

MAX_TABLES = 40
MAX_MEMORIES = 30


@dataclass(frozen=True)
class MetaContext:
    schema: Schema | None
    memories: Sequence[Memory] = ()
    last_sql: str | None = None
    database: str = "the database"
    notes: list[str] = field(default_factory=list)


_TOPICS: dict[str, re.Pattern[str]] = {
    "memory": re.compile(r"\b(remember\w*|memor\w+|preferences?|saved|stored|know about me|learn\w*|settings?|"
                         r"filters? (do|have|are)|yaad|rules?)\b", re.IGNORECASE),
    "sql": re.compile(r"\b(sql|query|queries|explain|last (answer|result)|how did you (get|compute|calculate))\b",
                      re.IGNORECASE),
    "schema": re.compile(r"\b(tables?|columns?|fields?|schema|structure|data ?sets?|database|what data)\b",
                         re.IGNORECASE),
    "help": re.compile(r"\b(help|can you|what do you do|how (do|can) i|capabilit\w+|features?)\b", re.IGNORECASE),
}


def _topic(message: str, schema: Schema | None) -> str:
    scores = {name: len(rx.findall(message)) for name, rx in _TOPICS.items()}
    if schema is not None and _named_table(message, schema) is not None:
        scores["schema"] += 1
    best = max(scores, key=lambda k: scores[k])
    return best if scores[best] else "help"


def _named_table(message: str, schema: Schema) -> str | None:
    low = message.lower()
    for t in schema.tables:
        name = t.name.lower()
        if re.search(rf"\b{re.escape(name)}\b", low) or (name.endswith("s") and re.search(rf"\b{re.escape(name[:-1])}\b", low)):
            return t.qualified_name
    return None


def meta_reply(message: str, ctx: MetaContext) -> str:
    topic = _topic(message, ctx.schema)
    if topic == "schema":
        return _schema_text(message, ctx)
    if topic == "memory":
        return _memory_text(ctx)
    if topic == "sql":
        return _sql_text(ctx)
    return _help_text(ctx)


def _schema_text(message: str, ctx: MetaContext) -> str:
    schema = ctx.schema
    if schema is None or not schema.tables:
        return f"I could not read the tables of {ctx.database}."
    named = _named_table(message, schema)
    if named is not None:
        table = schema.table(named)
        assert table is not None
        cols = ", ".join(f"{c.name} ({c.type})" for c in table.columns)
        return f"{table.qualified_name} has {len(table.columns)} columns: {cols}."
    names = [t.qualified_name for t in schema.tables]
    shown = ", ".join(names[:MAX_TABLES]) + (f" and {len(names) - MAX_TABLES} more" if len(names) > MAX_TABLES else "")
    return f"{ctx.database} has {len(names)} tables: {shown}. Ask \"what columns does <table> have?\" for details."


def _memory_text(ctx: MetaContext) -> str:
    if not ctx.memories:
        return ("I have nothing remembered for you here yet. Tell me a preference (\"only show customers from "
                "India\") or a definition (\"a big order is one over 5,000\") and I will keep it.")
    lines = [f"- [{m.category}] {m.content}" for m in ctx.memories[:MAX_MEMORIES]]
    more = f"\n…and {len(ctx.memories) - MAX_MEMORIES} more (see the Memory bank)." if len(ctx.memories) > MAX_MEMORIES else ""
    return f"I remember {counted(len(ctx.memories), 'thing')} for you:\n" + "\n".join(lines) + more


def _sql_text(ctx: MetaContext) -> str:
    if not ctx.last_sql:
        return "There is no previous query to explain yet: ask a question first."
    import sqlglot

    try:
        pretty = sqlglot.transpile(ctx.last_sql, read=ctx.schema.dialect if ctx.schema else None, pretty=True)[0]
    except sqlglot.errors.SqlglotError:
        pretty = ctx.last_sql
    return "The last answer ran this SQL:\n" + pretty + "\n" + _describe(ctx.last_sql, ctx)


def _describe(sql: str, ctx: MetaContext) -> str:
    """A plain reading of the query's parts (tables and joins, conditions, grouping, what it computes, order,
    limit) from its parse tree; empty when it does not parse."""
    return read_sql(sql, ctx.schema) or ""


def _help_text(ctx: MetaContext) -> str:
    return (
        f"I answer questions about {ctx.database} by writing read-only SQL, checking it against the real schema "
        "and running it; you see the rows, the SQL and a chart. I also remember, per person: standing filters "
        "(\"only India\"), settings (\"newest first\", \"amounts in EUR\"), terms (\"a big order is over 5,000\") "
        "and metrics (\"refund rate = returned / all orders\"); say \"forget …\" to drop one. You can also ask "
        "\"which tables are there?\", \"what do you remember about me?\" or \"explain the last SQL\", and edit the "
        "last answer (\"drop the date filter\", \"top 5 instead\")."
    )
