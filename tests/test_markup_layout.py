"""SQL inside another language's markup (core.sql.layout._markup): an HTML reply's code block, a dbt model's table
references. Read back to the plain query; anything else in braces is left and fails visibly."""

from __future__ import annotations

import pytest

from core.sql import extract_sql


def test_an_html_reply_s_code_block_is_the_query_and_its_escapes_are_read() -> None:
    reply = ('<p>You can use the following SQL:</p>\n<pre><code class="language-sql">SELECT name\nFROM author '
             "WHERE aid &gt;= 3 AND name &lt;&gt; 'A&amp;B'\n</code></pre>\n<p>It returns one row per author.</p>")
    assert extract_sql(reply, "sqlite") == "SELECT name\nFROM author WHERE aid >= 3 AND name <> 'A&B'"


def test_a_code_element_on_a_line_of_its_own_is_a_block_and_inline_code_in_prose_is_not_taken_apart() -> None:
    reply = "<p>Run this:</p>\n<code>SELECT COUNT(*) FROM orders</code>\n<p>It counts the <code>orders</code>.</p>"
    assert extract_sql(reply, "postgres") == "SELECT COUNT(*) FROM orders"


@pytest.mark.parametrize("table", ["{{ ref('orders') }}", '{{ ref("orders") }}', "{{ source('shop', 'orders') }}",
                                   "{{source( 'shop' , 'orders' )}}"])
def test_a_dbt_table_reference_is_the_table_it_names(table) -> None:
    reply = f"As a dbt model:\n\n```sql\nSELECT o.id\nFROM {table} AS o\nWHERE o.total > 5\n```"
    assert extract_sql(reply, "postgres") == "SELECT o.id\nFROM orders AS o\nWHERE o.total > 5"


def test_another_template_expression_is_left_as_written_for_the_checks_to_refuse() -> None:
    assert "{{ var('table') }}" in extract_sql("```sql\nSELECT id FROM {{ var('table') }}\n```", "postgres")
