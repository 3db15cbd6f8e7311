#!/usr/bin/env bash
# Builds the portable dist/cairn-<version>-linux-<machine>.tar.gz from a PyInstaller onedir bundle.
#
#   bash installer/linux/build_tarball.sh [DIST_DIR] [VERSION]
#
# Layout: cairn-<version>-linux-<machine>/{cairn, _internal/, INSTALL.txt, cairn.desktop.in, icons/,
# install-desktop-entry.sh}. It runs from wherever it is unpacked; no root, nothing written beside it.
set -euo pipefail
source "$(dirname "$0")/_common.sh"

DIST_DIR=$(realpath -m "${1:-$REPO_ROOT/dist/cairn}")
VERSION=${2:-$(cairn_version)}
check_dist "$DIST_DIR"
check_version "$VERSION"
MACHINE=$(uname -m)
OUT_DIR=$(realpath -m "${OUT_DIR:-$REPO_ROOT/dist}")
NAME="cairn-$VERSION-linux-$MACHINE"
TARBALL="$OUT_DIR/$NAME.tar.gz"

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/cairn-tar.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
TOP="$STAGE/$NAME"
cp -a "$DIST_DIR" "$TOP"
chmod -R u+rwX,go+rX,go-w "$TOP"
sed "s/@VERSION@/$VERSION/g; s/@NAME@/$NAME/g" "$INSTALLER_LINUX/INSTALL.txt.in" > "$TOP/INSTALL.txt"
cp "$INSTALLER_LINUX/cairn.desktop.in" "$TOP/cairn.desktop.in"
install -m 0755 "$INSTALLER_LINUX/install-desktop-entry.sh" "$TOP/install-desktop-entry.sh"
mkdir -p "$TOP/icons"
for size in $(icon_sizes); do cp "$ICON_DIR/cairn-$size.png" "$TOP/icons/"; done
chmod 0644 "$TOP/INSTALL.txt" "$TOP/cairn.desktop.in" "$TOP"/icons/*

mkdir -p "$OUT_DIR"
compressor=gzip
command -v pigz >/dev/null 2>&1 && compressor=pigz
tar --owner=0 --group=0 --numeric-owner -C "$STAGE" -I "$compressor" -cf "$TARBALL" "$NAME"
echo "$TARBALL"
