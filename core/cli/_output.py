"""How the command line prints answers, memory confirmations and tables for a person (not for --json).

Everything printed for a person goes through :func:`say` (or :func:`visible`): text from the database, the model
or a file may hold terminal escape sequences (ESC, CSI, BEL, backspace, carriage return), bidi overrides or lone
surrogates, and printed raw they could rewrite the screen, hide text or crash the print. They are shown as
escapes instead (``\\x1b``, ``\\u202e``); tabs and newlines stay in running text and are escaped in table cells.
JSON output (:func:`print_json`) is exact: ``json.dumps`` escapes control characters by itself.
"""

from __future__ import annotations

import json
import shlex
import sys
import unicodedata
from typing import Any, TextIO

from core.answer import Answer, json_value
from core.number_format import NumberFormat
from core.text import counted

__all__ = ["json_text", "print_answer", "print_json", "print_reply", "print_table", "reply_json", "say", "visible"]

# Format characters that reorder or hide text; other Cf characters (zero width joiner in emoji) are harmless.
_BIDI = frozenset("\u061c\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_LINE_BREAKS = str.maketrans({ch: f"\\u{ord(ch):04x}" for ch in "\x1c\x1d\x1e\x85\u2028\u2029"})


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _shown_raw(ch: str) -> bool:
    if ch in _BIDI:
        return False
    if ch.isprintable():
        return True
    category = unicodedata.category(ch)
    return category == "Zs" or (category == "Cf" and ch == "\u200d")


def visible(text: Any, *, multiline: bool = True) -> str:
    """``text`` safe for a terminal: control, bidi and unencodable characters escaped.

    ``multiline`` keeps newlines and tabs (running text); without it they are escaped too (a table cell).
    """
    s = str(text)
    if s.isprintable() and not any(ch in _BIDI for ch in s):
        return s
    keep = ("\n", "\t") if multiline else ()
    return "".join(ch if ch in keep or _shown_raw(ch) else _escape(ch) for ch in s)


def say(*parts: Any, file: TextIO | None = None) -> None:
    """``print`` for a person: every part made :func:`visible` first."""
    print(*(visible(p) for p in parts), file=file)


def json_text(payload: Any, encoding: str = "utf-8") -> str:
    """``payload`` as one line of JSON, exact; text ``encoding`` cannot hold (a lone surrogate) as a JSON escape."""
    text = json.dumps(payload, ensure_ascii=False, default=str)
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return json.dumps(payload, ensure_ascii=True, default=str)
    # Characters that some readers take for a line break (str.splitlines does): escaped, so one record stays
    # one line. They only occur inside JSON strings, where the escape means the same character.
    return text.translate(_LINE_BREAKS)


def print_json(payload: Any, *, file: TextIO | None = None) -> None:
    stream = file or sys.stdout
    print(json_text(payload, getattr(stream, "encoding", None) or "utf-8"), file=stream)


def print_answer(answer: Answer) -> None:
    if answer.sql:
        say(f"SQL ({answer.path}):\n  " + answer.sql.replace("\n", "\n  "))
    if answer.ok:
        print()
        print_table(answer.columns, answer.rows, fmt=NumberFormat.of(answer.display))
        more = " (truncated)" if answer.truncated else ""
        total = sum(answer.timings.values())
        say(f"\n{counted(answer.row_count, 'row')}{more} in {total:.2f}s")
    for m in answer.memories:
        say(f"Memory applied [{m.category}] {m.content}  ({m.reason}; id {m.id[:8]})")
    for note in answer.notes:
        say(f"Note: {note}")
    for other in answer.alternatives:
        say(f"Other query ({other.label}):\n  " + other.sql.replace("\n", "\n  "))
    if answer.error:
        if answer.rejected_sql:
            say(f"Last SQL tried (edit and run it yourself):\n  {answer.rejected_sql}", file=sys.stderr)
        say(f"Error: {answer.error}\nHint: {answer.hint}", file=sys.stderr)


def print_reply(reply: Any, user: str = "NAME") -> None:
    """A Reply from the Assistant: an answer, or what was remembered (the commands it suggests name ``user``)."""
    who = shlex.quote(user)
    if reply.answer is not None:
        print_answer(reply.answer)
    if reply.text:
        say(reply.text)
    for change in reply.changes:
        if change.operation == "NOOP":
            continue
        after = "; ".join(m.content for m in change.after) or "-"
        before = "; ".join(m.content for m in change.before)
        say(f"  {change.operation}: {after}" + (f"  (was: {before})" if before else ""))
    for note in reply.notes:
        say(f"Note: {note}")
    for shown in reply.understood():
        short = shown["memory_id"][:8]
        if shown["status"] == "pending":
            choose = " --reading N" if len(shown["readings"]) > 1 else ""
            say(f"  To enforce it: cairn memory keep {short}{choose} --user {who}; to keep it as words only: "
                f"cairn memory context {short} --user {who}")
        else:
            say(f"  Not what you meant? cairn memory context {short} --user {who} keeps it as words only; "
                f"cairn memory edit {short} --content TEXT --user {who} rewords it")
    if reply.error:
        say(f"Error: {reply.error}\nHint: {reply.hint}", file=sys.stderr)


def reply_json(reply: Any) -> dict[str, Any]:
    """The --json object for --user: the answer's fields (null for a memory statement) plus route and changes."""
    base = (reply.answer or Answer(question=reply.message)).to_json()
    extra = reply.to_json()
    # the reply's own error and hint only when it has them: an answer that failed keeps its message and hint
    base.update({k: v for k, v in extra.items() if k not in ("answer", "message")
                 and not (k in ("error", "hint") and v is None)})  # fmt: skip
    if reply.answer is not None:  # the answer's own notes (rules lifted or held back, fallback) and the reply's
        base["notes"] = [*reply.answer.to_json().get("notes", []), *reply.notes]
    if reply.answer is None:
        base["error"], base["hint"] = reply.error, reply.hint
    return base


def print_table(columns: tuple[str, ...], rows: tuple[tuple[Any, ...], ...], max_rows: int = 50,
                max_width: int = 40, fmt: NumberFormat | None = None) -> None:
    fmt = fmt or NumberFormat()

    def cell(v: Any) -> str:
        shown = fmt.number(v, separators=False)
        s = shown if shown is not None else visible("NULL" if v is None else json_value(v), multiline=False)
        return s if len(s) <= max_width else s[: max_width - 1] + "…"

    heads = [cell(fmt.header(c)) for c in columns]
    shown = [[cell(v) for v in row] for row in rows[:max_rows]]
    widths = [len(c) for c in heads]
    for row in shown:
        widths = [max(w, len(c)) for w, c in zip(widths, row)]
    print("  ".join(c.ljust(w) for c, w in zip(heads, widths)))
    print("  ".join("-" * w for w in widths))
    for row in shown:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    if len(rows) > max_rows:
        print(f"... {counted(len(rows) - max_rows, 'more row')} (use --csv or --json for all)")
