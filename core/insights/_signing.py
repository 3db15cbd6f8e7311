"""An agent's signing key for shared insights: who wrote a record, and who may change or delete it.

Anyone who can write the shared store could otherwise claim another agent's ``agent_id`` — hiding that agent's
follow-ups from it and deleting its records with ``purge --mine``. So each agent holds an Ed25519 key
(``cryptography``, never hand-written), made at first use in a folder of its own in the data directory, 0600, and
never shared; a record carries its author's public key and a signature over its content, and a change to a record
counts only when signed by that key. The identity is the key: ``agent_id`` is a label.

The key file is refused, with a message, when it is a symbolic link or others may read it: a key someone else
could have read or swapped is not this agent's alone.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from core.errors import InsightKeyError
from core.private_files import make_private_dir

__all__ = ["KEY_FILE", "AgentKey", "agent_folder", "canonical", "change_bytes", "verify"]

KEY_FILE = "signing-key.pem"
_AGENTS = "insight-agents"
_PUBLIC_BYTES = 32
_SIGNATURE_BYTES = 64


def canonical(payload: Any) -> bytes:
    """What is signed: sorted-key compact JSON in UTF-8 (the same bytes on every machine for the same content)."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("utf-8")


def change_bytes(action: str, record_ids: Sequence[str], payload: str, at: float) -> bytes:
    """What a change line signs: the action, the records it is for (so it cannot be replayed on others), what it
    changes and when."""
    return canonical({"action": action, "record_ids": [str(i) for i in record_ids], "payload": payload,
                      "at": float(at)})


def agent_folder(data_dir: str | os.PathLike[str], agent_id: str) -> Path:
    """This agent's private folder (its key, its thumbs-down list): one per agent id in the data directory, named
    by a hash so any id is a safe folder name."""
    digest = hashlib.sha256(agent_id.encode("utf-8")).hexdigest()[:16]
    return Path(data_dir) / _AGENTS / digest


class AgentKey:
    """One agent's Ed25519 private key, and its public half as base64 text (what records carry)."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        raw = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.public_b64 = base64.b64encode(raw).decode("ascii")

    @classmethod
    def generate(cls) -> AgentKey:
        """A new key held in memory only (tests; an agent's own comes from :meth:`load_or_create`)."""
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def load_or_create(cls, path: str | os.PathLike[str]) -> AgentKey:
        """The key in ``path``, made there (0600, atomically, never over another) when there is none yet.
        Raises InsightKeyError for a file that is a link, not a regular file, others' to read, or not a key."""
        path = Path(path)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        make_private_dir(path.parent)
        try:
            return cls(_load(path))
        except FileNotFoundError:
            pass
        key = Ed25519PrivateKey.generate()
        if _create(path, key):
            return cls(key)
        return cls(_load(path))  # another process made it first: use that one

    def sign(self, data: bytes) -> str:
        return base64.b64encode(self._private.sign(data)).decode("ascii")

    def __repr__(self) -> str:
        return f"AgentKey({self.public_b64})"  # never the private half


def verify(public_b64: str, data: bytes, signature_b64: str) -> bool:
    """Whether ``signature_b64`` is ``public_b64``'s signature of ``data``; False for anything malformed."""
    try:
        public = base64.b64decode(public_b64.encode("ascii"), validate=True)
        signature = base64.b64decode(signature_b64.encode("ascii"), validate=True)
        if len(public) != _PUBLIC_BYTES or len(signature) != _SIGNATURE_BYTES:
            return False
        Ed25519PublicKey.from_public_bytes(public).verify(signature, data)
    except (InvalidSignature, ValueError, TypeError, AttributeError, UnicodeError, binascii.Error):
        return False
    return True


_FIX = ("Delete the file to make a new key (records shared with the old key stay in the store but are no "
        "longer this agent's to change), or restore it as a regular file only you can read (chmod 600).")


def _load(path: Path) -> Ed25519PrivateKey:
    """The key in ``path``; FileNotFoundError when there is none. Checked on the open descriptor (no race)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        if path.is_symlink():  # a dangling link is a link all the same
            raise InsightKeyError(f"The signing key {path} is a symbolic link; Cairn does not follow it.",
                                  hint=_FIX) from None
        raise
    except OSError as exc:
        if path.is_symlink():
            raise InsightKeyError(f"The signing key {path} is a symbolic link; Cairn does not follow it.",
                                  hint=_FIX) from exc
        raise InsightKeyError(f"Cannot read the signing key {path}: {exc.strerror or exc}.", hint=_FIX) from exc
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise InsightKeyError(f"The signing key {path} is not a regular file.", hint=_FIX)
        if os.name == "posix" and (info.st_mode & 0o077 or info.st_uid != os.geteuid()):
            raise InsightKeyError(f"The signing key {path} may be read or changed by others "
                                  f"(mode {stat.S_IMODE(info.st_mode):o}); it is refused.", hint=_FIX)
        data = fh.read(64 * 1024)
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise InsightKeyError(f"The signing key {path} is not a key Cairn can read.", hint=_FIX) from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise InsightKeyError(f"The signing key {path} is not an Ed25519 key.", hint=_FIX)
    return key


def _create(path: Path, key: Ed25519PrivateKey) -> bool:
    """Write ``key`` to ``path`` whole or not at all: a 0600 temporary file made with O_EXCL, fsynced, then linked
    to its name (which fails rather than replace a key another process just made). False when one was there."""
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(tmp, flags, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(pem)
                fh.flush()
                os.fsync(fh.fileno())
            os.link(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    except FileExistsError:
        return False
    except OSError as exc:
        raise InsightKeyError(f"Cannot write the signing key {path}: {exc.strerror or exc}.",
                              hint="Check that the data folder is yours and writable.") from exc
    return True
