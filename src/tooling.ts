// `infernode/tooling`: the pieces of the server that tools speaking its protocols reuse — load
// generators, the benchmark harness (bench/), comparators — so they encode, frame and read exactly
// as the server does instead of keeping copies. Kept apart from the root entry (`infernode`) on
// purpose: that one starts servers and loads ONNX Runtime, piscina and the HTTP stack, while this
// one loads codecs and tables only, so a load-generator thread that imports it stays small.
// Nothing here starts anything; what a tool needs and this lacks is added here, never imported from
// a deep path (eslint refuses bench/ imports of src/ other than the entry points).

import type { LoadedModelConfig, LoadModelConfigOptions } from './config/load-model-config.js';

// The datatype table and the conversions at its edges.
export { datatypeInfo, fromConfigType, isDatatype, type Datatype } from './tensor/datatypes.js';
export { numberToBf16Bits, numberToHalfBits } from './tensor/half.js';
export { decodeStringElements } from './execution/onnxruntime/string-tensor.js';
export { tensorFromBytes } from './client/client-tensor.js';

// Model configuration, read as the server reads it.
export type { ModelConfig } from './config/model-config.js';

/**
 * The config pipeline with the server's backends' rules (the registry's), as a model load runs it.
 * The registry is imported when this is called, not with this module: it brings the backends' worker
 * pools (piscina, ONNX Runtime's), which a load-generator thread importing tooling must not load.
 */
export async function loadModelConfig(
  modelDir: string,
  options: Omit<LoadModelConfigOptions, 'backends'> = {},
): Promise<LoadedModelConfig> {
  const [{ loadModelConfig: load }, { backendConfigRules }] = await Promise.all([
    import('./config/load-model-config.js'),
    import('./repository/backends/registry.js'),
  ]);
  return load(modelDir, { ...options, backends: backendConfigRules() });
}

// Wire formats: the WebSocket protocol, the gRPC message framing and service definitions.
export { msgpackClientCodec } from './client/client-codecs.js';
export { MSGPACK_PROTOCOL, WS_PATH } from './websocket/ws-protocol.js';
export { MessageReader } from './grpc/message-reader.js';
export { PREFIX_BYTES } from './grpc/h2-response.js';
export { PROTO_OPTIONS, tritonServices } from './grpc/grpc-protos.js';
// The server's ModelInfer codec, which bench/grpc-codec.ts holds against generated code.
export type {
  InferInputTensor,
  InferParameter,
  ModelInferRequest,
  ModelInferResponse,
} from './grpc/infer-codec.js';
export { decodeModelInferRequest } from './grpc/infer-request-wire.js';
export {
  encodeModelInferResponse,
  encodeModelStreamInferResponse,
} from './grpc/infer-response-wire.js';
export type { ModelStreamInferResponse } from './grpc/stream-session.js';
export type { TensorContents } from './grpc/tensor-contents.js';

// The uWebSockets.js binary as the server loads it (comparators serve with the same one).
export { loadUws } from './http/uws/uws-loader.js';

// Process set-up the server is deployed or tested with.
export { DEPLOYED_MALLOC_ENV } from './memory/malloc-environment.js';
export { TEST_GPU_RECORD_ENV } from './execution/onnxruntime/test-gpu-target.js';

// What --trace-stages reports.
export type { StageTable } from './trace/stage-recorder.js';
