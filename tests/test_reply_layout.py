"""Reply layouts that hide where the SQL is (core.sql.layout, through ``extract_queries``): an end-of-turn
token written as text, a query inside a Python program, a query sent in parts, a query repeated until the token
limit cut it. Each reads as the one statement; what only looks like them is left as it was."""

from __future__ import annotations

import pytest

from core.errors import LLMReplyError, SQLRejected
from core.sql import extract_queries, extract_sql, guard

Q = "SELECT name, SUM(total) AS spent FROM customer JOIN invoice USING (customer_id) GROUP BY name"


def _error(reply: str) -> str:
    with pytest.raises(LLMReplyError) as caught:
        extract_sql(reply, "postgres")
    return str(caught.value)


def _first(reply: str, dialect: str = "sqlite") -> str:
    return " ".join(extract_queries(reply, dialect)[0].split())


@pytest.mark.parametrize("token", ["<|im_end|>", "<|eot_id|><|start_header_id|>user<|end_header_id|>", "</s>",
                                   "<|endoftext|>", "<end_of_turn>", "<｜end▁of▁sentence｜>"])
def test_the_reply_ends_at_an_end_of_turn_token_written_as_text(token: str) -> None:
    reply = f"```sql\n{Q}\n{token}\nHuman: and per country?\n\nAssistant: SELECT country FROM customer"
    assert _first(reply) == Q  # no ';' and no closing fence: the token says the model finished


def test_a_turn_token_before_any_text_is_dropped() -> None:
    assert _first(f"<|im_start|>assistant\n```sql\n{Q};\n```") == Q


def test_a_reply_without_a_turn_token_that_stops_in_its_block_is_still_cut_off() -> None:
    from core.errors import LLMReplyError

    with pytest.raises(LLMReplyError, match="cut off"):
        extract_queries(f"```sql\n{Q}\nORDER BY spent", "sqlite")


@pytest.mark.parametrize("code", [
    f'import sqlite3\nconn = sqlite3.connect("shop.db")\nquery = """\n    {Q}\n"""\nrows = conn.execute(query).fetchall()',
    f'cur.execute("{Q}")\nprint(cur.fetchall())',
    f"df = pd.read_sql_query(\n    '{Q} '\n    'ORDER BY spent DESC', conn)",  # pieces Python joins
])
def test_a_query_inside_a_python_program_is_read_from_its_string(code: str) -> None:
    reply = f"Run this script:\n\n```python\n{code}\n```\nIt prints each row."
    assert _first(reply).startswith(Q)


def test_a_python_block_with_no_query_string_is_no_sql() -> None:
    from core.errors import LLMReplyError

    with pytest.raises(LLMReplyError):
        extract_queries('```python\nprint("hello")\n```', "sqlite")


@pytest.mark.parametrize("label", ["(2/2) continued:", "**Part 2/2**", "Continuing:"])
def test_a_query_sent_in_parts_is_joined(label: str) -> None:
    reply = (f"It is long, so in parts.\n\n(1/2)\n```sql\n{Q}\n```\n\n{label}\n```sql\nORDER BY spent DESC\nLIMIT 5;\n"
             "```\nJoin the parts.")
    assert _first(reply) == f"{Q} ORDER BY spent DESC LIMIT 5"


def test_an_optional_clause_offered_in_a_sentence_is_not_joined() -> None:
    reply = (f"```sql\n{Q}\n```\n\nIf you only want the big spenders, you can also add this at the end:\n```sql\n"
             "HAVING SUM(total) > 40\n```")
    assert _first(reply) == Q


def test_a_part_after_a_finished_statement_is_not_joined() -> None:
    reply = f"```sql\n{Q};\n```\n(2/2)\n```sql\nORDER BY spent\n```"
    assert _first(reply) == Q


@pytest.mark.parametrize("sep", ["\n", ";\n", " "])
def test_a_query_repeated_until_cut_off_is_one_copy(sep: str) -> None:
    reply = f"Here:\n```sql\n{Q}{sep}{Q}{sep}{Q}{sep}SELECT name, SUM(tot"
    assert _first(reply) == Q


def test_a_statement_that_repeats_its_own_beginning_is_not_a_loop() -> None:
    union = "SELECT name FROM customer WHERE country = 'IN' UNION ALL SELECT name FROM customer WHERE country = 'IN'"
    assert _first(f"```sql\n{union}\n```") == union
    assert _first(f"```sql\n{Q}\n{Q}\n```") == Q  # two whole copies in a closed block: the same one statement


