"""The compact schema text a small model (7B, 4096-token context) reads: one line per table.

Example::

    customers(customer_id int PK, name, email, city, country, segment ['corporate','retail','wholesale'])
    orders(order_id int PK, customer_id -> customers.customer_id, status ['delivered',...], order_date date,
           total_amount num, payment_method [...]) -- comment: "Orders placed by customers"

Text columns carry no type (the common case); numbers, dates, booleans and other types carry a short one.
Names are spelled exactly as the database does, quoted where the dialect needs it. Table comments and
value hints come from the database and are untrusted: they are shortened, stripped of newlines and
control characters, and rendered as quoted data, never as free text the model could read as instructions.
"""

from __future__ import annotations

import functools
import logging
import math
import re
import unicodedata

from sqlglot.dialects.dialect import Dialect

from core.schema import Column, Schema, Table

__all__ = [
    "estimate_tokens",
    "quote_name",
    "render_schema_block",
    "render_table_line",
    "short_type",
]

logger = logging.getLogger(__name__)

MAX_COMMENT_CHARS = 80
MAX_HINTS = 8
MAX_HINT_CHARS = 30

# Words PostgreSQL reserves (and SQLite accepts quoted): a column named ``user`` or ``order`` must be quoted.
_RESERVED = frozenset(
    """all analyse analyze and any array as asc asymmetric authorization binary both case cast check collate
    collation column concurrently constraint create cross current_catalog current_date current_role
    current_schema current_time current_timestamp current_user default deferrable desc distinct do else end
    except false fetch for foreign freeze from full grant group having ilike in initially inner intersect into
    is isnull join lateral leading left like limit localtime localtimestamp natural not notnull null offset on
    only or order outer overlaps placing primary references returning right select session_user similar some
    symmetric system_user table tablesample then to trailing true union unique user using variadic verbose when
    where window with""".split()
)

_TYPE_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), short)
    for p, short in (
        (r"^(character varying|varchar|character|char|text|bpchar|string|nvarchar|nchar|clob|citext|name)\b", ""),
        (r"^(smallint|integer|bigint|int\d?|serial\d?|bigserial|smallserial|tinyint|mediumint)\b", "int"),
        (r"^(numeric|decimal|real|double|float\d?|money|number)\b", "num"),
        (r"^timestamp.*with time zone|^timestamptz", "timestamptz"),
        (r"^(timestamp|datetime)", "timestamp"),
        (r"^date\b", "date"),
        (r"^time\b", "time"),
        (r"^interval", "interval"),
        (r"^bool", "bool"),
        (r"^jsonb", "jsonb"),
        (r"^json", "json"),
        (r"^uuid", "uuid"),
        (r"^(bytea|blob)", "bytes"),
        (r"^vector", "vector"),
    )
)

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")


def estimate_tokens(text: str) -> int:
    """A cheap, deliberately conservative token count for code-like text.

    BPE tokenizers (Qwen, Llama) spend about 3.5-4 ASCII characters per token on SQL and identifiers; we
    assume 3 so a budget is never overrun, and count each non-ASCII character as a whole token (they
    often take one or more). Rounded up.
    """
    non_ascii = sum(1 for ch in text if ord(ch) > 127)
    return math.ceil((len(text) - non_ascii) / 3) + non_ascii


@functools.lru_cache(maxsize=16)
def _dialect_rules(dialect: str) -> tuple[str, str, str]:
    """(folding, quote start, quote end) for ``dialect``; unknown dialects are treated like PostgreSQL."""
    try:
        dia = Dialect.get_or_raise(dialect)
    except ValueError:
        dia = Dialect.get_or_raise("postgres")
    strategy = str(getattr(dia.normalization_strategy, "value", dia.normalization_strategy)).upper()
    return strategy, dia.IDENTIFIER_START, dia.IDENTIFIER_END


_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


@functools.lru_cache(maxsize=65536)
def quote_name(name: str, dialect: str) -> str:
    """``name`` as ``dialect`` must write it: bare when safe, else quoted (case the dialect would fold,
    spaces or symbols, reserved words) with embedded quote characters doubled."""
    strategy, start, end = _dialect_rules(dialect)
    needs = not _PLAIN.match(name) or name.lower() in _RESERVED
    if not needs and strategy == "LOWERCASE":
        needs = name != name.lower()
    elif not needs and strategy == "UPPERCASE":
        needs = name != name.upper()
    if not needs:
        return name
    return f"{start}{name.replace(end, end + end)}{end}"


