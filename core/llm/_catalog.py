"""Coder models that make sense for text-to-SQL on a laptop, and which of them this machine can run.

Sizes are the q4_K_M downloads as the Ollama library publishes them. A model runs well when its weights
plus the context cache and runtime overhead fit in GPU memory; on the CPU it works but answers slowly.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.llm._hardware import GpuInfo

__all__ = ["CATALOG", "CatalogModel", "OVERHEAD_BYTES", "Recommendation", "fits", "format_bytes", "format_memory",
           "recommend"]

GB = 1_000_000_000
# KV cache for a 4-8k context plus the runtime's buffers, on top of the weights.
OVERHEAD_BYTES = 1_200_000_000
# Leave room for the OS and the app itself when a model runs from system RAM.
RAM_USABLE_FRACTION = 0.75
_MISFIT = 3
# Above this a CPU-only machine takes tens of seconds per answer.
CPU_PRACTICAL_BYTES = 5 * GB


@dataclass(frozen=True)
class CatalogModel:
    """One pullable model; ``quality`` orders models by SQL accuracy, higher is better."""

    name: str
    size_bytes: int
    parameters: str
    quality: int
    description: str


@dataclass(frozen=True)
class Recommendation:
    """A catalog model judged against this machine: does it fit, and what to expect."""

    name: str
    size_bytes: int
    fits: bool
    note: str
    description: str = ""


CATALOG: tuple[CatalogModel, ...] = (
    CatalogModel("qwen2.5-coder:32b", 19_851_336_256, "32.8B", 100,
                 "Most accurate; needs a 24 GB GPU or a 32 GB+ Mac."),
    CatalogModel("qwen2.5-coder:14b", 8_988_124_069, "14.8B", 90, "Very good SQL; needs a 12 GB GPU or a 16 GB Mac."),
    CatalogModel("deepseek-coder-v2:16b", 8_905_125_527, "15.7B", 85,
                 "Mixture-of-experts coder; fast for its size."),
    CatalogModel("qwen2.5-coder:7b", 4_683_087_332, "7.6B", 80, "Recommended default: good SQL on 8 GB GPUs."),
    CatalogModel("qwen2.5-coder:3b", 1_929_912_432, "3.1B", 60, "Small and quick; fine for simple questions."),
    CatalogModel("sqlcoder:7b", 4_108_928_574, "7B", 55, "Tuned for SQL; weaker at following instructions."),
    CatalogModel("codellama:7b", 3_825_910_662, "7B", 40, "Older general coder; a fallback choice."),
    CatalogModel("qwen2.5-coder:1.5b", 986_061_892, "1.5B", 35, "For CPU-only laptops; simple questions."),
    CatalogModel("qwen2.5-coder:0.5b", 397_821_319, "0.5B", 15, "Tiny; only the simplest questions."),
)


def format_bytes(size: int) -> str:
    """Decimal units like Ollama prints them: 4.7 GB, 986 MB."""
    if size >= GB:
        return f"{size / GB:.1f} GB"
    if size >= 1_000_000:
        return f"{size / 1_000_000:.0f} MB"
    return f"{max(size, 0) / 1000:.0f} kB"


def format_memory(size: int) -> str:
    """Memory in binary units, as GPUs and RAM are sold: an "8 GB" card holds 8 GiB."""
    return f"{max(size, 0) / 1024**3:.1f} GB"


def memory_needed(size_bytes: int) -> int:
    return size_bytes + OVERHEAD_BYTES


def fits(size_bytes: int, gpu: GpuInfo) -> bool:
    """True when the weights plus context/overhead fit the GPU's usable memory (never without a GPU)."""
    return gpu.kind != "none" and memory_needed(size_bytes) <= gpu.usable_bytes


def recommend(gpu: GpuInfo, ram_bytes: int, catalog: tuple[CatalogModel, ...] = CATALOG) -> list[Recommendation]:
    """Catalog models best first: the most accurate ones that run well, then slower ones, then misfits."""
    judged = [(model, *_judge(model, gpu, ram_bytes)) for model in catalog]
    # rank 0: runs well on the GPU, 1: CPU but usable, 2: CPU and very slow, 3: does not fit.
    # Within a rank the most accurate first; misfits smallest (closest to fitting) first.
    judged.sort(key=lambda t: (t[2], -t[0].quality if t[2] < _MISFIT else t[0].size_bytes))
    return [Recommendation(m.name, m.size_bytes, ok, note, m.description) for m, ok, _, note in judged]


def _judge(model: CatalogModel, gpu: GpuInfo, ram_bytes: int) -> tuple[bool, int, str]:
    """(fits, rank, note) for one model on this machine."""
    need = memory_needed(model.size_bytes)
    need_text = f"needs about {format_memory(need)}"
    ram_ok = ram_bytes <= 0 or need <= ram_bytes * RAM_USABLE_FRACTION
    if gpu.kind != "none":
        where = "GPU memory" if gpu.kind == "nvidia" else "usable unified memory"
        if fits(model.size_bytes, gpu):
            return True, 0, f"Fits in {format_memory(gpu.usable_bytes)} of {where} ({need_text})."
        if gpu.kind == "nvidia" and ram_ok:
            return False, _MISFIT, (f"Too big for {format_memory(gpu.usable_bytes)} of GPU memory "
                                    f"({need_text}); Ollama would split it with the CPU and answer slowly.")
        return False, _MISFIT, (f"Will not fit: {need_text}, {format_memory(gpu.usable_bytes)} of {where} "
                                "available.")
    if not ram_ok:
        return False, _MISFIT, f"Will not fit: {need_text}, more than this machine's memory allows."
    if model.size_bytes <= CPU_PRACTICAL_BYTES:
        return True, 1, f"No GPU: runs on the CPU, so expect several seconds per answer ({need_text})."
    return True, 2, f"No GPU: fits in memory but runs very slowly on the CPU ({need_text})."
