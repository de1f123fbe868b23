// The client over KServe v2 HTTP: a JSON body, or the binary tensor extension (JSON header plus raw
// tensor bytes, outputs asked for as binary), and the repository endpoints (JSON, files in base64).
// One fetch per request; fetch keeps connections alive.

import { Buffer } from 'node:buffer';
import { isDatatype } from '../tensor/datatypes.js';
import {
  jsonValues,
  tensorBytes,
  tensorFromBytes,
  tensorFromJson,
  type Tensor,
} from './client-tensor.js';
import {
  configText,
  InferenceClientError,
  isRegionInput,
  regionInputHeader,
  regionOutputOf,
  requestedOutputs,
  requestParameters,
  sharedMemoryParameters,
  type InferInput,
  type InferOptions,
  type InferResult,
  type LoadModelOptions,
  type RegionOutput,
  type RegionStatusRow,
  type RepositoryIndexRow,
  type SharedMemoryCall,
  type Transport,
  type UnloadModelOptions,
} from './client-types.js';

interface ResponseOutputJson {
  name: string;
  datatype: string;
  shape: number[];
  data?: unknown[];
  parameters?: { binary_data_size?: number; [key: string]: unknown };
}

export class HttpTransport implements Transport {
  readonly #base: string;
  readonly #binary: boolean;
  readonly #defaultTimeoutMs: number | undefined;

  constructor(base: string, binary: boolean, defaultTimeoutMs: number | undefined) {
    this.#base = base.replace(/\/+$/, '');
    this.#binary = binary;
    this.#defaultTimeoutMs = defaultTimeoutMs;
  }

  async infer(
    model: string,
    inputs: readonly InferInput[],
    options: InferOptions,
  ): Promise<InferResult> {
    const version = options.version === undefined ? '' : `/versions/${options.version}`;
    const url = `${this.#base}/v2/models/${encodeURIComponent(model)}${version}/infer`;
    const { body, headers } = this.#binary
      ? binaryBody(inputs, options)
      : jsonBody(inputs, options);
    const res = await this.#post(url, body, headers, options.timeoutMs);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const headerLength = res.headers.get('inference-header-content-length');
    const split = headerLength === null ? bytes.byteLength : Number(headerLength);
    const doc = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, split).toString('utf8')) as {
      error?: string;
      model_name: string;
      model_version: string;
      outputs: ResponseOutputJson[];
    };
    if (res.status !== 200) {
      throw new InferenceClientError(`HTTP_${res.status}`, doc.error ?? res.statusText, res.status);
    }
    let at = split;
    const outputs: Tensor[] = [];
    const regionOutputs: RegionOutput[] = [];
    for (const o of doc.outputs) {
      if (!isDatatype(o.datatype)) {
        throw new InferenceClientError('PROTOCOL', `output ${o.name} has unknown datatype`);
      }
      // Written into a region: parameters, and no data in the body.
      const inRegion = regionOutputOf(o.name, o.datatype, o.shape, o.parameters);
      if (inRegion !== undefined) {
        regionOutputs.push(inRegion);
        continue;
      }
      const size = o.parameters?.binary_data_size;
      if (size !== undefined) {
        const data = bytes.subarray(at, at + size);
        at += size;
        outputs.push(tensorFromBytes(o.name, o.datatype, o.shape, data));
      } else outputs.push(tensorFromJson(o.name, o.datatype, o.shape, o.data ?? []));
    }
    return { modelName: doc.model_name, modelVersion: doc.model_version, outputs, regionOutputs };
  }

  async sharedMemory(call: SharedMemoryCall, timeoutMs?: number): Promise<RegionStatusRow[]> {
    const region = call.name === undefined ? '' : `/region/${encodeURIComponent(call.name)}`;
    const url = `${this.#base}/v2/systemsharedmemory${region}/${call.op}`;
    const ms = timeoutMs ?? this.#defaultTimeoutMs;
    let res: Response;
    try {
      res = await fetch(url, {
        method: call.op === 'status' ? 'GET' : 'POST',
        ...(call.op === 'register' && {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ key: call.key, offset: call.offset, byte_size: call.byteSize }),
        }),
        ...(ms !== undefined ? { signal: AbortSignal.timeout(ms) } : {}),
      });
    } catch (e) {
      throw transportError(e, ms);
    }
    const text = await res.text();
    const doc = text === '' ? undefined : (JSON.parse(text) as unknown);
    if (res.status !== 200) {
      const message = (doc as { error?: string } | undefined)?.error ?? res.statusText;
      throw new InferenceClientError(`HTTP_${res.status}`, message, res.status);
    }
    if (call.op !== 'status') return [];
    return (doc as { name: string; key: string; offset: number; byte_size: number }[]).map((r) => ({
      name: r.name,
      key: r.key,
      offset: r.offset,
      byteSize: r.byte_size,
    }));
  }

  async repositoryIndex(readyOnly: boolean, timeoutMs?: number): Promise<RepositoryIndexRow[]> {
    const body = JSON.stringify({ ready: readyOnly });
    return (await this.#repository(
      '/v2/repository/index',
      body,
      timeoutMs,
    )) as RepositoryIndexRow[];
  }

  async loadModel(model: string, options: LoadModelOptions): Promise<void> {
    const parameters: Record<string, string> = {};
    const config = configText(options);
    if (config !== undefined) parameters['config'] = config;
    for (const [path, bytes] of Object.entries(options.files ?? {})) {
      parameters[`file:${path}`] = Buffer.from(
        bytes.buffer,
        bytes.byteOffset,
        bytes.byteLength,
      ).toString('base64');
    }
    const route = `/v2/repository/models/${encodeURIComponent(model)}/load`;
    await this.#repository(route, JSON.stringify({ parameters }), options.timeoutMs);
  }

  async unloadModel(model: string, options: UnloadModelOptions): Promise<void> {
    const body = JSON.stringify({
      parameters: { unload_dependents: options.unloadDependents ?? false },
    });
    const route = `/v2/repository/models/${encodeURIComponent(model)}/unload`;
    await this.#repository(route, body, options.timeoutMs);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** A repository call: its JSON answer (undefined for an empty body), or its error. */
  async #repository(path: string, body: string, timeoutMs: number | undefined): Promise<unknown> {
    const res = await this.#post(
      `${this.#base}${path}`,
      body,
      { 'content-type': 'application/json' },
      timeoutMs,
    );
    const text = await res.text();
    const doc = text === '' ? undefined : (JSON.parse(text) as unknown);
    if (res.status !== 200) {
      const message = (doc as { error?: string } | undefined)?.error ?? res.statusText;
      throw new InferenceClientError(`HTTP_${res.status}`, message, res.status);
    }
    return doc;
  }

  async #post(
    url: string,
    body: string | Uint8Array,
    headers: Record<string, string>,
    timeoutMs: number | undefined,
  ): Promise<Response> {
    const ms = timeoutMs ?? this.#defaultTimeoutMs;
    try {
      return await fetch(url, {
        method: 'POST',
        headers,
        body,
        ...(ms !== undefined ? { signal: AbortSignal.timeout(ms) } : {}),
      });
    } catch (e) {
      throw transportError(e, ms);
    }
  }
}

