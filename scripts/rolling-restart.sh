#!/usr/bin/env bash
# The rolling restart behind a real load balancer, longer than the test's: installs HAProxy and
# nginx from Debian's packages when absent (needs root and apt), builds, and runs
# bench/rolling-restart.ts against each balancer. Extra arguments go to the run, e.g.
#   scripts/rolling-restart.sh --steady-secs 60 --rounds 5
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v haproxy >/dev/null || ! command -v nginx >/dev/null; then
  apt-get update -qq && apt-get install -y -qq haproxy nginx-light >/dev/null
fi
npm run build >/dev/null
npm run models >/dev/null
for balancer in haproxy nginx; do
  node dist/bench/cli.js rolling --balancer "${balancer}" "$@"
done
