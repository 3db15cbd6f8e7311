#!/bin/sh
# Adds (or with --remove, removes) this portable Cairn to the current user's application menu:
# ~/.local/share/applications/cairn.desktop pointing at the cairn beside this script, and its icons.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
apps="${XDG_DATA_HOME:-$HOME/.local/share}/applications"
icons="${XDG_DATA_HOME:-$HOME/.local/share}/icons/hicolor"
if [ "${1:-}" = "--remove" ]; then
  rm -f "$apps/cairn.desktop"
  for f in "$here"/icons/cairn-*.png; do
    size=${f##*/cairn-}; size=${size%.png}
    rm -f "$icons/${size}x${size}/apps/cairn.png"
  done
  echo "Removed Cairn from the application menu."
  exit 0
fi
mkdir -p "$apps"
for f in "$here"/icons/cairn-*.png; do
  size=${f##*/cairn-}; size=${size%.png}
  mkdir -p "$icons/${size}x${size}/apps"
  cp "$f" "$icons/${size}x${size}/apps/cairn.png"
done
# Exec and TryExec hold an absolute path; quoted for the desktop-entry spec if it has spaces.
case "$here" in
  *" "*) exec_path="\"$here/cairn\"" ;;
  *) exec_path="$here/cairn" ;;
esac
sed "s|^Exec=@EXEC@|Exec=$exec_path|; s|^TryExec=@EXEC@|TryExec=$here/cairn|" "$here/cairn.desktop.in" > "$apps/cairn.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$apps" || true
echo "Added Cairn to the application menu ($apps/cairn.desktop)."
