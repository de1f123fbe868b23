// The KServe v2 inference request envelope: a parsed JSON document -> DecodedRequest. Checks only
// the *shape* of the request (types of members, counts, duplicates); whether names, datatypes and
// shapes fit a model is request validation's job. Every member is read as an own property.

import { fail } from '../errors.js';
import { BinarySection } from './binary-section.js';
import {
  MAX_TENSORS,
  type DecodedInput,
  type DecodedOutput,
  type DecodedRequest,
  type TensorData,
} from '../protocol/inference-request.js';
import { scanJsonBody, type ScannedTensor } from './json-body-scan.js';
import { refuseOversizedLists, tooManyTensors } from './json-tensor-count.js';
import { MOVE_MIN_BYTES } from '../memory/movable-buffers.js';
import { parseJsonBytes } from './json-text.js';
import { isJsonObject, jsonKind, own, readParameters } from '../protocol/parameters.js';
import { checkSequenceParameters } from '../protocol/sequence-parameters.js';
import { repeatedNameError } from '../protocol/tensor-names.js';
import { sharedMemoryParameters } from '../protocol/shm-parameters.js';

function tensorList(
  doc: Record<string, unknown>,
  key: 'inputs' | 'outputs',
): unknown[] | undefined {
  const v = own(doc, key);
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) {
    throw fail('BAD_REQUEST', `expected '${key}' to be an array, got ${jsonKind(v)}`);
  }
  if (v.length > MAX_TENSORS) throw tooManyTensors(v.length, key);
  return v;
}

function tensorName(entry: unknown, key: 'inputs' | 'outputs', index: number): string {
  if (!isJsonObject(entry)) {
    throw fail('BAD_REQUEST', `expected ${key}[${index}] to be an object, got ${jsonKind(entry)}`);
  }
  const name = own(entry, 'name');
  if (typeof name !== 'string') {
    throw fail(
      'BAD_REQUEST',
      `expected ${key}[${index}].name to be a string, got ${jsonKind(name)}`,
    );
  }
  return name;
}

function checkUnique(seen: Set<string>, name: string, key: 'inputs' | 'outputs'): void {
  if (seen.has(name)) throw repeatedNameError(name, key);
  seen.add(name);
}

/** `binary_data_size` as a byte count, or undefined when the input has none. */
function binarySize(name: string, params: Readonly<Record<string, unknown>>): number | undefined {
  if (!Object.hasOwn(params, 'binary_data_size')) return undefined;
  const size = params['binary_data_size'];
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw fail(
      'BAD_PARAMETER',
      `input ${name}: parameters.binary_data_size must be an integer >= 0, got ${jsonKind(size)}`,
    );
  }
  return size;
}

function decodeInput(
  entry: unknown,
  index: number,
  binary: BinarySection,
  scanned: ReadonlyMap<number, ScannedTensor> | undefined,
): DecodedInput {
  const name = tensorName(entry, 'inputs', index);
  const input = entry as Record<string, unknown>;
  const datatype = own(input, 'datatype');
  if (typeof datatype !== 'string') {
    throw fail(
      'BAD_REQUEST',
      `input ${name}: expected 'datatype' to be a string, got ${jsonKind(datatype)}`,
    );
  }
  const shape = own(input, 'shape');
  if (!Array.isArray(shape)) {
    throw fail(
      'BAD_REQUEST',
      `input ${name}: expected 'shape' to be an array, got ${jsonKind(shape)}`,
    );
  }
  const parameters = readParameters(own(input, 'parameters'), {
    where: `input ${name}`,
    reserveTritonPrefix: false,
  });
  const size = binarySize(name, parameters);
  const hasData = Object.hasOwn(input, 'data');
  const shm = sharedMemoryParameters(name, parameters);
  let data: TensorData;
  if (shm !== undefined) {
    if (hasData || size !== undefined) {
      throw fail(
        'BAD_REQUEST',
        `input ${name}: expected no ${hasData ? "'data'" : 'parameters.binary_data_size'} with ` +
          `parameters.shared_memory_region (the tensor is in shared memory), got both`,
      );
    }
    data = shm;
  } else if (size !== undefined) {
    if (hasData) {
      throw fail(
        'BAD_REQUEST',
        `input ${name}: expected only one of 'data' and parameters.binary_data_size, got both`,
      );
    }
    data = { kind: 'raw', bytes: binary.take(name, size) };
  } else if (hasData) {
    const typed = scanned?.get(index);
    data =
      typed === undefined ? { kind: 'json', values: input['data'] } : { kind: 'typed', ...typed };
  } else {
    throw fail(
      'BAD_REQUEST',
      `input ${name}: expected 'data', parameters.binary_data_size or ` +
        `parameters.shared_memory_region, got none`,
    );
  }
  return { name, datatype, shape, parameters, data };
}

