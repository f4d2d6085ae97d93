#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed at /usr/bin/chromium for the web UI's browser
# tests (internal/webui/browsertest, run with GARRISON_UI_TEST=1). It installs the Debian
# package `chromium` when the binary is missing and nothing else: no browser is downloaded
# from anywhere but the distribution's package archive. Needs root (CI runs as root).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: /usr/bin/chromium is missing and apt-get is not available" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core
/usr/bin/chromium --version
