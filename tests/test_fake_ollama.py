"""The fake Ollama server, driven through the real ``ollama`` client so its wire format is the real one."""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import ollama
import pytest

from tests.fakes.fake_ollama import FakeOllama, fake_embedding

MODEL = "qwen2.5-coder:7b"
USER = [{"role": "user", "content": "how many customers?"}]


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        yield fake


@pytest.fixture
def client(server: FakeOllama) -> Iterator[ollama.Client]:
    with ollama.Client(host=server.url, timeout=10) as c:
        yield c


def _wait_for(predicate: object, timeout_s: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.01)
    return False


def test_version_and_root(server: FakeOllama) -> None:
    assert httpx.get(f"{server.url}/api/version").json() == {"version": server.version}
    root = httpx.get(f"{server.url}/")
    assert root.status_code == 200 and root.text == "Ollama is running"
    assert httpx.get(f"{server.url}/api/nope").status_code == 404


def test_list_shows_default_and_added_models(client: ollama.Client, server: FakeOllama) -> None:
    server.add_model("tiny:1b", size=1234, parameter_size="1.2B", quantization_level="Q8_0")
    models = {m.model: m for m in client.list().models}
    assert set(models) == {MODEL, "tiny:1b"}
    assert models[MODEL].details is not None and models[MODEL].details.parameter_size == "7.6B"
    assert models["tiny:1b"].size == 1234 and models["tiny:1b"].details.quantization_level == "Q8_0"
    assert len(models[MODEL].digest or "") == 64


def test_show_returns_details_and_404_for_missing(client: ollama.Client) -> None:
    shown = client.show(MODEL)
    assert shown.details is not None and shown.details.family == "qwen2"
    assert shown.capabilities and "completion" in shown.capabilities
    assert shown.modelinfo and shown.modelinfo["qwen2.context_length"] == 32768
    with pytest.raises(ollama.ResponseError) as info:
        client.show("missing:1b")
    assert info.value.status_code == 404 and "not found" in info.value.error


def test_ps_lists_models_loaded_by_chat_and_unloads_with_keep_alive_zero(client: ollama.Client) -> None:
    assert client.ps().models == []
    client.chat(model=MODEL, messages=USER)
    assert [m.model for m in client.ps().models] == [MODEL]
    unloaded = client.chat(model=MODEL, messages=[], keep_alive=0)
    assert unloaded.done and unloaded.done_reason == "unload"
    assert client.ps().models == []


def test_chat_non_streaming_replies_from_queue_and_records_options(client: ollama.Client, server: FakeOllama) -> None:
    server.enqueue_chat("SELECT count(*) FROM customers")
    response = client.chat(model=MODEL, messages=USER, options={"temperature": 0, "num_ctx": 8192, "seed": 7},
                           keep_alive="10m")
    assert response.message.content == "SELECT count(*) FROM customers"
    assert response.done and response.done_reason == "stop" and response.eval_count
    [body] = server.chat_requests()
    assert body["options"] == {"temperature": 0, "num_ctx": 8192, "seed": 7}
    assert body["messages"] == USER and body["stream"] is False and body["keep_alive"] == "10m"


def test_chat_streaming_chunks_join_to_reply_then_done(client: ollama.Client, server: FakeOllama) -> None:
    server.enqueue_chat("SELECT name FROM customers WHERE city = 'Oslo'")
    parts = list(client.chat(model=MODEL, messages=USER, stream=True))
    assert len(parts) > 3
    assert all(not p.done for p in parts[:-1]) and parts[-1].done and parts[-1].done_reason == "stop"
    assert "".join(p.message.content or "" for p in parts) == "SELECT name FROM customers WHERE city = 'Oslo'"
    assert server.chat_requests()[0]["stream"] is True


def test_chat_callable_reply_and_default(client: ollama.Client, server: FakeOllama) -> None:
    server.enqueue_chat(lambda body: f"echo {body['messages'][-1]['content']}")
    assert client.chat(model=MODEL, messages=USER).message.content == "echo how many customers?"
    assert client.chat(model=MODEL, messages=USER).message.content == "SELECT 1"
    server.default_chat = lambda body: "SELECT 2"
    assert client.chat(model=MODEL, messages=USER).message.content == "SELECT 2"


def test_chat_unknown_model_is_404_like_the_real_server(client: ollama.Client) -> None:
    for stream in (False, True):
        with pytest.raises(ollama.ResponseError) as info:
            result = client.chat(model="nope:1b", messages=USER, stream=stream)
            list(result) if stream else None  # type: ignore[call-overload]
        assert info.value.status_code == 404
        assert info.value.error == 'model "nope:1b" not found, try pulling it first'


