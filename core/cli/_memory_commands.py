"""``cairn memory list|search|add|edit|rm|clear|undo|export|import --user NAME``: the memory bank from a shell."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from core.cli._output import print_json, say
from core.config import Settings, write_json_atomic
from core.errors import InputError

__all__ = ["add_memory_parser"]


MAX_IMPORT_BYTES = 64 * 2**20  # far above any export (a memory is at most a few KB)


def add_memory_parser(sub: Any) -> None:
    memory = sub.add_parser("memory", help="see and edit what Cairn remembers about a person")
    msub = memory.add_subparsers(dest="memory_command", required=True)

    def cmd(name: str, help_text: str) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = msub.add_parser(name, help=help_text)
        p.add_argument("--user", required=True, help="whose memory")
        p.add_argument("--json", action="store_true", help="machine-readable output")
        p.set_defaults(func=_cmd_memory)
        return p

    cmd("list", "list memories").add_argument("--db", help="only those applying to this database")
    cmd("search", "memories similar to a text").add_argument("text")
    add = cmd("add", "add a memory by hand")
    add.add_argument("category", help="preference, terminology, metric or entity")
    add.add_argument("content")
    add.add_argument("--db", help="the database it applies to (default: all)")
    edit = cmd("edit", "change a memory (re-embedded)")
    edit.add_argument("id", help="memory id (or its first 6+ characters)")
    edit.add_argument("--content")
    edit.add_argument("--category")
    keep = cmd("keep", "enforce a memory that waits for your confirmation or was kept as context (or one of its readings)")
    keep.add_argument("id", help="memory id (or its first 6+ characters)")
    keep.add_argument("--reading", type=int, default=1, help="which reading to enforce (default: 1)")
    cmd("context", "keep a memory as context only: nothing of it is enforced").add_argument("id")
    cmd("rm", "delete a memory").add_argument("id")
    cmd("clear", "forget everything about the user: memories, conversation history and undo journal").add_argument("--yes", action="store_true", required=True)
    cmd("undo", "undo the last change (from the chat or the bank)")
    cmd("export", "write all memories to a JSON file").add_argument("file", type=Path)
    cmd("import", "add memories from an export file").add_argument("file", type=Path)
    cmd("adopt", "bring in memories an older Cairn left in JSON files while the server was down")


def _cmd_memory(args: argparse.Namespace, settings: Settings) -> int:
    from core.composition import Services
    from core.memory import ALL_DATABASES

    services = Services(settings)
    try:
        bank = services.bank()
        services.ground_bank(getattr(args, "db", None))
        user = args.user.strip()
        if not user:
            raise InputError("The user name is empty.", hint="Pass --user NAME.")
        action = args.memory_command
        if action == "list":
            db_id = _db_id(services, args.db) if args.db else None
            _show(bank.list(user, database_id=db_id), args.json)
        elif action == "search":
            hits = bank.search(user, args.text)
            if args.json:
                print_json([{**h.memory.to_json(), "similarity": round(h.similarity, 4)} for h in hits])
            else:
                for h in hits:
                    say(f"{h.similarity:.3f}  {h.memory.id[:8]}  [{h.memory.category}] {h.memory.content}")
        elif action == "add":
            db_id = _db_id(services, args.db) if args.db else ALL_DATABASES
            _show([bank.add(user, args.category, args.content, database_id=db_id)], args.json)
        elif action == "edit":
            if args.content is None and args.category is None:
                raise InputError("Nothing to change.", hint="Pass --content TEXT and/or --category NAME.")
            _show([bank.edit(user, args.id, content=args.content, category=args.category)], args.json)
        elif action == "keep":
            report = bank.keep(user, args.id, args.reading)
            _show(list(report.after or report.before), args.json)
        elif action == "context":
            _show([bank.context_only(user, args.id)], args.json)
        elif action == "rm":
            gone = bank.delete(user, args.id)
            say(f"Deleted {gone.id[:8]}: {gone.content}")
        elif action == "clear":
            from core.config import data_dir
            from core.memory import forget_stray_memories

            store = services.store()
            count = bank.clear(user)
            left = forget_stray_memories(data_dir(), user) if store.kind != "json" else []
            say(f"Deleted {count} memories of {user}, with their conversation history and undo journal "
                f"({store.describe().removeprefix('memory: ')})"
                + (f", and the memories left in {', '.join(str(p) for p in left)}." if left else "."))
        elif action == "undo":
            change = bank.undo(user)
            print("Nothing to undo." if change is None else f"Undid {change.operation}.")
        elif action == "export":
            from core.cli._outfile import refuse_special

            refuse_special(args.file, "export to")  # a link, a pipe or a device is never replaced
            payload = bank.export(user)
            try:
                write_json_atomic(args.file, payload)
            except OSError as exc:
                raise InputError(f"Cannot write {args.file}: {exc.strerror or exc}.",
                                 hint="Choose a file in a folder you can write to.") from exc
            say(f"Wrote {len(payload['memories'])} memories to {args.file}.", file=sys.stderr)
        elif action == "import":
            try:
                with open(args.file, "rb") as fh:  # bounded: /dev/zero or a huge file must not eat the memory
                    data = fh.read(MAX_IMPORT_BYTES + 1)
                if len(data) > MAX_IMPORT_BYTES:
                    raise InputError(f"{args.file} is larger than {MAX_IMPORT_BYTES // 2**20} MB.",
                                     hint="Pass a file made by `cairn memory export`.")
                payload = json.loads(data.decode("utf-8"))
            except (OSError, ValueError, RecursionError) as exc:
                why = "nested too deeply" if isinstance(exc, RecursionError) else exc
                raise InputError(f"Cannot read {args.file}: {why}.",
                                 hint="Pass a file made by `cairn memory export`.") from exc
            added = bank.import_(user, payload)
            print(f"Imported {len(added)} memories (duplicates skipped).", file=sys.stderr)
        elif action == "adopt":
            from core.config import data_dir
            from core.memory import adopt_memories

            store = services.store()
            if store.kind == "json":
                say("The JSON files are the active memory store: there is nothing to adopt.")
            else:
                count = adopt_memories(data_dir(), store, user=user, embedder=services.embedder())
                say(f"Adopted {count} memories of {user} into {store.describe()}; the files are kept as *.adopted.")
        return 0
    finally:
        services.close()


def _db_id(services: Any, db: str) -> str:
    from core.databases import open_target

    database = open_target(db)
    try:
        return str(database.id)
    finally:
        database.close()


def _show(memories: list[Any], as_json: bool) -> None:
    if as_json:
        print_json([m.to_json() for m in memories])
        return
    if not memories:
        say("No memories.")
    for m in memories:
        where = "" if m.database_id == "*" else f"  (db {m.database_id})"
        waiting = "  (waiting for you: `cairn memory keep`)" if (m.structured or {}).get("kind") == "pending" else ""
        say(f"{m.id[:8]}  [{m.category}] {m.content}{where}{waiting}")
