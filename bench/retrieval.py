"""Bench: which memories reach a question — recall of the memories each question needs, and wrong inclusions.

Run from the repository root: ``.venv/bin/python -m bench.retrieval [--set dev|seen|heldout|all] [--errors]``.
Data: tests/data/retrieval_dev.json (development), tests/heldout/retrieval.json ("seen": the first held-out set,
its aggregates were looked at) and tests/heldout/retrieval_fresh.json (held-out, written by someone
who never read the code; --errors never prints it). Each bank's memories go in through the one path a person's
statements take (``apply_fact`` with the statement understood against the real schema and data), then every
question is recalled with the real MiniLM embedder.

*Listed* is what the person and the prompt see before the SQL exists (``Recall.memories``: a standing filter on
a table the question's words do not point at is kept aside, enforced only if the SQL reads its table).
A memory counts as *included* when it would influence the SQL: a standing filter or time window only when the
question reads its table or a table that references it (where it is enforced, through the foreign key),
a currency or decimals preference when the answer shows money or a fractional number (it formats the answer,
never the SQL: see ``Recall.display`` and ``NumberFormat.touches``), everything else when it is recalled.
Prints recall (needed memories included / needed) and wrong inclusions (included but not needed / included),
overall and per memory category and form kind.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._memory_fixtures import bench_main, fresh_store, grounding, load_json  # noqa: E402

USER = "bench"


_MONEY_ASKED = re.compile(r"\b(?:revenue|sales|sale|amount|amounts|spend|spent|spending|value|price|prices|cost|"
                          r"costs|total|totals|paid|payment|income|earn\w*|bikri|kamai|aov|basket|worth|money|"
                          r"turnover)\b", re.IGNORECASE)
_FRACTION_ASKED = re.compile(r"\b(?:average|avg|mean|rate|ratio|share|percentage|percent|per)\b|%", re.IGNORECASE)


def _formats(question: str, form: dict) -> bool:
    """A currency or decimals preference shows in an answer about money (its header, its digits) or, for
    decimals, a fractional number: the answer-side mirror of ``NumberFormat.touches``."""
    setting = str(form.get("setting") or "")
    if _MONEY_ASKED.search(question):
        return True
    return (setting == "decimals" or "decimals" in form) and bool(_FRACTION_ASKED.search(question))


def _stored(bank: dict, g: object, embedder: object) -> tuple[object, dict[str, str], dict[str, dict]]:
    from core.memory import Fact, apply_fact

    store = fresh_store()
    ids: dict[str, str] = {}  # stored memory id -> bench id
    forms: dict[str, dict] = {}
    for m in bank["memories"]:
        report = apply_fact(Fact(m["category"], m["content"]), user=USER, database_id=g.database_id,  # type: ignore[attr-defined]
                            store=store, embedder=embedder, llm=None, schema=g.schema, source="bench",  # type: ignore[attr-defined]
                            lookup=g.lookup)  # type: ignore[attr-defined]
        for mem in report.after or report.before:
            ids[mem.id] = m["id"]
            forms[m["id"]] = dict(mem.structured or {})
    return store, ids, forms


def run(path: Path, embedder: object, show_errors: bool) -> dict[str, float]:
    from core.memory import enforced_tables, recall_memories
    from core.prompt import named_tables

    data = load_json(path)
    needed = included_needed = included = wrong = 0
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # needed, hit, included, wrong
    listed = [0, 0, 0, 0]  # questions, memories listed (shown before the SQL, in the prompt), needed, not needed
    for bank in data["banks"]:
        g = grounding(bank["database"])
        store, ids, forms = _stored(bank, g, embedder)
        cats = {m["id"]: m["category"] for m in bank["memories"]}
        tables = [t.name for t in g.schema.tables]  # type: ignore[attr-defined]
        for q in bank["questions"]:
            rec = recall_memories(q["q"], user=USER, database_id=g.database_id, store=store,  # type: ignore[attr-defined]
                                  embedder=embedder, table_names=tables, schema=g.schema,  # type: ignore[attr-defined]
                                  question_tables=named_tables(g.schema, q["q"]))  # type: ignore[attr-defined]
            q_tables = {t.lower() for t in q.get("tables") or []}
            got: set[str] = set()
            listed_here: set[str] = set()
            for r in (*rec.memories, *rec.standing):
                bid = ids.get(r.memory.id)
                if bid is None:
                    continue
                st = forms.get(bid) or {}
                if r.kind == "display" and not _formats(q["q"], st):  # formatting only: counted where it shows
                    continue
                if r in rec.memories:
                    listed_here.add(bid)
                if r.kind == "filter" and not enforced_tables(st, g.schema) & q_tables:  # type: ignore[attr-defined]
                    continue
                got.add(bid)
            need = set(q.get("needs") or [])
            listed[0] += 1
            listed[1] += len(listed_here)
            listed[2] += len(listed_here & need)
            listed[3] += len(listed_here - need)
            needed += len(need)
            included_needed += len(need & got)
            included += len(got)
            wrong += len(got - need)
            for bid in need | got:
                key = f"{cats.get(bid, '?')}/{(forms.get(bid) or {}).get('kind', 'text')}"
                row = by_kind[key]
                row[0] += bid in need
                row[1] += bid in need and bid in got
                row[2] += bid in got
                row[3] += bid in got and bid not in need
            if show_errors and (need - got or got - need):
                print(f"  {q['q']!r}: missed {sorted(need - got)} extra {sorted(got - need)}")
    out = {"recall": included_needed / max(1, needed), "wrong": wrong / max(1, included),
           "needed": needed, "included": included}
    print(f"  recall {out['recall']:.3f} ({included_needed}/{needed})   wrong inclusions {out['wrong']:.3f} "
          f"({wrong}/{included})")
    print(f"  listed before the SQL (the prompt, `cairn ask --dry-run`): {listed[1] / max(1, listed[0]):.2f} per "
          f"question, recall {listed[2] / max(1, needed):.3f} ({listed[2]}/{needed}), wrong inclusions "
          f"{listed[3] / max(1, listed[1]):.3f} ({listed[3]}/{listed[1]})")
    # The sets disagree on currency/decimals memories (one labels them never needed, the others needed where
    # money is shown), so the figure without them is printed too.
    rest = [v for k, v in by_kind.items() if not k.endswith("/display")]
    n_rest, hit_rest = sum(v[0] for v in rest), sum(v[1] for v in rest)
    inc_rest, bad_rest = sum(v[2] for v in rest), sum(v[3] for v in rest)
    print(f"  without currency/decimals memories: recall {hit_rest / max(1, n_rest):.3f} ({hit_rest}/{n_rest})   "
          f"wrong inclusions {bad_rest / max(1, inc_rest):.3f} ({bad_rest}/{inc_rest})")
    print(f"  {'category/form':<26} {'needed':>6} {'recall':>7} {'incl':>5} {'wrong':>6}")
    for key, (n, hit, inc, bad) in sorted(by_kind.items()):
        print(f"  {key:<26} {n:>6} {hit / max(1, n):>7.2f} {inc:>5} {bad / max(1, inc):>6.2f}")
    return out


def main(argv: list[str] | None = None) -> int:
    return bench_main("retrieval", run, __doc__, argv)


if __name__ == "__main__":
    raise SystemExit(main())
