"""The ``cairn`` command line: ask, schema, hidden, doctor (``insights`` in ``_insights_command``).

Exit codes (also in README):
    0  answered (also when the rule-based fallback answered)
    1  could not answer: no usable SQL, the query failed, or the model and the fallback both gave up
    2  bad input or usage: empty question, bad URL or path, bad batch file
    3  the database is unreachable, refused the login, or the embedded server could not start
    4  the query ran past the statement timeout
    130 cancelled with Ctrl+C
    143 stopped by SIGTERM (the running query is cancelled in the database too)
"""

from __future__ import annotations

import argparse
import csv
import logging
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from core.answer import Answer, json_value
from core.cancellation import Cancellation
from core.cli._exit_codes import (
    EXIT_CANCELLED,
    EXIT_DATABASE,
    EXIT_INPUT,
    EXIT_NO_ANSWER,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_TIMEOUT,
    Terminated,
)
from core.cli._outfile import AtomicOutput, check_output_path
from core.cli._output import print_answer, print_json, print_reply, reply_json, say, visible
from core.composition import Services
from core.config import ROW_CAP_MAX, Settings, check_settings
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

def _on_sigterm(_signum: int, _frame: object) -> None:
    raise Terminated()


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Log lines to whatever ``sys.stderr`` is when they are written (main() may run many times in-process)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("%(message)s"))

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


# Commands that must run whatever state settings.json is in: they report and repair it.
_SETTINGS_TOLERANT = frozenset({"doctor", "settings"})


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code. Never a traceback: every failure is a message and a hint."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has printed the usage error (or the help)
        code = exc.code if isinstance(exc.code, int) else EXIT_INPUT
        if code and "--json" in argv:
            print_json({"error": "The command line is not valid; see the usage above.", "error_kind": "InputError",
                        "hint": "Run `cairn --help` or `cairn ask --help`."})
        return code
    logging.basicConfig(level=logging.WARNING if not args.verbose else logging.INFO, handlers=[_StderrHandler()])
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    on_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if on_main_thread else None
    try:
        _check_arguments(args)
        if args.command in _SETTINGS_TOLERANT:
            settings = check_settings().settings.with_env()  # the command itself reports what is wrong
        else:
            settings = Settings.load().with_env()
        result: int = args.func(args, settings)
        return result
    except CairnError as exc:
        _print_error(exc, args)
        return _exit_code_for(exc)
    except KeyboardInterrupt as exc:
        terminated = isinstance(exc, Terminated)
        text = "Stopped (the process was asked to terminate)." if terminated else "Cancelled."
        _print_error(QueryCancelled(text, hint="Nothing was changed; the running query was cancelled too."), args)
        return EXIT_TERMINATED if terminated else EXIT_CANCELLED
    except Exception as exc:  # noqa: BLE001 - the last resort: a message, not a traceback
        logger.debug("unexpected failure", exc_info=True)
        if args.verbose:
            logger.exception("Cairn failed unexpectedly")
        _print_error(CairnError(f"Cairn failed unexpectedly ({type(exc).__name__}: {exc}).",
                                hint="Run the command again with -v to see where, and report it."), args)
        return EXIT_NO_ANSWER
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _check_arguments(args: argparse.Namespace) -> None:
    """One rule per kind of argument, for every command that takes it; InputError (exit 2) when it is bad."""
    if getattr(args, "user", None) is not None:
        args.user = _user(args.user)
    if getattr(args, "db", None) is not None:
        args.db = _target(args.db)
    if getattr(args, "model", None) is not None:
        args.model = _model_name(args.model)
    if getattr(args, "max_rows", None) is not None and not 1 <= args.max_rows <= ROW_CAP_MAX:
        raise InputError(f"--max-rows must be from 1 to {ROW_CAP_MAX:,}.", hint="For example: --max-rows 100")
    if getattr(args, "csv", None) is not None:
        check_output_path(args.csv, "--csv")
    if getattr(args, "out", None) is not None:
        check_output_path(args.out, "--out")


_TARGET_HINT = ("Use a PostgreSQL URL such as postgresql://user@host:5432/dbname, or the path of a SQLite file "
                "(also written sqlite:///path/to/file.db).")


def _target(text: str) -> str:
    """What --db (or a batch line's "db") names, checked before anything opens it; never echoes a password."""
    from urllib.parse import urlsplit

    from core.databases import redact_url

    cleaned = text.strip()
    if not cleaned:
        raise InputError("The database (--db) is empty.", hint=_TARGET_HINT)
    if any(not ch.isprintable() for ch in cleaned):
        raise InputError(f"The database {visible(redact_url(cleaned))} holds control or invisible characters.",
                         hint=_TARGET_HINT)
    if "://" in cleaned:
        try:
            urlsplit(cleaned)
        except ValueError as exc:
            raise InputError(
                f"Cannot read the database URL {visible(redact_url(cleaned))}: its host part is malformed "
                "(brackets are only for IPv6 addresses such as [::1]).", hint=_TARGET_HINT) from exc
    return cleaned


