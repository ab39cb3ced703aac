#!/usr/bin/env bash
# Install Debian's chromium for the browser test of the HTML report (tests/test_report.py),
# only when it is missing. Needs root (CI containers run as root).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium
