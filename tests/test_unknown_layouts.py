"""Layouts no dedicated reader knows (``core/sql/layout/_unknown.py``): the shapes every wrapping shares — a query in a
program's string literals joined by concatenation, a margin on every line — read as candidates the extractor uses
only where the text as written gives no statement, or a shorter one of the same words."""

from __future__ import annotations

import pytest

from core.errors import LLMReplyError
from core.sql import extract_queries
from core.sql.layout import extends, unknown_layout_readings
from core.sql.layout._unknown import string_queries

WANTED = "SELECT name FROM customers WHERE city = 'Pune'"


def _one(reply: str, dialect: str = "postgres") -> str:
    return " ".join(extract_queries(reply, dialect)[0].split())


@pytest.mark.parametrize("reply", [
    'Here:\n```go\nrows, err := db.Query(`SELECT name\nFROM customers\nWHERE city = \'Pune\'`)\n```',
    '```swift\nlet sql = """\n    SELECT name\n    FROM customers\n    WHERE city = \'Pune\'\n    """\n```',
    '```java\n/**\n * SELECT name\n * FROM customers\n * WHERE city = \'Pune\'\n */\n```',
    '```csharp\nvar sql = @"SELECT name\nFROM customers\nWHERE city = \'Pune\'";\n```',
    '```java\nStringBuilder sb = new StringBuilder();\nsb.append("SELECT name ");\nsb.append("FROM customers ");\n'
    'sb.append("WHERE city = \'Pune\'");\n```',
    '```lua\nlocal q = [[\nSELECT name\nFROM customers\nWHERE city = \'Pune\'\n]]\n```',
    '```sql\n| SELECT name\n| FROM customers\n| WHERE city = \'Pune\'\n```',
    '```ruby\nsql = "SELECT name " \\\n      "FROM customers " \\\n      "WHERE city = \'Pune\'"\n```',
    "```dart\nfinal q = 'SELECT name '\n    'FROM customers '\n    'WHERE city = \\'Pune\\'';\n```",
    '```vb\nDim q As String = "SELECT name " & _\n    "FROM customers " & _\n    "WHERE city = \'Pune\'"\n```',
    '```\n# SELECT name\n# FROM customers\n# WHERE city = \'Pune\'\n```',
    '```lua\nlocal q = "SELECT name " .. "FROM customers " .. "WHERE city = \'Pune\'"\n```',
    '```nim\nlet q = "SELECT name FROM customers WHERE city = \\u0027Pune\\u0027"\n```',
    '```pascal\nq := \'SELECT name FROM customers WHERE city = \'\'Pune\'\'\';\n```',
    'Plain reply, no fence:\n  | SELECT name\n  | FROM customers\n  | WHERE city = \'Pune\'\nThat lists them.',
])
def test_a_query_in_a_layout_no_reader_knows_is_read(reply: str) -> None:
    assert _one(reply) == WANTED


def test_a_fragment_as_written_gives_way_to_the_same_words_read_further() -> None:
    assert extends("SELECT name FROM customers", "SELECT name")
    assert extends('SELECT name FROM t WHERE x = 1', 'SELECT name FROM t " + "')  # the junk as written is no word
    assert not extends("SELECT name FROM customers", "SELECT city FROM customers")
    assert not extends("SELECT name", "SELECT name")


@pytest.mark.parametrize("code", [
    'String q = "SELECT name FROM customers " + "WHERE id = " + id;',  # a value joined after
    'String q = base + "SELECT name FROM customers";',  # a value joined before
    'q = "SELECT name FROM customers"\nq2 = q + " WHERE city = \'Pune\'"',  # the variable given it joined to more
    'q = f"SELECT name FROM customers WHERE id = {cid}"',  # a Python f-string
    'var q = $"SELECT name FROM customers WHERE id = {cid}";',  # C#'s interpolated string
])
def test_a_chain_a_value_is_joined_to_holds_no_whole_query(code: str) -> None:
    with pytest.raises(LLMReplyError):
        extract_queries(f"```java\n{code}\n```", "postgres")


