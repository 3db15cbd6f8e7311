#!/usr/bin/env bash
# Builds dist/Cairn.app and dist/Cairn-<version>.dmg on macOS.
# NOT built or tested on Cairn's Linux build machines: it needs macOS (iconutil, hdiutil, codesign). What can be
# checked on Linux is (tests/test_bundle_rules.py): the spec's macOS branch and this script's shape.
#
#   bash installer/macos/build_app.sh [VERSION]          # default: the package metadata's version
#   CODESIGN_IDENTITY="Developer ID Application: …" bash installer/macos/build_app.sh   # signed (see README)
#
# The .app is PyInstaller's own (build.spec's BUNDLE step, freeze/bundle_rules.py): PyInstaller 6 puts the
# executable in Contents/MacOS, the collected libraries in Contents/Frameworks (where its bootloader looks inside
# a .app) and data in Contents/Resources, with the links between them it needs. Copying a onedir build into
# Contents/MacOS by hand, as this script once did, gives a bundle the bootloader does not find its files in.
# Settings and data live in ~/Library/Application Support/cairn (platformdirs): nothing is written inside the
# .app, so its signature stays valid, and replacing the .app keeps every user's data.
set -euo pipefail
REPO_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(uname -s)" = Darwin ] || { echo "error: this script runs on macOS only (hdiutil, iconutil, codesign)" >&2; exit 1; }

VERSION=${1:-$("$REPO_ROOT/.venv/bin/python" -c 'import importlib.metadata as m; print(m.version("cairn-sql"))')}
OUT_DIR=${OUT_DIR:-$REPO_ROOT/dist}
APP="$OUT_DIR/Cairn.app"
DMG="$OUT_DIR/Cairn-$VERSION.dmg"

# The icon first: build.spec's BUNDLE and EXE read build/cairn.icns. Every size of resources/icons into an
# .iconset, then iconutil.
ICONSET=$(mktemp -d)/cairn.iconset
mkdir -p "$ICONSET" "$REPO_ROOT/build"
for size in 16 32 128 256; do
  cp "$REPO_ROOT/resources/icons/cairn-$size.png" "$ICONSET/icon_${size}x${size}.png"
done
cp "$REPO_ROOT/resources/icons/cairn-32.png" "$ICONSET/icon_16x16@2x.png"
cp "$REPO_ROOT/resources/icons/cairn-64.png" "$ICONSET/icon_32x32@2x.png"
cp "$REPO_ROOT/resources/icons/cairn-256.png" "$ICONSET/icon_128x128@2x.png"
iconutil -c icns "$ICONSET" -o "$REPO_ROOT/build/cairn.icns"

# PyInstaller makes dist/cairn (onedir) and, on macOS, dist/Cairn.app from it.
bash "$REPO_ROOT/scripts/package.sh"
[ -x "$APP/Contents/MacOS/cairn" ] || { echo "error: PyInstaller made no $APP (build.spec's BUNDLE step)" >&2; exit 1; }

if [ -n "${CODESIGN_IDENTITY:-}" ]; then
  # Hardened runtime (required for notarization); the entitlements let PostgreSQL's and ONNX Runtime's libraries
  # load. Signed inside out by --deep: Contents/Frameworks first, then the executable and the bundle.
  codesign --force --deep --timestamp --options runtime \
    --entitlements "$REPO_ROOT/installer/macos/entitlements.plist" --sign "$CODESIGN_IDENTITY" "$APP"
  codesign --verify --deep --strict --verbose=2 "$APP"
else
  echo "note: CODESIGN_IDENTITY is not set: Cairn.app is unsigned (Gatekeeper will refuse it on other Macs)" >&2
fi

STAGE=$(mktemp -d)
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"
rm -f "$DMG"
hdiutil create -volname "Cairn $VERSION" -srcfolder "$STAGE" -ov -format UDZO "$DMG"
[ -n "${CODESIGN_IDENTITY:-}" ] && codesign --timestamp --sign "$CODESIGN_IDENTITY" "$DMG"
echo "$DMG"
