"""``cairn insights list|query|invalidate|purge``, and what ``cairn ask`` does with shared insights.

``ask`` looks for other agents' suggestions while the answer is being made (the embedding model loads in
parallel with the model call) and waits a bounded time for them once the answer is ready; after the answer is
printed and flushed it shares the answer, again for a bounded time. A store that is down or slow costs one line
on stderr and never changes the answer or the exit code. Shared text is printed through ``say`` (escaped), and
never goes anywhere near the SQL prompt.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from core.cli._output import print_json, say
from core.config import Settings
from core.errors import CairnError, InputError
from core.text import counted

__all__ = ["SHARE_WAIT_S", "SUGGESTIONS_WAIT_S", "AskSharing", "add_insights_parser"]

logger = logging.getLogger(__name__)

# After the answer is ready, at most this long for other agents' suggestions (a cold start loads the embedding
# model meanwhile, which can take ten seconds or more on a small, busy machine; a slow store is cut off here).
# CAIRN_SUGGESTIONS_WAIT_S overrides it (scripts that would rather wait, or not at all).
SUGGESTIONS_WAIT_S = 20.0
# ``--json`` prints once, so it never waits that long: what arrived while the answer was made, and at most this more.
JSON_SUGGESTIONS_WAIT_S = 0.5
SHARE_WAIT_S = 30.0  # after the answer is printed: the summary model call and the store, at most this long
_OFF_NOTE = ("Note: sharing is off, so this agent shares nothing (turn it on in the window's Settings → Sharing, "
             "or set sharing_enabled in settings.json).")


def add_insights_parser(sub: Any) -> None:
    p = sub.add_parser("insights", help="insights shared between agents: yours, other agents' suggestions")
    isub = p.add_subparsers(dest="insights_command", required=True)

    def cmd(name: str, help_text: str) -> argparse.ArgumentParser:
        c: argparse.ArgumentParser = isub.add_parser(name, help=help_text)
        c.add_argument("--json", action="store_true", help="machine-readable output")
        c.set_defaults(func=_cmd_insights)
        return c

    cmd("list", "this agent's shared records, those signed with its key (summary, entities, follow-ups, expiry)")
    query = cmd("query", "what other agents' insights suggest for a question")
    query.add_argument("text", help="a question, in plain words")
    query.add_argument("--top", type=int, default=3, help="how many suggestions, 1 to 20 (default 3)")
    invalidate = cmd("invalidate", "remove a follow-up question from this agent's own shared records "
                                   "(the insights stay; other agents' records are theirs)")
    invalidate.add_argument("text", help="the follow-up question, as suggested")
    invalidate.add_argument("--record", help="only from this record id (default: every record suggesting it)")
    purge = cmd("purge", "delete expired records now; --mine --yes deletes all of this agent's records")
    purge.add_argument("--mine", action="store_true", help="delete every record this agent shared")
    purge.add_argument("--yes", action="store_true", help="confirm --mine")


def _cmd_insights(args: argparse.Namespace, settings: Settings) -> int:
    from core.composition import Services

    services = Services(settings)
    try:
        command: Callable[[argparse.Namespace, Any], int] = _COMMANDS[args.insights_command]
        return command(args, services)
    finally:
        services.close()


def _list(args: argparse.Namespace, services: Any) -> int:
    agent = services.agent_id()
    records = services.insight_store().list_author(services.agent_key().public_b64)
    if args.json:
        print_json({"agent_id": agent, "author_key": services.agent_key().public_b64, "sharing_enabled": services.settings.sharing_enabled,
                    "records": [_record_json(r) for r in records]})
        return 0
    if not services.settings.sharing_enabled:
        say(_OFF_NOTE, file=sys.stderr)
    say(f"Agent {agent} · {services.insight_store().describe()} · {counted(len(records), 'record')}")
    for r in records:
        expired = " (expired)" if r.expired() else ""
        say(f"\n{r.record_id}  {r.db_kind}  shared {_when(r.created_at)}, expires {_when(r.expires_at)}{expired}")
        say(f"  {r.insight_summary}")
        if r.entities:
            say(f"  entities: {', '.join(r.entities)}")
        for f in r.suggested_followups:
            say(f"  - {f}")
    return 0


def _query(args: argparse.Namespace, services: Any) -> int:
    from core.sharing import suggestion_json

    if not 1 <= args.top <= 20:
        raise InputError("--top must be from 1 to 20.", hint="For example: --top 5")
    if not args.text.strip():
        raise InputError("The text is empty.", hint='Example: cairn insights query "revenue by country"')
    found = services.insight_sharing("").suggestions(args.text, limit=args.top)
    if args.json:
        print_json({"suggestions": [{**suggestion_json(s), "insight": s.insight} for s in found]})
        return 0
    if not found:
        say("No other agent's insight applies to this question.")
    for s in found:
        say(f"{s.text}\n  from {s.agent_id} ({s.db_kind}), similarity {s.similarity:.2f}, record {s.record_id}"
            f"\n  insight: {s.insight}")
    return 0


def _invalidate(args: argparse.Namespace, services: Any) -> int:
    removed = services.insight_store().invalidate_followup(args.text, key=services.agent_key(),
                                                           record_id=args.record or None)
    if args.json:
        print_json({"removed": removed})
    else:
        say(f"Removed {counted(removed, 'follow-up question')}; the insights stay." if removed
            else "No follow-up question of this agent's shared records matched.")
    return 0 if removed else 1


def _purge(args: argparse.Namespace, services: Any) -> int:
    store = services.insight_store()
    if args.mine:
        if not args.yes:
            raise InputError("--mine deletes every insight this agent has shared.",
                             hint="Run `cairn insights purge --mine --yes` to confirm.")
        key = services.agent_key()
        ids = [r.record_id for r in store.list_author(key.public_b64)]
        deleted = store.delete(ids, key=key) if ids else 0
        report = {"expired": 0, "deleted": deleted}
    else:
        report = {"expired": store.expire(), "deleted": 0}
    if args.json:
        print_json(report)
    elif args.mine:
        say(f"Deleted {counted(report['deleted'], 'record')} this agent shared.")
    else:
        say(f"Removed {counted(report['expired'], 'expired record')}.")
    return 0


_COMMANDS: dict[str, Callable[[argparse.Namespace, Any], int]] = {
    "list": _list, "query": _query, "invalidate": _invalidate, "purge": _purge}


def _record_json(record: Any) -> dict[str, Any]:
    data = record.to_json()
    data.pop("vector", None)
    return data


def _when(seconds: float) -> str:
    return _dt.datetime.fromtimestamp(seconds).astimezone().strftime("%Y-%m-%d %H:%M")


# -- cairn ask -------------------------------------------------------------------------------------------------


class AskSharing:
    """Shared insights around one ``cairn ask``: suggestions found alongside the answer, the answer shared
    after it is printed. Without sharing on, it does nothing and suggests nothing."""

    def __init__(self, services: Any, db: str | None, question: str, user: str | None) -> None:
        self._services, self._db, self._question, self._user = services, db, question, user
        self._found: dict[str, Any] = {}
        self._reported = False
        self._sharing = None
        self._thread: threading.Thread | None = None
        if not services.settings.sharing_enabled:
            return
        try:
            self._sharing = services.sharing(db)
        except CairnError as exc:  # the database itself is down: the answer reports that, not this
            logger.info("sharing not started: %s", exc)
            return
        self._started = time.monotonic()
        self._thread = _daemon(self._find, "cairn-suggestions")

    def _find(self) -> None:
        try:
            self._found["items"] = self._sharing.suggestions(self._question)  # type: ignore[union-attr]
        except Exception as exc:  # noqa: BLE001 - reported once, on stderr, by suggestions()
            self._found["error"] = exc

    def suggestions(self, *, printed: bool = True) -> list[dict[str, Any]]:
        """Other agents' suggestions as ``--json`` lists them (empty when off, none apply, or the store is down).
        ``printed``: the answer is out already, so a cold start may be waited for (SUGGESTIONS_WAIT_S); else (one
        ``--json`` object) only what arrived by now, and JSON_SUGGESTIONS_WAIT_S more. CAIRN_SUGGESTIONS_WAIT_S
        overrides both."""
        from core.sharing import suggestion_json

        if self._thread is None:
            return []
        wait = _seconds("CAIRN_SUGGESTIONS_WAIT_S", SUGGESTIONS_WAIT_S if printed else JSON_SUGGESTIONS_WAIT_S)
        self._thread.join(wait)
        if self._thread.is_alive():
            self._report(f"no suggestions this time: {self._where()} had not answered "
                         f"{time.monotonic() - self._started:.0f} s after the question was asked")
            return []
        if "error" in self._found:
            self._report(_reason(self._found["error"]))
            return []
        return [suggestion_json(s) for s in self._found.get("items", [])]

    def _where(self) -> str:
        """The store by its kind and place, without a password (the state said when it does not answer)."""
        from core.databases import redact_url

        settings = self._services.settings
        place = redact_url(settings.insight_url) if settings.insight_url else "the default folder"
        return f"the shared store ({settings.insight_store} at {place})"

    def print_suggestions(self) -> None:
        """After the answer is printed (and flushed: a person reads it while the suggestions are looked up)."""
        sys.stdout.flush()
        found = self.suggestions()
        if found:
            say("\nSuggested by other agents:")
            for s in found:
                say(f"  - {s['text']}  ({s['db_kind']})")

    def share(self, answer: Any) -> None:
        """Share ``answer`` after the output is flushed; waits at most SHARE_WAIT_S, never raises."""
        if self._sharing is None or answer is None or not answer.ok:
            return
        sys.stdout.flush()
        if self._thread is not None and self._thread.is_alive():  # the look-up is still waiting on the store
            self._report(f"not shared: {self._where()} has not answered yet")
            return
        if _store_down(self._found.get("error")):  # asking it again would wait for the same timeout
            self._report(f"not shared: {_reason(self._found['error'])}")
            return
        services, sharing, user = self._services, self._sharing, self._user
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                pipeline = services.pipeline(self._db)
                box["outcome"] = services.share_answer(sharing, answer, pipeline=pipeline, user=user,
                                                       question=self._question)
            except Exception as exc:  # noqa: BLE001 - reported below, never raised into the command
                box["error"] = exc

        thread = _daemon(work, "cairn-share")
        thread.join(SHARE_WAIT_S)
        outcome = box.get("outcome")
        if "error" in box:
            self._report(f"not shared: {_reason(box['error'])}")
        elif outcome is None:
            self._report(f"not shared: it took longer than {SHARE_WAIT_S:.0f} s")
        elif outcome.store_down:
            self._report(f"not shared: {outcome.reason}")
        else:
            logger.info("shared insight: %s", outcome.record.record_id if outcome.record else outcome.reason)

    def _report(self, text: str) -> None:
        """One line on stderr for the whole command, whatever went wrong with the store."""
        if not self._reported:
            self._reported = True
            say(f"Shared insights: {text} (the answer is not affected).", file=sys.stderr)


def _daemon(target: Callable[[], None], name: str) -> threading.Thread:
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread


def _seconds(name: str, default: float) -> float:
    """A wait in seconds from the environment (0 to 600), else ``default``."""
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if 0 <= value <= 600 else default


def _store_down(exc: BaseException | None) -> bool:
    from core.errors import InsightStoreError

    return isinstance(exc, InsightStoreError)


def _reason(exc: BaseException) -> str:
    """What went wrong and, for Cairn's own errors, what to do about it — on one line."""
    text = " ".join(str(getattr(exc, "message", "") or exc).split()) or type(exc).__name__
    hint = " ".join(str(getattr(exc, "hint", "") or "").split())
    return f"{text.rstrip('.')}. {hint}" if hint and hint not in text else text
