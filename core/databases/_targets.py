"""Resolves what a person named (nothing, a URL, a file) into an open Database: the CLI's composition root."""

from __future__ import annotations

import logging

from core.databases._open import open_database
from core.databases._base import Database
from core.databases.embedded import EmbeddedPostgres

__all__ = ["open_target"]

logger = logging.getLogger(__name__)


def open_target(target: str | None, *, embedded: EmbeddedPostgres | None = None) -> Database:
    """``None`` means the sample database on the embedded server (started on demand)."""
    if target:
        return open_database(target)
    from core.databases.embedded import SAMPLE_DATABASE, ensure_sample_database

    server = embedded or EmbeddedPostgres()
    database = open_database(ensure_sample_database(server))
    database.id = server.database_id(SAMPLE_DATABASE)  # memories stay scoped to it whichever role connects
    database.revive = server.revive  # type: ignore[attr-defined]  # its postmaster killed: started again once
    return database
