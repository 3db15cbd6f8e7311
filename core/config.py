"""Where Cairn keeps its files, and the settings a person can change (persisted as JSON).

``settings.json`` is read through a typed schema (:data:`_SCHEMA`): each key has one checker that says what is
allowed. A key of the wrong type or out of range is reported by name, with what is allowed, and its default is
used instead (never the dangerous value: a NaN timeout, a negative row cap). A file that is not a JSON object at
all refuses to load with a hint. ``cairn settings --fix`` / ``--reset`` rewrite it atomically after keeping a
``.bak`` copy, and :meth:`Settings.save` keeps one too before overwriting a file that had problems.
"""

from __future__ import annotations

import json
import logging
import math
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from core.errors import ConfigError

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_OLLAMA_HOST",
    "ROW_CAP_MAX",
    "SETTINGS_FIX_HINT",
    "SettingProblem",
    "Settings",
    "SettingsCheck",
    "backup_file",
    "check_settings",
    "config_dir",
    "data_dir",
    "fix_settings",
    "setting_problem",
    "settings_path",
    "write_json_atomic",
]

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "qwen2.5-coder:7b"
DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
APP_NAME = "cairn"
ROW_CAP_MAX = 100_000
TIMEOUT_MIN_S, TIMEOUT_MAX_S = 0.01, 86_400.0  # finite and above 0 (NaN once disabled SQLite's timeout)
MAX_SETTINGS_BYTES = 4 * 1024 * 1024
SETTINGS_FIX_HINT = ("Edit the file, or run `cairn settings --fix` to write the defaults for the bad keys "
                     "(or `cairn settings --reset` for all of them); a copy is kept as settings.json.bak.")


def data_dir() -> Path:
    """The data directory: ``$CAIRN_DATA_DIR`` or the platform's user data dir. Created on demand."""
    override = os.environ.get("CAIRN_DATA_DIR")
    if override:
        path = Path(override).expanduser()
    else:
        import platformdirs

        path = Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    _make_own_folder(path, "data")  # a new one is its owner's alone
    return path


