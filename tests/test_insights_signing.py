"""Signed shared insights (issue 31): whose a record is, is its author's key, not the ``agent_id`` it claims.

On every store (a folder, the embedded pgvector, Milvus Lite): a record another key signs under agent-a's id is
not agent-a's and hides none of agent-a's follow-ups; a record edited after signing, or never signed, is dropped
by readers; another agent's delete, purge or invalidation leaves agent-a's record whole. On the JSON-lines store,
signed change lines replayed on another record (or an old version replayed) change nothing. The key file is made
0600 and reused; a key file others may read, or a symbolic link, is refused with a message.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from core.errors import InsightKeyError
from core.insights import KEY_FILE, AgentKey, InsightDraft, InsightRecord, InsightSharing, agent_folder
from core.insights._signing import verify
from core.insights._store_jsonl import FILE_NAME, JsonlInsightStore
from tests.fakes.fake_embedder import FakeEmbedder

MODEL = "FakeEmbedder"
EMBEDDER = FakeEmbedder(384)
SUMMARY = "Late deliveries were counted per supplier and month"
FOLLOWUPS = ("Which suppliers improved over the year?", "Is lateness worse in winter months?")
_tables = itertools.count()


def embed(text: str) -> Any:
    return EMBEDDER.embed_batch([text])[0]


def record(key: AgentKey | None, agent_id: str = "agent-a", summary: str = SUMMARY,
           followups: tuple[str, ...] = FOLLOWUPS) -> InsightRecord:
    draft = InsightDraft(True, summary, ("table:deliveries",), followups)
    return InsightRecord.create(draft, embed(draft.text_for_embedding()), agent_id=agent_id, db_kind="postgresql",
                                ttl_s=3600, embedding_model=MODEL, key=key)


def sharing(open_store: Callable[[], Any], key: AgentKey, agent_id: str) -> InsightSharing:
    return InsightSharing(open_store=open_store, embed=embed, embedding_model=MODEL, agent_id=agent_id,
                          db_kind="sqlite", key=key)


@pytest.fixture(params=["jsonl", "pgvector", "milvus"])
def backend(request: Any, tmp_path: Path) -> Iterator[tuple[Callable[[], Any], Callable[[Any, InsightRecord], None]]]:
    """(open the shared store, edit a stored record's text in place as someone with write access would)."""
    kind, opened, cleanups = request.param, [], []
    if kind == "jsonl":
        folder = tmp_path / "shared"

        def tamper(store: Any, rec: InsightRecord) -> None:
            path = folder / FILE_NAME
            path.write_text(path.read_text(encoding="utf-8").replace(rec.insight_summary, "Edited by someone else"),
                            encoding="utf-8")

        def make() -> Any:
            opened.append(JsonlInsightStore(folder))
            return opened[-1]
    elif kind == "pgvector":
        from core.insights._store_pgvector import PgVectorInsightStore

        embedded = request.getfixturevalue("embedded_pg")
        embedded.ensure_database("cairn_insights_signing")
        uri, table = embedded.uri("cairn_insights_signing"), f"signed_t{next(_tables)}"
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute(f"DROP TABLE IF EXISTS {table}")

        def tamper(store: Any, rec: InsightRecord) -> None:
            with psycopg.connect(uri, autocommit=True) as conn:
                conn.execute(f"UPDATE {table} SET insight_summary = 'Edited by someone else' WHERE record_id = %s",
                             (rec.record_id,))

        def make() -> Any:
            opened.append(PgVectorInsightStore(uri, table=table))
            return opened[-1]

        def drop() -> None:
            with psycopg.connect(uri, autocommit=True) as conn:
                conn.execute(f"DROP TABLE IF EXISTS {table}")

        cleanups.append(drop)
    else:
        pytest.importorskip("milvus_lite", reason="the milvus extra (milvus-lite) is not installed")
        from core.insights._store_milvus import MilvusInsightStore

        path = tmp_path / "milvus" / "insights.db"

        def tamper(store: Any, rec: InsightRecord) -> None:  # the row rewritten, its old signature kept
            row = store._row(dataclasses.replace(rec, insight_summary="Edited by someone else"))
            store._client.upsert(store.collection, [row])

        def make() -> Any:  # Milvus Lite: one client per file in a process, shared by both agents
            if not opened:
                opened.append(MilvusInsightStore(str(path)))
            return opened[0]
    yield make, tamper
    for store in opened:
        store.close()
    for cleanup in cleanups:
        cleanup()


def test_a_forged_record_under_agent_as_id_is_not_agent_as(backend: Any) -> None:
    make, _tamper = backend
    a_key, mallory_key = AgentKey.generate(), AgentKey.generate()
    store = make()
    genuine = record(a_key)
    forged = record(mallory_key, agent_id="agent-a", summary="Late deliveries were counted per carrier and week",
                    followups=("Which carriers were late most often?",))
    store.put(genuine)
    store.put(forged)
    assert [r.record_id for r in store.list_author(a_key.public_b64)] == [genuine.record_id]
    agent_a = sharing(make, a_key, "agent-a")
    impostor = sharing(make, mallory_key, "agent-a")  # agent-a's label, another key
    # agent-a is offered the impostor's follow-up (not "its own"), and the impostor is offered agent-a's
    assert {s.record_id for s in agent_a.suggestions(SUMMARY)} == {forged.record_id}
    assert {s.record_id for s in impostor.suggestions(SUMMARY)} == {genuine.record_id}
    # the impostor's purge --mine, delete and invalidate touch nothing of agent-a's
    assert store.delete([genuine.record_id], key=mallory_key) == 0
    assert store.invalidate_followup(FOLLOWUPS[0], key=mallory_key) == 0
    assert store.invalidate_followup(FOLLOWUPS[0], key=mallory_key, record_id=genuine.record_id) == 0
    [kept] = make().list_author(a_key.public_b64)
    assert kept.suggested_followups == FOLLOWUPS and kept.verified()
    assert store.delete([forged.record_id, genuine.record_id], key=mallory_key) == 1  # its own forged one only
    assert [r.record_id for r in store.list_author(a_key.public_b64)] == [genuine.record_id]


def test_another_authors_record_under_the_same_id_replaces_nothing(backend: Any) -> None:
    """Milvus writes by upsert: a record signed by another key but carrying agent-a's record id must not replace
    agent-a's (the JSON-lines file and pgvector keep the first record with an id)."""
    make, _tamper = backend
    a_key, mallory_key = AgentKey.generate(), AgentKey.generate()
    store = make()
    genuine = record(a_key)
    clash = dataclasses.replace(record(mallory_key, agent_id="agent-a", summary="Orders were counted by status"),
                                record_id=genuine.record_id).signed_by(mallory_key)
    store.put(genuine)
    store.put(clash)
    [kept] = make().list_author(a_key.public_b64)
    assert kept.insight_summary == genuine.insight_summary and kept.verified()
    assert make().list_author(mallory_key.public_b64) == []


def test_edited_and_unsigned_records_are_dropped(backend: Any) -> None:
    make, tamper = backend
    a_key, reader_key = AgentKey.generate(), AgentKey.generate()
    store = make()
    signed = record(a_key)
    store.put(signed)
    store.put(record(None, summary="An unsigned note about late deliveries per supplier"))
    reader = sharing(make, reader_key, "reader")
    assert [s.record_id for s in reader.suggestions(SUMMARY)] == [signed.record_id]  # the unsigned one never
    tamper(store, signed)
    reopened = make()
    assert reopened.list_author(a_key.public_b64) == []
    assert reopened.query(embed(SUMMARY), exclude_author=reader_key.public_b64, embedding_model=MODEL) == []
    assert sharing(make, reader_key, "reader").suggestions(SUMMARY) == []


def test_only_the_author_invalidates_and_deletes(backend: Any) -> None:
    make, _tamper = backend
    a_key, b_key = AgentKey.generate(), AgentKey.generate()
    store = make()
    mine = record(a_key)
    store.put(mine)
    assert store.invalidate_followup(FOLLOWUPS[1].upper(), key=b_key) == 0
    assert store.invalidate_followup(FOLLOWUPS[1].upper(), key=a_key, record_id=mine.record_id) == 1
    [changed] = make().list_author(a_key.public_b64)
    assert changed.suggested_followups == FOLLOWUPS[:1] and changed.verified()  # re-signed by its author
    assert store.delete([mine.record_id], key=b_key) == 0
    assert len(make().list_author(a_key.public_b64)) == 1
    assert store.delete([mine.record_id], key=a_key) == 1
    assert make().list_author(a_key.public_b64) == []


# -- the JSON-lines file: change lines anyone could append ------------------------------------------------------

def _lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / FILE_NAME).read_text(encoding="utf-8").splitlines()]


