"""What the start path imports: the pipeline and the command line start without the update cycle, the memory
stores, the model client's pydantic types and PyTorch; the lazy names of core.memory are the ones it declares."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_the_pipeline_and_cli_start_without_the_heavy_parts() -> None:
    loaded = _loaded_after("import core.cli, core.pipeline, core.databases")
    for heavy in ("core.memory.cycle", "core.memory.stores", "core.memory.routing", "core.evaluation", "ollama",
                  "pydantic", "torch", "onnxruntime", "sentence_transformers", "PySide6"):
        assert heavy not in loaded, f"{heavy} is imported on the command line's start path"


def test_each_lazy_name_of_core_memory_is_declared_and_resolves() -> None:
    import core.memory

    tree = ast.parse((ROOT / "core" / "memory" / "__init__.py").read_text(encoding="utf-8"))
    declared = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("core.memory."):
            part = node.module.removeprefix("core.memory.")
            for alias in node.names:
                declared[alias.asname or alias.name] = part if alias.asname is None else f"{part}:{alias.name}"
    assert declared == core.memory._WHERE  # the block for type checkers and the run-time table say the same
    for name in core.memory.__all__:
        assert getattr(core.memory, name) is not None
    assert "no_such_name" not in dir(core.memory)


def test_counts_are_said_in_the_right_number() -> None:
    from core.text import counted

    assert [counted(1, "row"), counted(0, "row"), counted(2048, "row"), counted(2, "entry", "entries")] == \
        ["1 row", "0 rows", "2,048 rows", "2 entries"]