/** The requested outputs, each named in its region (`outputRegions`) or, for the binary body, as binary. */
function outputsMember(options: InferOptions, binary: boolean) {
  const names = requestedOutputs(options);
  if (names === undefined) return {};
  return {
    outputs: names.map((name) => {
      const ref = options.outputRegions?.[name];
      if (ref !== undefined) return { name, parameters: sharedMemoryParameters(ref) };
      return binary ? { name, parameters: { binary_data: true } } : { name };
    }),
  };
}

function jsonBody(inputs: readonly InferInput[], options: InferOptions) {
  const doc = {
    parameters: requestParameters(options),
    inputs: inputs.map((t) =>
      isRegionInput(t)
        ? regionInputHeader(t)
        : { name: t.name, datatype: t.datatype, shape: t.shape, data: jsonValues(t) },
    ),
    ...outputsMember(options, false),
  };
  return { body: JSON.stringify(doc), headers: { 'content-type': 'application/json' } };
}

/**
 * The binary tensor extension: JSON header, then each input's bytes in order (inputs in a region
 * have none: their parameters name it).
 */
function binaryBody(inputs: readonly InferInput[], options: InferOptions) {
  const payloads: Uint8Array[] = [];
  const doc = {
    parameters: { ...requestParameters(options), binary_data_output: true },
    inputs: inputs.map((t) => {
      if (isRegionInput(t)) return regionInputHeader(t);
      const head = { name: t.name, datatype: t.datatype, shape: t.shape };
      const bytes = tensorBytes(t);
      payloads.push(bytes);
      return { ...head, parameters: { binary_data_size: bytes.byteLength } };
    }),
    ...outputsMember(options, true),
  };
  const header = Buffer.from(JSON.stringify(doc), 'utf8');
  return {
    body: Buffer.concat([header, ...payloads]),
    headers: {
      'content-type': 'application/octet-stream',
      'inference-header-content-length': String(header.byteLength),
    },
  };
}

function transportError(e: unknown, timeoutMs: number | undefined): InferenceClientError {
  const name = (e as { name?: unknown }).name;
  if (name === 'TimeoutError') {
    return new InferenceClientError('TIMEOUT', `no response within ${timeoutMs} ms`);
  }
  return new InferenceClientError(
    'CONNECTION',
    `the request failed: ${e instanceof Error ? e.message : String(e)}`,
  );
}
