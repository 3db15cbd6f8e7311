"""Files the window loads that are not code: the application icon in several sizes and the style sheet.

One way in, :func:`resource`, through :mod:`importlib.resources`, so the same call works from a source
checkout, an installed wheel and a frozen bundle. Plain files only: nothing here imports Qt or the engine.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

__all__ = ["ICON_SIZES", "icon_files", "read_text", "resource"]

ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)
"""The sizes of ``icons/cairn-<size>.png``, rendered from ``icons/cairn.svg`` by ``scripts/render_icons.py``."""


def resource(name: str) -> Traversable:
    """The packaged file ``name`` (a ``/``-separated path under ``resources/``); raises FileNotFoundError."""
    path = files(__name__).joinpath(*name.split("/"))
    if not path.is_file():
        raise FileNotFoundError(f"Cairn resource {name!r} is missing from {files(__name__)}; reinstall Cairn.")
    return path


def read_text(name: str) -> str:
    return resource(name).read_text(encoding="utf-8")


def icon_files() -> list[tuple[int, bytes]]:
    """The application icon as (size, PNG bytes), smallest first."""
    return [(size, resource(f"icons/cairn-{size}.png").read_bytes()) for size in ICON_SIZES]