def test_commented_out_lines_beside_sql_stay_out() -> None:
    """Marks on lines next to unmarked SQL are comments: a commented-out condition is never read back in."""
    reply = "```sql\nSELECT name FROM customers\n# WHERE city = 'Pune'\n# AND name LIKE 'A%'\n```"
    assert _one(reply) == "SELECT name FROM customers"
    assert unknown_layout_readings("SELECT a FROM t\n// WHERE x = 1\n// AND y = 2") == []


def test_sql_comments_are_never_a_margin() -> None:
    assert unknown_layout_readings("-- SELECT name\n-- FROM customers") == []


def test_an_interpolated_template_is_no_whole_query() -> None:
    assert string_queries("const q = `SELECT name FROM customers WHERE id = ${id}`;") == []
    assert string_queries("q = \"SELECT name FROM t WHERE id = #{id}\"") == []


def test_a_quote_left_open_in_a_comment_does_not_pair_the_quotes_after_it() -> None:
    reply = ('```java\n// don\'t forget the index\nString q = "SELECT name FROM customers " +\n'
             '    "WHERE city = \'Pune\'";\n```')
    assert _one(reply) == WANTED


def test_a_plain_sql_block_reads_as_before() -> None:
    reply = f"```sql\n{WANTED};\n```\nIn Go:\n```go\ndb.Query(\"SELECT city FROM customers\")\n```"
    assert _one(reply) == WANTED
    assert unknown_layout_readings(WANTED) == []


def test_a_long_reply_is_read_as_written() -> None:
    text = "x = 1\n" * 2_000 + '"SELECT a " + "FROM t"'
    assert unknown_layout_readings(text) == []


def test_a_margin_without_a_space_and_a_sessions_prompts_are_read() -> None:
    kotlin = '```kotlin\nval sql = """\n    |SELECT name\n    |FROM customers\n    |WHERE city = \'Pune\'\n""".trimMargin()\n```'
    assert _one(kotlin) == WANTED
    session = ('```pycon\n>>> cur.execute("""\n... SELECT name\n... FROM customers\n... WHERE city = \'Pune\'\n'
               '... """)\n>>> rows = cur.fetchall()\n```')
    assert _one(session) == WANTED


# Attack round 12 (each an input that broke a claim above): read right now, or left to fail visibly.
F = "```"


@pytest.mark.parametrize(("reply", "want"), [
    # U1: a line commented out of a built query stays out
    (f'{F}java\nString q = "SELECT name FROM customers "\n    // + "WHERE city = \'Pune\' "\n    + "ORDER BY name";\n{F}',
     "SELECT name FROM customers ORDER BY name"),
    (f'{F}go\nq := "SELECT name FROM customers" +\n\t// " WHERE city = \'Pune\'" +\n\t" ORDER BY name"\n{F}',
     "SELECT name FROM customers ORDER BY name"),
    (f'{F}php\n$q = "SELECT name FROM customers "\n   # . "WHERE city = \'Pune\' "\n   . "ORDER BY name";\n{F}',
     "SELECT name FROM customers ORDER BY name"),
    # U2: marked lines beside SQL that starts mid-line are comments
    (f"{F}sql\n/* all customers */ SELECT name FROM customers\n# WHERE city = 'Pune'\n# AND active = 1\n{F}",
     "SELECT name FROM customers"),
    ("Use this: SELECT name FROM customers\n\n> WHERE city = 'Pune'\n> is not needed since you asked for all customers",
     "SELECT name FROM customers"),
    # U4: two calls that each run a query are two queries; the last one written answers
    (f'{F}go\ndb.Query("SELECT name FROM customers")\ndb.Query("SELECT id FROM orders WHERE amount > 50")\n{F}',
     "SELECT id FROM orders WHERE amount > 50"),
    (f'{F}javascript\nconst rows = db.exec("SELECT name FROM customers ");\nconsole.log("ORDER BY name gives them '
     f'sorted");\n{F}', "SELECT name FROM customers"),
    # U9: Haskell's quasi-quote
    (f"{F}haskell\nrows <- query_ conn [sql| SELECT name FROM customers WHERE city = 'Pune' |]\n{F}", WANTED),
])
def test_attack_round_12_readings(reply: str, want: str) -> None:
    assert _one(reply) == want