function decodeOutput(entry: unknown, index: number): DecodedOutput {
  const name = tensorName(entry, 'outputs', index);
  const parameters = readParameters(own(entry as Record<string, unknown>, 'parameters'), {
    where: `output ${name}`,
    reserveTritonPrefix: false,
  });
  return { name, parameters };
}

/**
 * A parsed request document -> DecodedRequest. Inputs with `binary_data_size` take their bytes, in
 * order, from `binary` (the bytes after the JSON header; empty for a JSON-only body).
 */
export function requestFromDocument(
  doc: unknown,
  binary: BinarySection,
  scanned?: ReadonlyMap<number, ScannedTensor>,
): DecodedRequest {
  if (!isJsonObject(doc)) {
    throw fail('BAD_REQUEST', `expected the request to be a JSON object, got ${jsonKind(doc)}`);
  }
  // Counts first: an oversized list is refused before anything in it is looked at.
  const rawInputs = tensorList(doc, 'inputs');
  const rawOutputs = tensorList(doc, 'outputs');
  if (rawInputs === undefined || rawInputs.length === 0) {
    throw fail(
      'BAD_REQUEST',
      `expected a non-empty 'inputs' array, got ${rawInputs === undefined ? 'none' : 'an empty array'}`,
    );
  }
  const id = own(doc, 'id');
  if (id !== undefined && typeof id !== 'string') {
    throw fail('BAD_REQUEST', `expected 'id' to be a string, got ${jsonKind(id)}`);
  }
  // JSON.parse has rounded any number past 2^53-1: a sequence_id that large is refused here.
  const parameters = checkSequenceParameters(
    readParameters(own(doc, 'parameters'), { where: 'request', reserveTritonPrefix: true }),
  );

  const seen = new Set<string>();
  const inputs = rawInputs.map((entry, i) => {
    const input = decodeInput(entry, i, binary, scanned);
    checkUnique(seen, input.name, 'inputs');
    return input;
  });
  binary.finish();

  let outputs: DecodedOutput[] | undefined;
  if (rawOutputs !== undefined) {
    seen.clear();
    outputs = rawOutputs.map((entry, i) => {
      const output = decodeOutput(entry, i);
      checkUnique(seen, output.name, 'outputs');
      return output;
    });
  }
  return {
    ...(id !== undefined ? { id } : {}),
    parameters,
    inputs,
    ...(outputs !== undefined ? { outputs } : {}),
  };
}

/**
 * Bodies from this size are scanned; smaller ones are parsed whole. The scan is for memory, not
 * speed: measured on this machine it takes 1.2-1.6x the CPU of JSON.parse (mlp's 15 KiB body:
 * ~105-115 µs against ~70 µs, which bench:compare's stage timeline showed as the parse stage growing
 * from ~80 to ~144 µs), while a large body parsed whole costs many times its size in V8's heap.
 */
export const SCAN_FROM_BYTES = MOVE_MIN_BYTES;

/**
 * A whole body of JSON (no binary tensor extension) -> DecodedRequest. From `scanFromBytes` (tests
 * pass 0 to scan every body), the inputs' `data` arrays are scanned straight into typed tensors
 * (json-body-scan.ts) and only the rest of the document is parsed; a body the scan does not take, or whose rest fails to decode, goes the old way, JSON.parse
 * of it all, so every error is the one that way gives.
 */
export function decodeJsonRequest(
  body: Uint8Array,
  scanFromBytes = SCAN_FROM_BYTES,
): DecodedRequest {
  if (body.byteLength < scanFromBytes) return requestFromDocument(parseJsonBytes(body), noBinary());
  const scanned = scanJsonBody(body);
  if (scanned !== undefined && scanned.tensors.size > 0) {
    try {
      return requestFromDocument(parseJsonBytes(scanned.rest), noBinary(), scanned.tensors);
    } catch {
      // The old path below finds the same fault, with its own message.
    }
  }
  return parseLargeRequest(body, noBinary());
}

/**
 * A large document parsed whole: its tensor lists are counted from the bytes first, so an oversized
 * one is refused before JSON.parse makes a JS object of every entry.
 */
export function parseLargeRequest(json: Uint8Array, binary: BinarySection): DecodedRequest {
  refuseOversizedLists(json);
  return requestFromDocument(parseJsonBytes(json), binary);
}

function noBinary(): BinarySection {
  return new BinarySection(new Uint8Array(0), false);
}
