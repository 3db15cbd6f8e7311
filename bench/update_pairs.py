"""Bench: the memory update cycle on labelled pairs — what a new statement does to the memories already there.

Run from the repository root:
``.venv/bin/python -m bench.update_pairs [--set dev|seen|heldout|all] [--model none|bad|wrong|all] [--errors]``.
Data: tests/data/update_pairs_dev.json, tests/heldout/update_pairs.json ("seen": its aggregates were looked at)
and tests/heldout/update_pairs_fresh.json (held-out; --errors never prints either).
For each pair the existing memories go in, then the new statement, each the way a person's message goes (the
router; a withdrawal to ``forget``, anything else through ``apply_fact`` with the pair's category); scored on the
operation (ADD / UPDATE / DELETE / NOOP, in the labels' own meaning: see ``_withdraw_semantics``) and on the
number of memories left. ``--model``: ``none`` (the rules and the structured forms alone: what a person without
Ollama gets), ``bad`` (a model whose form proposals are not valid JSON or not forms) and ``wrong`` (a model whose
proposals are valid, verifiable forms the statement does not say: the same scripted models as
``bench.enforced_forms``). For the model variants it also prints how many of the model's wrong forms ended up
enforced (goal 0) and how many memories wait for the person.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._memory_fixtures import bench_main, fresh_store, grounding, load_json  # noqa: E402

USER = "bench"


# What the labels mean. The first sets (dev, seen) follow the seed: a contradiction *replaces* the old memory and
# is labelled DELETE (old deleted, new added). The fresh sets' briefs defined UPDATE as "changed, refined or
# replaced" and DELETE as "the statement withdraws a memory" ("stop filtering to India"). Cairn's own words are
# the seed's, so for those files a replace is scored as UPDATE and a removal by the forget path as DELETE.
def _withdraw_semantics(path: Path) -> bool:
    """Every set written from the fresh briefs (update_pairs_fresh*.json) uses their meaning of the labels."""
    return path.name.startswith("update_pairs_fresh")


def _scored_op(report: object, path: Path) -> str:
    op = str(report.operation)  # type: ignore[attr-defined]
    if _withdraw_semantics(path) and op == "DELETE":
        return "UPDATE" if report.after else "DELETE"  # type: ignore[attr-defined]
    return op


def run(path: Path, embedder: object, show_errors: bool, variant: str = "none") -> dict[str, float]:
    from bench.enforced_forms import ScriptedFormModel, enforced_memories
    from core.memory import Fact, apply_fact, classify, forget
    from core.memory.forms import same_meaning

    pairs = load_json(path)
    op_ok = count_ok = both = model_enforced = waiting = 0
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for pair in pairs:
        g = grounding(pair["database"])
        store = fresh_store()
        llm = None if variant == "none" else ScriptedFormModel(variant, g.schema, None)  # type: ignore[attr-defined]

        def put(m: dict, store: object = store, g: object = g) -> str:
            # The path a person's message takes: a withdrawal goes to forget, anything else through the update
            # cycle with the category the pair gives.
            if classify(m["content"], embedder=embedder, has_history=False).kind == "forget":  # type: ignore[arg-type]
                report = forget(m["content"], user=USER, database_id=g.database_id, store=store,  # type: ignore[attr-defined]
                                embedder=embedder, schema=g.schema)  # type: ignore[attr-defined,arg-type]
            else:
                report = apply_fact(Fact(m["category"], m["content"]), user=USER, database_id=g.database_id,  # type: ignore[attr-defined]
                                    store=store, embedder=embedder, llm=llm, schema=g.schema,  # type: ignore[attr-defined]
                                    source="bench", lookup=g.lookup)  # type: ignore[attr-defined]
            return _scored_op(report, path)

        for m in pair.get("existing") or []:
            put(m)
        got = put(pair["new"])
        mine = store.list(USER)  # type: ignore[attr-defined]
        left = len(mine)
        if llm is not None:
            waiting += sum((m.structured or {}).get("kind") == "pending" for m in mine)
            model_enforced += sum(any(same_meaning(m.structured, form) for form in llm.proposed)
                                  for m in enforced_memories(mine))
        ok_op = got == pair["expect"]
        ok_n = left == pair.get("final_count", left)
        op_ok += ok_op
        count_ok += ok_n
        both += ok_op and ok_n
        row = per[pair["expect"]]
        row[0] += 1
        row[1] += ok_op
        row[2] += ok_n
        if show_errors and not (ok_op and ok_n):
            print(f"  [{pair.get('kind', '')}] expected {pair['expect']}/{pair.get('final_count')} got {got}/{left}: "
                  f"{[m['content'] for m in pair.get('existing') or []]} + {pair['new']['content']!r}")
    n = max(1, len(pairs))
    print(f"  operation {op_ok}/{len(pairs)} = {op_ok / n:.3f}   memories left right {count_ok / n:.3f}   "
          f"both {both / n:.3f}")
    if variant != "none":
        print(f"  model {variant}: its wrong forms enforced {model_enforced} (goal 0); memories waiting for the "
              f"person {waiting}")
    for op, (k, a, b) in sorted(per.items()):
        print(f"  expected {op:<7} n={k:<4} operation {a / max(1, k):.2f}   count {b / max(1, k):.2f}")
    return {"operation": op_ok / n, "count": count_ok / n}


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--model", choices=["none", "bad", "wrong", "all"], default="none")
    known, rest = ap.parse_known_args(argv)
    for variant in ["none", "bad", "wrong"] if known.model == "all" else [known.model]:
        print(f"== model {variant}")
        bench_main("update_pairs", lambda path, emb, errors, v=variant: run(path, emb, errors, v), __doc__, rest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
