"""How the command line prints answers, memory confirmations and tables for a person (not for --json)."""

from __future__ import annotations

import sys
from typing import Any

from core.answer import Answer, json_value

__all__ = ["print_answer", "print_reply", "print_table", "reply_json"]


def print_answer(answer: Answer) -> None:
    if answer.sql:
        print(f"SQL ({answer.path}):\n  " + answer.sql.replace("\n", "\n  "))
    if answer.ok:
        print()
        print_table(answer.columns, answer.rows)
        more = " (truncated)" if answer.truncated else ""
        total = sum(answer.timings.values())
        print(f"\n{answer.row_count} row(s){more} in {total:.2f}s")
    for m in answer.memories:
        print(f"Memory applied [{m.category}] {m.content}  ({m.reason}; id {m.id[:8]})")
    for note in answer.notes:
        print(f"Note: {note}")
    if answer.error:
        if answer.rejected_sql:
            print(f"Last SQL tried (edit and run it yourself):\n  {answer.rejected_sql}", file=sys.stderr)
        print(f"Error: {answer.error}\nHint: {answer.hint}", file=sys.stderr)


def print_reply(reply: Any) -> None:
    """A Reply from the Assistant: an answer, or what was remembered."""
    if reply.answer is not None:
        print_answer(reply.answer)
    if reply.text:
        print(reply.text)
    for change in reply.changes:
        if change.operation == "NOOP":
            continue
        after = "; ".join(m.content for m in change.after) or "-"
        before = "; ".join(m.content for m in change.before)
        line = f"  {change.operation}: {after}" + (f"  (was: {before})" if before else "")
        print(line)
    for note in reply.notes:
        print(f"Note: {note}")
    if reply.error:
        print(f"Error: {reply.error}\nHint: {reply.hint}", file=sys.stderr)


def reply_json(reply: Any) -> dict[str, Any]:
    """The --json object for --user: the answer's fields (null for a memory statement) plus route and changes."""
    base = (reply.answer or Answer(question=reply.message)).to_json()
    extra = reply.to_json()
    base.update({k: v for k, v in extra.items() if k not in ("answer", "message")})
    if reply.answer is None:
        base["error"], base["hint"] = reply.error, reply.hint
    return base


def print_table(columns: tuple[str, ...], rows: tuple[tuple[Any, ...], ...], max_rows: int = 50,
                max_width: int = 40) -> None:
    def cell(v: Any) -> str:
        s = "NULL" if v is None else str(json_value(v))
        return s if len(s) <= max_width else s[: max_width - 1] + "…"

    shown = [[cell(v) for v in row] for row in rows[:max_rows]]
    widths = [len(c) for c in columns]
    for row in shown:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    print("  ".join("-" * w for w in widths))
    for row in shown:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    if len(rows) > max_rows:
        print(f"... {len(rows) - max_rows} more row(s) (use --csv or --json for all)")
