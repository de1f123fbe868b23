// The shapes shared by the frame-codec conformance suite and its case lists: a codec under test
// (the server's FrameCodec plus a client-side encoder and reply reader for the same encoding), the
// encoding-neutral description of a request frame the cases write, and small assertion helpers.

import assert from 'node:assert/strict';
import { InferenceServerError, isErrorCode, type ErrorCode } from '../../../src/errors.js';
import type { ParameterValue } from '../../../src/protocol/inference-request.js';
import { DATATYPE_TABLE, type Datatype } from '../../../src/tensor/datatypes.js';
import { encodeBytesTensor } from '../../../src/tensor/bytes-tensor.js';
import type { FrameId } from '../../../src/websocket/frame-id.js';
import type { ClientFrame, DecodeResult, FrameCodec } from '../../../src/websocket/ws-frames.js';

/** An id as the cases write it; the codecs carry it as a `FrameId` (its value, plus its bytes). */
export type TestId = string | number;

/** The `FrameId` the server hands its encoders for an id whose value is `id`. */
export function fid(id: TestId): FrameId {
  return { key: id };
}

/** A decoded id's value (null: the frame had no usable id), as the cases compare them. */
export function idValue(id: FrameId | null): TestId | null {
  return id === null ? null : id.key;
}

export type ParamsSpec = Readonly<Record<string, ParameterValue>>;

export interface TensorSpec {
  readonly name: string;
  readonly datatype: string;
  readonly shape: readonly number[];
  readonly data: Uint8Array;
  readonly parameters?: ParamsSpec;
}

export interface OutputSpec {
  readonly name: string;
  readonly parameters?: ParamsSpec;
}

/** A request frame in neither encoding; each codec under test writes it its own way. */
export interface InferSpec {
  readonly id: TestId;
  readonly model: string;
  readonly version?: string | number;
  readonly inputs: readonly TensorSpec[];
  readonly outputs?: readonly OutputSpec[];
  readonly parameters?: ParamsSpec;
  /** The sequence frame fields; a bigint id is written as a 64-bit integer, exactly. */
  readonly sequence?: SequenceSpec;
}

export interface SequenceSpec {
  readonly id?: number | string | bigint;
  readonly start?: boolean;
  readonly end?: boolean;
}

/** A repository frame in neither encoding; `files` are keyed by the path after `file:`. */
export type RepositorySpec =
  | { readonly type: 'repository_index'; readonly id: TestId; readonly ready?: boolean }
  | {
      readonly type: 'model_load';
      readonly id: TestId;
      readonly model: string;
      readonly config?: string;
      readonly files?: readonly (readonly [string, Uint8Array])[];
    }
  | {
      readonly type: 'model_unload';
      readonly id: TestId;
      readonly model: string;
      readonly unloadDependents?: boolean;
    };

/** An index row as a client reads it: absent fields absent. */
export interface IndexRow {
  readonly name: string;
  readonly version?: string;
  readonly state?: string;
  readonly reason?: string;
}

/** A server frame as a client reads it. */
export type Reply =
  | {
      readonly id: TestId;
      readonly type: string;
      readonly models?: readonly IndexRow[];
    }
  | {
      readonly id: TestId | null;
      readonly error: { readonly code: string; readonly message: string };
    }
  | {
      readonly id: TestId;
      readonly model_name: string;
      readonly model_version: string;
      readonly outputs: readonly {
        readonly name: string;
        readonly datatype: string;
        readonly shape: readonly number[];
        readonly data: Uint8Array;
      }[];
    };

export interface CodecUnderTest {
  readonly name: string;
  readonly codec: FrameCodec;
  encodeInfer(spec: InferSpec): Uint8Array;
  encodeCancel(id: TestId): Uint8Array;
  encodeRepository(spec: RepositorySpec): Uint8Array;
  readReply(bytes: Uint8Array): Reply;
  /** How an id sent as `id` comes back: msgpack keeps its type; FlatBuffers ids are strings. */
  wireId(id: TestId): TestId;
  /** Cases this encoding cannot express, each with the written reason (shown as the skip). */
  readonly skip?: Readonly<Partial<Record<string, string>>>;
  /** Cases this codec fails today, each with the reason (a known bug, reported as todo). */
  readonly todo?: Readonly<Partial<Record<string, string>>>;
}

export interface FrameCase {
  readonly id: string;
  readonly title: string;
  run(impl: CodecUnderTest): void;
}

// --- Helpers the cases share ---------------------------------------------------------------------

/** Two elements of `datatype` with recognisable bytes (BYTES: two length-prefixed elements). */
export function sampleData(datatype: Datatype): Uint8Array {
  const size = DATATYPE_TABLE[datatype].byteSize;
  if (size === 0) return encodeBytesTensor(['ab', '\u00e9']);
  return Uint8Array.from({ length: 2 * size }, (_, i) => (i * 37 + size) & 0xff);
}

export const DATATYPES = Object.keys(DATATYPE_TABLE) as Datatype[];

/** A one-input frame: IN, INT32 [2]. */
export function simpleSpec(extra: Partial<InferSpec> = {}): InferSpec {
  return {
    id: 1,
    model: 'm',
    inputs: [{ name: 'IN', datatype: 'INT32', shape: [2], data: sampleData('INT32') }],
    ...extra,
  };
}

/** The decoded infer frame; fails the case when the frame was refused or is a cancel. */
export function decodedInfer(
  impl: CodecUnderTest,
  bytes: Uint8Array,
  volatile = false,
): Extract<ClientFrame, { kind: 'infer' }> {
  const r = impl.codec.decode(bytes, volatile);
  assert.ok(r.ok, r.ok ? '' : `refused: ${r.error.code} ${r.error.message}`);
  assert.equal(r.frame.kind, 'infer');
  if (r.frame.kind !== 'infer') throw new Error('unreachable');
  return r.frame;
}

/**
 * Asserts a refusal with exactly this id (null: the frame had no usable id and the socket stays
 * open; undefined: the frame did not decode and the socket closes), code and message.
 */
export function assertRefused(
  r: DecodeResult,
  id: TestId | null | undefined,
  code: ErrorCode,
  message: string,
): void {
  assert.equal(r.ok, false, 'the frame was accepted');
  if (r.ok) return;
  assert.deepEqual(
    { id: r.close ? undefined : idValue(r.id), code: r.error.code, message: r.error.message },
    { id, code, message },
  );
}

/** A refusal a client can act on: a catalogued error of a 4xx status, never INTERNAL. */
export function assertClientError(r: DecodeResult, what: string): void {
  if (r.ok) return;
  assert.ok(r.error instanceof InferenceServerError, what);
  assert.ok(isErrorCode(r.error.code), `${what}: uncatalogued code ${r.error.code}`);
  assert.ok(r.error.status < 500, `${what}: ${r.error.code} (${r.error.message})`);
}

/** Plain, comparable form of decoded parameters (they have no prototype). */
export const plain = (p: ParamsSpec): Record<string, ParameterValue> => ({ ...p });
