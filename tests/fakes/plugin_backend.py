"""A backend as a plugin package would ship it: registered under ``cairn.databases`` by a test, found by
``open_database`` for its own URL scheme (``fakesql:///path``), here a SQLite file under another name."""

from __future__ import annotations

from core.databases import SqliteDatabase


class FakeSqlDatabase(SqliteDatabase):
    reads = "fakesql:/// URLs (a test plugin)"

    @classmethod
    def accepts(cls, target: str) -> bool:
        return target.startswith("fakesql:///")

    def __init__(self, target: str) -> None:
        super().__init__(target[len("fakesql://"):])
        self.id = target
