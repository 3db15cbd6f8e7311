#!/usr/bin/env bash
# Renders docs/screenshots/*.png: the window's main states at 1366x768 and 1920x1080, light and dark, default
# font and 14 pt. Qt's offscreen platform with a screen of each size; no display, no network, no real model.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python scripts/screenshots.py "$@"
