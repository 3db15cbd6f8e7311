"""SQL inside another language's markup, read back to a plain SQL block.

- **An HTML reply** (one with no Markdown fence): the query in ``<pre><code class="sql">…</code></pre>`` (or
  ``<pre>`` / ``<code>`` alone on lines of their own), prose in ``<p>``: the block as a fenced one, the tags of the
  prose dropped outside the code (its HTML escapes are read by ``_blocks``).
- **A fence of three single quotes** (``'''sql`` … ``'''`` on lines of their own), in a reply with no Markdown fence: a
  fenced block.
- **Another language's program that passes its query as a string** (R's ``dbGetQuery(con, "SELECT …")``, a
  JavaScript or Go call): the string literals that hold a query, joined where the program joins them
  (``_unknown.string_queries``), in a block of that language, as a SQL block after it — only where the reply has no
  SQL block (Python's programs are read by ``_blocks``).
- **Syntax-highlighted HTML** (Pygments' ``<span class="k">SELECT</span>`` around every token), in a fenced block
  of any label or in ``<pre>``, where the tags come first (a block that starts with its query as written holds a tag
  only in a value): the text without its tags and escapes, as a SQL block where it starts a query.
- **An XML document's CDATA section** (``<![CDATA[SELECT …]]>``, a Confluence or MyBatis body) that an element
  holds (right after a tag, never inside a quoted value): its text, as a SQL block where it starts a query.
- **A dbt model**: a table written as ``{{ ref('orders') }}`` or ``{{ source('shop', 'orders') }}``: the table's
  name, its last quoted argument. Only these two calls; any other template expression is left, and fails visibly.
"""

from __future__ import annotations

import ast
import html
import json
import re

from core.sql.layout._unknown import string_queries

__all__ = ["FENCE", "QUERY_START", "STRING_LITERAL", "literal_value", "markup_read"]

# A Markdown fenced block (its mark, its label, its body), and text that starts a query: shared by the layout readers.
FENCE = re.compile(r"(```|~~~)[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:\1|\Z)", re.DOTALL)
QUERY_START = re.compile(r"\s*\(*\s*(?:SELECT|WITH)\b", re.IGNORECASE)
# A one-line string literal as JSON or Python's repr writes one: double or single quotes, backslash escapes
STRING_LITERAL = r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\''

_PRE = re.compile(r"<pre(?:\s[^>]*)?>\s*(?:<code(?:\s[^>]*)?>)?(.*?)(?:</code>\s*)?</pre>", re.IGNORECASE | re.DOTALL)
_CODE_LINE = re.compile(r"^[ \t]*(?:<p(?:\s[^>]*)?>[ \t]*)?<code(?:\s[^>]*)?>(.*?)</code>[ \t]*(?:</p>[ \t]*)?$",
                        re.IGNORECASE | re.DOTALL | re.MULTILINE)  # alone on its line, or a paragraph's whole text
_LINE_BREAK = re.compile(r"'(?:[^']|'')*'|(<br\s*/?>)", re.IGNORECASE)  # a <br> tag outside quoted values
_PROSE_TAG = re.compile(r"</?(?:p|br|div|span|strong|em|b|i|ul|ol|li|h[1-6])(?:\s[^>]*)?/?>", re.IGNORECASE)
_DBT = re.compile(r"\{\{\s*(?:ref|source)\s*\(\s*(?:'[^'{}]*'|\"[^\"{}]*\")\s*(?:,\s*(?:'[^'{}]*'|\"[^\"{}]*\")\s*)*"
                  r"\)\s*\}\}")
_LAST_ARG = re.compile(r"['\"]([^'\"]*)['\"]\s*\)\s*\}\}$")