@pytest.mark.parametrize("code", [
    # U3: a value joined on the next line
    'String sql = "SELECT name FROM customers " +\n             where;',
    'String sql = "SELECT name FROM customers WHERE active = 1 " +\n    (city != null ? "AND city = ?" : "");',
    'var sql = "SELECT name FROM customers " +\n        whereClause +\n        " ORDER BY name";',
    'val q = "SELECT name FROM customers"\n    + extra',
    # U5: formatting puts a value in
    "q = \"SELECT name FROM customers WHERE city = '%s'\" % city",
    "q = \"SELECT name FROM customers WHERE city = '%(city)s'\" % {'city': city}",
    "q = \"SELECT name FROM customers WHERE city = '{}'\".format(city)",
    'String q = String.format("SELECT name FROM customers WHERE city = \'%s\'", city);',
    # U6: the variable given the query is built on later
    "base = \"SELECT name FROM customers WHERE active = 1\"\nq = f\"{base} AND city = 'Pune'\"",
    "base = \"SELECT name FROM customers WHERE active = 1\"\nq = \" \".join([base, \"AND city = 'Pune'\"])",
    "q = \"SELECT name FROM customers WHERE active = 1\"\nif city:\n    q += (\" AND city = '%s'\" % city)",
    # U8: Swift's interpolation
    'let q = "SELECT name FROM customers WHERE id = \\(id)"',
])
def test_attack_round_12_built_queries_hold_no_whole_query(code: str) -> None:
    assert string_queries(code) == []
    assert all("customers" not in r or "Pune" not in r for r in unknown_layout_readings(code)), code


def test_a_query_only_run_is_read_where_it_is_passed_on() -> None:
    code = 'sql <- "SELECT name FROM customers WHERE city = \'Pune\'"\nres <- dbGetQuery(con, sql)\nprint(res)'
    assert string_queries(code) == [WANTED]


def test_a_listing_of_many_statements_is_read_as_written() -> None:
    """U10: a block of many marked statement lines is no one query's layout (and was slow to read again)."""
    block = "// SELECT a\n" * 166
    assert unknown_layout_readings(block) == []


def test_a_cpp_raw_string_is_read() -> None:
    reply = (f'{F}cpp\nconst char* q = R"(SELECT name\nFROM customers\nWHERE city = \'Pune\')";\n'
             f'sqlite3_exec(db, q, cb, 0, &err);\n{F}')
    assert _one(reply, "sqlite") == WANTED
    assert _one(f'{F}cpp\nauto q = R"sql(SELECT name FROM customers WHERE city = \'Pune\')sql";\n{F}') == WANTED


def test_a_notebook_cells_source_lines_are_one_query() -> None:
    """A Jupyter cell's JSON: its source is a list of the text's lines, each ending in its line break."""
    reply = (f'{F}json\n{{\n "cell_type": "code",\n "source": [\n  "SELECT name\\n",\n  "FROM customers\\n",\n'
             f'  "WHERE city = \'Pune\'"\n ]\n}}\n{F}')
    assert _one(reply) == WANTED
    assert string_queries('parts = ["SELECT name", "FROM customers"]') == ["SELECT name"]  # no line breaks: items


def test_a_query_given_clause_by_clause_is_written_in_sqls_order() -> None:
    reply = (f'{F}json\n{{"query": {{"select": ["name", "COUNT(*) AS n"], "from": "customers", "where": '
             f'["city = \'Pune\' OR city = \'Goa\'", "active = 1"], "group_by": ["name"], "order_by": "n DESC", '
             f'"limit": 5}}}}\n{F}')
    assert _one(reply) == ("SELECT name, COUNT(*) AS n FROM customers WHERE (city = 'Pune' OR city = 'Goa') AND "
                           "(active = 1) GROUP BY name ORDER BY n DESC LIMIT 5")
    odd = f'{F}json\n{{"select": ["name"], "from": "customers", "filter_if": "x"}}\n{F}'  # a key naming no clause
    assert "FROM customers" not in extract_queries(odd, "postgres")[0]  # nothing is composed (it fails visibly)


def test_a_clients_settings_before_the_query_are_not_its_statement() -> None:
    reply = (f"Run this in SQL*Plus:\n\n{F}sql\nSET PAGESIZE 100\nSET LINESIZE 200\nCOLUMN name FORMAT A30\n\n"
             f"SELECT name\nFROM customers\nWHERE city = 'Pune';\n{F}")
    assert _one(reply) == WANTED


