"""``cairn sample-files [FOLDER]``: the sample shop as a spreadsheet and a CSV, to try asking your own files."""

from __future__ import annotations

import argparse
from pathlib import Path

from core.cli._exit_codes import EXIT_OK
from core.cli._output import say
from core.config import Settings

__all__ = ["add_sample_files_parser"]


def add_sample_files_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    cmd = sub.add_parser("sample-files", help="write the sample shop as customers.xlsx and orders.csv, to ask them")
    cmd.add_argument("folder", nargs="?", type=Path, default=Path("cairn-sample"),
                     help="where to write them (default: ./cairn-sample)")
    cmd.set_defaults(func=_cmd_sample_files)


def _cmd_sample_files(args: argparse.Namespace, settings: Settings) -> int:
    from core.databases import write_sample_files

    written = write_sample_files(args.folder.expanduser())
    for path in written:
        say(f"wrote {path}")
    say(f'Ask them: cairn ask "Revenue per customer city" --db {args.folder}')
    return EXIT_OK
