#!/usr/bin/env bash
# Packs what bench/gpu/cpu-check.sh needs on the 16-core GPU host (no Node, no network there): the
# base kit of pack-kit.sh (Node, the built app trimmed to linux-x64, the mlp model), plus
# <kit>/cpu/extra.tar.xz with what the CPU checks add: uWebSockets.js trimmed to Node 20's binary
# (so front-end threads serve there: node:http has no reusePort before Node 22.12), resvg for the bench's plots, the package's
# own package.json (the bench imports `infernode/client` by name) and the identity_fp32 test model
# the shared-memory table uses.
# Run from the repository root after `npm ci`.
#
#   bash bench/gpu/pack-cpu-kit.sh [kit dir, default .devkit]
#   bash bench/gpu/pack-cpu-kit.sh --dist-only [kit dir]: only <kit>/cpu/dist.tar.xz, today's dist/
#     (seconds, where the full kit takes minutes), which cpu-check.sh lays over the base kit's.
set -euo pipefail
if [ "${1:-}" = --dist-only ]; then
  KIT=${2:-.devkit}
  mkdir -p "$KIT/cpu"
  tar -cf - dist/src dist/workers dist/bench dist/schemas | xz -T0 -3 >"$KIT/cpu/dist.tar.xz"
  du -h "$KIT/cpu/dist.tar.xz"
  exit 0
fi
KIT=${1:-.devkit}
# The base kit takes minutes to pack (xz over Node and onnxruntime); it is kept when present:
# remove <kit>/base to repack it. --dist-only refreshes the build laid over it.
if [ ! -f "$KIT/base/app.tar.xz" ] || [ ! -f "$KIT/base/node.xz" ]; then
  bash bench/gpu/pack-kit.sh "$KIT" >/dev/null
  rm -rf "$KIT/ocr"
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
UWS=node_modules/@trufflesuite/uws-js-unofficial
# infernode loads binaries/uws_<platform>_<arch>_<abi>.node itself (src/http/uws/uws-loader.ts).
mkdir -p "$WORK/$UWS/binaries" "$WORK/test/fixtures/repository"
cp "$UWS/package.json" "$WORK/$UWS/"
cp "$UWS/binaries/uws_linux_x64_115.node" "$WORK/$UWS/binaries/"
# The bench's PNG plots (bench/report/plot-png.ts) render through resvg.
mkdir -p "$WORK/node_modules/@resvg"
cp -r node_modules/@resvg/resvg-js node_modules/@resvg/resvg-js-linux-x64-gnu "$WORK/node_modules/@resvg/"
cp package.json "$WORK/"
cp -r test/fixtures/repository/identity_fp32 "$WORK/test/fixtures/repository/"
mkdir -p "$KIT/cpu"
tar -C "$WORK" -cf - . | xz -T0 -6 >"$KIT/cpu/extra.tar.xz"
du -ch "$KIT"/base/* "$KIT"/cpu/*
