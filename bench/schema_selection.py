"""Bench: does table selection keep the tables a question needs when the prompt budget is small?

Run from the repository root: ``.venv/bin/python -m bench.schema_selection [--budgets 300 600]``.
No database needed: defog schemas are built from their ``.json`` plus keys/values parsed from the dumps.

Reports, per defog database and overall, the share of questions (questions_gen_postgres + instruct_*
postgres) whose gold tables were all selected; the full-block token estimate of each defog schema; and on
the generated 200-table ERP schema, selection time and recall on template questions.
"""

from __future__ import annotations

import argparse
import csv
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import sqlglot
from sqlglot import exp

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.schema import Schema  # noqa: E402
from core.prompt import estimate_tokens, render_schema_block  # noqa: E402
from core.prompt import select_tables  # noqa: E402
from tests.defog_loader import DEFOG_DATABASES, defog_schema  # noqa: E402
from tests.wide_schema import wide_schema  # noqa: E402

QUESTION_FILES = ("questions_gen_postgres.csv", "instruct_basic_postgres.csv", "instruct_advanced_postgres.csv")
_BRACES = re.compile(r"\{([^{}]*)\}")


def expand_first(sql: str) -> str:
    """Defog gold SQL with ``{a, b}`` alternatives: take the first; ``{}`` repeats the last choice."""
    last = ""

    def pick(m: re.Match[str]) -> str:
        nonlocal last
        inner = m.group(1).strip()
        if inner:
            last = inner.split(",")[0].strip()
        return last

    return _BRACES.sub(pick, sql)


def gold_tables(sql: str) -> set[str]:
    """Tables the first gold statement reads (CTE names excluded), lower-case as PostgreSQL folds them."""
    stmt = sqlglot.parse(expand_first(sql), read="postgres")[0]
    if stmt is None:
        return set()
    ctes = {c.alias_or_name.lower() for c in stmt.find_all(exp.CTE)}
    out = set()
    for t in stmt.find_all(exp.Table):
        name = t.name.lower()
        if not name or name in ctes:
            continue
        db = t.db.lower()
        out.add(f"{db}.{name}" if db and db != "public" else name)
    return out


def load_questions(data: Path) -> list[tuple[str, str, str]]:
    out = []
    for fname in QUESTION_FILES:
        with (data / "questions" / fname).open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                out.append((row["db_name"], row["question"], row["query"]))
    return out


def defog_bench(budgets: list[int]) -> None:
    from tests.conftest import SHARED_DATA

    data = SHARED_DATA / "defog"
    schemas: dict[str, Schema] = {name: defog_schema(name) for name in DEFOG_DATABASES}
    print("Full schema block (estimated tokens):")
    for name, s in sorted(schemas.items(), key=lambda kv: -estimate_tokens(render_schema_block(kv[1]))):
        print(f"  {name:16s} {len(s.tables):3d} tables  {estimate_tokens(render_schema_block(s)):5d} tokens")
    questions = load_questions(data)
    print(f"\n{len(questions)} defog questions (questions_gen + instruct_basic + instruct_advanced, postgres)")
    for budget in budgets:
        hits: dict[str, list[int]] = defaultdict(list)
        kept: dict[str, list[int]] = defaultdict(list)
        feasible_hits: list[int] = []
        unparsed = 0
        for db, question, query in questions:
            schema = schemas[db]
            try:
                gold = gold_tables(query)
            except sqlglot.errors.ParseError:
                unparsed += 1
                continue
            chosen = {n.lower() for n in select_tables(schema, question, budget).table_names}
            hits[db].append(int(gold <= chosen))
            kept[db].append(len(chosen))
            # Could any selection have kept the gold tables within this budget?
            if estimate_tokens(render_schema_block(schema.subset(gold))) <= budget:
                feasible_hits.append(int(gold <= chosen))
        print(f"\nbudget {budget} tokens: share of questions with all gold tables selected")
        total = [h for v in hits.values() for h in v]
        for db in sorted(hits):
            n_tables = len(schemas[db].tables)
            print(
                f"  {db:16s} {sum(hits[db]):3d}/{len(hits[db]):3d} = {sum(hits[db]) / len(hits[db]):6.1%}"
                f"   (kept {statistics.mean(kept[db]):4.1f} of {n_tables} tables)"
            )
        print(f"  {'OVERALL':16s} {sum(total):3d}/{len(total):3d} = {sum(total) / len(total):6.1%}"
              + (f"   ({unparsed} gold queries not parsed)" if unparsed else ""))
        if feasible_hits:
            print(f"  {'where gold fits':16s} {sum(feasible_hits):3d}/{len(feasible_hits):3d} = "
                  f"{sum(feasible_hits) / len(feasible_hits):6.1%}   (gold tables alone within the budget)")


def _words(name: str) -> str:
    return name.replace("_", " ")


def synthetic_questions(schema: Schema) -> list[tuple[str, set[str]]]:
    """Template questions over the ERP schema with their target tables (child, parent, maybe grandparent)."""
    out: list[tuple[str, set[str]]] = []
    for i, t in enumerate(schema.tables):
        if not t.foreign_keys:
            continue
        parent = schema.table(t.foreign_keys[0].ref_table)
        assert parent is not None
        numeric = [c.name for c in t.columns if c.type.startswith(("numeric", "integer")) and not c.name.endswith("_id")]
        kind = i % 3
        if kind == 0 and numeric:
            q = f"What is the total {_words(numeric[0])} of {_words(t.name)}s for each {_words(parent.name)}?"
            out.append((q, {t.name, parent.name}))
        elif kind == 1:
            q = f"Which {_words(parent.name)} has the most {_words(t.name)} records?"
            out.append((q, {t.name, parent.name}))
        elif parent.foreign_keys:
            grand = schema.table(parent.foreign_keys[0].ref_table)
            assert grand is not None
            if grand.name != t.name:
                q = f"List the {_words(t.name)}s that belong to the {_words(grand.name)} named 'Acme'."
                out.append((q, {t.name, parent.name, grand.name}))
    return out


def wide_bench(budgets: list[int]) -> None:
    schema = wide_schema()
    full = estimate_tokens(render_schema_block(schema))
    questions = synthetic_questions(schema)
    print(f"\n200-table ERP schema: full block {full} tokens; {len(questions)} synthetic questions")
    for budget in budgets:
        times: list[float] = []
        hits = 0
        sizes = []
        for q, target in questions:
            t0 = time.perf_counter()
            chosen = select_tables(schema, q, budget)
            times.append(time.perf_counter() - t0)
            names = set(chosen.table_names)
            hits += target <= names
            sizes.append(len(names))
        print(
            f"  budget {budget:5d}: all targets selected {hits}/{len(questions)} = {hits / len(questions):.1%}; "
            f"kept {statistics.mean(sizes):.1f} tables; time median {statistics.median(times) * 1000:.0f} ms, "
            f"max {max(times) * 1000:.0f} ms"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=int, nargs="+", default=[150, 300, 600])
    parser.add_argument("--wide-budgets", type=int, nargs="+", default=[800, 1500])
    args = parser.parse_args(argv)
    defog_bench(args.budgets)
    wide_bench(args.wide_budgets)


if __name__ == "__main__":
    main()
