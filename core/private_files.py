"""Files and folders readable by their owner alone (0600 / 0700), whatever the umask, never through a device.

One place for the rule every store of personal data follows (memories, history, journals, locks).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

__all__ = ["append_json_line", "foreign_link_on_path", "json_line", "make_private", "make_private_dir",
           "private_opener", "touch_private"]


def foreign_link_on_path(path: Path) -> Path | None:
    """The first folder on the way to ``path`` that is a symbolic link another account made (not this process's
    user, not root), or None. Such a link in a shared folder (``/tmp/x`` -> ``/root`` or ``/home/you``) would
    send a file Cairn writes into a folder of the link's choosing: the same rule as Linux's protected_symlinks,
    applied to every folder of the path, not only to sticky ones."""
    me = os.geteuid() if hasattr(os, "geteuid") else None
    if me is None:
        return None
    absolute = Path(os.path.abspath(path))
    for folder in reversed(absolute.parents):
        try:
            info = os.lstat(folder)
        except OSError:
            return None  # a folder that does not exist yet: nothing further can be a link
        if stat.S_ISLNK(info.st_mode) and info.st_uid not in (me, 0):
            return folder
    return None


def private_opener(path: str, flags: int) -> int:
    """An ``opener`` for :func:`open` that creates the file 0600 (and tightens an existing one of ours), and never
    opens it through a symbolic link: one planted in its place by another account would send the writes (appends
    of ``eval --resume``, a history line) to the file it points at."""
    try:
        fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as exc:
        if os.path.islink(path):
            raise OSError(exc.errno, f"{path} is a symbolic link; Cairn does not write through links "
                                     "(remove it, or give the real file)") from exc
        raise
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


def json_line(payload: dict[str, Any]) -> str:
    """One JSON line; text that UTF-8 cannot hold (a lone surrogate) is written as a JSON escape."""
    text = json.dumps(payload, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(payload, ensure_ascii=True)
    return text + "\n"


def append_json_line(path: Path, payload: dict[str, Any]) -> None:
    """Append one whole JSON line to a private journal (0700 folder, 0600 file), under an inter-process lock,
    flushed to disk; a fragment left by a crash is ended first so the new line stays whole. Raises OSError."""
    import fasteners

    line = json_line(payload)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    make_private_dir(path.parent)
    touch_private(Path(str(path) + ".lock"))
    with fasteners.InterProcessLock(str(path) + ".lock"):
        with open(path, "a+b", opener=private_opener) as fh:
            if fh.tell() > 0:  # a crash mid-line left a fragment: end it, or this line is glued on
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    line = "\n" + line
            fh.write(line.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
