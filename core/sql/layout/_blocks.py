"""Reply layouts that hide where the SQL is, read back to plain SQL blocks before the statement is looked for.

Each is a way a small local model really writes its reply, and each is read from the reply's own structure:

- **An end-of-turn token written as text** (``<|im_end|>``, ``<|eot_id|>``, ``<|endoftext|>``, ``</s>``): the chat
  template leaked into the text. The reply ends there (the model finished); what follows is the model writing the
  next turn itself ("Human: can you also sort it?"), never part of the answer. A code model's repository tokens at
  a line's start (``<|repo_name|>shop``, ``<|file_sep|>sql/report.sql``) are a header: dropped with their line.
- **A query inside a Python program** (``query = \"\"\"SELECT …\"\"\"``, ``cursor.execute("SELECT …")``): the string
  literals of a Python block that read as a query, found with Python's own parser (``ast``) so quotes, escapes and
  concatenated pieces are read as Python reads them.
- **A query sent in parts** ("(1/2)" … "(2/2) continued:"): a SQL block that starts with a clause no statement starts
  with (``WHERE``, ``GROUP BY``, ``LIMIT``, ``JOIN``, ``AND`` …) continues the block before it, when that one ends
  without ``;`` and only a short label stands between them. A sentence between them ("If you only want active ones,
  add:") is an option offered, not a part: those blocks are left apart.
- **A query repeated in a loop** until the token limit cut it: a block that is one statement written again and
  again, the last copy cut short, is that one statement.
"""

from __future__ import annotations

import ast
import html
import re
from collections.abc import Callable

from sqlglot import exp
from sqlglot.tokens import Tokenizer, TokenType

from core.sql._guard import parse_statements
from core.sql._slips import PARSE_FAILURES
from core.sql.layout._documents import envelopes_read
from core.sql.layout._encodings import encodings_read
from core.sql.layout._fences import fences_read
from core.sql.layout._markup import FENCE as _FENCE
from core.sql.layout._markup import QUERY_START as _QUERY_START
from core.sql.layout._markup import markup_read
from core.sql.layout._noise import OPEN_END as _OPEN_END
from core.sql.layout._noise import noise_dropped
from core.sql.layout._printed import printed_values_read
from core.sql.layout._programs import program_queries
from core.sql.layout._scripts import scripts_read
from core.sql.layout._terminal import terminal_read
from core.sql.layout._wrappers import wrappers_read

__all__ = ["CURLY_PAIR", "THINK", "continues", "laid_out", "sql_end", "without_fences"]

# Special tokens of chat templates (ChatML, Llama 3, Phi, Gemma, Mistral, DeepSeek), written out as text.
_TURN_TOKEN = re.compile(r"<\|[A-Za-z_]{2,30}\|>|<｜[^｜\n]{1,30}｜>|</s>|<eos>|<(?:end|start)_of_turn>", re.IGNORECASE)
_TOOL_CALL_OPENS = frozenset({"<|python_tag|>", "<|tool_call|>", "<|tool_calls|>"})  # a function call follows, not the end
_ENTITY = re.compile(r"&(?:#\d{2,3}|#x[0-9a-f]{2}|lt|gt|amp|quot|apos);", re.IGNORECASE)  # the SQL came HTML-escaped
_ESCAPED_BREAK = re.compile(r"\\n\s*(?:FROM|WHERE|GROUP|ORDER|LIMIT|HAVING|JOIN|LEFT|INNER|AND|UNION|SELECT)\b",
                            re.IGNORECASE)  # an escaped string's line breaks between clauses: ``\nFROM``
_JSON_VALUE = re.compile(r'"\s*:\s*"')  # a JSON reply's "sql": "SELECT …\n…": its reader reads the escapes
_QUOTED_QUERY = re.compile(r'"((?:SELECT|WITH)\b(?:[^"\\\n]|\\.)*)"', re.IGNORECASE)  # a query as a string literal
_ONE_LINE_FENCE = re.compile(r"^([ \t]*)(```|~~~)([\w+-]*)[ \t]+((?:SELECT|WITH)\b.*?);?[ \t]*\2[ \t]*$",
                             re.IGNORECASE | re.MULTILINE)  # ```sql SELECT … ``` on one line
