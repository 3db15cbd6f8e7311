"""Files and folders readable by their owner alone (0600 / 0700), whatever the umask, never through a device.

One place for the rule every store of personal data follows (memories, history, journals, locks).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["make_private", "make_private_dir", "private_opener", "touch_private"]


def private_opener(path: str, flags: int) -> int:
    """An ``opener`` for :func:`open` that creates the file 0600 (and tightens an existing one of ours)."""
    fd = os.open(path, flags, 0o600)
    make_private(fd)
    return fd


def make_private(fd: int) -> None:
    """0600 for a regular file of ours that others could read (never a device such as /dev/full)."""
    if os.name != "posix":
        return
    st = os.fstat(fd)
    if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and st.st_mode & 0o077:
        os.fchmod(fd, 0o600)


def make_private_dir(directory: Path) -> None:
    """0700 for a directory of ours that others could enter."""
    if os.name != "posix":
        return
    st = directory.stat()
    if st.st_uid == os.getuid() and st.st_mode & 0o077:
        directory.chmod(0o700)


def touch_private(path: Path) -> None:
    """Create ``path`` (a lock file) as 0600, or make an existing one so."""
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        make_private(fd)
    finally:
        os.close(fd)
