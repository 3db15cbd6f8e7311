"""The layout ARCHITECTURE.md describes: packages named for what they do, public names re-exported, small
modules, resources found through one helper. (Import rules are import-linter contracts; `lint-imports` runs
them in CI before the tests.)"""

from __future__ import annotations

import ast
import importlib
import tomllib
from pathlib import Path

import grimp
import pytest

import resources

REPO = Path(__file__).resolve().parents[1]
MAX_LINES = 500
MAX_MODULES_SIDE_BY_SIDE = 15
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


def test_no_package_holds_more_than_15_modules_side_by_side() -> None:
    crowded = {}
    for package in PACKAGES:
        folder = REPO / package.replace(".", "/")
        modules = [p.name for p in folder.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
        if len(modules) > MAX_MODULES_SIDE_BY_SIDE:
            crowded[package] = len(modules)
    assert not crowded, f"group these into sub-packages named for their parts: {crowded}"


def _import_circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[module] = min(low[module], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == module:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def test_no_import_circle_anywhere() -> None:
    graph = grimp.build_graph("core", "desktop", "resources", include_external_packages=False)
    assert len(graph.modules) > 200
    assert not _import_circles(graph), "modules that import each other, directly or round a circle"


def test_the_circle_finder_finds_a_circle() -> None:
    graph = grimp.ImportGraph()
    for module in ("a", "a.one", "a.two", "a.three", "a.four"):
        graph.add_module(module)
    graph.add_import(importer="a.one", imported="a.two")
    graph.add_import(importer="a.two", imported="a.three")
    graph.add_import(importer="a.three", imported="a.one")
    graph.add_import(importer="a.four", imported="a.one")
    assert _import_circles(graph) == [["a.one", "a.three", "a.two"]]


def test_each_big_room_is_layered_by_a_contract_over_all_its_parts() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    exhaustive = {c["containers"][0] for c in contracts if c["type"] == "layers" and c.get("exhaustive")}
    assert {"core.memory", "core.databases", "desktop"} <= exhaustive
    assert len(contracts) >= 16


def test_every_package_is_on_the_map() -> None:
    """ARCHITECTURE.md names every package folder, so a newcomer finds each part by its name."""
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = [p for p in PACKAGES if p != "resources" and "/".join(p.split(".")) + "/" not in text
               and f"`{p.split('.')[-1]}/`" not in text]
    assert not missing, f"say what these are for in ARCHITECTURE.md: {missing}"
