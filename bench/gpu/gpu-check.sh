#!/usr/bin/env bash
# The GPU issue's checks on a GPU host with no Node and no network, run from the repository root
# with the kit of pack-kit.sh, in two parts (each part's kit must travel with it; `ocr` runs after
# `base` on the same machine, which keeps Node and the unpacked app):
#   base <out> [kit] [debs]: 1. what a WebGPU model says where the Vulkan loader is missing (before
#     the .debs in <debs> are unpacked: Debian's libvulkan1, and libglvnd0, libglx0, libegl1,
#     libgl1, libopengl0, libgles2, which NVIDIA's Vulkan driver library needs), then with the
#     loader alone; 2. nvidia-smi's answer to the query infernode's GPU metrics run;
#     3. bench:gpu-soak: 4 WebGPU instances under 16 clients for SOAK_SECS (120), a second WebGPU
#     model loaded and unloaded every 20 s, GPU metrics scraped.
#   ocr <out> [kit]: 4. raw ORT timings, CPU against WebGPU (bench/gpu-ort-timing); 5. bench:ocr
#     --compare-gpu: the OCR pipeline on all CPU cores, then with both steps on WebGPU (the bundled
#     `webgpu` configs), OCR_SECS (10) per concurrency; 6. the same with the detector alone on
#     WebGPU.
# Results (JSON and the log) go to <out>.
#
#   bash bench/gpu/gpu-check.sh base|ocr <out dir> [kit dir, default .devkit] [deb dir, default .gl]
set -uo pipefail
PART=${1:?usage: gpu-check.sh base|ocr <out dir> [kit dir] [deb dir]}
OUT=${2:?usage: gpu-check.sh base|ocr <out dir> [kit dir] [deb dir]}
KIT=${3:-.devkit}
DEBS=${4:-.gl}
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu-check-$PART.log") 2>&1
step() { echo "== $(date +%T) $*"; }

vulkan() {
  for f in "$DEBS"/*.deb; do dpkg -x "$f" /; done
  ldconfig
  if ! ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json >/dev/null 2>&1 &&
    [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  fi
}

if [ "$PART" = base ]; then
  step unpack
  mkdir -p /opt/node/bin
  xz -dc "$KIT/base/node.xz" >/opt/node/bin/node && chmod +x /opt/node/bin/node
  export PATH=/opt/node/bin:$PATH
  tar -xJf "$KIT/base/app.tar.xz"
  node -v
  nproc
  nvidia-smi -L

  step "1. a WebGPU model where the Vulkan loader is missing"
  ldconfig -p | grep -i libvulkan || echo "(no Vulkan loader installed)"
  REPO=$(mktemp -d)
  mkdir -p "$REPO/mlp_gpu/1" && cp model_repository/mlp/1/model.onnx "$REPO/mlp_gpu/1/"
  cat >"$REPO/mlp_gpu/config.pbtxt" <<'PBTXT'
name: "mlp_gpu"
platform: "onnxruntime_onnx"
max_batch_size: 8
instance_group [ { kind: KIND_GPU count: 1 gpus: [ 0 ] } ]
optimization { execution_accelerators { gpu_execution_accelerator [ { name: "webgpu" } ] } }
PBTXT
  failure() {
    timeout 10 node dist/src/cli/main.js --model-repository="$REPO" --exit-on-error=false \
      --http-address=127.0.0.1 --http-port=0 --metrics-port=0 --allow-grpc=false 2>&1 |
      grep -E 'MODEL_LOAD_FAILED|model version ready' | cut -c1-700 | head -2
  }
  failure

  step "1b. the Vulkan loader alone, without libglvnd"
  for f in "$DEBS"/libvulkan1_*.deb; do dpkg -x "$f" /; done
  ldconfig
  VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json failure

  step "install the Vulkan loader"
  vulkan
  ldconfig -p | grep -i libvulkan
  echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"

  step "2. the GPU metrics query"
  nvidia-smi --help-query-gpu | grep -i -B1 -A2 energy
  nvidia-smi --query-gpu=uuid,utilization.gpu,memory.total,memory.used,power.draw,power.limit,total_energy_consumption \
    --format=csv,noheader,nounits

  step "3. gpu-soak"
  node dist/bench/cli.js gpu-soak --instances 4 --concurrency 16 --duration-secs "${SOAK_SECS:-120}" \
    --cycle-secs 20 --out "$OUT"
  echo "gpu-soak exit $?"
else
  export PATH=/opt/node/bin:$PATH
  step unpack
  node -v || { echo "no Node here: run the base part on this machine first"; exit 1; }
  tar -xJf "$KIT/ocr/ocr.tar.xz"
  # Where the bench looks for it by name (bench/model/text-image.ts).
  mkdir -p /usr/share/fonts/truetype/dejavu
  xz -dc "$KIT/ocr/DejaVuSans.ttf.xz" >/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
  vulkan

  step "4. raw ORT timings"
  node dist/bench/cli.js gpu-timing --runs 20 --out "$OUT"

  step "5. ocr, CPU against WebGPU"
  node dist/bench/cli.js ocr --compare-gpu --concurrency 1,4 --duration-secs "${OCR_SECS:-10}" \
    --warmup 6 --no-publish --out-dir "$OUT"
  echo "ocr exit $?"

  step "6. ocr, CPU against the detector alone on WebGPU (config name webgpu_det, made here)"
  cp model_repository/ocr_detector/configs/webgpu.pbtxt model_repository/ocr_detector/configs/webgpu_det.pbtxt
  node dist/bench/cli.js ocr --compare-gpu --config-name webgpu_det --concurrency 1,4 \
    --duration-secs "${OCR_SECS:-10}" --warmup 6 --no-publish --out-dir "$OUT/det"
  rm model_repository/ocr_detector/configs/webgpu_det.pbtxt
fi
step done