def _make_own_folder(path: Path, what: str) -> None:
    """Create ``path`` 0700 (with its parents); ConfigError saying what to do when that is impossible (a home
    folder that does not exist or is not ours: ``nobody``'s /nonexistent, a read-only home)."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"Cairn cannot make its {what} folder {path}: {exc.strerror or exc}.",
                          hint="Set CAIRN_DATA_DIR to a folder you can write (settings and data then live there), "
                          "or run Cairn as a user with a home folder.") from exc


def config_dir() -> Path:
    """Settings live beside the data when ``CAIRN_DATA_DIR`` is set (tests, portable installs)."""
    override = os.environ.get("CAIRN_DATA_DIR")
    if override:
        return data_dir()
    import platformdirs

    path = Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))
    _make_own_folder(path, "settings")
    return path


def settings_path() -> Path:
    return config_dir() / "settings.json"


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
    # Shared insights between agents (off until the person turns it on): see core/insights.
    sharing_enabled: bool = False
    agent_id: str | None = None  # None: a stable id derived from this machine and data dir (never the user name)
    insight_store: str = "jsonl"
    insight_url: str | None = None  # a folder (jsonl), PostgreSQL URL (pgvector) or Milvus URI/file; None: default
    insight_ttl_days: float = 30.0

    def with_env(self) -> Settings:
        """``OLLAMA_HOST`` wins over the saved host (that is how Ollama's own tools read it), when it is a URL."""
        host = os.environ.get("OLLAMA_HOST")
        if not host:
            return self
        checker, allowed = _SCHEMA["ollama_host"]
        try:
            return replace(self, ollama_host=checker(host)[0])
        except _Bad:
            logger.warning("OLLAMA_HOST=%s is not usable (%s); using %s from the settings instead.",
                           _shown(host), allowed, self.ollama_host)
            return self

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        """The saved settings; a bad key is reported (logged) and replaced by its default.

        Raises ConfigError only when the file as a whole cannot be used (not JSON, not an object).
        """
        check = check_settings(path)
        if check.unreadable:
            raise ConfigError(check.unreadable, hint=SETTINGS_FIX_HINT)
        if check.unknown:
            logger.warning("ignoring unknown settings: %s", ", ".join(check.unknown))
        for problem in check.problems:
            logger.warning("%s: %s", check.path.name, problem)
        if check.problems:
            logger.warning("%s", SETTINGS_FIX_HINT)
        return check.settings

    def save(self, path: Path | None = None) -> None:
        """Atomic write-and-rename, so a crash never leaves half a settings file.

        A file on disk that had problems (bad keys, not JSON) is copied to ``settings.json.bak`` first: the
        person may still want what was in it.
        """
        path = path or settings_path()
        if self.insight_url and _has_password(self.insight_url):
            raise ConfigError(
                "The shared-insights store URL holds a password; Cairn does not write passwords into its settings.",
                hint="Leave the password out of the URL and put it in ~/.pgpass (or PGPASSFILE).",
            )
        if self.memory_store_uri and _has_password(self.memory_store_uri):
            raise ConfigError(
                "The memory store URL holds a password; Cairn does not write passwords into its settings.",
                hint="Leave the password out of memory_store_uri and put it in ~/.pgpass (or PGPASSFILE), "
                "which PostgreSQL's client reads by itself.",
            )
        current = check_settings(path)
        if current.exists and not current.clean:
            backup_file(path)
        write_json_atomic(path, asdict(self))


# -- the schema ------------------------------------------------------------------------------------------------


class _Bad(Exception):
    """A value the schema does not allow (internal: turned into a SettingProblem)."""


# A checker returns the cleaned value and what it left out of a partly bad container (key, value, allowed);
# it raises _Bad when the value as a whole is not allowed.
Dropped = list[tuple[str, Any, str]]
Checker = Callable[[Any], tuple[Any, Dropped]]


def _whole(lo: int, hi: int) -> tuple[Checker, str]:
    def check(value: Any) -> tuple[Any, Dropped]:
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise _Bad
        return value, []

    return check, f"a whole number from {lo:,} to {hi:,}"


def _seconds(lo: float, hi: float) -> tuple[Checker, str]:
    def check(value: Any) -> tuple[Any, Dropped]:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _Bad
        if not math.isfinite(value) or not lo <= value <= hi:
            raise _Bad
        return float(value), []

    return check, f"a number of seconds from {lo:g} to {hi:,.0f}"


def _is_name(value: Any, max_len: int = 500) -> bool:
    """Text a person could type: non-empty, printable (no control or bidi characters, no lone surrogates)."""
    return isinstance(value, str) and 0 < len(value) <= max_len and value.strip() == value and all(
        ch.isprintable() for ch in value)


def _text(max_len: int, *, optional: bool = False, spaces: bool = True) -> tuple[Checker, str]:
    def check(value: Any) -> tuple[Any, Dropped]:
        if value is None and optional:
            return None, []
        if not _is_name(value, max_len) or (not spaces and any(ch.isspace() for ch in value)):
            raise _Bad
        return value, []

    what = f"text of at most {max_len} printable characters" + ("" if spaces else " without spaces")
    return check, what + (", or null" if optional else "")


def _choice(*options: str) -> tuple[Checker, str]:
    def check(value: Any) -> tuple[Any, Dropped]:
        if not isinstance(value, str) or value not in options:
            raise _Bad
        return value, []

    return check, "one of " + ", ".join(f'"{o}"' for o in options)


def _url(schemes: tuple[str, ...], *, optional: bool = False, bare_host: bool = False) -> tuple[Checker, str]:
    def check(value: Any) -> tuple[Any, Dropped]:
        if value is None and optional:
            return None, []
        if not _is_name(value, 2000) or any(ch.isspace() for ch in value):
            raise _Bad
        text = value if "://" in value or not bare_host else f"{schemes[0]}://{value}"
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018 - raises ValueError for a port that is not a number from 0 to 65535
        except ValueError as exc:
            raise _Bad from exc
        if parts.scheme.lower() not in schemes or (bare_host and not parts.hostname):
            raise _Bad
        return value, []

    example = {"http": "http://127.0.0.1:11434", "postgresql": "postgresql://user@host/dbname"}[schemes[0]]
    return check, f"a {schemes[0]}:// URL such as {example}" + (", or null" if optional else "")


_NAME = "printable text"


def _name_list(value: Any, where: str) -> tuple[list[str], Dropped]:
    if not isinstance(value, list):
        raise _Bad
    kept = [v for v in value if _is_name(v)]
    dropped = [(f"{where}[{i}]", v, _NAME) for i, v in enumerate(value) if not _is_name(v)]
    return kept, dropped


def _users(value: Any) -> tuple[Any, Dropped]:
    return _name_list(value, "users")


def _hidden(value: Any) -> tuple[Any, Dropped]:
    if not isinstance(value, dict):
        raise _Bad
    out: dict[str, list[str]] = {}
    dropped: Dropped = []
    for db, names in value.items():
        where = f"hidden[{_shown(db)}]"
        if not _is_name(db, 4000):
            dropped.append((where, names, "a database id in printable text"))
            continue
        try:
            out[db], bad = _name_list(names, where)
        except _Bad:
            dropped.append((where, names, 'a list of "table" or "table.column" names'))
            continue
        dropped.extend(bad)
    return out, dropped


_SCHEMA: dict[str, tuple[Checker, str]] = {
    "model": _text(200, spaces=False),
    "ollama_host": _url(("http", "https"), bare_host=True),
    "llm_timeout_s": _seconds(TIMEOUT_MIN_S, TIMEOUT_MAX_S),
    "num_ctx": _whole(256, 1_048_576),
    "row_cap": _whole(1, ROW_CAP_MAX),
    "statement_timeout_s": _seconds(TIMEOUT_MIN_S, TIMEOUT_MAX_S),
    "repair_rounds": _whole(0, 10),
    "memory_store": _choice("pgvector", "json"),
    "memory_store_uri": _url(("postgresql", "postgres"), optional=True),
    "theme": _choice("system", "light", "dark"),
    "font_size": _whole(0, 72),
    "users": (_users, "a list of user names (text)"),
    "last_user": _text(200, optional=True),
    "last_connection": _text(500, optional=True),
    "hidden": (_hidden, 'an object of database id -> list of "table" or "table.column" names'),
    "sharing_enabled": (lambda v: (_flag(v), []), "true or false"),
    "agent_id": _text(100, optional=True, spaces=False),
    "insight_store": _choice("jsonl", "pgvector", "milvus"),
    "insight_url": _text(2000, optional=True),
    "insight_ttl_days": (lambda v: (_days(v), []), "a number of days from 0.01 to 3,650"),
}


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Bad
    return value


def _days(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0.01 <= value <= 3650:
        raise _Bad
    return float(value)


def _shown(value: Any, limit: int = 60) -> str:
    """A short, printable rendering of a value from the file (never the whole of a huge one)."""
    try:
        text = json.dumps(value, ensure_ascii=True, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class SettingProblem:
    """One key of settings.json that was not used, what it held and what is allowed."""

    key: str
    value: str
    allowed: str
    default: str = ""

    def __str__(self) -> str:
        using = f"; using the default {self.default}" if self.default else "; left out"
        return f"{self.key} = {self.value} is not allowed ({self.allowed}){using}."


@dataclass(frozen=True)
class SettingsCheck:
    """What :func:`check_settings` found: the usable settings and every problem of the file."""

    path: Path
    settings: Settings
    exists: bool = False
    problems: tuple[SettingProblem, ...] = ()
    unknown: tuple[str, ...] = ()
    unreadable: str | None = None  # why the file as a whole cannot be used

    @property
    def clean(self) -> bool:
        return self.unreadable is None and not self.problems and not self.unknown


def setting_problem(key: str, value: Any) -> str | None:
    """What the setting ``key`` must be when ``value`` cannot be it ("a http:// URL such as …"); None when it can."""
    checker, allowed = _SCHEMA[key]
    try:
        checker(value)
    except _Bad:
        return allowed
    return None


def check_settings(path: Path | None = None) -> SettingsCheck:
    """Read and check settings.json key by key; never raises. A missing file is clean defaults."""
    path = path or settings_path()
    raw, unreadable = _read_raw(path)
    if raw is None:
        return SettingsCheck(path, Settings(), exists=unreadable is not None, unreadable=unreadable)
    defaults = asdict(Settings())
    values: dict[str, Any] = {}
    problems: list[SettingProblem] = []
    for key, value in raw.items():
        if key not in _SCHEMA:
            continue
        checker, allowed = _SCHEMA[key]
        try:
            values[key], dropped = checker(value)
        except _Bad:
            problems.append(SettingProblem(key, _shown(value), allowed, _shown(defaults[key])))
            continue
        problems.extend(SettingProblem(where, _shown(bad), what) for where, bad, what in dropped)
    unknown = tuple(sorted(str(k) for k in raw if k not in _SCHEMA))
    return SettingsCheck(path, Settings(**values), exists=True, problems=tuple(problems), unknown=unknown)


def _read_raw(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(the file's object, None), (None, None) when there is no file, or (None, why it cannot be used)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError) as exc:
        return None, f"Could not read settings file {path}: {getattr(exc, 'strerror', None) or exc}."
    if len(data) > MAX_SETTINGS_BYTES:
        return None, f"The settings file {path} is over {MAX_SETTINGS_BYTES // 1024 // 1024} MB; it cannot be settings."
    try:
        raw = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return None, f"Could not read settings file {path}: {reason}."
    if not isinstance(raw, dict):
        return None, f"The settings file {path} holds a JSON {type(raw).__name__}, not an object of settings."
    return raw, None


def fix_settings(path: Path | None = None, *, reset: bool = False) -> tuple[SettingsCheck, Path | None]:
    """Rewrite settings.json with the good keys kept and defaults for the bad ones (all defaults with
    ``reset``), after copying the old file aside. Returns what was found and the backup (None if no file)."""
    path = path or settings_path()
    check = check_settings(path)
    backup = backup_file(path) if check.exists else None
    (Settings() if reset else check.settings).save(path)
    return check, backup


def backup_file(path: Path) -> Path:
    """Copy ``path`` to ``<name>.bak`` (or a timestamped ``.bak-…`` when a different one is there), mode 0600."""
    data = path.read_bytes()
    backup = path.with_name(path.name + ".bak")
    if backup.exists():
        try:
            if backup.read_bytes() == data:
                return backup
        except OSError:
            pass
        backup = path.with_name(f"{path.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
    _write_bytes_atomic(backup, data)
    logger.info("kept a copy of %s at %s", path.name, backup)
    return backup


def _has_password(url: str) -> bool:
    from urllib.parse import parse_qs

    try:
        parts = urlsplit(url)
        return bool(parts.password) or "password" in parse_qs(parts.query)
    except ValueError:
        return "password" in url.lower()


def write_json_atomic(path: Path, payload: Any) -> None:
    """Temp file, fsync, rename, fsync the directory: a crash leaves the old file or the new one, whole.

    Text that cannot be encoded as UTF-8 (a lone surrogate) is written as a JSON escape instead of failing.
    """
    text = json.dumps(payload, indent=2, ensure_ascii=False)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = json.dumps(payload, indent=2, ensure_ascii=True).encode("ascii")
    _write_bytes_atomic(path, data)


def _write_bytes_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
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
