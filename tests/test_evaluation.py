"""``cairn eval``: the comparison rules, set loading, a run against the real ``ollama`` client on a fake Ollama
server (Cairn beside the bare model), resume after a stop, and the runs kept for the dashboard."""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
import re
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from core.cli import main
from core.errors import ConfigError, InputError
from core.evaluation import (
    Runner,
    compare_results,
    gold_orders,
    gold_variants,
    list_runs,
    load_set,
    percentile,
    read_results,
    summarize,
)
from core.sql import guard

# -- comparison rules ---------------------------------------------------------------------------------------


def test_order_matters_only_when_the_gold_orders() -> None:
    gold, got = [(1, "a"), (2, "b")], [(2, "b"), (1, "a")]
    assert compare_results(gold, got, ordered=False).same
    assert not compare_results(gold, got, ordered=True).same
    assert compare_results(gold, gold, ordered=True).same


@pytest.mark.parametrize(
    ("gold", "orders"),
    [
        ("SELECT a FROM t ORDER BY a LIMIT 3", True),
        ("SELECT a FROM t UNION SELECT a FROM u ORDER BY a", True),
        ("(SELECT a FROM t ORDER BY a)", True),
        ("WITH x AS (SELECT a FROM t ORDER BY a) SELECT a FROM x", False),  # only the outermost ORDER BY counts
        ("SELECT a FROM (SELECT a FROM t ORDER BY a) AS s", False),
    ],
)
def test_the_outermost_order_by_decides(gold: str, orders: bool) -> None:
    assert gold_orders(guard(gold, "sqlite").expression) is orders


def test_columns_match_by_content_and_extra_columns_are_allowed() -> None:
    gold = [("Asha", 3), ("Ravi", 1)]
    assert compare_results(gold, [(3, "Asha"), (1, "Ravi")], ordered=False).same  # other column order
    assert compare_results(gold, [(7, "Asha", 3), (8, "Ravi", 1)], ordered=False).same  # an id beside
    assert not compare_results(gold, [("Asha",), ("Ravi",)], ordered=False).same  # a gold column missing
    assert not compare_results(gold, [("Asha", 1), ("Ravi", 3)], ordered=False).same  # pairs swapped


def test_numbers_nulls_dates_and_duplicates() -> None:
    assert compare_results([(Decimal("2.50"),)], [(2.5,)], ordered=False).same
    assert compare_results([(10,)], [(10.0,)], ordered=False).same
    assert compare_results([(1 / 3,)], [(Decimal("0.3333333333333333"),)], ordered=False).same  # float noise
    assert not compare_results([(0.3333,)], [(1 / 3,)], ordered=False).same
    assert compare_results([(None, 1)], [(None, 1)], ordered=False).same
    assert not compare_results([(None,)], [(0,)], ordered=False).same
    assert compare_results([(dt.date(2024, 1, 2),)], [("2024-01-02",)], ordered=False).same
    assert not compare_results([(1,), (1,)], [(1,)], ordered=False).same  # duplicates counted
    assert compare_results([], [], ordered=False).same


def test_inexact_numbers_within_a_tolerance_integers_exactly() -> None:
    assert compare_results([(0.1 + 0.2,)], [(0.3,)], ordered=True).same
    assert compare_results([(1234567.0,)], [(Decimal("1234567.4"),)], ordered=True).same  # a real (float4) sum
    assert compare_results([(1e-12,)], [(0,)], ordered=True).same  # near zero: the absolute tolerance
    assert not compare_results([(1.001,)], [(1.0,)], ordered=True).same
    assert not compare_results([(1_000_000,)], [(1_000_001,)], ordered=True).same  # counts are exact
    assert not compare_results([("1",)], [(1,)], ordered=True).same  # text is not a number
    # unordered rows whose numbers differ in the last digits still pair up, with their other columns
    gold = [("a", 1.0000000001), ("b", 2.0), ("c", 1.0)]
    got = [(2.0000000001, "b"), (1.0, "a"), (0.9999999999, "c")]
    assert compare_results(gold, got, ordered=False).same
    assert not compare_results(gold, [(2.0, "b"), (1.0, "a"), (1.5, "c")], ordered=False).same