_ROLES = frozenset({"assistant", "model", "bot", "ai"})  # the role a chat template names before the model's turn
# A word in a script other than Latin after a space (Devanagari, Arabic, Cyrillic, CJK …): SQL outside its strings
# never has one, so a statement written inline ends before it ("… NULLS LAST यह query सही result देगी।").
_OTHER_SCRIPT = re.compile(r"(?<=\s)[^\W\d_A-Za-z\u00C0-\u024F]")
# Values a word processor quoted: ‘a’ and “a”, and ’a’ or ‘a‘ between non-letters (an apostrophe, it’s, is none).
CURLY_PAIR = re.compile(r"\u2018([^\u2018\u2019\n]*)\u2019|\u201c([^\u201c\u201d\n]*)\u201d|"
                        r"(?<![\w\u2018\u2019])[\u2018\u2019]([^\u2018\u2019'\n]*)[\u2018\u2019](?![\w\u2018\u2019])")
THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)
_DANDA = re.compile(r"(?<=[\x21-\x7e])[ \t]*[\u0964\u0965](?=\s|$)")  # a danda right after SQL, not after Hindi
_NUMBER = re.compile(r"\s*(\d+)\s*[:|.)]?\s+")
_INLINE_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_FENCE_MARK = re.compile(r"^[ \t]*(?:```|~~~)[\w+-]*", re.MULTILINE)  # at a line start, as fences are
_LINE_FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.DOTALL | re.MULTILINE)
_PYTHON_LANGS = frozenset({"python", "py", "python3", "ipython", "pycon"})
_PY_STRING = re.compile(r'"""(.*?)"""|\'\'\'(.*?)\'\'\'|"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\'', re.DOTALL)
_CONTINUES = re.compile(r"\s*(?:WHERE|GROUP\s+BY|ORDER\s+BY|HAVING|LIMIT|OFFSET|FETCH|QUALIFY|WINDOW|UNION|INTERSECT|"
                        r"EXCEPT|FROM|ON|AND|OR|(?:(?:INNER|LEFT|RIGHT|FULL|CROSS|NATURAL)\s+)?(?:OUTER\s+)?JOIN)\b|"
                        r"\s*[,)]", re.IGNORECASE)
_WITH = re.compile(r"\s*WITH\b.*\)\s*$", re.IGNORECASE | re.DOTALL)
_SELECT = re.compile(r"\s*\(*\s*SELECT\b", re.IGNORECASE)
# A label that numbers the parts or says the query goes on: "(2/2)", "Part 2 of 3", "continued", "contd".
_PART_LABEL = re.compile(r"\d+\s*(?:/|of)\s*\d+|\bpart\b|\bcontinu|\bcont'?d\b", re.IGNORECASE)
_LABEL_CHARS = 40  # "(2/3) continued:", "**Part 2/2**", "Continuing the query:"; a sentence is longer
_MIN_COPY = 15  # a repeated stretch shorter than this is no statement written again


def laid_out(reply: str, sql_langs: frozenset[str]) -> tuple[str, bool]:
    """``reply`` with these layouts read back to plain fenced SQL blocks (``sql_langs``: the fence labels of SQL),
    and whether an end-of-turn token said the model finished its reply."""
    text = fences_read(encodings_read(reply), sql_langs, lambda sql: any(
        _reads_one(sql, dialect) is not None for dialect in ("postgres", "sqlite")))
    text, ended = _before_turn_end(printed_values_read(noise_dropped(envelopes_read(text))))
    text = _unescaped(wrappers_read(program_queries(markup_read(scripts_read(text)))))
    text = terminal_read(text)
    text = _ONE_LINE_FENCE.sub(lambda m: f"{m[1]}{m[2]}{m[3]}\n{m[4]}\n{m[1]}{m[2]}", text)
    text = _FENCE.sub(_diff_read, text)
    text = _DANDA.sub(";", text)  # "… GROUP BY name ।": the sentence's end after the SQL is the statement's
    text = _python_queries(text, sql_langs)
    text = _pieces_joined(text)
    text = _steps_joined(text, sql_langs)
    text = _parts_joined(text, sql_langs)
    text = _FENCE.sub(lambda m: _in_block(m, sql_langs, _unnumbered), text)
    text = _FENCE.sub(lambda m: _in_block(m, sql_langs, _created_then_read), text)
    text = _FENCE.sub(lambda m: _in_block(m, sql_langs, _selected_into), text)
    text = _FENCE.sub(lambda m: _in_block(m, sql_langs, _from_first), _prompt_continued(text))
    return _one_copy(text, sql_langs), ended


