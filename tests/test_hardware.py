"""GPU detection against fake ``nvidia-smi`` scripts on PATH, and the model catalog's fit judgement."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from core.llm import GpuInfo, detect_gpu, total_ram_bytes
from core.llm._catalog import CATALOG, OVERHEAD_BYTES, fits, format_bytes, recommend

GiB = 1024**3
MiB = 1024**2
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="fake nvidia-smi is a shell script")


def _fake_smi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    """Put an executable ``nvidia-smi`` first on PATH that runs ``body`` (sh)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "nvidia-smi"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


def _linux() -> str:
    return "Linux"


@posix_only
def test_single_nvidia_gpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_smi(tmp_path, monkeypatch, "echo 'NVIDIA GeForce RTX 4070 Laptop GPU, 8188, 412'")
    gpu = detect_gpu(system=_linux)
    assert gpu == GpuInfo("nvidia", "NVIDIA GeForce RTX 4070 Laptop GPU", 8188 * MiB, 412 * MiB)
    assert gpu.usable_bytes == 8188 * MiB


@posix_only
def test_several_gpus_pick_the_largest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_smi(tmp_path, monkeypatch,
              "printf 'NVIDIA RTX A2000, 6138, 0\\nNVIDIA GeForce RTX 4090, 24564, 1024\\nTesla T4, 15360, 3\\n'")
    gpu = detect_gpu(system=_linux)
    assert (gpu.kind, gpu.name, gpu.vram_bytes) == ("nvidia", "NVIDIA GeForce RTX 4090", 24564 * MiB)
    assert "3 GPUs" in gpu.note


@posix_only
@pytest.mark.parametrize("body", [
    "echo 'this is not csv at all'",
    "echo 'NVIDIA GeForce GTX 1050, [N/A], [N/A]'",
    "true",  # no output
])
def test_garbage_output_means_no_gpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    _fake_smi(tmp_path, monkeypatch, body)
    gpu = detect_gpu(system=_linux)
    assert gpu.kind == "none" and gpu.vram_bytes == 0
    assert "nvidia-smi gave no usable answer" in gpu.note and "CPU" in gpu.note


@posix_only
def test_failing_nvidia_smi_means_no_gpu_with_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_smi(tmp_path, monkeypatch,
              "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\" >&2; exit 9")
    gpu = detect_gpu(system=_linux)
    assert gpu.kind == "none"
    assert "couldn't communicate with the NVIDIA driver" in gpu.note


def test_hung_nvidia_smi_times_out() -> None:
    def run(argv: list[str], **kwargs: Any) -> Any:
        assert kwargs["timeout"] == 3
        raise subprocess.TimeoutExpired(argv, kwargs["timeout"])

    gpu = detect_gpu(which=lambda _: "/usr/bin/nvidia-smi", run=run, system=_linux)
    assert gpu.kind == "none" and "did not answer within 3 s" in gpu.note


def test_no_nvidia_smi_on_linux() -> None:
    gpu = detect_gpu(which=lambda _: None, system=_linux)
    assert gpu.kind == "none" and "not installed" in gpu.note


def test_apple_silicon_reports_unified_memory() -> None:
    answers = {"hw.memsize": "34359738368\n", "machdep.cpu.brand_string": "Apple M2 Pro\n"}

    def run(argv: list[str], **kwargs: Any) -> Any:
        assert argv[:2] == ["sysctl", "-n"]
        return SimpleNamespace(returncode=0, stdout=answers[argv[2]], stderr="")

    gpu = detect_gpu(which=lambda _: None, run=run, system=lambda: "Darwin", machine=lambda: "arm64")
    assert (gpu.kind, gpu.name, gpu.vram_bytes) == ("apple", "Apple M2 Pro", 32 * GiB)
    assert gpu.usable_bytes == pytest.approx(32 * GiB * 2 / 3, rel=1e-6)
    assert "usable" in gpu.note


def test_intel_mac_has_no_gpu() -> None:
    gpu = detect_gpu(which=lambda _: None, system=lambda: "Darwin", machine=lambda: "x86_64")
    assert gpu.kind == "none"


def test_ram_is_detected() -> None:
    assert total_ram_bytes() > 256 * MiB


# ----- catalog ----------------------------------------------------------------------------------------------------

def test_catalog_sizes_are_realistic() -> None:
    sizes = {m.name: m.size_bytes for m in CATALOG}
    assert 4.5e9 < sizes["qwen2.5-coder:7b"] < 4.9e9
    assert sizes["qwen2.5-coder:0.5b"] < sizes["qwen2.5-coder:1.5b"] < sizes["qwen2.5-coder:3b"]
    assert sizes["qwen2.5-coder:14b"] < sizes["qwen2.5-coder:32b"] < 21e9
    assert {"deepseek-coder-v2:16b", "codellama:7b", "sqlcoder:7b"} <= sizes.keys()
    assert format_bytes(sizes["qwen2.5-coder:7b"]) == "4.7 GB"


def test_fits_counts_the_overhead() -> None:
    gpu = GpuInfo("nvidia", "RTX", 6 * 10**9)
    assert fits(6 * 10**9 - OVERHEAD_BYTES, gpu)
    assert not fits(6 * 10**9 - OVERHEAD_BYTES + 1, gpu)
    assert not fits(100, GpuInfo("none", "", 0))


def test_recommend_8gb_gpu_puts_the_7b_first() -> None:
    recs = recommend(GpuInfo("nvidia", "RTX 4060", 8188 * MiB), 32 * GiB)
    assert recs[0].name == "qwen2.5-coder:7b" and recs[0].fits
    fitting = [r for r in recs if r.fits]
    assert all(r.size_bytes + OVERHEAD_BYTES <= 8188 * MiB for r in fitting)
    too_big = {r.name: r for r in recs if not r.fits}
    assert {"qwen2.5-coder:14b", "qwen2.5-coder:32b"} <= too_big.keys()
    assert "split it with the CPU" in too_big["qwen2.5-coder:14b"].note
    assert recs.index(too_big["qwen2.5-coder:14b"]) < recs.index(too_big["qwen2.5-coder:32b"])


def test_recommend_big_gpu_and_mac() -> None:
    assert recommend(GpuInfo("nvidia", "RTX 4090", 24564 * MiB), 64 * GiB)[0].name == "qwen2.5-coder:32b"
    mac16 = recommend(GpuInfo("apple", "Apple M3", 16 * GiB), 16 * GiB)
    assert mac16[0].name == "qwen2.5-coder:14b"  # ~10.2 GB needed, 2/3 of 16 GiB is ~11.5 GB
    assert "unified memory" in mac16[0].note
    mac8 = recommend(GpuInfo("apple", "Apple M1", 8 * GiB), 8 * GiB)
    assert mac8[0].name == "qwen2.5-coder:3b"  # the 7b needs ~5.9 GB, 2/3 of 8 GiB is ~5.7 GB


def test_recommend_cpu_only_says_slow() -> None:
    recs = recommend(GpuInfo("none", "", 0), 16 * GiB)
    assert recs[0].name == "qwen2.5-coder:7b" and recs[0].fits
    assert all("CPU" in r.note for r in recs if r.fits)
    by_name = {r.name: r for r in recs}
    assert "very slowly" in by_name["qwen2.5-coder:14b"].note
    assert not by_name["qwen2.5-coder:32b"].fits
    assert recommend(GpuInfo("none", "", 0), 3 * GiB)[0].name == "qwen2.5-coder:1.5b"
