"""Managing the local Ollama: is it running, which models are there, pull one, import a GGUF file.

Separate from :mod:`core.llm._client` (which only asks questions) because these calls are long, stream progress
and must be cancellable. Talks through the official ``ollama`` client with ``trust_env=False`` so a proxy
in the environment never sees the traffic. The quick calls (status, list, loaded models) give up after
``timeout_s`` in total, whatever the server does; pulls and imports are long by design and keep their own
per-read timeout and cancellation.
"""

from __future__ import annotations

import hashlib
import logging
import platform
import queue
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

# Imported with this module, on purpose: a first import of pydantic-based modules on a worker thread can crash
# under PySide6's import hook, and these calls always run on worker threads (the window imports this module on
# its GUI thread first: desktop/models/ollama_watch.py).
import httpx
import ollama

from core.cancellation import Cancellation
from core.errors import InputError, LLMError, LLMTimeout, LLMUnavailable, ModelNotFound, QueryCancelled
from core.llm._client import ModelInfo
from core.llm._deadline import ClientPool, total_timeout_s

__all__ = ["GGUF_MAGIC", "LoadedModel", "OllamaAdmin", "OllamaStatus", "PullProgress", "install_hint"]

logger = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"
# Pulls and imports stream for minutes and Ollama may stay quiet while it verifies a big file.
LONG_READ_S = 600.0
QUICK_TIMEOUT_S = 10.0
_HASH_CHUNK = 1024 * 1024
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*(:[a-z0-9_][a-z0-9._-]{0,127})?$", re.I)
_DONE = object()


@dataclass(frozen=True)
class OllamaStatus:
    """Whether Ollama answers at ``host``; ``message`` says what to do when it does not."""

    running: bool
    version: str | None
    host: str
    message: str


@dataclass(frozen=True)
class LoadedModel:
    """A model Ollama holds in memory now (/api/ps)."""

    name: str
    size_bytes: int
    vram_bytes: int
    expires_at: datetime | None = None


@dataclass(frozen=True)
class PullProgress:
    """One progress line of a pull or import; ``fraction`` is overall (0..1) or None while unknown."""

    status: str
    completed: int | None = None
    total: int | None = None
    fraction: float | None = None


def install_hint(host: str, system: str | None = None) -> str:
    """How to get Ollama running on this OS, in one or two sentences."""
    system = system or platform.system()
    if system == "Linux":
        install = "install it with `curl -fsSL https://ollama.com/install.sh | sh`"
    elif system == "Darwin":
        install = "install the Ollama app from https://ollama.com/download (or `brew install ollama`)"
    else:
        install = "install Ollama from https://ollama.com/download"
    return (f"Ollama is not running at {host}. If it is not installed, {install}; then start it with "
            "`ollama serve` (or open the Ollama app) and refresh.")


