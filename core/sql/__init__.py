"""The SQL checker: the one statement in a model's reply, the read-only guard, and validation against the schema.

Pure functions over text and a :class:`core.schema.Schema`: no database, no model, no memory.
"""

from core.sql._error_text import redact_error_values
from core.sql._extract import extract_queries, extract_sql
from core.sql._guard import GuardedSQL, guard, parse_statements
from core.sql._hidden import HiddenColumns, keep_hidden_out, keep_hidden_out_sql
from core.sql._join_check import JoinCheck, joins_adding_no_column
from core.sql._slips import PARSE_FAILURES, ended_in
from core.sql.repair import as_number, holds_numbers_as_text
from core.sql._validate import Validated, guard_named, schema_mapping, validate, validate_sql
from core.sql._value_query import spelled_in, value_lookup_sql
from core.sql.repair import GUESSED, Meaning, Named, group_keys, join_candidates, joined_on, silences_an_error

__all__ = [
    "PARSE_FAILURES",
    "GuardedSQL",
    "HiddenColumns",
    "ended_in",
    "JoinCheck",
    "GUESSED",
    "Meaning",
    "Named",
    "Validated",
    "extract_queries",
    "extract_sql",
    "guard",
    "guard_named",
    "group_keys",
    "as_number",
    "holds_numbers_as_text",
    "join_candidates",
    "joined_on",
    "keep_hidden_out",
    "keep_hidden_out_sql",
    "joins_adding_no_column",
    "parse_statements",
    "redact_error_values",
    "schema_mapping",
    "silences_an_error",
    "validate",
    "validate_sql",
    "spelled_in",
    "value_lookup_sql",
]
