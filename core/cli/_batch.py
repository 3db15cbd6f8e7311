"""``cairn ask --batch FILE``: one JSON object per line in, one answer record per line out.

A bad line never stops the others: it gets an error record of its own (with its line number) and the rest are
answered. The file is read as a stream under caps, so any file ends: a line is at most 1 MB, a batch at most
10,000 questions and 64 MB (``/dev/zero`` is one endless line); reading stops there with a record saying so.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from core.answer import Answer
from core.cli._outfile import AtomicOutput
from core.cli._output import json_text, print_json, visible
from core.errors import CairnError, InputError

__all__ = ["BatchLine", "read_batch", "run_batch"]

logger = logging.getLogger(__name__)

MAX_LINE_BYTES = 1 << 20
MAX_BATCH_LINES = 10_000
MAX_BATCH_BYTES = 64 << 20
MAX_REPORTED = 20  # bad lines described on stderr; the rest are only in the output
LINE_HINT = 'Each line must be one JSON object like {"id": 1, "question": "How many orders?", "db": "shop.sqlite"}.'


@dataclass(frozen=True)
class BatchLine:
    """One question of a batch, or why its line could not be used (``error``)."""

    number: int
    id: str | int | None = None
    question: str = ""
    db: str | None = None
    error: InputError | None = None


def read_batch(path: Path) -> Generator[BatchLine, None, None]:
    """The lines of ``path`` as they are read; InputError right away when it cannot be opened."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed by _closing when the lines are read or dropped
    except (OSError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        raise InputError(f"Cannot read batch file {visible(path)}: {why}.", hint="Check the path.") from exc
    return _closing(fh, path.name)


def _closing(fh: IO[bytes], name: str) -> Generator[BatchLine, None, None]:
    with fh:
        yield from _lines(fh, name)


def _lines(fh: IO[bytes], name: str) -> Iterator[BatchLine]:
    number = questions = total = 0
    while True:
        raw = fh.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        total += len(raw)
        if len(raw) > MAX_LINE_BYTES:
            total += _skip_line(fh, MAX_BATCH_BYTES - total)
            yield _bad(number, f"Line {number} of {name} is longer than {MAX_LINE_BYTES // 1024 // 1024} MB",
                       "Put one short question on each line.")
        elif raw.strip():
            questions += 1
            if questions > MAX_BATCH_LINES:
                yield _bad(number, f"Stopped at line {number} of {name}: a batch holds at most "
                           f"{MAX_BATCH_LINES:,} questions; the rest was not read", "Split the file in smaller ones.")
                return
            yield _parse(number, raw, name)
        if total >= MAX_BATCH_BYTES:
            yield _bad(number + 1, f"Stopped after {MAX_BATCH_BYTES // 1024 // 1024} MB of {name}; "
                       "the rest was not read", "Split the file in smaller ones.")
            return


def _skip_line(fh: IO[bytes], budget: int) -> int:
    """Read past the rest of an over-long line (at most ``budget`` bytes); the bytes read."""
    skipped = 0
    while skipped < budget:
        chunk = fh.readline(min(MAX_LINE_BYTES, budget - skipped))
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            break
    return skipped


def _bad(number: int, message: str, hint: str = LINE_HINT, item_id: Any = None, question: str = "") -> BatchLine:
    return BatchLine(number, id=item_id, question=question, error=InputError(message + ".", hint=hint))


def _parse(number: int, raw: bytes, name: str) -> BatchLine:
    where = f"Line {number} of {name}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _bad(number, f"{where} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})",
                    "Save the file as UTF-8.")
    if number == 1:
        text = text.removeprefix("\ufeff")
    try:
        item = json.loads(text)
    except RecursionError:
        return _bad(number, f"{where} is nested too deeply to be a question")
    except ValueError as exc:
        return _bad(number, f"{where} is not valid JSON: {exc}")
    if not isinstance(item, dict):
        return _bad(number, f"{where} is a JSON {_kind(item)}, not an object")
    item_id = item.get("id")
    if not (item_id is None or (isinstance(item_id, (str, int)) and not isinstance(item_id, bool))) or (
            isinstance(item_id, str) and not _encodable(item_id)):
        return _bad(number, f'{where}: "id" must be text or a whole number, not {_kind(item_id)}')
    question, db = item.get("question"), item.get("db")
    for key, value, optional in (("question", question, False), ("db", db, True)):
        if (value is None and optional) or (isinstance(value, str) and _encodable(value)):
            continue
        if value is None:
            return _bad(number, f'{where} has no "question"', item_id=item_id)
        known = question if key != "question" else ""
        if isinstance(value, str):
            return _bad(number, f'{where}: "{key}" holds a lone surrogate (invalid Unicode)', "Save the text as "
                        "UTF-8; a \\ud800-style escape must be half of a pair.", item_id, known)
        return _bad(number, f'{where}: "{key}" must be text, not {_kind(value)}', item_id=item_id, question=known)
    return BatchLine(number, id=item_id, question=question, db=db or None)