def test_a_value_interpolated_by_name_and_a_cells_leading_comment() -> None:
    """Attack round 12/13: PowerShell's "… '$city'" holds a value; a notebook cell's first line may be a comment."""
    assert string_queries("Invoke-Sqlcmd -Query \"SELECT name FROM customers WHERE city = '$city'\"") == []
    cell = (f'{F}json\n{{"cell_type": "code", "source": [\n  "-- customers in Pune\\n",\n  "SELECT name\\n",\n'
            f'  "FROM customers\\n",\n  "WHERE city = \'Pune\'"\n]}}\n{F}')
    assert _one(cell) == WANTED


def test_a_clause_by_clause_query_with_a_with_list() -> None:
    reply = (f'{F}json\n{{"query": {{"with": "pune AS (SELECT name FROM customers WHERE city = \'Pune\')", '
             f'"select": ["name"], "from": "pune", "limit": 5, "offset": 5}}}}\n{F}')
    assert _one(reply) == ("WITH pune AS (SELECT name FROM customers WHERE city = 'Pune') SELECT name FROM pune "
                           "LIMIT 5 OFFSET 5")


def test_a_statement_after_the_query_that_starts_with_a_percent_sign_is_no_formatting() -> None:
    """Elixir's ``%{rows: rows} = …`` on the line after the heredoc (a fresh23 regression from the % rule)."""
    reply = (f'{F}elixir\nsql = """\n  SELECT name\n  FROM customers\n  WHERE city = \'Pune\'\n"""\n\n'
             f'%{{rows: rows}} = Ecto.Adapters.SQL.query!(Repo, sql, [])\n{F}')
    assert _one(reply) == WANTED


def test_a_long_query_with_many_selects_on_its_lines_is_one_statement() -> None:
    """fresh22's C literals and Python session: a WITH query whose numbers table is ``SELECT 0 UNION ALL SELECT 1 …``."""
    numbers = " UNION ALL ".join(f"SELECT {n}" for n in range(12))
    query = f"WITH n AS ({numbers}) SELECT name FROM customers WHERE city = 'Pune'"
    reply = f'{F}c\nconst char *sql =\n    "{query}";\n{F}'
    assert _one(reply) == query


def test_a_one_line_margin_string_is_read() -> None:
    reply = f'{F}kotlin\nval sql = """\n    |{WANTED}\n""".trimMargin()\n{F}'
    assert _one(reply) == WANTED


FRESH24_LAYOUTS = [  # held-out fresh24, measured: each failed visibly before
    # a Haskell quasi-quote after ``<-`` (code, no arrow annotation)
    "```haskell\nmain = do\n  rows <- query_ conn [sql|\n    SELECT name\n    FROM customers\n"
    "    WHERE city = 'Pune'\n  |] :: IO [[Maybe String]]\n  mapM_ print rows\n```",
    # Delphi's SQL.Add lines (each a line), Pascal's doubled quotes
    "```pascal\nbegin\n  Query1.SQL.Clear;\n  Query1.SQL.Add('SELECT name');\n  Query1.SQL.Add('FROM customers');\n"
    "  Query1.SQL.Add('WHERE city = ''Pune''');\n  Query1.Open;\nend;\n```",
    # Stata's compound quotes
    "```stata\nlocal q `\"SELECT name FROM customers WHERE city = 'Pune'\"'\nodbc load, exec(`\"`q'\"') dsn(\"x\") "
    "clear\n```",
    # a C cursor's embedded SQL, the program going on after its ``;``
    "```c\nEXEC SQL BEGIN DECLARE SECTION;\n  char name[256];\nEXEC SQL END DECLARE SECTION;\n\nEXEC SQL DECLARE c "
    "CURSOR FOR\n    SELECT name\n    FROM customers\n    WHERE city = 'Pune';\n\nEXEC SQL OPEN c;\nfor (;;) {\n"
    "  EXEC SQL FETCH c INTO :name;\n  if (sqlca.sqlcode != 0) break;\n}\nEXEC SQL CLOSE c;\n```",
]


@pytest.mark.parametrize("reply", FRESH24_LAYOUTS)
@pytest.mark.parametrize("dialect", ["postgres", "sqlite"])
def test_more_programs_no_reader_knows_are_read(reply: str, dialect: str) -> None:
    assert _one(reply, dialect) == WANTED


