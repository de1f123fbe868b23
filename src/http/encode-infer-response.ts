// InferenceResponse -> the bytes of an HTTP response body. All-JSON responses are one string; when
// any output is binary (binary tensor extension) the body is the JSON header followed by each binary
// output's bytes in order, kept as a list of chunks so output tensors are never concatenated. The
// routes put the result in an HttpReply with its headers.

import { Buffer } from 'node:buffer';
import { DATATYPE_TABLE } from '../tensor/datatypes.js';
import { fail } from '../errors.js';
import { elementCount, shapeText } from '../tensor/shape.js';
import type {
  InferenceResponse,
  Parameters,
  ResponseOutput,
} from '../protocol/inference-request.js';
import { MOVE_MIN_BYTES } from '../memory/movable-buffers.js';
import { tensorJsonPieces, tensorJsonText } from './tensor-json-text.js';

/**
 * An encoded response body. `json`: one JSON document. `binary`: the JSON header (`headerLength`
 * bytes, the Inference-Header-Content-Length) followed by the binary outputs, as views.
 */
export type EncodedInferResponse =
  /** One string, or, when an output's data is large, the document as UTF-8 chunks in order. */
  | { readonly kind: 'json'; readonly body: string | readonly Uint8Array[] }
  | {
      readonly kind: 'binary';
      readonly headerLength: number;
      readonly body: readonly Uint8Array[];
    };

/**
 * JSON text of a parameters object (JSON.stringify reads own enumerable keys, so null-prototype
 * objects print fine); values are strings, numbers or booleans, a non-finite number prints as null.
 */
function parametersText(p: Parameters, extra?: string): string {
  const body = JSON.stringify(p);
  if (extra === undefined) return body;
  return body === '{}' ? `{${extra}}` : `${body.slice(0, -1)},${extra}}`;
}

/** A binary output's bytes must fit its shape (fixed-size types; BYTES is not walked here). */
function checkBinaryLength(o: ResponseOutput): void {
  const size = DATATYPE_TABLE[o.datatype].byteSize;
  const expected = elementCount(o.shape) * size;
  if (size > 0 && o.data.byteLength !== expected) {
    throw fail(
      'INTERNAL',
      `output ${o.name}: expected ${expected} bytes for shape ${shapeText(o.shape)} ${o.datatype}, ` +
        `got ${o.data.byteLength}`,
    );
  }
}

/**
 * The response text as it is built: small answers stay one string (the common case, unchanged);
 * a large output's data is added in pieces, each turned into UTF-8 bytes at once, so the answer
 * is held as bytes (about one byte per character) rather than as numbers, then a string, then
 * bytes (measured with bench:large, see docs/operations.md "Memory").
 */
class ResponseText {
  text = '';
  readonly chunks: Uint8Array[] = [];
  /** Where large pieces are written: 1 MiB buffers of their own, filled in order. */
  #chunk: Buffer | undefined;
  #used = 0;

  add(s: string): void {
    this.text += s;
  }

  /**
   * A large piece: what came before it and the piece itself become bytes now, written into the
   * current 1 MiB chunk. Few large buffers, not one small one per piece: glibc gives a freed
   * buffer of 1 MiB (mmap'd) back to the system at once, while thousands of small ones fragment
   * its heap and stay in RSS after the answer is sent.
   */
  addPiece(s: string): void {
    this.flush();
    this.#write(s);
  }

  flush(): void {
    if (this.text.length === 0) return;
    if (this.#chunk !== undefined) this.#write(this.text);
    else this.chunks.push(Buffer.from(this.text, 'utf8'));
    this.text = '';
  }

  /** Whether any bytes were made: the answer is then chunks, not one string. */
  get inPieces(): boolean {
    return this.chunks.length > 0 || this.#chunk !== undefined;
  }

  /** Every byte, in order: the last partly filled chunk is cut to what it holds. */
  finish(): Uint8Array[] {
    this.flush();
    this.#seal();
    return this.chunks;
  }

  #write(s: string): void {
    const bytes = Buffer.byteLength(s, 'utf8');
    if (this.#chunk === undefined || this.#used + bytes > this.#chunk.length) {
      this.#seal();
      this.#chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, bytes));
    }
    this.#used += this.#chunk.write(s, this.#used, 'utf8');
  }

  #seal(): void {
    if (this.#chunk !== undefined && this.#used > 0) {
      this.chunks.push(this.#chunk.subarray(0, this.#used));
    }
    this.#chunk = undefined;
    this.#used = 0;
  }
}

