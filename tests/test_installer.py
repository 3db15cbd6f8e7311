"""The Linux packages (installer/linux), built from a tiny stand-in bundle: what a user installs is what we meant.

A real PyInstaller bundle is not needed to check packaging: the stand-in is a folder whose ``cairn`` is a small
shell script, so these tests run in seconds. ``scripts/package_check.sh`` runs the real bundle through the same
scripts, installs it with dpkg and upgrades it (root only; not part of this suite).
"""

from __future__ import annotations

import configparser
import importlib.metadata
import os
import shutil
import stat
import struct
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINUX = REPO / "installer" / "linux"
ICONS = REPO / "resources" / "icons"
ICON_SIZES = sorted(int(p.stem.split("-")[1]) for p in ICONS.glob("cairn-*.png"))
VERSION = "1.2.3+4"

needs_dpkg = pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb is not installed")


def _run(*args: str | Path, env: dict[str, str] | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=120,
                            env={**os.environ, **(env or {})})
    if check and result.returncode != 0:
        raise AssertionError(f"{args} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


@pytest.fixture(scope="module")
def fake_dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in onedir bundle: ``cairn`` echoes its arguments, ``_internal`` holds a library-like file."""
    dist = tmp_path_factory.mktemp("dist") / "cairn"
    (dist / "_internal").mkdir(parents=True)
    (dist / "cairn").write_text('#!/bin/sh\necho "stand-in cairn: $*"\n')
    (dist / "cairn").chmod(0o755)
    (dist / "_internal" / "libstandin.so").write_bytes(b"\x7fELF stand-in")
    return dist


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("out")


@pytest.fixture(scope="module")
def deb(fake_dist: Path, out_dir: Path) -> Path:
    if shutil.which("dpkg-deb") is None:
        pytest.skip("dpkg-deb is not installed")
    result = _run("bash", LINUX / "build_deb.sh", fake_dist, VERSION, env={"OUT_DIR": str(out_dir)})
    path = Path(result.stdout.strip().splitlines()[-1])
    assert path == out_dir / f"cairn_{VERSION}_{_arch()}.deb" and path.is_file()
    return path


@pytest.fixture(scope="module")
def deb_root(deb: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("deb-root")
    _run("dpkg-deb", "-x", deb, root)
    _run("dpkg-deb", "-e", deb, root / "DEBIAN")
    return root


@pytest.fixture(scope="module")
def tarball(fake_dist: Path, out_dir: Path) -> Path:
    result = _run("bash", LINUX / "build_tarball.sh", fake_dist, VERSION, env={"OUT_DIR": str(out_dir)})
    path = Path(result.stdout.strip().splitlines()[-1])
    assert path.name == f"cairn-{VERSION}-linux-{os.uname().machine}.tar.gz" and path.is_file()
    return path


def _arch() -> str:
    if shutil.which("dpkg"):
        return _run("dpkg", "--print-architecture").stdout.strip()
    return "amd64"


def _field(deb: Path, name: str) -> str:
    return _run("dpkg-deb", "--field", deb, name).stdout.strip()


def _desktop_entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return dict(parser["Desktop Entry"])


def _validate_desktop(path: Path) -> None:
    if shutil.which("desktop-file-validate"):
        result = _run("desktop-file-validate", path, check=False)
        assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


# ----- .deb ------------------------------------------------------------------------------------------------------

def test_deb_control_names_the_package_its_version_and_the_qt_libraries(deb: Path) -> None:
    assert _field(deb, "Package") == "cairn"
    assert _field(deb, "Version") == VERSION
    assert _field(deb, "Architecture") == _arch()
    depends = {alt.split("(")[0].strip() for group in _field(deb, "Depends").split(",") for alt in group.split("|")}
    # what the bundled Qt's xcb platform plugin and GL integration load from the system
    assert {"libc6", "libgl1", "libegl1", "libfontconfig1", "libdbus-1-3", "libxcb-cursor0", "libxcb-icccm4",
            "libxcb-keysyms1", "libxkbcommon-x11-0", "libx11-xcb1"} <= depends
    assert {"libglib2.0-0t64", "libglib2.0-0"} <= depends  # Debian 13 renamed it; either satisfies
    assert "cairn" in _field(deb, "Description").lower()
    assert int(_field(deb, "Installed-Size")) > 0


@needs_dpkg
def test_deb_version_defaults_to_the_package_metadata(fake_dist: Path, tmp_path: Path) -> None:
    result = _run("bash", LINUX / "build_deb.sh", fake_dist, env={"OUT_DIR": str(tmp_path)})
    built = Path(result.stdout.strip().splitlines()[-1])
    assert _field(built, "Version") == importlib.metadata.version("cairn-sql")


def test_deb_installs_the_bundle_to_opt_cairn_read_only(deb: Path, deb_root: Path) -> None:
    listing = _run("dpkg-deb", "--contents", deb).stdout.splitlines()
    entries = {line.split()[-1]: line.split()[:2] for line in listing}
    mode, owner = entries["./opt/cairn/cairn"]
    assert mode == "-rwxr-xr-x" and owner == "root/root"
    assert "./opt/cairn/_internal/libstandin.so" in entries
    writable = [path for path, (mode, _) in entries.items() if mode[5] == "w" or mode[8] == "w"]
    assert not writable, f"group- or world-writable in the package: {writable}"
    run = _run(deb_root / "opt" / "cairn" / "cairn", "doctor")
    assert run.stdout.strip() == "stand-in cairn: doctor"


def test_deb_puts_cairn_on_path_through_opt_cairn(deb_root: Path) -> None:
    wrapper = deb_root / "usr" / "bin" / "cairn"
    assert wrapper.stat().st_mode & stat.S_IXOTH
    assert 'exec /opt/cairn/cairn "$@"' in wrapper.read_text()
    _run("sh", "-n", wrapper)


def test_deb_desktop_entry_is_valid_and_launches_cairn(deb_root: Path) -> None:
    path = deb_root / "usr" / "share" / "applications" / "cairn.desktop"
    entry = _desktop_entry(path)
    assert entry["Type"] == "Application" and entry["Name"] == "Cairn"
    assert entry["Exec"] == "cairn" and entry["Icon"] == "cairn" and entry["Terminal"] == "false"
    _validate_desktop(path)


def test_deb_ships_every_icon_size(deb_root: Path) -> None:
    hicolor = deb_root / "usr" / "share" / "icons" / "hicolor"
    assert ICON_SIZES, "resources/icons has no cairn-<size>.png"
    for size in ICON_SIZES:
        icon = hicolor / f"{size}x{size}" / "apps" / "cairn.png"
        assert icon.read_bytes() == (ICONS / f"cairn-{size}.png").read_bytes()
        assert struct.unpack(">II", icon.read_bytes()[16:24]) == (size, size)
    assert (hicolor / "scalable" / "apps" / "cairn.svg").is_file()


def test_maintainer_scripts_refresh_caches_only_when_the_tools_exist(deb_root: Path, tmp_path: Path) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    log = tmp_path / "calls.log"
    for tool in ("update-desktop-database", "gtk-update-icon-cache"):
        (tools / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> "{log}"\n')
        (tools / tool).chmod(0o755)
    system_path = "/usr/bin:/bin"
    for script in ("postinst", "postrm"):
        path = deb_root / "DEBIAN" / script
        assert path.stat().st_mode & 0o777 == 0o755
        text = path.read_text()
        assert "$HOME" not in text and "/home" not in text and "rm " not in text, "no package step touches user data"
        action = "configure" if script == "postinst" else "purge"
        log.unlink(missing_ok=True)
        _run("/bin/sh", path, action, env={"PATH": f"{tools}:{system_path}"})
        calls = log.read_text().splitlines()
        assert calls == ["update-desktop-database -q /usr/share/applications",
                         "gtk-update-icon-cache -q -t -f /usr/share/icons/hicolor"]
        empty = tmp_path / "empty"
        empty.mkdir(exist_ok=True)
        for name in ("sh", "true"):  # a system without either cache tool: still exits 0
            if not (empty / name).exists():
                (empty / name).symlink_to(shutil.which(name) or f"/bin/{name}")
        assert _run("/bin/sh", path, action, env={"PATH": str(empty)}, check=False).returncode == 0


def test_deb_md5sums_cover_every_file(deb_root: Path) -> None:
    listed = {line.split(maxsplit=1)[1] for line in (deb_root / "DEBIAN" / "md5sums").read_text().splitlines()}
    files = {str(p.relative_to(deb_root)) for p in deb_root.rglob("*")
             if p.is_file() and not p.is_symlink() and p.relative_to(deb_root).parts[0] != "DEBIAN"}
    assert listed == files


@needs_dpkg
@pytest.mark.parametrize("version", ["v1.0", "1.0 beta", "_"])
def test_deb_refuses_a_bad_version(fake_dist: Path, tmp_path: Path, version: str) -> None:
    result = _run("bash", LINUX / "build_deb.sh", fake_dist, version, env={"OUT_DIR": str(tmp_path)}, check=False)
    assert result.returncode != 0 and "bad version" in result.stderr
    assert not list(tmp_path.glob("*.deb"))


@pytest.mark.parametrize("script", ["build_deb.sh", "build_tarball.sh"])
def test_a_missing_bundle_is_named_with_how_to_build_it(tmp_path: Path, script: str) -> None:
    result = _run("bash", LINUX / script, tmp_path / "nope", "1.0", env={"OUT_DIR": str(tmp_path)}, check=False)
    assert result.returncode != 0
    assert "does not exist" in result.stderr and "scripts/package.sh" in result.stderr


# ----- tar.gz -----------------------------------------------------------------------------------------------------

def test_tarball_is_the_bundle_with_install_notes(tarball: Path) -> None:
    top = f"cairn-{VERSION}-linux-{os.uname().machine}"
    with tarfile.open(tarball) as tar:
        members = {m.name: m for m in tar.getmembers()}
        assert all(name == top or name.startswith(top + "/") for name in members)
        exe = members[f"{top}/cairn"]
        assert exe.isfile() and exe.mode & 0o111 and exe.uid == 0
        assert f"{top}/_internal/libstandin.so" in members
        for size in ICON_SIZES:
            assert f"{top}/icons/cairn-{size}.png" in members
        notes = tar.extractfile(members[f"{top}/INSTALL.txt"]).read().decode()  # type: ignore[union-attr]
    assert f"Cairn {VERSION}" in notes and f"{top}/cairn" in notes
    assert "Import GGUF" in notes and ".local/share/cairn" in notes


def test_tarball_runs_where_unpacked_and_adds_a_menu_entry(tarball: Path, tmp_path: Path) -> None:
    with tarfile.open(tarball) as tar:
        tar.extractall(tmp_path / "opt", filter="data")
    top = next((tmp_path / "opt").iterdir())
    assert _run(top / "cairn", "--help").stdout.strip() == "stand-in cairn: --help"
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_DATA_HOME": ""}
    _run(top / "install-desktop-entry.sh", env=env)
    desktop = home / ".local" / "share" / "applications" / "cairn.desktop"
    entry = _desktop_entry(desktop)
    assert entry["Exec"] == str(top / "cairn") and entry["Icon"] == "cairn"
    _validate_desktop(desktop)
    for size in ICON_SIZES:
        assert (home / ".local" / "share" / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "cairn.png").is_file()
    _run(top / "install-desktop-entry.sh", "--remove", env=env)
    assert not desktop.exists()


# ----- AppImage recipe, Windows icon, package_check ----------------------------------------------------------------

def test_appdir_is_complete_and_its_apprun_starts_cairn(fake_dist: Path, tmp_path: Path) -> None:
    _run("bash", LINUX / "appimage" / "build_appimage.sh", fake_dist, VERSION,
         env={"OUT_DIR": str(tmp_path), "APPDIR_ONLY": "1"})
    appdir = tmp_path / "Cairn.AppDir"
    assert _run(appdir / "AppRun", "selftest").stdout.strip() == "stand-in cairn: selftest"
    entry = _desktop_entry(appdir / "cairn.desktop")
    assert entry["Exec"] == "cairn" and entry["Icon"] == "cairn"
    _validate_desktop(appdir / "cairn.desktop")
    assert (appdir / ".DirIcon").resolve() == (appdir / "cairn.png").resolve()
    assert (appdir / "cairn.png").read_bytes() == (ICONS / f"cairn-{ICON_SIZES[-1]}.png").read_bytes()


@pytest.mark.skipif(shutil.which("appimagetool") is not None, reason="appimagetool is installed here")
def test_appimage_says_plainly_it_was_not_built_without_appimagetool(fake_dist: Path, tmp_path: Path) -> None:
    result = _run("bash", LINUX / "appimage" / "build_appimage.sh", fake_dist, VERSION,
                  env={"OUT_DIR": str(tmp_path), "APPIMAGETOOL": ""}, check=False)
    assert result.returncode == 3 and "NOT built" in result.stderr
    assert not list(tmp_path.glob("*.AppImage"))


def test_windows_icon_holds_every_png_size(tmp_path: Path) -> None:
    out = tmp_path / "cairn.ico"
    _run(sys.executable, REPO / "installer" / "windows" / "make_ico.py", out)
    data = out.read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind, count) == (0, 1, len(ICON_SIZES))
    sizes = []
    for i in range(count):
        width, _, _, _, _, bits, length, offset = struct.unpack("<BBBBHHII", data[6 + 16 * i: 22 + 16 * i])
        png = data[offset: offset + length]
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and bits == 32
        sizes.append(width or 256)
    assert sizes == ICON_SIZES


def test_windows_and_macos_scripts_point_at_the_bundle() -> None:
    iss = (REPO / "installer" / "windows" / "cairn.iss").read_text()
    assert "DefaultDirName={autopf}\\{#AppName}" in iss and "{autoprograms}" in iss
    assert '#define SourceDir "..\\..\\dist\\cairn"' in iss
    directives = [line for line in iss.splitlines() if not line.lstrip().startswith(";")]
    assert not [line for line in directives if "Permissions:" in line], "users must not get write access to {app}"
    _run("bash", "-n", REPO / "installer" / "macos" / "build_app.sh")
    assert "hdiutil create" in (REPO / "installer" / "macos" / "build_app.sh").read_text()


def test_package_check_stops_at_once_without_a_bundle(tmp_path: Path) -> None:
    result = _run("bash", REPO / "scripts" / "package_check.sh", env={"DIST_DIR": str(tmp_path / "none")},
                  check=False)
    assert result.returncode == 2
    assert "missing" in result.stderr and "scripts/package.sh" in result.stderr
    _run("bash", "-n", REPO / "scripts" / "package_check.sh")