def test_an_arrow_before_code_is_no_annotation() -> None:
    """``df <- dbGetQuery(con, "SELECT …")``: R's assignment, not a note after an arrow."""
    reply = '```r\ndf <- dbGetQuery(con, "SELECT name FROM customers WHERE city = \'Pune\'")\n```'
    assert _one(reply) == WANTED


@pytest.mark.parametrize(("reply", "wanted"), [  # attack round 15
    # a listing's last query answers: PRINT between two queries is no program running the first
    ("```sql\nSELECT COUNT(*) FROM customers;\nPRINT 'per city';\nSELECT city, COUNT(*) FROM customers GROUP BY city;\n```",
     "SELECT city, COUNT(*) FROM customers GROUP BY city"),
    # a stray ';' before FETCH FIRST: the limit is the query's, never a program's step
    ("```sql\nSELECT name FROM customers ORDER BY name;\nFETCH FIRST 5 ROWS ONLY;\n```", None),
    # a note after an arrow that holds a dollar sign is still a note
    ("```sql\nSELECT name FROM customers WHERE city = 'Pune'  <- only orders above $70\n```", WANTED),
    # a JS template literal `"Report"` and a later "': no Stata string across them
    ("```js\nconst title = `\"Report\"`;\nconst q = \"SELECT name FROM customers WHERE city = 'Pune'\";\n"
     "console.log(\"done\"');\n```", WANTED),
])
def test_readings_that_would_lose_the_answer_are_not_taken(reply: str, wanted: str | None) -> None:
    if wanted is None:
        try:
            got = _one(reply)
        except LLMReplyError:
            return
        assert "FETCH" in got or "LIMIT" in got, got  # never the query without its limit
    else:
        assert _one(reply) == wanted


@pytest.mark.parametrize("reply", [  # attack round 15: older forms of the same programs
    "```pascal\nQuery1.SQL.Text := 'SELECT name' + #13#10 + 'FROM customers' + #13#10 + 'WHERE city = ''Pune''';\n```",
    '```csharp\nvar sb = new StringBuilder();\nsb.AppendLine("SELECT name");\nsb.AppendLine();\n'
    'sb.AppendLine("FROM customers");\nsb.AppendLine("WHERE city = \'Pune\'");\n```',
])
def test_line_breaks_written_as_characters_or_empty_lines_join_the_query(reply: str) -> None:
    assert _one(reply) == WANTED


def test_a_comment_that_starts_with_a_number_stays_a_comment() -> None:
    reply = "```python\n#1 best: don't filter\nq = \"SELECT name FROM customers WHERE city = 'Pune'\"\n```"
    assert _one(reply) == WANTED


def test_a_query_read_to_its_strings_end_keeps_its_last_words() -> None:
    """fresh24: ``… ) AS sf`` then Haskell's ``|]``: the string's end is no more SQL, so the statement ends there (it
    was read from its inner ``(SELECT`` and lost ``sf``)."""
    reply = ("```haskell\nmain = do\n  rows <- query_ conn [sql|\n    SELECT AVG(s.n) AS avg_n\n    FROM (SELECT city, "
             "COUNT(*) AS n\n    FROM customers\n    GROUP BY city) AS s\n  |] :: IO [[Maybe String]]\n```")
    assert _one(reply) == "SELECT AVG(s.n) AS avg_n FROM (SELECT city, COUNT(*) AS n FROM customers GROUP BY city) AS s"


def test_a_subquery_found_as_written_gives_way_to_the_whole_query_a_reading_holds() -> None:
    """fresh22 regression found this session: a Python session's ``... `` margins hide the query's own lines, so as
    written only its inner ``(SELECT …)`` parsed (a string's end after it read as prose); the margin-free reading holds
    that subquery whole and is the query."""
    reply = ('```pycon\n>>> rows = conn.execute("""\n... SELECT name\n... FROM customers\n... WHERE id IN (SELECT cid '
             'FROM orders WHERE total > 5)\n... """).fetchall()\n```')
    assert _one(reply, "sqlite") == "SELECT name FROM customers WHERE id IN (SELECT cid FROM orders WHERE total > 5)"


