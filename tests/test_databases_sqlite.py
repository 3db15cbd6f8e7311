"""SqliteDatabase on a copy of Chinook and on small files made here: read-only, limits, cancel, introspection."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from core.cancellation import Cancellation
from core.databases import QueryLimits, SqliteDatabase, open_database
from core.errors import ConfigError, QueryCancelled, QueryFailed, QueryTimeout
from tests.conftest import shared_data_path

HEAVY = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000000) SELECT count(*) FROM c"


@pytest.fixture
def chinook(tmp_path: Path) -> Path:
    copy = tmp_path / "Chinook.sqlite"
    shutil.copyfile(shared_data_path("chinook", "Chinook_Sqlite.sqlite"), copy)
    return copy


@pytest.fixture
def chinook_db(chinook: Path) -> SqliteDatabase:
    db = open_database(str(chinook))
    assert isinstance(db, SqliteDatabase)
    return db


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_open_by_path_or_url_gives_a_stable_id(chinook: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    by_path = open_database(str(chinook))
    by_url = open_database(f"sqlite:///{chinook}")
    monkeypatch.chdir(chinook.parent)
    relative = open_database("sqlite:///Chinook.sqlite")
    assert by_path.id == by_url.id == relative.id == f"sqlite:///{chinook.resolve()}"
    assert by_path.id.startswith("sqlite:////") and by_path.dialect == "sqlite"


def test_missing_or_foreign_files_are_config_errors_and_nothing_is_created(tmp_path: Path) -> None:
    missing = tmp_path / "nope.sqlite"
    with pytest.raises(ConfigError):
        open_database(str(missing))
    with pytest.raises(ConfigError):
        open_database(f"sqlite:///{missing}")
    with pytest.raises(ConfigError):
        SqliteDatabase(missing)
    assert not missing.exists()
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(ConfigError, match="cannot read notes.txt as a table"):
        open_database(str(text))
    (tmp_path / "notes.db").write_text("hello")
    with pytest.raises(ConfigError, match="not a SQLite database"):
        open_database(str(tmp_path / "notes.db"))
    with pytest.raises(ConfigError, match="folder"):
        open_database(str(tmp_path))  # a folder with no data files


def test_chinook_introspection(chinook_db: SqliteDatabase) -> None:
    started = time.perf_counter()
    schema = chinook_db.schema()
    assert time.perf_counter() - started < 5
    assert schema.dialect == "sqlite" and schema.database_id == chinook_db.id
    assert set(schema.table_names) == {
        "Album", "Artist", "Customer", "Employee", "Genre", "Invoice",
        "InvoiceLine", "MediaType", "Playlist", "PlaylistTrack", "Track",
    }  # fmt: skip
    track = schema.table("track")  # case-insensitive lookup
    assert track is not None and track.name == "Track" and track.schema is None
    assert track.primary_key == ("TrackId",)
    assert not track.column("TrackId").nullable  # type: ignore[union-attr]
    assert track.column("Composer").nullable  # type: ignore[union-attr]
    assert track.column("Name").type == "NVARCHAR(200)"  # type: ignore[union-attr]
    assert schema.table("PlaylistTrack").primary_key == ("PlaylistId", "TrackId")  # type: ignore[union-attr]
    line = schema.table("InvoiceLine")
    assert line is not None
    assert {(fk.columns, fk.ref_table, fk.ref_columns) for fk in line.foreign_keys} == {
        (("InvoiceId",), "Invoice", ("InvoiceId",)),
        (("TrackId",), "Track", ("TrackId",)),
    }
    assert any(ix.columns == ("TrackId",) and not ix.unique for ix in line.indexes)
    media = schema.table("MediaType").column("Name")  # type: ignore[union-attr]
    assert media is not None and len(media.value_hints) == 5 and "MPEG audio file" in media.value_hints
    assert schema.table("Genre").column("Name").value_hints == ()  # type: ignore[union-attr]  # 25 genres
    assert schema.table("Customer").column("Email").value_hints == ()  # type: ignore[union-attr]
    assert schema.table("Track").column("Milliseconds").value_hints == ()  # type: ignore[union-attr]  # not text
    titles = schema.table("Employee").column("Title").value_hints  # type: ignore[union-attr]
    assert "Sales Support Agent" == titles[0]  # most frequent first
    assert chinook_db.schema() is schema
    assert chinook_db.schema(refresh=True) is not schema


def test_views_implicit_fk_targets_and_expression_indexes(tmp_path: Path) -> None:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            """
            CREATE TABLE "Parent Table" (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, label VARCHAR(10));
            CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES "Parent Table", note TEXT);
            CREATE UNIQUE INDEX child_note_uq ON child (lower(note));
            CREATE INDEX child_partial ON child (note) WHERE note IS NOT NULL;
            CREATE VIEW kinds AS SELECT kind, count(*) AS n FROM "Parent Table" GROUP BY kind;
            INSERT INTO "Parent Table" (kind, label) VALUES ('a', 'x'), ('b', 'y'), ('a', 'z');
            """
        )
    conn.close()
    db = open_database(str(path))
    schema = db.schema()
    child = schema.table("child")
    assert child is not None
    assert child.foreign_keys[0].ref_table == "Parent Table" and child.foreign_keys[0].ref_columns == ("id",)
    indexes = {ix.name: ix for ix in child.indexes}
    assert indexes["child_note_uq"].columns == ("<expression>",) and indexes["child_note_uq"].unique
    assert not indexes["child_partial"].unique
    view = schema.table("kinds")
    assert view is not None and view.column_names == ("kind", "n")
    assert view.column("kind").value_hints == ("a", "b")  # type: ignore[union-attr]
    assert schema.table("Parent Table").column("kind").value_hints == ("a", "b")  # type: ignore[union-attr]
    result = db.execute('SELECT kind, n FROM kinds ORDER BY n DESC')
    assert result.columns == ("kind", "n") and result.rows == (("a", 2), ("b", 1))
    db.close()


def test_rows_and_cap(chinook_db: SqliteDatabase) -> None:
    result = chinook_db.execute('SELECT "TrackId", "Name", "UnitPrice" FROM Track ORDER BY "TrackId"')
    assert result.columns == ("TrackId", "Name", "UnitPrice")
    assert len(result.rows) == 1000 and result.truncated
    assert result.rows[0] == (1, "For Those About To Rock (We Salute You)", 0.99)
    capped = chinook_db.execute("SELECT * FROM Genre", limits=QueryLimits(max_rows=5))
    assert len(capped.rows) == 5 and capped.truncated
    exact = chinook_db.execute("SELECT * FROM Genre", limits=QueryLimits(max_rows=25))
    assert len(exact.rows) == 25 and not exact.truncated
    assert chinook_db.execute("SELECT * FROM Genre WHERE 0").rows == ()


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO Genre (Name) VALUES ('Hacked')",
        "UPDATE Genre SET Name = 'Hacked'",
        "DELETE FROM InvoiceLine",
        "DROP TABLE Genre",
        "CREATE TABLE evil (x)",
        "SELECT 1; DELETE FROM Genre",
        "PRAGMA query_only = OFF",
        "ATTACH DATABASE ':memory:' AS other",
        "VACUUM",
        "VACUUM INTO 'copy.db'",
        "PRAGMA journal_mode = WAL",
    ],
)
def test_writes_fail_even_without_the_guard(chinook: Path, chinook_db: SqliteDatabase, sql: str) -> None:
    before = _digest(chinook)
    with pytest.raises(QueryFailed):
        chinook_db.execute(sql)
    with pytest.raises(QueryFailed):
        chinook_db.execute("DELETE FROM Genre")  # still refused afterwards
    assert chinook_db.execute("SELECT count(*) FROM Genre").rows == ((25,),)
    assert chinook_db.execute("PRAGMA query_only").rows == ((1,),)
    assert _digest(chinook) == before


def test_errors_keep_sqlite_text(chinook_db: SqliteDatabase) -> None:
    with pytest.raises(QueryFailed, match="no such column: Nme"):
        chinook_db.execute("SELECT Nme FROM Genre")
    with pytest.raises(QueryFailed, match="no such table"):
        chinook_db.execute("SELECT * FROM Genres")
    with pytest.raises(QueryFailed, match="one statement"):
        chinook_db.execute("SELECT 1; SELECT 2")
    assert chinook_db.execute("SELECT 1").rows == ((1,),)


def test_timeout(chinook_db: SqliteDatabase) -> None:
    started = time.perf_counter()
    with pytest.raises(QueryTimeout):
        chinook_db.execute(HEAVY, limits=QueryLimits(timeout_s=0.5))
    assert time.perf_counter() - started < 3
    assert chinook_db.execute("SELECT count(*) FROM Track").rows == ((3503,),)


def test_cancel_from_another_thread(chinook_db: SqliteDatabase) -> None:
    token = Cancellation()
    timer = threading.Timer(0.3, token.cancel)
    timer.start()
    started = time.perf_counter()
    with pytest.raises(QueryCancelled):
        chinook_db.execute(HEAVY, cancel=token)
    assert time.perf_counter() - started < 3
    timer.join()
    assert chinook_db.execute("SELECT count(*) FROM Album").rows == ((347,),)
    with pytest.raises(QueryCancelled):
        chinook_db.execute("SELECT 1", cancel=token)


def test_threads_share_one_connection_safely(chinook_db: SqliteDatabase) -> None:
    results: list[int] = []

    def work() -> None:
        for _ in range(20):
            results.append(chinook_db.execute("SELECT count(*) FROM Customer").rows[0][0])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [59] * 80
