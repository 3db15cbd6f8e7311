"""The layout ARCHITECTURE.md describes: packages named for what they do, public names re-exported, small
modules, resources found through one helper. (Import rules are import-linter contracts; `lint-imports` runs
them in CI before the tests.)"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import resources

REPO = Path(__file__).resolve().parents[1]
MAX_LINES = 500
PACKAGES = sorted(
    ".".join(p.parent.relative_to(REPO).parts)
    for root in ("core", "desktop", "resources")
    for p in (REPO / root).rglob("__init__.py")
)


def test_no_source_module_is_over_500_lines() -> None:
    big = {str(p.relative_to(REPO)): n for root in ("core", "desktop", "resources") for p in (REPO / root).rglob("*.py")
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not big, f"split these along their seams: {big}"


def test_no_prefix_named_modules_left_in_core() -> None:
    flat = sorted(p.name for p in (REPO / "core").glob("*.py")
                  if p.name.startswith(("sql_", "fallback_", "cli", "memory_", "schema_")))
    assert not flat, f"these belong in a package: {flat}"


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_says_what_it_is_for_and_exports_real_names(package: str) -> None:
    module = importlib.import_module(package)
    assert (module.__doc__ or "").strip(), f"{package}/__init__.py needs a docstring saying what it is for"
    tree = ast.parse((REPO / package.replace(".", "/") / "__init__.py").read_text(encoding="utf-8"))
    if any(isinstance(node, (ast.Import, ast.ImportFrom)) for node in tree.body if not (
            isinstance(node, ast.ImportFrom) and node.module == "__future__")):
        exported = getattr(module, "__all__", None)
        assert exported, f"{package} imports names but has no __all__"
        missing = [name for name in exported if not hasattr(module, name)]
        assert not missing, f"{package}.__all__ names what it does not have: {missing}"


def test_resources_load_through_importlib_resources() -> None:
    style = resources.read_text("styles/app.qss")
    assert "#memoryChip" in style
    icons = resources.icon_files()
    assert [size for size, _ in icons] == list(resources.ICON_SIZES)
    assert all(data.startswith(b"\x89PNG\r\n\x1a\n") for _, data in icons)


def test_a_missing_resource_says_what_to_do() -> None:
    with pytest.raises(FileNotFoundError, match="reinstall Cairn"):
        resources.resource("icons/nope.png")
