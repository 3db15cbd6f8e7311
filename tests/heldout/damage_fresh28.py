"""Held-out damage generator ``fresh28``: damaged model replies made from gold queries by text edits.

Written from the outside (the harness ``bench/recovery.py``, ``core/schema.py``, the defog / Chinook data and public
write-ups of how small local models and the tools around them fail), without reading Cairn's extraction, checking or
repair code. Family A: the reply as written fails to run, or its SQL is hard to find. Family B: the SQL runs and
answers a different question. Replies are wrapped in varied prose: English, Hindi-English (Hinglish), with typos,
explaining or terse.

| kind                               | fam | what the reply does |
|------------------------------------|-----|---------------------|
| clean                              |  -  | the gold query, fenced, in an ordinary reply |
| hf_pipeline_output_repr            |  A  | the Python repr of a transformers ``pipeline`` result: ``[{'generated_text': '...'}]``, |
|                                    |     | prompt included, the fenced query inside the string with ``\\n`` escapes |
| llama_python_tag_call              |  A  | Llama 3.1 tool syntax: ``<|python_tag|>sql_db_query.call(query="...")<|eom_id|>`` |
| clause_by_clause_blocks            |  A  | a walkthrough: each clause in its own fenced block (SELECT..., FROM..., WHERE...), |
|                                    |     | never put together |
| gradio_chat_history_json           |  A  | a Gradio chatbot history pasted as JSON ``[["user", "bot reply with fence"]]`` |
| vercel_ai_data_stream              |  A  | the raw Vercel AI SDK data stream: ``f:{...}`` then ``0:"chunk"`` lines, ``e:`` / ``d:`` |
| docusaurus_admonition_unfenced     |  A  | the query unfenced inside a ``:::tip`` ... ``:::`` admonition, with a prose line |
| bold_label_fields_reply            |  A  | a "report card" of bold labels: **Dialect:**, **Tables:**, **Query:** (unfenced, |
|                                    |     | multi-line), **Confidence:** |
| jupyter_display_markdown_call      |  A  | a Python cell that renders the query: ``display(Markdown(f"```sql\\n{q}\\n```"))`` |
| streamlit_st_code_call             |  A  | a Streamlit script: the query in a Python string shown with ``st.code`` and run |
| slack_block_kit_json               |  A  | a Slack Block Kit JSON payload, the query in a ``rich_text_preformatted`` element |
| langchain_aimessage_repr           |  A  | a printed LangChain ``AIMessage(content='...```sql\\n...', response_metadata=...)`` |
| group_by_written_partition_by      |  A  | ``PARTITION BY`` written for ``GROUP BY`` (window syntax bleeding into grouping) |
| like_as_function_call              |  A  | Spark-style ``ILIKE(col, 'pat')`` / ``LIKE(col, 'pat')`` (PostgreSQL: no ilike() function; |
|                                    |     | SQLite: ``like(X, Y)`` means ``Y LIKE X`` - runs, wrong rows) |
| count_called_without_argument      |  A  | (PostgreSQL) ``COUNT()`` for ``COUNT(*)``, dplyr ``n()`` habit |
| python_chained_comparison          |  A  | ``'2023-01-01' <= d <= '2023-03-31'`` for BETWEEN / a range pair (SQLite: runs, wrong) |
| sum_of_boolean_comparison          |  A  | (PostgreSQL) MySQL's ``SUM(cond)`` / ``AVG(cond)`` for ``SUM(CASE WHEN cond THEN 1 ...)`` |
| boolean_compared_to_integer        |  A  | (PostgreSQL) a boolean column tested against 1 / 0 (``is_active = 1``) |
| date_column_like_pattern           |  A  | (PostgreSQL) a year / month filter on a date written ``d LIKE '2023-%'`` |
| python_timedelta_interval          |  A  | ``INTERVAL '30 days'`` / ``date('now', '-30 days')`` written with Python's ``timedelta`` |
| over_clause_unparenthesized        |  A  | ``OVER PARTITION BY a ORDER BY b`` with the window's parentheses dropped |
| date_part_unit_unquoted            |  A  | (PostgreSQL) Snowflake-style unquoted units: ``DATE_TRUNC(month, d)``, ``DATE_PART(year, d)`` |
| measure_rescaled_to_assumed_unit   |  B  | a measure shown in a unit nobody asked for: money "stored in cents" ``/ 100.0``, |
|                                    |     | in INR ``* 83`` or in thousands; kg as pounds, cm as inches, km as miles, seconds |
|                                    |     | as minutes, a 5-star rating on a 10-point / percent scale |
| avg_read_as_median                 |  B  | (PostgreSQL) "average" taken as the median, "robust to outliers": |
|                                    |     | ``PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x)`` for ``AVG(x)`` |
| month_start_computed_off_by_one_day | B  | the first of the month computed by subtracting the day number: ``d::date - |
|                                    |     | EXTRACT(DAY FROM d)::int`` / ``date(d, '-' || strftime('%d', d) || ' days')``, |
|                                    |     | the last day of the previous month |
| relative_window_anchored_to_latest_data_date | B | "last 30 days" / "this week" anchored to the table's latest date, |
|                                    |     | ``(SELECT MAX(d) FROM t)``, instead of today ("the data may not be current") |

Family B kinds are applied only where the slip changes the rows: the generator runs the gold and the damaged
query on the schema's database (``schema.database_id``: a SQLite file or a PostgreSQL URI; read-only, 3 s at
most) and skips the question when the rows are the same or the damaged query fails. Where the database cannot
be asked, a family B kind is applied unchecked, except to gold queries whose rows depend on today's date.

Interface (``bench/recovery.py``): ``DAMAGE_KINDS``, ``TREE_KINDS`` (empty: every kind edits the gold's text at
positions found with sqlglot's tokenizer or regular expressions outside string literals), ``Damaged`` and
``damage(gold_sql, schema, kind, seed)``, deterministic per (kind, seed, gold) and never raising (``None`` where a
kind does not apply).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot.tokens import TokenType

__all__ = ["DAMAGE_KINDS", "FAMILY", "TREE_KINDS", "Damaged", "damage"]

FAMILY: dict[str, str] = {
    "hf_pipeline_output_repr": "A",
    "llama_python_tag_call": "A",
    "clause_by_clause_blocks": "A",
    "gradio_chat_history_json": "A",
    "vercel_ai_data_stream": "A",
    "docusaurus_admonition_unfenced": "A",
    "bold_label_fields_reply": "A",
    "jupyter_display_markdown_call": "A",
    "streamlit_st_code_call": "A",
    "slack_block_kit_json": "A",
    "langchain_aimessage_repr": "A",
    "group_by_written_partition_by": "A",
    "like_as_function_call": "A",
    "count_called_without_argument": "A",
    "python_chained_comparison": "A",
    "sum_of_boolean_comparison": "A",
    "boolean_compared_to_integer": "A",
    "date_column_like_pattern": "A",
    "python_timedelta_interval": "A",
    "over_clause_unparenthesized": "A",
    "date_part_unit_unquoted": "A",
    "measure_rescaled_to_assumed_unit": "B",
    "avg_read_as_median": "B",
    "month_start_computed_off_by_one_day": "B",
    "relative_window_anchored_to_latest_data_date": "B",
}
DAMAGE_KINDS: tuple[str, ...] = ("clean", *FAMILY)
TREE_KINDS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Damaged:
    kind: str
    reply: str
    note: str


# ---------------------------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------------------------


def _dialect(schema: Any) -> str:
    name = str(getattr(schema, "dialect", "") or "postgres").lower()
    return name if name in ("postgres", "sqlite", "duckdb", "mysql") else "postgres"


class _Toks:
    """The gold's tokens, each with its parenthesis depth, and the string literals' character spans."""

    def __init__(self, sql: str, dialect: str) -> None:
        self.sql = sql
        self.toks = list(sqlglot.Dialect.get_or_raise(dialect).tokenize(sql))
        self.depth: list[int] = []
        self.match: dict[int, int] = {}
        stack: list[int] = []
        for i, t in enumerate(self.toks):
            if t.token_type == TokenType.R_PAREN:
                if not stack:
                    raise ValueError("unbalanced")
                j = stack.pop()
                self.match[i], self.match[j] = j, i
            self.depth.append(len(stack))
            if t.token_type == TokenType.L_PAREN:
                stack.append(i)
        if stack:
            raise ValueError("unbalanced")
        self.strings = [(t.start, t.end + 1) for t in self.toks if t.token_type == TokenType.STRING]

    def tt(self, i: int) -> Any:
        return self.toks[i].token_type if 0 <= i < len(self.toks) else None

    def low(self, i: int) -> str:
        return self.toks[i].text.lower() if 0 <= i < len(self.toks) else ""

    def s(self, i: int) -> int:
        return self.toks[i].start

    def e(self, i: int) -> int:
        return self.toks[i].end + 1

    def text(self, i: int, j: int) -> str:
        return self.sql[self.s(i):self.e(j)]

    def in_string(self, pos: int) -> bool:
        return any(a <= pos < b for a, b in self.strings)

    def is_word(self, i: int) -> bool:
        if not 0 <= i < len(self.toks):
            return False
        t = self.toks[i]
        if t.token_type in (TokenType.STRING, TokenType.NUMBER):
            return False
        return t.token_type == TokenType.IDENTIFIER or bool(re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", t.text))

    def colref_before(self, i: int) -> int | None:
        """Start index of ``[q.]col`` (or ``f(...)``) that ends at token i (inclusive)."""
        if self.tt(i) == TokenType.R_PAREN:
            j = self.match.get(i)
            if j is None:
                return None
            return j - 1 if self.is_word(j - 1) else j
        if not self.is_word(i):
            return None
        a = i
        while self.tt(a - 1) == TokenType.DOT and self.is_word(a - 2):
            a -= 2
        return a

    def colref_after(self, i: int) -> int | None:
        """End index (inclusive) of ``[q.]col`` starting at token i."""
        if not self.is_word(i) or self.tt(i + 1) == TokenType.L_PAREN:
            return None
        b = i
        while self.tt(b + 1) == TokenType.DOT and self.is_word(b + 2):
            b += 2
        return b


def _apply(sql: str, edits: list[tuple[int, int, str]]) -> str:
    out = sql
    last = len(sql) + 1
    for s, e, r in sorted(edits, key=lambda x: (x[0], x[1]), reverse=True):
        if e > last:
            raise ValueError("overlapping edits")
        out = out[:s] + r + out[e:]
        last = s
    return out


def _norm(sql: str) -> str:
    return re.sub(r"\s+", " ", sql.strip().rstrip(";").strip()).lower()


def _sub_outside_strings(pattern: re.Pattern[str], sql: str, tk: _Toks, repl: Callable[[re.Match[str]], str | None],
                         limit: int = 99) -> str:
    edits = []
    for m in pattern.finditer(sql):
        if tk.in_string(m.start()):
            continue
        r = repl(m)
        if r is None:
            continue
        if edits and m.start() < edits[-1][1]:
            continue
        edits.append((m.start(), m.end(), r))
        if len(edits) >= limit:
            break
    return _apply(sql, edits) if edits else sql


def _tables(schema: Any) -> list[Any]:
    try:
        return list(schema.tables)
    except Exception:  # noqa: BLE001
        return []


def _col_types(schema: Any, sql: str) -> dict[str, str]:
    """Lower-case column name -> lower-case type, for the tables the query names."""
    low = sql.lower()
    out: dict[str, str] = {}
    for t in _tables(schema):
        if re.search(r"\b" + re.escape(t.name.lower()) + r"\b", low):
            for c in t.columns:
                out.setdefault(c.name.lower(), str(c.type or "").lower())
    return out


# ---------------------------------------------------------------------------------------------------------------
# prose
# ---------------------------------------------------------------------------------------------------------------

_INTROS = (
    "Here is the SQL query for your question:", "Sure, this query answers it:", "You can use the following query:",
    "Below query should work.", "Okay! Try this one:", "Here's one way to do it:", "Answer:",
    "Yeh raha aapka query:", "Haan ji, yeh SQL chalao:", "Is query se answer mil jayega:",
    "Bilkul, neeche dekhiye:", "Aapke sawaal ke liye query:", "Chalo, isko run karo:",
    "Heres the querry you need:", "Sure thing, tihs should do it:", "Try below SQl:",
    "Yeh query try karo, shayad kaam kar jaye:", "SQL:", "",
)
_OUTROS = (
    "", "", "", "Let me know if you need anything else!", "Koi issue ho toh batana.", "Hope it helps :)",
    "Isse exact output milega.", "Adjust the filters if your data is different.", "Run karke check kar lena.",
    "This returns the rows you aksed for.", "Agar error aaye toh bata dena, fix kar denge.", "Thanks!",
)


def _explain(rng: random.Random, sql: str) -> str:
    if rng.random() < 0.5:
        return ""
    names = re.findall(r"(?i)\b(?:from|join)\s+([A-Za-z_][\w.]*)", sql)
    names = [n for n in dict.fromkeys(names) if n.lower() not in ("select", "lateral")]
    if not names:
        return ""
    if rng.random() < 0.5:
        out = f"It reads from `{names[0]}`"
        if len(names) > 1:
            out += " and joins " + ", ".join(f"`{n}`" for n in names[1:3])
        if re.search(r"(?i)\bgroup by\b", sql):
            out += ", grouping the results"
        return out + "."
    out = f"Isme `{names[0]}` se data liya hai"
    if len(names) > 1:
        out += ", aur " + " aur ".join(f"`{n}`" for n in names[1:3]) + " ke saath join kiya"
    return out + "."


def _lang(rng: random.Random, dialect: str) -> str:
    return rng.choice(("sql", "sql", "SQL", "", "postgresql" if dialect == "postgres" else "sqlite"))


def _reply(rng: random.Random, sql: str, dialect: str, extra: str = "") -> str:
    head = " ".join(p for p in (rng.choice(_INTROS), extra) if p)
    body = f"```{_lang(rng, dialect)}\n{sql.strip()}\n```"
    tail = " ".join(p for p in (_explain(rng, sql), rng.choice(_OUTROS)) if p)
    return "\n\n".join(p for p in (head, body, tail) if p)


_QUESTIONY = (
    "Generate a SQL query that answers the user's question using the schema below.",
    "### Task\nWrite a SQL query for the question.\n### Database schema\n(see tables)",
    "You are a SQL expert. Answer with a SQL query only.",
)


# ---------------------------------------------------------------------------------------------------------------
# family A: layouts
# ---------------------------------------------------------------------------------------------------------------


def _hf_pipeline_output_repr(gold: str, dialect: str, rng: random.Random) -> tuple[str, str] | None:
    prompt = rng.choice(_QUESTIONY)
    gen = f"{prompt}\n### Answer\n```sql\n{gold}\n```"
    if rng.random() < 0.4:
        gen += "\n" + rng.choice(("Yeh query sahi result degi.", "This query returns the requested data."))
    out = repr([{"generated_text": gen}])
    head = rng.choice(("Output:", ">>> print(outputs)", "Pipeline ka output yeh aaya:", "Result from the model:",
                       "Here's what the pipeline returned:", ""))
    body = out if rng.random() < 0.5 else f">>> outputs = pipe(prompt, max_new_tokens=256)\n>>> outputs\n{out}"
    return "\n".join(p for p in (head, body) if p), "transformers pipeline output repr, fence escaped inside it"


def _llama_python_tag_call(gold: str, dialect: str, rng: random.Random) -> tuple[str, str] | None:
    q = re.sub(r"\s+", " ", gold).strip()
    fn = rng.choice(("sql_db_query", "run_sql", "execute_query", "query_database"))
    arg = rng.choice(("query", "sql", "sql_query"))
    call = f"<|python_tag|>{fn}.call({arg}=\"{q.replace(chr(34), chr(92) + chr(34))}\")"
    tail = rng.choice(("<|eom_id|>", "<|eom_id|>", "<|eot_id|>", ""))
    return call + tail, "Llama 3.1 built-in tool call with the query as its argument"


_CLAUSE_RE = re.compile(r"(?i)\b(FROM|WHERE|GROUP\s+BY|HAVING|ORDER\s+BY|LIMIT)\b")
_STEP_WORDS = {
    "select": ("Pehle columns select karo:", "First, pick the columns:", "Step 1 - SELECT part:"),
    "with": ("Pehle ek CTE banate hain:", "First define the helper CTE:", "Step 1 - the WITH part:"),
    "from": ("Phir table batao:", "Then the source table(s):", "Next, the FROM clause:"),
    "where": ("Ab filter lagao:", "Now filter the rows:", "Add the condition:"),
    "group": ("Group karo:", "Then group it:", "Grouping:"),
    "having": ("Group pe filter:", "Filter the groups:", "HAVING part:"),
    "order": ("Sort karo:", "Sort the output:", "Ordering:"),
    "limit": ("Aur limit lagao:", "Finally limit it:", "Limit:"),
}


def _top_level_splits(gold: str, tk: _Toks) -> list[int]:
    """Character positions of the main query's clause keywords (depth 0, outside strings)."""
    starts = []
    main = None
    for i, t in enumerate(tk.toks):
        if tk.depth[i] == 0 and t.token_type == TokenType.SELECT:
            main = i
    for i, t in enumerate(tk.toks):
        if tk.depth[i] != 0:
            continue
        if t.token_type == TokenType.SELECT and i == main and i > 0:
            starts.append(t.start)
        if main is not None and i > main and t.token_type in (TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY,
                                                              TokenType.HAVING, TokenType.ORDER_BY, TokenType.LIMIT):
            starts.append(t.start)
    return starts


