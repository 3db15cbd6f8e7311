"""What accelerator this machine has, so the model manager can say which models will run well.

Detection shells out to ``nvidia-smi`` / ``sysctl`` (short timeout) rather than importing GPU libraries:
Cairn must start on machines without CUDA, and a hung driver must not hang the app.
"""

from __future__ import annotations

import logging
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["APPLE_USABLE_FRACTION", "GpuInfo", "detect_gpu", "total_ram_bytes"]

logger = logging.getLogger(__name__)

TIMEOUT_S = 3.0
MIB = 1024 * 1024
# macOS lets the GPU wire roughly two thirds of unified memory by default (more on large machines).
APPLE_USABLE_FRACTION = 2 / 3

Runner = Callable[..., Any]


@dataclass(frozen=True)
class GpuInfo:
    """The accelerator models would run on. ``vram_bytes`` is total memory (Apple: all unified RAM)."""

    kind: Literal["nvidia", "apple", "none"]
    name: str
    vram_bytes: int
    used_bytes: int = 0
    note: str = ""

    @property
    def usable_bytes(self) -> int:
        """Memory a model can actually use: all VRAM on NVIDIA, about 2/3 of unified memory on Apple."""
        if self.kind == "apple":
            return int(self.vram_bytes * APPLE_USABLE_FRACTION)
        return self.vram_bytes if self.kind == "nvidia" else 0


def detect_gpu(
    *,
    which: Callable[[str], str | None] = shutil.which,
    run: Runner = subprocess.run,
    system: Callable[[], str] = platform.system,
    machine: Callable[[], str] = platform.machine,
) -> GpuInfo:
    """NVIDIA (largest card) via nvidia-smi, else Apple Silicon via sysctl, else none with the reason."""
    reason = "No NVIDIA GPU found (nvidia-smi is not installed)."
    smi = which("nvidia-smi")
    if smi:
        gpu = _detect_nvidia(smi, run)
        if gpu.kind == "nvidia":
            return gpu
        reason = gpu.note
    if system() == "Darwin":
        if machine() == "arm64":
            return _detect_apple(run)
        return GpuInfo("none", "", 0, note="Intel Mac: models run on the CPU, which is slow.")
    return GpuInfo("none", "", 0, note=f"{reason} Models will run on the CPU, which is slow.")


def _run_text(run: Runner, argv: Sequence[str]) -> tuple[str | None, str]:
    """(stdout, "") on success, (None, reason) on any failure: missing binary, timeout, non-zero exit."""
    try:
        proc = run(list(argv), capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return None, f"`{argv[0]}` did not answer within {TIMEOUT_S:g} s."
    except OSError as exc:
        return None, f"`{argv[0]}` could not run: {exc}."
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout or "").strip().splitlines()
        return None, f"`{argv[0]}` failed ({detail[0] if detail else f'exit {proc.returncode}'})."
    return str(proc.stdout or ""), ""


def _detect_nvidia(smi: str, run: Runner) -> GpuInfo:
    query = "--query-gpu=name,memory.total,memory.used"
    out, reason = _run_text(run, [smi, query, "--format=csv,noheader,nounits"])
    if out is None:
        logger.info("nvidia-smi: %s", reason)
        return GpuInfo("none", "", 0, note=reason)
    cards: list[GpuInfo] = []
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 3 or not parts[0]:
            continue
        try:
            total, used = int(float(parts[1])), int(float(parts[2]))
        except ValueError:  # "[N/A]", "[Not Supported]", error text
            continue
        if total > 0:
            cards.append(GpuInfo("nvidia", parts[0], total * MIB, max(used, 0) * MIB))
    if not cards:
        snippet = out.strip().splitlines()[0][:80] if out.strip() else "no output"
        logger.info("nvidia-smi gave no usable GPU line: %r", snippet)
        return GpuInfo("none", "", 0, note=f"nvidia-smi gave no usable answer ({snippet}).")
    best = max(cards, key=lambda g: g.vram_bytes)
    if len(cards) > 1:
        best = GpuInfo("nvidia", best.name, best.vram_bytes, best.used_bytes,
                       note=f"{len(cards)} GPUs found; showing the largest.")
    return best


def _detect_apple(run: Runner) -> GpuInfo:
    out, reason = _run_text(run, ["sysctl", "-n", "hw.memsize"])
    try:
        total = int((out or "").strip())
    except ValueError:
        total = 0
    if total <= 0:
        return GpuInfo("none", "", 0, note=reason or "sysctl did not report the memory size.")
    brand, _ = _run_text(run, ["sysctl", "-n", "machdep.cpu.brand_string"])
    name = (brand or "").strip() or "Apple Silicon"
    note = (f"Unified memory: about {APPLE_USABLE_FRACTION:.0%} of the {total / 1024**3:.0f} GB "
            "is usable by models.")
    return GpuInfo("apple", name, total, note=note)


def total_ram_bytes() -> int:
    """Physical memory of this machine in bytes, 0 when it cannot be read."""
    try:
        if sys.platform == "win32":
            return _windows_ram()
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        logger.debug("could not read the memory size", exc_info=True)
        return 0


def _windows_ram() -> int:
    import ctypes

    class _MemoryStatus(ctypes.Structure):
        _fields_ = [("dwLength", ctypes.c_ulong), ("dwMemoryLoad", ctypes.c_ulong),
                    ("ullTotalPhys", ctypes.c_ulonglong), ("ullAvailPhys", ctypes.c_ulonglong),
                    ("ullTotalPageFile", ctypes.c_ulonglong), ("ullAvailPageFile", ctypes.c_ulonglong),
                    ("ullTotalVirtual", ctypes.c_ulonglong), ("ullAvailVirtual", ctypes.c_ulonglong),
                    ("ullAvailExtendedVirtual", ctypes.c_ulonglong)]

    status = _MemoryStatus()
    status.dwLength = ctypes.sizeof(_MemoryStatus)
    if not ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):  # type: ignore[attr-defined]
        return 0
    return int(status.ullTotalPhys)
