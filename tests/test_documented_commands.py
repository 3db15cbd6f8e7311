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


# -- and the ones that need nothing outside this machine run, in the documents' order -------------------------

_NEEDS_MORE = re.compile(r"\.\.\.|…|\bID\b|\||~/data|~/exports|://|--batch|^eval|--sql|\bimport\b|questions\.|"
                         r"^selftest|shop\.db|--model|^hidden")  # a placeholder, a file or server of yours, a list
# What the documents' own example questions mean on the sample database (the fake model's answers).
_SQL = {
    "which 5 cities have the most wholesale": "SELECT city, COUNT(*) AS n FROM customers WHERE segment = 'wholesale' "
                                              "GROUP BY city ORDER BY n DESC LIMIT 5",
    "revenue per customer city": "SELECT c.city, SUM(o.total_amount) AS revenue FROM orders o JOIN customers c "
                                 "ON c.customer_id = o.customer_id GROUP BY c.city",
    "orders last month": "SELECT COUNT(*) AS n FROM orders",
    "all customers in germany": "SELECT * FROM customers WHERE country = 'Germany'",
    "high order value": "SELECT DISTINCT c.name FROM customers c JOIN orders o ON o.customer_id = c.customer_id "
                        "WHERE o.total_amount > 10000",
    "how many of those were wholesale": "SELECT COUNT(DISTINCT c.customer_id) FROM customers c JOIN orders o "
                                        "ON o.customer_id = c.customer_id WHERE o.total_amount > 10000 "
                                        "AND c.segment = 'wholesale'",
    "how many customers": "SELECT COUNT(*) AS n FROM customers",
}
_FACTS = {
    "always show me customers from india": "[PREFERENCE] Only show customers from India",
    "high value order means": "[METRIC] High value order means total amount over 10000",
    "only show customers from germany": "[PREFERENCE] Only show customers from Germany",
}


# A status that reports a finding, as grep's does: `insights invalidate` exits 1 when nothing matched (and says so).
_EXIT_OK = {"insights invalidate": {0, 1}}


def runnable() -> list[tuple[str, str]]:
    """(document, command line) of each documented command that needs no file, server or id of the reader's."""
    out = []
    for name, args in CASES:
        words = _variants(args)[0] if args else []
        line = " ".join(w if w.startswith("~/") else shlex.quote(w) for w in words)
        if words and not _NEEDS_MORE.search(re.sub(r"\[[^\]]*\]", "", args)):  # the bare form, options aside
            out.append((name, line))
    return out


@pytest.mark.slow
def test_the_documented_commands_run(tmp_path: Path, fake_ollama) -> None:  # noqa: ANN001 - the fixture's fake
    """Run one after another as a reader would, in a fresh home and data directory, with a local model that
    answers the documents' example questions: every one exits 0 (a command the documents show but that fails —
    `--db sample` once did — fails here)."""
    import os
    import subprocess
    import sys

    from tests.fakes.analyst_model import analyst_model

    fake_ollama.default_chat = analyst_model(_SQL, _FACTS)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "CAIRN_DATA_DIR": str(tmp_path / "data"), "OLLAMA_HOST": fake_ollama.url,
           "PYTHONPATH": str(REPO), "CAIRN_SUGGESTIONS_WAIT_S": "0"}
    commands = runnable()
    assert len(commands) >= 20
    failed = []
    for document, line in commands:
        done = subprocess.run(["bash", "-c", f"{shlex.quote(sys.executable)} -m core.cli {line}"], env=env,
                              cwd=home, capture_output=True, text=True, timeout=300)
        if done.returncode not in _EXIT_OK.get(" ".join(shlex.split(line)[:2]), {0}):
            failed.append(f"{document}: cairn {line} -> exit {done.returncode}: {done.stderr.strip()[-300:]}")
    assert not failed, "\n".join(failed)