def _reads_one(sql: str, dialect: str) -> exp.Expression | None:
    try:
        trees = parse_statements(sql.strip().rstrip(";"), dialect)
    except (*PARSE_FAILURES, RecursionError):
        return None
    return trees[0] if len(trees) == 1 else None


def _prompt_continued(text: str) -> str:
    """A reply that goes on from a prompt ending in ``SELECT``: ``name, city FROM customer …``, alone or before a
    closing fence none opened. The query with its SELECT, as a SQL block, where it then reads as one statement."""
    first = text.find("```")
    if first < 0:
        first = len(text)  # no fence at all: the whole reply is the rest of the query
    elif text.count("```") % 2 == 0 or not re.match(r"```[ \t]*(?:\n|$)", text[first:]):
        return text
    head = text[:first].strip().rstrip(";")
    if not re.match(r"[A-Za-z_*(\"`]", head) or len(head) > 20_000 or _QUERY_START.match(head) or not re.search(
            r"\bFROM\b", head, re.I):
        return text  # a select list starts with a name, a star or a bracket (never a JSON object's brace)
    if re.search(r"[\"'`]\s*(?:SELECT|WITH)\b", head, re.IGNORECASE):
        return text  # ``run_query(sql="SELECT …")``: a call that carries a query in a string, no select list
    if not any(_reads_one(f"SELECT {head}", d) is not None for d in ("postgres", "sqlite")):
        return text
    return f"```sql\nSELECT {head}\n```{text[first + 3:]}"  # (with no fence, nothing follows)


def _from_first(block: str) -> str | None:
    """DuckDB's query written FROM first (``FROM sales s JOIN … SELECT s.city, SUM(x) WHERE …``): the same query
    in the usual order, as DuckDB reads it."""
    if not re.match(r"\s*FROM\b", block, re.IGNORECASE) or not re.search(r"\bSELECT\b", block, re.IGNORECASE):
        return None
    tree = _reads_one(block, "duckdb")
    if not isinstance(tree, exp.Select) or tree.find(exp.From) is None:
        return None
    return tree.sql(dialect="duckdb") + block[len(block.rstrip()):]  # the line break before the closing fence


def _unescaped(text: str) -> str:
    """A reply whose SQL came HTML-escaped (``&#39;Utility Company&#39;``, ``&gt;=``; not when every entity stands
    inside a quoted value, as data may hold them), or a line holding a query as an escaped string with literal
    ``\\n`` between clauses (``… AS n\\nFROM sales\\nWHERE …``): read unescaped."""
    if any(not _in_literal(text, m.start()) for m in _ENTITY.finditer(text)):  # 'AT&amp;T' as stored: a value
        text = html.unescape(text)
    return "\n".join(_unescaped_line(line) if _ESCAPED_BREAK.search(line) and not _JSON_VALUE.search(line) else line
                     for line in text.split("\n"))


def _unescaped_line(line: str) -> str:
    """One line holding a query written as an escaped string: its quotes dropped, its escapes read."""
    line = _QUOTED_QUERY.sub(lambda m: f"\n{m[1]}\n", line)  # "SELECT …\nFROM …": the string's quotes go
    return re.sub(r"(?<!\\)\\n", "\n", re.sub(r"(?<!\\)\\t", "\t", line)).replace('\\"', '"')


def _in_literal(text: str, at: int) -> bool:
    """Whether position ``at`` is inside a single-quoted value of its line."""
    return text[text.rfind("\n", 0, at) + 1:at].count("'") % 2 == 1


def _diff_read(match: re.Match[str]) -> str:
    """A ```` ```diff ```` block showing the query as changes to a draft: its lines as they read after the change
    (context and added lines, without their marks — a context line may lack its space —; removed lines dropped), as
    a SQL block."""
    if match.group(2).lower() not in ("diff", "patch"):
        return match.group(0)
    lines = [line for line in match.group(3).split("\n") if not line.startswith(("---", "+++", "@@"))]
    if not any(line[:1] in ("+", "-") for line in lines):
        return match.group(0)
    after = "\n".join(line[1:] if line[:1] in ("+", " ") else line for line in lines if not line.startswith("-"))
    return f"{match.group(1)}sql\n{after.strip()}\n{match.group(1)}" if _QUERY_START.match(after) else match.group(0)


