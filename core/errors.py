"""Cairn's one error tree. Every error a person can see carries a short ``hint`` saying what to do.

    CairnError
    ├── InputError                 bad question or bad command-line input
    ├── ConfigError                settings, data directory, bad connection URL
    ├── LLMError
    │   ├── LLMUnavailable         Ollama not running / unreachable
    │   ├── ModelNotFound          the model is not pulled
    │   ├── LLMTimeout             no reply in time
    │   └── LLMReplyError          the reply holds no usable SQL
    ├── SQLError
    │   ├── SQLRejected            the guard refused the statement (not read-only, several statements...)
    │   │   ├── HiddenColumnRefused  a whole row or a pattern of a table with hidden columns
    │   │   └── SQLUnbounded       it would build one value of unbounded size (string_agg of a whole table)
    │   └── SQLValidationError     names that are not in the schema and could not be repaired
    ├── DatabaseError
    │   ├── DatabaseUnavailable    cannot connect
    │   ├── AuthenticationFailed   wrong user or password
    │   ├── QueryFailed            the database refused the query (message kept)
    │   ├── QueryTimeout           statement_timeout reached
    │   └── QueryCancelled         the person cancelled
    ├── EmbeddedServerError        the embedded PostgreSQL could not start (stale or locked data dir)
    ├── MemoryStoreError           the memory store cannot be read or written (disk full, read-only, corrupt)
    │   ├── MemoryStoreFull        the disk under the memory store is full (the hint names the folder to free)
    │   └── CorruptMemoryFile      a JSON store file does not parse (kept aside as a backup)
    ├── EmbeddingModelMissing      the offline embedding model package is not installed
    └── NoAnswer                   neither the model nor the fallback could answer

Third-party exceptions are translated at the adapter boundary only (``raise X(...) from exc``).
Built-in names (``MemoryError``, ``PermissionError``, ``TimeoutError``) are never shadowed.
"""

from __future__ import annotations

__all__ = [
    "AuthenticationFailed",
    "CairnError",
    "ConfigError",
    "CorruptMemoryFile",
    "EmbeddingModelMissing",
    "MemoryStoreError",
    "MemoryStoreFull",
    "disk_full_hint",
    "DatabaseError",
    "DatabaseUnavailable",
    "EmbeddedServerError",
    "HiddenColumnRefused",
    "InputError",
    "InsightKeyError",
    "InsightStoreError",
    "LLMError",
    "LLMReplyError",
    "LLMTimeout",
    "LLMUnavailable",
    "ModelNotFound",
    "NoAnswer",
    "QueryCancelled",
    "QueryFailed",
    "QueryTimeout",
    "SQLError",
    "SQLRejected",
    "SQLUnbounded",
    "SQLValidationError",
]


class CairnError(Exception):
    """Root of every error Cairn raises on purpose."""

    default_hint = "See the message above."

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint or self.default_hint

    def __str__(self) -> str:
        return self.message


class InputError(CairnError):
    default_hint = "Type a question in plain words, for example: How many orders were placed last month?"


class ConfigError(CairnError):
    default_hint = "Check the setting or the connection URL and try again."


class LLMError(CairnError):
    default_hint = "Check that Ollama is running (ollama serve) and the model is pulled."


class LLMUnavailable(LLMError):
    default_hint = "Start Ollama with `ollama serve`, or set OLLAMA_HOST to where it runs."


class ModelNotFound(LLMError):
    default_hint = "Pull the model first, e.g. `ollama pull qwen2.5-coder:7b`, or choose another with --model."


class LLMTimeout(LLMError):
    default_hint = "The model took too long. Try a smaller model or raise the LLM timeout in settings."


class LLMReplyError(LLMError):
    default_hint = "The model's reply held no SQL query. Rephrase the question or try another model."


class SQLError(CairnError):
    default_hint = "Edit the SQL or rephrase the question."


class SQLRejected(SQLError):
    default_hint = "Cairn only runs one read-only SELECT query. Ask for data, not for changes."


class SQLReadings(SQLRejected):
    """A syntax slip one edit mends in two or three places that read differently: ``readings`` (mended text, what
    was done) for the data to settle; unsettled, it is the parse error it carries."""

    def __init__(self, message: str, readings: list[tuple[str, str]]) -> None:
        super().__init__(message)
        self.readings = readings


class HiddenColumnRefused(SQLRejected):
    default_hint = "Name the columns you need: some columns of this table are hidden from the model (settings: hidden)."


class SQLUnbounded(SQLRejected):
    default_hint = ("Bound the rows the aggregate reads (a subquery with a LIMIT) or the size of the value "
                    "(a number, or LEAST(size, n)).")


class SQLValidationError(SQLError):
    default_hint = "The SQL names tables or columns that are not in the schema. Run `cairn schema` to see them."


class DatabaseError(CairnError):
    default_hint = "Check the database and try again."


class DatabaseUnavailable(DatabaseError):
    default_hint = "Check that the database server is running and the host, port and name are right."


class AuthenticationFailed(DatabaseError):
    default_hint = "Check the user name and password of the connection."


class QueryFailed(DatabaseError):
    default_hint = "The database refused the query; edit the SQL or rephrase the question."


class QueryTimeout(DatabaseError):
    default_hint = "The query ran past the statement timeout. Narrow the question or raise the timeout."


class QueryCancelled(DatabaseError):
    default_hint = "The query was cancelled; nothing was changed."


class EmbeddedServerError(CairnError):
    default_hint = "Stop other Cairn instances, or move the data directory aside and start again."


class NoAnswer(CairnError):
    default_hint = "Rephrase the question with table or column names, or edit the last SQL and run it."


class MemoryStoreError(CairnError):
    default_hint = "Check free disk space and that the data directory is writable; nothing was half-written."


class MemoryStoreFull(MemoryStoreError):
    default_hint = "Free disk space where the memories are kept, then try again; nothing was half-written."


def disk_full_hint(where: object) -> str:
    """What to do when the disk holding ``where`` (a folder, or a server in words) is full."""
    return (f"Free disk space at {where} (or move Cairn's data directory elsewhere with CAIRN_DATA_DIR), then try "
            "again; nothing was half-written.")


class CorruptMemoryFile(MemoryStoreError):
    default_hint = "The damaged file was kept as a backup next to it; restore it or import an export."


class EmbeddingModelMissing(CairnError):
    default_hint = "Reinstall Cairn, or export the model again (scripts/export_embedder.py). Nothing is downloaded."


class InsightStoreError(CairnError):
    default_hint = ("The shared-insights store is optional: answers go on without it. Check its folder or server "
                    "in Settings → Sharing, or turn sharing off.")


class InsightKeyError(CairnError):
    default_hint = ("The signing key proves which shared insights are this agent's. Fix or delete the key file "
                    "named above, or turn sharing off.")
