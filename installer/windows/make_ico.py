"""Write cairn.ico (every PNG size from resources/icons, PNG-compressed entries) for the Windows installer.

    python installer/windows/make_ico.py [OUT]        # default: installer/windows/cairn.ico (not committed)

Pure standard library, so it runs wherever the Windows PyInstaller build runs (no Pillow). PNG entries inside
an ICO are what Windows Vista and later read for every size; the 256 px entry is stored with size byte 0.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

__all__ = ["ico_bytes", "main"]

ICONS = Path(__file__).resolve().parents[2] / "resources" / "icons"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _png_size(data: bytes) -> tuple[int, int]:
    if data[:8] != PNG_MAGIC or data[12:16] != b"IHDR":
        raise ValueError("not a PNG file")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def ico_bytes(pngs: list[bytes]) -> bytes:
    """An ICO holding these PNGs (square, 1 to 256 px), smallest first."""
    entries = sorted(((_png_size(p), p) for p in pngs), key=lambda e: e[0][0])
    header = struct.pack("<HHH", 0, 1, len(entries))
    offset = len(header) + 16 * len(entries)
    directory, images = b"", b""
    for (width, height), data in entries:
        if width != height or not 1 <= width <= 256:
            raise ValueError(f"icon sizes must be square, 1 to 256 px, not {width}x{height}")
        directory += struct.pack("<BBBBHHII", width % 256, height % 256, 0, 0, 1, 32, len(data), offset)
        images += data
        offset += len(data)
    return header + directory + images


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path(__file__).with_name("cairn.ico")
    pngs = [p.read_bytes() for p in sorted(ICONS.glob("cairn-*.png"))]
    if not pngs:
        print(f"no cairn-*.png in {ICONS}", file=sys.stderr)
        return 1
    out.write_bytes(ico_bytes(pngs))
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