_CDATA = re.compile(r"(?<=>)\s*<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
_HIGHLIGHTED_PRE = re.compile(r"(<pre(?:\s[^>]*)?>)(\s*<span.*?)(</pre>)", re.IGNORECASE | re.DOTALL)  # tags from its
# first character on: a highlighter's output, never SQL that holds a tag in a value
_HIGHLIGHTED = re.compile(r"<span\s[^>]*class=", re.IGNORECASE)  # a highlighter's token classes
_HIGHLIGHT_TAG = re.compile(r"</?(?:span|div|pre|code|font)(?:\s[^>]*)?>", re.IGNORECASE)
_QUOTE_FENCE = re.compile(r"^[ \t]*'''[ \t]*(sql|postgres\w*|sqlite3?|mysql)?[ \t]*\n(.*?)\n[ \t]*'''[ \t]*$",
                          re.MULTILINE | re.DOTALL | re.IGNORECASE)
_PROGRAM = re.compile(r"(```|~~~)[ \t]*(r|rscript|js|javascript|ts|typescript|go|golang|ruby|php|java|kotlin|scala|"
                      r"csharp|cs|c#|julia|rust|rs|swift|dart)[ \t]*\n(.*?)\1", re.DOTALL | re.IGNORECASE)
_RUST_RAW = re.compile(r'r(#+)"(\s*(?:SELECT|WITH)\b.*?)"\1', re.IGNORECASE | re.DOTALL)  # Rust's raw string r#"…"#


def markup_read(text: str) -> str:
    """``text`` with its HTML code blocks as fenced SQL blocks and its dbt table references as table names."""
    if "<![CDATA[" in text:  # a section an element holds, never one inside a quoted value; in a fenced block (of
        text = FENCE.sub(lambda m: "".join(  # XML), the block as the queries it holds
            f"\n```sql\n{q[1].strip()}\n```\n" for q in _CDATA.finditer(m[3]) if QUERY_START.match(q[1])) or m[0], text)
        text = _CDATA.sub(lambda m: f"\n```sql\n{m[1].strip()}\n```\n" if QUERY_START.match(m[1]) else m[0], text)
    if _HIGHLIGHTED.search(text):
        text = FENCE.sub(_plain_block, text)
        if "```" not in text:
            text = _HIGHLIGHTED_PRE.sub(lambda m: m[1] + _HIGHLIGHT_TAG.sub("", m[2]) + m[3], text)
    if "```" not in text and "'''" in text:
        text = _QUOTE_FENCE.sub(lambda m: f"```sql\n{m[2]}\n```", text)
    if not any(lang.lower() in ("sql", "") for _, lang in re.findall(r"(```|~~~)[ \t]*(\w*)", text)[::2]):
        text = _PROGRAM.sub(lambda m: m[0] + "".join(f"\n```sql\n{q.strip()}\n```" for q in _whole(m[3])), text)
    if "```" not in text and ("</pre>" in text.lower() or re.search(r"</code>", text, re.IGNORECASE)):
        parts = re.split(r"(<pre(?:\s[^>]*)?>.*?</pre>|^[ \t]*(?:<p(?:\s[^>]*)?>[ \t]*)?<code(?:\s[^>]*)?>.*?</code>"
                         r"[ \t]*(?:</p>[ \t]*)?$)", text,
                         flags=re.IGNORECASE | re.DOTALL | re.MULTILINE)  # an HTML reply: no Markdown fence in it
        text = "".join(_CODE_LINE.sub(lambda m: f"\n```sql\n{_broken(m[1]).strip()}\n```\n", _PRE.sub(
            lambda m: f"\n```sql\n{m[1].strip()}\n```\n", part)) if i % 2 else _PROSE_TAG.sub("\n", part)
            for i, part in enumerate(parts))  # prose tags dropped outside the code only: '%<br>%' is a value
    if "{{" in text:
        text = _DBT.sub(lambda m: (found[1] if (found := _LAST_ARG.search(m[0])) else m[0]), text)
    return text


def _broken(code: str) -> str:
    """A ``<code>`` element's text with its ``<br>`` tags as line breaks (one written inside a quoted value stays)."""
    return _LINE_BREAK.sub(lambda m: "\n" if m[1] else m[0], code)


def _whole(code: str) -> list[str]:
    """The queries the string literals of ``code`` hold: a Rust raw string, or a chain of literals joined by
    concatenation (``_unknown.string_queries``; one a value is joined to holds no whole query)."""
    raw = [m[2] for m in _RUST_RAW.finditer(code)]
    return list(dict.fromkeys([*raw, *string_queries(_RUST_RAW.sub(" ", code))]))


def _plain_block(match: re.Match[str]) -> str:
    """A fenced block of highlighted HTML as a SQL block of its text (else as it is)."""
    if not _HIGHLIGHTED.search(match[3]) or QUERY_START.match(match[3]):
        return match[0]  # a block of SQL as written (a tag inside a value): as it is
    body = html.unescape(_HIGHLIGHT_TAG.sub("", match[3])).strip()
    return f"{match[1]}sql\n{body}\n{match[1]}" if QUERY_START.match(body) else match[0]


def literal_value(literal: str) -> object:
    """A JSON or Python literal's value, by JSON's own reading first (its ``\\ud83d\\ude00`` is one character), then
    Python's (single quotes, tuples); None where neither reads it."""
    try:
        return json.loads(literal)
    except (ValueError, RecursionError):
        try:
            return ast.literal_eval(literal)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