def _in_block(match: re.Match[str], sql_langs: frozenset[str], read: Callable[[str], str | None]) -> str:
    """The fenced block ``match`` with its SQL read by ``read`` (None: left as written)."""
    if match.group(2).lower() not in sql_langs or (body := read(match.group(3))) is None:
        return match.group(0)
    start = match.start(3) - match.start()
    return match.group(0)[:start] + body + match.group(0)[start + len(match.group(3)):]


def _unnumbered(block: str) -> str | None:
    """A block whose every line starts with its number, 1, 2, 3 … (``1: SELECT …``, ``2 | FROM …``): the numbers
    dropped. Numbered in sequence on every line, never a line of SQL that begins with a number."""
    lines = block.split("\n")
    marks = [(i, _NUMBER.match(line)) for i, line in enumerate(lines) if line.strip()]
    if len(marks) < 2 or not all(m for _, m in marks):
        return None
    first = int(marks[0][1].group(1))
    if [int(m.group(1)) for _, m in marks] != list(range(first, first + len(marks))):
        return None
    for i, mark in marks:
        lines[i] = lines[i][mark.end():]
    return "\n".join(lines)


def _created_then_read(block: str) -> str | None:
    """``CREATE TEMP TABLE t AS SELECT …; SELECT * FROM t``: the same rows as ``WITH t AS (SELECT …) SELECT * FROM
    t``, which only reads. Tables or views made from a query and then read by the block's last query become its
    CTEs (a DROP of one of them before it is made drops nothing the reading needs); anything else (a column list, an
    INSERT, a table read by nothing) is left for the guard to refuse."""
    if not re.search(r"\bCREATE\b", block, re.IGNORECASE):
        return None
    for dialect in ("postgres", "sqlite"):
        try:
            *made, last = parse_statements(block, dialect)
        except PARSE_FAILURES:
            continue
        created = {m.this.name.lower() for m in made if isinstance(m, exp.Create) and isinstance(m.this, exp.Table)}
        made = [m for m in made if not (isinstance(m, exp.Drop) and (dropped := m.args.get("tables") or [m.this])
                                        and all(isinstance(t, exp.Table) and t.name.lower() in created
                                                for t in dropped))]  # DROP VIEW IF EXISTS v, then v made
        if not made or not isinstance(last, exp.Query) or not all(
                isinstance(m, exp.Create) and m.kind in ("TABLE", "VIEW") and isinstance(m.this, exp.Table)
                and isinstance(m.expression, exp.Query) for m in made):
            return None
        names = {m.this.name.lower() for m in made}
        if not names <= {t.name.lower() for t in last.find_all(exp.Table)} | {
                t.name.lower() for m in made for t in m.expression.find_all(exp.Table)}:
            return None  # a table made and never read
        for m in made:
            last = last.with_(m.this.name, as_=m.expression.copy(), append=True, copy=False)  # type: ignore[attr-defined]
        return last.sql(dialect=dialect) + ";\n"
    return None


def _selected_into(block: str) -> str | None:
    """``SELECT … INTO result FROM …`` (T-SQL's and PostgreSQL's way to keep the rows in a new table) as the outermost
    statement: read as its SELECT, the rows that table would hold (Cairn makes no table). An INTO anywhere else, or
    not followed by a name and FROM, is left for the guard to refuse."""
    try:
        tokens = list(Tokenizer().tokenize(block))
    except PARSE_FAILURES:
        return None
    depth = 0
    for i, token in enumerate(tokens):
        depth += (token.token_type == TokenType.L_PAREN) - (token.token_type == TokenType.R_PAREN)
        if token.token_type != TokenType.INTO or depth or i + 2 >= len(tokens):
            continue
        name = i + 1 + (tokens[i + 1].text.upper() in ("TEMP", "TEMPORARY", "TABLE"))
        while name + 1 < len(tokens) and tokens[name].token_type == TokenType.HASH:  # T-SQL's #temp and ##global
            name += 1
        while name + 2 < len(tokens) and tokens[name + 1].token_type == TokenType.DOT:
            name += 2
        if tokens[name + 1].token_type == TokenType.FROM and tokens[0].token_type in (TokenType.SELECT,
                                                                                       TokenType.WITH):
            return block[:token.start] + block[tokens[name].end + 1:]
        return None
    return None