def _kind(value: Any) -> str:
    names = {dict: "object", list: "array", str: "text", bool: "true/false", int: "number", float: "number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


Ask = Callable[[str | None, str], Answer]


def run_batch(path: Path, out_path: Path | None, ask: Ask, default_db: str | None) -> int:
    """Answer every line of ``path``; records to ``out_path`` (whole, renamed into place) or stdout.

    Exit code: 2 when any line was bad or reading stopped early, else 0 when every question was answered, else 1.
    """
    lines = read_batch(path)  # raises before any output when the file cannot be opened
    out = AtomicOutput(out_path, "--out") if out_path else None
    answered = asked = bad = 0
    try:
        for line in lines:
            payload = _answer(line, ask, default_db)
            if line.error is not None:
                bad += 1
                if bad <= MAX_REPORTED:
                    print(f"Error: {visible(line.error)}", file=sys.stderr)
            else:
                asked += 1
                answered += payload["error"] is None
            if out is None:
                print_json(payload)
                sys.stdout.flush()
            else:
                out.write(json_text(payload) + "\n")
                out.flush()
        if out is not None:
            out.commit()
    except KeyboardInterrupt:
        if out is not None:  # keep the answers so far: every line in the file is whole
            out.commit()
            print(f"Cancelled; the {asked} answers so far are in {visible(out_path)}.", file=sys.stderr)
        raise
    finally:
        lines.close()
        if out is not None:
            out.discard()
    return _finish(path, asked, answered, bad)


def _finish(path: Path, asked: int, answered: int, bad: int) -> int:
    print(f"{answered} of {asked} questions answered.", file=sys.stderr)
    if bad:
        more = f" (the first {MAX_REPORTED} are above)" if bad > MAX_REPORTED else ""
        print(f"{bad} line(s) of {visible(path.name)} could not be used{more}; each has an error record.\n"
              f"Hint: {LINE_HINT}", file=sys.stderr)
        return 2
    return 0 if answered == asked else 1


def _answer(line: BatchLine, ask: Ask, default_db: str | None) -> dict[str, Any]:
    if line.error is not None:
        answer = Answer(question=line.question, error=str(line.error), error_kind="InputError", hint=line.error.hint)
    else:
        try:
            answer = ask(line.db or default_db, line.question)
        except CairnError as exc:
            answer = Answer(question=line.question, error=str(exc), error_kind=type(exc).__name__, hint=exc.hint)
        except Exception as exc:  # noqa: BLE001 - one line's failure must not cost the others their answers
            logger.debug("batch line %d failed", line.number, exc_info=True)
            answer = Answer(question=line.question, error=f"Cairn failed on this question ({type(exc).__name__}).",
                            error_kind="InternalError", hint="Run it alone with -v to see why, and report it.")
    return {"id": line.id, "line": line.number, **answer.to_json()}
