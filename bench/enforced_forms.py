"""Bench: what Cairn ends up *enforcing* after an analyst's standing statements — scored on the data.

    .venv/bin/python -m bench.enforced_forms [--set dev|seen|heldout|all] [--model none|bad|wrong|good|all] [--errors]

Each case of tests/data/enforced_forms_dev.json ("dev"), tests/heldout/enforced_forms.json ("seen": written by a
helper who never read the code; its misses were read in the second round, so it is a development set now) and
tests/heldout/enforced_forms_fresh.json ("heldout": a fresh one from a second helper; ``--errors`` never prints it) is a sequence of messages typed to the real
``Assistant`` (router, extraction, update cycle, forget) on a fresh JSON store, then the standing state it enforces
is compared with the gold one:
  - filters: per table, the rows ``SELECT * FROM t`` keeps once Cairn's own ``enforce_filters`` has added every
    enforced filter and fixed period on ``t``, against the rows the gold WHERE keeps;
  - the relative default time range (table, column, days), the default row limit, the default sort.
A case is **faithful** when everything matches; **wrong** when something is enforced that the person did not say
(a table loses rows the gold keeps; an enforced form constrains a column the gold does not, or says something else
on one it does; a limit, sort or time range differs from the gold one) — the silent wrong answer;
otherwise **not enforced** (what was said is kept as context, waits for confirmation, or was missed: visible and
safe). Pending and context-only memories are counted too.

The model variants (a scripted model on the same code path): ``none`` (no model: the rules alone), ``bad`` (the
form proposal is not valid JSON or not a form), ``wrong`` (a valid, verifiable proposal that is not what was
said: it must never be enforced silently), ``good`` (the gold form, for one-message cases: measures what the
second reading confirms or holds back).
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._memory_fixtures import CHINOOK, DEV, HELDOUT, database, grounding, shop_path  # noqa: E402

USER = "bench"
ENFORCED = ("filter", "window", "limit", "sort")


# --- the standing state ----------------------------------------------------------------------------------------


def _days(form: Mapping[str, Any]) -> int | None:
    per = {"day": 1, "week": 7, "month": 30, "year": 365}
    unit = str(form.get("unit") or "")
    if unit not in per or form.get("amount") is None:
        return None
    return int(form["amount"]) * per[unit]


def enforced_memories(memories: Sequence[Any]) -> list[Any]:
    """The memories whose forms are enforced on SQL now (held-back rules left out)."""
    from core.memory import held_back

    held = {m.id for m in held_back(memories)}
    return [m for m in memories if m.id not in held and (m.structured or {}).get("kind") in ENFORCED]


def enforced_state(memories: Sequence[Any]) -> dict[str, Any]:
    """The forms of the memories that are enforced on SQL (filters, windows, default limit and sort), less the
    rules held back while a newer statement about them waits for the person (as recall holds them back)."""
    from core.memory import held_back

    filters: dict[str, list[Mapping[str, Any]]] = {}
    window = limit = sort = None
    held = {m.id for m in held_back(memories)}
    for m in memories:
        if m.id in held:
            continue
        st = m.structured or {}
        kind = st.get("kind")
        if kind == "filter" or (kind == "window" and (st.get("start") or st.get("end"))):
            filters.setdefault(str(st.get("table")).lower(), []).append(st)
        elif kind == "window":
            window = {"table": str(st.get("table")), "column": str(st.get("column")), "days": _days(st),
                      "current": st.get("current")}
        elif kind == "limit":
            limit = int(st.get("value") or 0)
        elif kind == "sort":
            sort = {"table": st.get("table"), "column": st.get("column") or st.get("by"),
                    "direction": str(st.get("direction") or "").lower()}
    return {"filters": filters, "window": window, "limit": limit, "sort": sort}


def _rows(conn: sqlite3.Connection, sql: str) -> Counter[tuple[Any, ...]]:
    return Counter(tuple(r) for r in conn.execute(sql).fetchall())


def _table_sql(table: str, forms: Sequence[Mapping[str, Any]], schema: Any) -> str:
    import sqlglot

    from core.memory import enforce_filters

    tree = sqlglot.parse_one(f'SELECT * FROM "{table}"', read="sqlite")
    return enforce_filters(tree, list(forms), "sqlite").expression.sql(dialect="sqlite")


def _says_otherwise(conn: sqlite3.Connection, table: str, forms: Sequence[Mapping[str, Any]], gold: str | None,
                    schema: Any) -> str:
    """Why an enforced form that keeps more rows than the gold is still wrong: it constrains a column the person
    said nothing about, or says something else on a column they did ("<> 'retail'" for "only wholesale").
    Empty when every enforced form is one of the conditions said (the rest merely not enforced yet)."""
    import sqlglot
    from sqlglot import exp

    by_column: dict[str, list[str]] = {}
    if gold:
        tree = sqlglot.parse_one(gold, read="sqlite")
        parts = list(tree.flatten()) if isinstance(tree, exp.And) else [tree]
        for part in parts:
            cols = {c.name.lower() for c in part.find_all(exp.Column)}
            if len(cols) != 1:
                return ""  # conditions across columns (OR): the rows decide alone
            by_column.setdefault(cols.pop(), []).append(part.sql(dialect="sqlite"))
    for form in forms:
        column = str(form.get("column") or "").lower()
        if column not in by_column:
            return f"enforces {column}, which was not said"
        said = _rows(conn, f'SELECT * FROM "{table}" WHERE ' + " AND ".join(f"({c})" for c in by_column[column]))
        if _rows(conn, _table_sql(table, [form], schema)) != said:
            return f"says something else on {column}"
    return ""


def score(case: Mapping[str, Any], state: Mapping[str, Any], conn: sqlite3.Connection, schema: Any,
          expect_key: str = "expect") -> tuple[str, list[str]]:
    """("faithful" | "wrong" | "not enforced", reasons)."""
    expect = case[expect_key]
    wrong: list[str] = []
    missing: list[str] = []
    gold_filters = {t.lower(): w for t, w in (expect.get("filters") or {}).items()}
    names = {t.name.lower(): t.name for t in schema.tables}
    for table in sorted(set(gold_filters) | set(state["filters"])):
        real = names.get(table, table)
        everything = _rows(conn, f'SELECT * FROM "{real}"')
        gold = _rows(conn, f'SELECT * FROM "{real}" WHERE {gold_filters[table]}') if table in gold_filters \
            else everything
        forms = state["filters"].get(table, [])
        mine = _rows(conn, _table_sql(real, forms, schema)) if forms else everything
        if mine == gold:
            continue
        said_otherwise = _says_otherwise(conn, real, forms, gold_filters.get(table), schema)
        if gold - mine or said_otherwise:  # a row the person keeps is gone, or a rule says something else
            wrong.append(f"{real}: enforced {[f.get('sql') for f in forms]} vs gold {gold_filters.get(table)!r}"
                         + (f" ({said_otherwise})" if said_otherwise else ""))
        else:
            missing.append(f"{real}: gold {gold_filters.get(table)!r} not (fully) enforced")
    gw, mw = expect.get("window"), state["window"]
    if mw and (not gw or (mw["table"].lower(), mw["column"].lower(), mw["days"]) != (
            str(gw["table"]).lower(), str(gw["column"]).lower(), int(gw["days"]))):
        wrong.append(f"window {mw} vs gold {gw}")
    elif gw and not mw:
        missing.append(f"window {gw} not enforced")
    gl, ml = expect.get("limit"), state["limit"]
    if ml and ml != gl:
        wrong.append(f"limit {ml} vs gold {gl}")
    elif gl and not ml:
        missing.append(f"limit {gl} not enforced")
    gs, ms = expect.get("sort"), state["sort"]
    if ms and (not gs or (str(ms["column"]).lower(), ms["direction"]) != (str(gs["column"]).lower(),
                                                                          gs["direction"])):
        wrong.append(f"sort {ms} vs gold {gs}")
    elif gs and not ms:
        missing.append(f"sort {gs} not enforced")
    if wrong:
        return "wrong", wrong
    return ("not enforced", missing) if missing else ("faithful", [])


# --- scripted models -------------------------------------------------------------------------------------------


class ScriptedFormModel:
    """Answers only the form proposal (the call that asks for JSON); every other call gets an empty reply, which
    Cairn treats as no answer (extraction falls back to the rules, the router keeps its verdict)."""

    model = "scripted-forms"

    def __init__(self, variant: str, schema: Any, gold: Mapping[str, Any] | None) -> None:
        self.variant, self.schema, self.gold = variant, schema, gold
        self.asked = 0
        self.proposed: list[dict[str, Any]] = []  # the wrong forms handed out, in the verified spelling

    def chat(self, system: str, user: str, *, options: Any = None, format: Any = None) -> str:  # noqa: A002
        if format is None:
            return ""
        self.asked += 1
        if self.variant == "bad":
            return ["{not json", '{"kind": "filter"}', '["a list"]', '{"kind": "filter", "table": 7}'][self.asked % 4]
        if self.variant == "good":
            return json.dumps(self.gold or {"kind": "none"})
        wrong = self._wrong(_statement(user))
        from core.memory.forms import verify_proposal

        form, _ = verify_proposal(wrong, self.schema, None)
        if form is not None:
            self.proposed.append(form)
        return json.dumps(wrong)

    def _wrong(self, statement: str) -> dict[str, Any]:
        """A form every check passes (real table, column, value) that the statement does not say."""
        said = statement.lower()
        tables = [t for t in self.schema.tables if t.name.lower().rstrip("s") in said] or list(self.schema.tables)
        for table in tables:
            for col in table.columns:
                others = [v for v in col.value_hints if str(v).lower() not in said]
                if others:
                    return {"kind": "filter", "table": table.name, "column": col.name, "op": "=", "values": [others[0]]}
        return {"kind": "limit", "limit": 7}


def _statement(prompt: str) -> str:
    m = re.search(r"<statement>\s*(.*?)\s*</statement>", prompt, re.DOTALL)
    return m.group(1) if m else prompt


def gold_proposal(case: Mapping[str, Any], schema: Any) -> dict[str, Any] | None:
    """The gold state of a one-message case as the proposal a good model would return (None when it is not
    one simple form)."""
    import sqlglot
    from sqlglot import exp

    expect = case["expect"]
    forms = []
    for table, where in (expect.get("filters") or {}).items():
        cond = sqlglot.parse_one(where, read="sqlite")
        col = cond.find(exp.Column)
        if col is None or len({c.name.lower() for c in cond.find_all(exp.Column)}) != 1:
            return None
        values = [lit.this if lit.is_string else float(lit.this) for lit in cond.find_all(exp.Literal)]
        negated = isinstance(cond, exp.Not) or isinstance(cond, exp.NEQ)
        if isinstance(cond, (exp.EQ, exp.NEQ)) or isinstance(cond, exp.In) or (
                isinstance(cond, exp.Not) and isinstance(cond.this, exp.In)):
            op = ("NOT IN" if negated else "IN") if len(values) > 1 else ("<>" if negated else "=")
        elif isinstance(cond, (exp.GT, exp.GTE, exp.LT, exp.LTE)):
            op = {exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}[type(cond)]
        else:
            return None
        forms.append({"kind": "filter", "table": table, "column": col.name, "op": op, "values": values})
    if expect.get("window"):
        w = expect["window"]
        forms.append({"kind": "window", "table": w["table"], "column": w["column"], "amount": int(w["days"]),
                      "unit": "day"})
    if expect.get("limit"):
        forms.append({"kind": "limit", "limit": int(expect["limit"])})
    if expect.get("sort"):
        s = expect["sort"]
        forms.append({"kind": "sort", "table": s["table"], "column": s["column"], "direction": s["direction"]})
    return forms[0] if len(forms) == 1 else ({"kind": "none"} if not forms else None)


# --- the run ---------------------------------------------------------------------------------------------------


def _assistant(db_name: str, llm: Any, embedder: Any) -> Any:
    from core.assistant import Assistant
    from core.memory import JsonMemoryStore, MemoryBank
    from core.pipeline import AskPipeline

    tmp = Path(tempfile.mkdtemp(prefix="cairn-bench-enforced-"))
    store = JsonMemoryStore(tmp / "store")
    pipeline = AskPipeline(database(db_name), llm)
    return Assistant(pipeline, store, embedder, MemoryBank(store, embedder, tmp / "journal"),
                     learn_after_answer=False)


def run_case(case: Mapping[str, Any], variant: str, embedder: Any) -> tuple[str, list[str], Counter[str]]:
    g = grounding(case["database"])
    llm = None
    if variant != "none":
        gold = gold_proposal(case, g.schema) if variant == "good" else None
        llm = ScriptedFormModel(variant, g.schema, gold)
    bot = _assistant(case["database"], llm, embedder)
    for message in case["messages"]:
        bot.handle(USER, message)
    memories = bot.store.list(USER)
    kinds = Counter(str((m.structured or {}).get("kind") or "context") for m in memories)
    conn = sqlite3.connect(f"file:{shop_path() if case['database'] == 'shop' else CHINOOK}?mode=ro", uri=True)
    try:
        outcome, reasons = score(case, enforced_state(memories), conn, g.schema)
        if case.get("question") and case.get("question_expect") is not None:
            recall = bot.recall(USER, case["question"])  # what the pipeline would enforce on that question
            applied = [r.memory for r in (*recall.memories, *recall.standing)  # standing: enforced where read
                       if r.kind in ("filter", "presentation")]
            asked, why = score(case, enforced_state(applied), conn, g.schema, "question_expect")
            kinds[f"question {asked}"] += 1
            if asked == "wrong" and outcome != "wrong":
                outcome, reasons = "wrong", [f"question {case['question']!r}: {'; '.join(why)}"]
    finally:
        conn.close()
    return outcome, reasons, kinds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=["dev", "seen", "heldout", "all"], default="dev")
    ap.add_argument("--model", choices=["none", "bad", "wrong", "good", "all"], default="all")
    ap.add_argument("--errors", action="store_true", help="list the development set's wrong cases")
    args = ap.parse_args(argv)
    from core.memory import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    files = [("dev", DEV / "enforced_forms_dev.json")] if args.set in ("dev", "all") else []
    if args.set in ("seen", "all"):
        files.append(("seen", HELDOUT / "enforced_forms.json"))
    if args.set in ("heldout", "all"):
        files.append(("heldout", HELDOUT / "enforced_forms_fresh.json"))
    variants = ["none", "bad", "wrong", "good"] if args.model == "all" else [args.model]
    for label, path in files:
        cases = json.loads(path.read_text(encoding="utf-8"))
        for variant in variants:
            chosen = [c for c in cases if variant != "good" or len(c["messages"]) == 1]
            outcomes: Counter[str] = Counter()
            kinds: Counter[str] = Counter()
            errors = []
            for case in chosen:
                outcome, reasons, k = run_case(case, variant, embedder)
                outcomes[outcome] += 1
                kinds.update(k)
                if outcome == "wrong":
                    errors.append((case["id"], case.get("kind"), case["messages"], reasons))
            n = len(chosen)
            print(f"{label} / model {variant}: {n} cases — wrong enforced {outcomes['wrong']} "
                  f"({outcomes['wrong'] / n:.0%}), faithful {outcomes['faithful']} ({outcomes['faithful'] / n:.0%}), "
                  f"not enforced {outcomes['not enforced']} ({outcomes['not enforced'] / n:.0%}); memories left: "
                  f"{sum(v for k, v in kinds.items() if not k.startswith('question'))}, of which pending "
                  f"{kinds['pending']}, context only {kinds['context']}; override questions: "
                  f"{sum(v for k, v in kinds.items() if k.startswith('question'))}, wrong {kinds['question wrong']}, "
                  f"faithful {kinds['question faithful']}")
            if args.errors and label in ("dev", "seen"):
                for cid, kind, messages, reasons in errors:
                    print(f"  {cid} [{kind}] {messages}\n      {'; '.join(reasons)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
