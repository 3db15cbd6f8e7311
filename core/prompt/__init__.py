"""The prompts sent to the model: the compact schema block, the choice of tables that fit the context, and the
SQL and repair prompts built from them."""

from core.prompt._build import Prompt, build_repair_prompt, build_review_prompt, build_sql_prompt, dialect_label
from core.prompt._schema_block import estimate_tokens, render_schema_block, render_table_line
from core.prompt._schema_selection import column_said, named_tables, select_tables, tables_called_by_name

__all__ = [
    "Prompt",
    "build_repair_prompt",
    "build_review_prompt",
    "build_sql_prompt",
    "column_said",
    "dialect_label",
    "estimate_tokens",
    "named_tables",
    "render_schema_block",
    "render_table_line",
    "select_tables",
    "tables_called_by_name",
]
