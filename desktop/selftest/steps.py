"""The five steps of ``cairn selftest`` and the network guard they run under (the runner is desktop/selftest/runner.py).

Each step takes the shared :class:`Run` and returns a one-line detail (OK), raises :class:`Skipped` (SKIPPED,
with why) or raises anything else (FAILED, with its message). The steps use the objects a person's session
uses — ``Services``, the assistant, the memory bank, ``MainWindow`` — so what passes here is what the bundle
gives a person, not a mock-up of it.
"""

from __future__ import annotations

import ipaddress
import math
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from core.composition import Services
from core.config import Settings
from core.text import counted

__all__ = ["USER", "BlockedConnection", "NetworkGuard", "Run", "Skipped", "StepFailed", "STEPS", "Step"]

USER = "selftest"
QUESTION = "How many customers are there?"
MEMORY = "Always show me customers from India"
RELATED = "Show me the customers who ordered last month"
WINDOW_TIMEOUT_S = 60.0


class Skipped(Exception):
    """The step did not run, and that is allowed (no model given): SKIPPED, never OK."""


class StepFailed(Exception):
    """A check that did not hold; the message is the one-line reason."""


class BlockedConnection(PermissionError):
    """Raised inside the self-test when something tries to reach a non-loopback address."""


def _is_local(host: object) -> bool:
    if host is None:
        return True
    text = (host.decode("utf-8", "replace") if isinstance(host, bytes) else str(host)).strip().strip("[]").lower()
    if text in ("", "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"):
        return True
    try:
        return ipaddress.ip_address(text.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


class NetworkGuard:
    """Refuses, in this process, every connection that is not loopback, a Unix socket or the Ollama host the
    person gave in ``OLLAMA_HOST``; name look-ups of other hosts too. It patches ``socket.socket.connect`` /
    ``connect_ex``, ``socket.create_connection`` and ``socket.getaddrinfo`` (what urllib, httpx and the Hugging
    Face libraries use), so a bundle that would fetch the embedding model at run time fails here, offline.
    libpq connects in C, but only ever to the embedded server's Unix socket."""

    def __init__(self, allowed_hosts: tuple[str, ...] = ()) -> None:
        self.allowed = {h.strip("[]").lower() for h in allowed_hosts if h}
        self.blocked: list[str] = []
        self._saved: dict[str, Any] = {}

    def allows(self, host: object) -> bool:
        return _is_local(host) or str(host).strip("[]").lower() in self.allowed

    def check(self, address: object) -> None:
        if isinstance(address, (str, bytes)):  # AF_UNIX
            return
        host = address[0] if isinstance(address, tuple) and address else address
        if not self.allows(host):
            where = f"{host}:{address[1]}" if isinstance(address, tuple) and len(address) > 1 else str(host)
            self.blocked.append(where)
            raise BlockedConnection(f"network access blocked by cairn selftest: {where}")

    def __enter__(self) -> NetworkGuard:
        for host in list(self.allowed):  # the Ollama host by name: its addresses too, looked up before arming
            if not _is_local(host):
                try:
                    self.allowed |= {str(info[4][0]).lower() for info in socket.getaddrinfo(host, None)}
                except OSError:
                    pass
        guard, sock = self, socket.socket
        connect, connect_ex = sock.connect, sock.connect_ex
        create_connection, getaddrinfo = socket.create_connection, socket.getaddrinfo
        self._saved = {"connect": sock.__dict__.get("connect"), "connect_ex": sock.__dict__.get("connect_ex"),
                       "create_connection": create_connection, "getaddrinfo": getaddrinfo}

        def guarded_connect(self_: socket.socket, address: Any) -> Any:
            guard.check(address)
            return connect(self_, address)

        def guarded_connect_ex(self_: socket.socket, address: Any) -> Any:
            guard.check(address)
            return connect_ex(self_, address)

        def guarded_create_connection(address: Any, *args: Any, **kwargs: Any) -> Any:
            guard.check(address)
            return create_connection(address, *args, **kwargs)

        def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
            guard.check((host,))
            return getaddrinfo(host, *args, **kwargs)

        sock.connect, sock.connect_ex = guarded_connect, guarded_connect_ex  # type: ignore[method-assign]
        socket.create_connection = guarded_create_connection  # type: ignore[assignment]
        socket.getaddrinfo = guarded_getaddrinfo  # type: ignore[assignment]
        return self

    def __exit__(self, *_exc: object) -> None:
        for name in ("connect", "connect_ex"):
            if self._saved.get(name) is None:
                delattr(socket.socket, name)  # back to the C method it inherits
            else:
                setattr(socket.socket, name, self._saved[name])
        socket.create_connection = self._saved["create_connection"]
        socket.getaddrinfo = self._saved["getaddrinfo"]


@dataclass
class Run:
    """What the steps share: the temporary data dir, the settings and the services built over them."""

    data_dir: Path
    settings: Settings
    ollama_host: str | None  # OLLAMA_HOST as given; None: not set
    require_model: bool
    services: Services
    passed: set[str] = field(default_factory=set)
    model_ok: bool = False


def ollama_hostname(url: str | None) -> str | None:
    if not url:
        return None
    return urlsplit(url if "://" in url else f"http://{url}").hostname


# -- the steps ------------------------------------------------------------------------------------------------


def step_database(run: Run) -> str:
    """The bundled PostgreSQL (and pgvector) start in the temporary data dir; the sample database is created."""
    server = run.services.embedded()
    if not server.root.is_relative_to(run.data_dir.resolve()):  # never the person's own data directory
        raise StepFailed(f"the embedded server would use {server.root}, not the temporary folder")
    server.start()
    pipeline = run.services.pipeline(None)  # creates the sample database, then connects as the read-only role
    names = {t.name for t in pipeline.load_schema().tables}
    if not {"customers", "orders"} <= names:
        raise StepFailed(f"the sample database has tables {sorted(names)}, not customers and orders")
    store = run.services.store()
    describe = store.describe() if hasattr(store, "describe") else type(store).__name__
    if "pgvector" not in describe:
        raise StepFailed(f"the memory store is not pgvector on the embedded server ({describe})")
    version = (server.pgdata / "PG_VERSION").read_text().strip()
    return f"PostgreSQL {version} + pgvector; sample database with {len(names)} tables; memory store ready"


def step_embedder(run: Run) -> str:
    """MiniLM from its wheel, with the network blocked: one sentence, 384 finite dimensions of unit length."""
    from core.memory import EMBEDDING_DIMS, embed_one

    embedder = run.services.embedder()
    vector = embed_one(embedder, QUESTION)
    shape = tuple(getattr(vector, "shape", ()))
    if shape != (EMBEDDING_DIMS,):
        raise StepFailed(f"the embedding has shape {shape}, not ({EMBEDDING_DIMS},)")
    values = [float(v) for v in vector]
    norm = math.sqrt(sum(v * v for v in values))
    if not all(math.isfinite(v) for v in values) or abs(norm - 1.0) > 1e-3:
        raise StepFailed(f"the embedding is not a finite unit vector (norm {norm:.4f})")
    return f"{getattr(embedder, 'model_id', type(embedder).__name__)}: {EMBEDDING_DIMS} dims, offline"


def step_model(run: Run) -> str:
    """One question answered through Ollama — OLLAMA_HOST, else the local default the app itself uses — as ``cairn
    ask`` does; skipped (a failure with ``--require-model``) when no Ollama answers or its model is missing."""

    def unavailable(reason: str) -> Exception:
        return StepFailed(f"{reason} (--require-model)") if run.require_model else Skipped(reason)

    from core.llm import OllamaAdmin

    host, model = run.settings.ollama_host, run.settings.model
    admin = OllamaAdmin(host)
    try:
        status = admin.status()
        if not status.running:
            raise unavailable(f"no Ollama answers at {host}")
        names = [m.name for m in admin.list_models()]
    finally:
        admin.close()
    if not any(_same_model(model, name) for name in names):
        listed = ", ".join(names[:5]) or "none"
        raise unavailable(f"model {model} is not installed at {host} (it has: {listed}); pass --model NAME")
    reply = run.services.assistant(None).handle(USER, QUESTION)
    answer = reply.answer
    if answer is None:
        raise StepFailed(f"the question was taken as a {reply.route.kind}, not answered: {reply.error or reply.text}")
    if not answer.ok:
        raise StepFailed(f"no answer: {answer.error}")
    run.model_ok = True
    return f"{model} at {host}: {counted(answer.row_count, 'row')}, SQL by {answer.path}"


def _same_model(wanted: str, name: str) -> bool:
    def norm(n: str) -> str:
        n = n.strip().lower()
        return n if ":" in n.rsplit("/", 1)[-1] else f"{n}:latest"

    return norm(wanted) == norm(name)


def step_memory(run: Run) -> str:
    """A memory stored (through the assistant with a model, else the memory bank) and recalled for a question."""
    from core.memory import describe_form

    assistant = run.services.assistant(None)
    if run.model_ok:
        reply = assistant.handle(USER, MEMORY)
        stored = [m for change in reply.changes for m in change.after]
        if reply.error or not stored:
            raise StepFailed(f"the assistant stored nothing: {reply.error or reply.text}")
        how = "the assistant"
    else:
        _report, memory = run.services.bank().remember(USER, "preference", MEMORY,
                                                       database_id=assistant.database_id)
        stored, how = [memory], "the memory bank"
    recall = assistant.recall(USER, RELATED)
    ids = {m.id for m in stored}
    hits = [r for r in recall.memories if r.memory.id in ids]
    if not hits:
        got = "; ".join(r.memory.content for r in recall.memories) or "nothing"
        raise StepFailed(f'"{RELATED}" recalled {got}, not the stored memory')
    form = describe_form(dict(hits[0].memory.structured or {}), hits[0].memory.category)
    return f"stored through {how} ({form}); recalled as a {hits[0].kind}"


def step_window(run: Run) -> str:
    """The main window opens offscreen over the temporary dirs, reports its database ready, and closes."""
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    previous = qInstallMessageHandler(_qt_message)
    try:
        return _open_window(run, QApplication.instance() or QApplication(["cairn"]))
    finally:
        qInstallMessageHandler(previous)


def _qt_message(_mode: Any, _context: Any, message: str) -> None:
    """Qt's messages to stderr as usual, less the offscreen platform's one about size hints (it says nothing)."""
    if "propagateSizeHints" not in message:
        sys.stderr.write(message + "\n")


def _open_window(run: Run, app: Any) -> str:
    from core.config import config_dir
    from core.databases import ConnectionStore, open_secret_store
    from core.history import QuestionHistory
    from desktop.shell.app import AppContext, app_icon, apply_theme
    from desktop.shell.main_window import MainWindow
    from desktop.toolkit.workers import wait_for_workers

    apply_theme(app, run.settings)  # the bundled style sheet
    icon = app_icon()
    if icon.isNull():
        raise StepFailed("the bundled icons could not be loaded")
    app.setWindowIcon(icon)
    context = AppContext(settings=run.settings, services=run.services,
                         history=QuestionHistory(run.data_dir / "history"),
                         connections=ConnectionStore(config_dir() / "connections.json"),
                         secrets=open_secret_store("session"))  # no keyring prompt for a self-test
    window = MainWindow(context, USER)
    context.windows.append(window)
    ready: list[Any] = []
    window.database_ready.connect(ready.append)
    started = time.perf_counter()
    window.show()
    window.start(None)
    _wait(app, lambda: bool(ready) or window.db_label.text() == "Database: not connected", WINDOW_TIMEOUT_S)
    waited = time.perf_counter() - started
    label, size = window.db_label.text(), window.size()
    window.close()
    wait_for_workers(5000)
    app.processEvents()
    window.deleteLater()
    app.processEvents()
    if not ready:
        raise StepFailed(f"the window's database was not ready after {waited:.0f}s ({label})")
    return f"opened {size.width()}x{size.height()}, database ready in {waited:.2f}s, closed"


def _wait(app: Any, done: Callable[[], bool], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not done() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)


@dataclass(frozen=True)
class Step:
    name: str
    title: str
    run: Callable[[Run], str]
    needs: tuple[str, ...] = ()


STEPS = (
    Step("database", "embedded PostgreSQL and the sample database", step_database),
    Step("embedder", "embedding model, network blocked", step_embedder),
    Step("model", "one question through Ollama (OLLAMA_HOST, else the local default)", step_model, ("database",)),
    Step("memory", "store a memory and recall it", step_memory, ("database", "embedder")),
    Step("window", "open and close the main window", step_window, ("database",)),
)
