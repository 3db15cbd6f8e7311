"""A real HTTP server on 127.0.0.1 that speaks the Ollama REST API, scripted by tests.

Why a server and not a mock: the product talks to Ollama through the official ``ollama`` client (httpx),
so the wire format, status codes, NDJSON streaming, client disconnects and timeouts are exercised for real.
Shapes follow the real server (ollama/server/routes.go) as the ``ollama`` 0.6.x client reads them.
Nothing here makes outbound connections.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import socket
import socketserver
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

logger = logging.getLogger(__name__)

ChatReply = str | Callable[[dict[str, Any]], str]
_DIGEST_RE = re.compile(r"^sha256[:-]([0-9a-f]{64})$")
_TEMPLATE = "{{ if .System }}<|im_start|>system\n{{ .System }}<|im_end|>\n{{ end }}{{ .Prompt }}"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _norm(name: str) -> str:
    """Ollama treats ``llama3`` as ``llama3:latest`` and names case-insensitively."""
    name = name.strip().lower()
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _hex(*parts: object) -> str:
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()


def fake_embedding(text: str, dims: int = 384) -> list[float]:
    """Deterministic unit vector by feature hashing of words, so texts sharing words are similar."""
    vec = [0.0] * dims
    for token in re.findall(r"\w+", text.lower()) or [text]:
        h = hashlib.sha256(token.encode()).digest()
        vec[int.from_bytes(h[:4], "big") % dims] += 1.0 if h[4] & 1 else -1.0
        vec[int.from_bytes(h[5:9], "big") % dims] += 0.5 if h[9] & 1 else -0.5
    norm = math.sqrt(sum(v * v for v in vec))
    if norm == 0.0:
        vec[0], norm = 1.0, 1.0
    return [v / norm for v in vec]


@dataclass(frozen=True)
class FakeModel:
    """One installed (or pullable) model as /api/tags, /api/show and /api/ps describe it."""

    name: str
    size: int = 4_683_087_332
    parameter_size: str = "7.6B"
    quantization_level: str = "Q4_K_M"
    family: str = "qwen2"
    capabilities: tuple[str, ...] = ("completion", "tools", "insert")
    context_length: int = 32768
    digest: str = ""
    modified_at: str = field(default_factory=_now)
    system: str = ""
    template: str = _TEMPLATE
    parameters: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.digest:
            object.__setattr__(self, "digest", _hex("model", _norm(self.name), self.size))

    def details(self) -> dict[str, Any]:
        return {"parent_model": "", "format": "gguf", "family": self.family, "families": [self.family],
                "parameter_size": self.parameter_size, "quantization_level": self.quantization_level}

    def tag_entry(self) -> dict[str, Any]:
        return {"name": self.name, "model": self.name, "modified_at": self.modified_at, "size": self.size,
                "digest": self.digest, "details": self.details()}

    def layers(self) -> list[tuple[str, int]]:
        """(digest, size) of the blobs a pull downloads: weights, template, license, params."""
        small = [("template", 1482), ("license", 11343), ("params", 148)]
        weights = max(self.size - sum(s for _, s in small), 1)
        return [(f"sha256:{_hex('layer', self.digest, kind)}", size) for kind, size in [("weights", weights), *small]]


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received; ``json`` is the parsed body (None for blobs/empty bodies)."""

    method: str
    path: str
    json: Any
    body_size: int
    headers: dict[str, str]


def _default_chat(body: dict[str, Any]) -> str:
    return "SELECT 1"


