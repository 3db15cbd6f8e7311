"""Column names a model invents: how often the one meant is taken, how often a name with no column of that meaning
is taken anyway (it must be refused), and — for a name refused — whether the error names the column meant, first or
among its suggestions (what the model's repair round and the person see).

    .venv/bin/python -m bench.column_meaning [SET.json]

Each case is a table of one of the shared databases (its DDL, read with sqlglot), a name the model wrote and the
column it means, or none. The query ``SELECT <name> FROM <table>`` goes through Cairn's validation twice, side by
side: with the spelling rules alone, and with the sentence encoder ordering the suggestions (``Services.name_meaning``,
the app's setting; the encoder never takes a name by itself). Default set: tests/heldout/column_synonyms_fresh.json (written by a helper who did not read the
matching code).
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from functools import cache
from pathlib import Path

import sqlglot
from sqlglot import exp

from core.errors import SQLValidationError
from core.memory import MiniLMEmbedder
from core.schema import Column, Schema, Table
from core.sql import validate

DATA = Path(os.environ.get("CAIRN_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
DEFAULT = Path(__file__).resolve().parents[1] / "tests" / "heldout" / "column_synonyms_fresh.json"


@cache
def schema_of(db: str) -> Schema:
    """The database's tables and columns from its DDL (schema prefixes dropped), as SQLite would list them."""
    path = DATA / "chinook" / "Chinook_PostgreSql.sql" if db == "chinook" else DATA / "defog" / db / f"{db}.sql"
    tables: dict[str, Table] = {}
    for statement in sqlglot.parse(path.read_text(encoding="utf-8", errors="replace"), read="postgres",
                                   error_level=sqlglot.ErrorLevel.IGNORE):
        if not isinstance(statement, exp.Create) or not isinstance(statement.this, exp.Schema):
            continue
        name = statement.this.this.name
        columns = tuple(Column(d.name, d.args["kind"].sql() if d.args.get("kind") else "")
                        for d in statement.this.expressions if isinstance(d, exp.ColumnDef))
        if columns:
            tables[name.lower()] = Table(name, columns)
    return Schema("sqlite", tuple(tables.values()))


def outcome(case: dict, meaning) -> str:
    """'right', 'wrong' (another column, or one taken where none is meant), 'refused:first' / 'refused:named' /
    'refused' (the error suggests the column meant first, among others, or not at all)."""
    schema = schema_of(case["db"])
    table = schema.table(case["table"])
    if table is None:
        return "skipped"
    try:
        out = validate(sqlglot.parse_one(f'SELECT {case["written"]} FROM {table.name}', read="sqlite"), schema,
                       "sqlite", meaning=meaning)
    except (SQLValidationError, sqlglot.errors.SqlglotError) as exc:
        if case["column"] is None:
            return "right"
        named = str(exc).partition("closest columns: ")[2].lower().split(", ")
        return "refused:first" if named[:1] == [case["column"].lower()] else "refused:named" if (
            case["column"].lower() in named) else "refused"
    taken = out.expression.expressions[0]
    taken_name = taken.name if isinstance(taken, exp.Column) else ""
    if case["column"] is None:
        return "wrong"
    return "right" if taken_name.lower() == case["column"].lower() else "wrong"


def main(paths: list[str]) -> None:
    encoder = MiniLMEmbedder()

    def meaning(name: str, names):
        vectors = encoder.embed_batch([name, *names])
        return [float(v @ vectors[0]) for v in vectors[1:]]

    for path in paths or [str(DEFAULT)]:
        cases = json.loads(Path(path).read_text(encoding="utf-8"))
        print(f"{path}: {len(cases)} cases ({sum(c['column'] is None for c in cases)} with no column of that meaning)")
        print(f"{'':28} {'meant: right':>13} {'wrong':>6} {'refused':>8} {'(named 1st':>11} {'named)':>7} | "
              f"{'none meant: refused':>20} {'taken':>6}")
        for label, how in (("spelling rules alone", None), ("with the sentence encoder", meaning)):
            tally: Counter[str] = Counter()
            for case in cases:
                result = outcome(case, how)
                tally[("none:" if case["column"] is None else "meant:") + result] += 1
            meant = sum(v for k, v in tally.items() if k.startswith("meant:") and not k.endswith("skipped"))
            none = sum(v for k, v in tally.items() if k.startswith("none:") and not k.endswith("skipped"))
            refused = tally["meant:refused"] + tally["meant:refused:first"] + tally["meant:refused:named"]
            first, named = tally["meant:refused:first"], tally["meant:refused:first"] + tally["meant:refused:named"]
            print(f"{label:28} {tally['meant:right'] / max(1, meant):>13.1%} {tally['meant:wrong'] / max(1, meant):>6.1%} "
                  f"{refused / max(1, meant):>8.1%} {first / max(1, refused):>11.1%} {named / max(1, refused):>7.1%} | "
                  f"{tally['none:right'] / max(1, none):>20.1%} {tally['none:wrong'] / max(1, none):>6.1%}"
                  f"   (skipped {tally['meant:skipped'] + tally['none:skipped']})")


if __name__ == "__main__":
    main(sys.argv[1:])
