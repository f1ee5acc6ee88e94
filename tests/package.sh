#!/usr/bin/env bash
# The package a user installs, built and used as they would: builds the desktop app's .deb, checks what it
# holds (both programs, the menu entry with its name and category, the runtime dependencies), installs it
# with apt, runs the installed `clawmux-desktop` under Xvfb with the source tree's ui/ hidden (so the window
# can only show the UI the binary carries) through tests/e2e/installed-package.mjs, then removes the
# package and checks nothing of it is left.
#
# Between the two, the installed app updates itself (tests/e2e/installed-update.mjs): the package is built
# twice, as version N and N+1, with a throwaway release key of the test's own (a folder made 0700 here,
# removed at the end; the private key is named to the bundler by its path, never given on a command line),
# so that the app at N takes N+1 from an update server on loopback, and refuses what is not N+1.
#
# The packages are release builds, made by `scripts/package` as the one users get is: the app, and the
# `clawmux` and `clawmux-statusline` it ships. They differ from it in their configuration only: the throwaway
# key's public half, and `dangerousInsecureTransportProtocol`, since the test's update server is plain http
# on loopback (a release app refuses any other http address; a user's package never has it). N+1 is built
# first: N then builds again only what reads the app's configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tauri=(npx --yes @tauri-apps/cli@2.12.5)
package=(scripts/package --config)
fail() { echo "package: $*"; exit 1; }
current=$(node -p 'require("./tauri.conf.json").version')
next=$(node -p 'const [a, b, c] = require("./tauri.conf.json").version.split("."); `${a}.${b}.${Number(c) + 1}`')
keys=$(mktemp -d)
bundles=target/release/bundle/deb
# The test's packages carry its throwaway key and the http exception: none is left where `scripts/package`
# puts the one users get.
trap 'rm -rf "$keys" "$bundles"/clawmux_*_amd64.deb*' EXIT
"${tauri[@]}" signer generate --ci -w "$keys/release.key" >/dev/null 2>&1
"${tauri[@]}" signer generate --ci -w "$keys/other.key" >/dev/null 2>&1
export TAURI_SIGNING_PRIVATE_KEY="$keys/release.key" TAURI_SIGNING_PRIVATE_KEY_PASSWORD=""
with_key=$(printf '"bundle":{"createUpdaterArtifacts":true},"plugins":{"updater":{"pubkey":"%s","dangerousInsecureTransportProtocol":true}}' "$(cat "$keys/release.key.pub")")
rm -f "$bundles"/clawmux_*_amd64.deb*
# N+1 first, kept aside with its signature, and signed again with another key (the signature of a stranger).
next_deb=$("${package[@]}" "{\"version\":\"$next\",$with_key}")
cp "$next_deb" "$keys/next.deb"
cp "$next_deb.sig" "$keys/next.deb.sig"
cp "$keys/next.deb" "$keys/other.deb"
env -u TAURI_SIGNING_PRIVATE_KEY TAURI_SIGNING_PRIVATE_KEY_PATH="$keys/other.key" "${tauri[@]}" signer sign "$keys/other.deb" >/dev/null
# Then N, the package installed and tested.
deb=$("${package[@]}" "{$with_key}")
cp "$deb" "$keys/current.deb"
unset TAURI_SIGNING_PRIVATE_KEY TAURI_SIGNING_PRIVATE_KEY_PASSWORD

contents=$(dpkg-deb -c "$deb")
for path in usr/bin/clawmux-desktop usr/bin/clawmux usr/bin/clawmux-statusline usr/share/applications/clawmux.desktop; do
    grep -qE " (\./)?$path\$" <<<"$contents" || fail "$path is missing from $deb"
done
[ "$(dpkg-deb -f "$deb" Package)" = clawmux ] || fail "the package is named $(dpkg-deb -f "$deb" Package), not clawmux"
depends=$(dpkg-deb -f "$deb" Depends)
grep -q libwebkit2gtk-4.1 <<<"$depends" || fail "no WebKitGTK dependency: $depends"
grep -q libasound2 <<<"$depends" || fail "no ALSA dependency (the microphone): $depends"
grep -q libpulse0 <<<"$depends" || fail "no libpulse dependency (the microphone through the sound server): $depends"
grep -q espeak-ng <<<"$depends" || fail "no espeak-ng dependency (the device voice's phonemes): $depends"
entry=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/applications/clawmux.desktop 2>/dev/null \
    || dpkg-deb --fsys-tarfile "$deb" | tar -xO usr/share/applications/clawmux.desktop)
grep -qx 'Name=ClawMux' <<<"$entry" || fail "the menu entry's name is not ClawMux: $entry"
grep -qE '^Categories=.*Development;' <<<"$entry" || fail "the menu entry has no category: $entry"
grep -qx 'Exec=clawmux-desktop' <<<"$entry" || fail "the menu entry does not start clawmux-desktop: $entry"
echo "package: $deb ($(du -h "$deb" | cut -f1)) ships clawmux-desktop, clawmux and clawmux-statusline, menu entry ClawMux (Development)"

if [ "$(id -u)" -ne 0 ]; then
    echo "package: SKIPPED installing it: not root (apt needs root; run the test command as root to check it)"
    exit 0
fi
if dpkg-query -W -f='${Status}' clawmux 2>/dev/null | grep -q "install ok installed"; then
    fail "a clawmux package is installed already; this test installs and removes its own"
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$root/$deb" >/dev/null
files=$(dpkg -L clawmux | while read -r f; do if [ -f "$f" ]; then echo "$f"; fi; done)
removed=0
remove() {
    if [ "$removed" = 1 ]; then return 0; fi
    removed=1
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq clawmux >/dev/null
}
trap 'remove; rm -rf "$keys" "$bundles"/clawmux_*_amd64.deb*' EXIT
[ -x /usr/bin/clawmux-desktop ] && [ -x /usr/bin/clawmux ] || fail "installed, but the programs are not in /usr/bin"
/usr/bin/clawmux --version >/dev/null || fail "the installed clawmux does not run"
[ "$(echo '{}' | /usr/bin/clawmux-statusline)" = ClawMux ] || fail "the installed clawmux-statusline does not run"

# The installed app, with the source tree's ui/ out of sight: an empty folder is mounted over it in a mount
# namespace of the test's own, which nothing outside it sees.
empty=$(mktemp -d)
CLAWMUX_DESKTOP=/usr/bin/clawmux-desktop unshare --mount --propagation private -- sh -c \
    'mount --bind "$1" "$2/ui" && node --test --test-concurrency=1 "$2/tests/e2e/installed-package.mjs" &&
     UPDATE_DIR="$3" UPDATE_NEXT="$4" exec node --test --test-concurrency=1 "$2/tests/e2e/installed-update.mjs"' \
    sh "$empty" "$root" "$keys" "$next"
rmdir "$empty"

remove
if dpkg-query -W -f='${Status}' clawmux 2>/dev/null | grep -q "installed"; then
    fail "still installed after apt-get purge"
fi
left=$(while read -r f; do if [ -n "$f" ] && [ -e "$f" ]; then echo "$f"; fi; done <<<"$files")
[ -z "$left" ] || fail "left behind after removal: $left"
echo "package: installed with apt, used under Xvfb, updated from $current to $next by the app, removed; nothing of it left"