def _clause_by_clause_blocks(gold: str, dialect: str, rng: random.Random, tk: _Toks) -> tuple[str, str] | None:
    cuts = _top_level_splits(gold, tk)
    if not cuts:
        return None
    bounds = [0, *cuts, len(gold)]
    pieces = [gold[a:b].strip().rstrip(";") for a, b in zip(bounds, bounds[1:]) if gold[a:b].strip()]
    if len(pieces) < 2:
        return None
    parts = [rng.choice(("Chaliye step by step query banate hain.", "Let's build the query step by step.",
                         "I'll break it down clause by clause:", "Samjhane ke liye har part alag se likha hai:"))]
    for n, p in enumerate(pieces, 1):
        key = p.split(None, 1)[0].lower()
        label = rng.choice(_STEP_WORDS.get(key, ("Next:", "Phir:", "Then:")))
        parts.append(f"**{n}.** {label}\n```{_lang(rng, dialect)}\n{p}\n```")
    parts.append(rng.choice(("In sab parts ko combine karo aur run karo.", "Put these together and run it.",
                             "Combine all the above pieces to get the final query.", "Bas, ho gaya!")))
    return "\n\n".join(parts), "each clause in its own fenced block, never assembled"


def _gradio_chat_history_json(gold: str, dialect: str, rng: random.Random) -> tuple[str, str] | None:
    user = rng.choice(("sql query likho please", "write the query", "iska sql kya hoga?", "need SQL for this"))
    bot = _reply(rng, gold, dialect)
    hist = [[user, bot]]
    if rng.random() < 0.4:
        hist.insert(0, ["hi", rng.choice(("Hello! How can I help you today?", "Namaste! Kya madad karu?"))])
    text = json.dumps(hist, ensure_ascii=False, indent=rng.choice((None, 2)))
    head = rng.choice(("Chat history (exported):", "", "history.json:", "Gradio se copy kiya:"))
    return "\n".join(p for p in (head, text) if p), "Gradio chatbot history JSON with the reply as a string"


