"""Every `cairn …` command the documents show is one the command line accepts.

The commands are read from README.md, installer/README.md and the tarball's INSTALL.txt (its template), in every
form they are written: `cairn ask …`, `./cairn-<version>-…/cairn …`, `~/.local/opt/…/cairn …`. Each is parsed by
the real argument parser (nothing runs): a subcommand, option or choice the documents name but the parser does
not know fails here. `a|b|c` stands for each of a, b and c; `[--x Y]` is tried with and without; `...` and `…` are
a placeholder value. The packaged app itself runs the self-contained ones (scripts/package_check.sh).
"""

from __future__ import annotations

import itertools
import re
import shlex
from pathlib import Path

import pytest

from core.cli._commands import _parser

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = ("README.md", "installer/README.md", "installer/linux/INSTALL.txt.in")
_CAIRN = re.compile(r"(?:^|\s|&&\s*)(?:\S*/)?cairn(?=\s|$)(.*)$")


def _code_lines(path: Path) -> list[str]:
    """Lines of fenced code blocks (Markdown) or indented lines (the plain-text INSTALL.txt)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        return [line for block in re.findall(r"```[^\n]*\n(.*?)```", text, re.S) for line in block.splitlines()]
    return [line for line in text.splitlines() if line.startswith("    ")]


def _without_comment(line: str) -> str:
    """The command before a `#` comment that is not inside quotes."""
    out, quote = [], None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            break
        out.append(ch)
    return "".join(out).strip()


def documented() -> list[tuple[str, str]]:
    found = []
    for name in DOCUMENTS:
        for line in _code_lines(REPO / name):
            command = _without_comment(line)
            match = _CAIRN.search(command)
            if match and not command.startswith(("sudo", "python", ".venv", "bash", "iscc", "ln ")):
                found.append((name, match.group(1).strip()))
    return found


def _variants(args: str) -> list[list[str]]:
    """Each reading of one documented argument string: `[…]` with and without, `a|b` each, `...` a value."""
    args = args.replace("…", "...").replace("SELECT ...", "SELECT 1")
    optional = re.findall(r"\[([^\[\]]+)\]", args)
    readings = []
    for keep in itertools.product((False, True), repeat=len(optional)):
        text = args
        for part, kept in zip(optional, keep, strict=True):
            text = text.replace(f"[{part}]", part.split("|")[0] if kept else "", 1)
        words = shlex.split(text)
        choices = [w.split("|") if "|" in w and not w.startswith(("-", '"')) else [w] for w in words]
        for pick in itertools.product(*choices):
            readings.append([_PLACEHOLDERS.get(w, w) for w in pick])
    return readings


# Metavariables the documents write for a value: a number where the option takes one.
_PLACEHOLDERS = {"...": "x", "N": "3", "M": "some-model", "ID": "abc123"}


def _parse(argv: list[str]) -> None:
    """What the `cairn` launcher does with argv, up to parsing: nothing is the window, `selftest` its own parser,
    the rest the command line's."""
    from desktop.selftest.runner import _parser as selftest_parser

    if not argv:
        return
    if argv[0] == "selftest":
        selftest_parser().parse_args(argv[1:])
    else:
        _parser().parse_args(argv)


CASES = documented()


def test_the_documents_show_commands() -> None:
    assert len(CASES) >= 40, CASES
    assert {name for name, _ in CASES} == set(DOCUMENTS)


@pytest.mark.parametrize(("document", "args"), CASES, ids=[f"{n}:{a[:40]}" for n, a in CASES])
def test_a_documented_command_is_accepted(document: str, args: str, capsys: pytest.CaptureFixture[str]) -> None:
    summary = "|" in args.split("#")[0].split('"')[0]  # `memory list|search|add …`: a list of subcommands, each
    for argv in _variants(args):  # of which may need arguments the line does not show
        try:
            _parse(argv)
        except SystemExit as exc:
            said = capsys.readouterr().err
            if exc.code == 0 or (summary and "the following arguments are required" in said):
                continue
            pytest.fail(f"{document}: `cairn {' '.join(argv)}` is refused by the parser: {said.strip()[-300:]}")


@pytest.mark.parametrize("args", ["ask x --no-such-option", "selftest --nope", "memory frobnicate", "askk x"])
def test_a_command_the_parser_does_not_know_is_caught(args: str) -> None:
    with pytest.raises(SystemExit):
        for argv in _variants(args):
            _parse(argv)