def test_defog_alternatives_expand() -> None:
    cell = "SELECT {id, name} FROM t GROUP BY {}; SELECT 1"
    assert gold_variants(cell) == ["SELECT id FROM t GROUP BY id", "SELECT name FROM t GROUP BY name", "SELECT 1"]


def test_latency_percentiles_are_nearest_rank() -> None:
    assert percentile([], 95) == 0.0
    assert percentile([2.0, 1.0], 50) == 1.0
    assert percentile([float(i) for i in range(1, 21)], 95) == 19.0
    assert percentile([float(i) for i in range(1, 21)], 50) == 10.0
    assert percentile([float(i) for i in range(1, 11)], 95) == 10.0


# -- sets ---------------------------------------------------------------------------------------------------


@pytest.fixture()
def shop(tmp_path: Path) -> Path:
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE customers(customer_id INTEGER PRIMARY KEY, name TEXT, city TEXT);"
            "CREATE TABLE orders(order_id INTEGER PRIMARY KEY, customer_id INT, amount REAL);"
            "INSERT INTO customers VALUES (1, 'Asha', 'Pune'), (2, 'Ravi', 'Delhi'), (3, 'Jo', 'Pune');"
            "INSERT INTO orders VALUES (1, 1, 10), (2, 1, 5), (3, 2, 7.5);"
        )
    return path


def test_defog_csv_loads_with_a_data_folder(tmp_path: Path, shop: Path) -> None:
    set_file = tmp_path / "set.csv"
    set_file.write_text("db_name,query_category,question,query\n"
                        'shop,basic,How many customers?,SELECT COUNT(*) FROM customers\n', encoding="utf-8")
    (item,) = load_set(set_file, data_dir=tmp_path)
    assert item.db == str(shop) and item.category == "basic" and item.gold == ("SELECT COUNT(*) FROM customers",)
    assert load_set(set_file, db_url="postgresql://me@localhost/{db}")[0].db == "postgresql://me@localhost/shop"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"question": "x"}\n', "gold SQL is empty"),
        ('{"question": "x", "gold_sql": "SELECT 1", "db_name": "nowhere"}\n', "'nowhere' not found"),
        ("not json\n", "line 1: not JSON"),
    ],
)
def test_a_bad_set_says_which_line_and_what_to_do(tmp_path: Path, text: str, message: str) -> None:
    set_file = tmp_path / "bad.jsonl"
    set_file.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_set(set_file)
    assert message in err.value.message and err.value.hint


# -- runs against the fake Ollama ---------------------------------------------------------------------------

_ANSWERS = {  # what the "model" writes per question: Cairn repairs the misspelt column, the bare run cannot
    "How many customers are there?": "SELECT COUNT(*) FROM customers",
    "Total amount per customer name?": "SELECT c.name, SUM(o.amount) FROM customers c JOIN orders o "
                                       "ON o.customer_id = c.customer_id GROUP BY c.name",
    "Which cities have customers?": "SELECT DISTINCT citty FROM customers",
}


def _reply(body: dict) -> str:
    user = body["messages"][-1]["content"]
    for question, sql in _ANSWERS.items():
        if question in user:
            return f"```sql\n{sql}\n```"
    return "SELECT 1"


def _write_set(tmp_path: Path, shop: Path) -> Path:
    set_file = tmp_path / "questions.jsonl"
    rows = [
        {"question": "How many customers are there?", "gold_sql": "SELECT COUNT(*) FROM customers", "db": str(shop),
         "category": "count"},
        {"question": "Total amount per customer name?", "db": str(shop), "category": "join",
         "gold_sql": "SELECT name, SUM(amount) FROM customers JOIN orders USING (customer_id) GROUP BY name"},
        {"question": "Which cities have customers?", "db": str(shop), "category": "list",
         "gold_sql": "SELECT DISTINCT city FROM customers"},
    ]
    set_file.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return set_file