def _pieces_joined(text: str) -> str:
    """A reply with no code block whose query is only a run of inline code pieces (`` `SELECT a` `` - picks …,
    `` `FROM t` `` - reads …): the pieces in order, a query beginning and the clauses that continue it, as one block;
    a piece that is only ``WITH x AS (…)`` goes on with the SELECT after it."""
    if _FENCE.search(text):
        return text
    spans = [m.group(1).strip() for m in _INLINE_CODE.finditer(text)]
    for i, span in enumerate(spans):
        if not _QUERY_START.match(span) or span.endswith(";"):
            continue
        run = [span]
        for piece in spans[i + 1:]:
            if not continues(piece) and not (len(run) == 1 and _WITH.match(span) and _SELECT.match(piece)):
                break  # the SELECT after a piece of WITH … (…) alone is the query it names its tables for
            run.append(piece)
        if len(run) >= 2:
            return text.rstrip() + "\n\n```sql\n" + "\n".join(run) + "\n```\n"
    return text


def continues(block: str) -> bool:
    """Whether a SQL block starts with a clause no statement starts with (``UNION SELECT …``, ``WHERE …``): a piece
    of a query, never a query of its own (the SELECT after UNION is not the answer)."""
    return bool(_CONTINUES.match(block)) and not _QUERY_START.match(block)


def sql_end(text: str) -> int:
    """Where the first word in another script outside a quoted value starts (else the text's end): SQL goes no
    further, so an inline statement ends there at the latest, however long the sentence after it."""
    for match in _OTHER_SCRIPT.finditer(text):
        line = text[text.rfind("\n", 0, match.start()) + 1:match.start()]
        if not text.count("'", 0, match.start()) % 2 and "--" not in line:  # nor in a comment: "-- यह filter"
            return match.start()
    return len(text)


def without_fences(text: str) -> str:
    """``text`` with its fence marks as line breaks: read as a whole, a reply's closing ```` ``` ```` is never part of
    a statement (two of its backticks read as an empty name)."""
    return _FENCE_MARK.sub("\n", text)


# A code model's repository tokens at a line's start, each with the name or path it gives (``<|repo_name|>shop``,
# ``<|file_sep|>sql/report.sql``, StarCoder's ``<filename>q.sql``): a header of what follows, never the turn's end.
_REPO_HEADER = re.compile(r"^[ \t]*(?:<\|(?:repo_name|file_sep)\|>|<(?:reponame|filename|gh_stars)>)[^\n]*(?:\n|$)|"
                          r"<\|fim_(?:prefix|suffix|middle|pad)\|>", re.MULTILINE | re.IGNORECASE)  # a fill-in token alone


def _before_turn_end(text: str) -> tuple[str, bool]:
    """The reply up to its first end-of-turn token; a code model's repository headers (``<|file_sep|>q.sql``), tokens
    before any text (``<|im_start|>assistant``), a role
    header (``<|start_header_id|>assistant<|end_header_id|>``) and a token that opens a function call
    (``<|python_tag|>``) are dropped.
    A token inside a quoted value on its line (``LIKE '%</s>%'``), inside ``<think>…</think>``, or a ``</s>`` that
    closes an HTML ``<s>`` of its line is text, not the end of the turn."""
    text = _REPO_HEADER.sub("", text)
    thinking = [(m.start(), m.end()) for m in THINK.finditer(text)]
    for match in _TURN_TOKEN.finditer(text):
        head = text[:match.start()]
        line = head[head.rfind("\n") + 1:]
        if line.count("'") % 2 or line.count('"') % 2 or any(a <= match.start() < b for a, b in thinking) or (
                match.group(0).lower() == "</s>" and "<s>" in line.lower()):
            continue
        if match.group(0).lower() in _TOOL_CALL_OPENS:  # llama's ``<|python_tag|>{"name": …}``: a call follows
            text = text[:match.start()] + " " * (match.end() - match.start()) + text[match.end():]
            continue
        if head.strip() and head.strip().lower() not in _ROLES:
            return head, True
        # before any text, or closing a role header (``<|start_header_id|>assistant<|end_header_id|>``): dropped
        text = " " * match.end() + text[match.end():] if head.strip() else (
            text[:match.start()] + " " * (match.end() - match.start()) + text[match.end():])
    stripped = text.strip(" ")
    return stripped, stripped != text