def _vercel_ai_data_stream(gold: str, dialect: str, rng: random.Random) -> tuple[str, str] | None:
    text = _reply(rng, gold, dialect)
    chunks = []
    i = 0
    while i < len(text):
        n = rng.randint(3, 14)
        chunks.append(text[i:i + n])
        i += n
    mid = "msg-" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(16))
    lines = [f'f:{{"messageId":"{mid}"}}']
    lines += [f"0:{json.dumps(c, ensure_ascii=False)}" for c in chunks]
    toks = len(text) // 4
    lines.append(f'e:{{"finishReason":"stop","usage":{{"promptTokens":{rng.randint(300, 900)},'
                 f'"completionTokens":{toks}}},"isContinued":false}}')
    lines.append(f'd:{{"finishReason":"stop","usage":{{"promptTokens":0,"completionTokens":{toks}}}}}')
    return "\n".join(lines), "raw Vercel AI SDK data stream lines"


def _docusaurus_admonition_unfenced(gold: str, dialect: str, rng: random.Random) -> tuple[str, str] | None:
    kind = rng.choice(("tip", "note", "info", "tip Query"))
    head = rng.choice(("Yeh query use karo:", "The query:", "Here you go -", ""))
    lead = rng.choice(("Run this against your database.", "Is query ko chalao, result mil jayega.",
                       "Use this query (tested on sample data)."))
    tail = rng.choice(("", "Koi doubt ho toh batao.", "Let me know if it works."))
    body = f":::{kind}\n{lead}\n\n{gold}\n:::"
    return "\n\n".join(p for p in (head, body, tail) if p), "query unfenced inside a Docusaurus admonition"


def _bold_label_fields_reply(gold: str, dialect: str, rng: random.Random) -> tuple[str, str] | None:
    names = list(dict.fromkeys(re.findall(r"(?i)\b(?:from|join)\s+([A-Za-z_][\w.]*)", gold)))
    d = "PostgreSQL" if dialect == "postgres" else "SQLite"
    conf = f"{rng.uniform(0.7, 0.98):.2f}"
    lines = [f"**Dialect:** {d}", f"**Tables used:** {', '.join(names[:4]) or '-'}", f"**Query:** {gold}",
             f"**Confidence:** {conf}"]
    if rng.random() < 0.5:
        lines.append("**Explanation:** " + rng.choice((
            "Filters and aggregates as the question asks.", "Question ke hisaab se filter aur aggregate kiya hai.",
            "Joins the needed tables and computes the result.")))
    return "\n".join(lines), "bold-label fields, the query unfenced after **Query:**"


