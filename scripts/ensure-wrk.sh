#!/usr/bin/env bash
# Installs wrk, the load generator of `npm run bench:http`, from Debian's packages when it is not on PATH.
# Uses sudo only when not root. Everything goes to stderr, so a bench's stdout stays its report.
set -euo pipefail
exec 1>&2
if command -v wrk >/dev/null 2>&1; then exit 0; fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "wrk not found: installing Debian's package"
# A fresh machine may have no package lists yet; fetch them only when the first try fails.
if ! $sudo apt-get install -y -q wrk; then
  $sudo apt-get update -q
  $sudo apt-get install -y -q wrk
fi
command -v wrk >/dev/null