def test_a_with_clause_sent_before_its_query_is_joined_to_it() -> None:
    reply = ("(1/2)\n```sql\nWITH spend AS (SELECT customer_id, SUM(total) AS s FROM invoice GROUP BY customer_id)\n```\n"
             "(2/2) continued:\n```sql\nSELECT customer_id FROM spend ORDER BY s DESC;\n```")
    assert _first(reply).startswith("WITH spend AS") and _first(reply).endswith("ORDER BY s DESC")


def test_a_whole_with_query_and_its_correction_stay_apart() -> None:
    draft = "WITH spend AS (SELECT customer_id, SUM(total) AS s FROM invoice GROUP BY customer_id) SELECT * FROM (SELECT 1)"
    reply = f"```sql\n{draft}\n```\nCorrected:\n```sql\nSELECT customer_id FROM invoice\n```"
    assert _first(reply) == "SELECT customer_id FROM invoice"


def test_one_whole_copy_and_the_cut_beginning_of_the_next_is_one_copy() -> None:
    assert _first(f"```sql\n{Q};\n\nSELECT name, SUM(total) AS spent FROM") == Q
    assert _first(f"```sql\n{Q}\nSELECT name, SUM(total) AS spent FROM customer JOIN") == Q


def test_a_statement_cut_at_a_dangling_where_never_reads_the_closing_fence_as_a_name() -> None:
    # Read as a whole, "WHERE\n```" had read two backticks as an empty name: WHERE "" ran.
    for reply in ("```sql\nSELECT name FROM customer WHERE\n```", "Here:\n```sql\nSELECT name FROM customer WHERE\n```"):
        try:
            assert "`" not in extract_queries(reply, "sqlite")[0]
        except Exception as exc:  # refused as cut off is as good: never run with an invented condition
            assert "cut off" in str(exc) or "more must follow" in str(exc)


@pytest.mark.parametrize("reply", ["```sql\nSELECT fare FROM flight WHERE origin = ’JFK’ AND dest = ‘LAX‘;\n```",
                                   "SELECT fare FROM flight WHERE origin = ’JFK’ AND dest = ’LAX’;"])
def test_values_in_typographic_quotes_of_one_direction_are_values(reply: str) -> None:
    assert _first(reply) == "SELECT fare FROM flight WHERE origin = 'JFK' AND dest = 'LAX'"


def test_an_apostrophe_in_the_prose_is_not_a_quote() -> None:
    reply = "It’s simple: the customer’s total is\n```sql\nSELECT name FROM customer WHERE name = 'O’Brien';\n```"
    assert _first(reply) == "SELECT name FROM customer WHERE name = 'O’Brien'"


def test_a_query_in_bracket_tags_is_read() -> None:
    assert _first(f"Here is the query.\n\n[SQL]{Q};[/SQL]\n\nThis should work.") == Q


def test_a_comma_that_ends_its_list_before_a_clause_is_dropped() -> None:
    assert _first("```sql\nSELECT name, total, FROM invoice ORDER BY total DESC, LIMIT 5\n```") == (
        "SELECT name, total FROM invoice ORDER BY total DESC LIMIT 5")


@pytest.mark.parametrize("reply", [f"यह रही आपकी SQL query: {Q} यह query सही result देगी।",
                                   f"Вот запрос: {Q} он вернёт итог."])
def test_a_query_inline_in_a_sentence_of_another_script_ends_before_its_words(reply: str) -> None:
    assert _first(reply) == Q


def test_a_value_in_another_script_stays_whole() -> None:
    sql = "SELECT name FROM customer WHERE city = 'नई दिल्ली'"
    assert _first(f"यह रही query: {sql} इससे मिलेगा।") == sql


# --- what only looks like these layouts (attack round 3) ----------------------------------------------------------

@pytest.mark.parametrize("value", ["%</s>%", "<eos>", "%<|endoftext|>%"])
def test_a_turn_token_inside_a_quoted_value_is_text(value: str) -> None:
    sql = f"SELECT COUNT(*) FROM pages WHERE html LIKE '{value}'"
    assert _first(f"```sql\n{sql};\n```") == sql


def test_a_turn_token_in_the_thinking_or_an_html_strike_in_the_prose_does_not_end_the_reply() -> None:
    assert _first(f"<think>maybe </s> no</think>\n```sql\n{Q};\n```") == Q
    assert _first(f"The <s>old</s> way is gone. Use:\n```sql\n{Q};\n```") == Q


@pytest.mark.parametrize(("label", "option"), [("For the top 3 only:", "LIMIT 3"), ("Only busy ones:", "HAVING COUNT(*) > 1"),
                                               ("Next page:", "OFFSET 2"), ("To include more:", "UNION SELECT 'x', 0")])