def _stream(pieces: list[str], chat: bool = False) -> str:
    import json
    if chat:
        return "\n".join("data: " + json.dumps({"choices": [{"delta": {"content": p}}]}) for p in pieces) + \
            "\ndata: [DONE]"
    return "\n".join(json.dumps({"model": "phi3:mini", "created_at": "2025-03-24T19:44:00Z", "response": p,
                                 "done": False}) for p in pieces) + '\n{"model": "phi3:mini", "response": "", "done": true}'


_PIECES = ["Here", " is", " the", " query", ":\n\n```", "sql\nSELECT", " name", " FROM", " customers", " WHERE",
           " city", " =", " 'Pune'", "\n```"]
FRESH25_LAYOUTS = [  # held-out fresh25, measured: each failed visibly before
    _stream(_PIECES), _stream(_PIECES, chat=True),  # a model's raw token stream (Ollama's NDJSON, OpenAI's SSE)
    # syntax-highlighted HTML (Pygments spans), in a fence labelled html
    '```html\n<div class="highlight"><pre><span></span><span class="k">SELECT</span> <span class="n">name</span> '
    '<span class="k">FROM</span> <span class="n">customers</span> <span class="k">WHERE</span> <span class="n">city'
    '</span> <span class="o">=</span> <span class="s1">&#39;Pune&#39;</span>\n</pre></div>\n```',
    # a terminal's colour codes
    "```\n\x1b[1;34mSELECT\x1b[0m name \x1b[1;34mFROM\x1b[0m customers \x1b[1;34mWHERE\x1b[0m city = "
    "\x1b[32m'Pune'\x1b[0m\n```",
    # a Databricks notebook's # MAGIC margin
    "```python\n# Databricks notebook source\n# MAGIC %sql\n# MAGIC SELECT name\n# MAGIC FROM customers\n"
    "# MAGIC WHERE city = 'Pune'\n\n# COMMAND ----------\n```",
    # fill-in-the-middle tokens, StarCoder's and DeepSeek's
    "```sql\n<fim_prefix>SELECT name FROM customers <fim_suffix>WHERE city = 'Pune'<fim_middle>\n```",
    "```sql\nSELECT name FROM customers WHERE city<｜fim▁hole｜> = 'Pune'<｜fim▁end｜>\n```",
    # a link that carries the query (Datasette)
    "Click: http://127.0.0.1:8001/shop-b10?sql=SELECT+name+FROM+customers+WHERE+city+%3D+%27Pune%27",
    # an XML document's CDATA (a Confluence code macro)
    '<ac:structured-macro ac:name="code">\n  <ac:plain-text-body><![CDATA[SELECT name\nFROM customers\n'
    "WHERE city = 'Pune']]></ac:plain-text-body>\n</ac:structured-macro>",
    # Markdown strikethrough of a part taken back, a chat tool's citation mark
    "```sql\nSELECT name FROM customers WHERE ~~country~~ city = 'Pune' 【6†schema.sql】\n```",
    # Teradata's SEL; an evaluation file's line (query, tab, database)
    "```sql\nSEL name FROM customers WHERE city = 'Pune'\n```",
    "```sql\nWITH c AS (SEL name, city FROM customers) SEL name FROM c WHERE city = 'Pune'\n```",
    "SELECT name FROM customers WHERE city = 'Pune'\tshop_b107573b",
    # one clause per bullet, its WITH first
    "- `WITH c AS (SELECT name, city FROM customers)` — helper rows first\n- `SELECT name` — the columns\n"
    "- `FROM c` — the table\n- `WHERE city = 'Pune'` — the filter",
]


@pytest.mark.parametrize("reply", FRESH25_LAYOUTS)
@pytest.mark.parametrize("dialect", ["postgres", "sqlite"])
def test_fresh25_layouts_are_read(reply: str, dialect: str) -> None:
    got = _one(reply, dialect)
    assert got == WANTED or got == ("WITH c AS (SELECT name, city FROM customers) SELECT name FROM c WHERE city = "
                                    "'Pune'"), got


