"""``cairn selftest`` as a person (or CI, on the frozen bundle) runs it: a real subprocess, the real embedded
PostgreSQL, MiniLM and window, the fake Ollama as ``OLLAMA_HOST``; the person's own files are never touched."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.analyst_model import analyst_model

REPO = Path(__file__).resolve().parents[1]
STEPS = ("database", "embedder", "model", "memory", "window")
ROOT_CLUSTERS = Path("/var/lib/cairn/pgserver")  # where the cluster lives as root (core/databases/embedded/_cluster.py)
_DROPPED = ("CAIRN_DATA_DIR", "OLLAMA_HOST", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")


def selftest(*args: str, env: dict[str, str], user: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "desktop.launcher", "selftest", *args]
    base = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    if user is not None:
        python, base["PYTHONPATH"] = other_users_python()
        command = ["runuser", "-u", user, "--", python, *command[1:]]
    return subprocess.run(command, capture_output=True, text=True, env={**base, **env}, cwd=REPO, timeout=120)


def person(tmp_path: Path) -> tuple[dict[str, str], Path, Path]:
    """A person's real data dir (settings naming another model, a memory file) and home, to be left alone."""
    data, home = tmp_path / "real-data", tmp_path / "home"
    (data / "memory").mkdir(parents=True)
    (data / "settings.json").write_text(json.dumps({"model": "not-installed:1b", "ollama_host": "http://10.9.9.9:1"}))
    (data / "memory" / "priya.json").write_text("{}")
    home.mkdir()
    (home / ".bashrc").write_text("# mine\n")
    return {"CAIRN_DATA_DIR": str(data), "HOME": str(home)}, data, home


def snapshot(*folders: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for f in folders for p in [f, *f.rglob("*")]}


def step_lines(out: str) -> dict[str, str]:
    lines = {}
    for line in out.splitlines():
        if line.startswith("[") and "/5] " in line:
            name = line.split("] ", 1)[1].split()[0]
            lines[name] = line
    return lines


def no_cluster_left_for(temp_dir: str) -> bool:
    """As root the cluster lives under /var/lib/cairn/pgserver (the cairn-pg account's): the run removes its own."""
    if not ROOT_CLUSTERS.is_dir():
        return True
    owners = [p.read_text().strip() for p in ROOT_CLUSTERS.glob("*/data-dir.txt")]
    return not any(owner.startswith(temp_dir) for owner in owners)


def other_users_python() -> tuple[str, str]:
    """The venv's interpreter may sit in root's 0700 home: the system one of the same minor version, with the
    venv's site-packages and the checkout on PYTHONPATH (skipped where other accounts cannot reach them)."""
    site = next(p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    system = shutil.which("python3", path="/usr/bin:/bin")
    if system is None:
        pytest.skip("no system python3 for other accounts")
    version = subprocess.run([system, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True,
                             text=True).stdout.strip()
    if version != str(sys.version_info[:2]):
        pytest.skip(f"the system python3 is {version}, the tests run {sys.version_info[:2]}")
    for path in (Path(site), REPO):
        if not all(p.stat().st_mode & 0o001 for p in [path.resolve(), *path.resolve().parents]):
            pytest.skip(f"{path} is inside a folder other accounts cannot enter")
    return system, os.pathsep.join([site, str(REPO)])


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_every_step_ok_with_a_model_and_nothing_of_the_person_touched(tmp_path: Path, fake_ollama) -> None:
    fake_ollama.default_chat = analyst_model({"how many customers": "SELECT COUNT(*) AS n FROM customers"},
                                             {"customers from india": "[PREFERENCE] Only show customers from India"})
    env, data, home = person(tmp_path)
    before = snapshot(data, home)
    proc = selftest(env={**env, "OLLAMA_HOST": fake_ollama.url})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = step_lines(proc.stdout)
    assert list(lines) == list(STEPS)
    for name, line in lines.items():
        assert line.split()[2] == "OK", line
        assert line.split()[3].endswith("s")  # its time
    assert "qwen2.5-coder:7b" in lines["model"] and "1 row," in lines["model"]
    assert "through the assistant" in lines["memory"] and "India" in lines["memory"]
    assert "selftest: OK" in proc.stdout and "Traceback" not in proc.stderr
    # the model was really asked: the question, then the statement's extraction
    asked = " ".join(m["content"] for body in fake_ollama.chat_requests() for m in body["messages"])
    assert "How many customers are there?" in asked and "Always show me customers from India" in asked
    assert snapshot(data, home) == before  # the person's data dir and home: not a byte, not a new file
    temp_dir = proc.stdout.splitlines()[0].split("temporary data in ", 1)[1].rstrip(")")
    assert not Path(temp_dir).exists() and no_cluster_left_for(temp_dir)


def test_a_failing_step_exits_non_zero_and_names_it(tmp_path: Path) -> None:
    env, data, home = person(tmp_path)
    before = snapshot(data, home)
    proc = selftest("--require-model", "--json", env={**env, "OLLAMA_HOST": f"http://127.0.0.1:{closed_port()}"})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)  # one JSON object, nothing else on stdout
    status = {s["name"]: s["status"] for s in report["steps"]}
    assert status == {"database": "OK", "embedder": "OK", "model": "FAILED", "memory": "OK", "window": "OK"}
    assert report["ok"] is False and report["exit_code"] == 1
    assert report["summary"].startswith("FAILED at step model") and "--require-model" in report["summary"]
    assert all(isinstance(s["seconds"], float) for s in report["steps"])
    assert report["temp_dir_removed"] and snapshot(data, home) == before


def test_without_ollama_host_the_model_step_tries_the_local_default_then_skips(tmp_path: Path) -> None:
    env, _data, _home = person(tmp_path)
    proc = selftest(env=env)  # OLLAMA_HOST unset: the app's own default, http://127.0.0.1:11434 (nothing there)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = step_lines(proc.stdout)
    assert lines["model"].split()[2] == "SKIPPED" and "no Ollama answers at http://127.0.0.1:11434" in lines["model"]
    assert all(lines[n].split()[2] == "OK" for n in STEPS if n != "model")
    assert "through the memory bank" in lines["memory"]
    proc = selftest("--require-model", env=env)
    assert proc.returncode == 1 and "FAILED at step model: no Ollama answers" in proc.stderr


def test_usage_error_and_the_core_cli_still_reached() -> None:
    proc = selftest("--no-such-flag", env={})
    assert proc.returncode == 2 and "usage: cairn selftest" in proc.stderr
    cli = subprocess.run([sys.executable, "-m", "desktop.launcher", "--help"], capture_output=True, text=True,
                         cwd=REPO, timeout=60)
    assert cli.returncode == 0 and "ask" in cli.stdout and "cairn selftest" in cli.stdout


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("runuser"),
                    reason="needs root and runuser to run as a normal user")
