"""``cairn feedback up|down|list|remove|counts``: thumbs on answers and the verified examples they keep.

    cairn feedback up --last --user priya                       # the last answered question and its SQL
    cairn feedback up --question "Orders per month" --sql "SELECT …" --db shop.sqlite
    cairn feedback down --last --user priya                     # logged; a verified example with that SQL goes
    cairn feedback list [--db ...] --user priya
    cairn feedback remove ID --user priya
    cairn feedback counts [--since 2025-01-01]                  # thumbs per day, for every user of this machine
"""

from __future__ import annotations

import argparse
import datetime as _dt
import logging
from typing import Any

from core.cli._output import print_json, say
from core.config import Settings, data_dir
from core.errors import CairnError, InputError

__all__ = ["add_feedback_parser"]

logger = logging.getLogger(__name__)

_USER_HINT = "Pass --user NAME (the person whose answers and examples these are)."


def add_feedback_parser(sub: Any) -> None:
    feedback = sub.add_parser("feedback", help="thumbs up/down on answers; verified examples shown to the model")
    fsub = feedback.add_subparsers(dest="feedback_command", required=True)

    def cmd(name: str, help_text: str) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = fsub.add_parser(name, help=help_text)
        p.add_argument("--user", help="whose feedback (default: the last user of the window)")
        p.add_argument("--json", action="store_true", help="machine-readable output")
        p.set_defaults(func=_cmd_feedback)
        return p

    for verdict, text in (("up", "this answer was right: keep it as a verified example"),
                          ("down", "this answer was wrong: log it and drop a verified example with its SQL")):
        p = cmd(verdict, text)
        p.add_argument("--question", help="the question that was answered")
        p.add_argument("--sql", help="the SQL that answered it")
        p.add_argument("--last", action="store_true", help="the last answered question (window or `cairn ask`)")
        p.add_argument("--db", help="the database (default: the sample database; with --last: any)")
    cmd("list", "list verified examples").add_argument("--db", help="only this database's")
    cmd("remove", "remove a verified example").add_argument("id", help="example id (or its first 6+ characters)")
    counts = cmd("counts", "thumbs up and down per day (every user, or --user)")
    counts.add_argument("--since", type=_day, help="from this day on (YYYY-MM-DD)")


def _day(text: str) -> _dt.date:
    try:
        return _dt.date.fromisoformat(text.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a day written YYYY-MM-DD") from exc


def _cmd_feedback(args: argparse.Namespace, settings: Settings) -> int:
    from core.composition import Services

    services = Services(settings)
    try:
        recorder = services.feedback()
        action = args.feedback_command
        if action == "counts":
            rows = recorder.log.feedback_counts(args.since, user=args.user)
            if args.json:
                print_json([{"day": r.day.isoformat(), "ups": r.ups, "downs": r.downs} for r in rows])
            else:
                say("No feedback yet." if not rows else "\n".join(
                    f"{r.day.isoformat()}  up {r.ups:>4}  down {r.downs:>4}" for r in rows))
            return 0
        user = _user_of(args, settings)
        if action == "list":
            db_id = _database(services, args.db)[0] if args.db else None
            _show(recorder.examples.list(user, database_id=db_id), args.json)
        elif action == "remove":
            gone = recorder.examples.remove(user, args.id)
            say(f"Removed {gone.id[:8]}: {gone.question}")
        else:
            database_id, question, sql = _answer(args, services, user)
            outcome = recorder.record(action, user=user, database_id=database_id, question=question, sql=sql,
                                      model=settings.model)
            if args.json:
                print_json({"verdict": outcome.verdict, "text": outcome.text,
                            "stored": outcome.stored.to_json() if outcome.stored else None,
                            "removed": [e.to_json() for e in outcome.removed]})
            else:
                say(outcome.text)
                if outcome.stored is not None:
                    say(f"{outcome.stored.id[:8]}  {outcome.stored.question}")
        return 0
    finally:
        services.close()


def _user_of(args: argparse.Namespace, settings: Settings) -> str:
    user = args.user or settings.last_user
    if not user or not user.strip():
        raise InputError("Whose feedback is it?", hint=_USER_HINT)
    return user.strip()


def _database(services: Any, db: str | None) -> tuple[str, str]:
    """The id and dialect of the database ``db`` names (the sample database when None)."""
    if db is None:
        database = services.pipeline(None).database  # closed with the services
        return str(database.id), str(database.dialect)
    from core.databases import open_target

    database = open_target(db)
    try:
        return str(database.id), str(database.dialect)
    finally:
        database.close()


def _answer(args: argparse.Namespace, services: Any, user: str) -> tuple[str, str, str]:
    """(database id, question, SQL) that the thumb is about: given, or the last answered question."""
    if args.last:
        if args.question or args.sql:
            raise InputError("Pass either --last or --question with --sql, not both.",
                             hint="e.g. cairn feedback up --last --user priya")
        wanted = _database(services, args.db)[0] if args.db else None
        found = _last_answered(services, user, wanted)
        if found is None:
            where = " on that database" if wanted else ""
            raise InputError(f"{user} has no answered question{where} to give feedback on.",
                             hint="Ask one first (`cairn ask ... --user NAME` or the window), or pass --question "
                                  "and --sql.")
        return found
    if not args.question or not args.sql:
        raise InputError("Say which answer: --last, or --question with --sql.",
                         hint='e.g. cairn feedback up --question "Orders per month" --sql "SELECT ..." --db shop.db')
    database_id, dialect = _database(services, args.db)
    if args.feedback_command == "up":  # only a query Cairn would run is kept to be shown to the model
        from core.sql import guard

        guard(args.sql, dialect)
    return database_id, args.question, args.sql


def _last_answered(services: Any, user: str, database_id: str | None) -> tuple[str, str, str] | None:
    """The newest answered question with its SQL: from the window's history or from `cairn ask`'s conversation."""
    from core.history import QuestionHistory

    best: tuple[float, tuple[str, str, str]] | None = None
    for e in QuestionHistory(data_dir() / "history").entries(user, limit=1000):
        if e.ok and e.sql and (database_id is None or e.database_id == database_id):
            best = (e.at, (e.database_id, e.question, e.sql))
            break
    try:
        messages = services.store().recent_messages(user, limit=20)
    except CairnError as exc:  # the memory store is down: the history alone
        logger.info("conversation not read for --last: %s", exc)
        messages = []
    for question, reply in zip(messages, messages[1:], strict=False):
        if (question.role == "user" and reply.role == "assistant" and reply.sql and reply.database_id
                and (database_id is None or reply.database_id == database_id)
                and (best is None or reply.created_at > best[0])):
            best = (reply.created_at, (reply.database_id, question.content, reply.sql))
    return best[1] if best else None


def _show(examples: list[Any], as_json: bool) -> None:
    if as_json:
        print_json([e.to_json() for e in examples])
        return
    if not examples:
        say("No verified examples. Give an answer a thumbs-up: cairn feedback up --last --user NAME")
    for e in examples:
        day = _dt.datetime.fromtimestamp(e.created_at).date().isoformat()
        say(f"{e.id[:8]}  {day}  {e.question}  (db {e.database_id})\n          {' '.join(e.sql.split())}")
