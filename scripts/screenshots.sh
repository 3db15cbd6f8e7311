#!/usr/bin/env bash
# Renders docs/screenshots/*.png in a real X server (Xvfb).
set -euo pipefail
cd "$(dirname "$0")/.."
QT_QPA_PLATFORM=xcb exec xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshots.py
