"""Saved database connections: everything needed to reconnect except the password.

Passwords never enter :class:`SavedConnection` or the JSON file; they live in a
:class:`core.databases.connections._secrets.SecretStore` under :meth:`SavedConnection.secret_key`. A pasted URL that holds a password
is split by :meth:`SavedConnection.from_url` into the connection and the secret.
"""

from __future__ import annotations

import builtins
import json
import logging
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote, unquote, urlencode, urlsplit

from core.config import config_dir, write_json_atomic
from core.databases.connections._connection_id import (
    POSTGRES_SCHEMES,
    FILES_PREFIX,
    SQLITE_PREFIX,
    TARGET_FORMS_HINT,
    parse_postgres_url,
    sqlite_path_from_target,
)
from core.errors import ConfigError

if TYPE_CHECKING:
    from core.databases.connections._secrets import SecretStore

__all__ = [
    "MYSQL_PORT",
    "DEFAULT_PORT",
    "ConnectionStore",
    "SavedConnection",
    "connection_url",
    "default_connections_path",
    "delete_connection",
    "file_kind",
    "save_connection",
]

logger = logging.getLogger(__name__)

ConnectionKind = Literal["postgres", "mysql", "sqlite", "files"]  # files: data files or a folder, or a DuckDB file
MYSQL_PORT = 3306
DEFAULT_PORT = 5432
_FILE_VERSION = 1
LAST_CONNECTION_FILE = "last_connection.json"  # beside connections.json; the target last connected, no password
# libpq keywords that carry secrets: they are split off, never saved.
_SECRET_KEYS = frozenset({"password", "sslpassword"})
# libpq keywords that have their own field in SavedConnection.
_FIELD_KEYS = frozenset({"host", "hostaddr", "port", "dbname", "user"})


def default_connections_path() -> Path:
    return config_dir() / "connections.json"


