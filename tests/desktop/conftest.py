"""Qt tests run offscreen; any Qt warning fails the test (pytest-qt's qt_log_level_fail in pyproject)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