def _jupyter_display_markdown_call(gold: str, dialect: str, rng: random.Random) -> tuple[str, str] | None:
    var = rng.choice(("query", "sql", "q"))
    code = (f"from IPython.display import Markdown, display\n\n{var} = \"\"\"\n{gold}\n\"\"\"\n"
            f"display(Markdown(f\"```sql\\n{{{var}}}\\n```\"))")
    head = rng.choice(("Notebook mein aise dikhao:", "In a notebook you can render it like this:",
                       "Jupyter cell:", "You can display the query nicely with:"))
    return f"{head}\n\n```python\n{code}\n```", "a Jupyter cell that renders the query as Markdown"


def _streamlit_st_code_call(gold: str, dialect: str, rng: random.Random) -> tuple[str, str] | None:
    var = rng.choice(("query", "sql_query", "SQL"))
    code = (f"import streamlit as st\n\n{var} = \"\"\"\n{gold}\n\"\"\"\n"
            f"st.subheader(\"Generated SQL\")\nst.code({var}, language=\"sql\")\n"
            f"df = conn.query({var})\nst.dataframe(df)")
    head = rng.choice(("Streamlit app mein aise use karo:", "Here's how to show and run it in your Streamlit app:",
                       "app.py:", "Yeh code apne app mein daal do:"))
    return f"{head}\n\n```python\n{code}\n```", "the query inside a Streamlit script (st.code / conn.query)"


def _slack_block_kit_json(gold: str, dialect: str, rng: random.Random) -> tuple[str, str] | None:
    intro = rng.choice(("Here is the query:", "Yeh raha SQL:", "Query ready hai :white_check_mark:"))
    blocks = {"blocks": [
        {"type": "section", "text": {"type": "mrkdwn", "text": intro}},
        {"type": "rich_text", "elements": [{"type": "rich_text_preformatted",
                                             "elements": [{"type": "text", "text": gold}]}]},
    ]}
    if rng.random() < 0.5:
        blocks["blocks"].append({"type": "context", "elements": [
            {"type": "mrkdwn", "text": rng.choice(("Generated by sql-bot", "model: qwen2.5-coder:7b"))}]})
    text = json.dumps(blocks, indent=rng.choice((None, 2)), ensure_ascii=False)
    return text, "Slack Block Kit payload with the query in a preformatted element"


def _langchain_aimessage_repr(gold: str, dialect: str, rng: random.Random) -> tuple[str, str] | None:
    content = _reply(rng, gold, dialect)
    model = rng.choice(("qwen2.5-coder:7b", "llama3.1:8b", "deepseek-coder:6.7b", "codegemma:7b"))
    meta = (f"response_metadata={{'model': '{model}', 'done': True, 'done_reason': 'stop', "
            f"'eval_count': {rng.randint(60, 400)}}}")
    rid = "run-" + "".join(rng.choice("0123456789abcdef") for _ in range(8))
    text = f"AIMessage(content={content!r}, additional_kwargs={{}}, {meta}, id='{rid}-0')"
    head = rng.choice(("", ">>> llm.invoke(prompt)", "print(response) ka output:", "Output:"))
    return "\n".join(p for p in (head, text) if p), "a LangChain AIMessage repr, the reply escaped inside it"


# ---------------------------------------------------------------------------------------------------------------
# family A: slips
# ---------------------------------------------------------------------------------------------------------------


def _group_by_written_partition_by(gold: str, tk: _Toks, schema: Any, dialect: str, rng: random.Random) -> str | None:
    edits = [(t.start, t.end + 1, "PARTITION BY") for t in tk.toks if t.token_type == TokenType.GROUP_BY]
    if not edits:
        return None
    if len(edits) > 1 and rng.random() < 0.5:
        edits = [rng.choice(edits)]
    return _apply(gold, edits)


def _like_as_function_call(gold: str, tk: _Toks, schema: Any, dialect: str, rng: random.Random) -> str | None:
    edits = []
    for i, t in enumerate(tk.toks):
        if t.token_type not in (TokenType.LIKE, TokenType.ILIKE):
            continue
        if dialect == "postgres" and t.token_type == TokenType.LIKE:
            continue  # PostgreSQL has a like(text, text) function: that call runs right
        if tk.tt(i + 1) == TokenType.STRING:
            r_end = i + 1
        elif tk.is_word(i + 1) and tk.tt(i + 2) == TokenType.L_PAREN:
            r_end = tk.match[i + 2]
        else:
            continue
        neg = tk.tt(i - 1) == TokenType.NOT
        last = i - 2 if neg else i - 1
        a = tk.colref_before(last)
        if a is None:
            continue
        fn = t.text.upper()
        rep = f"{'NOT ' if neg else ''}{fn}({tk.text(a, last)}, {tk.text(i + 1, r_end)})"
        edits.append((tk.s(a), tk.e(r_end), rep))
    if not edits:
        return None
    return _apply(gold, edits)


_COUNT_STAR = re.compile(r"(?i)\bcount\s*\(\s*(\*|1)\s*\)")


def _count_called_without_argument(gold: str, tk: _Toks, schema: Any, dialect: str, rng: random.Random) -> str | None:
    if dialect != "postgres":
        return None  # SQLite's count() is COUNT(*)
    return _sub_outside_strings(_COUNT_STAR, gold, tk, lambda m: m.group(0)[:5] + "()")


def _operand_before(tk: _Toks, i: int) -> int | None:
    return tk.colref_before(i)


def _literal_at(tk: _Toks, i: int) -> int | None:
    """End index of a simple literal operand starting at i: 'x', 12, '...'::date, DATE '...'."""
    if tk.tt(i) in (TokenType.STRING, TokenType.NUMBER):
        j = i
        if tk.tt(j + 1) == TokenType.DCOLON and tk.is_word(j + 2):
            j += 2
        return j
    if tk.low(i) in ("date", "timestamp") and tk.tt(i + 1) == TokenType.STRING:
        return i + 1
    return None


def _python_chained_comparison(gold: str, tk: _Toks, schema: Any, dialect: str, rng: random.Random) -> str | None:
    edits = []
    n = len(tk.toks)
    for i in range(n):
        if tk.tt(i) == TokenType.BETWEEN and tk.tt(i - 1) != TokenType.NOT:
            a = _operand_before(tk, i - 1)
            lo_end = _literal_at(tk, i + 1)
            if a is None or lo_end is None or tk.tt(lo_end + 1) != TokenType.AND:
                continue
            hi_end = _literal_at(tk, lo_end + 2)
            if hi_end is None:
                continue
            x = tk.text(a, i - 1)
            rep = f"{tk.text(i + 1, lo_end)} <= {x} <= {tk.text(lo_end + 2, hi_end)}"
            edits.append((tk.s(a), tk.e(hi_end), rep))
        elif tk.tt(i) in (TokenType.GTE, TokenType.GT):
            a = _operand_before(tk, i - 1)
            lo_end = _literal_at(tk, i + 1)
            if a is None or lo_end is None or tk.tt(lo_end + 1) != TokenType.AND:
                continue
            x = tk.text(a, i - 1)
            b = lo_end + 2
            be = tk.colref_after(b) if tk.tt(b) != TokenType.L_PAREN else None
            if be is None or _norm(tk.text(b, be)) != _norm(x) or tk.tt(be + 1) not in (TokenType.LT, TokenType.LTE):
                continue
            hi_end = _literal_at(tk, be + 2)
            if hi_end is None:
                continue
            lo_op = "<=" if tk.tt(i) == TokenType.GTE else "<"
            rep = f"{tk.text(i + 1, lo_end)} {lo_op} {x} {tk.toks[be + 1].text} {tk.text(be + 2, hi_end)}"
            edits.append((tk.s(a), tk.e(hi_end), rep))
    if not edits:
        return None
    return _apply(gold, edits)