def test_cli_eval_reports_cairn_beside_the_bare_model(tmp_path: Path, shop: Path, fake_ollama, capsys) -> None:
    fake_ollama.add_model("qwen2.5-coder:7b")
    fake_ollama.default_chat = _reply
    report = tmp_path / "report"
    code = main(["eval", "--set", str(_write_set(tmp_path, shop)), "--baseline", "bare", "--report", str(report)])
    assert code == 0
    summary = json.loads((report / "report.json").read_text())
    cairn, bare = summary["modes"]["cairn"], summary["modes"]["bare"]
    assert (cairn["correct"], cairn["n"]) == (3, 3)  # the misspelt column repaired; DISTINCT rows unordered
    assert (bare["correct"], bare["n"]) == (2, 3)  # "citty" fails as written
    assert cairn["by_path"]["repaired"]["accuracy"] == 1.0 and bare["by_path"]["bare"]["correct"] == 2
    assert cairn["prompt_tokens_mean"] > 0 and cairn["latency_p95_s"] >= cairn["latency_p50_s"]
    markdown = (report / "report.md").read_text()
    assert "| | Cairn | bare model |" in markdown and "100.0% (3/3)" in markdown and "66.7% (2/3)" in markdown
    assert "category join" in markdown
    if os.name == "posix":  # the answers' SQL and the reports are the user's: 0600
        assert all((report / f).stat().st_mode & 0o077 == 0 for f in ("results.jsonl", "report.json", "report.md"))
    out = capsys.readouterr().out
    assert "execution accuracy" in out
    (run,) = list_runs()
    assert run.accuracy == 1.0 and run.baseline_accuracy == pytest.approx(2 / 3, abs=1e-3)
    assert run.model == "qwen2.5-coder:7b" and run.complete and run.set_name == "questions.jsonl"


def test_a_stopped_run_resumes_where_it_stopped(tmp_path: Path, shop: Path, fake_ollama) -> None:
    fake_ollama.add_model("qwen2.5-coder:7b")
    fake_ollama.default_chat = _reply
    from core.composition import Services
    from core.config import Settings

    items = load_set(_write_set(tmp_path, shop))
    results = tmp_path / "r" / "results.jsonl"
    services = Services(Settings.load().with_env())
    try:
        asked: list[int] = []
        Runner(services.pipeline).run(items, results, progress=lambda done, _total: asked.append(done),
                                      should_stop=lambda: len(asked) >= 1)
        assert [r.index for r in read_results(results)] == [0]
        with results.open("a", encoding="utf-8") as handle:
            handle.write('{"index": 1, "torn')  # a crash mid-line
        before = len(fake_ollama.chat_requests())
        done = Runner(services.pipeline).run(items, results, resume=True)
    finally:
        services.close()
    assert sorted(r.index for r in done) == [0, 1, 2]
    asked_again = [re.search(r"Question: (.*)", r["messages"][-1]["content"]) for r in
                   fake_ollama.chat_requests()[before:]]
    assert len(fake_ollama.chat_requests()) - before == 2  # only the two unanswered questions
    assert all(m is None or "How many customers" not in m.group(1) for m in asked_again)
    assert summarize(read_results(results), total=3)["modes"]["cairn"]["correct"] == 3
    # resumed with a smaller --limit, or without the baseline: only that run's questions and modes count
    assert [r.index for r in Runner(lambda _db: None).kept(items[:2], results)] == [0, 1]
    assert Runner(lambda _db: None, baseline=True).kept(items, results) == done


