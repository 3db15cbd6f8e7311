#!/usr/bin/env bash
# Checks the packages built from an existing PyInstaller bundle (dist/cairn), as a user would meet them:
#
#   bash scripts/package_check.sh            # as root (dpkg -i); CI runs it as root
#
#  1. builds dist/cairn_<version>_<arch>.deb and the portable tar.gz (installer/linux/)
#  2. runs the frozen `dist/cairn/cairn selftest --require-model` against a fake Ollama (tests/fakes)
#  3. `dpkg -i` the .deb; `/usr/bin/cairn selftest` as root and as the non-root user cairn-ci
#  4. upgrade: cairn-ci teaches a memory in their real data dir; a .deb of <version>+1 is built and installed
#     over it; the memory must still be listed
#  5. `dpkg -r` then `dpkg -P`: the user's data dir must be unchanged, /opt/cairn gone
#  and all along: nothing may be written inside /opt/cairn (every file's checksum, mode, size and time, and
#  every directory's, compared with the state right after each install).
# Each step prints its time; the first failure stops the run with what failed (exit 1; 2: nothing to check).
# Env: DIST_DIR (default dist/cairn), CI_USER (default cairn-ci), STEP_TIMEOUT_S (default 900 per command).
# The fake Ollama runs from the source venv for the run and is stopped on exit. A failed run leaves the
# package installed for inspection (dpkg -P cairn removes it).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)

DIST_DIR=$(realpath -m "${DIST_DIR:-$REPO/dist/cairn}")
CI_USER=${CI_USER:-cairn-ci}
STEP_TIMEOUT_S=${STEP_TIMEOUT_S:-900}
PY="$REPO/.venv/bin/python"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cairn-package-check.XXXXXX")
chmod 0755 "$WORK"
FAKE_PID=""
T0=$(date +%s.%N)
STEP_NO=0
SUMMARY=()