def test_enqueued_error_hits_next_chat_only(client: ollama.Client, server: FakeOllama) -> None:
    server.enqueue_error(500, "llama runner process has terminated")
    with pytest.raises(ollama.ResponseError) as info:
        client.chat(model=MODEL, messages=USER)
    assert info.value.status_code == 500 and "terminated" in info.value.error
    assert client.chat(model=MODEL, messages=USER).message.content == "SELECT 1"


def test_chat_delay_makes_client_time_out_and_server_survives(server: FakeOllama) -> None:
    server.chat_delay_s = 2.0
    with ollama.Client(host=server.url, timeout=0.2) as slow, pytest.raises(httpx.TimeoutException):
        slow.chat(model=MODEL, messages=USER)
    server.chat_delay_s = 0.0
    with ollama.Client(host=server.url) as c:
        assert c.chat(model=MODEL, messages=USER).message.content == "SELECT 1"


def test_generate_streams_and_not(client: ollama.Client, server: FakeOllama) -> None:
    server.enqueue_chat("SELECT 42")
    assert client.generate(model=MODEL, prompt="answer").response == "SELECT 42"
    parts = list(client.generate(model=MODEL, prompt="again", stream=True))
    assert "".join(p.response or "" for p in parts) == "SELECT 1" and parts[-1].done


def test_pull_streams_progress_to_success_and_installs(client: ollama.Client, server: FakeOllama) -> None:
    server.pull_chunks = 8
    parts = list(client.pull("qwen2.5-coder:3b", stream=True))
    assert parts[0].status == "pulling manifest"
    weights = [p for p in parts if p.digest == parts[1].digest and p.completed is not None]
    assert len(weights) == 8
    completed = [p.completed for p in weights]
    assert completed == sorted(completed) and completed[-1] == weights[-1].total
    assert [p.status for p in parts[-3:]] == ["verifying sha256 digest", "writing manifest", "success"]
    assert "qwen2.5-coder:3b" in {m.model for m in client.list().models}


def test_pull_without_streaming_and_unknown_model(client: ollama.Client) -> None:
    assert client.pull("nomic-embed-text").status == "success"
    assert "nomic-embed-text:latest" in {m.model for m in client.list().models}
    with pytest.raises(ollama.ResponseError, match="file does not exist") as info:
        client.pull("no-such-model:1b")
    assert info.value.status_code == 500
    with pytest.raises(ollama.ResponseError, match="pull model manifest: file does not exist"):
        list(client.pull("no-such-model:1b", stream=True))


def test_pull_failure_midway_is_an_error_line(client: ollama.Client, server: FakeOllama) -> None:
    server.pull_fail_after_chunks = 2
    seen = []
    with pytest.raises(ollama.ResponseError, match="max retries"):
        for part in client.pull("qwen2.5-coder:14b", stream=True):
            seen.append(part)
    assert sum(p.completed is not None for p in seen) == 2
    assert "qwen2.5-coder:14b" not in {m.model for m in client.list().models}


def test_pull_cancel_mid_stream_leaves_server_working(client: ollama.Client, server: FakeOllama) -> None:
    server.pull_chunks, server.pull_chunk_delay_s = 50, 0.02
    stream = client.pull("qwen2.5-coder:14b", stream=True)
    for _, _part in zip(range(4), stream):
        pass
    stream.close()  # the client drops the connection
    assert _wait_for(lambda: server.cancelled_streams == 1)
    assert "qwen2.5-coder:14b" not in {m.model for m in client.list().models}
    assert client.chat(model=MODEL, messages=USER).message.content == "SELECT 1"


def test_create_from_uploaded_blob(client: ollama.Client, server: FakeOllama, tmp_path: Path) -> None:
    weights = tmp_path / "model.gguf"
    weights.write_bytes(b"GGUF" + bytes(range(256)) * 300)
    digest = client.create_blob(weights)
    assert digest == "sha256:" + hashlib.sha256(weights.read_bytes()).hexdigest()
    assert httpx.head(f"{server.url}/api/blobs/{digest}").status_code == 200
    statuses = [p.status for p in client.create(model="cairn-sql:latest", files={"model.gguf": digest},
                                                system="Write SQL.", parameters={"temperature": 0}, stream=True)]
    assert statuses[0] == "parsing GGUF" and statuses[-1] == "success"
    created = {m.model: m for m in client.list().models}["cairn-sql:latest"]
    assert created.size == weights.stat().st_size
    shown = client.show("cairn-sql")
    assert 'SYSTEM """Write SQL."""' in (shown.modelfile or "") and "temperature" in (shown.parameters or "")
    upload = server.requests_to(f"/api/blobs/{digest}", "POST")[0]
    assert upload.body_size == weights.stat().st_size and upload.json is None


def test_create_from_existing_model_without_streaming(client: ollama.Client) -> None:
    assert client.create(model="coder-copy", from_=MODEL, system="Be terse.").status == "success"
    assert client.show("coder-copy").details.parameter_size == "7.6B"  # type: ignore[union-attr]