def test_passes_as_a_normal_user_too(fake_ollama) -> None:
    """As root the server runs as the cairn-pg account; as anyone else, as that person: both must pass."""
    fake_ollama.default_chat = analyst_model({"how many customers": "SELECT COUNT(*) AS n FROM customers"},
                                             {"customers from india": "[PREFERENCE] Only show customers from India"})
    proc = selftest("--json", env={"OLLAMA_HOST": fake_ollama.url, "HOME": "/nonexistent", "XDG_RUNTIME_DIR": ""},
                    user="nobody")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert [s["status"] for s in report["steps"]] == ["OK"] * 5, report
    assert report["temp_dir_removed"]


def test_the_network_guard_refuses_all_but_loopback_and_is_removed_after() -> None:
    from desktop.selftest.steps import BlockedConnection, NetworkGuard

    connect = socket.socket.connect
    with NetworkGuard(("ollama.example",)) as guard:
        with pytest.raises(BlockedConnection):
            socket.create_connection(("10.255.255.1", 80), timeout=0.1)  # refused before a packet leaves
        with socket.socket() as s, pytest.raises(BlockedConnection):
            s.connect(("2001:db8::1", 443))
        with pytest.raises(BlockedConnection):
            socket.getaddrinfo("huggingface.co", 443)
        guard.check(("ollama.example", 11434))  # the host OLLAMA_HOST names is allowed
        with socket.socket() as server:  # loopback works
            server.bind(("127.0.0.1", 0))
            server.listen()
            socket.create_connection(server.getsockname(), timeout=1).close()
        assert guard.blocked == ["10.255.255.1:80", "2001:db8::1:443", "huggingface.co"]
    assert socket.socket.connect is connect and "connect" not in socket.socket.__dict__


def test_a_step_that_reached_for_the_network_fails_even_if_it_carried_on() -> None:
    from desktop.selftest.runner import _one_step
    from desktop.selftest.steps import NetworkGuard, Step

    def sneaky(_run: object) -> str:
        try:
            socket.create_connection(("192.0.2.7", 443), timeout=0.1)
        except OSError:
            pass  # a library that swallows the error and goes on offline
        return "fine"

    class Run:
        passed: set[str] = set()

    with NetworkGuard() as guard:
        result = _one_step(Run(), Step("embedder", "embedding model", sneaky), guard)
    assert result.status == "FAILED" and "192.0.2.7:443" in result.detail
