"""Data files through DuckDB: each file a table, types and number formats inferred and said, nothing but the opened
files readable, every write refused by DuckDB itself (the guard bypassed), limits and cancellation as elsewhere."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from pathlib import Path

import duckdb
import pytest

from core.cancellation import Cancellation
from core.config import Settings
from core.databases import FilesDatabase, QueryLimits, open_database
from core.errors import CairnError, ConfigError, QueryCancelled, QueryFailed, QueryTimeout
from core.pipeline import AskPipeline
from tests.adversarial_corpus import BYPASS_DUCKDB
from tests.fakes.scripted_llm import ScriptedLLM

logger = logging.getLogger(__name__)


def _write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


@pytest.fixture()
def shop(tmp_path: Path) -> Path:
    folder = tmp_path / "shop"
    folder.mkdir()
    _write(folder / "Orders 2024.csv", "\ufefforder_id,customer,amount,placed\n1,Asha,\"1,200.50\",2024-03-01\n"
                                      "2,Ravi,300,2024-03-05\n3,Asha,\"12,000\",2024-04-02\n")
    _write(folder / "customers.csv", "customer,city\nAsha,Pune\nRavi,Delhi\n")
    return folder


def test_a_folder_opens_one_table_per_file_with_clean_names_and_inferred_types(shop: Path) -> None:
    db = open_database(str(shop))
    try:
        schema = db.schema()
        assert db.dialect == "duckdb" and [t.name for t in schema.tables] == ["customers", "orders_2024"]
        orders = schema.table("orders_2024")
        assert orders is not None and "numbers written like 1,200.50" in (orders.comment or "")
        types = {c.name: c.type for c in orders.columns}
        assert types["amount"] == "DOUBLE" and types["placed"] == "DATE" and types["order_id"] == "BIGINT"
        assert db.execute("SELECT SUM(amount) FROM orders_2024").rows == ((13500.5,),)
        assert schema.table("customers").column("city").value_hints == ("Delhi", "Pune")
    finally:
        db.close()


@pytest.mark.parametrize(("text", "encoding", "column", "expected", "note"), [
    ("id;amount\n1;\"1.200,50\"\n2;300\n", "utf-8", "amount", 1500.5, "1.200,50"),  # European, ; separated
    ("id,amount\n1,\"1,20,000\"\n2,\"5,000.25\"\n", "utf-8", "amount", 125000.25, "1,200.50"),  # Indian lakh
    ("id\tamount\n1\t7\n2\t8\n", "utf-8", "amount", 15, ""),  # tab separated
    ("name,amount\nJosé,1\nZoë,2\n", "latin-1", "amount", 3, "not UTF-8"),  # not UTF-8: read, and said
    ("name,amount\n“Café”,1\n€ area,2\n", "cp1252", "amount", 3, "Windows-1252"),  # Excel's export
])
def test_csv_dialects_and_number_formats(tmp_path: Path, text, encoding, column, expected, note) -> None:
    db = FilesDatabase([_write(tmp_path / "data.csv", text, encoding)], cache_dir=tmp_path / "cache")
    try:
        table = db.schema().table("data")
        assert db.execute(f"SELECT SUM({column}) FROM data").rows[0][0] == pytest.approx(expected)
        assert note in (table.comment or "")
    finally:
        db.close()


def test_duplicate_headers_and_a_missing_header_are_named_and_said(tmp_path: Path) -> None:
    db = FilesDatabase([_write(tmp_path / "dup.csv", "a,a,b\n1,2,x\n3,4,y\n"),
                        _write(tmp_path / "bare.csv", "1,2.5,x\n3,4.5,y\n4,1.5,z\n")])
    try:
        schema = db.schema()
        assert len({c.name for c in schema.table("dup").columns}) == 3
        bare = schema.table("bare")
        assert "no header row" in (bare.comment or "") or [c.name for c in bare.columns][0] != "1"
    finally:
        db.close()


@pytest.mark.parametrize(("name", "content", "says"), [
    ("empty.csv", "", "empty.csv"),
    ("notes.pdf", "%PDF-1.4", "cannot read notes.pdf"),
])
def test_a_file_that_is_not_a_table_gets_a_clear_message(tmp_path: Path, name, content, says) -> None:
    path = _write(tmp_path / name, content)
    with pytest.raises(ConfigError) as err:
        open_database(str(path)).schema()
    assert says.lower() in err.value.message.lower() and err.value.hint


def test_excel_parquet_json_and_a_duckdb_file(tmp_path: Path) -> None:
    from openpyxl import Workbook

    book = Workbook()
    book.active.title = "Sales"
    book.active.append(["region", "amount"])
    for row in (("North", 10), ("South", 20.5)):
        book.active.append(row)
    book.create_sheet("Notes").append(["ignored"])
    book.save(tmp_path / "sales.xlsx")
    maker = duckdb.connect()
    maker.execute(f"COPY (SELECT range AS id, range * 2 AS twice FROM range(5)) TO '{tmp_path / 'nums.parquet'}'")
    maker.close()
    _write(tmp_path / "events.jsonl", '{"kind": "click", "n": 3}\n{"kind": "view", "n": 4}\n')
    db = FilesDatabase([tmp_path / "sales.xlsx", tmp_path / "nums.parquet", tmp_path / "events.jsonl"],
                       cache_dir=tmp_path / "cache")
    try:
        assert db.execute("SELECT SUM(amount) FROM sales").rows == ((30.5,),)
        assert 'first sheet "Sales" of 2' in (db.schema().table("sales").comment or "")
        assert db.execute("SELECT SUM(twice) FROM nums").rows == ((20,),)
        assert db.execute("SELECT SUM(n) FROM events WHERE kind = 'view'").rows == ((4,),)
    finally:
        db.close()
    stored = tmp_path / "store.duckdb"
    writer = duckdb.connect(str(stored))
    writer.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, name VARCHAR); INSERT INTO items VALUES (1, 'pen')")
    writer.close()
    before = hashlib.sha256(stored.read_bytes()).hexdigest()
    db = open_database(str(stored))
    try:
        assert db.schema().table("items").primary_key == ("id",)
        with pytest.raises(QueryFailed):
            db.execute("INSERT INTO items VALUES (2, 'ink')")
    finally:
        db.close()
    assert hashlib.sha256(stored.read_bytes()).hexdigest() == before


def test_a_file_named_like_a_key_word_gets_a_name_a_model_can_write(tmp_path: Path) -> None:
    db = FilesDatabase([_write(tmp_path / "order.csv", "id\n1\n")])
    try:
        assert [t.name for t in db.schema().tables] == ["order_table"]
    finally:
        db.close()


def test_duckdb_refuses_every_write_and_every_other_file_without_the_guard(shop: Path, tmp_path: Path) -> None:
    other = _write(tmp_path / "salaries.csv", "name,salary\nboss,1000000\n")
    db = FilesDatabase([shop])
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in shop.iterdir()}
    failed = []
    try:
        db.schema()
        for template in BYPASS_DUCKDB:
            sql = template.replace("{tmp}", str(tmp_path)).replace("{other}", str(other)).replace("orders", "customers")
            try:
                db.execute(sql)
            except CairnError as exc:
                failed.append(template)
                logger.debug("refused by DuckDB: %s -> %s", sql, exc)
        assert db.execute("SELECT COUNT(*) FROM customers").rows == ((2,),)
    finally:
        db.close()
    assert failed == BYPASS_DUCKDB
    assert {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in shop.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["salaries.csv", "shop"]  # nothing written


def test_limits_timeout_and_cancel(shop: Path) -> None:
    db = FilesDatabase([shop])
    try:
        capped = db.execute("SELECT * FROM range(5000)", limits=QueryLimits(max_rows=10))
        assert len(capped.rows) == 10 and capped.truncated and "row limit" in capped.note
        started = time.perf_counter()
        with pytest.raises(QueryTimeout):
            db.execute("SELECT COUNT(*) FROM range(1000000000000)", limits=QueryLimits(timeout_s=0.3))
        assert time.perf_counter() - started < 5
        cancel = Cancellation()
        threading.Timer(0.3, cancel.cancel).start()
        with pytest.raises(QueryCancelled):
            db.execute("SELECT COUNT(*) FROM range(1000000000000)", cancel=cancel)
        assert db.execute("SELECT 1").rows == ((1,),)  # the connection still answers
    finally:
        db.close()


def test_a_question_on_files_runs_through_the_pipeline_in_duckdb(shop: Path) -> None:
    """The model writes PostgreSQL-style SQL (DuckDB reads it); the prompt names DuckDB; a misspelt column is
    repaired as on the other backends."""
    db = open_database(str(shop))
    llm = ScriptedLLM("SELECT customer, SUM(amount) AS total FROM orders_2024 "
                      "WHERE placed >= DATE '2024-03-01' GROUP BY customer ORDER BY total DESC",
                      "x", "x", "x")
    try:
        answer = AskPipeline(db, llm, Settings()).ask("total amount per customer")
        assert answer.ok and list(answer.rows) == [("Asha", 13200.5), ("Ravi", 300.0)]
        assert "DuckDB" in llm.history[0].system
        fixed = AskPipeline(db, ScriptedLLM("SELECT custmer, COUNT(*) FROM orders_2024 GROUP BY custmer")).ask(
            "orders per customer")
        assert fixed.ok and sorted(fixed.rows) == [("Asha", 2), ("Ravi", 1)]
    finally:
        db.close()


def test_a_key_column_proven_unique_joins_exported_files(tmp_path: Path) -> None:
    """Exports declare no keys: ``customer_id`` unique and never empty over the whole file is customers' key, and
    orders.customer_id (its values all found there) joins to it, so the rule-based fallback can answer across both."""
    from core.databases import write_sample_files

    write_sample_files(tmp_path / "shop")
    db = open_database(str(tmp_path / "shop"))
    try:
        schema = db.schema()
        assert schema.table("customers").primary_key == ("customer_id",)
        (fk,) = schema.table("orders").foreign_keys
        assert fk.columns == ("customer_id",) and fk.ref_table == "customers" and fk.inferred
        answer = AskPipeline(db, None, Settings()).ask("total amount per country")
        assert answer.ok and answer.path == "fallback" and len(answer.rows) == 10
    finally:
        db.close()
    dup = FilesDatabase([_write(tmp_path / "people.csv", "id,name\n1,a\n1,b\n")])
    try:
        assert dup.schema().table("people").primary_key == ()  # not unique: no key claimed
    finally:
        dup.close()


def test_cairn_sample_files_writes_a_workbook_and_a_csv(tmp_path: Path, capsys) -> None:
    from core.cli import main

    assert main(["sample-files", str(tmp_path / "s")]) == 0
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["customers.xlsx", "orders.csv"]
    assert "cairn ask" in capsys.readouterr().out


def test_a_european_decimal_comma_is_not_read_as_a_thousands_separator(tmp_path: Path) -> None:
    """"12,50" in a ;-separated file is twelve and a half; "1,250" alone could be either and stays text, as written."""
    db = FilesDatabase([_write(tmp_path / "eu.csv", "region;price\nnorth;12,50\nnorth;100,25\nsouth;3,75\n"),
                        _write(tmp_path / "amb.csv", "id,qty\n1,\"1,250\"\n2,\"2,500\"\n")])
    try:
        assert db.execute("SELECT SUM(price) FROM eu WHERE region = 'north'").rows[0][0] == pytest.approx(112.75)
        assert "VARCHAR" in {c.name: c.type for c in db.schema().table("amb").columns}["qty"]
    finally:
        db.close()


def test_utf8_with_a_broken_byte_is_refused_with_its_line_not_read_as_mojibake(tmp_path: Path) -> None:
    path = tmp_path / "cities.csv"
    path.write_bytes("city,n\nMünchen,1\nK\xf6ln,2\n".encode().replace(b"\xc3\xb6", b"\xf6"))
    with pytest.raises(ConfigError) as err:
        FilesDatabase([path], cache_dir=tmp_path / "cache").schema()
    assert "line 3" in err.value.message and err.value.hint


def test_a_link_inside_a_folder_is_not_followed_and_a_broken_workbook_is_a_message(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    _write(folder / "sales.csv", "a\n1\n")
    secret = _write(tmp_path / "secret.csv", "password\nhunter2\n")
    (folder / "shadow.csv").symlink_to(secret)
    db = FilesDatabase([folder], cache_dir=tmp_path / "cache")
    try:
        assert [t.name for t in db.schema().tables] == ["sales"]
    finally:
        db.close()
    _write(tmp_path / "fake.xlsx", "a,b\n1,2\n")
    with pytest.raises(ConfigError) as err:
        FilesDatabase([tmp_path / "fake.xlsx"], cache_dir=tmp_path / "cache").schema()
    assert "not a readable Excel workbook" in err.value.message


def test_duckdb_s_temp_folder_is_private_and_settings_cannot_be_set(tmp_path: Path, monkeypatch) -> None:
    """DuckDB always allows its temp folder (by default .tmp where Cairn runs); SET search_path is not locked."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".tmp").mkdir()
    _write(tmp_path / ".tmp" / "secret.csv", "s\n42\n")
    db = FilesDatabase([_write(tmp_path / "t.csv", "a\n1\n")], cache_dir=tmp_path / "cache")
    try:
        db.schema()
        for sql in ("SELECT * FROM '.tmp/secret.csv'", f"SELECT * FROM read_csv('{tmp_path}/.tmp/secret.csv')",
                    "SET search_path = 'temp'"):
            with pytest.raises(QueryFailed):
                db.execute(sql)
        assert db.execute("SELECT COUNT(*) FROM t").rows == ((1,),)
    finally:
        db.close()
