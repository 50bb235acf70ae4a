#!/usr/bin/env bash
# Debian packages the arena needs beside Python: bubblewrap, the sandbox of uploaded bots; nodejs, the
# interpreter of JavaScript bots; and chromium, the browser the viewer's tests drive with Playwright
# (never a downloaded browser). Installs them where apt is available and we may use it (root, or
# passwordless sudo); elsewhere it says what is missing: uploaded bots are then refused (built-in bots
# still play), JavaScript bots wait for a worker with node, and the browser tests are skipped.
set -u
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v node >/dev/null 2>&1 || command -v nodejs >/dev/null 2>&1 || missing+=(nodejs)
command -v chromium >/dev/null 2>&1 || [ -x "${ARENA_CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0

if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=none; fi
  if [ "$sudo" != none ]; then
    echo "installing ${missing[*]} with apt-get"
    $sudo apt-get update -qq >/dev/null 2>&1 || true
    if DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
      exit 0
    fi
  fi
fi
for package in "${missing[@]}"; do
  case $package in
    bubblewrap) echo "warning: could not install bubblewrap: uploaded bots will be refused until it is installed" >&2 ;;
    nodejs) echo "warning: could not install nodejs: JavaScript bots cannot run here until it is installed" >&2 ;;
    chromium) echo "warning: could not install chromium: the browser tests of the match viewer will be skipped" >&2 ;;
  esac
done
if [ "${ARENA_REQUIRE_SERVICES:-0}" = 1 ]; then
  echo "error: ARENA_REQUIRE_SERVICES=1 and ${missing[*]} missing" >&2
  exit 1
fi
exit 0
