"""A total deadline for calls to Ollama, whatever the server does.

httpx's timeouts are per operation: a server that sends one byte every few seconds, or its headers and then
nothing, never trips them. So each call runs on a helper thread and the caller waits at most the deadline; when
it passes, a watchdog cuts the call's HTTP client (shutting its socket down, so a blocked read ends at once,
then closing it) and the caller gets :class:`LLMTimeout`. A cut client is never used again.

A streamed reply is read to its end inside the call, so the deadline covers the whole stream, however steadily
its chunks arrive; Stop cuts a stream the same way.
"""

from __future__ import annotations

import logging
import math
import socket
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from core.cancellation import Cancellation
from core.errors import LLMTimeout, QueryCancelled

__all__ = ["MAX_TIMEOUT_S", "ClientPool", "Lease", "call_with_deadline", "total_timeout_s"]

logger = logging.getLogger(__name__)

T = TypeVar("T")
MAX_TIMEOUT_S = 3600.0  # an infinite or NaN timeout never switches the deadline off
_IDLE_CLIENTS = 4

ClientFactory = Callable[[dict[str, list[Callable[[Any], None]]]], Any]  # event hooks -> ollama.Client


def total_timeout_s(value: Any, default: float) -> float:
    """``value`` as a deadline in seconds: NaN, zero and negatives give ``default``, infinity the maximum."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return default
    if math.isnan(seconds) or seconds <= 0:
        return default
    return min(seconds, MAX_TIMEOUT_S)


def call_with_deadline(fn: Callable[[], T], seconds: float, *, on_expire: Callable[[], None],
                       message: str, hint: str, cancel: Cancellation | None = None) -> T:
    """``fn()``'s result or exception, or LLMTimeout(message, hint) after ``seconds`` (``on_expire`` first);
    QueryCancelled at once when ``cancel`` is cancelled (``on_expire`` first, so the server sees the call closed)."""
    box: dict[str, Any] = {}
    wake = threading.Event()  # the call ended, or Stop was pressed

    def work() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            box["error"] = exc
        finally:
            box["done"] = True
            wake.set()

    unregister = cancel.register(wake.set) if cancel is not None else None
    try:
        if cancel is None or not cancel.cancelled:
            threading.Thread(target=work, name="ollama-call", daemon=True).start()
            woke = wake.wait(seconds)
        else:
            woke = True
    finally:
        if unregister is not None:
            unregister()
    if not box.get("done"):
        on_expire()
        if woke:
            raise QueryCancelled("Stopped while the model was writing.", hint="Nothing was run; ask again any time.")
        raise LLMTimeout(message, hint=hint)
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


class Lease:
    """One ollama client, used by one call at a time, whose socket a watchdog can cut."""

    def __init__(self, make: ClientFactory) -> None:
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self.client = make({"request": [self._trace_connection], "response": [self._remember_socket]})

    def _trace_connection(self, request: Any) -> None:
        """httpx request hook: hear the new connection's socket as soon as it is open (httpcore's ``trace``
        extension), so Stop before the model's first byte closes it too; a kept-alive one is known already."""
        request.extensions["trace"] = self._on_trace

    def _on_trace(self, event: str, info: dict[str, Any]) -> None:
        if event in ("connection.connect_tcp.complete", "connection.connect_unix_socket.complete"):
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if isinstance(sock, socket.socket):
                with self._lock:
                    self._socket = sock

    def _remember_socket(self, response: Any) -> None:
        """httpx response hook: runs once the headers are in, before the body is read."""
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            with self._lock:
                self._socket = sock

    def cut(self) -> None:
        """End whatever this client is doing now: shut its socket down, then close it."""
        with self._lock:
            sock, self._socket = self._socket, None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes a read blocked in another thread
            except OSError:
                pass  # already closed
        self.close()

    def close(self) -> None:
        try:
            self.client.close()
        except Exception as exc:  # noqa: BLE001 - closing a client in use may complain; it is gone either way
            logger.debug("closing an Ollama client failed: %s", exc)


class ClientPool:
    """Idle clients kept for the next call (keep-alive); a cut one is dropped."""

    def __init__(self, make: ClientFactory) -> None:
        self._make = make
        self._idle: list[Lease] = []
        self._lock = threading.Lock()

    def acquire(self) -> Lease:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return Lease(self._make)

    def release(self, lease: Lease) -> None:
        with self._lock:
            if len(self._idle) < _IDLE_CLIENTS:
                self._idle.append(lease)
                return
        lease.close()

    def call(self, fn: Callable[[Any], T], seconds: float, *, message: str, hint: str,
             cancel: Cancellation | None = None) -> T:
        """``fn(client)`` on a pooled client within ``seconds`` in total; LLMTimeout (the client cut) after, and
        QueryCancelled (cut too) when ``cancel`` fires first."""
        lease = self.acquire()
        try:
            result = call_with_deadline(lambda: fn(lease.client), seconds, on_expire=lease.cut,
                                        message=message, hint=hint, cancel=cancel)
        except (LLMTimeout, QueryCancelled):
            lease.cut()  # cut already, or the call saw Stop between chunks itself: never reused either way
            raise
        except BaseException:
            self.release(lease)
            raise
        self.release(lease)
        return result

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for lease in idle:
            lease.close()