cleanup() {
  # shellcheck disable=SC1090
  [ -f "$WORK/state" ] && source "$WORK/state"  # FAKE_PID even when its step failed later
  if [ -n "$FAKE_PID" ] && kill -0 "$FAKE_PID" 2>/dev/null; then
    kill -TERM "$FAKE_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$FAKE_PID" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# step "title" command...: runs it (errexit on, in a subshell) with its output indented, prints its time, and
# stops everything on failure. Variables a step sets reach the later steps only through `keep NAME...`.
step() {
  local title="$1"; shift
  STEP_NO=$((STEP_NO + 1))
  echo "==> [$STEP_NO] $title"
  local start rc took
  start=$(date +%s.%N)
  set +e
  ( set -e; "$@" ) 2>&1 | sed -u 's/^/    /'
  rc=${PIPESTATUS[0]}
  set -e
  took=$(elapsed "$start")
  if [ "$rc" != 0 ]; then
    echo "FAILED [$STEP_NO] $title (exit $rc, after ${took}s; $(elapsed "$T0")s in all)" >&2
    exit 1
  fi
  # shellcheck disable=SC1090
  [ -f "$WORK/state" ] && source "$WORK/state"
  echo "    ok (${took}s)"
  SUMMARY+=("$(printf '%7ss  %s' "$took" "$title")")
}

keep() { local v; for v in "$@"; do printf '%s=%q\n' "$v" "${!v}"; done >> "$WORK/state"; }

fail() { echo "$*" >&2; return 1; }

# --- what the steps run ---------------------------------------------------------------------------------------

preflight() {
  [ "$(id -u)" = 0 ] || fail "run as root: the check installs the .deb with dpkg -i and runs it as another user"
  local tool
  for tool in dpkg dpkg-deb runuser useradd sha256sum timeout; do
    command -v "$tool" >/dev/null || fail "$tool is not installed"
  done
  [ -x "$PY" ] || fail "$PY is missing: run 'bash scripts/install.sh' (the fake Ollama runs from the source venv)"
  VERSION=$(source installer/linux/_common.sh && cairn_version)
  NEXT_VERSION="$VERSION+1"
  keep VERSION NEXT_VERSION
  echo "bundle $DIST_DIR ($(du -sh "$DIST_DIR" | cut -f1)), version $VERSION, upgrade to $NEXT_VERSION"
  content_of "$DIST_DIR" > "$WORK/dist-content.txt"  # what the packages must carry, byte for byte
  echo "$(wc -l < "$WORK/dist-content.txt") files in the bundle"
  if dpkg-query -W -f='${Status}' cairn 2>/dev/null | grep -q 'install ok'; then
    echo "note: cairn $(dpkg-query -W -f='${Version}' cairn) is installed already; it will be replaced"
  fi
}

start_fake_ollama() {
  local url_file="$WORK/ollama-url"
  (cd "$REPO" && exec "$PY" - "$url_file" <<'PY'
import os, signal, sys
sys.path.insert(0, os.getcwd())
from tests.fakes.fake_ollama import FakeOllama

server = FakeOllama().start()
tmp = sys.argv[1] + ".tmp"
with open(tmp, "w") as fh:
    fh.write(server.url)
os.replace(tmp, sys.argv[1])
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
signal.sigwait({signal.SIGTERM, signal.SIGINT})
server.stop()
PY
  ) >"$WORK/fake-ollama.log" 2>&1 &
  FAKE_PID=$!
  keep FAKE_PID
  local i
  for i in $(seq 1 300); do
    [ -s "$url_file" ] && break
    kill -0 "$FAKE_PID" 2>/dev/null || { cat "$WORK/fake-ollama.log"; fail "the fake Ollama exited"; }
    sleep 0.1
  done
  [ -s "$url_file" ] || fail "the fake Ollama did not start within 30 s"
  OLLAMA_HOST=$(cat "$url_file")
  keep OLLAMA_HOST
  echo "fake Ollama at $OLLAMA_HOST (pid $FAKE_PID)"
}

build_deb() {  # version, output variable
  local deb
  deb=$(bash installer/linux/build_deb.sh "$DIST_DIR" "$1" | tail -1)
  [ -f "$deb" ] || fail "build_deb.sh did not write a .deb"
  dpkg-deb --field "$deb" Package Version Installed-Size
  echo "$deb ($(du -h "$deb" | cut -f1))"
  printf -v "$2" '%s' "$deb"
  keep "$2"
}

lintian_check() {  # Debian's package checker: any error not in the package's own overrides fails the step
  command -v lintian >/dev/null || fail "lintian is missing (scripts/debian-packages.txt)"
  # zstd members (installer/linux/build_deb.sh: 10 s instead of 2 minutes, read by dpkg on Debian 12+): lintian
  # only knows gz/xz as "official"; that tag cannot be overridden from inside the package.
  lintian --tag-display-limit 0 --fail-on error --suppress-tags malformed-deb-archive "$DEB"
  dpkg-deb --fsys-tarfile "$DEB" | tar -xO ./usr/share/man/man1/cairn.1.gz | gzip -dc | grep -q '^\.TH CAIRN "1"' \
    || fail "the manual page is missing or empty"
  echo "lintian: no error beyond the overrides; changelog, DEP-5 copyright and the manual page present"
}

build_tarball() {
  TARBALL=$(bash installer/linux/build_tarball.sh "$DIST_DIR" "$VERSION" | tail -1)
  [ -f "$TARBALL" ] || fail "build_tarball.sh did not write the tar.gz"
  local top="cairn-$VERSION-linux-$(uname -m)"
  tar -tzf "$TARBALL" > "$WORK/tarball.txt"
  grep -qx "$top/cairn" "$WORK/tarball.txt" || fail "$TARBALL has no $top/cairn"
  grep -qx "$top/INSTALL.txt" "$WORK/tarball.txt" || fail "$TARBALL has no $top/INSTALL.txt"
  echo "$(wc -l < "$WORK/tarball.txt") entries under $top/"
  echo "$TARBALL ($(du -h "$TARBALL" | cut -f1))"
  keep TARBALL
}

selftest_env() {  # the environment every self-test and CLI call gets: no settings or data of this shell's
  echo HOME="$1" USER="$2" LOGNAME="$2" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
    OLLAMA_HOST="$OLLAMA_HOST" QT_QPA_PLATFORM=offscreen
}

as_root() { # command...: as root with a clean environment
  # shellcheck disable=SC2046
  timeout "$STEP_TIMEOUT_S" env -i $(selftest_env /root root) "$@"
}

as_user() { # command...: as CI_USER with a clean environment and their real home
  # shellcheck disable=SC2046
  timeout "$STEP_TIMEOUT_S" runuser -u "$CI_USER" -- env -i $(selftest_env "$USER_HOME" "$CI_USER") "$@"
}

missing_depends() {  # the first alternative of each Depends group none of whose packages is installed
  local group alt ok
  dpkg-deb --field "$1" Depends | tr ',' '\n' | while read -r group; do
    [ -n "$group" ] || continue
    ok=""
    IFS='|' read -ra alts <<<"$group"
    for alt in "${alts[@]}"; do
      alt=$(echo "$alt" | sed 's/(.*)//; s/ //g')
      dpkg-query -W -f='${Status}' "$alt" 2>/dev/null | grep -q 'install ok installed' && ok=1 && break
    done
    [ -n "$ok" ] || echo "${alts[0]}" | sed 's/(.*)//; s/ //g'
  done
}

install_depends() {
  local missing
  missing=$(missing_depends "$DEB" | tr '\n' ' ')
  if [ -z "${missing// /}" ]; then
    echo "all of the package's Depends are installed"
    return 0
  fi
  command -v apt-get >/dev/null || fail "missing Debian packages the .deb depends on: $missing (no apt-get to install them)"
  echo "installing the package's missing Depends: $missing"
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null; }
}

