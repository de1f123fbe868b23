# syntax=docker/dockerfile:1
# infernode's container image: built in one stage, run from another that holds Node, the compiled
# server and its production dependencies, and nothing else (no compiler, no TypeScript, no npm).
#   docker build -t infernode:0.1.0 .
# The CUDA variant (deploy/kubernetes/overlays/gpu) needs ONNX Runtime's CUDA binaries and a base
# with CUDA 12 and cuDNN 9; docs/deploy-kubernetes.md ("Container image") has the command. WebGPU
# needs neither: this image runs it on an NVIDIA GPU as it is (see the final stage).

# --- build: install everything, compile TypeScript into dist/ --------------------------------------
FROM node:24-slim AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
# --ignore-scripts: `prepare` would build before the sources are here; .npmrc says the same, and
# is copied so that the install runs under the project's npm settings.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workers ./workers
COPY scripts ./scripts
COPY schemas ./schemas
COPY test ./test
COPY bench ./bench
RUN npm run build

# --- production dependencies only ------------------------------------------------------------------
FROM node:24-slim AS deps
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# --- the image that runs -----------------------------------------------------------------------------
FROM node:24-slim
# The Vulkan loader (Debian's libvulkan1), which ONNX Runtime's WebGPU provider, bundled in
# onnxruntime-node, runs on, and libglvnd (libglvnd0, libglx0, libegl1): NVIDIA's Vulkan driver
# lives in its GL library (libGLX_nvidia.so.0), which does not load without it (seen on an H200
# host: the loader alone found no adapter). About 1 MB together. The NVIDIA container toolkit mounts
# the driver's Vulkan ICD and libraries when the container asks for the `graphics` capability
# (NVIDIA_DRIVER_CAPABILITIES=compute,utility,graphics, as the GPU overlay sets it).
RUN apt-get update \
    && apt-get install -y --no-install-recommends libvulkan1 libglvnd0 libglx0 libegl1 \
    && rm -rf /var/lib/apt/lists/*
# npm and corepack are not needed to run the server; fewer programs in the image, less to patch.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
    /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack
WORKDIR /opt/infernode
ENV NODE_ENV=production
# glibc's malloc: a fixed mmap threshold, so tensor-sized buffers go back to the system when freed
# (docs/operations.md, "glibc's malloc"; src/memory/malloc-environment.ts).
ENV MALLOC_MMAP_THRESHOLD_=131072
COPY --from=deps /src/node_modules ./node_modules
COPY --from=build /src/dist/src ./dist/src
COPY --from=build /src/dist/workers ./dist/workers
COPY --from=build /src/dist/schemas ./dist/schemas
# The vendored Triton protos, which the gRPC front end loads at run time, and the version's source.
COPY schemas/triton ./schemas/triton
COPY package.json ./
# The official image's `node` user, by number, so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
# 8000 HTTP and WebSocket, 8001 gRPC, 8002 metrics: the server's defaults.
EXPOSE 8000 8001 8002
# SIGTERM starts the drain (docs/operations.md); the runtime's stop timeout must exceed
# --exit-timeout-secs, as terminationGracePeriodSeconds does in deploy/kubernetes.
STOPSIGNAL SIGTERM
# The model repository is a volume: `docker run -v /srv/models:/models:ro infernode:0.1.0`.
ENTRYPOINT ["node", "/opt/infernode/dist/src/cli/main.js"]
CMD ["--model-repository=/models"]
