#!/usr/bin/env bash
# Builds dist/Cairn.app and dist/Cairn-<version>.dmg on macOS from a macOS PyInstaller onedir build.
# NOT built or tested on Cairn's Linux build machines: it needs macOS (iconutil, hdiutil, codesign).
#
#   bash installer/macos/build_app.sh [DIST_DIR] [VERSION]       # defaults: dist/cairn, the package metadata's
#   CODESIGN_IDENTITY="Developer ID Application: …" bash installer/macos/build_app.sh   # signed (see README)
#
# Layout: Cairn.app/Contents/{Info.plist, MacOS/ (the whole onedir bundle, cairn the executable),
# Resources/cairn.icns}. Settings and data live in ~/Library/Application Support/cairn (platformdirs): nothing
# is written inside the .app, so its signature stays valid, and replacing the .app keeps every user's data.
set -euo pipefail
REPO_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(uname -s)" = Darwin ] || { echo "error: this script runs on macOS only (hdiutil, iconutil, codesign)" >&2; exit 1; }

DIST_DIR=${1:-$REPO_ROOT/dist/cairn}
VERSION=${2:-$("$REPO_ROOT/.venv/bin/python" -c 'import importlib.metadata as m; print(m.version("cairn-sql"))')}
[ -x "$DIST_DIR/cairn" ] || { echo "error: $DIST_DIR/cairn is missing: build the bundle first (bash scripts/package.sh on macOS)" >&2; exit 1; }
OUT_DIR=${OUT_DIR:-$REPO_ROOT/dist}
APP="$OUT_DIR/Cairn.app"
DMG="$OUT_DIR/Cairn-$VERSION.dmg"

rm -rf "$APP"
mkdir -p "$APP/Contents/MacOS" "$APP/Contents/Resources"
cp -R "$DIST_DIR/." "$APP/Contents/MacOS/"

# The icon: every size of resources/icons into an .iconset, then iconutil.
ICONSET=$(mktemp -d)/cairn.iconset
mkdir -p "$ICONSET"
for size in 16 32 128 256; do
  cp "$REPO_ROOT/resources/icons/cairn-$size.png" "$ICONSET/icon_${size}x${size}.png"
done
cp "$REPO_ROOT/resources/icons/cairn-32.png" "$ICONSET/icon_16x16@2x.png"
cp "$REPO_ROOT/resources/icons/cairn-64.png" "$ICONSET/icon_32x32@2x.png"
cp "$REPO_ROOT/resources/icons/cairn-256.png" "$ICONSET/icon_128x128@2x.png"
iconutil -c icns "$ICONSET" -o "$APP/Contents/Resources/cairn.icns"

cat > "$APP/Contents/Info.plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>CFBundleName</key><string>Cairn</string>
  <key>CFBundleDisplayName</key><string>Cairn</string>
  <key>CFBundleIdentifier</key><string>org.cairn.Cairn</string>
  <key>CFBundleVersion</key><string>$VERSION</string>
  <key>CFBundleShortVersionString</key><string>$VERSION</string>
  <key>CFBundlePackageType</key><string>APPL</string>
  <key>CFBundleExecutable</key><string>cairn</string>
  <key>CFBundleIconFile</key><string>cairn.icns</string>
  <key>LSMinimumSystemVersion</key><string>12.0</string>
  <key>LSApplicationCategoryType</key><string>public.app-category.productivity</string>
  <key>NSHighResolutionCapable</key><true/>
  <key>NSRequiresAquaSystemAppearance</key><false/>
</dict>
</plist>
PLIST

if [ -n "${CODESIGN_IDENTITY:-}" ]; then
  # Hardened runtime (required for notarization); the entitlements let torch's and PostgreSQL's libraries load.
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
