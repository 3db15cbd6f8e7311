"""Files the command line writes (``--csv``, ``--out``): checked before any work, written whole or not at all.

A path is checked up front (not a folder, a folder we can write in) so a bad one costs nothing and exits 2.
The file is then written to a temp file in the same folder (created with O_EXCL) and renamed over the target at
the end, so a failure or a crash never leaves half a file, and an existing file stays as it was until the new one
is whole. Only regular files are written: a symbolic link (another account may have planted it in a shared folder,
pointing at a file of yours — or, run as root, at any file), a FIFO (which would hang the command), a device or a
socket is refused with what to do. The rename replaces the name itself, never what a link points to.
"""

from __future__ import annotations

import logging
import os
import stat
import tempfile
from pathlib import Path
from types import TracebackType
from typing import IO

from core.errors import InputError
from core.private_files import foreign_link_on_path

__all__ = ["AtomicOutput", "check_output_path", "refuse_special"]

logger = logging.getLogger(__name__)


_EXAMPLE = {"--csv": "rows.csv", "--out": "answers.jsonl"}


def _error(flag: str, path: Path | str, why: str, hint: str = "") -> InputError:
    example = _EXAMPLE.get(flag, "out.txt")
    return InputError(f"Cannot write {flag} {path}: {why}.",
                      hint=hint or f"Give {flag} a file name in a folder you can write to, e.g. {flag} {example}")


def check_output_path(path: Path, flag: str) -> Path:
    """``path`` if a file can be written there (its missing folders may be created); InputError otherwise."""
    try:
        refuse_special(path, flag)
        if path.is_dir():
            raise _error(flag, path, "it is a folder",
                         f"Name a file in it, e.g. {flag} {path / _EXAMPLE.get(flag, 'out.txt')}")
        folder = path.resolve().parent
        existing = folder
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        if not existing.is_dir():
            raise _error(flag, path, f"{existing} is a file, not a folder")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise _error(flag, path, f"no permission to write in {existing}")
    except (OSError, ValueError) as exc:  # a NUL byte in the name, a name too long, a loop of links
        raise _error(flag, path if "\x00" not in str(path) else repr(str(path)),
                     getattr(exc, "strerror", None) or str(exc)) from exc
    return path


def refuse_special(path: Path, flag: str) -> None:
    """InputError when ``path`` is a symbolic link or exists as anything but a regular file or a folder, or when a
    folder on its way is a link another account made."""
    planted = foreign_link_on_path(path)
    if planted is not None:
        raise _error(flag, path, f"{planted} is a link another account made; Cairn does not write through it",
                     f"Give {flag} a path through folders of your own, e.g. {flag} ~/{_EXAMPLE.get(flag, 'out.txt')}")
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):  # nothing there (a folder on the way may be a file: said later)
        return
    what = ("a symbolic link" if stat.S_ISLNK(info.st_mode) else "a named pipe" if stat.S_ISFIFO(info.st_mode)
            else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
            else "a socket" if stat.S_ISSOCK(info.st_mode) else "")
    if what:
        raise _error(flag, path, f"it is {what}; Cairn writes only regular files it names itself",
                     f"Give {flag} the path of a new or existing regular file, e.g. {flag} "
                     f"{_EXAMPLE.get(flag, 'out.txt')}")


class AtomicOutput:
    """A text file written under a temp name and renamed into place by :meth:`commit`.

    Leaving the ``with`` block without ``commit`` removes the temp file; the target is untouched.
    """

    def __init__(self, path: Path, flag: str, *, newline: str | None = None) -> None:
        self.path, self.flag = path, flag
        self._tmp: Path | None = None
        refuse_special(path, flag)  # again at opening: the check may have been long before
        try:
            target = path.resolve()
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            self._tmp, self._target = Path(tmp), target
            self.fh: IO[str] = os.fdopen(fd, "w", encoding="utf-8", newline=newline)
        except (OSError, ValueError) as exc:
            raise _error(flag, path, getattr(exc, "strerror", None) or str(exc)) from exc

    def write(self, text: str) -> None:
        try:
            self.fh.write(text)
        except OSError as exc:
            raise _error(self.flag, self.path, exc.strerror or str(exc)) from exc

    def flush(self) -> None:
        try:
            self.fh.flush()
        except OSError as exc:
            raise _error(self.flag, self.path, exc.strerror or str(exc)) from exc

    def commit(self) -> None:
        """Make the file whole on disk and put it in place of the target."""
        try:
            self.fh.flush()
            if self._tmp is not None:
                os.fsync(self.fh.fileno())
            self.fh.close()
            if self._tmp is not None:
                os.replace(self._tmp, self._target)
                self._tmp = None
        except OSError as exc:
            raise _error(self.flag, self.path, exc.strerror or str(exc)) from exc

    def discard(self) -> None:
        try:
            self.fh.close()
        except OSError:
            pass
        if self._tmp is not None:
            self._tmp.unlink(missing_ok=True)
            self._tmp = None

    def __enter__(self) -> AtomicOutput:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.discard()