def _python_queries(text: str, sql_langs: frozenset[str]) -> str:
    """Each Python block replaced by SQL blocks of its string literals that read as a query (none: left as it is);
    only in a reply with no SQL block holding a query (then the Python only shows how to run it), and never for a
    program that builds its query from pieces (``base + where``, f-strings, ``.format``): no one piece is the query."""
    if any(m.group(2).lower() in sql_langs and _QUERY_START.search(m.group(3)) for m in _FENCE.finditer(text)):
        return text

    def queries(match: re.Match[str]) -> str:
        if match.group(2).lower() not in _PYTHON_LANGS:
            return match.group(0)
        found = _strings(match.group(3))
        sql = [s.strip() for s in found if _QUERY_START.match(s)]
        return "\n".join(f"```sql\n{s}\n```" for s in sql) + "\n" if sql else match.group(0)

    return _FENCE.sub(queries, _LINE_FENCE.sub(queries, text))  # a fence closes at a line's start: one inside a
    # string of the program (``display(Markdown(f"```sql\n{q}\n```"))``) does not


_SQL_WORD = re.compile(r"\b(?:SELECT|FROM|WHERE|AND|OR|JOIN|GROUP|ORDER|LIMIT|HAVING|IN|LIKE|BETWEEN)\b|[=<>]",
                       re.IGNORECASE)


def _builds(node: ast.JoinedStr) -> bool:
    """Whether an f-string builds a query from pieces (its own text holds SQL: ``f"… WHERE id = {x}"``); one that
    only shows a query (``f"```sql\\n{q}\\n```"``) builds none."""
    return any(isinstance(part, ast.Constant) and _SQL_WORD.search(str(part.value).replace("```sql", ""))
               for part in node.values)


def _strings(code: str) -> list[str]:
    """The string literals of ``code``, as Python reads them (by pattern when the code does not parse); none when the
    program builds a string from pieces, since then no literal is the whole query."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        if re.search(r"[\"']\s*(?:\+|%)|(?:\+|%)\s*[\"'\w]|\bf[\"']|\.format\(|\.join\(", code):
            return []
        return [next(g for g in m.groups() if g is not None) for m in _PY_STRING.finditer(code)]
    if any(isinstance(node, ast.JoinedStr) and _builds(node) or isinstance(node, ast.BinOp) and isinstance(
            node.op, (ast.Add, ast.Mod)) or isinstance(node, ast.Attribute) and node.attr in ("format", "join")
           for node in ast.walk(tree)):
        return []
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def _parts_joined(text: str, sql_langs: frozenset[str]) -> str:
    """Consecutive SQL blocks joined where the later one continues the earlier one's statement: under a label that
    numbers the parts or says the query goes on (or none), the joined query replaces both; under any other label
    ("For the top 3 only:" + ``LIMIT 3``) the second is an option: the first block stays the answer and the joined
    query is put before it, among the reply's other queries (offered when its rows differ, never run unseen)."""
    for _ in range(8):  # a query in up to nine parts
        fences = [m for m in _FENCE.finditer(text) if m.group(2).lower() in sql_langs]
        for first, second in zip(fences, fences[1:], strict=False):
            head, tail = first.group(3).rstrip(), second.group(3)
            gap = text[first.end():second.start()].strip()
            joined = f"```sql\n{head}\n{tail.strip()}\n```"
            if head.endswith(";") or "\n" in gap or len(gap) > _LABEL_CHARS or not (_CONTINUES.match(tail) or (
                    _SELECT.match(tail) and _ctes_only(head))) or joined in text[:first.start()]:
                continue
            if not gap or _PART_LABEL.search(gap):  # "(2/2) continued:", "**Part 2/3**": one query in parts
                text = f"{text[:first.start()]}{joined}{text[second.end():]}"
            else:
                text = f"{text[:first.start()]}{joined}\n{text[first.start():]}"
            break
        else:
            return text
    return text


_STEP = re.compile(r"^\W*(?:step\s*)?(\d{1,2})\s*[.):]", re.IGNORECASE)  # "**2.**", "2)", "Step 3:"
_FROM = re.compile(r"\bFROM\b", re.IGNORECASE)