@dataclass(frozen=True)
class SavedConnection:
    """A named PostgreSQL server/database or SQLite file. ``options`` are extra libpq keywords (sslmode...)."""

    name: str
    kind: ConnectionKind
    host: str = ""
    port: int = DEFAULT_PORT
    database: str = ""
    user: str = ""
    path: str = ""
    options: dict[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise ConfigError("A saved connection needs a name.", hint="Type a name such as 'Sales (production)'.")
        if self.kind not in ("postgres", "mysql", "sqlite", "files"):
            raise ConfigError(f"Unknown connection kind {self.kind!r}.",
                              hint="Use 'postgres', 'mysql', 'sqlite' or 'files'.")
        if not 0 < int(self.port) < 65536:
            raise ConfigError(f"The port {self.port} is not a valid port number.", hint="Use a port from 1 to 65535.")
        secret = _SECRET_KEYS & {k.lower() for k in self.options}
        if secret:
            raise ConfigError("A saved connection cannot hold a password in its options.",
                              hint="Keep passwords in the secret store, not in the connection.")
        object.__setattr__(self, "options", {str(k): str(v) for k, v in self.options.items()})

    # -- URLs ----------------------------------------------------------------------------------------------

    def url(self, password: str | None = None) -> str:
        """The URL ``open_database`` reads; the password (if any) is percent-encoded into it."""
        if self.kind in ("sqlite", "files"):
            if not self.path:
                raise ConfigError(f"The connection {self.name!r} names no file.", hint=TARGET_FORMS_HINT)
            return (SQLITE_PREFIX if self.kind == "sqlite" else FILES_PREFIX) + self.path
        userinfo = quote(self.user, safe="") if self.user else ""
        if password:
            userinfo += ":" + quote(password, safe="")
        if self.kind == "mysql":  # a host starting with / is the server's Unix socket
            where = (f"localhost/{quote(self.database, safe='')}?unix_socket={quote(self.host, safe='/')}"
                     if self.host.startswith("/") else f"{self.host or 'localhost'}:{self.port}/{quote(self.database, safe='')}")
            return f"mysql://{userinfo}@{where}" if userinfo else f"mysql://{where}"
        query = dict(self.options)
        host = self.host
        if host.startswith(("/", "@")):
            query = {"host": host, **query}  # a Unix-socket directory goes in the query, as libpq expects
            host = ""
        elif ":" in host:
            host = f"[{host}]"  # IPv6 literal
        else:
            host = quote(host, safe=".-_~")
        netloc = f"{userinfo}@" if userinfo else ""
        netloc += f"{host}:{self.port}"
        text = f"postgresql://{netloc}/{quote(self.database, safe='')}"
        if query:
            text += "?" + urlencode(query, quote_via=quote, safe="")
        return text

    def display(self) -> str:
        """A one-line, password-free description for lists and tooltips."""
        if self.kind in ("sqlite", "files"):
            return f"{'SQLite' if self.kind == 'sqlite' else 'Files'}: {self.path}"
        user = f"{self.user}@" if self.user else ""
        text = f"{user}{self.host or 'localhost'}:{self.port}/{self.database}"
        if self.kind == "mysql":
            return f"MySQL: {text}"
        ssl = self.options.get("sslmode")
        return f"{text} (sslmode={ssl})" if ssl else text

    def secret_key(self) -> str:
        """The secret store key: who logs in where. Renaming a connection keeps its password."""
        if self.kind in ("sqlite", "files"):
            return f"{self.kind}:{self.path}"
        scheme = "mysql" if self.kind == "mysql" else "postgresql"
        return f"{scheme}://{self.user}@{self.host or 'localhost'}:{self.port}/{self.database}"

    @classmethod
    def from_url(cls, name: str, url: str) -> tuple[SavedConnection, str | None]:
        """Split a pasted PostgreSQL URL or SQLite path/URL into a connection and its password (if any)."""
        text = (url or "").strip()
        if not text:
            raise ConfigError("No URL given.", hint=TARGET_FORMS_HINT)
        scheme = urlsplit(text).scheme.lower() if "://" in text else ""
        if scheme == "sqlite" or text.startswith("sqlite:"):
            if not text.startswith(SQLITE_PREFIX):
                raise ConfigError("Cannot read that SQLite URL.", hint=TARGET_FORMS_HINT)
            return cls(name=name, kind="sqlite", path=str(sqlite_path_from_target(text))), None
        if scheme in ("mysql", "mariadb"):
            parts = urlsplit(text)
            query = dict(p.split("=", 1) for p in parts.query.split("&") if "=" in p)
            socket = unquote(query.get("unix_socket", ""))
            conn = cls(name=name, kind="mysql", host=socket or parts.hostname or "localhost",
                       port=parts.port or MYSQL_PORT, database=unquote(parts.path.strip("/")),
                       user=unquote(parts.username or ""))
            return conn, unquote(parts.password) if parts.password else None
        if scheme == "duckdb" and text.startswith(FILES_PREFIX):
            return cls(name=name, kind="files", path=text[len(FILES_PREFIX):]), None
        if scheme and scheme not in POSTGRES_SCHEMES:
            raise ConfigError(f"Unsupported database URL scheme {scheme!r}.", hint=TARGET_FORMS_HINT)
        if not scheme:
            path = Path(text).expanduser().resolve()
            return cls(name=name, kind=file_kind(path), path=str(path)), None
        params = parse_postgres_url(text)  # libpq's reading; ConfigError (redacted) when malformed
        host = params.get("host") or params.get("hostaddr") or ""
        port_text = params.get("port") or str(DEFAULT_PORT)
        if "," in host or "," in port_text:
            raise ConfigError("Saved connections hold one host; this URL names several.",
                              hint="Paste a URL with a single host, or use it directly on the command line.")
        password = params.get("password") or None
        options = {k: v for k, v in params.items() if k not in _FIELD_KEYS and k.lower() not in _SECRET_KEYS}
        conn = cls(
            name=name,
            kind="postgres",
            host=host,
            port=int(port_text),
            database=params.get("dbname", ""),
            user=params.get("user", ""),
            options=options,
        )
        return conn, password

    # -- JSON ----------------------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> SavedConnection:
        return cls(
            name=str(raw["name"]),
            kind=raw["kind"],
            host=str(raw.get("host", "")),
            port=int(raw.get("port", DEFAULT_PORT)),
            database=str(raw.get("database", "")),
            user=str(raw.get("user", "")),
            path=str(raw.get("path", "")),
            options=dict(raw.get("options") or {}),
        )


class ConnectionStore:
    """Saved connections in one small JSON file, rewritten atomically on each change. No passwords, ever."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_connections_path()

    def list(self) -> builtins.list[SavedConnection]:
        """Saved connections in the order they were first saved."""
        if not self.path.exists():
            return []
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            items = raw["connections"] if isinstance(raw, dict) else raw
            return [SavedConnection.from_json(item) for item in items]
        except ConfigError:
            raise
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"Could not read the saved connections in {self.path}: {exc}",
                              hint=f"Fix or move {self.path} aside; Cairn then starts with no saved connections.",
                              ) from exc

    def get(self, name: str) -> SavedConnection | None:
        return next((c for c in self.list() if c.name == name), None)

    def save(self, conn: SavedConnection) -> None:
        """Add ``conn``, or replace the saved connection with the same name in place."""
        items = self.list()
        for i, existing in enumerate(items):
            if existing.name == conn.name:
                items[i] = conn
                break
        else:
            items.append(conn)
        self._write(items)

    def delete(self, name: str) -> bool:
        """Forget ``name``. True when it was there."""
        items = self.list()
        kept = [c for c in items if c.name != name]
        if len(kept) == len(items):
            return False
        self._write(kept)
        return True

    def rename(self, old: str, new: str) -> SavedConnection:
        items = self.list()
        if not new.strip():
            raise ConfigError("A saved connection needs a name.", hint="Type a name such as 'Sales (production)'.")
        if old != new and any(c.name == new for c in items):
            raise ConfigError(f"A connection named {new!r} already exists.", hint="Choose another name.")
        for i, existing in enumerate(items):
            if existing.name == old:
                items[i] = replace(existing, name=new)
                self._write(items)
                return items[i]
        raise ConfigError(f"No saved connection is named {old!r}.", hint="Pick one from the list of connections.")

    # -- the last connection (restored at start) ----------------------------------------------------------

    @property
    def last_path(self) -> Path:
        return self.path.with_name(LAST_CONNECTION_FILE)

    def remember_last(self, conn: SavedConnection | None) -> None:
        """Remember what was last connected: ``conn`` (its fields, never a password) or None for the sample."""
        payload: dict[str, Any] = {"version": _FILE_VERSION, "sample": conn is None}
        if conn is not None:
            payload["connection"] = conn.to_json()
        try:
            write_json_atomic(self.last_path, payload)
        except OSError as exc:
            raise ConfigError(f"Could not remember the last connection in {self.last_path}: {exc}",
                              hint="Check free disk space and that the config directory is writable.") from exc

    def last(self) -> SavedConnection | None:
        """The connection last connected (as it was then), or None for the sample database or nothing yet."""
        if not self.last_path.exists():
            return None
        try:
            raw = json.loads(self.last_path.read_text(encoding="utf-8"))
            if raw.get("connection") is None:
                return None
            return SavedConnection.from_json(raw["connection"])
        except ConfigError:
            raise
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"Could not read the last connection in {self.last_path}: {exc}",
                              hint=f"Connect again from Connect…; Cairn then rewrites {self.last_path.name}.",
                              ) from exc

    def _write(self, items: builtins.list[SavedConnection]) -> None:
        payload = {"version": _FILE_VERSION, "connections": [c.to_json() for c in items]}
        try:
            write_json_atomic(self.path, payload)
        except OSError as exc:
            raise ConfigError(f"Could not save connections to {self.path}: {exc}",
                              hint="Check free disk space and that the config directory is writable.") from exc
        logger.debug("saved %d connection(s) to %s", len(items), self.path)


# -- a connection together with its secret -------------------------------------------------------------------


def save_connection(
    store: ConnectionStore,
    secrets: SecretStore,
    conn: SavedConnection,
    password: str | None,
    *,
    remember: bool = True,
    previous: str | None = None,
) -> SavedConnection:
    """Save ``conn`` (renaming ``previous`` when given) and put ``password`` in ``secrets``, never in the file.

    ``remember=False`` forgets any stored password for the connection. An empty password keeps the stored one,
    moving it along when the server, user or database changed. With no ``previous``, an existing name is an error.
    """
    saved = {c.name: c for c in store.list()}
    old = saved.get(previous) if previous else None
    if previous and old is None:
        raise ConfigError(f"No saved connection is named {previous!r}.", hint="Pick one from the list of connections.")
    if conn.name in saved and conn.name != previous:
        raise ConfigError(f"A connection named {conn.name!r} already exists.",
                          hint="Choose another name, or select that connection in the list to change it.")
    key = conn.secret_key()
    old_key = old.secret_key() if old is not None else None
    if remember:
        if password:
            secrets.set(key, password)
        elif old_key and old_key != key:
            moved = secrets.get(old_key)
            if moved:
                secrets.set(key, moved)
    else:
        secrets.delete(key)
    if old is not None and old.name != conn.name:
        store.rename(old.name, conn.name)
    store.save(conn)
    if old_key and old_key != key:
        _forget_unused_secret(store, secrets, old_key)
    return conn


def delete_connection(store: ConnectionStore, secrets: SecretStore, name: str) -> bool:
    """Forget the saved connection ``name`` and its password (unless another connection shares it)."""
    conn = store.get(name)
    if conn is None:
        return False
    store.delete(name)
    _forget_unused_secret(store, secrets, conn.secret_key())
    return True


def file_kind(path: Path) -> ConnectionKind:
    """"sqlite" for a SQLite database (by its header, or its name when it cannot be read), else "files"."""
    try:
        with path.open("rb") as fh:
            return "sqlite" if fh.read(16) == b"SQLite format 3\x00" else "files"
    except OSError:
        return "sqlite" if path.suffix.lower() in (".sqlite", ".sqlite3", ".db", ".db3") else "files"


def connection_url(conn: SavedConnection, secrets: SecretStore, password: str | None = None) -> str:
    """The full URL to open: the typed ``password`` if any, else the stored one, else none (libpq may use .pgpass)."""
    if conn.kind in ("sqlite", "files"):
        return conn.url()
    return conn.url(password or secrets.get(conn.secret_key()))


def _forget_unused_secret(store: ConnectionStore, secrets: SecretStore, key: str) -> None:
    if not any(c.secret_key() == key for c in store.list()):
        secrets.delete(key)
