"""``cairn`` with no arguments and no display says so and what to do (exit 2), instead of Qt's abort (134) with
advice to reinstall its plugins (issue 32, packaging 4)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CODE = "from desktop.launcher import console; raise SystemExit(console())"


@pytest.mark.parametrize("display", [None, ":97"])  # none set; a local display with no X server behind it
def test_no_display_is_a_clear_message_not_an_abort(display: str | None, tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["CAIRN_DATA_DIR"] = str(tmp_path)
    if display:
        env["DISPLAY"] = display
    proc = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "needs a display" in proc.stderr and "cairn ask" in proc.stderr
    assert "xcb" not in proc.stderr and "Reinstall" not in proc.stderr