@pytest.mark.parametrize("reply", [
    "```sql\nSELECT name FROM customers WHERE name ~~ 'P%' AND city ~~ 'Pune'\n```",  # PostgreSQL's ~~ is LIKE
    "```sql\nSELECT name FROM customers WHERE city = 'a\tb'\n```",  # a tab inside a value
    '{"a": 1}\n{"b": 2}\n{"c": 3}\nSELECT name FROM customers',  # JSON lines carrying no text
])
def test_what_looks_like_noise_but_is_sql_stays(reply: str) -> None:
    assert extract_queries(reply, "postgres")[0].strip().startswith("SELECT name FROM customers WHERE") or \
        "customers" in extract_queries(reply, "postgres")[0]


@pytest.mark.parametrize(("reply", "wanted"), [  # attack round 17: what looked like noise was data or SQL
    ("```sql\nSELECT COUNT(*) FROM posts WHERE body LIKE '%<span class=\"spoiler\">%'\n```",
     "SELECT COUNT(*) FROM posts WHERE body LIKE '%<span class=\"spoiler\">%'"),
    ("SELECT id FROM posts WHERE body LIKE '%<span class=\"x\">Tom &amp; Jerry</span>%'",
     "SELECT id FROM posts WHERE body LIKE '%<span class=\"x\">Tom &amp; Jerry</span>%'"),
    ("```sql\nSELECT id FROM feeds WHERE payload = '<![CDATA[hello]]>'\n```",
     "SELECT id FROM feeds WHERE payload = '<![CDATA[hello]]>'"),
    ("```sql\nSELECT id FROM posts WHERE note = '~~draft~~ final'\n```",
     "SELECT id FROM posts WHERE note = '~~draft~~ final'"),
    ("```sql\nSELECT id FROM posts WHERE note LIKE '【新品】%'\n```", "SELECT id FROM posts WHERE note LIKE '【新品】%'"),
    ("```sql\nSELECT name FROM t WHERE name~~'%x%' OR name~~'%y%'\n```",
     "SELECT name FROM t WHERE name~~'%x%' OR name~~'%y%'"),
    ("```sql\nSELECT name FROM t WHERE name !~~ 'a%' AND name !~~ 'b%'\n```",
     "SELECT name FROM t WHERE name !~~ 'a%' AND name !~~ 'b%'"),
    ("```sql\nSELECT name, age FROM singer ORDER BY age\tDESC\n```", "SELECT name, age FROM singer ORDER BY age DESC"),
    ("```sql\nSELECT name FROM singer ORDER BY age\tDESC\nLIMIT 1\n```",
     "SELECT name FROM singer ORDER BY age DESC LIMIT 1"),
    ("I first tried http://127.0.0.1:8001/shop?sql=select+id+from+orders+where+status%3D%27closed%27 but that shows "
     "the closed ones. Corrected:\n```sql\nSELECT id FROM orders WHERE status = 'open'\n```",
     "SELECT id FROM orders WHERE status = 'open'"),
    ("".join('{"response": "I liked it", "rating": %d}\n' % i for i in range(30))
     + "```sql\nSELECT AVG(rating) FROM feedback\n```", "SELECT AVG(rating) FROM feedback"),
    ("".join('{"id": %d, "choices": [{"text": "option %d"}]}\n' % (i, i) for i in range(12))
     + "SELECT COUNT(*) FROM polls", "SELECT COUNT(*) FROM polls"),
    ("SELECT sel FROM t ORDER BY sel DESCENDING", "SELECT sel FROM t ORDER BY sel DESC"),
    ("SELECT x, 'SEL' AS k FROM t ORDER BY x DESCENDING", "SELECT x, 'SEL' AS k FROM t ORDER BY x DESC"),
])
def test_data_and_sql_that_look_like_noise_are_read_as_written(reply: str, wanted: str) -> None:
    assert _one(reply) == wanted


def test_a_cdata_section_in_an_xml_block_is_read() -> None:
    reply = ("Paste this:\n\n```xml\n<ac:structured-macro ac:name=\"code\">\n  <ac:plain-text-body><![CDATA[SELECT name\n"
             "FROM customers\nWHERE city = 'Pune']]></ac:plain-text-body>\n</ac:structured-macro>\n```\n\n"
             "<select id=\"q\">\n  <![CDATA[SELECT 1]]>\n</select>")
    assert _one(reply) in (WANTED, "SELECT 1")
    assert _one(reply.split("\n\n<select")[0]) == WANTED