def test_create_rejects_missing_blob_and_missing_source(client: ollama.Client) -> None:
    absent = "sha256:" + "0" * 64
    with pytest.raises(ollama.ResponseError, match="does not exist") as info:
        client.create(model="x", files={"model.gguf": absent})
    assert info.value.status_code == 400
    with pytest.raises(ollama.ResponseError, match="neither 'from' or 'files'"):
        client.create(model="x")


def test_blob_digest_mismatch_rejected_and_chunked_upload_accepted(server: FakeOllama) -> None:
    data = b"some layer bytes"
    good = "sha256:" + hashlib.sha256(data).hexdigest()
    wrong = "sha256:" + hashlib.sha256(b"other").hexdigest()
    assert httpx.head(f"{server.url}/api/blobs/{good}").status_code == 404
    bad = httpx.post(f"{server.url}/api/blobs/{wrong}", content=data)
    assert bad.status_code == 400 and "digest mismatch" in bad.json()["error"]
    assert wrong not in server.blobs
    chunked = httpx.post(f"{server.url}/api/blobs/{good}", content=iter([data[:5], data[5:]]))  # like AsyncClient
    assert chunked.status_code == 201 and server.blobs[good] == data
    assert httpx.head(f"{server.url}/api/blobs/{good}").status_code == 200


def test_embed_is_deterministic_normalised_and_word_sensitive(client: ollama.Client, server: FakeOllama) -> None:
    texts = ["total orders per customer", "orders per customer total", "weather in Oslo"]
    vectors = client.embed(model=MODEL, input=texts).embeddings
    assert len(vectors) == 3 and all(len(v) == 384 for v in vectors)
    assert all(math.isclose(sum(x * x for x in v), 1.0, rel_tol=1e-9) for v in vectors)
    assert list(vectors[0]) == fake_embedding(texts[0])
    dot = [sum(a * b for a, b in zip(vectors[0], v)) for v in vectors]
    assert math.isclose(dot[1], 1.0) and dot[2] < 0.5
    assert len(client.embed(model=MODEL, input="one", dimensions=64).embeddings[0]) == 64
    with pytest.raises(ollama.ResponseError) as info:
        client.embed(model="nope", input="x")
    assert info.value.status_code == 404


def test_delete_and_copy(client: ollama.Client) -> None:
    assert client.copy(MODEL, "backup:7b").status == "success"
    assert client.delete(MODEL).status == "success"
    assert [m.model for m in client.list().models] == ["backup:7b"]
    with pytest.raises(ollama.ResponseError) as info:
        client.delete(MODEL)
    assert info.value.status_code == 404


def test_requests_are_recorded_with_headers(client: ollama.Client, server: FakeOllama) -> None:
    client.list()
    client.chat(model=MODEL, messages=USER)
    recorded = server.requests
    assert [(r.method, r.path) for r in recorded] == [("GET", "/api/tags"), ("POST", "/api/chat")]
    assert recorded[1].headers["user-agent"].startswith("ollama-python/")
    assert recorded[0].json is None and recorded[1].body_size > 0
    server.clear_requests()
    assert server.requests == []


def test_stopped_server_refuses_connections() -> None:
    fake = FakeOllama().start()
    url = fake.url
    with ollama.Client(host=url) as c:
        c.list()  # leaves a keep-alive connection open, which stop() must cut
        fake.stop()
        with pytest.raises(ConnectionError):
            c.list()


def test_stop_does_not_hang_on_open_stream() -> None:
    fake = FakeOllama().start()
    fake.pull_chunks, fake.pull_chunk_delay_s = 100, 0.5
    errors: list[BaseException] = []

    def pull() -> None:
        try:
            with ollama.Client(host=fake.url) as c:
                list(c.pull("qwen2.5-coder:32b", stream=True))
        except BaseException as exc:  # noqa: BLE001 - the cut is expected; record it
            errors.append(exc)

    worker = threading.Thread(target=pull, daemon=True)
    worker.start()
    assert _wait_for(lambda: fake.requests_to("/api/pull"))
    started = time.monotonic()
    fake.stop()
    worker.join(timeout=5)
    assert time.monotonic() - started < 2.0 and not worker.is_alive() and errors
    assert not [t for t in threading.enumerate() if t.name.startswith("fake-ollama")]


def test_no_threads_outlive_the_server(server: FakeOllama, client: ollama.Client) -> None:
    client.list()
    list(client.chat(model=MODEL, messages=USER, stream=True))
    assert any(t.name == "fake-ollama-conn" for t in threading.enumerate())
    server.stop()
    assert not [t for t in threading.enumerate() if t.name.startswith("fake-ollama")]


def test_fixture_points_ollama_host_at_the_fake(fake_ollama: FakeOllama) -> None:
    with ollama.Client() as c:  # no host: reads OLLAMA_HOST
        assert [m.model for m in c.list().models] == [MODEL]
    assert fake_ollama.requests_to("/api/tags")