def _steps_joined(text: str, sql_langs: frozenset[str]) -> str:
    """A query written clause by clause, a block each (``SELECT g.name, COUNT(*) AS n`` / ``FROM track t JOIN …`` /
    ``WHERE …`` / ``GROUP BY …``), each under a short label: the run of blocks as one query, where the first starts
    it, every later one continues it (``_CONTINUES``), the joined text reads as one statement, and the first alone
    answers nothing (no FROM, or WITH's list alone) or three or more blocks whose later labels number the steps in
    order ("**2.**", "**3.**", "Step 4:"; the first block's label is not read). A short
    block after a whole query under any other label is an option, which ``_parts_joined`` offers."""
    fences = [m for m in _FENCE.finditer(text) if m.group(2).lower() in sql_langs]
    for at, first in enumerate(fences):
        if not _QUERY_START.match(first.group(3)):
            continue
        run, labels = [first], [text[:first.start()].rstrip().rsplit("\n", 1)[-1].strip()]
        for later in fences[at + 1:]:
            gap = text[run[-1].end():later.start()].strip()
            if "\n" in gap or len(gap) > _LABEL_CHARS or run[-1].group(3).rstrip().endswith(";") or not (
                    _CONTINUES.match(later.group(3)) or len(run) == 1 and _SELECT.match(later.group(3)) and _ctes_only(
                        first.group(3))):  # ``WITH x AS (…)`` then ``SELECT …``: the query its WITH starts
                break
            run.append(later)
            labels.append(gap)
        numbers = [int(m[1]) if (m := _STEP.match(label)) else None for label in labels]
        in_order = len(run) >= 3 and None not in numbers[1:] and all(  # two blocks under "1." and "2.": options
            b == a + 1 for a, b in zip(numbers[1:], numbers[2:], strict=False))
        joined = "\n".join(m.group(3).strip() for m in run)
        if len(run) < 2 or not (in_order or not _FROM.search(first.group(3)) or _ctes_only(first.group(3))) or not any(
                _reads_one(joined, d) is not None for d in ("postgres", "sqlite")):
            continue
        return f"{text[:first.start()]}```sql\n{joined}\n```{text[run[-1].end():]}"
    return text


def _ctes_only(head: str) -> bool:
    """``WITH x AS (…)`` and no query after it: a statement's beginning, never a statement."""
    if not _WITH.match(head):
        return False
    for dialect in ("postgres", "sqlite"):
        try:
            parse_statements(head, dialect)
            return False  # a whole statement already
        except PARSE_FAILURES:
            pass
        try:
            parse_statements(f"{head}\nSELECT 1", dialect)
            return True
        except PARSE_FAILURES:
            continue
    return False


def _one_copy(text: str, sql_langs: frozenset[str]) -> str:
    """A SQL block that holds one statement written two or more times, the last copy perhaps cut short, as one
    copy ending with ``;``."""
    return _FENCE.sub(lambda m: _in_block(m, sql_langs, lambda block: (copy := _repeated(block)) and f"{copy};\n"),
                      text)


def _repeated(block: str) -> str | None:
    """The statement ``block`` repeats: ``S S S`` or ``S; S``, the last copy perhaps a cut-off beginning of ``S``
    (at least its first four words). Another statement after ``S``, even one that begins the same, is no loop."""
    words = block.split()
    flat = " ".join(words)
    at = flat.find(" " + " ".join(words[:4]), 1) if words else -1
    if at < _MIN_COPY:
        return None
    copy = flat[:at].rstrip().rstrip(";").rstrip()
    if _OPEN_END.search(copy):
        return None  # "SELECT a FROM t UNION SELECT a FROM t": one statement that says the same thing twice
    rest = flat[at + 1:]
    while rest:
        if not copy.startswith(rest[:len(copy)].rstrip(";").rstrip()):
            return None  # something else follows: not a loop
        rest = rest[len(copy):].lstrip().lstrip(";").lstrip()
    again = list(re.finditer(r"\s+".join(map(re.escape, words[:4])), block))
    return block[:again[1].start()].rstrip().rstrip(";").rstrip() if len(again) > 1 else None  # as written: its
    # lines and comments kept (a "--" comment read on one line would swallow the rest)