_CASE_IND = re.compile(r"(?is)\b(sum|count|avg)\s*\(\s*case\s+when\s+(.+?)\s+then\s+1(?:\.0)?\s+(?:else\s+0(?:\.0)?\s+)?end\s*\)")


def _balanced(s: str) -> bool:
    d = 0
    for ch in s:
        d += ch == "("
        d -= ch == ")"
        if d < 0:
            return False
    return d == 0


def _sum_of_boolean_comparison(gold: str, tk: _Toks, schema: Any, dialect: str, rng: random.Random) -> str | None:
    if dialect != "postgres":
        return None  # SQLite sums 0/1 comparisons fine

    def repl(m: re.Match[str]) -> str | None:
        cond = m.group(2)
        if not _balanced(cond) or re.search(r"(?i)\b(case|when|then)\b", cond):
            return None
        fn = m.group(1).upper()
        fn = "SUM" if fn == "COUNT" else fn
        return f"{fn}({cond})"

    return _sub_outside_strings(_CASE_IND, gold, tk, repl)


def _boolean_compared_to_integer(gold: str, tk: _Toks, schema: Any, dialect: str, rng: random.Random) -> str | None:
    if dialect != "postgres":
        return None
    types = _col_types(schema, gold)
    bools = {c for c, t in types.items() if t.startswith("bool")}
    if not bools:
        return None
    edits = []
    for i, t in enumerate(tk.toks):
        if not tk.is_word(i) or tk.low(i) not in bools or tk.tt(i + 1) in (TokenType.DOT, TokenType.L_PAREN):
            continue
        a = tk.colref_before(i)
        if a is None:
            continue
        nx = tk.tt(i + 1)
        if nx in (TokenType.EQ, TokenType.NEQ) and tk.low(i + 2) in ("true", "false"):
            val = "1" if tk.low(i + 2) == "true" else "0"
            edits.append((tk.s(i + 2), tk.e(i + 2), val))
        elif nx == TokenType.IS and tk.low(i + 2) in ("true", "false"):
            val = "1" if tk.low(i + 2) == "true" else "0"
            edits.append((tk.s(i + 1), tk.e(i + 2), "= " + val))
        elif nx == TokenType.IS and tk.tt(i + 2) == TokenType.NOT and tk.low(i + 3) in ("true", "false"):
            val = "1" if tk.low(i + 3) == "true" else "0"
            edits.append((tk.s(i + 1), tk.e(i + 3), "<> " + val))
        elif tk.tt(a - 1) in (TokenType.WHERE, TokenType.AND, TokenType.OR, TokenType.WHEN, TokenType.NOT,
                              TokenType.L_PAREN) and nx in (None, TokenType.AND, TokenType.OR, TokenType.THEN,
                                                            TokenType.R_PAREN, TokenType.GROUP_BY, TokenType.ORDER_BY,
                                                            TokenType.LIMIT, TokenType.SEMICOLON):
            if tk.tt(a - 1) == TokenType.NOT:
                edits.append((tk.s(a - 1), tk.e(i), f"{tk.text(a, i)} = 0"))
            elif tk.tt(a - 1) == TokenType.L_PAREN and tk.is_word(a - 2):
                continue  # a function's argument
            else:
                edits.append((tk.s(a), tk.e(i), f"{tk.text(a, i)} = 1"))
        elif tk.tt(a - 1) == TokenType.SELECT or tk.tt(a - 1) == TokenType.COMMA:
            continue
    if not edits:
        return None
    return _apply(gold, edits)


_EXTRACT_YEAR = re.compile(r"(?i)\b(?:extract\s*\(\s*(year|month)\s+from\s+([\w.]+)\s*\)|date_part\s*\(\s*'(year|month)'\s*,\s*([\w.]+)\s*\))\s*=\s*'?(\d{1,4})'?")
_DATE_BETWEEN = re.compile(r"(?i)([\w.]+)\s+between\s+'(\d{4})-(\d{2})-(\d{2})'\s+and\s+'(\d{4})-(\d{2})-(\d{2})'")
_DATE_RANGE = re.compile(r"(?i)([\w.]+)\s*>=\s*'(\d{4})-(\d{2})-(\d{2})'(?:::date|::timestamp)?\s+and\s+([\w.]+)\s*<\s*'(\d{4})-(\d{2})-(\d{2})'(?:::date|::timestamp)?")


def _date_column_like_pattern(gold: str, tk: _Toks, schema: Any, dialect: str, rng: random.Random) -> str | None:
    if dialect != "postgres":
        return None  # SQLite dates are text: LIKE works there
    years: dict[str, str] = {}

    def ext(m: re.Match[str]) -> str | None:
        unit = (m.group(1) or m.group(3)).lower()
        col = m.group(2) or m.group(4)
        v = m.group(5)
        if unit == "year" and len(v) == 4:
            years[col] = v
            return f"{col} LIKE '{v}-%'"
        if unit == "month" and len(v) <= 2:
            return f"{col} LIKE '%-{int(v):02d}-%'"
        return None

    def btw(m: re.Match[str]) -> str | None:
        col, y1, m1, d1, y2, m2, d2 = m.groups()
        if y1 != y2:
            return None
        if m1 == "01" and d1 == "01" and m2 == "12" and d2 == "31":
            return f"{col} LIKE '{y1}-%'"
        if m1 == m2 and d1 == "01":
            return f"{col} LIKE '{y1}-{m1}-%'"
        return None

    def rng_(m: re.Match[str]) -> str | None:
        col, y1, m1, d1, col2, y2, m2, d2 = m.groups()
        if col.lower() != col2.lower() or d1 != "01" or d2 != "01":
            return None
        if m1 == "01" and m2 == "01" and int(y2) == int(y1) + 1:
            return f"{col} LIKE '{y1}-%'"
        if y1 == y2 and int(m2) == int(m1) + 1 or (m1 == "12" and m2 == "01" and int(y2) == int(y1) + 1):
            return f"{col} LIKE '{y1}-{m1}-%'"
        return None

    out = _sub_outside_strings(_EXTRACT_YEAR, gold, tk, ext)
    tk2 = _Toks(out, dialect)
    out = _sub_outside_strings(_DATE_BETWEEN, out, tk2, btw)
    tk3 = _Toks(out, dialect)
    out = _sub_outside_strings(_DATE_RANGE, out, tk3, rng_)
    return out


_PG_INTERVAL = re.compile(r"(?i)\binterval\s*'\s*(\d+)\s*(day|days|month|months|year|years|week|weeks|hour|hours)?\s*'(?:\s*(day|month|year|week|hour)s?\b)?")
_SQLITE_MOD = re.compile(r"(?i)\b(date|datetime)\s*\(\s*'now'\s*,\s*'([+-])\s*(\d+)\s*(day|days|month|months|year|years)'\s*\)")


def _td(n: str, unit: str) -> str:
    unit = unit.lower().rstrip("s") + "s"
    if unit in ("months", "years"):
        return f"relativedelta({unit}={n})"
    return f"timedelta({unit}={n})"


def _python_timedelta_interval(gold: str, tk: _Toks, schema: Any, dialect: str, rng: random.Random) -> str | None:
    if dialect == "postgres":
        def pg(m: re.Match[str]) -> str | None:
            unit = m.group(2) or m.group(3)
            return _td(m.group(1), unit) if unit else None
        return _sub_outside_strings(_PG_INTERVAL, gold, tk, pg)

    def sq(m: re.Match[str]) -> str | None:
        fn, sign, n, unit = m.groups()
        return f"{fn}('now') {sign} {_td(n, unit)}"

    edits = []
    for m in _SQLITE_MOD.finditer(gold):  # the modifiers are strings themselves
        r = sq(m)
        if r:
            edits.append((m.start(), m.end(), r))
    return _apply(gold, edits) if edits else None