class OllamaAdmin:
    """Administration calls on one Ollama server. Every method raises Cairn errors only."""

    def __init__(self, host: str, *, timeout_s: float = QUICK_TIMEOUT_S) -> None:
        self.host = host
        self.timeout_s = timeout_s  # in total for a quick call; per connect/read for the long ones
        self._quick_clients = ClientPool(lambda hooks: self._make_client(self._quick_s(), event_hooks=hooks))

    # ----- quick calls ------------------------------------------------------------------------------------------

    def status(self) -> OllamaStatus:
        """Never raises for an absent server: the answer says how to install or start it."""
        try:
            with self._errors():
                data = self._quick(lambda client: client._request_raw("GET", "/api/version").json())
        except LLMUnavailable:
            return OllamaStatus(False, None, self.host, install_hint(self.host))
        except LLMError as exc:
            return OllamaStatus(False, None, self.host, f"{exc} {exc.hint}")
        version = str(data.get("version") or "") or None
        return OllamaStatus(True, version, self.host, f"Ollama {version or '(unknown version)'} is running.")

    def list_models(self) -> list[ModelInfo]:
        with self._errors():
            listed = self._quick(lambda client: client.list())
        return sorted((_model_info(m) for m in listed.models), key=lambda m: m.name)

    def loaded_models(self) -> list[LoadedModel]:
        with self._errors():
            running = self._quick(lambda client: client.ps())
        return [LoadedModel(str(m.model or m.name or ""), int(m.size or 0), int(m.size_vram or 0), m.expires_at)
                for m in running.models]

    def close(self) -> None:
        self._quick_clients.close()

    # ----- pull -------------------------------------------------------------------------------------------------

    def pull(self, name: str, *, cancel: Cancellation,
             on_progress: Callable[[PullProgress], None]) -> None:
        """Download ``name``; raises QueryCancelled as soon as ``cancel`` fires (Ollama keeps finished parts)."""
        name = _check_name(name)
        client = self._long_client()
        try:
            with self._errors(model=name):
                totals: dict[str, int] = {}
                done: dict[str, int] = {}
                for part in _cancellable(client.pull(name, stream=True), cancel):
                    on_progress(_progress(part, totals, done))
        except QueryCancelled:
            logger.info("pull of %s cancelled", name)
            raise QueryCancelled(f"Stopped downloading {name}.",
                                 hint="Pull it again to resume; Ollama keeps the parts already downloaded.") from None
        finally:
            client.close()

    # ----- GGUF import ------------------------------------------------------------------------------------------

    def import_gguf(self, path: Path, name: str, *, on_progress: Callable[[PullProgress], None],
                    cancel: Cancellation | None = None) -> str:
        """Create model ``name`` from a local GGUF file (air-gapped machines). Returns the model name."""
        name = _check_name(name)
        path = Path(path)
        size = check_gguf(path)
        cancel = cancel or Cancellation()
        try:
            self._import(path, name, size, cancel, on_progress)
        except QueryCancelled:
            logger.info("import of %s cancelled", path)
            raise QueryCancelled(f"Stopped importing {path.name}.",
                                 hint="Nothing was imported; start the import again when ready.") from None
        on_progress(PullProgress("success", size, size, 1.0))
        return name

    def _import(self, path: Path, name: str, size: int, cancel: Cancellation,
                on_progress: Callable[[PullProgress], None]) -> None:
        """Hash (cancellable, with progress), upload the blob, then stream /api/create."""
        digest = _sha256(path, size, cancel, on_progress)
        client = self._long_client()
        try:
            with self._errors(model=name):
                on_progress(PullProgress(f"uploading {path.name}", 0, size, None))
                uploaded = client.create_blob(path)
                if uploaded != digest:
                    raise LLMError(f"{path.name} changed while it was being imported.",
                                   hint="Copy the file somewhere it is not being written to and import again.")
                on_progress(PullProgress(f"uploaded {path.name}", size, size, 1.0))
                filename = path.name if path.name.lower().endswith(".gguf") else f"{path.name}.gguf"
                stream = client.create(model=name, files={filename: digest}, stream=True)
                for part in _cancellable(stream, cancel):
                    on_progress(PullProgress(str(part.status or ""), None, None, None))
        finally:
            client.close()

    # ----- internals --------------------------------------------------------------------------------------------

    def _quick(self, fn: Callable[[Any], Any]) -> Any:
        """``fn(client)`` on a pooled client, within ``timeout_s`` in total (LLMTimeout after, the client cut)."""
        seconds = self._quick_s()
        return self._quick_clients.call(
            fn, seconds, message=f"Ollama at {self.host} did not answer in time ({seconds:g} s).",
            hint="Check that Ollama is not stuck; restart it and try again.")

    def _quick_s(self) -> float:
        return total_timeout_s(self.timeout_s, QUICK_TIMEOUT_S)

    def _long_client(self) -> Any:
        """A client of its own per long call, so closing it (to cancel) never disturbs the quick calls."""
        quick = self._quick_s()
        timeout = httpx.Timeout(LONG_READ_S, connect=quick, pool=quick)
        return self._make_client(timeout)

    def _make_client(self, timeout: Any, event_hooks: dict[str, list[Any]] | None = None) -> Any:
        return ollama.Client(host=self.host, timeout=timeout, trust_env=False, event_hooks=event_hooks or {})

    def _errors(self, model: str | None = None) -> _AdminErrors:
        return _AdminErrors(self.host, model)


