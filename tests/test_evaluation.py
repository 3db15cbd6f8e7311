"""``cairn eval``: the comparison rules, set loading, a run against the real ``ollama`` client on a fake Ollama
server (Cairn beside the bare model), resume after a stop, and the runs kept for the dashboard."""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from core.cli import main
from core.errors import InputError
from core.evaluation import (
    Runner,
    compare_results,
    gold_variants,
    list_runs,
    load_set,
    read_results,
    summarize,
)

# -- comparison rules ---------------------------------------------------------------------------------------


def test_order_matters_only_when_the_gold_orders() -> None:
    gold, got = [(1, "a"), (2, "b")], [(2, "b"), (1, "a")]
    assert compare_results(gold, got, ordered=False).same
    assert not compare_results(gold, got, ordered=True).same
    assert compare_results(gold, gold, ordered=True).same


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


def test_defog_alternatives_expand() -> None:
    cell = "SELECT {id, name} FROM t GROUP BY {}; SELECT 1"
    assert gold_variants(cell) == ["SELECT id FROM t GROUP BY id", "SELECT name FROM t GROUP BY name", "SELECT 1"]


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


def test_cli_eval_bad_set_exits_2(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "none.csv"
    assert main(["eval", "--set", str(missing)]) == 2
    assert "No set file" in capsys.readouterr().err


def test_cli_eval_says_at_once_when_the_model_is_missing(tmp_path: Path, shop: Path, fake_ollama, capsys) -> None:
    assert main(["eval", "--set", str(_write_set(tmp_path, shop)), "--model", "absent:1b",
                 "--report", str(tmp_path / "r")]) == 1
    assert "ollama pull absent:1b" in capsys.readouterr().err
    assert not (tmp_path / "r").exists() and fake_ollama.chat_requests() == []