def test_cli_eval_bad_set_exits_2(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "none.csv"
    assert main(["eval", "--set", str(missing)]) == 2
    assert "No set file" in capsys.readouterr().err


def test_cli_eval_says_at_once_when_the_model_is_missing(tmp_path: Path, shop: Path, fake_ollama, capsys) -> None:
    assert main(["eval", "--set", str(_write_set(tmp_path, shop)), "--model", "absent:1b",
                 "--report", str(tmp_path / "r")]) == 1
    assert "ollama pull absent:1b" in capsys.readouterr().err
    assert not (tmp_path / "r").exists() and fake_ollama.chat_requests() == []


def test_ctrl_c_keeps_what_was_answered_and_resume_finishes(tmp_path: Path, shop: Path, fake_ollama, capsys,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from core.cli import _eval_command

    fake_ollama.add_model("qwen2.5-coder:7b")
    fake_ollama.default_chat = _reply
    set_file, report = _write_set(tmp_path, shop), tmp_path / "report"

    stop = [True]
    draw = _eval_command._Progress.__call__

    def interrupted(self: _eval_command._Progress, done: int, total: int) -> None:
        if stop[0] and done >= 1:
            raise KeyboardInterrupt  # Ctrl+C right after the first question
        draw(self, done, total)

    monkeypatch.setattr(_eval_command._Progress, "__call__", interrupted)
    assert main(["eval", "--set", str(set_file), "--baseline", "bare", "--report", str(report)]) == 130
    assert "--resume" in capsys.readouterr().err
    assert sorted((r.index, r.mode) for r in read_results(report / "results.jsonl")) == [(0, "bare"), (0, "cairn")]
    partial = json.loads((report / "report.json").read_text())
    assert partial["modes"]["cairn"]["answered"] == 1 and partial["questions"] == 3
    assert main(["eval", "--set", str(set_file), "--report", str(report)]) == 2  # not over an earlier run
    assert "--resume" in capsys.readouterr().err

    stop[0] = False
    before = len(fake_ollama.chat_requests())
    assert main(["eval", "--set", str(set_file), "--baseline", "bare", "--report", str(report), "--resume"]) == 0
    assert len(fake_ollama.chat_requests()) - before == 4  # two questions left, Cairn and bare each
    summary = json.loads((report / "report.json").read_text())
    assert summary["modes"]["cairn"]["correct"] == 3 and summary["modes"]["bare"]["answered"] == 3
    assert [r.complete for r in list_runs()] == [True]  # the stopped run is recorded once, when finished
    # resuming the finished run answers nothing and records nothing twice
    before = len(fake_ollama.chat_requests())
    assert main(["eval", "--set", str(set_file), "--baseline", "bare", "--report", str(report), "--resume"]) == 0
    assert len(fake_ollama.chat_requests()) == before and len(list_runs()) == 1


def test_the_defog_csvs_load_as_they_are(tmp_path: Path) -> None:
    from tests.conftest import shared_data_path

    questions = shared_data_path("defog", "questions", "instruct_basic_sqlite.csv")
    with questions.open(newline="", encoding="utf-8") as handle:
        names = {row["db_name"] for row in csv.DictReader(handle)}
    for name in names:  # the data folder: one <db_name>.sqlite per database
        (tmp_path / f"{name}.sqlite").touch()
    items = load_set(questions, data_dir=tmp_path)
    assert len(items) > 10 and {Path(i.db).stem for i in items} == names
    assert all(i.question and i.gold and i.category for i in items)
    assert all("{" not in sql for i in items for sql in i.gold)  # alternatives expanded
    assert load_set(questions, data_dir=tmp_path, limit=5)[-1].index == 4


def test_the_bare_model_gets_no_dialect_rewrite(tmp_path: Path, shop: Path) -> None:
    from core.config import Settings
    from core.databases import open_database
    from core.evaluation import EvalItem
    from core.pipeline import AskPipeline
    from tests.fakes.scripted_llm import ScriptedLLM

    top = "SELECT TOP 1 name FROM customers ORDER BY name"  # T-SQL: Cairn's guard makes it a LIMIT
    llm = ScriptedLLM(top, top)
    database = open_database(str(shop))
    try:
        pipeline = AskPipeline(database, llm, Settings())
        item = EvalItem(0, "1", "First customer by name?", ("SELECT name FROM customers ORDER BY name LIMIT 1",),
                        str(shop))
        cairn, bare = Runner(lambda _db: pipeline, baseline=True).run([item], tmp_path / "results.jsonl")
    finally:
        database.close()
    assert (cairn.mode, cairn.correct) == ("cairn", True)
    assert (bare.mode, bare.correct, bare.path) == ("bare", False, None) and "as written" in bare.reason
    assert "Question: First customer by name?" in llm.history[-1].user and "Database schema" in llm.history[-1].user


# -- what a QA pass found ---------------------------------------------------------------------------------------


def test_ties_under_the_gold_order_may_come_in_any_order() -> None:
    from core.evaluation import order_keys
    from core.sql import guard

    gold_sql = "SELECT Country, COUNT(*) AS n FROM Customer GROUP BY Country ORDER BY n DESC"
    keys = order_keys(guard(gold_sql, "sqlite").expression)
    assert keys == (1,)
    gold = [("USA", 13), ("Canada", 8), ("Brazil", 5), ("France", 5), ("Chile", 1)]
    tie_broken = [("USA", 13), ("Canada", 8), ("France", 5), ("Brazil", 5), ("Chile", 1)]
    assert compare_results(gold, tie_broken, ordered=True, keys=keys).same
    wrong = [("Canada", 8), ("USA", 13), ("Brazil", 5), ("France", 5), ("Chile", 1)]
    assert not compare_results(gold, wrong, ordered=True, keys=keys).same
    assert not compare_results(gold, tie_broken, ordered=True).same  # sort keys unknown: the whole order counts
    assert order_keys(guard("SELECT name FROM t ORDER BY LENGTH(name)", "sqlite").expression) is None


def test_wide_results_with_columns_in_another_order() -> None:
    gold = [(year, *[(year * m) % 7 for m in range(1, 13)]) for year in range(2009, 2014)]
    got = [(row[0], *reversed(row[1:])) for row in gold]
    assert compare_results(gold, got, ordered=False).same
    flags = [tuple((r >> c) & 1 for c in range(12)) for r in range(40)]
    assert compare_results(flags, [tuple(reversed(r)) for r in flags], ordered=False).same
    assert not compare_results(flags, [tuple(reversed(r[:-1])) + (1 - r[-1],) for r in flags], ordered=False).same


def test_float_noise_finds_its_row_and_whole_numbers_are_exact() -> None:
    gold = [(1329.5500000000002, "West"), (1329.58, "East")]
    assert compare_results(gold, [(1329.55, "West"), (1329.58, "East")], ordered=False).same
    assert compare_results([(1234.55, "a"), (1234.54, "b")], [(1234.5500000000002, "a"), (1234.54, "b")],
                           ordered=False).same
    assert not compare_results([(4_501_500,)], [(4_501_504.0,)], ordered=False).same
    assert not compare_results([(Decimal("1000000000.00"),)], [(1_000_000_999.0,)], ordered=False).same


def test_braces_inside_strings_are_text_not_alternatives() -> None:
    assert gold_variants("SELECT '{' || Name || '}' FROM t") == ["SELECT '{' || Name || '}' FROM t"]
    assert gold_variants("SELECT id FROM t WHERE id = ANY('{1,2,3}')") == [
        "SELECT id FROM t WHERE id = ANY('{1,2,3}')"]


def test_a_result_over_the_row_cap_is_compared_whole(tmp_path: Path, fake_ollama) -> None:
    """The window's 1,000-row cap must not make a truncated answer match a truncated gold."""
    db = tmp_path / "big.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE nums(v INTEGER)")
        conn.executemany("INSERT INTO nums VALUES (?)", [(i,) for i in range(3000)])
    fake_ollama.add_model("qwen2.5-coder:7b")
    set_file = tmp_path / "big.jsonl"
    set_file.write_text(json.dumps({"question": "All the numbers?", "gold_sql": "SELECT v FROM nums",
                                    "db": str(db)}) + "\n", encoding="utf-8")
    from core.composition import Services
    from core.config import Settings

    services = Services(Settings.load().with_env())
    try:
        fake_ollama.default_chat = "SELECT v FROM nums LIMIT 1000"
        (cut,) = Runner(services.pipeline).run(load_set(set_file), tmp_path / "a" / "results.jsonl")
        fake_ollama.default_chat = "SELECT v FROM nums ORDER BY v DESC"
        (whole,) = Runner(services.pipeline).run(load_set(set_file), tmp_path / "b" / "results.jsonl")
    finally:
        services.close()
    assert cut.correct is False and whole.correct is True


# -- run handling, from a QA pass ---------------------------------------------------------------------------


def _eval(tmp_path: Path, set_file: Path, *extra: str, report: str = "report") -> int:
    return main(["eval", "--set", str(set_file), "--report", str(tmp_path / report), *extra])


def test_a_database_that_fails_stops_the_run_at_once_with_exit_3(tmp_path: Path, shop: Path, fake_ollama,
                                                                 capsys) -> None:
    fake_ollama.add_model("qwen2.5-coder:7b")
    fake_ollama.default_chat = _reply
    not_sqlite = tmp_path / "notes.sqlite"
    not_sqlite.write_text("not a database", encoding="utf-8")
    rows = [{"question": "How many customers are there?", "gold_sql": "SELECT COUNT(*) FROM customers",
             "db": str(shop)},
            {"question": "How many customers are there?", "gold_sql": "SELECT 1", "db": str(not_sqlite)}]
    set_file = tmp_path / "mixed.jsonl"
    set_file.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert _eval(tmp_path, set_file) == 3
    err = capsys.readouterr().err
    assert str(not_sqlite) in err and "not a SQLite database" in err
    assert fake_ollama.chat_requests() == [] and list_runs() == []
    assert not (tmp_path / "report").exists()  # nothing started, nothing left behind

    url = "postgresql://me:s3cret@127.0.0.1:1/nowhere"  # nothing listens on port 1
    (set_file := tmp_path / "pg.jsonl").write_text(json.dumps({"question": "x?", "gold_sql": "SELECT 1", "db": url})
                                                  + "\n", encoding="utf-8")
    assert _eval(tmp_path, set_file) == 3
    err = capsys.readouterr().err
    assert "postgresql://me:***@127.0.0.1:1/nowhere" in err and "s3cret" not in err


def test_resume_refuses_a_run_made_with_other_options(tmp_path: Path, shop: Path, fake_ollama, capsys) -> None:
    fake_ollama.add_model("qwen2.5-coder:7b")
    fake_ollama.add_model("llama3.2:3b")
    fake_ollama.default_chat = _reply
    set_file = _write_set(tmp_path, shop)
    assert _eval(tmp_path, set_file, "--resume") == 2  # nothing to resume: said, not started afresh
    assert "no earlier run" in capsys.readouterr().err and not (tmp_path / "report").exists()

    assert _eval(tmp_path, set_file, "--limit", "2") == 0
    written = json.loads((tmp_path / "report" / "run.json").read_text())
    assert written["model"] == "qwen2.5-coder:7b" and written["limit"] == 2 and written["baseline"] is False
    assert written["set_name"] == "questions.jsonl" and len(written["set_sha256"]) == 64
    capsys.readouterr()
    for extra, says in [(("--limit", "3"), "--limit: 2 then, 3 now"), (("--limit", "2", "--model", "llama3.2:3b"),
                        "--model"), (("--limit", "2", "--baseline", "bare"), "--baseline: none then, bare now")]:
        before = len(fake_ollama.chat_requests())
        assert _eval(tmp_path, set_file, "--resume", *extra) == 2
        assert says in capsys.readouterr().err and len(fake_ollama.chat_requests()) == before
    set_file.write_text(set_file.read_text() + "\n", encoding="utf-8")  # the set changed under the run
    assert _eval(tmp_path, set_file, "--resume", "--limit", "2") == 2
    assert "sha256" in capsys.readouterr().err
    assert len(list_runs()) == 1


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_report_folder_that_cannot_be_written_is_refused_first(tmp_path: Path, shop: Path, fake_ollama,
                                                                 capsys) -> None:
    set_file = _write_set(tmp_path, shop)
    (tmp_path / "taken").write_text("a file", encoding="utf-8")
    # refused before the model check: the model is missing too, yet the exit is 2 and the folder is named
    assert _eval(tmp_path, set_file, "--model", "absent:1b", report="taken") == 2
    err = capsys.readouterr().err
    assert "taken is a file" in err and "--report" in err and "ollama pull" not in err
    assert _eval(tmp_path, set_file, "--model", "absent:1b", report="taken/inside") == 2
    assert "Cannot write to the report folder" in capsys.readouterr().err
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        assert _eval(tmp_path, set_file, "--model", "absent:1b", report="locked") == 2
        assert "Permission denied" in capsys.readouterr().err


def test_long_csv_fields_load_and_a_broken_csv_names_its_line(tmp_path: Path, shop: Path) -> None:
    literal = "x" * 200_000
    set_file = tmp_path / "long.csv"
    with set_file.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "gold_sql", "db"])
        writer.writerow(["Short?", "SELECT 1", str(shop)])
        writer.writerow(["Long?", f"SELECT '{literal}'", str(shop)])
    assert len(load_set(set_file)[1].gold[0]) == len(literal) + 9
    with set_file.open("a", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerow(["Too long?", "SELECT '" + "y" * (1 << 20) + "'", str(shop)])
    with pytest.raises(InputError) as err:
        load_set(set_file)
    assert "long.csv line 4" in err.value.message and "1 MB" in err.value.hint


def test_a_torn_last_line_does_not_swallow_the_next_run(tmp_path: Path) -> None:
    from core.evaluation import RunSummary, record_run

    path = tmp_path / "eval_runs.jsonl"
    path.write_text('{"finished_at": "2026-01-01T00:00:00+00:00", "mod', encoding="utf-8")  # a crash mid-line
    run = RunSummary("2026-01-02T00:00:00+00:00", "m", "1", "s.csv", 3, 3, 1.0)
    record_run(run, path)
    record_run(run, path)
    assert list_runs(path) == [run, run]


def test_runs_with_fields_of_the_wrong_type_are_skipped(tmp_path: Path) -> None:
    from dataclasses import asdict

    from core.evaluation import RunSummary

    good = RunSummary("2026-01-02T00:00:00+00:00", "m", "1", "s.csv", 3, 3, 0.5, None, {"llm": 0.5, "fallback": None},
                      {"join": 1}, 0.2, 0.4, 120)
    base = asdict(good)
    bad = [{**base, "finished_at": 5}, {**base, "accuracy": "high"}, {**base, "by_path": {"llm": "x"}},
           {**base, "by_category": [1]}, {**base, "complete": "yes"}, {**base, "questions": True},
           {**base, "latency_p50_s": None}, {**base, "model": None}, {k: v for k, v in base.items() if k != "model"}]
    lines = [json.dumps(r) for r in bad] + ['{"accuracy": NaN}', "[1, 2]", "7",
                                             json.dumps({**base, "added_later": {"x": 1}})]
    path = tmp_path / "eval_runs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert list_runs(path) == [good]
    with pytest.raises(ConfigError) as err:  # a folder in its place: an error that says what to do
        list_runs(tmp_path)
    assert "Move" in err.value.hint


def test_a_runs_file_that_cannot_be_written_is_a_warning(tmp_path: Path, shop: Path, fake_ollama, capsys) -> None:
    from core.evaluation import runs_path

    fake_ollama.add_model("qwen2.5-coder:7b")
    fake_ollama.default_chat = _reply
    runs_path().mkdir(parents=True)  # a folder where the runs file goes
    assert _eval(tmp_path, _write_set(tmp_path, shop)) == 0
    captured = capsys.readouterr()
    assert "execution accuracy" in captured.out
    assert "Warning: Cannot record the run" in captured.err
    assert (tmp_path / "report" / "report.json").exists()
    assert json.loads((tmp_path / "report" / "run.json").read_text())["recorded"] is False


def test_text_from_the_set_reaches_the_terminal_escaped(tmp_path: Path, shop: Path, fake_ollama, capsys) -> None:
    fake_ollama.add_model("qwen2.5-coder:7b")
    fake_ollama.default_chat = "SELECT COUNT(*) FROM customers"
    set_file = tmp_path / "odd.jsonl"
    set_file.write_text(json.dumps({"question": "How many\x1b[2J customers?", "gold_sql": "SELECT COUNT(*) FROM "
                                    "customers", "db": str(shop), "category": "a|b\x1b[31m\nc"}) + "\n",
                        encoding="utf-8")
    assert _eval(tmp_path, set_file) == 0
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err
    markdown = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    (row,) = [line for line in markdown.splitlines() if line.startswith("| category")]
    assert row.startswith("| category a\\|b\\x1b[31m c |") and "\x1b" not in markdown


def test_progress_shows_the_start_and_every_question_off_a_terminal(tmp_path: Path, shop: Path, fake_ollama,
                                                                    capsys) -> None:
    from core.cli._eval_command import _Progress

    fake_ollama.add_model("qwen2.5-coder:7b")
    fake_ollama.default_chat = _reply
    assert _eval(tmp_path, _write_set(tmp_path, shop)) == 0
    err = capsys.readouterr().err
    assert [re.search(r"(\d)/3", line).group(1) for line in err.splitlines() if "/3 [" in line] == ["0", "1", "2", "3"]
    progress = _Progress()
    progress.tty = False
    for done in range(101):
        progress(done, 100)
    shown = [int(line.split("/")[0]) for line in capsys.readouterr().err.split()
             if line.endswith("/100")]
    assert shown == list(range(0, 101, 10))


def test_sigterm_mid_run_exits_143_and_keeps_the_answers(tmp_path: Path, shop: Path, fake_ollama, capsys,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from core.cli import _eval_command
    from core.cli._exit_codes import Terminated

    fake_ollama.add_model("qwen2.5-coder:7b")
    fake_ollama.default_chat = _reply

    def terminated(self: _eval_command._Progress, done: int, total: int) -> None:
        if done >= 1:
            raise Terminated()

    monkeypatch.setattr(_eval_command._Progress, "__call__", terminated)
    assert _eval(tmp_path, _write_set(tmp_path, shop)) == 143
    assert "--resume" in capsys.readouterr().err
    assert [r.index for r in read_results(tmp_path / "report" / "results.jsonl")] == [0]
    assert list_runs() == []  # stopped: recorded when a --resume finishes it


def test_the_bare_model_s_fetch_first_is_run_as_written_on_sqlite(tmp_path: Path, shop: Path) -> None:
    """sqlglot prints FETCH FIRST as LIMIT for SQLite; the bare baseline must not be credited with that."""
    from core.config import Settings
    from core.databases import open_database
    from core.evaluation import EvalItem, summarize
    from core.pipeline import AskPipeline
    from tests.fakes.scripted_llm import ScriptedLLM

    fetch = "SELECT name FROM customers ORDER BY name FETCH FIRST 1 ROWS ONLY"
    database = open_database(str(shop))
    try:
        pipeline = AskPipeline(database, ScriptedLLM(fetch, fetch, fetch), Settings())
        item = EvalItem(0, "1", "First customer by name?", ("SELECT name FROM customers ORDER BY name LIMIT 1",),
                        str(shop))
        cairn, bare = Runner(lambda _db: pipeline, baseline=True).run([item], tmp_path / "results.jsonl")
    finally:
        database.close()
    assert cairn.correct and (bare.correct, bare.path) == (False, None)
    summary = summarize([cairn, bare], total=1)
    assert (summary["modes"]["bare"]["shown"], summary["modes"]["bare"]["no_answer"]) == (0, 1)
    assert (summary["modes"]["cairn"]["shown"], summary["modes"]["cairn"]["wrong_shown"]) == (1, 0)


def test_cli_eval_runs_on_the_same_data_exported_as_files(tmp_path: Path, shop: Path, fake_ollama) -> None:
    """The set's database may be a folder of CSV exports (DuckDB): the same questions score the same."""
    import csv
    import sqlite3

    folder = tmp_path / "exports"
    folder.mkdir()
    with sqlite3.connect(shop) as conn:
        for table in ("customers", "orders"):
            cur = conn.execute(f"SELECT * FROM {table}")
            with (folder / f"{table}.csv").open("w", newline="", encoding="utf-8") as out:
                writer = csv.writer(out)
                writer.writerow([d[0] for d in cur.description])
                writer.writerows(cur.fetchall())
    fake_ollama.add_model("qwen2.5-coder:7b")
    fake_ollama.default_chat = _reply
    report = tmp_path / "report"
    assert main(["eval", "--set", str(_write_set(tmp_path, folder)), "--report", str(report)]) == 0
    cairn = json.loads((report / "report.json").read_text())["modes"]["cairn"]
    assert (cairn["correct"], cairn["n"]) == (3, 3)
