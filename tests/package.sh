#!/usr/bin/env bash
# Builds the desktop app's .deb (debug, to stay quick) and checks that it ships both programs: the app and
# the `clawmux` command agents run, and that it depends on the WebKitGTK runtime and on ALSA (push-to-talk).
set -euo pipefail
cd "$(dirname "$0")/.."
npx --yes @tauri-apps/cli@2.12.5 build --bundles deb --debug --ci >/dev/null
deb=$(ls target/debug/bundle/deb/ClawMux_*_amd64.deb)
contents=$(dpkg-deb -c "$deb")
for path in usr/bin/clawmux-desktop usr/bin/clawmux usr/share/applications/ClawMux.desktop; do
    grep -qE " (\./)?$path\$" <<<"$contents" || { echo "package: $path is missing from $deb"; exit 1; }
done
depends=$(dpkg-deb -f "$deb" Depends)
grep -q libwebkit2gtk-4.1 <<<"$depends" || { echo "package: no WebKitGTK dependency: $depends"; exit 1; }
grep -q libasound2 <<<"$depends" || { echo "package: no ALSA dependency (the microphone): $depends"; exit 1; }
echo "package: $deb ($(du -h "$deb" | cut -f1)) ships clawmux-desktop and clawmux"
