"""The Ollama host in Settings: what is not an address is refused with what it must be, and a host that came
from OLLAMA_HOST is never written into the settings file (issue 30, item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from core.config import Settings, setting_problem
from desktop.dialogs.settings_dialog import SettingsDialog


@pytest.mark.parametrize("host", ["not a url", "ftp://127.0.0.1:11434", "http://", "http://127.0.0.1:99999"])
def test_an_address_that_is_not_one_is_refused_and_the_dialog_stays(qtbot, monkeypatch, host: str) -> None:
    warned: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a: warned.append(text))
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    dialog.host.setText(host)
    dialog._save()
    assert warned and "http:// URL such as http://127.0.0.1:11434" in warned[0]
    assert dialog.result() != SettingsDialog.DialogCode.Accepted


@pytest.mark.parametrize("host", ["http://127.0.0.1:11434", "127.0.0.1:11434", "https://gpu-box.local"])
def test_addresses_are_accepted(host: str) -> None:
    assert setting_problem("ollama_host", host) is None


def test_the_environment_host_is_not_written_into_the_settings_file(monkeypatch, tmp_path: Path) -> None:
    from desktop.shell.app import AppContext

    monkeypatch.setenv("CAIRN_DATA_DIR", str(tmp_path))
    Settings(ollama_host="http://127.0.0.1:11434").save()
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:5555")
    context = AppContext.create()
    assert context.settings.ollama_host == "http://127.0.0.1:5555"  # in effect for the session
    from dataclasses import replace

    context.save_settings(replace(context.settings, theme="dark"))  # Settings saved, host untouched
    written = json.loads((tmp_path / "settings.json").read_text())
    assert written["ollama_host"] == "http://127.0.0.1:11434" and written["theme"] == "dark"
    context.save_settings(replace(context.settings, ollama_host="http://127.0.0.1:7777"))  # changed by hand
    assert json.loads((tmp_path / "settings.json").read_text())["ollama_host"] == "http://127.0.0.1:7777"
    context.services.close()
