"""torch for Cairn: the CPU libraries and the modules really imported; no headers, tests, test binaries, cmake.

Replaces pyinstaller-hooks-contrib's hook (user hooks take priority), which collects every torch submodule and
every data file: ~100 MB more and minutes of build for things MiniLM inference never touches. The modules
themselves come from ``freeze/probe.py`` (the spec's hidden imports) and from reading the code as usual.
"""

from PyInstaller.utils.hooks import PY_DYLIB_PATTERNS, collect_dynamic_libs

# torch reads some of its own sources (inspect, TorchScript): keep .py beside the compiled modules, as upstream.
module_collection_mode = "pyz+py"
warn_on_missing_hiddenimports = False

_TEST_LIBS = ("test", "backend_with_compiler", "aoti_custom_ops")  # libraries built for torch's own test suite
binaries = [
    (src, dest)
    for src, dest in collect_dynamic_libs("torch", search_patterns=[*PY_DYLIB_PATTERNS, "*.so.*"])
    if not any(word in src.rsplit("/", 1)[-1] for word in _TEST_LIBS) and "/torch/bin/" not in src
]
# ``import torch`` checks that its shared-memory manager exists (torch/__init__.py, _manager_path)
binaries += [(src, dest) for src, dest in collect_dynamic_libs("torch", search_patterns=["torch_shm_manager"])]
datas: list[tuple[str, str]] = []
# as upstream: no links from torch/lib to the top level (they confuse torch about where its libraries are)
bindepend_symlink_suppression = ["**/torch/lib/*.so*"]
