// One model file opened in an ONNX Runtime session on this thread: its inputs and outputs as the
// config pipeline's ModelIO, and runs over HostTensors. Both sides of a validation are opened with
// the same options, so their latencies compare the models and not their settings: the CPU provider,
// one intra-op and one inter-op thread (a shared CI machine gives steadier numbers that way), full
// graph optimization as the server's default.

import * as ort from 'onnxruntime-node';
import { metadataToModelIO, type ModelIO } from '../config/read-model-io.js';
import { pinFloat16ToUint16 } from '../execution/onnxruntime/float16-compat.js';
import { DATATYPE_TABLE, fromOrtType } from '../tensor/datatypes.js';
import type { NumericView } from '../tensor/datatypes.js';
import type { HostTensor } from '../compare/host-tensor.js';

pinFloat16ToUint16(ort.Tensor);

export interface ModelSession {
  readonly file: string;
  readonly io: ModelIO;
  /** Runs the model; outputs in the order asked for. Rejects with ORT's own message. */
  run(feeds: ReadonlyMap<string, HostTensor>, outputs: readonly string[]): Promise<HostTensor[]>;
  release(): Promise<void>;
}

export const SESSION_OPTIONS: ort.InferenceSession.SessionOptions = Object.freeze({
  executionProviders: ['cpu'],
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
});

export async function openModelSession(file: string): Promise<ModelSession> {
  const session = await ort.InferenceSession.create(file, { ...SESSION_OPTIONS });
  let io: ModelIO;
  try {
    io = metadataToModelIO(session.inputMetadata, session.outputMetadata, file);
  } catch (e) {
    await session.release();
    throw e;
  }
  return {
    file,
    io,
    async run(feeds, outputs) {
      const ortFeeds: Record<string, ort.Tensor> = {};
      for (const [name, t] of feeds) ortFeeds[name] = toOrt(t);
      const result = await session.run(ortFeeds, [...outputs]);
      return outputs.map((name) => {
        const t = result[name];
        if (t === undefined) throw new Error(`the model returned no output "${name}"`);
        return fromOrt(name, t);
      });
    },
    release: () => session.release(),
  };
}

function toOrt(t: HostTensor): ort.Tensor {
  const type = DATATYPE_TABLE[t.datatype].ort;
  if (type === null) throw new Error(`ONNX Runtime has no ${t.datatype} tensors`);
  if (type === 'string')
    return new ort.Tensor('string', [...(t.data as readonly string[])], t.dims);
  return new ort.Tensor(type, t.data as NumericView as never, t.dims);
}

function fromOrt(name: string, t: ort.Tensor): HostTensor {
  const datatype = fromOrtType(t.type);
  if (datatype === undefined) throw new Error(`output "${name}" has ONNX type ${t.type}`);
  const data = datatype === 'BYTES' ? (t.data as string[]) : (t.data as NumericView);
  return { datatype, dims: [...t.dims], data };
}