dpkg_install() {  # deb, expected version
  dpkg -i "$1"
  local got; got=$(dpkg-query -W -f='${Version}' cairn)
  [ "$got" = "$2" ] || fail "dpkg says cairn $got is installed, not $2"
  [ -x /opt/cairn/cairn ] || fail "/opt/cairn/cairn is not there"
  [ "$(command -v cairn)" = /usr/bin/cairn ] || fail "cairn on PATH is $(command -v cairn || echo nothing), not /usr/bin/cairn"
  [ -f /usr/share/applications/cairn.desktop ] || fail "no /usr/share/applications/cairn.desktop"
}

# Every entry under /opt/cairn: type, mode, size and time (files and directories), then every file's sha256.
opt_manifest() {
  (cd /opt/cairn && find . -printf '%y %m %s %T@ %p\n' | LC_ALL=C sort \
    && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

content_of() {  # sha256 of every file of a tree, by relative path
  (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

snapshot_opt() {  # name: records /opt/cairn now; checks it carries the bundle byte for byte
  opt_manifest > "$WORK/opt-$1.txt"
  content_of /opt/cairn > "$WORK/opt-content.txt"
  if ! diff -q "$WORK/dist-content.txt" "$WORK/opt-content.txt" >/dev/null; then
    { diff "$WORK/dist-content.txt" "$WORK/opt-content.txt" || true; } | head -20
    content_of "$DIST_DIR" | diff -q "$WORK/dist-content.txt" - >/dev/null \
      || fail "$DIST_DIR itself changed while the check ran (rebuilt?): run the check again on a bundle left alone"
    fail "/opt/cairn differs from $DIST_DIR as it was at the start (lines above: < bundle, > installed)"
  fi
  echo "/opt/cairn: $(grep -c '^f ' "$WORK/opt-$1.txt") files, identical to $DIST_DIR"
}

opt_unchanged() {  # name of the snapshot to compare with
  opt_manifest > "$WORK/opt-now.txt"
  if ! diff -q "$WORK/opt-$1.txt" "$WORK/opt-now.txt" >/dev/null; then
    { diff "$WORK/opt-$1.txt" "$WORK/opt-now.txt" || true; } | head -40
    fail "something was written inside /opt/cairn at run time (lines above: < before, > now)"
  fi
  echo "/opt/cairn unchanged since the snapshot after install ($1)"
}

ensure_user() {
  id -u "$CI_USER" >/dev/null 2>&1 || useradd -m -s /bin/sh "$CI_USER"
  USER_HOME=$(getent passwd "$CI_USER" | cut -d: -f6)
  [ -d "$USER_HOME" ] || fail "$CI_USER has no home directory ($USER_HOME)"
  echo "$CI_USER (uid $(id -u "$CI_USER")), home $USER_HOME"
  keep USER_HOME
}

teach_memory() {
  # A Cairn user of its own for each run: the same preference taught twice is one memory (the update cycle),
  # so an earlier run's memory must not stand in for this one's.
  MEMORY_USER="package-check-$(date +%Y%m%d%H%M%S)"
  as_user /usr/bin/cairn memory add preference "Always show me customers from India" --user "$MEMORY_USER" \
    --json > "$WORK/added.json" || { cat "$WORK/added.json"; fail "cairn memory add failed"; }
  MEMORY_ID=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))[0]["id"])' "$WORK/added.json")
  MEMORY_TEXT=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))[0]["content"])' "$WORK/added.json")
  echo "memory $MEMORY_ID of $MEMORY_USER: $MEMORY_TEXT"
  keep MEMORY_USER MEMORY_ID MEMORY_TEXT
  memory_listed
}

