from __future__ import annotations

import pytest

from core.config import Settings, config_dir
from core.errors import ConfigError


def test_settings_round_trip() -> None:
    Settings(model="qwen2.5-coder:3b", row_cap=5000, hidden={"db": ["customers.email"]}).save()
    loaded = Settings.load()
    assert loaded.model == "qwen2.5-coder:3b" and loaded.row_cap == 5000
    assert loaded.hidden == {"db": ["customers.email"]}


@pytest.mark.parametrize("uri", ["postgresql://ann:s3cret@db.local/mem", "postgresql://ann@db/mem?password=s3cret"])
def test_a_password_is_never_written_to_settings(uri: str) -> None:
    with pytest.raises(ConfigError) as err:
        Settings(memory_store_uri=uri).save()
    assert ".pgpass" in err.value.hint
    path = config_dir() / "settings.json"
    assert not path.exists() or "s3cret" not in path.read_text()


def test_broken_settings_file_is_reported() -> None:
    (config_dir() / "settings.json").write_text("{not json")
    with pytest.raises(ConfigError) as err:
        Settings.load()
    assert "settings.json" in str(err.value) and err.value.hint
