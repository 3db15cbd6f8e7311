"""The ``cairn`` command line: ask, schema, hidden, doctor.

Exit codes (also in README):
    0  answered (also when the rule-based fallback answered)
    1  could not answer: no usable SQL, the query failed, or the model and the fallback both gave up
    2  bad input or usage: empty question, bad URL or path, bad batch file
    3  the database is unreachable, refused the login, or the embedded server could not start
    4  the query ran past the statement timeout
    130 cancelled with Ctrl+C
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO, TypeVar

from core.answer import Answer, json_value
from core.cancellation import Cancellation
from core.cli._output import print_answer, print_reply, reply_json
from core.composition import Services
from core.config import Settings
from core.errors import (
    CairnError,
    ConfigError,
    DatabaseError,
    EmbeddedServerError,
    InputError,
    QueryCancelled,
    QueryTimeout,
)

__all__ = ["main"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

EXIT_OK, EXIT_NO_ANSWER, EXIT_INPUT, EXIT_DATABASE, EXIT_TIMEOUT, EXIT_CANCELLED = 0, 1, 2, 3, 4, 130


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING if not args.verbose else logging.INFO, format="%(message)s")
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    try:
        if getattr(args, "user", None) is not None:
            args.user = _user(args.user)  # one rule for every command that takes --user (ask, memory ...)
        settings = Settings.load().with_env()
        result: int = args.func(args, settings)
        return result
    except CairnError as exc:
        _print_error(exc)
        return _exit_code_for(exc)
    except KeyboardInterrupt:
        print("Cancelled.", file=sys.stderr)
        return EXIT_CANCELLED


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cairn", description="Ask your database questions in plain words, privately.")
    p.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    sub = p.add_subparsers(dest="command")

    ask = sub.add_parser("ask", help="answer a question (or a batch of questions)")
    ask.add_argument("question", nargs="?", help="the question, in plain words")
    ask.add_argument("--db", help="postgresql:// URL or SQLite file path (default: the embedded sample database)")
    ask.add_argument("--model", help="Ollama model (default from settings: qwen2.5-coder:7b)")
    ask.add_argument("--json", action="store_true", help="print one JSON object per answer")
    ask.add_argument("--csv", type=Path, help="also write the rows to this CSV file")
    ask.add_argument("--max-rows", type=int, help="row cap for this call (default from settings: 1000)")
    ask.add_argument("--batch", type=Path, help='JSONL file of {"id", "question", "db"} lines')
    ask.add_argument("--out", type=Path, help="JSONL file for batch answers (default: stdout)")
    ask.add_argument("--user", help="apply this person's memories and learn from the message")
    ask.add_argument("--without", nargs="*", default=[], metavar="MEMORY_ID",
                     help="leave these memories out for this question")
    ask.add_argument("--dry-run", action="store_true",
                     help="show the route, recalled memories and exact prompt; call neither model nor query")
    ask.set_defaults(func=_cmd_ask)

    from core.cli._memory_commands import add_memory_parser

    add_memory_parser(sub)

    schema = sub.add_parser("schema", help="show the tables and columns Cairn sees")
    schema.add_argument("--db", help="postgresql:// URL or SQLite file path")
    schema.add_argument("--json", action="store_true")
    schema.set_defaults(func=_cmd_schema)

    hidden = sub.add_parser("hidden", help="tables or columns never shown to the model (personal data)")
    hidden.add_argument("--db", help="postgresql:// URL or SQLite file path")
    hidden.add_argument("--add", nargs="*", default=[], metavar="NAME", help="table or table.column to hide")
    hidden.add_argument("--remove", nargs="*", default=[], metavar="NAME", help="names to show again")
    hidden.set_defaults(func=_cmd_hidden)

    doctor = sub.add_parser("doctor", help="check the embedded database, Ollama, embedding model and keyring")
    doctor.set_defaults(func=_cmd_doctor)
    return p


# -- ask ---------------------------------------------------------------------------------------------


def _cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from dataclasses import replace

    if args.model:
        settings = replace(settings, model=args.model)
    if args.max_rows is not None:
        if args.max_rows < 1:
            raise InputError("--max-rows must be at least 1.", hint="For example: --max-rows 100")
        settings = replace(settings, row_cap=args.max_rows)
    services = Services(settings)
    try:
        if args.batch:
            return _ask_batch(args, services)
        if not args.question or not args.question.strip():
            raise InputError("The question is empty.",
                             hint='Example: cairn ask "How many orders were placed last month?"')
        if args.dry_run:
            return _dry_run(args, services)
        if args.user:
            reply = _in_worker(lambda cancel: services.assistant(args.db).handle(
                _user(args.user), args.question, cancel=cancel, exclude=args.without))
            answer = reply.answer
            if args.json:
                print(json.dumps(reply_json(reply), ensure_ascii=False))
            else:
                print_reply(reply)
            if answer is None:
                return EXIT_OK if reply.error is None else EXIT_NO_ANSWER
        else:
            answer = _in_worker(lambda cancel: services.pipeline(args.db).ask(args.question, cancel=cancel))
            if args.json:
                print(json.dumps(answer.to_json(), ensure_ascii=False))
            else:
                print_answer(answer)
        if args.csv and answer.ok:
            _write_csv(args.csv, answer)
        return _exit_code_for_answer(answer)
    finally:
        services.close()


MAX_USER_CHARS = 200


def _user(name: str) -> str:
    cleaned = name.strip()
    hint = "Use a short printable name, e.g. --user priya."
    if len(cleaned) > MAX_USER_CHARS:
        raise InputError(f"The user name is {len(cleaned):,} characters long; the limit is {MAX_USER_CHARS}.",
                         hint=hint)
    if not cleaned or any(not ch.isprintable() for ch in cleaned):
        raise InputError(f"{name!r} is not a usable user name.", hint=hint)
    return cleaned


def _dry_run(args: argparse.Namespace, services: Services) -> int:
    if args.user:
        report = services.assistant(args.db).dry_run(_user(args.user), args.question)
    else:
        from core.memory import classify
        from core.prompt import build_sql_prompt

        pipeline = services.pipeline(args.db)
        question = pipeline.check_question(args.question)
        route = classify(question)
        prompt = build_sql_prompt(question, pipeline.load_schema(), today=pipeline._today(),
                                  num_ctx=services.settings.num_ctx)
        report = {"message": question, "route": route.kind, "uncertain": route.uncertain,
                  "reasons": list(route.reasons), "memories": [],
                  "prompt": {"system": prompt.system, "user": prompt.user, "tokens": prompt.tokens}}
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(f"route: {report['route']}{' (uncertain)' if report.get('uncertain') else ''}")
        for m in report.get("memories", []):
            print(f"memory {m['id'][:8]} [{m['category']}] {m['content']!r}: {m['why']}")
        if "prompt" in report:
            print("--- system ---\n" + report["prompt"]["system"] + "\n--- user ---\n" + report["prompt"]["user"])
        elif "action" in report:
            print(f"action: {report['action']}")
    return EXIT_OK


def _in_worker(work_fn: Callable[[Cancellation], T]) -> T:
    """Runs ``work_fn`` on a worker thread so Ctrl+C can cancel it (the database query too)."""
    cancel = Cancellation()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["answer"] = work_fn(cancel)
        except BaseException as exc:  # noqa: BLE001 - re-raised on the main thread
            box["error"] = exc

    worker = threading.Thread(target=work, name="cairn-ask", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        cancel.cancel()
        worker.join(5)
        raise
    if "error" in box:
        raise box["error"]
    result: T = box["answer"]
    return result


def _ask_batch(args: argparse.Namespace, services: Services) -> int:
    lines = _read_batch(args.batch)
    out: TextIO = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    answered = 0
    try:
        for item in lines:
            db = item.get("db") or args.db
            question = str(item.get("question", ""))
            try:
                answer = _in_worker(lambda cancel, db=db, q=question: services.pipeline(db).ask(q, cancel=cancel))
                payload = answer.to_json()
            except CairnError as exc:
                payload = Answer(question=str(item.get("question", "")), error=str(exc), hint=exc.hint).to_json()
            payload = {"id": item.get("id"), **payload}
            answered += payload["error"] is None
            out.write(json.dumps(payload, ensure_ascii=False) + "\n")
            out.flush()
    finally:
        if out is not sys.stdout:
            out.close()
    print(f"{answered} of {len(lines)} questions answered.", file=sys.stderr)
    return EXIT_OK if answered == len(lines) else EXIT_NO_ANSWER


def _read_batch(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"Cannot read batch file {path}: {exc.strerror}.", hint="Check the path.") from exc
    items: list[dict[str, Any]] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise InputError(
                f"Line {n} of {path} is not valid JSON: {exc}.",
                hint='Each line must be an object like {"id": 1, "question": "...", "db": "..."}.',
            ) from exc
        if not isinstance(item, dict) or "question" not in item:
            raise InputError(
                f'Line {n} of {path} has no "question".',
                hint='Each line must be an object like {"id": 1, "question": "...", "db": "..."}.',
            )
        items.append(item)
    return items


def _write_csv(path: Path, answer: Answer) -> None:
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(answer.columns)
            for row in answer.rows:
                writer.writerow(["" if v is None else json_value(v) for v in row])
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    print(f"Wrote {answer.row_count} rows to {path}.", file=sys.stderr)


def _print_error(exc: CairnError) -> None:
    print(f"Error: {exc}\nHint: {exc.hint}", file=sys.stderr)


def _exit_code_for(exc: BaseException) -> int:
    if isinstance(exc, QueryCancelled):
        return EXIT_CANCELLED
    if isinstance(exc, QueryTimeout):
        return EXIT_TIMEOUT
    if isinstance(exc, (InputError, ConfigError)):
        return EXIT_INPUT
    if isinstance(exc, (DatabaseError, EmbeddedServerError)):
        return EXIT_DATABASE
    return EXIT_NO_ANSWER


def _exit_code_for_answer(answer: Answer) -> int:
    if answer.ok:
        return EXIT_OK
    return _EXIT_BY_KIND.get(answer.error_kind or "", EXIT_NO_ANSWER)


_EXIT_BY_KIND = {
    "QueryCancelled": EXIT_CANCELLED,
    "QueryTimeout": EXIT_TIMEOUT,
    "InputError": EXIT_INPUT,
    "ConfigError": EXIT_INPUT,
    "DatabaseUnavailable": EXIT_DATABASE,
    "AuthenticationFailed": EXIT_DATABASE,
    "DatabaseError": EXIT_DATABASE,
    "EmbeddedServerError": EXIT_DATABASE,
}


# -- schema, hidden, doctor ----------------------------------------------------------------------------


def _cmd_schema(args: argparse.Namespace, settings: Settings) -> int:
    from core.prompt import render_schema_block
    from core.databases import open_target

    database = open_target(args.db)
    try:
        schema = database.schema()
    finally:
        database.close()  # only the schema is needed; close the pool before exit, not in a finaliser
    hidden = set(settings.hidden.get(database.id, []))
    if args.json:
        from dataclasses import asdict

        print(json.dumps({"database": database.id, "hidden": sorted(hidden), **asdict(schema)}, default=str))
        return EXIT_OK
    print(f"{database.id}  ({len(schema.tables)} tables)")
    if hidden:
        print(f"Hidden from the model: {', '.join(sorted(hidden))}")
    print()
    print(render_schema_block(schema.without(hidden)))
    return EXIT_OK


def _cmd_hidden(args: argparse.Namespace, settings: Settings) -> int:
    from dataclasses import replace

    from core.databases import open_target

    database = open_target(args.db)
    try:
        schema = database.schema()
    finally:
        database.close()  # only the schema is needed; close the pool before exit, not in a finaliser
    current = list(settings.hidden.get(database.id, []))
    for name in args.add:
        # "table", "schema.table", "table.column" or "schema.table.column"
        t, col = schema.table(name), None
        if t is None and "." in name:
            table_name, col = name.rsplit(".", 1)
            t = schema.table(table_name)
        if t is None or (col is not None and t.column(col) is None):
            raise InputError(f"{name!r} is not a table or table.column of {database.id}.", hint="See `cairn schema`.")
        if name not in current:
            current.append(name)
    current = [n for n in current if n not in set(args.remove)]
    hidden = dict(settings.hidden)
    hidden[database.id] = current
    if args.add or args.remove:
        # Save over the file's own settings, not the copy adjusted by OLLAMA_HOST.
        replace(Settings.load(), hidden=hidden).save()
    print("\n".join(current) if current else "Nothing is hidden from the model.")
    return EXIT_OK


def _cmd_doctor(args: argparse.Namespace, settings: Settings) -> int:
    from core.cli._doctor import run_checks

    checks = run_checks(settings)
    for check in checks:
        mark = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}[check.status]
        print(f"[{mark}] {check.name}: {check.detail}")
        if check.status != "ok" and check.hint:
            print(f"       fix: {check.hint}")
    return EXIT_OK if all(c.status != "fail" for c in checks) else EXIT_NO_ANSWER