memory_listed() {  # the memory taught above is listed, same text, by the installed cairn
  as_user /usr/bin/cairn memory list --user "$MEMORY_USER" --json > "$WORK/listed.json" \
    || { cat "$WORK/listed.json"; fail "cairn memory list failed"; }
  "$PY" - "$WORK/listed.json" "$MEMORY_ID" "$MEMORY_TEXT" <<'PY'
import json, sys
listed = json.load(open(sys.argv[1]))
hit = [m for m in listed if m["id"] == sys.argv[2]]
if not hit:
    sys.exit(f"memory {sys.argv[2]} is not listed any more ({len(listed)} memories listed)")
if hit[0]["content"] != sys.argv[3]:
    sys.exit(f"memory {sys.argv[2]} now reads {hit[0]['content']!r}")
print(f"memory {sys.argv[2]} listed, unchanged ({len(listed)} memories of this user)")
PY
}

data_snapshot() {  # name: every file of the user's data and config dirs with its checksum
  (cd "$USER_HOME" && for d in .local/share/cairn .config/cairn; do
     [ -d "$d" ] || continue
     find "$d" -printf '%y %m %p\n'
     find "$d" -type f -print0 | xargs -0 -r sha256sum
   done | LC_ALL=C sort) > "$WORK/data-$1.txt"
  [ -s "$WORK/data-$1.txt" ] || fail "no data dir under $USER_HOME (.local/share/cairn): the memory went elsewhere?"
  echo "$USER_HOME/.local/share/cairn and .config/cairn: $(grep -c '^f ' "$WORK/data-$1.txt") files"
}

remove_and_purge() {
  dpkg -r cairn
  dpkg -P cairn
  ! dpkg-query -W -f='${Status}' cairn 2>/dev/null | grep -q 'install ok' || fail "cairn is still installed"
  [ ! -e /usr/bin/cairn ] || fail "/usr/bin/cairn is still there"
  if [ -e /opt/cairn ]; then
    { find /opt/cairn || true; } | head -20
    fail "/opt/cairn is still there after purge: files written at run time (above) were left behind"
  fi
  echo "cairn removed and purged; /opt/cairn and /usr/bin/cairn gone"
}

data_unchanged() {
  data_snapshot after-purge
  diff -q "$WORK/data-before-remove.txt" "$WORK/data-after-purge.txt" >/dev/null \
    || { { diff "$WORK/data-before-remove.txt" "$WORK/data-after-purge.txt" || true; } | head -40; fail "the user's data changed on remove/purge"; }
  echo "the user's data and config dirs are exactly as before remove and purge"
}

# --- the run ------------------------------------------------------------------------------------------------

if [ ! -x "$DIST_DIR/cairn" ]; then
  echo "$DIST_DIR/cairn is missing: build the bundle first with 'bash scripts/package.sh' (or set DIST_DIR)" >&2
  exit 2
fi
step "preflight" preflight
step "fake Ollama (tests/fakes/fake_ollama.py) in the background" start_fake_ollama
step "build the .deb ($VERSION)" build_deb "$VERSION" DEB
step "lintian $(basename "$DEB")" lintian_check
step "build the portable tar.gz" build_tarball
step "frozen self-test: ${DIST_DIR#"$REPO"/}/cairn selftest" as_root "$DIST_DIR/cairn" selftest --require-model
step "Debian dependencies of the package" install_depends
step "dpkg -i $(basename "$DEB")" dpkg_install "$DEB" "$VERSION"
step "snapshot /opt/cairn" snapshot_opt first
step "installed self-test as root: /usr/bin/cairn selftest" as_root /usr/bin/cairn selftest --require-model
step "non-root user $CI_USER" ensure_user
step "installed self-test as $CI_USER" as_user /usr/bin/cairn selftest --require-model
step "$CI_USER teaches a memory (real data dir)" teach_memory
step "nothing written inside /opt/cairn" opt_unchanged first
step "build the upgrade .deb ($NEXT_VERSION)" build_deb "$NEXT_VERSION" NEXT_DEB
step "upgrade: dpkg -i $(basename "$NEXT_DEB")" dpkg_install "$NEXT_DEB" "$NEXT_VERSION"
step "snapshot /opt/cairn after the upgrade" snapshot_opt upgraded
step "the memory survived the upgrade" memory_listed
step "nothing written inside /opt/cairn" opt_unchanged upgraded
step "snapshot the user's data dir" data_snapshot before-remove
step "dpkg -r cairn, dpkg -P cairn" remove_and_purge
step "the user's data survived remove and purge" data_unchanged

echo
echo "package check passed: $STEP_NO steps, $(elapsed "$T0")s"
printf '%s\n' "${SUMMARY[@]}"
echo "built: $DEB $NEXT_DEB $TARBALL"
