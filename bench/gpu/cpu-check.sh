#!/usr/bin/env bash
# The checks that need more cores than a 2-core development machine, run on the 16-core GPU host
# (no Node, no network there) from the repository root with the kit of pack-cpu-kit.sh:
#   1. the response cache at 90 % repeated inputs, uncached against the local cache, at 64 and 256
#      in flight over HTTP binary (issue 30's throughput target: >= 2x uncached at 64);
#   2. the shared-memory table (`bench shm`: HTTP binary, gRPC and system shared memory, mlp and a
#      16/64 MiB identity model; p50/p99 and the server's RSS growth);
#   3. the noisy-neighbour and shadow-overhead benches, where this build has them.
# The server gets the default front-end threads (half the cores) under uWebSockets.js on Node 20.
# Everything printed goes to <out>/cpu-check.log; run files are packed into <out>/runs.tar.gz.
#
#   bash bench/gpu/cpu-check.sh <out dir> [kit dir, default .devkit]
#   (QUICK=1 shortens every window, for a dry run of the script itself)
set -uo pipefail
OUT=${1:?usage: cpu-check.sh <out dir> [kit dir]}
KIT=${2:-.devkit}
mkdir -p "$OUT"
exec > >(tee "$OUT/cpu-check.log") 2>&1
step() { echo "== $(date +%T) $*"; }
WINDOW=3000
TRIALS=5
REQS=20
if [ "${QUICK:-0}" = 1 ]; then WINDOW=500 TRIALS=2 REQS=3; fi

step unpack
if ! command -v node >/dev/null; then
  mkdir -p /opt/node/bin
  xz -dc "$KIT/base/node.xz" >/opt/node/bin/node && chmod +x /opt/node/bin/node
  export PATH=/opt/node/bin:$PATH
fi
tar -xJf "$KIT/base/app.tar.xz"
tar -xJf "$KIT/cpu/extra.tar.xz"
# A newer build than the base kit's, when one was packed (bench/gpu/pack-cpu-kit.sh --dist-only).
if [ -f "$KIT/cpu/dist.tar.xz" ]; then rm -rf dist && tar -xJf "$KIT/cpu/dist.tar.xz"; fi
node -v
nproc
grep -m1 'model name' /proc/cpuinfo
RUNS=$(mktemp -d)

step "1. response cache, 90 % repeated inputs"
# Repositories of mlp alone: the kit carries only some of the bundled models' files.
PLAIN=$(mktemp -d)
CACHED=$(mktemp -d)
cp -r model_repository/mlp "$PLAIN/"
cp -r model_repository/mlp "$CACHED/"
echo 'response_cache { enable: true }' >>"$CACHED/mlp/config.pbtxt"
for c in 64 256; do
  for cache in none local; do
    args=(--model-repository "$PLAIN")
    [ "$cache" = local ] && args=(--model-repository "$CACHED" --server-arg=--cache-config=local,size=67108864)
    timeout 180 node dist/bench/cli.js run -m mlp --serve --binary --concurrency-range "$c" \
      --generator-threads 4 -p "$WINDOW" -r "$TRIALS" --cache-hit-ratio 0.9 --out-dir "$RUNS" \
      --json "$RUNS/cache-$cache-c$c.json" "${args[@]}" 2>&1 | grep -E '^\[infernode\]|Cache hit count' | head -4
  done
done

step "2. shared memory against HTTP binary and gRPC"
timeout 240 node dist/bench/cli.js shm --requests "$REQS" 2>&1 | tail -25

step "3. benches this build may have"
CMDS=$(node dist/bench/cli.js --help 2>&1)
if grep -q noisy <<<"$CMDS"; then
  timeout 240 node dist/bench/cli.js noisy-neighbour 2>&1 | tail -25
fi
if grep -q shadow <<<"$CMDS"; then
  timeout 120 node dist/bench/cli.js shadow 2>&1 | tail -15
fi
# What the benches published here (bench/results/, bench/RESULTS.md) comes back with the runs.
cp -r bench/out "$RUNS/bench-out" 2>/dev/null || true
cp -r bench/results bench/RESULTS.md "$RUNS/" 2>/dev/null || true
tar -C "$RUNS" -czf "$OUT/runs.tar.gz" .
step done
