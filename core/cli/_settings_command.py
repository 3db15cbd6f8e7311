"""``cairn settings [--fix | --reset]``: show what settings.json holds and what is wrong in it, and repair it.

``--fix`` keeps every good key and writes the default for each bad one; ``--reset`` writes all defaults. Both
copy the old file to ``settings.json.bak`` first and replace it atomically, so nothing is lost.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from core.cli._output import print_json, say
from core.config import Settings, SettingsCheck, check_settings, fix_settings

__all__ = ["add_settings_parser"]


def add_settings_parser(sub: Any) -> None:
    p = sub.add_parser("settings", help="show settings.json and its problems; --fix or --reset repairs it")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--fix", action="store_true", help="write the defaults for the bad keys (keeps a .bak)")
    group.add_argument("--reset", action="store_true", help="write all the defaults (keeps a .bak)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=_cmd_settings)


def _cmd_settings(args: argparse.Namespace, _settings: Settings) -> int:
    if args.fix or args.reset:
        check, backup = fix_settings(reset=args.reset)
        after = check_settings(check.path)
        report = {**_report(after), "repaired": [p.key for p in check.problems], "backup": str(backup or "")}
        if args.json:
            print_json(report)
            return 0
        what = "all settings to their defaults" if args.reset else _fixed(check)
        say(f"Rewrote {check.path}: {what}.")
        if backup:
            say(f"The old file is kept at {backup}.")
        return 0
    check = check_settings()
    if args.json:
        print_json(_report(check))
    else:
        _show(check)
    return 0 if check.unreadable is None and not check.problems else 2


def _fixed(check: SettingsCheck) -> str:
    if check.unreadable:
        return "it could not be read, so all settings are the defaults now"
    if not check.problems:
        return "nothing was wrong; the file is rewritten unchanged" + (
            f" (without the unknown keys {', '.join(check.unknown)})" if check.unknown else "")
    return "the default for " + ", ".join(sorted({p.key.split("[")[0] for p in check.problems}))


def _report(check: SettingsCheck) -> dict[str, Any]:
    return {
        "path": str(check.path),
        "exists": check.exists,
        "settings": {k: _redacted(v) for k, v in asdict(check.settings).items()},
        "problems": [str(p) for p in check.problems],
        "bad_keys": sorted({p.key.split("[")[0] for p in check.problems}),
        "unknown_keys": list(check.unknown),
        "unreadable": check.unreadable,
    }


def _redacted(value: Any) -> Any:
    from core.databases import redact_url

    return redact_url(value) if isinstance(value, str) and "://" in value else value


def _show(check: SettingsCheck) -> None:
    say(f"{check.path}" + ("" if check.exists else " (not created yet: the defaults apply)"))
    if check.unreadable:
        say(f"Error: {check.unreadable}\nHint: run `cairn settings --reset` (keeps a .bak copy) or fix the file.")
        return
    for key, value in asdict(check.settings).items():
        say(f"  {key} = {_redacted(value)!r}")
    if check.unknown:
        say(f"Unknown keys (ignored): {', '.join(check.unknown)}")
    for problem in check.problems:
        say(f"Problem: {problem}")
    if check.problems:
        say("Hint: run `cairn settings --fix` to write the defaults for these keys (keeps a .bak copy).")