def test_an_option_after_a_short_label_is_offered_never_run(label: str, option: str) -> None:
    queries = extract_queries(f"```sql\n{Q}\n```\n{label}\n```sql\n{option}\n```", "sqlite")
    assert " ".join(queries[0].split()) == Q  # the first block stays the answer
    assert any(option.split()[0] in q for q in queries[1:])  # the whole query is among the others, to offer


def test_a_query_a_python_program_builds_from_pieces_is_no_one_piece() -> None:
    from core.errors import LLMReplyError

    code = 'base = "SELECT origin, COUNT(*) AS n FROM flights"\nquery = base + " WHERE delay > 30 GROUP BY origin"'
    with pytest.raises(LLMReplyError):
        extract_queries(f"```python\n{code}\ncur.execute(query)\n```", "sqlite")
    with pytest.raises(LLMReplyError):
        extract_queries('```python\nq = f"SELECT n FROM t WHERE y = {year}"\n```', "sqlite")


def test_a_python_block_after_the_sql_block_only_shows_how_to_run_it() -> None:
    reply = f"```sql\n{Q};\n```\nRun it:\n```python\ncur.execute(\"SELECT name FROM customer WHERE id = ?\", (5,))\n```"
    assert _first(reply) == Q


def test_a_with_clause_shown_alone_then_the_whole_query_is_not_joined() -> None:
    cte = "WITH spend AS (SELECT customer_id, SUM(total) AS s FROM invoice GROUP BY customer_id)"
    whole = f"{cte} SELECT customer_id FROM spend ORDER BY s DESC"
    assert _first(f"The CTE:\n```sql\n{cte}\n```\nThe query:\n```sql\n{whole}\n```") == whole


def test_a_repeated_query_keeps_its_lines_and_comments() -> None:
    sql = "SELECT name -- who\nFROM customer\nWHERE country = 'IN'"
    assert extract_queries(f"```sql\n{sql}\n{sql}\n{sql[:20]}", "sqlite")[0].startswith("SELECT name -- who\nFROM")


@pytest.mark.parametrize("reply", ["I can't answer that.\n```sql\n```", "```sql\n-- no query needed\n```", "```\n\n```"])
def test_an_empty_block_or_one_of_comments_is_no_sql_not_a_crash(reply: str) -> None:
    from core.errors import LLMReplyError

    with pytest.raises(LLMReplyError):
        extract_queries(reply, "sqlite")


def test_a_comment_in_another_script_inside_the_sql_is_no_end() -> None:
    sql = "SELECT name -- ग्राहक का नाम\nFROM customer\nWHERE country = 'IN'"
    assert extract_queries(f"यह रही query:\n```sql\n{sql}\n```", "sqlite")[0].endswith("WHERE country = 'IN'")
    assert extract_queries(f"यह रही query: {sql} यह सही है।", "sqlite")[0].endswith("WHERE country = 'IN'")


# --- fresh12's layouts (development after its one measurement) -----------------------------------------------------

@pytest.mark.parametrize("mark", ["{n}: ", "{n} | ", "{n}. ", "{n}) "])
def test_a_block_numbered_line_by_line_is_read_without_its_numbers(mark: str) -> None:
    lines = ["SELECT name, SUM(total) AS spent", "FROM customer JOIN invoice USING (customer_id)", "GROUP BY name"]
    block = "\n".join(mark.format(n=i) + line for i, line in enumerate(lines, start=1))
    assert _first(f"Line by line:\n```sql\n{block}\n```\nLine 1 picks the columns.") == Q


def test_a_query_whose_lines_start_with_numbers_of_its_own_is_not_renumbered() -> None:
    sql = "SELECT 1 AS one,\n2 AS two"
    assert _first(f"```sql\n{sql}\n```") == "SELECT 1 AS one, 2 AS two"


@pytest.mark.parametrize("made", ["CREATE TEMP TABLE spend AS", "CREATE TEMPORARY VIEW spend AS", "CREATE TABLE spend AS",
                                  "DROP VIEW IF EXISTS spend;\nCREATE VIEW spend AS"])
def test_a_table_or_view_made_from_a_query_and_then_read_is_that_query(made: str) -> None:
    reply = f"Store it first:\n```sql\n{made}\n{Q};\n\nSELECT * FROM spend ORDER BY spent DESC;\n```"
    sql = _first(reply)
    assert sql.startswith("WITH spend AS (SELECT") and sql.endswith("SELECT * FROM spend ORDER BY spent DESC")


