"""Property tests: whatever arrives in a batch file, settings.json, the command line or a JSON memory file,
Cairn answers with a documented exit code and a message, never a traceback, and loses nothing it had saved.

The CLI runs in-process (``core.cli.main``) on a copy of the Chinook SQLite file; Ollama is absent (the autouse
fixture points OLLAMA_HOST at a port nothing listens on), so no example needs a model or the embedded server.
No generated database URL names a host that would need DNS or the network.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli import main
from core.config import ROW_CAP_MAX, Settings, config_dir
from core.errors import ConfigError, CorruptMemoryFile
from tests.conftest import shared_data_path

DOCUMENTED = {0, 1, 2, 3, 4, 130}
# CAIRN_FUZZ_EXAMPLES scales a run up locally; no example database is written into the checkout.
EXAMPLES = int(os.environ.get("CAIRN_FUZZ_EXAMPLES", "120"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@pytest.fixture(scope="module")
def chinook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("fuzz") / "chinook.sqlite"
    shutil.copy(shared_data_path("chinook", "Chinook_Sqlite.sqlite"), target)
    return target


def cli(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code in DOCUMENTED, (code, argv, err)
    assert "Traceback" not in err and "Traceback" not in out, (argv, err)
    return code, out, err


# -- building blocks ----------------------------------------------------------------------------------------------

NASTY_TEXT = st.text(st.one_of(st.characters(exclude_categories=()), st.sampled_from(
    ["\x1b", "\x00", "\ud800", "\udc80", "\u202e", "\r", "\n", "\t", "\x07", "\x9b", "\ufeff"])), max_size=30)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=-(10**30), max_value=10**30),
                    st.floats(allow_nan=True, allow_infinity=True), NASTY_TEXT)
JSON_VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(NASTY_TEXT, inner, max_size=3), max_leaves=6)
# Malformed or unreachable-without-DNS targets only: nothing here may leave the machine.
BAD_URLS = st.sampled_from([
    "postgresql://u:pw@[::1", "postgresql://u:pw@[zz]/db", "postgresql://u:pw@127.0.0.1:99999/db",
    "postgresql://u:pw@127.0.0.1:0/db", "postgresql://u:p%ZZw@127.0.0.1/db", "postgresql://u:pw@127.0.0.1:x/db",
    "postgresql://u@127.0.0.1:9/db?password=pw&port=-1", "sqlite:///", "sqlite:", "mysql://u@127.0.0.1/x",
    "postgresql://u:pw@127.0.0.1:9/db", "/nonexistent/file.sqlite", ".", "", " ",
])  # fmt: skip


def _offline(text: str) -> str:
    """Random text as a --db value that can never be a reachable URL."""
    return text.replace("://", ":/")


QUESTIONS = st.one_of(st.sampled_from(["How many artists are there?", "List all genre names", "hello!", "",
                                       "   ", "ok thanks", "How many albums per artist?"]), NASTY_TEXT)


# -- batch lines --------------------------------------------------------------------------------------------------


def _line_object(chinook: str) -> st.SearchStrategy[bytes]:
    db = st.one_of(st.just(chinook), BAD_URLS, NASTY_TEXT.map(_offline), JSON_VALUES.filter(
        lambda v: not isinstance(v, str)))
    obj = st.fixed_dictionaries({}, optional={"id": JSON_VALUES, "question": st.one_of(QUESTIONS, JSON_VALUES),
                                              "db": db, "extra": JSON_VALUES})
    return obj.map(lambda o: json.dumps(o, ensure_ascii=True).encode("ascii"))


RAW_LINES = st.one_of(
    st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
    st.integers(min_value=1, max_value=200_000).map(lambda n: b"[" * n),
    st.integers(min_value=1, max_value=50_000).map(lambda n: b'{"q":' * n),
    st.sampled_from([b'{"question": "\\ud800"}', b'{"question": "\\udc80x", "id": 1}', b"\xef\xbb\xbf{}",
                     b'{"question": "caf\xe9"}', b"null", b"[]", b'"text"', b"NaN", b'{"id": NaN, "question": "x"}']),
)


@FUZZ
@given(data=st.data())
def test_batch_lines_never_stop_the_batch(chinook: Path, tmp_path: Path, capsys, data: st.DataObject) -> None:
    lines = data.draw(st.lists(st.one_of(_line_object(str(chinook)), RAW_LINES), min_size=1, max_size=5))
    batch, out = tmp_path / "batch.jsonl", tmp_path / "answers.jsonl"
    batch.write_bytes(b"\n".join(lines))
    out.unlink(missing_ok=True)
    code, _, _ = cli(capsys, ["ask", "--batch", str(batch), "--db", str(chinook), "--out", str(out)])
    assert code in (0, 1, 2)
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    expected = [n for n, line in enumerate(lines, 1) if line.strip()]
    assert [r["line"] for r in records] == expected
    for record in records:
        assert record["error"] is None or record["hint"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".answers.jsonl")]


# -- settings files ----------------------------------------------------------------------------------------------

KEYS = [*Settings.__dataclass_fields__, "unknown_key"]


def _valid(s: Settings) -> None:
    """What every loaded Settings satisfies, whatever the file said."""
    assert 1 <= s.row_cap <= ROW_CAP_MAX and isinstance(s.row_cap, int) and not isinstance(s.row_cap, bool)
    for t in (s.statement_timeout_s, s.llm_timeout_s):
        assert isinstance(t, float) and math.isfinite(t) and t >= 0.01
    assert isinstance(s.num_ctx, int) and isinstance(s.repair_rounds, int) and 0 <= s.repair_rounds <= 10
    assert s.memory_store in ("pgvector", "json") and s.theme in ("system", "light", "dark")
    assert isinstance(s.model, str) and s.model and isinstance(s.ollama_host, str)
    assert all(isinstance(u, str) for u in s.users)
    assert all(isinstance(k, str) and all(isinstance(n, str) for n in v) for k, v in s.hidden.items())


SETTINGS_FILES = st.one_of(
    st.dictionaries(st.sampled_from(KEYS), JSON_VALUES, max_size=6).map(
        lambda d: json.dumps(d, ensure_ascii=True).encode("ascii")),
    JSON_VALUES.map(lambda v: json.dumps(v, ensure_ascii=True).encode("ascii")),
    st.binary(max_size=60),
)


@FUZZ
@given(content=SETTINGS_FILES)
def test_any_settings_file_loads_safely_or_says_why(chinook: Path, capsys, content: bytes) -> None:
    path = config_dir() / "settings.json"
    path.write_bytes(content)
    try:
        loaded = Settings.load()
    except ConfigError as exc:
        assert exc.hint and "settings" in str(exc)
        loaded = None
    if loaded is not None:
        _valid(loaded)
    code, out, _ = cli(capsys, ["ask", "How many artists are there?", "--db", str(chinook), "--json"])
    assert isinstance(json.loads(out), dict) and code in ((2,) if loaded is None else (0, 4))
    code, _, _ = cli(capsys, ["settings"])
    assert code in (0, 2)
    code, _, _ = cli(capsys, ["settings", "--fix"])
    assert code == 0
    _valid(Settings.load())
    assert Path(str(path) + ".bak").read_bytes() == content or any(
        p.read_bytes() == content for p in path.parent.glob("settings.json.bak*"))  # the old file is kept


# -- command lines -----------------------------------------------------------------------------------------------

BAD_USERS = st.one_of(st.sampled_from(["", "   ", "x" * 300]), st.tuples(NASTY_TEXT, st.sampled_from(
    ["\x00", "\x1b", "\u202e", "\x07"])).map("".join))


def _argv(chinook: str, tmp: Path) -> st.SearchStrategy[list[str]]:
    db = st.one_of(st.just(chinook), BAD_URLS, NASTY_TEXT.map(_offline))
    path = st.one_of(st.sampled_from([str(tmp), str(tmp / "rows.csv"), str(tmp / "sub" / "x.csv"), "/proc/x.csv",
                                      str(tmp / "rows.csv" / "under-a-file.csv")]),
                     NASTY_TEXT.map(lambda t: str(tmp / t.replace("/", "_").replace("\x00", ""))[:200]))
    number = st.one_of(st.integers(min_value=-5, max_value=10**7).map(str), NASTY_TEXT)
    options = st.lists(st.one_of(
        st.tuples(st.just("--model"), NASTY_TEXT), st.tuples(st.just("--max-rows"), number),
        st.tuples(st.just("--csv"), path), st.tuples(st.just("--json")), st.tuples(st.just("--dry-run")),
        st.tuples(st.just("--user"), BAD_USERS), st.tuples(st.just("--without"), NASTY_TEXT),
    ), max_size=4)
    ask = st.tuples(st.just(["ask"]), QUESTIONS.map(lambda q: [q]), db.map(lambda d: ["--db", d]), options)
    schema = st.tuples(st.just(["schema"]), st.just([]), db.map(lambda d: ["--db", d]),
                       st.lists(st.tuples(st.just("--json")), max_size=1))
    hidden = st.tuples(st.just(["hidden"]), st.lists(NASTY_TEXT, max_size=2).map(lambda n: ["--add", *n] if n else []),
                       db.map(lambda d: ["--db", d]), st.just([]))
    other = st.sampled_from([(["settings"], [], [], []), (["settings", "--json"], [], [], []),
                             (["memory"], [], [], []), (["--bogus"], [], [], []), ([], [], [], [])])
    return st.one_of(ask, schema, hidden, other).map(
        lambda parts: [*parts[0], *parts[1], *parts[2], *[x for opt in parts[3] for x in opt]])


@settings(parent=FUZZ, max_examples=EXAMPLES * 5 // 3)
@given(data=st.data())
def test_any_command_line_gets_a_documented_exit_code(chinook: Path, tmp_path: Path, capsys,
                                                     data: st.DataObject) -> None:
    (tmp_path / "rows.csv").write_text("old\n")
    argv = data.draw(_argv(str(chinook), tmp_path))
    code, out, err = cli(capsys, argv)
    if "--json" in argv and argv[:1] in (["ask"], ["schema"]) and "-h" not in argv and "--help" not in argv:
        assert isinstance(json.loads(out), dict), (argv, out)  # one JSON object, error or not
    if code != 0 and "--json" not in argv:
        assert err.strip(), argv  # a message says why
    if "--csv" in argv and code != 0:
        assert (tmp_path / "rows.csv").read_text() == "old\n" or "rows.csv" in argv[argv.index("--csv") + 1]
    assert not [p for p in tmp_path.rglob(".*.tmp")], argv  # no half-written file


# -- classifier and JSON memory files -------------------------------------------------------------------------------

WORDS = st.sampled_from(["hello", "hi", "ok", "thanks", "please", "now", "on", "and", "remember", "that", "only",
                         "show", "always", "never", "is", "means", "i", "my", "forget", "those", "top", "5", ",",
                         "?", "!", ":", "=", "customers", "from", "india", "care", "about", "no", "longer"])


@settings(parent=FUZZ, max_examples=EXAMPLES * 5 // 3)
@given(words=st.lists(st.one_of(WORDS, NASTY_TEXT), max_size=10), history=st.booleans())
def test_the_classifier_routes_any_message(words: list[str], history: bool) -> None:
    from core.memory import KINDS, classify

    route = classify(" ".join(words), has_history=history)
    assert route.kind in KINDS


def _mutations() -> st.SearchStrategy[tuple[str, str, Any]]:
    fields = ["id", "user", "category", "content", "database_id", "structured", "source", "created_at",
              "updated_at", "embedding", "role", "sql"]
    return st.tuples(st.sampled_from(["memory", "message", "drop"]), st.sampled_from(fields), JSON_VALUES)


@FUZZ
@given(mutations=st.lists(_mutations(), min_size=1, max_size=4))
def test_a_damaged_memory_entry_never_costs_the_others(tmp_path_factory: pytest.TempPathFactory,
                                                       mutations: list[tuple[str, str, Any]]) -> None:
    from core.memory import JsonMemoryStore, Message
    from tests.memory_store_contract import memory, query

    root = tmp_path_factory.mktemp("mem")
    store = JsonMemoryStore(root)
    keep = memory("ann", "Only customers from India")
    store.put_many([keep, memory("ann", "Victim entry", category="entity")])
    store.append_message("ann", Message("user", "How many?"))
    path = store.path_for("ann")
    body = json.loads(path.read_text())
    for where, field, value in mutations:
        target = body["memories"][1] if where == "memory" else body["messages"][0]
        if where == "drop":
            target.pop(field, None)
        else:
            target[field] = value
    path.write_text(json.dumps(body, ensure_ascii=True))
    fresh = JsonMemoryStore(root)
    try:
        listed = {m.id for m in fresh.list("ann")}
    except CorruptMemoryFile:
        pytest.fail("one damaged entry made the whole file unreadable")
    assert keep.id in listed
    fresh.search("ann", query("India"), k=5, database_id="db")
    fresh.recent_messages("ann")
    fresh.put(memory("ann", "Only paid invoices"))
    after = json.loads(path.read_text())

    def dumped(items: list[Any]) -> set[str]:
        return {json.dumps(x, sort_keys=True) for x in items}  # NaN != NaN: compare the stored text

    assert dumped(body["memories"][1:2]) <= dumped(after["memories"])
    assert dumped(body["messages"][:1]) <= dumped(after["messages"])
