# Shared by the Linux packaging scripts (sourced, not run). Keeps the version, the dist check and the desktop
# entry in one place so the .deb, the tar.gz and the AppImage recipe cannot drift apart.
# shellcheck shell=bash

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
INSTALLER_LINUX="$REPO_ROOT/installer/linux"
ICON_DIR="$REPO_ROOT/resources/icons"

die() { echo "error: $*" >&2; exit 1; }

# The project's version from its package metadata (pyproject's name is cairn-sql), as the bundle reports it.
# Falls back to pyproject.toml itself when the source venv is missing (a packaging machine with only dist/).
cairn_version() {
  local py="${PYTHON:-$REPO_ROOT/.venv/bin/python}" v=""
  if [ -x "$py" ]; then
    v=$("$py" -c 'import importlib.metadata as m; print(m.version("cairn-sql"))' 2>/dev/null || true)
  fi
  if [ -z "$v" ]; then
    v=$(python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["project"]["version"])' \
        "$REPO_ROOT/pyproject.toml" 2>/dev/null || true)
  fi
  [ -n "$v" ] || die "cannot tell Cairn's version (no .venv with cairn-sql installed, no readable pyproject.toml); pass it as an argument"
  echo "$v"
}

# A PyInstaller onedir bundle: DIST_DIR/cairn must be an executable file.
check_dist() {
  local dist="$1"
  [ -d "$dist" ] || die "$dist does not exist: build the bundle first with 'bash scripts/package.sh' (it writes dist/cairn/)"
  [ -f "$dist/cairn" ] && [ -x "$dist/cairn" ] || die "$dist/cairn is not an executable file: is $dist a PyInstaller onedir bundle?"
}

# Debian versions must start with a digit and use only [A-Za-z0-9.+~-].
check_version() {
  [[ "$1" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || die "bad version '$1': it must start with a digit and use only letters, digits and . + ~ -"
}

# The icon sizes shipped in resources/icons (cairn-<size>.png).
icon_sizes() {
  local f
  for f in "$ICON_DIR"/cairn-*.png; do
    f=${f##*/cairn-}; echo "${f%.png}"
  done | sort -n
}

# The desktop entry, Exec given (cairn for the .deb; an absolute path for a user install of the tarball).
desktop_entry() {
  sed "s|@EXEC@|$1|" "$INSTALLER_LINUX/cairn.desktop.in"
}