def _table_ref(table: Table, dialect: str) -> str:
    qualified = table.qualified_name
    if qualified != table.name and table.schema:
        return f"{quote_name(table.schema, dialect)}.{quote_name(table.name, dialect)}"
    return quote_name(table.name, dialect)


def short_type(sql_type: str) -> str:
    """A short type word that helps the model ("int", "num", "date", ...); "" for plain text."""
    t = sql_type.strip().lower()
    if t.startswith("_"):  # PostgreSQL's internal array spelling, e.g. _int4
        t = t[1:] + "[]"
    suffix = "[]" if t.endswith("[]") or " array" in t else ""
    base = t.removesuffix("[]").replace(" array", "").strip()
    for pattern, short in _TYPE_RULES:
        if pattern.search(base):
            return (short or "text") + suffix if suffix else short
    if not base:
        return ""
    word = re.split(r"[\s(]", base, maxsplit=1)[0]
    return word[:20] + suffix


def _clean(text: str, limit: int) -> str:
    """Untrusted text as one short line: no control characters, collapsed spaces, cut at ``limit``."""
    text = unicodedata.normalize("NFKC", text)
    text = _CONTROL.sub(" ", text)
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def _hint_list(values: tuple[str, ...]) -> str:
    shown = []
    for v in values[:MAX_HINTS]:
        v = _clean(str(v), MAX_HINT_CHARS).replace("'", "''")
        shown.append(f"'{v}'")
    if len(values) > MAX_HINTS:
        shown.append("...")
    return "[" + ",".join(shown) + "]"


def _column_text(col: Column, table: Table, dialect: str, fk_target: str | None, single_pk: bool) -> str:
    parts = [quote_name(col.name, dialect)]
    if fk_target is not None:
        parts.append(f"-> {fk_target}")
    else:
        typ = short_type(col.type)
        if typ:
            parts.append(typ)
        if single_pk:
            parts.append("PK")
    if col.value_hints:
        parts.append(_hint_list(col.value_hints))
    return " ".join(parts)


def render_table_line(table: Table, schema: Schema) -> str:
    """One table as one line. Foreign keys are shown only when the target table is in ``schema``.

    Names come from the database too: a quoted name may hold a newline ("orders\n- Rule: ..."), so control
    characters anywhere in the line become spaces and the line stays one line of data.
    """
    dialect = schema.dialect
    single_pk = len(table.primary_key) == 1
    inline_fk: dict[str, str] = {}
    extra: list[str] = []
    for fk in table.foreign_keys:
        ref = schema.table(fk.ref_table)
        if ref is None:
            continue
        ref_name = _table_ref(ref, dialect)
        if len(fk.columns) == 1 and len(fk.ref_columns) == 1 and fk.columns[0] not in inline_fk:
            inline_fk[fk.columns[0]] = f"{ref_name}.{quote_name(fk.ref_columns[0], dialect)}"
        else:
            cols = ",".join(quote_name(c, dialect) for c in fk.columns)
            refs = ",".join(quote_name(c, dialect) for c in fk.ref_columns)
            extra.append(f"FK ({cols}) -> {ref_name}({refs})")
    if len(table.primary_key) > 1:
        extra.insert(0, "PK (" + ",".join(quote_name(c, dialect) for c in table.primary_key) + ")")
    cols = [
        _column_text(
            c,
            table,
            dialect,
            inline_fk.get(c.name),
            single_pk and c.name == table.primary_key[0],
        )
        for c in table.columns
    ]
    line = f"{_table_ref(table, dialect)}({', '.join(cols + extra)})"
    if table.comment and table.comment.strip():
        comment = _clean(table.comment, MAX_COMMENT_CHARS).replace('"', "'")
        line += f' -- comment: "{comment}"'
    return _CONTROL.sub(" ", line)


def render_schema_block(schema: Schema) -> str:
    """The whole schema, one line per table, in the schema's order."""
    return "\n".join(render_table_line(t, schema) for t in schema.tables)
