"""The .deb's glibc floor comes from the bundle (issue 32, packaging 1): the highest GLIBC_x.y any ELF file asks
for, read with objdump; build_deb.sh uses it rather than a number written by hand."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from freeze.glibc_floor import glibc_floor

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs objdump (binutils)")
def test_the_floor_is_what_a_bundled_library_asks_for(tmp_path: Path) -> None:
    shutil.copy(Path(sys.executable).resolve(), tmp_path / "python")  # an ELF file of this machine
    (tmp_path / "notes.txt").write_text("GLIBC_9.99 is only text here\n")
    floor = glibc_floor(tmp_path)
    assert (2, 17) <= floor < (9, 0)  # from the binary's version references, not from any text


def test_build_deb_reads_the_floor_from_the_bundle() -> None:
    script = (REPO / "installer" / "linux" / "build_deb.sh").read_text(encoding="utf-8")
    assert "-m freeze.glibc_floor" in script and '"libc6 (>= $GLIBC_FLOOR)"' in script
    assert "2.28" not in script
