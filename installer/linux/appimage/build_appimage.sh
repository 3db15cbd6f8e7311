#!/usr/bin/env bash
# Recipe for dist/Cairn-<version>-<machine>.AppImage from a PyInstaller onedir bundle.
#
#   bash installer/linux/appimage/build_appimage.sh [DIST_DIR] [VERSION]              # AppDir, then the image
#   APPDIR_ONLY=1 bash installer/linux/appimage/build_appimage.sh [DIST_DIR] [VERSION] # the AppDir alone
#
# NOT BUILT on Cairn's build machines: appimagetool (and the type-2 runtime it embeds) is neither a Debian
# package nor on the package index mirrored here, and nothing may be downloaded during a build. The AppDir
# this writes is complete (AppRun, cairn.desktop, cairn.png, .DirIcon, usr/share/icons, opt/cairn); on a
# machine with appimagetool on PATH (or APPIMAGETOOL=/path/to/appimagetool) the same script makes the image.
set -euo pipefail
source "$(dirname "$0")/../_common.sh"

DIST_DIR=$(realpath -m "${1:-$REPO_ROOT/dist/cairn}")
VERSION=${2:-$(cairn_version)}
check_dist "$DIST_DIR"
check_version "$VERSION"
MACHINE=$(uname -m)
OUT_DIR=$(realpath -m "${OUT_DIR:-$REPO_ROOT/dist}")
APPDIR="$OUT_DIR/Cairn.AppDir"
IMAGE="$OUT_DIR/Cairn-$VERSION-$MACHINE.AppImage"

rm -rf "$APPDIR"
mkdir -p "$APPDIR/opt" "$APPDIR/usr/share/applications"
cp -a "$DIST_DIR" "$APPDIR/opt/cairn"
chmod -R u+rwX,go+rX,go-w "$APPDIR/opt/cairn"
install -m 0755 "$INSTALLER_LINUX/appimage/AppRun" "$APPDIR/AppRun"
# appimagetool wants the entry at the top; Exec is resolved through AppRun.
desktop_entry cairn | sed '/^TryExec=/d' > "$APPDIR/cairn.desktop"
cp "$APPDIR/cairn.desktop" "$APPDIR/usr/share/applications/cairn.desktop"
largest=$(icon_sizes | tail -1)
cp "$ICON_DIR/cairn-$largest.png" "$APPDIR/cairn.png"
ln -sf cairn.png "$APPDIR/.DirIcon"
for size in $(icon_sizes); do
  install -D -m 0644 "$ICON_DIR/cairn-$size.png" "$APPDIR/usr/share/icons/hicolor/${size}x${size}/apps/cairn.png"
done
echo "AppDir: $APPDIR"

if [ -n "${APPDIR_ONLY:-}" ]; then
  exit 0
fi
TOOL=${APPIMAGETOOL:-$(command -v appimagetool || true)}
if [ -z "$TOOL" ]; then
  echo "appimagetool not found: the AppImage was NOT built (the AppDir above is ready for it)." >&2
  exit 3
fi
ARCH="$MACHINE" "$TOOL" --no-appstream "$APPDIR" "$IMAGE"
echo "$IMAGE"