def test_a_made_table_that_is_written_to_is_left_for_the_guard() -> None:
    reply = "```sql\nCREATE TABLE t AS SELECT 1 AS a;\nINSERT INTO t VALUES (2);\nSELECT * FROM t;\n```"
    assert "CREATE" in extract_queries(reply, "sqlite")[0].upper()


def test_a_query_given_only_as_inline_code_pieces_is_joined() -> None:
    reply = ("Step by step:\n- `SELECT name, SUM(total) AS spent` - picks the output\n"
             "- `FROM customer JOIN invoice USING (customer_id)` - reads the tables\n- `GROUP BY name` - groups\nDone.")
    assert _first(reply) == Q


def test_a_danda_right_after_the_sql_ends_the_statement() -> None:
    assert _first(f"Jawab ke liye query hai: {Q} ।") == Q
    assert _first("query: SELECT name FROM customer WHERE city = 'नई दिल्ली।' ।") == (
        "SELECT name FROM customer WHERE city = 'नई दिल्ली।'")


def test_a_fence_left_open_before_a_paragraph_of_prose_is_not_cut_off() -> None:
    reply = f"Bilkul!\n```sql\n{Q}\n\nYeh query pehle tables ko join karti hai, phir total nikalti hai."
    assert _first(reply) == Q


def test_a_drop_of_a_table_the_block_does_not_make_is_left_for_the_guard_to_refuse() -> None:
    reply = "```sql\nDROP TABLE users;\nCREATE VIEW v AS SELECT 1 AS a;\nSELECT * FROM v;\n```"
    assert extract_queries(reply, "sqlite")[0].upper().startswith("DROP TABLE")


# --- fresh13's layouts (round of issue 27) ---------------------------------------------------------------------------

def test_a_role_header_before_the_query_is_dropped() -> None:
    for head in ("<|start_header_id|>assistant<|end_header_id|>\n\n", "<|im_start|>assistant\n"):
        assert extract_sql(head + "SELECT a\nFROM t;", "postgres") == "SELECT a\nFROM t"
    # a turn token after text still ends the reply
    assert extract_sql("SELECT a FROM t;\n<|im_end|>\n<|im_start|>user\nSELECT b FROM u", "postgres") == "SELECT a FROM t"


def test_a_one_line_fence_an_escaped_string_and_html_entities_are_read_back() -> None:
    assert extract_sql("Here:\n```sql SELECT a FROM t LIMIT 1; ```\nDone.", "postgres") == "SELECT a FROM t LIMIT 1"
    assert extract_sql("```sql\nselect a\\nfrom t\\nwhere b = 1;\n```", "postgres") == "select a\nfrom t\nwhere b = 1"
    assert extract_sql("Use: SELECT COUNT(*) AS n\\nFROM p\\nWHERE v = 'U'", "postgres") == (
        "SELECT COUNT(*) AS n\nFROM p\nWHERE v = 'U'")
    sql = extract_sql("```\nSELECT a FROM t\nWHERE v = &#39;Utility&#39; AND d &gt;= 3\n```", "postgres")
    assert sql == "SELECT a FROM t\nWHERE v = 'Utility' AND d >= 3"
    # a backslash-n inside a value, with no clause after it, is left as written
    assert "\\n" in extract_sql("```sql\nSELECT a FROM t WHERE p = 'C:\\new'\n```", "sqlite")


def test_a_diff_block_reads_as_the_query_after_the_change() -> None:
    reply = "Fix:\n```diff\n SELECT a, b\n+FROM t\n+ORDER BY a\n-LIMIT 1 -- TODO\n+LIMIT 1\n```"
    assert extract_sql(reply, "postgres") == "SELECT a, b\nFROM t\nORDER BY a\nLIMIT 1"
    assert "holds no SQL" in _error("```diff\n-old line\n+new line\n```")  # prose changes: no query


def test_select_into_is_read_as_its_rows_only_as_the_outermost_statement() -> None:
    assert guard(extract_sql("```sql\nSELECT a, b\nINTO result\nFROM t ORDER BY a;\n```", "postgres"),
                 "postgres").sql == "SELECT a, b FROM t ORDER BY a"
    assert guard(extract_sql("```sql\nselect count(*) as n into temp report from t\n```", "sqlite"),
                 "sqlite").sql == "SELECT COUNT(*) AS n FROM t"
    with pytest.raises(SQLRejected):
        guard(extract_sql("```sql\nSELECT a FROM t WHERE b IN (SELECT c INTO z FROM u)\n```", "postgres"), "postgres")