def _model_name(name: str) -> str:
    cleaned = name.strip()
    if not cleaned or len(cleaned) > 200 or any(not ch.isprintable() or ch.isspace() for ch in cleaned):
        raise InputError(f"{visible(repr(name[:80]))} is not a model name.",
                         hint="Use an Ollama model name such as --model qwen2.5-coder:7b (see `ollama list`).")
    return cleaned


def _version() -> str:
    """The installed package's version (the frozen app carries its metadata too)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cairn-sql")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cairn", description="Ask your database questions in plain words, privately.",
                                epilog="Also: `cairn` alone opens the window; `cairn selftest [--help]` checks this "
                                       "installation (database, embeddings, model, memory, window) in a temp profile.")
    p.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    p.add_argument("--version", action="version", version=f"cairn {_version()}")
    sub = p.add_subparsers(dest="command")

    ask = sub.add_parser("ask", help="answer a question (or a batch of questions)")
    ask.add_argument("question", nargs="?", help="the question, in plain words")
    ask.add_argument("--db", help="postgresql:// URL, a SQLite or DuckDB file, a CSV/Excel/Parquet/JSON file or a "
                     "folder of them (default: the embedded sample database)")
    ask.add_argument("--model", help="Ollama model (default from settings: qwen2.5-coder:7b)")
    ask.add_argument("--json", action="store_true", help="print one JSON object per answer")
    ask.add_argument("--csv", type=Path, help="also write the rows to this CSV file")
    ask.add_argument("--max-rows", type=int, help=f"row cap for this call, 1 to {ROW_CAP_MAX:,} (default from "
                     "settings: 1000)")
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
    from core.cli._feedback_command import add_feedback_parser

    add_feedback_parser(sub)

    schema = sub.add_parser("schema", help="show the tables and columns Cairn sees")
    schema.add_argument("--db", help="postgresql:// URL or SQLite file path")
    schema.add_argument("--json", action="store_true")
    schema.set_defaults(func=_cmd_schema)

    hidden = sub.add_parser("hidden", help="tables or columns never shown to the model (personal data)")
    hidden.add_argument("--db", help="postgresql:// URL or SQLite file path")
    hidden.add_argument("--add", nargs="*", default=[], metavar="NAME", help="table or table.column to hide")
    hidden.add_argument("--remove", nargs="*", default=[], metavar="NAME", help="names to show again")
    hidden.set_defaults(func=_cmd_hidden)

    doctor = sub.add_parser("doctor", help="check settings, the embedded database, the database role, memory, "
                            "Ollama, embeddings, keyring")  # fmt: skip
    doctor.add_argument("--db", help="also check what the role of this database connection may do")
    doctor.set_defaults(func=_cmd_doctor)

    from core.cli._eval_command import add_eval_parser
    from core.cli._insights_command import add_insights_parser
    from core.cli._sample_files_command import add_sample_files_parser
    from core.cli._settings_command import add_settings_parser

    for add in (add_insights_parser, add_settings_parser, add_eval_parser, add_sample_files_parser):
        add(sub)
    return p


# -- ask ---------------------------------------------------------------------------------------------


def _cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from dataclasses import replace

    if args.model:
        settings = replace(settings, model=args.model)
    if args.max_rows is not None:
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
        from core.cli._insights_command import AskSharing

        shared = AskSharing(services, args.db, args.question, args.user)  # suggestions looked up meanwhile
        if args.user:
            reply = _in_worker(lambda cancel: services.assistant(args.db).handle(
                _user(args.user), args.question, cancel=cancel, exclude=args.without))
            answer = reply.answer
            if args.json:
                _emit_json(args, {**reply_json(reply), "suggestions": shared.suggestions(printed=False)})
            else:
                print_reply(reply, args.user)
                shared.print_suggestions()
            if answer is None:
                return EXIT_OK if reply.error is None else EXIT_NO_ANSWER
        else:
            answer = _in_worker(lambda cancel: services.pipeline(args.db).ask(args.question, cancel=cancel))
            if args.json:
                _emit_json(args, {**answer.to_json(), "suggestions": shared.suggestions(printed=False)})
            else:
                print_answer(answer)
                shared.print_suggestions()
        if args.csv and answer.ok:
            _write_csv(args.csv, answer)
        shared.share(answer)  # after the output, for a bounded time; a store that is down is one stderr line
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
        _emit_json(args, report)
    else:
        say(f"route: {report['route']}{' (uncertain)' if report.get('uncertain') else ''}")
        for m in report.get("memories", []):
            say(f"memory {m['id'][:8]} [{m['category']}] {m['content']!r}: {m['why']}")
        aside = report.get("enforced_if_read") or []
        if aside:
            say(f"{len(aside)} standing filter(s) on tables this question does not name: enforced only if the SQL "
                "reads " + ", ".join(sorted({str(m['table']) for m in aside})) + ".")
        if "prompt" in report:
            say("--- system ---\n" + report["prompt"]["system"] + "\n--- user ---\n" + report["prompt"]["user"])
        elif "action" in report:
            say(f"action: {report['action']}")
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
    from core.cli._batch import run_batch

    def ask(db: str | None, question: str) -> Answer:
        target = _target(db) if db is not None else None
        return _in_worker(lambda cancel: services.pipeline(target).ask(question, cancel=cancel))

    return run_batch(args.batch, args.out, ask, args.db)


def _write_csv(path: Path, answer: Answer) -> None:
    with AtomicOutput(path, "--csv", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(answer.columns)
        for row in answer.rows:
            writer.writerow(["" if v is None else json_value(v) for v in row])
        out.commit()
    say(f"Wrote {answer.row_count} rows to {path}.", file=sys.stderr)


def _emit_json(args: argparse.Namespace, payload: Any) -> None:
    """The one JSON object of a --json command (an error after it goes to stderr only)."""
    print_json(payload)
    args.json_printed = True


def _print_error(exc: CairnError, args: argparse.Namespace | None = None) -> None:
    say(f"Error: {exc}\nHint: {exc.hint}", file=sys.stderr)
    if args is not None and getattr(args, "json", False) and not getattr(args, "json_printed", False):
        fields = {"error": str(exc), "error_kind": type(exc).__name__, "hint": exc.hint}
        if args.command == "ask":
            fields = {**Answer(question=args.question or "").to_json(), **fields, "suggestions": []}
        _emit_json(args, fields)


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


def _read_schema(db: str | None) -> tuple[str, Any]:
    """The id and schema of ``db`` (the sample database when None); the database is closed again at once."""
    from core.databases import open_target

    database = open_target(db)
    try:
        return database.id, database.schema()
    finally:
        database.close()  # only the schema is needed; close the pool before exit, not in a finaliser


def _cmd_schema(args: argparse.Namespace, settings: Settings) -> int:
    from core.prompt import render_schema_block

    database_id, schema = _read_schema(args.db)
    hidden = set(settings.hidden.get(database_id, []))
    if args.json:
        from dataclasses import asdict

        _emit_json(args, {"database": database_id, "hidden": sorted(hidden), **asdict(schema)})
        return EXIT_OK
    say(f"{database_id}  ({len(schema.tables)} tables)")
    if hidden:
        say(f"Hidden from the model: {', '.join(sorted(hidden))}")
    print()
    say(render_schema_block(schema.without(hidden)))
    return EXIT_OK


def _cmd_hidden(args: argparse.Namespace, settings: Settings) -> int:
    from dataclasses import replace

    database_id, schema = _read_schema(args.db)
    current = list(settings.hidden.get(database_id, []))
    for name in args.add:
        # "table", "schema.table", "table.column" or "schema.table.column"
        t, col = schema.table(name), None
        if t is None and "." in name:
            table_name, col = name.rsplit(".", 1)
            t = schema.table(table_name)
        if t is None or (col is not None and t.column(col) is None):
            raise InputError(f"{visible(repr(name))} is not a table or table.column of {database_id}.",
                             hint="See `cairn schema`.")
        if name not in current:
            current.append(name)
    current = [n for n in current if n not in set(args.remove)]
    hidden = dict(settings.hidden)
    hidden[database_id] = current
    if args.add or args.remove:
        # Save over the file's own settings, not the copy adjusted by OLLAMA_HOST.
        replace(Settings.load(), hidden=hidden).save()
    say("\n".join(current) if current else "Nothing is hidden from the model.")
    return EXIT_OK


def _cmd_doctor(args: argparse.Namespace, settings: Settings) -> int:
    from core.cli._doctor import run_checks

    checks = run_checks(settings, getattr(args, "db", None))
    for check in checks:
        mark = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}[check.status]
        say(f"[{mark}] {check.name}: {check.detail}")
        if check.status != "ok" and check.hint:
            say(f"       fix: {check.hint}")
    return EXIT_OK if all(c.status != "fail" for c in checks) else EXIT_NO_ANSWER