def _over_clause_unparenthesized(gold: str, tk: _Toks, schema: Any, dialect: str, rng: random.Random) -> str | None:
    edits = []
    for i, t in enumerate(tk.toks):
        if tk.low(i) == "over" and tk.tt(i + 1) == TokenType.L_PAREN:
            j = tk.match.get(i + 1)
            if j is None or j == i + 2:
                continue
            edits.append((tk.s(i + 1), tk.e(i + 1), ""))
            edits.append((tk.s(j), tk.e(j), ""))
    if not edits:
        return None
    out = _apply(gold, edits)
    return re.sub(r"(?i)\bover\s*(?=partition|order)", "OVER ", out)


_DT_UNIT = re.compile(r"(?i)\b(date_trunc|date_part)\s*\(\s*'(\w+)'\s*,")
_EXTRACT = re.compile(r"(?i)\bextract\s*\(\s*(\w+)\s+from\s+")


def _date_part_unit_unquoted(gold: str, tk: _Toks, schema: Any, dialect: str, rng: random.Random) -> str | None:
    if dialect != "postgres":
        return None
    edits = []
    for m in _DT_UNIT.finditer(gold):
        if not tk.in_string(m.start()):
            edits.append((m.start(), m.end(), f"{m.group(1).upper()}({m.group(2).lower()},"))
    for m in _EXTRACT.finditer(gold):
        if tk.in_string(m.start()) or m.group(1).lower() == "epoch" and rng.random() < 0.5:
            continue
        # EXTRACT(YEAR FROM x) -> DATE_PART(year, x): find the closing parenthesis
        depth, k = 1, m.end()
        while k < len(gold) and depth:
            depth += gold[k] == "("
            depth -= gold[k] == ")"
            k += 1
        if depth:
            continue
        inner = gold[m.end():k - 1]
        edits.append((m.start(), k, f"DATE_PART({m.group(1).lower()}, {inner})"))
    if not edits:
        return None
    return _apply(gold, edits)


def _select_items(tk: _Toks) -> tuple[int, int, list[tuple[int, int]]] | None:
    """(SELECT index, FROM index, [(a, b) token spans of items]) of the main query at depth 0."""
    sel = None
    for i, t in enumerate(tk.toks):
        if tk.depth[i] == 0 and t.token_type == TokenType.SELECT:
            sel = i
    if sel is None:
        return None
    frm = next((i for i in range(sel + 1, len(tk.toks)) if tk.depth[i] == 0 and tk.tt(i) == TokenType.FROM), None)
    if frm is None:
        return None
    a = sel + 1
    if tk.tt(a) == TokenType.DISTINCT:
        a += 1
    items, cur = [], a
    for i in range(a, frm):
        if tk.depth[i] == 0 and tk.tt(i) == TokenType.COMMA:
            items.append((cur, i - 1))
            cur = i + 1
    items.append((cur, frm - 1))
    return sel, frm, [(x, y) for x, y in items if x <= y]


_AGG_RE = re.compile(r"(?i)\b(count|sum|avg|min|max)\s*\(")


_CMP_TYPES = (TokenType.EQ, TokenType.NEQ, TokenType.GT, TokenType.GTE, TokenType.LT, TokenType.LTE)

# ---------------------------------------------------------------------------------------------------------------
# family B: a bounded check on the data (the slip must change the rows)
# ---------------------------------------------------------------------------------------------------------------

_DB: dict[str, Any] = {}
_ROWS: dict[tuple[str, str], Any] = {}
_MISSING = object()


def _db(schema: Any) -> Any:
    """A read-only connection to the schema's database (SQLite file or PostgreSQL URI), or None."""
    dbid = str(getattr(schema, "database_id", "") or "")
    if dbid in _DB:
        return _DB[dbid]
    conn = None
    try:
        if dbid.startswith("sqlite:///"):
            import sqlite3

            conn = sqlite3.connect(f"file:{dbid[len('sqlite:///'):]}?mode=ro", uri=True, check_same_thread=False)
        elif dbid.startswith(("postgresql://", "postgres://")):
            import psycopg

            rest = dbid.split("://", 1)[1]
            user, _, hostpart = rest.rpartition("@")
            hostport, _, dbname = hostpart.rpartition("/")
            host, _, port = hostport.rpartition(":")
            if not host or not port.isdigit():
                host, port = hostport, ""
            kw: dict[str, Any] = {"dbname": dbname, "autocommit": True, "connect_timeout": 5}
            if user:
                kw["user"] = user.split(":", 1)[0]
            if host:
                kw["host"] = host
            if port:
                kw["port"] = int(port)
            conn = psycopg.connect(**kw)
    except Exception:  # noqa: BLE001 - no check possible
        conn = None
    _DB[dbid] = conn
    return conn


def _run(conn: Any, sql: str) -> list[tuple[Any, ...]] | None:
    try:
        import sqlite3

        if isinstance(conn, sqlite3.Connection):
            import time

            deadline = time.monotonic() + 3
            conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
            cur = conn.execute(sql)
            return [tuple(r) for r in cur.fetchmany(50_001)] if cur.description else None
        with conn.transaction():
            conn.execute("SET TRANSACTION READ ONLY")
            conn.execute("SET LOCAL statement_timeout = '3s'")
            cur = conn.execute(sql)
            return [tuple(r) for r in cur.fetchmany(50_001)] if cur.description else None
    except Exception:  # noqa: BLE001
        return None


def _canon(rows: list[tuple[Any, ...]]) -> list[str]:
    def v(x: Any) -> str:
        if isinstance(x, bool) or x is None:
            return repr(x)
        if isinstance(x, (int, float)) or type(x).__name__ == "Decimal":
            f = float(x)
            return f"{f:.4g}" if f == f and abs(f) != float("inf") else str(f)
        return str(x)
    return sorted("|".join(v(x) for x in r) for r in rows)


def _differs(schema: Any, gold: str, new: str) -> bool | None:
    """True when ``new`` runs and its rows differ from the gold's; False when they are the same or it fails;
    None when the database cannot be asked."""
    conn = _db(schema)
    if conn is None:
        return None
    dbid = str(getattr(schema, "database_id", ""))
    out = []
    for sql in (gold, new):
        key = (dbid, sql)
        if key not in _ROWS:
            _ROWS[key] = _run(conn, sql)
        out.append(_ROWS[key])
    a, b = out
    if b is None:
        return False
    if a is None:
        return None
    return _canon(a) != _canon(b)


# ---------------------------------------------------------------------------------------------------------------
# family B: slips
# ---------------------------------------------------------------------------------------------------------------


def _aliases(tk: _Toks, schema: Any) -> dict[str, Any]:
    """alias / table name (lower case) -> schema Table, for the tables the query names."""
    out: dict[str, Any] = {}
    for i, t in enumerate(tk.toks):
        if t.token_type not in (TokenType.FROM, TokenType.JOIN):
            continue
        j = i + 1
        if not tk.is_word(j):
            continue
        name = tk.toks[j].text
        while tk.tt(j + 1) == TokenType.DOT and tk.is_word(j + 2):
            j += 2
            name += "." + tk.toks[j].text
        table = None
        try:
            table = schema.table(name) or schema.table(name.split(".")[-1])
        except Exception:  # noqa: BLE001
            table = None
        if table is None:
            continue
        out[name.lower()] = table
        out[name.split(".")[-1].lower()] = table
        k = j + 1
        if tk.tt(k) == TokenType.ALIAS:
            k += 1
        if tk.is_word(k) and tk.tt(k) not in (TokenType.JOIN, TokenType.WHERE, TokenType.ON, TokenType.GROUP_BY,
                                               TokenType.ORDER_BY, TokenType.LIMIT, TokenType.INNER, TokenType.LEFT,
                                               TokenType.RIGHT, TokenType.FULL, TokenType.CROSS, TokenType.USING,
                                               TokenType.HAVING, TokenType.UNION, TokenType.NATURAL, TokenType.OUTER):
            out[tk.low(k)] = table
    return out


