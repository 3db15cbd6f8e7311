"""The oldest glibc the bundle can run on: the highest ``GLIBC_x.y`` version any of its ELF files asks for.

    .venv/bin/python -m freeze.glibc_floor dist/cairn        # prints e.g. 2.36

The .deb's ``Depends: libc6 (>= …)`` is this number (``installer/linux/build_deb.sh``), so a system too old for
the bundled libraries refuses the package instead of installing one that cannot start. Read from each file's
version references (``objdump -p``), which name every glibc symbol version it needs.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

__all__ = ["glibc_floor"]

_VERSION = re.compile(r"\bGLIBC_(\d+)\.(\d+)(?:\.(\d+))?\b")


def _elf_files(root: Path) -> list[Path]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            try:
                with path.open("rb") as fh:
                    if fh.read(4) == b"\x7fELF":
                        found.append(path)
            except OSError:
                continue
    return found


def glibc_floor(root: Path) -> tuple[int, ...]:
    """The highest glibc version the ELF files under ``root`` need; (2, 17) when none names one."""
    files = _elf_files(root)
    best: tuple[int, ...] = (2, 17)
    for start in range(0, len(files), 64):
        out = subprocess.run(["objdump", "-p", *map(str, files[start:start + 64])], capture_output=True,
                             text=True, errors="replace").stdout
        for match in _VERSION.finditer(out):
            version = tuple(int(g) for g in match.groups() if g is not None)
            best = max(best, version)
    return best


def main(argv: list[str] | None = None) -> int:
    root = Path((argv or sys.argv[1:] or ["dist/cairn"])[0])
    print(".".join(map(str, glibc_floor(root))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
