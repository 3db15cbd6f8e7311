"""What build.spec leaves out of the bundle, and how it makes the executable, on Linux, macOS and Windows.

Kept here rather than in the spec so the rules can be tested on the Linux build machine for every platform
(tests/test_bundle_rules.py): PyInstaller names bundle entries with the platform's own separator (``\\`` on
Windows) and libraries in the platform's own way (``libQt6Pdf.so.6``, ``Qt6Pdf.dll``, ``QtPdf.framework/…``,
``libcudart.12.dylib``, ``cudart64_12.dll``), so every rule reads a name through ``_posix`` and ``library_stem``.

Executable and app bundle, per PyInstaller 6's documentation:
- Windows: one console executable is both the command line and the window; ``hide_console="hide-early"`` hides
  the console PyInstaller's bootloader would otherwise open beside the window when Cairn is started from the
  Start menu or Explorer (started from a terminal, the console is the terminal's and stays); the icon is
  ``installer/windows/cairn.ico`` (``make_ico.py``).
- macOS: a ``BUNDLE`` step makes ``Cairn.app``; PyInstaller 6 lays it out itself — the executable in
  ``Contents/MacOS``, the collected files in ``Contents/Frameworks`` (where the bootloader looks for them inside a
  .app) and data in ``Contents/Resources`` — so installer/macos/build_app.sh only signs it and makes the .dmg.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["BUNDLE_ID", "bundle_options", "dropped_binary", "dropped_data", "exe_options", "library_stem"]

BUNDLE_ID = "org.cairn.Cairn"

# Files hooks collect that the app never reads: Qt's translations (Cairn installs no QTranslator), C/C++ headers,
# cmake files, static libraries and stubs.
_DROP_PATHS = re.compile(r"(^|/)PySide6/(Qt/)?translations/|(^|/)PySide6/(include|typesystems|glue|scripts)/"
                         r"|\.(h|hpp|cuh|cmake|a|lib|pyi)$")
# Qt libraries and plugins for what Cairn never shows: the on-screen keyboard and PDF files as images pull in Qt
# Quick, QML and Qt PDF (~25 MB); the GTK 3 platform theme (Cairn draws with Fusion) would carry whatever GTK
# stack the build machine has.
_DROP_LIBRARIES = re.compile(r"^(qt6?(pdf|qml\w*|quick\w*|virtualkeyboard\w*)|qtvirtualkeyboardplugin|qpdf|"
                             r"qgtk3)$")
# GPU runtimes a library probes for when the build machine happens to have them (libcudart came in this way):
# nothing of Cairn links them, and the bundle must not depend on what the build machine has installed.
_BUILD_MACHINE_ONLY = re.compile(r"^(cuda|cudart|cublas|cudnn|cufft|curand|cusolver|cusparse|nvrtc|nvjitlink|"
                                 r"nvidia|nccl|nvtoolsext)[\w.-]*$")
# The GTK stack only the dropped GTK 3 platform theme links (checked with ldd over the Linux bundle).
_GTK_THEME_ONLY = re.compile(r"^(gtk-3|gdk-3|atk-1\.0|atk-bridge-2\.0|atspi|epoxy|cairo|cairo-gobject|pango-1\.0|"
                             r"pangocairo-1\.0|pangoft2-1\.0|gdk_pixbuf-2\.0|pixman-1|fribidi|thai|datrie|"
                             r"xcomposite|xcursor|xdamage|xfixes|xi|xinerama|xrandr)$")


def _posix(name: str) -> str:
    return name.replace("\\", "/")


def library_stem(name: str) -> str:
    """A shared library's name without directory, ``lib`` prefix, version and extension, lower case:
    ``libQt6Pdf.so.6`` / ``Qt6Pdf.dll`` / ``QtPdf.framework/Versions/A/QtPdf`` → ``qt6pdf`` / ``qtpdf``;
    ``libcudart.so.12`` / ``libcudart.12.dylib`` / ``cudart64_12.dll`` → ``cudart…``."""
    path = _posix(name)
    framework = re.search(r"([^/]+)\.framework(/|$)", path)
    base = framework.group(1) if framework else path.rsplit("/", 1)[-1]
    base = re.sub(r"(\.so(\.\d+)*|(\.\d+)*\.dylib|\.dll|\.pyd)$", "", base, flags=re.IGNORECASE)
    if base.startswith("lib") and not framework:
        base = base[3:]
    return base.lower()


def dropped_data(dest: str) -> bool:
    """Is this data file (its name inside the bundle) one the app never reads?"""
    return bool(_DROP_PATHS.search(_posix(dest)))


def dropped_binary(dest: str) -> bool:
    """Is this binary (its name inside the bundle) one the bundle must not carry?"""
    path = _posix(dest)
    if _DROP_PATHS.search(path):
        return True
    stem = library_stem(path)
    return bool(_DROP_LIBRARIES.match(stem) or _BUILD_MACHINE_ONLY.match(stem) or _GTK_THEME_ONLY.match(stem))


def exe_options(platform: str, root: Path) -> dict[str, Any]:
    """EXE() keyword arguments for ``platform`` (``sys.platform``)."""
    options: dict[str, Any] = {"console": True}  # the same executable is the command line
    if platform == "win32":
        options["hide_console"] = "hide-early"  # no console beside the window when started from the Start menu
        options["icon"] = str(root / "installer" / "windows" / "cairn.ico")
    elif platform == "darwin":
        options["icon"] = str(root / "build" / "cairn.icns")
    return options


def bundle_options(platform: str, root: Path, version: str) -> dict[str, Any] | None:
    """BUNDLE() keyword arguments on macOS (a ``Cairn.app`` laid out by PyInstaller); None elsewhere."""
    if platform != "darwin":
        return None
    return {
        "name": "Cairn.app",
        "icon": str(root / "build" / "cairn.icns"),  # made by installer/macos/build_app.sh before the build
        "bundle_identifier": BUNDLE_ID,
        "version": version,
        "info_plist": {
            "CFBundleName": "Cairn", "CFBundleDisplayName": "Cairn", "CFBundleShortVersionString": version,
            "LSMinimumSystemVersion": "12.0", "LSApplicationCategoryType": "public.app-category.productivity",
            "NSHighResolutionCapable": True, "NSRequiresAquaSystemAppearance": False,
        },
    }