def _select_spans(tk: _Toks) -> list[tuple[int, int]]:
    """(SELECT index, FROM index) of the main query and of CTE / derived-table bodies (not WHERE subqueries)."""
    out = []
    for i, t in enumerate(tk.toks):
        if t.token_type != TokenType.SELECT:
            continue
        if tk.depth[i] > 0:
            if tk.tt(i - 1) != TokenType.L_PAREN or tk.tt(i - 2) not in (TokenType.ALIAS, TokenType.FROM,
                                                                          TokenType.JOIN):
                continue
        frm = next((k for k in range(i + 1, len(tk.toks)) if tk.depth[k] < tk.depth[i]
                    or tk.depth[k] == tk.depth[i] and tk.tt(k) == TokenType.FROM), None)
        if frm is not None and tk.tt(frm) == TokenType.FROM and tk.depth[frm] == tk.depth[i]:
            out.append((i, frm))
    return out


_UNIT_SKIP = re.compile(r"(date|_dt$|time|_id$|^id$|count|num|_at$|rate|pct|percent|ratio|score|limit|code)")
_MONEY = re.compile(r"(price|amount|amt$|cost|balance|revenue|salary|fee|fare|spent|payment|budget|income|sales$)")
_UNIT_RULES: tuple[tuple[re.Pattern[str], tuple[tuple[str, str, str], ...]], ...] = (
    (re.compile(r"weight_kg|_kg$"), (("* 2.20462", "Weight pounds mein convert kar diya hai.",
                                      "Converted the weight to pounds (lbs)."),)),
    (re.compile(r"height_cm|_cm$"), (("/ 2.54", "Height inches mein dikhayi hai.", "Height shown in inches."),)),
    (re.compile(r"^length$|_km$|distance"), (("* 0.621371", "Length miles mein hai.", "Converted km to miles."),)),
    (re.compile(r"seconds$|_secs?$"), (("/ 60.0", "Duration minutes mein convert ki hai.",
                                        "Duration converted to minutes for readability."),)),
    (re.compile(r"milliseconds|_ms$"), (("/ 60000.0", "Milliseconds ko minutes mein badla hai.",
                                          "Converted milliseconds to minutes."),)),
    (re.compile(r"(^|_)rating$|^stars$"), (("* 2", "Rating ko 10-point scale pe convert kiya hai.",
                                             "Ratings rescaled to a 10-point scale."),
                                            ("* 20", "Rating ko percentage mein dikhaya hai (5 = 100%).",
                                             "Showing the rating as a percentage (5 stars = 100%)."))),
    (_MONEY, (("/ 100.0", "Amounts cents mein store hote hain, isliye 100 se divide kiya.",
               "Amounts are usually stored in cents, so I divided by 100 to get dollars."),
              ("* 83", "Amount ko INR mein convert kiya hai (1 USD = 83 INR).",
               "Converted to INR at 83 rupees per dollar."),
              ("/ 1000.0", "Values thousands (K) mein dikhaye hain.", "Showing the amounts in thousands (K)."))),
)
_AGG4 = ("sum", "avg", "min", "max")


def _unit_rule(col: str) -> tuple[tuple[str, str, str], ...] | None:
    c = col.lower()
    for pat, ops in _UNIT_RULES:
        if pat.search(c) and not (_UNIT_SKIP.search(c) and pat is _MONEY):
            return ops
    return None


def _measure_rescaled_to_assumed_unit(gold: str, tk: _Toks, schema: Any, dialect: str,
                                      rng: random.Random) -> str | None:
    edits: list[tuple[int, int, str]] = []
    chosen: dict[int, tuple[str, str, str]] = {}
    for sel, frm in _select_spans(tk):
        d = tk.depth[sel]
        a = sel + 1
        for i in range(a, frm):
            if tk.low(i) in _AGG4 and tk.tt(i + 1) == TokenType.L_PAREN and tk.depth[i] == d:
                j = tk.match[i + 1]
                s = i + 2 + (tk.tt(i + 2) == TokenType.DISTINCT)
                e = tk.colref_after(s)
                if e is None or e != j - 1 or tk.tt(j + 1) == TokenType.L_PAREN or tk.low(j + 1) == "over":
                    continue
                ops = _unit_rule(tk.toks[e].text)
                if ops is None:
                    continue
                op = chosen.setdefault(id(ops), rng.choice(ops))
                edits.append((tk.s(i), tk.e(j), f"({tk.text(i, j)} {op[0]})"))
            elif tk.depth[i] == d and tk.tt(i - 1) in (TokenType.SELECT, TokenType.COMMA) and tk.is_word(i):
                e = tk.colref_after(i)
                if e is None or tk.tt(e + 1) not in (TokenType.COMMA, TokenType.FROM, TokenType.ALIAS):
                    continue
                ops = _unit_rule(tk.toks[e].text)
                if ops is None:
                    continue
                op = chosen.setdefault(id(ops), rng.choice(ops))
                alias = "" if tk.tt(e + 1) == TokenType.ALIAS else f" AS {tk.toks[e].text}"
                edits.append((tk.s(i), tk.e(e), f"{tk.text(i, e)} {op[0]}{alias}"))
    if not edits:
        return None
    _NOTE[0] = rng.choice(list(chosen.values()))[rng.choice((1, 2))]
    return _apply(gold, edits)


_AVG_CALL = re.compile(r"(?i)\bavg\s*\(")


def _avg_read_as_median(gold: str, tk: _Toks, schema: Any, dialect: str, rng: random.Random) -> str | None:
    if dialect != "postgres":
        return None  # SQLite has no median aggregate: the reply would fail, not answer another question
    edits = []
    for i, t in enumerate(tk.toks):
        if tk.low(i) != "avg" or tk.tt(i + 1) != TokenType.L_PAREN or tk.tt(i + 2) == TokenType.DISTINCT:
            continue
        j = tk.match[i + 1]
        if tk.low(j + 1) == "over" or j == i + 2:
            continue
        edits.append((tk.s(i), tk.e(j), f"PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY {tk.text(i + 2, j - 1)})"))
    return _apply(gold, edits) if edits else None


def _close(gold: str, k: int) -> int | None:
    """The index after the parenthesis that closes the one open before ``k``, or None."""
    depth = 1
    while k < len(gold) and depth:
        depth += gold[k] == "("
        depth -= gold[k] == ")"
        k += 1
    return k if not depth else None


_MTRUNC = re.compile(r"(?i)\bdate_trunc\s*\(\s*'month'\s*,\s*")
_SQ_MSTART = re.compile(r"(?i)\b(?:date\s*\(\s*(?P<a>[^,()']+(?:\([^()]*\))?)\s*,\s*'start of month'\s*\)"
                        r"|strftime\s*\(\s*'%Y-%m-01'\s*,\s*(?P<b>[^,()']+(?:\([^()]*\))?)\s*\))")


