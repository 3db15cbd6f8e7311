"""Reply layouts that hide where the SQL is, read back to plain SQL blocks before the statement is looked for
(``core.sql._extract`` calls :func:`laid_out` first).

- ``_encodings`` (first): a transport's encoding — quoted-printable, a tokenizer's raw pieces, Telegram's
  MarkdownV2 escapes — read back to the text;
- ``_printed``: a printed Python object carrying the query (LlamaIndex's ``Response(…, metadata={…: {'sql_query':
  '…'}})``), its string read with ``ast.literal_eval``;
- ``_blocks``: the reply's blocks — an end-of-turn token written as text, HTML-escaped SQL, a query inside a Python
  program, a query sent in parts, a query repeated in a loop, a diff, numbered lines, ``SELECT … INTO``;
- ``_terminal``: SQL written as it is typed at a terminal or as a writer formats it — a database shell's prompts
  (``shop=> SELECT …``, ``sqlite> …``), a shell command that carries the query (``psql -c "…"``, a heredoc), a
  session variable set and then read (``SET @vendor = 'x'; … = @vendor``), a Markdown block quote (``> SELECT``),
  Markdown's escapes (``first\\_name``), full-width punctuation (``，``, ``（``) and arrows that annotate a line
  (``<- the columns we need``);
- ``_wrappers``: a query carried inside something else — ``EXPLAIN …``, ``COPY (…) TO``/``\\copy``, ``PREPARE … AS …;
  EXECUTE``, LaTeX's ``\\boxed{…}``, Markdown emphasis around a clause (``**WHERE …**``) and a backslash continuing
  a line: the query alone;
- ``_documents``: a query given as a value of a JSON or TOML document (``{"sql": "SELECT …"}``, ``sql = '''…'''``), the
  answer key's, never a draft's;
- ``_programs``: a query in a string of a language whose strings are its own (Perl's ``q{…}``, Power Query's
  ``#(lf)``);
- ``_scripts``: a SQL block holding more than the query (a PL/pgSQL loop over it, a fixture before it, DuckDB's files
  as tables, JSON's ``\\u0027`` escapes, a database's error echoed before it);
- ``_markup``: SQL inside another language's markup — an HTML reply's ``<pre><code>`` block, a dbt model's
  ``{{ ref('orders') }}`` / ``{{ source('shop', 'orders') }}`` for a table;
- ``_unknown``: for a layout none of these knows, the shapes all share — a query in a program's string literals joined
  by concatenation, a margin on every line — as candidate readings the extractor uses only where the text as written
  gives no statement or a shorter one.
"""

from core.sql.layout._blocks import CURLY_PAIR, THINK, continues, laid_out, sql_end, without_fences
from core.sql.layout._documents import document_queries
from core.sql.layout._terminal import CLIENT_SETTING
from core.sql.layout._unknown import extends, unknown_layout_readings

__all__ = ["CLIENT_SETTING", "CURLY_PAIR", "THINK", "continues", "document_queries", "extends", "laid_out", "sql_end",
           "unknown_layout_readings", "without_fences"]