class FakeOllama:
    """Scriptable fake Ollama: ``with FakeOllama() as s: ollama.Client(host=s.url).chat(...)``."""

    def __init__(self, version: str = "0.12.6") -> None:
        self.version = version
        self.models: list[FakeModel] = [FakeModel("qwen2.5-coder:7b")]
        self.registry: dict[str, FakeModel] = {_norm(m.name): m for m in _default_registry()}
        self.blobs: dict[str, bytes] = {}
        self.loaded: set[str] = set()
        self.default_chat: Callable[[dict[str, Any]], str] = _default_chat
        # A request for structured output (``format``: the second reading of a preference) is answered by this
        # and never takes a queued reply; None answers "" (not JSON), so the rules' reading stands.
        self.format_chat: Callable[[dict[str, Any]], str] | None = None
        self.chat_delay_s = 0.0
        self.chat_chunk_delay_s = 0.0
        # not None: a streamed chat/generate sends this many tokens, then an NDJSON {"error": ...} line
        # (the model runner failing mid-reply); a non-streamed one answers 500 with the message
        self.chat_fail_after_chunks: int | None = None
        self.chat_fail_message = "llama runner process has terminated: signal: killed"
        # > 0: chat/generate send their headers at once, then the body one byte every chat_drip_s seconds
        # (a stuck or throttled server: each read gets a byte in time, so no per-read timeout ever fires).
        self.chat_drip_s = 0.0
        # Cut replies at the request's num_predict (a word a token) with done_reason "length", as Ollama does;
        # off by default, so tests of a server that ignores the limit keep their huge replies.
        self.honour_num_predict = False
        self.pull_chunks = 5
        self.pull_chunk_delay_s = 0.0
        self.pull_fail_after_chunks: int | None = None
        self.embed_dims = 384
        self.cancelled_streams = 0
        self._replies: deque[ChatReply] = deque()
        self._errors: dict[str, deque[tuple[int, str]]] = {}
        self._requests: list[RecordedRequest] = []
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # ----- lifecycle -------------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeOllama is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> FakeOllama:
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fake-ollama", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting, cut open connections (idle keep-alives, streams) and join every thread."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        threads = server.close_all_connections()
        server.server_close()
        for thread in [*threads, self._thread]:
            if thread is not None:
                thread.join(timeout=5)
                if thread.is_alive():
                    logger.warning("fake Ollama thread %s did not stop", thread.name)

    def __enter__(self) -> FakeOllama:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ----- scripting API ----------------------------------------------------------------------------------------

    def add_model(self, name: str, **kwargs: Any) -> FakeModel:
        """Install a model (replacing one of the same name); kwargs are FakeModel fields."""
        model = FakeModel(name, **kwargs)
        with self._lock:
            self.models[:] = [m for m in self.models if _norm(m.name) != _norm(name)] + [model]
        return model

    def remove_model(self, name: str) -> bool:
        with self._lock:
            before = len(self.models)
            self.models[:] = [m for m in self.models if _norm(m.name) != _norm(name)]
            self.loaded.discard(_norm(name))
            return len(self.models) != before

    def add_pullable(self, name: str, **kwargs: Any) -> FakeModel:
        """Make ``name`` known to the fake registry so /api/pull can download it."""
        model = FakeModel(name, **kwargs)
        with self._lock:
            self.registry[_norm(name)] = model
        return model

    def find_model(self, name: str) -> FakeModel | None:
        with self._lock:
            return next((m for m in self.models if _norm(m.name) == _norm(name)), None)

    def enqueue_chat(self, content: ChatReply) -> None:
        """Queue a reply (text, or a callable of the request body) for the next /api/chat or /api/generate."""
        with self._lock:
            self._replies.append(content)

    def enqueue_error(self, status: int, message: str, path: str = "/api/chat") -> None:
        """Make the next request to ``path`` fail with ``{"error": message}`` and this HTTP status."""
        with self._lock:
            self._errors.setdefault(path, deque()).append((status, message))

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str, method: str | None = None) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == path and (method is None or r.method == method)]

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r.json for r in self.requests_to("/api/chat", "POST")]

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    # ----- internals used by the handler ------------------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _pop_error(self, path: str) -> tuple[int, str] | None:
        with self._lock:
            queue = self._errors.get(path)
            return queue.popleft() if queue else None

    def _next_reply(self, body: dict[str, Any]) -> str:
        if body.get("format") not in (None, ""):
            return self.format_chat(body) if self.format_chat is not None else ""
        with self._lock:
            reply = self._replies.popleft() if self._replies else self.default_chat
        return reply(body) if callable(reply) else reply

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless the server stops meanwhile; True when it is stopping."""
        return self._stopping.wait(seconds) if seconds > 0 else self._stopping.is_set()

    def _mark_loaded(self, model: FakeModel, body: dict[str, Any]) -> None:
        with self._lock:
            if body.get("keep_alive") in (0, "0", "0s", "0m"):
                self.loaded.discard(_norm(model.name))
            else:
                self.loaded.add(_norm(model.name))


def _default_registry() -> list[FakeModel]:
    coder = [("1.5b", 986_061_892, "1.5B"), ("3b", 1_929_912_432, "3.1B"), ("7b", 4_683_087_332, "7.6B"),
             ("14b", 8_988_124_069, "14.8B"), ("32b", 19_851_336_256, "32.8B")]
    return [*(FakeModel(f"qwen2.5-coder:{tag}", size=size, parameter_size=ps) for tag, size, ps in coder),
            FakeModel("nomic-embed-text:latest", size=274_302_450, parameter_size="137M", quantization_level="F16",
                      family="nomic-bert", capabilities=("embedding",), context_length=2048),
            FakeModel("all-minilm:latest", size=45_960_996, parameter_size="23M", quantization_level="F16",
                      family="bert", capabilities=("embedding",), context_length=512)]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fake: FakeOllama) -> None:
        self.fake = fake
        self._conns: dict[socket.socket, threading.Thread] = {}
        self._conns_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn (a reverse DNS lookup); skip it.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]

    def process_request(self, request: Any, client_address: Any) -> None:
        # one named daemon thread per connection, so tests can check that none outlive stop()
        threading.Thread(target=self.process_request_thread, args=(request, client_address),
                         name="fake-ollama-conn", daemon=True).start()

    def track(self, conn: socket.socket, alive: bool) -> None:
        with self._conns_lock:
            if alive:
                self._conns[conn] = threading.current_thread()
            else:
                self._conns.pop(conn, None)

    def close_all_connections(self) -> list[threading.Thread]:
        with self._conns_lock:
            conns = dict(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        return list(conns.values())

    def handle_error(self, request: Any, client_address: Any) -> None:
        logger.debug("fake Ollama: error serving %s", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # headers and body go out in separate writes; without this Nagle + delayed ACK add ~40 ms per request
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.track(self.connection, True)
        if self.server.fake._stopping.is_set():  # accepted just as stop() cut the others
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def finish(self) -> None:
        self.server.track(self.connection, False)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        logger.debug("fake Ollama: " + format, *args)

    def do_GET(self) -> None:
        self._dispatch()

    do_POST = do_HEAD = do_DELETE = do_PUT = do_GET

    # ----- body and response helpers ----------------------------------------------------------------------------

    def iter_body(self) -> Iterator[bytes]:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            while True:
                size = int(self.rfile.readline(1024).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return
                yield self.rfile.read(size)
                self.rfile.readline(8)
        remaining = int(self.headers.get("Content-Length") or 0)
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 65536))
            if not chunk:
                raise ConnectionError("client closed the connection mid-body")
            remaining -= len(chunk)
            yield chunk

    def send_json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json; charset=utf-8")

    def send_error_json(self, status: int, message: str) -> None:
        self.send_json(status, {"error": message})

    def _send(self, status: int, data: bytes, content_type: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except OSError:
            self.close_connection = True

    def drip(self, status: int, data: bytes, content_type: str, interval_s: float) -> None:
        """Headers now, then ``data`` one byte at a time ``interval_s`` apart; stops when the client goes."""
        fake = self.server.fake
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.flush()
            for i in range(len(data)):
                if fake._sleep(interval_s):
                    break
                self.wfile.write(data[i : i + 1])
                self.wfile.flush()
        except OSError:
            with fake._lock:
                fake.cancelled_streams += 1
        self.close_connection = True

    def start_stream(self) -> None:
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
        except OSError:  # the next stream_line notices and counts the disconnect
            self.close_connection = True

    def stream_line(self, obj: Any) -> bool:
        """Write one NDJSON line as an HTTP chunk; False (and counted) once the client has gone."""
        data = (json.dumps(obj) + "\n").encode()
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            return True
        except OSError:
            self.close_connection = True
            with self.server.fake._lock:
                self.server.fake.cancelled_streams += 1
            return False

    def end_stream(self) -> None:
        try:
            self.wfile.write(b"0\r\n\r\n")
        except OSError:
            self.close_connection = True

    # ----- routing ----------------------------------------------------------------------------------------------

    def _dispatch(self) -> None:
        path = self.path.split("?", 1)[0]
        fake = self.server.fake
        try:
            if path.startswith("/api/blobs/"):
                self._blob(fake, path.removeprefix("/api/blobs/"))
                return
            raw = b"".join(self.iter_body())
        except (OSError, ValueError):
            self.close_connection = True
            return
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError as exc:
                fake._record(RecordedRequest(self.command, path, None, len(raw), self._headers()))
                self.send_error_json(400, f"invalid request body: {exc}")
                return
        fake._record(RecordedRequest(self.command, path, body, len(raw), self._headers()))
        route = _ROUTES.get((self.command, path))
        if route is None:
            self._send(404, b"404 page not found", "text/plain")
            return
        if not isinstance(body, dict):
            if self.command in ("POST", "DELETE"):
                self.send_error_json(400, "missing request body")
                return
            body = {}
        if error := fake._pop_error(path):
            self.send_error_json(*error)
            return
        try:
            route(fake, self, body)
        except Exception as exc:  # a scripted reply raised: surface it like a server error
            logger.debug("fake Ollama route %s failed", path, exc_info=True)
            self.send_error_json(500, str(exc))

    def _headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def _blob(self, fake: FakeOllama, digest: str) -> None:
        match = _DIGEST_RE.match(digest)
        if self.command == "HEAD":
            fake._record(RecordedRequest("HEAD", self.path, None, 0, self._headers()))
            with fake._lock:
                present = match is not None and f"sha256:{match.group(1)}" in fake.blobs
            self._send(200 if present else 404, b"", "text/plain")
            return
        if self.command != "POST":
            self._send(404, b"404 page not found", "text/plain")
            return
        hasher, chunks = hashlib.sha256(), []
        for chunk in self.iter_body():
            hasher.update(chunk)
            chunks.append(chunk)
        data = b"".join(chunks)
        fake._record(RecordedRequest("POST", self.path, None, len(data), self._headers()))
        if match is None:
            self.send_error_json(400, "invalid digest format")
            return
        expected, got = f"sha256:{match.group(1)}", f"sha256:{hasher.hexdigest()}"
        if got != expected:
            self.send_error_json(400, f"digest mismatch, expected {expected}, got {got}")
            return
        with fake._lock:
            existed = expected in fake.blobs
            fake.blobs[expected] = data
        self._send(200 if existed else 201, b"", "text/plain")


# ----- endpoints -------------------------------------------------------------------------------------------------

_STATS = {"total_duration": 412_000_000, "load_duration": 21_000_000, "prompt_eval_duration": 80_000_000,
          "eval_duration": 300_000_000}


_MAX_STREAM_CHUNKS = 1000


def _tokens(text: str) -> list[str]:
    return re.findall(r"\s*\S+|\s+", text) or [""]


def _fail(h: _Handler, stream: bool, status: int, message: str) -> None:
    """Errors found after the request was accepted: an NDJSON error line when streaming, else a status."""
    if stream:
        h.start_stream()
        h.stream_line({"error": message})
        h.end_stream()
    else:
        h.send_error_json(status, message)


def _root(fake: FakeOllama, h: _Handler, body: dict[str, Any]) -> None:
    h._send(200, b"Ollama is running", "text/plain; charset=utf-8")


def _version(fake: FakeOllama, h: _Handler, body: dict[str, Any]) -> None:
    h.send_json(200, {"version": fake.version})


def _tags(fake: FakeOllama, h: _Handler, body: dict[str, Any]) -> None:
    with fake._lock:
        h.send_json(200, {"models": [m.tag_entry() for m in fake.models]})


def _show(fake: FakeOllama, h: _Handler, body: dict[str, Any]) -> None:
    name = body.get("model") or body.get("name") or ""
    model = fake.find_model(name)
    if model is None:
        h.send_error_json(404, f"model '{name}' not found")
        return
    params = "\n".join(f"{k:<30} {json.dumps(v) if isinstance(v, str) else v}" for k, v in model.parameters.items())
    info = {"general.architecture": model.family, "general.parameter_count": 0,
            f"{model.family}.context_length": model.context_length}
    modelfile = f"FROM {model.name}\nTEMPLATE \"\"\"{model.template}\"\"\"\n"
    modelfile += f"SYSTEM \"\"\"{model.system}\"\"\"\n" if model.system else ""
    modelfile += "".join(f"PARAMETER {k} {v}\n" for k, v in model.parameters.items())
    h.send_json(200, {"license": "Apache License 2.0", "modelfile": modelfile, "parameters": params,
                      "template": model.template, "system": model.system, "details": model.details(),
                      "model_info": info, "capabilities": list(model.capabilities),
                      "modified_at": model.modified_at})


def _ps(fake: FakeOllama, h: _Handler, body: dict[str, Any]) -> None:
    expires = (datetime.now(timezone.utc) + timedelta(minutes=5)).isoformat()
    with fake._lock:
        running = [m for m in fake.models if _norm(m.name) in fake.loaded]
    h.send_json(200, {"models": [{**m.tag_entry(), "expires_at": expires, "size_vram": m.size,
                                  "context_length": 4096} for m in running]})


def _chat(fake: FakeOllama, h: _Handler, body: dict[str, Any]) -> None:
    _complete(fake, h, body, "message")


def _generate(fake: FakeOllama, h: _Handler, body: dict[str, Any]) -> None:
    _complete(fake, h, body, "response")


def _complete(fake: FakeOllama, h: _Handler, body: dict[str, Any], kind: str) -> None:
    """/api/chat (kind "message") and /api/generate (kind "response"): same reply queue, same streaming."""
    name = body.get("model") or ""
    if not name:
        h.send_error_json(400, "model is required")
        return
    model = fake.find_model(name)
    if model is None:
        h.send_error_json(404, f'model "{name}" not found, try pulling it first')
        return
    stream = body.get("stream", True) is not False
    prompt = body.get("messages") if kind == "message" else body.get("prompt")

    def piece(text: str) -> dict[str, Any]:
        payload: Any = {"role": "assistant", "content": text} if kind == "message" else text
        return {"model": name, "created_at": _now(), kind: payload}

    fake._mark_loaded(model, body)
    if not prompt:  # an empty request just loads (or, with keep_alive 0, unloads) the model
        reason = "unload" if name and _norm(name) not in fake.loaded else "load"
        h.send_json(200, {**piece(""), "done_reason": reason, "done": True})
        return
    if fake._sleep(fake.chat_delay_s):
        h.close_connection = True
        return
    content = fake._next_reply(body)
    prompt_words = len(re.findall(r"\S+", json.dumps(prompt)))
    tokens = _tokens(content)
    limit = (body.get("options") or {}).get("num_predict")
    cut = fake.honour_num_predict and isinstance(limit, int) and 0 < limit < len(tokens)
    if cut:  # as Ollama does: generation stops at num_predict tokens, and the final chunk says why
        tokens = tokens[:limit]
        content = "".join(tokens)
    final = {"done_reason": "length" if cut else "stop", "done": True, **_STATS, "prompt_eval_count": prompt_words,
             "eval_count": len(tokens)}
    if kind == "response":
        final["context"] = list(range(1, prompt_words + len(tokens) + 1))
    if stream and len(tokens) > _MAX_STREAM_CHUNKS:
        # a huge reply (only a server ignoring num_predict sends one) streams several tokens per chunk, so a
        # 400,000-word reply is 1,000 chunks, not 400,000; the joined text is the same
        size = -(-len(tokens) // _MAX_STREAM_CHUNKS)
        tokens = ["".join(tokens[i : i + size]) for i in range(0, len(tokens), size)]
    if fake.chat_drip_s > 0:
        if stream:
            lines = [{**piece(token), "done": False} for token in tokens] + [{**piece(""), **final}]
            body = "".join(json.dumps(line) + "\n" for line in lines).encode()
            h.drip(200, body, "application/x-ndjson", fake.chat_drip_s)
        else:
            h.drip(200, json.dumps({**piece(content), **final}).encode(), "application/json; charset=utf-8",
                   fake.chat_drip_s)
        return
    fail_after = fake.chat_fail_after_chunks
    if not stream:
        if fail_after is not None:
            h.send_error_json(500, fake.chat_fail_message)
            return
        h.send_json(200, {**piece(content), **final})
        return
    h.start_stream()
    for sent, token in enumerate(tokens):
        if fail_after is not None and sent >= fail_after:
            _fail_midway(h, stream, fake.chat_fail_message)
            return
        if not h.stream_line({**piece(token), "done": False}):
            return
        if fake._sleep(fake.chat_chunk_delay_s):
            return
    if h.stream_line({**piece(""), **final}):
        h.end_stream()


def _embed(fake: FakeOllama, h: _Handler, body: dict[str, Any]) -> None:
    name = body.get("model") or ""
    model = fake.find_model(name)
    if model is None:
        h.send_error_json(404, f'model "{name}" not found, try pulling it first')
        return
    fake._mark_loaded(model, body)
    inputs = body.get("input", body.get("prompt", ""))
    texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
    dims = int(body.get("dimensions") or fake.embed_dims)
    vectors = [fake_embedding(t, fake.embed_dims) for t in texts]
    if dims < fake.embed_dims:  # Matryoshka-style truncation, renormalised like the real server
        vectors = [[x / (math.sqrt(sum(y * y for y in v[:dims])) or 1.0) for x in v[:dims]] for v in vectors]
    if h.path == "/api/embeddings":  # the deprecated single-prompt endpoint
        h.send_json(200, {"embedding": vectors[0] if vectors else []})
        return
    h.send_json(200, {"model": name, "embeddings": vectors, "total_duration": 14_000_000,
                      "load_duration": 1_000_000, "prompt_eval_count": sum(len(t.split()) for t in texts)})


def _pull(fake: FakeOllama, h: _Handler, body: dict[str, Any]) -> None:
    name = body.get("model") or body.get("name") or ""
    stream = body.get("stream", True) is not False
    with fake._lock:
        source = fake.registry.get(_norm(name))
    if source is None:
        if stream:
            h.start_stream()
            if h.stream_line({"status": "pulling manifest"}):
                h.stream_line({"error": "pull model manifest: file does not exist"})
                h.end_stream()
        else:
            h.send_error_json(500, "pull model manifest: file does not exist")
        return

    def lines() -> Iterator[dict[str, Any]]:
        yield {"status": "pulling manifest"}
        for digest, total in source.layers():
            status = {"status": f"pulling {digest[7:19]}", "digest": digest, "total": total}
            chunks = max(fake.pull_chunks, 1) if total > 1_000_000 else 1
            if chunks > 1:
                yield status
            for i in range(1, chunks + 1):
                yield {**status, "completed": total * i // chunks}
        for status in ("verifying sha256 digest", "writing manifest", "success"):
            yield {"status": status}

    if stream:
        h.start_stream()
    sent = 0
    for line in lines():
        if "completed" in line:
            if fake.pull_fail_after_chunks is not None and sent >= fake.pull_fail_after_chunks:
                _fail_midway(h, stream, "max retries exceeded: connection reset by peer")
                return
            sent += 1
            if fake._sleep(fake.pull_chunk_delay_s):
                h.close_connection = True
                return
        if line["status"] == "success":
            fake.add_model(source.name, **{k: getattr(source, k) for k in
                                           ("size", "parameter_size", "quantization_level", "family",
                                            "capabilities", "context_length", "digest")})
        if stream and not h.stream_line(line):
            return
    if stream:
        h.end_stream()
    else:
        h.send_json(200, {"status": "success"})


def _fail_midway(h: _Handler, stream: bool, message: str) -> None:
    if stream:
        if h.stream_line({"error": message}):
            h.end_stream()
    else:
        h.send_error_json(500, message)


def _create(fake: FakeOllama, h: _Handler, body: dict[str, Any]) -> None:
    name = body.get("model") or ""
    stream = body.get("stream", True) is not False
    files: dict[str, str] = body.get("files") or {}
    base_name = body.get("from")
    if not name:
        h.send_error_json(400, "invalid model name")
        return
    if not base_name and not files:
        h.send_error_json(400, "neither 'from' or 'files' was specified")
        return
    if any(p.startswith(("/", "\\")) or ".." in p.replace("\\", "/").split("/") for p in files):
        h.send_error_json(400, "file path must be relative")
        return
    with fake._lock:
        missing = [d for d in files.values() if d not in fake.blobs]
        size = sum(len(fake.blobs[d]) for d in files.values() if d in fake.blobs)
    base = fake.find_model(base_name) if base_name else None
    if missing:
        _fail(h, stream, 400, f"blob {missing[0]} does not exist; upload it first with /api/blobs")
        return
    if base_name and base is None:
        _fail(h, stream, 404, f"model '{base_name}' not found")
        return
    statuses = ["parsing GGUF", *(f"using existing layer {d}" for d in files.values())]
    if base is not None:
        statuses = [f"using existing layer sha256:{base.digest}"]
    quantize = body.get("quantize")
    if quantize:
        statuses.append(f"quantizing F16 model to {quantize.upper()}")
    for key in ("template", "system", "parameters", "license"):
        if body.get(key):
            statuses.append(f"creating new layer sha256:{_hex(key, json.dumps(body[key]))}")
    statuses += ["writing manifest", "success"]
    kwargs: dict[str, Any] = {
        "size": base.size if base else size,
        "parameter_size": base.parameter_size if base else "",
        "quantization_level": (quantize or "").upper() or (base.quantization_level if base else "F16"),
        "family": base.family if base else "unknown",
        "capabilities": base.capabilities if base else ("completion",),
        "system": body.get("system") or (base.system if base else ""),
        "template": body.get("template") or (base.template if base else _TEMPLATE),
        "parameters": {**(base.parameters if base else {}), **(body.get("parameters") or {})},
    }
    if not stream:
        fake.add_model(name, **kwargs)
        h.send_json(200, {"status": "success"})
        return
    h.start_stream()
    for status in statuses:
        if status == "success":
            fake.add_model(name, **kwargs)
        if not h.stream_line({"status": status}):
            return
    h.end_stream()


def _delete(fake: FakeOllama, h: _Handler, body: dict[str, Any]) -> None:
    name = body.get("model") or body.get("name") or ""
    if fake.remove_model(name):
        h._send(200, b"", "text/plain")
    else:
        h.send_error_json(404, f"model '{name}' not found")


def _copy(fake: FakeOllama, h: _Handler, body: dict[str, Any]) -> None:
    source = fake.find_model(body.get("source") or "")
    if source is None:
        h.send_error_json(404, f"model '{body.get('source')}' not found")
        return
    with fake._lock:
        copied = replace(source, name=body.get("destination") or "", modified_at=_now())
        fake.models[:] = [m for m in fake.models if _norm(m.name) != _norm(copied.name)] + [copied]
    h._send(200, b"", "text/plain")


_ROUTES: dict[tuple[str, str], Callable[[FakeOllama, _Handler, dict[str, Any]], None]] = {
    ("GET", "/"): _root, ("HEAD", "/"): _root,
    ("GET", "/api/version"): _version, ("GET", "/api/tags"): _tags, ("GET", "/api/ps"): _ps,
    ("POST", "/api/show"): _show, ("POST", "/api/chat"): _chat, ("POST", "/api/generate"): _generate,
    ("POST", "/api/embed"): _embed, ("POST", "/api/embeddings"): _embed, ("POST", "/api/pull"): _pull,
    ("POST", "/api/create"): _create, ("DELETE", "/api/delete"): _delete, ("POST", "/api/copy"): _copy,
}

__all__ = ["FakeModel", "FakeOllama", "RecordedRequest", "fake_embedding"]
