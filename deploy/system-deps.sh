#!/usr/bin/env bash
# Debian packages the arena needs beside Python: bubblewrap, the sandbox of uploaded bots, and nodejs,
# the interpreter of JavaScript bots. Installs them where apt is available and we may use it (root, or
# passwordless sudo); elsewhere it says what is missing, and uploaded bots are then refused (built-in
# bots still play; without node only JavaScript bots wait).
set -u
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v node >/dev/null 2>&1 || command -v nodejs >/dev/null 2>&1 || missing+=(nodejs)
[ ${#missing[@]} -eq 0 ] && exit 0

if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=none; fi
  if [ "$sudo" != none ]; then
    echo "installing ${missing[*]} with apt-get"
    $sudo apt-get update -qq >/dev/null 2>&1 || true
    if DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null; then
      exit 0
    fi
  fi
fi
echo "warning: could not install ${missing[*]}: uploaded bots (without bubblewrap) or JavaScript bots (without nodejs) cannot run" >&2
if [ "${ARENA_REQUIRE_SERVICES:-0}" = 1 ]; then
  echo "error: ARENA_REQUIRE_SERVICES=1 and ${missing[*]} missing" >&2
  exit 1
fi
exit 0
