#!/usr/bin/env bash
# Installs everything, then opens Cairn on its embedded defaults: the sample database in an embedded
# PostgreSQL (with pgvector for memories) and your local Ollama (http://127.0.0.1:11434 unless OLLAMA_HOST says).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
if [ "$(uname -s)" = "Linux" ] && [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "No display found: showing the command-line demo instead of the window."
  .venv/bin/cairn doctor || true
  exec .venv/bin/cairn ask "${1:-How many delivered orders did customers from India place last year?}"
fi
exec .venv/bin/cairn