def _append(folder: Path, entry: dict[str, Any]) -> None:
    with open(folder / FILE_NAME, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")


def test_replayed_change_lines_do_nothing_on_other_records(tmp_path: Path) -> None:
    a_key, mallory_key = AgentKey.generate(), AgentKey.generate()
    store = JsonlInsightStore(tmp_path)
    first, second = record(a_key), record(a_key, summary="Late deliveries were counted per warehouse")
    store.put(first)
    store.put(second)
    assert store.invalidate_followup(FOLLOWUPS[0], key=a_key, record_id=first.record_id) == 1
    replace = next(e for e in _lines(tmp_path) if e["op"] == "replace")
    replayed = {**replace, "record": {**replace["record"], "record_id": second.record_id}}  # aimed at the other
    _append(tmp_path, replayed)
    _append(tmp_path, {"op": "replace", "record": first.to_json()})  # the older version, follow-up and all
    _append(tmp_path, {"op": "invalidate", "followup_key": FOLLOWUPS[1].lower().rstrip("?"), "record_id": None})
    _append(tmp_path, {"op": "delete", "record_ids": [first.record_id], "agent_id": "agent-a"})  # unsigned, old form
    reader = JsonlInsightStore(tmp_path)
    got = {r.record_id: r.suggested_followups for r in reader.list_author(a_key.public_b64)}
    assert got == {first.record_id: FOLLOWUPS[1:], second.record_id: FOLLOWUPS}
    assert reader.dropped_lines == 4

    assert store.delete([first.record_id], key=a_key) == 1
    delete = next(e for e in _lines(tmp_path) if e["op"] == "delete" and "signature" in e)
    _append(tmp_path, {**delete, "record_ids": [second.record_id]})  # the signed delete replayed on another
    forged = AgentKey.generate()
    _append(tmp_path, {**delete, "record_ids": [second.record_id], "author_key": mallory_key.public_b64,
                       "signature": forged.sign(b"anything")})
    _append(tmp_path, {"op": "put", "record": first.to_json()})  # the deleted record's put replayed
    reader = JsonlInsightStore(tmp_path)
    assert [r.record_id for r in reader.list_author(a_key.public_b64)] == [second.record_id]


def test_a_rewrite_by_expire_keeps_signatures_and_deletions(tmp_path: Path) -> None:
    a_key = AgentKey.generate()
    store = JsonlInsightStore(tmp_path)
    kept, gone = record(a_key), record(a_key, summary="Late deliveries were counted per region")
    old = dataclasses.replace(record(a_key, summary="An old note"), expires_at=0.0).signed_by(a_key)
    for r in (kept, gone, old):
        store.put(r)
    store.invalidate_followup(FOLLOWUPS[0], key=a_key, record_id=kept.record_id)
    store.delete([gone.record_id], key=a_key)
    assert store.expire() == 1  # the file rewritten
    _append(tmp_path, {"op": "put", "record": gone.to_json()})  # a replay after the rewrite
    [left] = JsonlInsightStore(tmp_path).list_author(a_key.public_b64)
    assert left.record_id == kept.record_id and left.suggested_followups == FOLLOWUPS[1:] and left.verified()


def test_a_delete_lines_unsigned_until_cannot_bring_a_deleted_record_back(tmp_path: Path) -> None:
    """An editor of the file sets the delete line's "until" (not signed) to 0 so a rewrite drops it, then replays
    the deleted record's put: the line is kept for the longest a record may live from its signed time."""
    a_key = AgentKey.generate()
    store = JsonlInsightStore(tmp_path)
    gone = record(a_key, summary="Late deliveries were counted per region")
    store.put(gone)
    put_line = _lines(tmp_path)[0]
    store.delete([gone.record_id], key=a_key)
    edited = [{**e, "until": 0} if e["op"] == "delete" else e for e in _lines(tmp_path)]
    (tmp_path / FILE_NAME).write_text("".join(json.dumps(e) + "\n" for e in edited), encoding="utf-8")
    expired = dataclasses.replace(record(a_key, summary="An old note"), expires_at=0.0).signed_by(a_key)
    JsonlInsightStore(tmp_path).put(expired)
    assert JsonlInsightStore(tmp_path).expire() == 1  # the file rewritten
    assert any(e["op"] == "delete" for e in _lines(tmp_path))
    _append(tmp_path, put_line)  # the deleted record's put replayed
    assert JsonlInsightStore(tmp_path).list_author(a_key.public_b64) == []


# -- the key --------------------------------------------------------------------------------------------------

def test_the_key_is_made_0600_at_first_use_and_reused(tmp_path: Path) -> None:
    path = agent_folder(tmp_path, "agent-a") / KEY_FILE
    key = AgentKey.load_or_create(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert AgentKey.load_or_create(path).public_b64 == key.public_b64
    assert [p.name for p in path.parent.iterdir()] == [KEY_FILE]  # no temporary file left
    assert agent_folder(tmp_path, "agent-b") != path.parent  # another agent id, another key
    assert "PRIVATE" not in repr(key)


def test_a_key_file_others_may_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE
    AgentKey.load_or_create(path)
    os.chmod(path, 0o644)
    with pytest.raises(InsightKeyError) as err:
        AgentKey.load_or_create(path)
    assert "read or changed by others" in err.value.message and "chmod 600" in (err.value.hint or "")


def test_a_symlinked_key_file_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere.pem"
    AgentKey.load_or_create(real)
    link = tmp_path / "agent" / KEY_FILE
    link.parent.mkdir()
    link.symlink_to(real)
    with pytest.raises(InsightKeyError) as err:
        AgentKey.load_or_create(link)
    assert "symbolic link" in err.value.message
    dangling = tmp_path / "other" / KEY_FILE
    dangling.parent.mkdir()
    dangling.symlink_to(tmp_path / "planted.pem")
    with pytest.raises(InsightKeyError):
        AgentKey.load_or_create(dangling)
    assert not (tmp_path / "planted.pem").exists()  # never written through the link


def test_a_key_file_that_is_not_a_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE
    path.write_text("not a key")
    path.chmod(0o600)
    with pytest.raises(InsightKeyError) as err:
        AgentKey.load_or_create(path)
    assert err.value.hint


@pytest.mark.parametrize("public, signature", [("", ""), ("not base64!", "x"), ("AAAA", "AAAA"),
                                               (AgentKey.generate().public_b64, "A" * 88)])
def test_verify_is_false_for_anything_malformed(public: str, signature: str) -> None:
    assert verify(public, b"data", signature) is False


def test_a_signature_covers_every_field() -> None:
    key = AgentKey.generate()
    signed = record(key)
    assert signed.verified()
    for change in ({"record_id": "x"}, {"agent_id": "agent-b"}, {"db_kind": "sqlite"}, {"created_at": 1.0},
                   {"expires_at": 9e12}, {"embedding_model": "other"}, {"insight_summary": "x"},
                   {"entities": ("table:x",)}, {"suggested_followups": FOLLOWUPS[:1]},
                   {"vector": signed.vector * -1}, {"author_key": AgentKey.generate().public_b64}):
        assert not dataclasses.replace(signed, **change).verified(), change
    assert InsightRecord.from_json(json.loads(json.dumps(signed.to_json()))).verified()


def test_a_pgvector_table_of_an_earlier_cairn_gains_the_signature_columns(embedded_pg: Any) -> None:
    from core.insights._store_pgvector import PgVectorInsightStore

    embedded_pg.ensure_database("cairn_insights_signing")
    uri, table = embedded_pg.uri("cairn_insights_signing"), f"signed_t{next(_tables)}"
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    PgVectorInsightStore(uri, table=table).close()
    with psycopg.connect(uri, autocommit=True) as conn:  # as an earlier Cairn made it, with one unsigned row
        conn.execute(f"ALTER TABLE {table} DROP COLUMN author_key, DROP COLUMN signature")
        old = record(None)
        conn.execute(f"INSERT INTO {table} (record_id, agent_id, db_kind, created_at, expires_at, embedding_model, "
                     "insight_summary, embedding) VALUES (%s, 'agent-a', 'postgresql', %s, %s, %s, %s, %s::vector)",
                     (old.record_id, old.created_at, old.expires_at, MODEL, old.insight_summary,
                      "[" + ",".join(str(float(x)) for x in old.vector) + "]"))
    store = PgVectorInsightStore(uri, table=table)
    try:
        key = AgentKey.generate()
        store.put(record(key))
        assert len(store) == 2 and len(store.list_author(key.public_b64)) == 1
        hits = store.query(embed(SUMMARY), exclude_author=AgentKey.generate().public_b64, embedding_model=MODEL)
        assert [h.record.author_key for h in hits] == [key.public_b64]  # the old unsigned row is never suggested
    finally:
        store.close()
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute(f"DROP TABLE IF EXISTS {table}")
