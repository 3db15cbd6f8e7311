#!/usr/bin/env bash
# Builds Cairn as a PyInstaller onedir bundle, dist/cairn/ (run it as dist/cairn/cairn), from build.spec.
# Installs what the build needs into ./.venv first (the app itself via scripts/install.sh when .venv is missing,
# then PyInstaller from the package index). PyInstaller's cache in build/ is kept between runs, so a rebuild
# after a code change only re-analyses what changed; CLEAN=1 starts from scratch.
#   bash scripts/package.sh            # then: dist/cairn/cairn --help
set -euo pipefail
cd "$(dirname "$0")/.."

PYINSTALLER_VERSION=6.22.3  # build.spec and freeze/ are written against 6.x
[ -x .venv/bin/python ] || bash scripts/install.sh
.venv/bin/python - <<PY 2>/dev/null || .venv/bin/python -m pip install -q "pyinstaller==$PYINSTALLER_VERSION"
from importlib.metadata import version
assert version("pyinstaller") == "$PYINSTALLER_VERSION"
PY

args=(--noconfirm --log-level "${PYI_LOG_LEVEL:-WARN}" --distpath dist --workpath build/pyinstaller)
[ "${CLEAN:-0}" = "1" ] && args+=(--clean)
start=$(date +%s)
QT_QPA_PLATFORM=offscreen .venv/bin/pyinstaller "${args[@]}" build.spec
echo "built dist/cairn in $(( $(date +%s) - start )) s, $(du -sh dist/cairn | cut -f1)"

# The bundle runs, PostgreSQL is executable where the app looks for it, no library it needs was left out.
.venv/bin/python -m freeze.check_bundle dist/cairn
