"""Stop while the model has not sent a byte yet closes the connection to it at once (issue 30, item 5): a server
that accepts the request and stays silent sees the client go within a second of Stop, on a new connection and on
a kept-alive one."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from core.cancellation import Cancellation
from core.errors import QueryCancelled
from core.llm import OllamaLLM, cancellable


class SilentServer:
    """Answers the first ``answered`` requests (a keep-alive connection), then reads a request and says nothing;
    records when each connection was closed by the client."""

    def __init__(self, answered: int = 0) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.answered = answered
        self.closed_at: list[float] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._talk, args=(conn,), daemon=True).start()

    def _talk(self, conn: socket.socket) -> None:
        with conn:
            while True:
                request = self._read_request(conn)
                if request is None:
                    self.closed_at.append(time.monotonic())
                    return
                if self.answered > 0:
                    self.answered -= 1
                    body = b'{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant",' \
                           b'"content":"SELECT 1"},"done":true,"done_reason":"stop"}\n'
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
                                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
                    continue
                while conn.recv(4096):  # silent: wait for the client to go
                    pass
                self.closed_at.append(time.monotonic())
                return

    @staticmethod
    def _read_request(conn: socket.socket) -> bytes | None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(4096)
            if not chunk:
                return None
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length")), 0)
        while len(rest) < length:
            rest += conn.recv(4096)
        return head

    def close(self) -> None:
        self.sock.close()


@pytest.mark.parametrize("kept_alive", [False, True])
def test_stop_before_the_first_byte_closes_the_connection(kept_alive: bool) -> None:
    server = SilentServer(answered=1 if kept_alive else 0)
    try:
        llm = OllamaLLM(model="m", host=server.url, timeout_s=60)
        if kept_alive:
            assert "SELECT 1" in llm.chat("system", "first")  # the connection is pooled for the next call
        cancel = Cancellation()
        threading.Timer(0.5, cancel.cancel).start()
        stopped = time.monotonic()
        with pytest.raises(QueryCancelled), cancellable(cancel):
            llm.chat("system", "a question the model thinks about for a long time")
        assert time.monotonic() - stopped < 1.5
        deadline = time.monotonic() + 2.0
        while not server.closed_at and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.closed_at, "the connection to the model stayed open after Stop"
        assert server.closed_at[-1] - stopped < 1.5
    finally:
        server.close()
