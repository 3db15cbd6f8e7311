"""Where Cairn keeps its files, and the settings a person can change (persisted as JSON)."""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from core.errors import ConfigError

__all__ = ["DEFAULT_MODEL", "DEFAULT_OLLAMA_HOST", "Settings", "config_dir", "data_dir"]

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "qwen2.5-coder:7b"
DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
APP_NAME = "cairn"


def data_dir() -> Path:
    """The data directory: ``$CAIRN_DATA_DIR`` or the platform's user data dir. Created on demand."""
    override = os.environ.get("CAIRN_DATA_DIR")
    if override:
        path = Path(override).expanduser()
    else:
        import platformdirs

        path = Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    """Settings live beside the data when ``CAIRN_DATA_DIR`` is set (tests, portable installs)."""
    override = os.environ.get("CAIRN_DATA_DIR")
    if override:
        return data_dir()
    import platformdirs

    path = Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass(frozen=True)
class Settings:
    model: str = DEFAULT_MODEL
    ollama_host: str = DEFAULT_OLLAMA_HOST
    llm_timeout_s: float = 120.0
    num_ctx: int = 4096
    row_cap: int = 1000
    statement_timeout_s: float = 30.0
    repair_rounds: int = 2
    # "pgvector" (embedded server, or memory_store_uri) falls back to "json" files when unavailable.
    memory_store: str = "pgvector"
    memory_store_uri: str | None = None
    # Desktop
    theme: str = "system"  # "system" follows the OS light/dark setting; or "light" / "dark"
    font_size: int = 0  # 0 = the platform default
    users: list[str] = field(default_factory=list)
    last_user: str | None = None
    last_connection: str | None = None  # a saved connection name; None = the embedded sample database
    # Per connection id: tables ("orders") or columns ("customers.email") never shown to the model.
    hidden: dict[str, list[str]] = field(default_factory=dict)

    def with_env(self) -> Settings:
        """``OLLAMA_HOST`` wins over the saved host (that is how Ollama's own tools read it)."""
        host = os.environ.get("OLLAMA_HOST")
        return replace(self, ollama_host=host) if host else self

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        path = path or config_dir() / "settings.json"
        if not path.exists():
            return cls()
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"Could not read settings file {path}: {exc}",
                hint=f"Fix or delete {path}; Cairn then starts with default settings.",
            ) from exc
        known = {f.name for f in fields(cls)}
        unknown = set(raw) - known
        if unknown:
            logger.warning("ignoring unknown settings: %s", ", ".join(sorted(unknown)))
        return cls(**{k: v for k, v in raw.items() if k in known})

    def save(self, path: Path | None = None) -> None:
        """Atomic write-and-rename, so a crash never leaves half a settings file."""
        path = path or config_dir() / "settings.json"
        if self.memory_store_uri and _has_password(self.memory_store_uri):
            raise ConfigError(
                "The memory store URL holds a password; Cairn does not write passwords into its settings.",
                hint="Leave the password out of memory_store_uri and put it in ~/.pgpass (or PGPASSFILE), "
                "which PostgreSQL's client reads by itself.",
            )
        write_json_atomic(path, asdict(self))


def _has_password(url: str) -> bool:
    from urllib.parse import parse_qs, urlsplit

    try:
        parts = urlsplit(url)
        return bool(parts.password) or "password" in parse_qs(parts.query)
    except ValueError:
        return "password" in url.lower()


def write_json_atomic(path: Path, payload: Any) -> None:
    """Temp file, fsync, rename, fsync the directory: a crash leaves the old file or the new one, whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(payload, fh, indent=2, ensure_ascii=False)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if os.name == "posix":  # make the rename itself durable (Windows cannot open a directory)
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