/** Size of the buffers a large JSON answer is written into. */
const CHUNK_BYTES = 1024 * 1024;

/** Outputs whose JSON data is printed in pieces: from this many bytes of tensor data. */
const PIECES_FROM_BYTES = MOVE_MIN_BYTES;
/**
 * Elements per piece: 8,192 keeps the array a piece is printed from (8 bytes an element) and its
 * text (~16-200 KiB) small enough for V8's young generation, which a scavenge frees at once; at
 * 65,536 both went to the large-object space, which only a full GC frees, and a 64 MiB output
 * left ~2× its size of such garbage behind while it was encoded. Still big enough that the
 * per-piece cost vanishes.
 */
const PIECE_ELEMENTS = 8192;

/**
 * One output's JSON object. Member order follows Triton's: name, datatype, shape, parameters, data.
 * A binary output carries `parameters.binary_data_size` instead of `data`; an output written into
 * shared memory carries its `shared_memory_*` parameters and neither.
 */
function addOutput(out: ResponseText, o: ResponseOutput): void {
  if (o.binary || o.data.byteLength < PIECES_FROM_BYTES) {
    out.add(outputText(o));
    return;
  }
  const head = `{"name":${JSON.stringify(o.name)},"datatype":"${o.datatype}","shape":[${o.shape.join(',')}]`;
  const params = o.parameters === undefined ? '' : `,"parameters":${parametersText(o.parameters)}`;
  out.add(`${head}${params},"data":`);
  const label = { what: `output ${o.name}`, shape: o.shape };
  const pieces = tensorJsonPieces(o.data, o.datatype, elementCount(o.shape), PIECE_ELEMENTS, label);
  for (const piece of pieces) out.addPiece(piece);
  out.add('}');
}

function outputText(o: ResponseOutput): string {
  const head = `{"name":${JSON.stringify(o.name)},"datatype":"${o.datatype}","shape":[${o.shape.join(',')}]`;
  // Written into a shared-memory region: its parameters say where, and there is no data.
  if (o.inSharedMemory === true)
    return `${head},"parameters":${parametersText(o.parameters ?? {})}}`;
  if (o.binary) {
    checkBinaryLength(o);
    return `${head},"parameters":${parametersText(o.parameters ?? {}, `"binary_data_size":${o.data.byteLength}`)}}`;
  }
  const params = o.parameters === undefined ? '' : `,"parameters":${parametersText(o.parameters)}`;
  const label = { what: `output ${o.name}`, shape: o.shape };
  return `${head}${params},"data":${tensorJsonText(o.data, o.datatype, elementCount(o.shape), label)}}`;
}

/** The response document; member order follows Triton's: id, model_name, model_version, ... */
function responseText(resp: InferenceResponse): ResponseText {
  const out = new ResponseText();
  let s = '{';
  if (resp.id !== undefined && resp.id !== '') s += `"id":${JSON.stringify(resp.id)},`;
  s += `"model_name":${JSON.stringify(resp.model_name)},"model_version":${JSON.stringify(resp.model_version)}`;
  if (resp.parameters !== undefined) s += `,"parameters":${parametersText(resp.parameters)}`;
  out.add(`${s},"outputs":[`);
  for (let i = 0; i < resp.outputs.length; i++) {
    if (i > 0) out.add(',');
    addOutput(out, resp.outputs[i] as ResponseOutput);
  }
  out.add(']}');
  return out;
}

/**
 * Encodes a finished inference. Without binary outputs: one JSON string. With any: the JSON header
 * and each non-empty binary output's bytes (views, not copies), and the header's byte length.
 * Triton answers a response whose binary outputs are all empty as plain JSON; here the framing
 * follows the request's choice of binary outputs, which clients read the same way.
 */
export function encodeInferResponse(resp: InferenceResponse): EncodedInferResponse {
  const out = responseText(resp);
  if (!resp.outputs.some((o) => o.binary)) {
    if (!out.inPieces) return { kind: 'json', body: out.text };
    return { kind: 'json', body: out.finish() };
  }
  // A large JSON output beside binary ones: its pieces are joined back into the one header.
  const pieces = out.finish();
  const header = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
  const chunks: Uint8Array[] = [
    new Uint8Array(header.buffer, header.byteOffset, header.byteLength),
  ];
  for (const o of resp.outputs) if (o.binary && o.data.byteLength > 0) chunks.push(o.data);
  return { kind: 'binary', headerLength: header.byteLength, body: chunks };
}
