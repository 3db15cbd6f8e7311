#!/usr/bin/env bash
# Installs everything, then runs Cairn on its embedded defaults: the sample database in an embedded
# PostgreSQL and your local Ollama (http://127.0.0.1:11434 unless OLLAMA_HOST says otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
.venv/bin/cairn doctor || true
exec .venv/bin/cairn ask "${1:-How many delivered orders did customers from India place last year?}"
