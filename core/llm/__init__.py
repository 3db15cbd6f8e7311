"""Everything that talks to Ollama: the chat client the pipeline asks, model administration (list, pull,
import), the catalogue of recommended models and the hardware detection that sizes them."""

from core.llm._admin import GGUF_MAGIC, LoadedModel, OllamaAdmin, OllamaStatus, PullProgress, install_hint
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
