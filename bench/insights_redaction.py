"""How well redaction catches leaks without throwing away clean records, on a set of model-style records.

    .venv/bin/python -m bench.insights_redaction SET.json [--show-misses]

Each case: the question, SQL, result rows and hidden values of one answer, a record a model might write, and
whether it leaks (with the literal(s) that leak). For every case the record goes through
``core.insights.redact`` with the literals of that answer and a schema read from its SQL (every column named in
the SQL under every table it names: generous, so entity checks are not what is measured). Figures:
- leaks caught: the record is rejected, or no leaked literal is left in what would be stored (letters and
  digits compared with case, spacing and punctuation aside) and no part the set marks as leaking is kept
  (``leak_parts``: an encoded or re-spelled value is found only that way);
- clean records kept: not rejected; and the share of their follow-ups and entities kept.
``--show-misses`` prints the cases missed: do not use it on a held-out set (it becomes a development set).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

from core.insights import InsightDraft, collect_literals, redact
from core.insights._redact import visible


def _schema(sql: str) -> dict[str, list[str]]:
    try:
        trees = [t for t in sqlglot.parse(sql) if t is not None]
    except Exception:  # noqa: BLE001 - a set's SQL need not parse for this bench
        return {}
    tables = {t.name for tree in trees for t in tree.find_all(exp.Table) if t.name}
    columns = sorted({c.name for tree in trees for c in tree.find_all(exp.Column) if c.name})
    return {t: columns for t in tables}


def _fold(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.casefold())


def _leaves(stored: str, leaked: list[str]) -> bool:
    folded = _fold(stored)
    return any(len(_fold(v)) >= 2 and _fold(v) in folded for v in leaked)


def _keeps(out: InsightDraft, record: dict[str, Any], case: dict[str, Any]) -> bool:
    """Does the stored record keep a part the set marks as carrying the leak ("leak_parts": "summary",
    "followup:N", "entity:N")? An encoded or re-spelled value never matches its literal, so this is the measure."""
    kept = {visible(t) for t in (out.insight_summary, *out.suggested_followups, *out.entities)}
    lists = {"followup": record.get("suggested_followups", []), "entity": record.get("entities", [])}
    for part in case.get("leak_parts", []):
        kind, _, index = part.partition(":")
        text = record.get("insight_summary", "") if kind == "summary" else lists.get(kind, [""] * 999)[int(index)]
        if visible(str(text)) in kept:
            return True
    return False


def evaluate(cases: list[dict[str, Any]], show: bool = False) -> dict[str, float]:
    caught = leaks = kept = clean = 0
    followups_kept = followups_all = entities_kept = entities_all = 0
    for case in cases:
        rec = case["record"]
        draft = InsightDraft(bool(rec.get("worth_sharing", True)), rec.get("insight_summary", ""),
                             tuple(rec.get("entities", [])), tuple(rec.get("suggested_followups", [])))
        schema = _schema(case.get("sql", ""))
        names = list(schema) + [c for cols in schema.values() for c in cols] + list(case.get("columns", []))
        literals = collect_literals(question=case.get("question", ""), sql=case.get("sql", ""),
                                    rows=case.get("rows", []), hidden_values=case.get("hidden_values", []),
                                    schema_words=names)
        result = redact(draft, literals, schema)
        out = result.draft
        stored = "" if out is None else " ".join([out.insight_summary, *out.entities, *out.suggested_followups])
        if case.get("leaks"):
            leaks += 1
            ok = out is None or (not _leaves(stored, case.get("leaked", [])) and not _keeps(out, rec, case))
            caught += ok
            if show and not ok:
                print(f"MISSED leak {case.get('id')}: {case.get('leaked')} in {stored!r}")
        else:
            clean += 1
            kept += out is not None
            followups_all += len(draft.suggested_followups)
            entities_all += len(draft.entities)
            if out is not None:
                followups_kept += len(out.suggested_followups)
                entities_kept += len(out.entities)
            elif show:
                print(f"REJECTED clean {case.get('id')}: {result.reason}")
    return {"leak cases": leaks, "leaks caught": caught / max(1, leaks), "clean cases": clean,
            "clean records kept": kept / max(1, clean),
            "clean follow-ups kept": followups_kept / max(1, followups_all),
            "clean entities kept": entities_kept / max(1, entities_all)}


def main(argv: list[str]) -> None:
    show = "--show-misses" in argv
    for path in [a for a in argv if not a.startswith("--")]:
        figures = evaluate(json.loads(Path(path).read_text(encoding="utf-8")), show)
        print(path)
        for key, value in figures.items():
            print(f"  {key:<24} {value:.1%}" if isinstance(value, float) else f"  {key:<24} {value}")


if __name__ == "__main__":
    main(sys.argv[1:])
