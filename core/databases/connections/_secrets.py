"""Where database passwords live: the OS keyring when it is real, else memory for this session only.

Cairn never writes a password to its own files. When no secure keyring backend exists (headless Linux
without Secret Service, a plaintext file backend), passwords are kept in memory and asked for again next
session. Keyring failures are translated here, at the boundary, into :class:`core.errors.ConfigError`.
"""

from __future__ import annotations

import importlib
import logging
import threading
from typing import Any, Protocol, runtime_checkable

from core.errors import ConfigError

__all__ = [
    "FALLBACK_CHAIN",
    "KEYRING_SERVICE",
    "NO_KEYRING_WHY",
    "SECRET_BACKENDS",
    "KeyringSecretStore",
    "SecretStore",
    "SessionSecretStore",
    "open_secret_store",
]

logger = logging.getLogger(__name__)

KEYRING_SERVICE = "cairn"
NO_KEYRING_WHY = (
    "No secure keyring backend was found (e.g. headless Linux without Secret Service), so passwords are "
    "asked for each session and never written to disk."
)
_KEYRING_HINT = (
    "Unlock the system keyring (GNOME Keyring, KWallet, macOS Keychain, Windows Credential Manager) and try "
    "again, or leave the password out and type it when connecting."
)

# Backend name -> "module:Class". open_secret_store walks FALLBACK_CHAIN from the preferred name onwards.
SECRET_BACKENDS: dict[str, str] = {
    "keyring": "core.databases.connections._secrets:KeyringSecretStore",
    "session": "core.databases.connections._secrets:SessionSecretStore",
}
FALLBACK_CHAIN: tuple[str, ...] = ("keyring", "session")

# Backends that exist but do not keep a secret safe (nothing stored, or stored as plain text on disk).
_INSECURE_BACKEND_MARKERS = ("fail", "null", "plaintext")


@runtime_checkable
class SecretStore(Protocol):
    """A small key -> secret store. ``secure`` is False when secrets only live for this session."""

    secure: bool
    why: str  # one sentence saying where secrets are kept, shown to people when not secure

    def get(self, key: str) -> str | None: ...

    def set(self, key: str, secret: str) -> None: ...

    def delete(self, key: str) -> None:
        """Forget ``key``; forgetting a missing key is not an error."""
        ...


class SessionSecretStore:
    """Secrets in memory only: they vanish when Cairn quits and never touch the disk."""

    secure = False

    def __init__(self, why: str = NO_KEYRING_WHY) -> None:
        self.why = why
        self._secrets: dict[str, str] = {}
        self._lock = threading.Lock()

    @classmethod
    def open(cls) -> SessionSecretStore:
        return cls()

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._secrets.get(key)

    def set(self, key: str, secret: str) -> None:
        with self._lock:
            self._secrets[key] = secret

    def delete(self, key: str) -> None:
        with self._lock:
            self._secrets.pop(key, None)


class KeyringSecretStore:
    """Secrets in the OS keyring under service ``cairn``, through the ``keyring`` package."""

    secure = True

    def __init__(self, backend: Any, *, service: str = KEYRING_SERVICE) -> None:
        self._backend = backend
        self.service = service
        self.why = f"Passwords are kept in the system keyring ({backend_label(backend)})."

    @classmethod
    def open(cls) -> KeyringSecretStore:
        """The store on the current keyring backend; ConfigError when that backend is not a secure one."""
        try:
            import keyring

            backend = keyring.get_keyring()
        except Exception as exc:  # noqa: BLE001 - keyring raises many kinds while choosing a backend
            raise ConfigError(f"The system keyring could not be opened: {exc}", hint=_KEYRING_HINT) from exc
        if not is_secure_backend(backend):
            raise ConfigError(f"The keyring backend {backend_label(backend)} is not a secure store.",
                              hint=_KEYRING_HINT)
        return cls(backend)

    def get(self, key: str) -> str | None:
        try:
            secret: str | None = self._backend.get_password(self.service, key)
        except Exception as exc:  # noqa: BLE001 - keyring.errors.* and D-Bus/Keychain errors alike
            raise self._error("read", key, exc) from exc
        return secret

    def set(self, key: str, secret: str) -> None:
        try:
            self._backend.set_password(self.service, key, secret)
        except Exception as exc:  # noqa: BLE001
            raise self._error("save", key, exc) from exc

    def delete(self, key: str) -> None:
        from keyring.errors import PasswordDeleteError

        try:
            self._backend.delete_password(self.service, key)
        except PasswordDeleteError:
            logger.debug("no saved secret for %s to delete", key)
        except Exception as exc:  # noqa: BLE001
            raise self._error("delete", key, exc) from exc

    def _error(self, verb: str, key: str, exc: Exception) -> ConfigError:
        # The message names the key (a password-free connection id), never the secret.
        return ConfigError(f"Could not {verb} the password for {key} in the system keyring: {exc}",
                           hint=_KEYRING_HINT)


def backend_label(backend: Any) -> str:
    return f"{type(backend).__module__}.{type(backend).__name__}"


def is_secure_backend(backend: Any) -> bool:
    """A real keyring: not keyring's fail/null backends, not a plaintext file, and a positive priority."""
    label = backend_label(backend).lower()
    if any(marker in label for marker in _INSECURE_BACKEND_MARKERS):
        return False
    try:
        priority = float(getattr(backend, "priority", 1))
    except Exception:  # noqa: BLE001 - a backend whose priority check itself fails is not usable
        return False
    return priority > 0


def _load(dotted: str) -> Any:
    module_name, _, attr = dotted.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def open_secret_store(preferred: str = FALLBACK_CHAIN[0]) -> SecretStore:
    """The first backend of the fallback chain (from ``preferred`` on) that opens; always at least session."""
    if preferred not in SECRET_BACKENDS:
        raise ConfigError(f"Unknown secret store {preferred!r}.",
                          hint=f"Choose one of: {', '.join(SECRET_BACKENDS)}.")
    chain = FALLBACK_CHAIN[FALLBACK_CHAIN.index(preferred):] if preferred in FALLBACK_CHAIN else (preferred,)
    for name in chain:
        try:
            store: SecretStore = _load(SECRET_BACKENDS[name]).open()
        except ConfigError as exc:
            logger.info("secret store %r unavailable: %s", name, exc)
            continue
        logger.debug("secret store: %s", name)
        return store
    return SessionSecretStore()
