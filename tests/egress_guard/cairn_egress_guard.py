"""A process-wide network guard for tests: every socket connect, UDP send and name lookup is checked.

Installed with ``sys.addaudithook`` (which cannot be removed, so the hook only records unless armed).
Loopback (127.0.0.0/8, ::1, ``localhost``) and Unix sockets are allowed; anything else is recorded and, when
the guard is armed, refused with :class:`EgressBlocked` before a byte leaves. libpq connects in C, out of
the audit hook's sight, so psycopg's ``Connection.connect`` is wrapped to check its host the same way.

Child processes load it through ``sitecustomize.py`` in this folder (put the folder on ``PYTHONPATH``); they
append JSON lines to ``$CAIRN_EGRESS_LOG`` so the parent test can read every attempt back.
"""

from __future__ import annotations

import atexit
import ipaddress
import json
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["EgressBlocked", "Guard", "TELEMETRY_MODULES", "install", "is_local_address", "is_local_host"]

LOG_ENV = "CAIRN_EGRESS_LOG"
ARM_ENV = "CAIRN_EGRESS_ARMED"
# Modules whose presence alone means something may phone home (crash reporters, product analytics).
TELEMETRY_MODULES = ("posthog", "sentry_sdk", "raven", "mixpanel", "segment", "analytics", "bugsnag",
                     "rollbar", "datadog", "ddtrace", "newrelic", "opentelemetry.exporter", "wandb", "comet_ml")
_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", ""}


class EgressBlocked(PermissionError):
    """Raised inside the code under test when it tries to reach a non-loopback address."""


def is_local_host(host: object) -> bool:
    """True for loopback literals, ``localhost``, a Unix-socket directory (libpq) and "no host" (default)."""
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("utf-8", "replace")
    text = str(host).strip().strip("[]")
    if text.lower() in _LOCAL_NAMES or text.startswith("/") or text.startswith("@"):
        return True
    try:
        return ipaddress.ip_address(text.split("%", 1)[0]).is_loopback
    except ValueError:
        return False  # a name other than localhost: resolving it would already be a lookup


def is_local_address(address: object) -> bool:
    """A socket address: a path (AF_UNIX, str/bytes) or a (host, port, ...) tuple."""
    if isinstance(address, (str, bytes, bytearray)):
        return True  # AF_UNIX path or abstract name
    if isinstance(address, tuple) and address:
        return is_local_host(address[0])
    return False  # unknown families (AF_NETLINK, AF_PACKET...) count as egress


class Guard:
    """Records every network attempt; when armed, refuses the non-local ones."""

    def __init__(self, log_path: str | None = None) -> None:
        self.log_path = log_path
        self.armed = False
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    @property
    def violations(self) -> list[dict[str, Any]]:
        return [e for e in self.events if not e["local"]]

    @contextmanager
    def arm(self) -> Iterator[Guard]:
        with self._lock:
            self.events.clear()
        self.armed = True
        try:
            yield self
        finally:
            self.armed = False

    def check(self, event: str, target: object, local: bool) -> None:
        record = {"event": event, "target": repr(target)[:300], "local": local, "pid": os.getpid()}
        with self._lock:
            self.events.append(record)
            if self.log_path:
                try:
                    with open(self.log_path, "a", encoding="utf-8") as fh:
                        fh.write(json.dumps(record) + "\n")
                except OSError:
                    pass
        if not local and self.armed:
            raise EgressBlocked(f"egress blocked by the test guard: {event} {target!r}")

    # -- the audit hook -------------------------------------------------------------------------------

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "socket.connect" or event == "socket.sendto" or event == "socket.bind":
            if event == "socket.bind":
                return  # binding a local port is not egress (the fake Ollama binds 127.0.0.1)
            self.check(event, args[1], is_local_address(args[1]))
        elif event == "socket.getaddrinfo":
            self.check(event, args[0], is_local_host(args[0]))
        elif event in ("socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr"):
            self.check(event, args[0], is_local_host(args[0]))

    def wrap_psycopg(self) -> None:
        """libpq opens its sockets in C: check the host of every psycopg connection instead."""
        try:
            import psycopg
            from psycopg.conninfo import conninfo_to_dict
        except ImportError:
            return
        original = psycopg.Connection.connect.__func__  # type: ignore[attr-defined]
        guard = self

        def connect(cls: Any, conninfo: str = "", **kwargs: Any) -> Any:
            try:
                params = conninfo_to_dict(conninfo, **kwargs)
            except Exception:  # noqa: BLE001 - let psycopg report its own error
                params = {}
            hosts = [h for h in str(params.get("hostaddr") or params.get("host") or "").split(",")]
            local = all(is_local_host(h) for h in hosts)
            guard.check("libpq.connect", ",".join(hosts) or "(default socket)", local)
            return original(cls, conninfo, **kwargs)

        psycopg.Connection.connect = classmethod(connect)  # type: ignore[method-assign,assignment]
        psycopg.connect = psycopg.Connection.connect  # the module alias was bound at import time


_installed: Guard | None = None


def install(log_path: str | None = None, *, armed: bool = False) -> Guard:
    """Installs the guard once per process (audit hooks are permanent) and returns it."""
    global _installed
    if _installed is None:
        _installed = Guard(log_path)
        sys.addaudithook(_installed.hook)
        _installed.wrap_psycopg()
        if log_path:
            atexit.register(_record_modules, _installed)
    if log_path:
        _installed.log_path = log_path
    _installed.armed = armed or _installed.armed
    return _installed


def _record_modules(guard: Guard) -> None:
    """At exit: which telemetry-ish modules were loaded, and whether HF was told to stay offline."""
    loaded = sorted(m for m in list(sys.modules) if any(m == t or m.startswith(t + ".") for t in TELEMETRY_MODULES))
    hub = sys.modules.get("huggingface_hub.constants")
    record = {"event": "exit", "pid": os.getpid(), "telemetry_modules": loaded, "local": True,
              "hf_hub_offline": getattr(hub, "HF_HUB_OFFLINE", None) if hub else None,
              "hf_env": os.environ.get("HF_HUB_OFFLINE")}
    if guard.log_path:
        try:
            with open(guard.log_path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(record) + "\n")
        except OSError:
            pass


def read_log(path: str) -> list[dict[str, Any]]:
    """The JSON lines child processes wrote."""
    try:
        with open(path, encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    except FileNotFoundError:
        return []
