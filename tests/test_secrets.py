"""Secret stores: the OS keyring when a real backend exists, else memory for this session only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail, null
from keyring.errors import KeyringLocked, PasswordDeleteError

from core.config import data_dir
from core.errors import ConfigError
from core.databases.connections._secrets import (
    KEYRING_SERVICE,
    NO_KEYRING_WHY,
    KeyringSecretStore,
    SecretStore,
    SessionSecretStore,
    open_secret_store,
)


class MemoryKeyring(KeyringBackend):
    """A real keyring backend that keeps secrets in a dict (tests only)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.secrets.pop((service, username), None) is None:
            raise PasswordDeleteError("not found")


class LockedKeyring(MemoryKeyring):
    """A keyring whose every read and write fails, as a locked Secret Service does."""

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringLocked("the collection is locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringLocked("the collection is locked")


class PlaintextKeyring(MemoryKeyring):
    """Named like keyrings.alt's file backend, which writes passwords to disk unencrypted."""


@pytest.fixture
def use_keyring() -> Iterator[object]:
    """Set a keyring backend for one test and restore the previous one afterwards."""
    previous = keyring.get_keyring()

    def install(backend: KeyringBackend) -> KeyringBackend:
        keyring.set_keyring(backend)
        return backend

    yield install
    keyring.set_keyring(previous)


def _files_containing(root: Path, secret: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_real_backend_gives_the_keyring_store(use_keyring) -> None:
    backend = use_keyring(MemoryKeyring())
    store = open_secret_store()
    assert isinstance(store, KeyringSecretStore) and isinstance(store, SecretStore)
    assert store.secure
    store.set("postgresql://ann@db:5432/sales", "pa:ss@word")
    assert backend.secrets[(KEYRING_SERVICE, "postgresql://ann@db:5432/sales")] == "pa:ss@word"
    assert store.get("postgresql://ann@db:5432/sales") == "pa:ss@word"
    store.delete("postgresql://ann@db:5432/sales")
    assert store.get("postgresql://ann@db:5432/sales") is None
    store.delete("postgresql://ann@db:5432/sales")  # forgetting twice is fine


@pytest.mark.parametrize("backend", [fail.Keyring(), null.Keyring(), PlaintextKeyring()])
def test_no_secure_backend_falls_back_to_session(use_keyring, backend: KeyringBackend) -> None:
    use_keyring(backend)
    store = open_secret_store()
    assert isinstance(store, SessionSecretStore)
    assert not store.secure
    assert store.why == NO_KEYRING_WHY
    assert "no secure keyring backend" in store.why.lower() and "never written to disk" in store.why


def test_session_store_keeps_secrets_in_memory_only() -> None:
    store = open_secret_store("session")
    assert isinstance(store, SessionSecretStore)
    store.set("k", "only-in-memory-4711")
    assert store.get("k") == "only-in-memory-4711"
    assert _files_containing(data_dir(), "only-in-memory-4711") == []
    store.delete("k")
    store.delete("k")
    assert store.get("k") is None
    assert SessionSecretStore().get("k") is None  # a new session knows nothing


def test_keyring_errors_become_config_errors_without_the_secret(use_keyring) -> None:
    use_keyring(LockedKeyring())
    store = open_secret_store()
    assert isinstance(store, KeyringSecretStore)
    with pytest.raises(ConfigError) as info:
        store.set("postgresql://ann@db:5432/sales", "do-not-show-me")
    assert "do-not-show-me" not in str(info.value)
    assert "keyring" in info.value.hint.lower()
    with pytest.raises(ConfigError):
        store.get("postgresql://ann@db:5432/sales")


def test_unknown_backend_name_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        open_secret_store("vault")
    assert "keyring" in info.value.hint
