"""OllamaAdmin against the real-HTTP FakeOllama: status, listing, streaming pull, cancel, GGUF import."""

from __future__ import annotations

import hashlib
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.cancellation import Cancellation
from core.errors import InputError, LLMUnavailable, ModelNotFound, QueryCancelled
from core.llm import OllamaAdmin, PullProgress
from tests.fakes.fake_ollama import FakeOllama

DOWN = "http://127.0.0.1:9"


@pytest.fixture
def admin(fake_ollama: FakeOllama) -> Iterator[OllamaAdmin]:
    a = OllamaAdmin(fake_ollama.url, timeout_s=5)
    yield a
    a.close()


def _gguf(path: Path, payload_size: int = 64 * 1024) -> Path:
    """A small file shaped like a GGUF v3 header (magic, version, tensor and metadata counts) plus payload."""
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 0) + bytes(range(256)) * (payload_size // 256))
    return path


def test_status_running(admin: OllamaAdmin, fake_ollama: FakeOllama) -> None:
    status = admin.status()
    assert status.running and status.version == fake_ollama.version
    assert status.host == fake_ollama.url


def test_status_down_says_how_to_install_and_start() -> None:
    status = OllamaAdmin(DOWN, timeout_s=2).status()
    assert not status.running and status.version is None
    assert "ollama serve" in status.message and "install" in status.message
    assert DOWN in status.message


def test_calls_when_down_raise_llm_unavailable() -> None:
    admin = OllamaAdmin(DOWN, timeout_s=2)
    with pytest.raises(LLMUnavailable) as info:
        admin.list_models()
    assert "ollama serve" in info.value.hint
    with pytest.raises(LLMUnavailable):
        admin.pull("qwen2.5-coder:3b", cancel=Cancellation(), on_progress=lambda p: None)


def test_list_and_loaded_models(admin: OllamaAdmin, fake_ollama: FakeOllama) -> None:
    fake_ollama.add_model("sqlcoder:7b", size=4_108_928_574, parameter_size="7B", quantization_level="Q4_0")
    fake_ollama.loaded.add("sqlcoder:7b")
    models = {m.name: m for m in admin.list_models()}
    assert models["qwen2.5-coder:7b"].size_bytes == 4_683_087_332
    assert (models["sqlcoder:7b"].parameter_size, models["sqlcoder:7b"].quantization) == ("7B", "Q4_0")
    loaded = admin.loaded_models()
    assert [m.name for m in loaded] == ["sqlcoder:7b"] and loaded[0].vram_bytes > 0


def test_pull_streams_progress_to_completion(admin: OllamaAdmin, fake_ollama: FakeOllama) -> None:
    fake_ollama.pull_chunks = 8
    seen: list[PullProgress] = []
    admin.pull("qwen2.5-coder:3b", cancel=Cancellation(), on_progress=seen.append)
    fractions = [p.fraction for p in seen if p.fraction is not None]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert len({f for f in fractions if f < 1.0}) >= 4  # real intermediate steps
    assert seen[0].status == "pulling manifest" and seen[-1].status == "success"
    assert any(p.total and p.completed for p in seen)
    assert "qwen2.5-coder:3b" in {m.name for m in admin.list_models()}


def test_pull_unknown_model(admin: OllamaAdmin) -> None:
    with pytest.raises(ModelNotFound):
        admin.pull("no-such-model:1b", cancel=Cancellation(), on_progress=lambda p: None)


def test_pull_rejects_bad_names(admin: OllamaAdmin) -> None:
    with pytest.raises(InputError):
        admin.pull("rm -rf /", cancel=Cancellation(), on_progress=lambda p: None)


def test_pull_cancel_mid_stream_stops_promptly(admin: OllamaAdmin, fake_ollama: FakeOllama) -> None:
    fake_ollama.pull_chunks = 50
    fake_ollama.pull_chunk_delay_s = 0.3  # a slow link: the cancel must not wait for the next chunk
    cancel = Cancellation()
    seen: list[PullProgress] = []

    def on_progress(p: PullProgress) -> None:
        seen.append(p)
        if p.completed:
            threading.Timer(0.05, cancel.cancel).start()

    start = time.monotonic()
    with pytest.raises(QueryCancelled) as info:
        admin.pull("qwen2.5-coder:14b", cancel=cancel, on_progress=on_progress)
    assert time.monotonic() - start < 1.0
    assert "resume" in info.value.hint
    assert all((p.fraction or 0) < 0.5 for p in seen)
    assert fake_ollama.find_model("qwen2.5-coder:14b") is None
    deadline = time.monotonic() + 3
    while fake_ollama.cancelled_streams == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert fake_ollama.cancelled_streams == 1  # the server saw the client go away


def test_import_gguf_uploads_blob_then_creates(admin: OllamaAdmin, fake_ollama: FakeOllama, tmp_path: Path) -> None:
    path = _gguf(tmp_path / "my-sql-model.Q4_K_M.gguf")
    digest = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    seen: list[PullProgress] = []
    assert admin.import_gguf(path, "my-sql:latest", on_progress=seen.append) == "my-sql:latest"
    assert fake_ollama.blobs[digest] == path.read_bytes()
    create = fake_ollama.requests_to("/api/create", "POST")[-1].json
    assert create["model"] == "my-sql:latest" and create["files"] == {path.name: digest}
    assert "my-sql:latest" in {m.name for m in admin.list_models()}
    assert seen[-1].status == "success" and seen[-1].fraction == 1.0
    assert any(p.status.startswith("checking") for p in seen)


def test_import_cancelled_uploads_nothing(admin: OllamaAdmin, fake_ollama: FakeOllama, tmp_path: Path) -> None:
    cancel = Cancellation()
    cancel.cancel()
    with pytest.raises(QueryCancelled, match="Stopped importing"):
        admin.import_gguf(_gguf(tmp_path / "m.gguf"), "m", on_progress=lambda p: None, cancel=cancel)
    assert fake_ollama.blobs == {} and fake_ollama.find_model("m") is None


def test_import_refuses_non_gguf_and_missing_files(admin: OllamaAdmin, fake_ollama: FakeOllama,
                                                   tmp_path: Path) -> None:
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"PK\x03\x04 this is a zip, not a model")
    with pytest.raises(InputError, match="not a GGUF"):
        admin.import_gguf(bogus, "bogus", on_progress=lambda p: None)
    with pytest.raises(InputError, match="does not exist"):
        admin.import_gguf(tmp_path / "missing.gguf", "missing", on_progress=lambda p: None)
    assert fake_ollama.blobs == {} and not fake_ollama.requests_to("/api/create")


def test_import_when_ollama_is_down(tmp_path: Path) -> None:
    with pytest.raises(LLMUnavailable):
        OllamaAdmin(DOWN, timeout_s=2).import_gguf(_gguf(tmp_path / "m.gguf"), "m", on_progress=lambda p: None)
