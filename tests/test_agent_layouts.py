"""Replies in a coding agent's or a framework's own format, or through a transport's encoding
(``core.sql.layout._printed``, ``_encodings``; Aider's, Cline's and DSPy's formats are taken by the general readers):
Aider's SEARCH/REPLACE block, Cline's XML tool call, DSPy's output fields, a printed LlamaIndex ``Response``; e-mail's quoted-printable, a tokenizer's raw pieces, Telegram's
MarkdownV2 escapes. Each is read back to the query it carries, and the same marks inside a value or a plain reply
are left as written."""

from __future__ import annotations

import pytest

from core.sql import extract_sql

QUERY = "SELECT city, COUNT(*) FROM customers WHERE age > 30 GROUP BY city"


@pytest.mark.parametrize(("reply", "query"), [
    ("I'll change the query.\n\nqueries/report.sql\n```sql\n<<<<<<< SEARCH\nSELECT city FROM customers\n=======\n"
     f"{QUERY}\n>>>>>>> REPLACE\n```\n", QUERY),
    (f"report.sql\n<<<<<<< SEARCH\n=======\n{QUERY}\n>>>>>>> REPLACE\n", QUERY),
    ("Let me run it.\n<execute_command>\n<command>sqlite3 shop.db \"SELECT city, COUNT(*) FROM customers WHERE age "
     "&gt; 30 GROUP BY city;\"</command>\n<requires_approval>false</requires_approval>\n</execute_command>", QUERY),
    ("<execute_command>\n<command>psql -d shop -c \"SELECT city FROM customers WHERE name = 'Asha'\"</command>\n"
     "</execute_command>", "SELECT city FROM customers WHERE name = 'Asha'"),
    ("<write_to_file>\n<path>q/report.sql</path>\n<content>\nSELECT city FROM customers\n</content>\n"
     "</write_to_file>", "SELECT city FROM customers"),
    ("[[ ## reasoning ## ]]\nWe SELECT city and count per city.\n\n[[ ## sql_query ## ]]\n"
     f"{QUERY}\n\n[[ ## completed ## ]]", QUERY),
    ("Response(response='Pune has the most.', source_nodes=[], metadata={'6f2a': {'sql_query': \"SELECT city, "
     "COUNT(*) FROM customers WHERE name <> 'O''Neil' GROUP BY city\", 'result': [('Pune', 2)]}})",
     "SELECT city, COUNT(*) FROM customers WHERE name <> 'O''Neil' GROUP BY city"),
    ("Here it is:\n\n```sql\nSELECT city, COUNT(*) FROM customers WHERE status =3D 'active' AND name <> 'Jos=C3=A9' "
     "GROUP BY c=\nity\n```", "SELECT city, COUNT(*) FROM customers WHERE status = 'active' AND name <> 'José' "
     "GROUP BY city"),
    ("Try this:\n\n```\nSELECT city, COUNT(*) FROM customers WHERE age > 30 GROUP BY city ORDER BY =\nCOUNT(*) DESC, "
     "city\n```\nIsse aapko sahi result milna chahiye, bas ek baar chala ke dekh lijiye, aur kuch ho to bata=\ndijiye.",
     "SELECT city, COUNT(*) FROM customers WHERE age > 30 GROUP BY city ORDER BY COUNT(*) DESC, city"),  # Python's quopri
    ("```sql\nSELECTĠcity,ĠCOUNT(*)ĠFROMĠcustomersĠWHEREĠageĠ>Ġ30ĠGROUPĠBYĠcity\n```", QUERY),
    ("▁SELECT▁city,▁COUNT(*)▁FROM▁customers▁WHERE▁age▁>▁30▁GROUP▁BY▁city", QUERY),
    ("Here you go\\!\n```sql\nSELECT city, COUNT\\(\\*\\) FROM customers WHERE age \\>\\= 30 AND name \\= 'St\\. "
     "Louis' GROUP BY city\n```\nHope this helps\\.",
     "SELECT city, COUNT(*) FROM customers WHERE age >= 30 AND name = 'St. Louis' GROUP BY city"),
])
def test_an_agent_format_or_a_transport_encoding_is_read_to_its_query(reply: str, query: str) -> None:
    assert " ".join(extract_sql(reply, "sqlite").split()) == query


@pytest.mark.parametrize("reply", [
    "```sql\nSELECT name FROM customers WHERE code = '=3D' \n```",  # a value, one mark: no encoding
    "```sql\nSELECT name FROM customers WHERE note = 'Ġ'\n```",
    "```sql\nSELECT name FROM customers WHERE path LIKE 'a\\.b%'\n```",
    "```sql\nSELECT name FROM customers -- query = 'x'\n```",
    "```sql\nSELECT name, city, age, email, phone, country, zip FROM customers WHERE age =\n```",  # cut off: no QP
    # attack round 18: SQL whose line ends in an operator, an ASCII number after "=", marks inside values
    "```sql\nSELECT COUNT(*) AS orders_2024 FROM orders WHERE status <> 'void' AND order_date >=\n  '2024-01-01'\n```",
    "```sql\nSELECT c.name, SUM(o.amount) AS total_amount_spent_by_customer FROM customers c JOIN orders o ON c.id =\n"
    " o.customer_id WHERE o.year=2023 GROUP BY c.name\n```",
    "```sql\nSELECT COUNT(*) AS hosts FROM hosts WHERE ip ~ '^10\\.0\\.0\\.' AND ip !~ '\\.255$'\n```",
    "```sql\nSELECT id FROM mail WHERE body LIKE '%=3D%'\n```",
    "```sql\nSELECT id FROM users WHERE handle IN ('Ġalice', 'Ġbob', 'Ġcarol', '▁x', '▁y', '▁z')\n```",
])
def test_marks_that_stand_alone_or_in_values_are_left_as_written(reply: str) -> None:
    body = reply.split("```sql\n")[1].split("\n```")[0]
    assert extract_sql(reply, "postgres").strip() == body.strip()


def test_a_printed_value_beside_the_reply_s_own_query_is_an_example_not_the_answer() -> None:
    reply = ("```sql\nSELECT COUNT(DISTINCT customer_id) AS customers FROM orders;\n```\nYou can run it from Python with "
             "`cur.execute(query='SELECT COUNT(customer_id) AS customers FROM orders')`.")  # attack round 18
    assert extract_sql(reply, "sqlite") == "SELECT COUNT(DISTINCT customer_id) AS customers FROM orders"