def check_gguf(path: Path) -> int:
    """Size of ``path`` when it is a readable GGUF file; InputError saying what is wrong otherwise."""
    if not path.is_file():
        raise InputError(f"{path} does not exist or is not a file.", hint="Choose a .gguf model file.")
    try:
        with path.open("rb") as fh:
            magic = fh.read(4)
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"Cannot read {path}: {exc.strerror or exc}.",
                         hint="Check that the file is readable.") from exc
    if magic != GGUF_MAGIC:
        raise InputError(f"{path.name} is not a GGUF model file.",
                         hint="Ollama imports .gguf files (e.g. from Hugging Face); convert other formats first.")
    return size


def _check_name(name: str) -> str:
    name = name.strip()
    if not _NAME_RE.match(name):
        raise InputError(f"{name!r} is not a valid model name.",
                         hint="Use a name like qwen2.5-coder:7b (letters, digits, '.', '-', '_', one ':tag').")
    return name


def _sha256(path: Path, size: int, cancel: Cancellation, on_progress: Callable[[PullProgress], None]) -> str:
    hasher, read, reported = hashlib.sha256(), 0, -1
    with path.open("rb") as fh:
        while chunk := fh.read(_HASH_CHUNK):
            cancel.raise_if_cancelled()
            hasher.update(chunk)
            read += len(chunk)
            percent = read * 100 // max(size, 1)
            if percent != reported:
                reported = percent
                on_progress(PullProgress(f"checking {path.name}", read, size, read / max(size, 1)))
    return f"sha256:{hasher.hexdigest()}"


def _progress(part: Any, totals: dict[str, int], done: dict[str, int]) -> PullProgress:
    """Overall fraction across every layer seen so far (the weights layer comes first and dominates)."""
    status = str(part.status or "")
    completed, total = part.completed, part.total
    if part.digest and total:
        totals[part.digest] = int(total)
        done[part.digest] = int(completed or 0)
    fraction = sum(done.values()) / sum(totals.values()) if totals else None
    if status == "success":
        fraction = 1.0
    return PullProgress(status, completed, total, fraction)


def _cancellable(stream: Iterator[Any], cancel: Cancellation) -> Iterator[Any]:
    """Yield ``stream``'s items, read on a helper thread, so a cancel takes effect at once.

    A blocked socket read cannot be interrupted from another thread; once the caller closes its client
    the reader thread ends at the server's next line (or disconnect), while the caller moves on now.
    """
    items: queue.Queue[Any] = queue.Queue()
    stop = threading.Event()

    def read() -> None:
        try:
            for item in stream:
                if stop.is_set():
                    break
                items.put(item)
            items.put(_DONE)
        except BaseException as exc:  # noqa: BLE001 - handed to the consuming thread
            items.put(exc)
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()

    unregister = cancel.register(lambda: items.put(_DONE if stop.is_set() else QueryCancelled("Cancelled.")))
    reader = threading.Thread(target=read, name="ollama-stream", daemon=True)
    reader.start()
    try:
        while True:
            cancel.raise_if_cancelled()
            item = items.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        unregister()


def _model_info(m: Any) -> ModelInfo:
    details = m.details
    return ModelInfo(name=str(m.model or ""), size_bytes=int(m.size or 0),
                     parameter_size=str(getattr(details, "parameter_size", "") or ""),
                     quantization=str(getattr(details, "quantization_level", "") or ""))


class _AdminErrors:
    """Maps the ollama client's and httpx's exceptions onto Cairn's error tree."""

    def __init__(self, host: str, model: str | None) -> None:
        self.host = host
        self.model = model

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if exc is None or isinstance(exc, LLMError | InputError | QueryCancelled):
            return

        if isinstance(exc, ollama.ResponseError):
            text = str(exc.error)
            if self.model and ("file does not exist" in text or "not found" in text.lower()):
                raise ModelNotFound(f"Ollama could not find {self.model!r}: {text}",
                                    hint="Check the name and tag on https://ollama.com/library.") from exc
            raise LLMError(f"Ollama answered with an error: {text}") from exc
        if isinstance(exc, httpx.TimeoutException):
            raise LLMTimeout(f"Ollama at {self.host} did not answer in time.",
                             hint="Check that Ollama is not stuck; restart it and try again.") from exc
        if isinstance(exc, ConnectionError | httpx.TransportError):
            raise LLMUnavailable(f"Ollama is not reachable at {self.host}.", hint=install_hint(self.host)) from exc
        if isinstance(exc, OSError):
            raise LLMError(f"Could not read or send the file: {exc}") from exc