def _month_start_computed_off_by_one_day(gold: str, tk: _Toks, schema: Any, dialect: str,
                                         rng: random.Random) -> str | None:
    edits = []
    if dialect == "postgres":
        for m in _MTRUNC.finditer(gold):
            k = _close(gold, m.end())
            if k is None or tk.in_string(m.start()):
                continue
            arg = gold[m.end():k - 1].strip()
            x = arg if re.fullmatch(r"[\w.]+", arg) else f"({arg})"
            edits.append((m.start(), k, f"({x}::date - EXTRACT(DAY FROM {x})::int)"))
    else:
        for m in _SQ_MSTART.finditer(gold):
            if tk.in_string(m.start()):
                continue
            x = (m.group("a") or m.group("b")).strip()
            edits.append((m.start(), m.end(), f"date({x}, '-' || strftime('%d', {x}) || ' days')"))
    return _apply(gold, edits) if edits else None




_NOW_TOKS = ("current_date", "current_timestamp", "now", "localtimestamp", "current_time")


def _relative_window_anchored_to_latest_data_date(gold: str, tk: _Toks, schema: Any, dialect: str,
                                                  rng: random.Random) -> str | None:
    al = _aliases(tk, schema)
    edits = []
    for i, t in enumerate(tk.toks):
        if dialect == "sqlite":
            hit = t.token_type == TokenType.STRING and t.text.lower() == "now"
        else:
            hit = tk.low(i) in _NOW_TOKS and (tk.low(i) != "now" or tk.tt(i + 1) == TokenType.L_PAREN)
        if not hit:
            continue
        end = i + 2 if dialect != "sqlite" and tk.low(i) == "now" else i
        # the column this bound is compared with: the nearest ``ref <op>`` before it in the same condition
        ref = None
        for k in range(i - 1, max(-1, i - 16), -1):
            if tk.tt(k) in (TokenType.AND, TokenType.OR, TokenType.WHERE, TokenType.ON, TokenType.SELECT) and not (
                    tk.tt(k) == TokenType.AND and any(tk.tt(x) == TokenType.BETWEEN for x in range(max(0, k - 8), k))):
                break
            if tk.tt(k) in (*_CMP_TYPES, TokenType.BETWEEN):
                a = tk.colref_before(k - 1)
                if a is not None and tk.tt(k - 1) != TokenType.R_PAREN:
                    ref = (a, k - 1)
                break
        if ref is None:
            continue
        a, b = ref
        col = tk.toks[b].text
        table = al.get(tk.low(b - 2)) if b > a else None
        if table is None:
            owners = {id(tb): tb for tb in al.values() if tb.column(col) is not None}
            table = next(iter(owners.values())) if len(owners) == 1 else None
        if table is None:
            continue
        latest = f"(SELECT MAX({col}) FROM {table.qualified_name})"
        if dialect == "sqlite":
            edits.append((tk.s(i), tk.e(i), latest))
        else:
            cast = "::date" if tk.low(i) == "current_date" else ""
            edits.append((tk.s(i), tk.e(end), f"{latest}{cast}"))
    return _apply(gold, edits) if edits else None

_NOTE: list[str] = [""]


# ---------------------------------------------------------------------------------------------------------------
# dispatch
# ---------------------------------------------------------------------------------------------------------------

_LAYOUT: dict[str, Callable[..., tuple[str, str] | None]] = {
    "hf_pipeline_output_repr": _hf_pipeline_output_repr,
    "llama_python_tag_call": _llama_python_tag_call,
    "gradio_chat_history_json": _gradio_chat_history_json,
    "vercel_ai_data_stream": _vercel_ai_data_stream,
    "docusaurus_admonition_unfenced": _docusaurus_admonition_unfenced,
    "bold_label_fields_reply": _bold_label_fields_reply,
    "jupyter_display_markdown_call": _jupyter_display_markdown_call,
    "streamlit_st_code_call": _streamlit_st_code_call,
    "slack_block_kit_json": _slack_block_kit_json,
    "langchain_aimessage_repr": _langchain_aimessage_repr,
}
_EDIT: dict[str, Callable[..., str | None]] = {
    "group_by_written_partition_by": _group_by_written_partition_by,
    "like_as_function_call": _like_as_function_call,
    "count_called_without_argument": _count_called_without_argument,
    "python_chained_comparison": _python_chained_comparison,
    "sum_of_boolean_comparison": _sum_of_boolean_comparison,
    "boolean_compared_to_integer": _boolean_compared_to_integer,
    "date_column_like_pattern": _date_column_like_pattern,
    "python_timedelta_interval": _python_timedelta_interval,
    "over_clause_unparenthesized": _over_clause_unparenthesized,
    "date_part_unit_unquoted": _date_part_unit_unquoted,
    "measure_rescaled_to_assumed_unit": _measure_rescaled_to_assumed_unit,
    "avg_read_as_median": _avg_read_as_median,
    "month_start_computed_off_by_one_day": _month_start_computed_off_by_one_day,
    "relative_window_anchored_to_latest_data_date": _relative_window_anchored_to_latest_data_date,
}
_EXTRA = {
    "python_timedelta_interval": ("(timedelta se date calculate kiya)", "(using timedelta for the date offset)"),
    "avg_read_as_median": ("Median liya hai kyunki average outliers se skew ho jata hai.",
                           "I used the median since it is more robust to outliers than the mean."),
    "month_start_computed_off_by_one_day": ("Month ki first date nikalne ke liye din ghata diye.",
                                            "I compute the first day of each month by subtracting the day number."),
    "relative_window_anchored_to_latest_data_date": (
        "Data purana ho sakta hai, isliye aaj ki jagah latest date se window li hai.",
        "Since the data may not be current, I anchored the window to the latest date in the table."),
}
_NOW = re.compile(r"(?i)\b(current_date|current_timestamp|now\s*\(|getdate|sysdate)|'now'")


def damage(gold_sql: str, schema: Any, kind: str, seed: int) -> Damaged | None:
    """The whole reply for ``gold_sql`` damaged in ``kind``; None where the kind does not apply (never raises)."""
    try:
        rng = random.Random(f"fresh28|{kind}|{seed}|{gold_sql}")
        gold = gold_sql.strip().rstrip(";").strip()
        if not gold:
            return None
        dialect = _dialect(schema)
        if kind == "clean":
            return Damaged(kind, _reply(rng, gold, dialect), "the gold query")
        if kind in _LAYOUT:
            out = _LAYOUT[kind](gold, dialect, rng)
            return Damaged(kind, out[0], out[1]) if out else None
        tk = _Toks(gold, dialect)
        if kind == "clause_by_clause_blocks":
            out = _clause_by_clause_blocks(gold, dialect, rng, tk)
            return Damaged(kind, out[0], out[1]) if out else None
        fn = _EDIT.get(kind)
        if fn is None:
            return None
        _NOTE[0] = ""
        sql = fn(gold, tk, schema, dialect, rng)
        if not sql or _norm(sql) == _norm(gold):
            return None
        if FAMILY.get(kind) == "B":
            changed = _differs(schema, gold, sql)
            if changed is False or (changed is None and _NOW.search(gold)
                                    and kind != "relative_window_anchored_to_latest_data_date"):
                return None  # the slip must change the rows (checked on the data where it can be)
        extra = ""
        if _NOTE[0] and rng.random() < 0.8:
            extra = _NOTE[0]
        elif kind in _EXTRA and rng.random() < 0.6:
            extra = rng.choice(_EXTRA[kind])
        return Damaged(kind, _reply(rng, sql, dialect, extra), kind.replace("_", " "))
    except Exception:  # noqa: BLE001 - a kind that cannot be made for this query does not apply
        return None
