"""Stable, password-free database ids and redacted URLs, so secrets never reach logs, memory keys or screens."""

from __future__ import annotations

import getpass
import logging
import os
import re
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

from core.errors import ConfigError

__all__ = [
    "POSTGRES_SCHEMES",
    "FILES_PREFIX",
    "SQLITE_PREFIX",
    "TARGET_FORMS_HINT",
    "parse_postgres_url",
    "postgres_id",
    "redact_url",
    "sqlite_id",
    "sqlite_path_from_target",
]

logger = logging.getLogger(__name__)

POSTGRES_SCHEMES = ("postgresql", "postgres")
SQLITE_PREFIX = "sqlite:///"
FILES_PREFIX = "duckdb:///"  # data files, a folder of them or a DuckDB file, read through DuckDB
TARGET_FORMS_HINT = (
    "Use a PostgreSQL URL such as postgresql://user:password@host:5432/dbname, the path of a SQLite or DuckDB "
    "file, or data files: a .csv, .tsv, .parquet, .json or .xlsx file, or a folder of them."
)
_REDACTED = "***"
_SECRET_KEYS = {"password", "sslpassword"}
_SECRET_PARAM_RE = re.compile(r"(?i)\b(password|sslpassword)=([^&#\s]*)")


def parse_postgres_url(url: str) -> dict[str, str]:
    """libpq's own reading of a postgresql:// URL (query parameters win, as in libpq).

    A URL that does not parse, or names a port that is not a number from 1 to 65535, is a ConfigError whose
    message never holds the password (libpq quotes the bad token, which may be the password itself).
    """
    from psycopg.conninfo import conninfo_to_dict

    shown = redact_url(url)
    if "://" in url:
        try:
            urlsplit(url)  # raises ValueError for unbalanced or non-IPv6 brackets (libpq may accept them)
        except ValueError as exc:
            raise ConfigError(
                f"Cannot read the PostgreSQL URL {shown}: the host or port part is malformed "
                "(brackets are only for IPv6 addresses such as [::1]; %-escape them in a password as %5B and %5D).",
                hint=TARGET_FORMS_HINT,
            ) from exc
    try:
        params = conninfo_to_dict(url)
    except Exception as exc:  # psycopg.ProgrammingError for malformed URIs
        raise ConfigError(
            f"Cannot read the PostgreSQL URL {shown}: {_without_secrets(str(exc).strip(), url)}", hint=TARGET_FORMS_HINT
        ) from exc
    out = {k: str(v) for k, v in params.items() if v is not None}
    for port in (p.strip() for p in out.get("port", "").split(",")):
        if port and not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
            raise ConfigError(f"The port {port!r} in {shown} is not a number from 1 to 65535.",
                              hint=TARGET_FORMS_HINT)
    return out


def _secrets_of(url: str) -> list[str]:
    """Every text in ``url`` that may be a password, read by hand (works on URLs that do not parse)."""
    found: list[str] = []
    rest = url.split("://", 1)[1] if "://" in url else url
    if "@" in rest:
        userinfo = rest.rsplit("@", 1)[0]
        if ":" in userinfo:
            found.append(userinfo.split(":", 1)[1])
    found += [m.group(2) for m in _SECRET_PARAM_RE.finditer(url)]
    out = [s for s in found if s]
    return out + [unquote(s) for s in out if unquote(s) != s]


def _without_secrets(text: str, url: str) -> str:
    """``text`` unless it quotes a password of ``url``; then a generic reason."""
    if any(secret in text for secret in _secrets_of(url)):
        return "it is malformed (check the user:password@host:port part and any %-escapes)."
    return text


def postgres_id(url: str) -> str:
    """``postgresql://user@host:port/dbname`` with libpq's defaults filled in; never a password.

    A Unix-socket host is shown as its directory, e.g. ``postgresql://postgres@/run/pg:5432/sales``.
    """
    params = parse_postgres_url(url)
    user = params.get("user") or os.environ.get("PGUSER") or _os_user()
    host = params.get("host") or params.get("hostaddr") or os.environ.get("PGHOST") or "localhost"
    port = params.get("port") or os.environ.get("PGPORT") or "5432"
    dbname = params.get("dbname") or os.environ.get("PGDATABASE") or user
    host_shown = host if host.startswith("/") else quote(host, safe=".-_:[],")
    return f"postgresql://{quote(user, safe='')}@{host_shown}:{port}/{quote(dbname, safe='')}"


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no passwd entry in some containers
        return "postgres"


def sqlite_path_from_target(target: str) -> Path:
    """The file a SQLite target names: a plain path or ``sqlite:///relative`` / ``sqlite:////absolute``."""
    raw = target[len(SQLITE_PREFIX) :] if target.startswith(SQLITE_PREFIX) else target
    if not raw:
        raise ConfigError("The SQLite URL names no file.", hint=TARGET_FORMS_HINT)
    return Path(raw).expanduser().resolve()


def sqlite_id(path: Path) -> str:
    """``sqlite:///`` + the resolved absolute path (so absolute paths give four slashes, as SQLAlchemy)."""
    return SQLITE_PREFIX + str(path.resolve())


def redact_url(url: str) -> str:
    """The URL or conninfo string with every password replaced by ``***``, for showing to people."""
    if "://" not in url:
        if "=" in url and any(k in url.lower() for k in _SECRET_KEYS):
            return _redact_keyword_conninfo(url)
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return _redact_by_hand(url)  # unreadable as a URL: redact the text itself, never show a secret
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hostport = netloc.rpartition("@")
        if ":" in userinfo:
            user = userinfo.split(":", 1)[0]
            netloc = f"{user}:{_REDACTED}@{hostport}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(k.lower() in _SECRET_KEYS for k, _ in pairs):
            query = urlencode(
                [(k, _REDACTED if k.lower() in _SECRET_KEYS else v) for k, v in pairs], safe="/*"
            )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _redact_by_hand(url: str) -> str:
    """``scheme://user:***@rest`` and ``password=***`` for a URL ``urlsplit`` refuses."""
    scheme, _, rest = url.partition("://")
    if "@" in rest:
        userinfo, _, hostpart = rest.rpartition("@")
        if ":" in userinfo:
            rest = f"{userinfo.split(':', 1)[0]}:{_REDACTED}@{hostpart}"
    return _SECRET_PARAM_RE.sub(lambda m: f"{m.group(1)}={_REDACTED}", f"{scheme}://{rest}")


def _redact_keyword_conninfo(conninfo: str) -> str:
    """``host=x password='s e' user=y`` -> ``host=x password=*** user=y`` (libpq keyword/value form)."""
    out: list[str] = []
    i, n = 0, len(conninfo)
    while i < n:
        if conninfo[i].isspace():
            out.append(conninfo[i])
            i += 1
            continue
        eq = conninfo.find("=", i)
        if eq < 0:
            out.append(conninfo[i:])
            break
        key = conninfo[i:eq].strip()
        j = eq + 1
        while j < n and conninfo[j].isspace():
            j += 1
        if j < n and conninfo[j] == "'":  # quoted value, backslash escapes
            k = j + 1
            while k < n and conninfo[k] != "'":
                k += 2 if conninfo[k] == "\\" else 1
            end = min(k + 1, n)
        else:
            end = j
            while end < n and not conninfo[end].isspace():
                end += 1
        value = _REDACTED if key.lower() in _SECRET_KEYS else conninfo[j:end]
        out.append(f"{conninfo[i:eq]}={value}")
        i = end
    return "".join(out)
