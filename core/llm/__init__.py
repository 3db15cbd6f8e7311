"""Everything that talks to Ollama: the chat client the pipeline asks, model administration (list, pull,
import), the catalogue of recommended models and the hardware detection that sizes them.

Model administration (``_admin``) imports the ``ollama`` client and pydantic (~0.2 s): it is imported when one of
its names is first used, so commands and the pipeline start without it (the chat client imports ``ollama`` at its
first call). The desktop imports it on the GUI thread once the login shows (``desktop.shell.app``).
"""

from typing import Any

from core.llm._cancel import TokenProgress, cancellable, current_cancel, current_token_progress, token_progress
from core.llm._catalog import CATALOG, CatalogModel, Recommendation, fits, format_bytes, format_memory, recommend
from core.llm._client import LLM, SQL_OPTIONS, ModelInfo, OllamaLLM
from core.llm._hardware import GpuInfo, detect_gpu, total_ram_bytes

__all__ = [
    "CATALOG",
    "GGUF_MAGIC",
    "LLM",
    "SQL_OPTIONS",
    "TokenProgress",
    "CatalogModel",
    "GpuInfo",
    "LoadedModel",
    "ModelInfo",
    "OllamaAdmin",
    "OllamaLLM",
    "OllamaStatus",
    "PullProgress",
    "Recommendation",
    "cancellable",
    "current_cancel",
    "current_token_progress",
    "detect_gpu",
    "fits",
    "format_bytes",
    "format_memory",
    "install_hint",
    "recommend",
    "token_progress",
    "total_ram_bytes",
]

_ADMIN = frozenset({"GGUF_MAGIC", "LoadedModel", "OllamaAdmin", "OllamaStatus", "PullProgress", "install_hint"})


def __getattr__(name: str) -> Any:
    if name in _ADMIN:
        from core.llm import _admin

        return getattr(_admin, name)
    raise AttributeError(f"module 'core.llm' has no attribute {name!r}")
