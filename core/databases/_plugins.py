"""Database backends from other packages: a class implementing ``Database``, registered under the entry-point group
``cairn.databases``, found when a target no built-in backend reads is opened, and listed by ``cairn doctor``.

A plugin package (say ``cairn-mssql``) declares in its ``pyproject.toml``::

    [project.entry-points."cairn.databases"]
    mssql = "cairn_mssql:MssqlDatabase"

and its class has ``accepts(target) -> bool`` (a classmethod: "mssql://…"), a constructor taking the target, the
``Database`` protocol (``dialect``, ``id``, ``schema``, ``execute`` read-only under ``QueryLimits`` with
cancellation, ``close``), and a dialect known to ``core.dialects`` (``register_dialect`` at import). The contract
its tests run is ``tests/backend_contract.py`` (writes refused without the guard, caps, timeout, cancel).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points

from core.databases._base import Database

__all__ = ["ENTRY_POINT_GROUP", "Backend", "BUILT_IN", "plugin_backends", "plugin_for"]

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "cairn.databases"


@dataclass(frozen=True)
class Backend:
    name: str
    reads: str  # what a person gives it, in words
    origin: str  # "built in", or the package the plugin comes from
    factory: Callable[[str], Database] | None = None  # plugins: the class (built-ins are opened by _open)
    accepts: Callable[[str], bool] | None = None
    error: str = ""  # a plugin that failed to load: why


BUILT_IN = (
    Backend("postgres", "postgresql:// URLs (and the embedded sample database)", "built in"),
    Backend("sqlite", "SQLite files", "built in"),
    Backend("mysql", "mysql:// and mariadb:// URLs (MySQL and MariaDB, through PyMySQL)", "built in"),
    Backend("files", "CSV, TSV, Excel, Parquet and JSON files, folders of them, DuckDB files (through DuckDB)",
            "built in"),
)


def plugin_backends() -> list[Backend]:
    """Every backend registered by an installed package; one that fails to load is listed with its error."""
    found = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        origin = point.dist.name if point.dist is not None else "unknown package"
        try:
            cls = point.load()
            accepts = getattr(cls, "accepts")
            found.append(Backend(point.name, str(getattr(cls, "reads", point.value)), origin, cls, accepts))
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not stop Cairn; doctor shows why
            logger.warning("database backend %s from %s failed to load: %s", point.name, origin, exc)
            found.append(Backend(point.name, point.value, origin, error=f"{type(exc).__name__}: {exc}"))
    return found


def plugin_for(target: str) -> Backend | None:
    """The first loaded plugin that accepts ``target``."""
    for backend in plugin_backends():
        if backend.accepts is None:
            continue
        try:
            if backend.accepts(target):
                return backend
        except Exception as exc:  # noqa: BLE001 - a plugin's bug is its own: try the next
            logger.warning("database backend %s failed on accepts(): %s", backend.name, exc)
    return None
