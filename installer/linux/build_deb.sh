#!/usr/bin/env bash
# Builds dist/cairn_<version>_<arch>.deb from a PyInstaller onedir bundle.
#
#   bash installer/linux/build_deb.sh [DIST_DIR] [VERSION]      # defaults: dist/cairn, the package metadata's
#
# Installs the bundle to /opt/cairn, a small /usr/bin/cairn wrapper, the desktop entry and the hicolor icons.
# The maintainer scripts only refresh the desktop and icon caches (when those tools exist): nothing in a
# package step reads or writes a home directory, so installing, upgrading, removing or purging never touches
# a user's data (~/.local/share/cairn, ~/.config/cairn — platformdirs) or their memories.
# Env: CAIRN_DEB_COMPRESS: zstd (default: 10 s for the 1.2 GB bundle where gzip takes 2 minutes, and smaller;
# read by dpkg on Debian 12+ and Ubuntu 22.04+), gzip for older dpkg, or xz; OUT_DIR (default dist/).
set -euo pipefail
source "$(dirname "$0")/_common.sh"

DIST_DIR=$(realpath -m "${1:-$REPO_ROOT/dist/cairn}")
VERSION=${2:-$(cairn_version)}
check_dist "$DIST_DIR"
check_version "$VERSION"
ARCH=$(dpkg --print-architecture 2>/dev/null || echo amd64)
OUT_DIR=$(realpath -m "${OUT_DIR:-$REPO_ROOT/dist}")
COMPRESS=${CAIRN_DEB_COMPRESS:-zstd}
DEB="$OUT_DIR/cairn_${VERSION}_${ARCH}.deb"

# The oldest glibc the bundle runs on, read from its ELF files (freeze/glibc_floor.py): the libraries PyInstaller
# copies from the build machine (libpython, libstdc++) set it, so the package says so rather than installing on a
# system where it cannot start.
GLIBC_FLOOR=$(cd "$REPO_ROOT" && "${PYTHON:-$REPO_ROOT/.venv/bin/python}" -m freeze.glibc_floor "$DIST_DIR")
# What a PySide6 (xcb) app needs from the system on Debian 12/13 and Ubuntu 24.04+: every library the bundled
# Qt core, GUI, widgets, xcb platform plugin and GLX/EGL integrations link against and PyInstaller leaves out
# (glibc, GL, X11/xcb, fontconfig, D-Bus, GLib). PostgreSQL and ICU ship inside the bundle.
DEPENDS=(
  "libc6 (>= $GLIBC_FLOOR)" libstdc++6 libgcc-s1 zlib1g libzstd1
  libgl1 libegl1 libfontconfig1 libfreetype6 libdbus-1-3 "libglib2.0-0t64 | libglib2.0-0"
  libx11-6 libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-glx0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
  libxcb-randr0 libxcb-render0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-util1
  libxcb-xfixes0 libxcb-xkb1 libxkbcommon0 libxkbcommon-x11-0
)
RECOMMENDS=("fonts-dejavu-core | fonts-liberation2 | fonts-freefont-ttf")
join() { local IFS=","; local s="$*"; echo "${s//,/, }"; }

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/cairn-deb.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
ROOT="$STAGE/root"
mkdir -p "$ROOT/DEBIAN" "$ROOT/opt" "$ROOT/usr/bin" "$ROOT/usr/share/applications" "$ROOT/usr/share/doc/cairn"

cp -a "$DIST_DIR" "$ROOT/opt/cairn"
# Read-only for everyone but root, whatever umask built the bundle: nothing may be written there at run time.
chmod -R u+rwX,go+rX,go-w "$ROOT/opt/cairn"

# A wrapper rather than a symlink: the frozen bootloader then always sees /opt/cairn/cairn as its own path.
cat > "$ROOT/usr/bin/cairn" <<'SH'
#!/bin/sh
# Cairn is installed in /opt/cairn; this puts `cairn` on PATH.
exec /opt/cairn/cairn "$@"
SH
chmod 0755 "$ROOT/usr/bin/cairn"

desktop_entry cairn > "$ROOT/usr/share/applications/cairn.desktop"
chmod 0644 "$ROOT/usr/share/applications/cairn.desktop"
for size in $(icon_sizes); do
  install -D -m 0644 "$ICON_DIR/cairn-$size.png" "$ROOT/usr/share/icons/hicolor/${size}x${size}/apps/cairn.png"
done
[ -f "$ICON_DIR/cairn.svg" ] && install -D -m 0644 "$ICON_DIR/cairn.svg" "$ROOT/usr/share/icons/hicolor/scalable/apps/cairn.svg"
cat > "$ROOT/usr/share/doc/cairn/copyright" <<TXT
Cairn $VERSION — Apache-2.0. The bundle in /opt/cairn also carries third-party components (Qt/PySide6: LGPLv3;
PostgreSQL and pgvector: PostgreSQL licence; PyTorch: BSD; all-MiniLM-L6-v2: Apache-2.0) under their own licences.
TXT
chmod 0644 "$ROOT/usr/share/doc/cairn/copyright"

INSTALLED_KB=$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)
cat > "$ROOT/DEBIAN/control" <<CTL
Package: cairn
Version: $VERSION
Architecture: $ARCH
Maintainer: ${CAIRN_MAINTAINER:-Cairn developers <cairn@example.invalid>}
Installed-Size: $INSTALLED_KB
Depends: $(join "${DEPENDS[@]}")
Recommends: $(join "${RECOMMENDS[@]}")
Section: database
Priority: optional
Description: private text-to-SQL desktop assistant on a local model
 Cairn answers questions about your PostgreSQL and SQLite databases in plain
 English with one read-only SQL query written by a local model in Ollama, and
 remembers each person's preferences, terms and metrics. Everything runs on
 this computer: an embedded PostgreSQL for memories and the embedding model
 are inside the package, and nothing is downloaded at run time.
CTL

for script in postinst postrm; do
  cat > "$ROOT/DEBIAN/$script" <<'SH'
#!/bin/sh
# Refreshes the desktop and icon caches, when those tools are installed. Never touches a home directory:
# each user's data (~/.local/share/cairn) and settings (~/.config/cairn) survive upgrade, remove and purge.
set -e
case "$1" in
  configure|remove|purge|abort-install|abort-upgrade)
    if command -v update-desktop-database >/dev/null 2>&1; then
      update-desktop-database -q /usr/share/applications || true
    fi
    if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -d /usr/share/icons/hicolor ]; then
      gtk-update-icon-cache -q -t -f /usr/share/icons/hicolor || true
    fi
    ;;
esac
exit 0
SH
  chmod 0755 "$ROOT/DEBIAN/$script"
done

(cd "$ROOT" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z \
  | xargs -0 -r md5sum > DEBIAN/md5sums)
chmod 0644 "$ROOT/DEBIAN/control" "$ROOT/DEBIAN/md5sums"

mkdir -p "$OUT_DIR"
# --root-owner-group: every file root:root without needing fakeroot.
dpkg-deb --root-owner-group -Z"$COMPRESS" --build "$ROOT" "$DEB" >/dev/null
echo "$DEB"
